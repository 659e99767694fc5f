// Package acctest is the tests' harness: an Env (env.go) for resource.Test,
// an Engine (engine.go) for the CLI run by hand, a ProtoProvider (proto.go)
// for protocol 6 with no engine; checks in checks.go, HCL in config.go; many
// connectors and DegradedRun in fleet.go; TLS and proxies in network.go;
// secret scans and Main in output.go; bench tables in bench.go; the release
// in release.go. A package whose tests run an engine calls Main from its
// TestMain. Package provider's unit helpers are in its helpers_test.go.
package acctest
