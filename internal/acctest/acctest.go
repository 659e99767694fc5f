// Package acctest is the tests' harness: an Env (env.go) for resource.Test,
// an Engine (engine.go) for the CLI run by hand, a ProtoProvider (proto.go)
// for protocol 6 with no engine; checks in checks.go, HCL in config.go.
// Package provider's unit helpers are in its helpers_test.go. A package
// whose tests run an engine calls Main from its TestMain.
package acctest
