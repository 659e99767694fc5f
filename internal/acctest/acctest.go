// Package acctest is the harness of this repository's tests: the service a
// test runs against, the engines that drive the provider, and the checks
// every acceptance test makes. Take the first harness that can show what a
// test asserts:
//
//   - Env (env.go), with resource.Test: configurations applied step by step
//     by the engine under test, with plan and state checks, against a
//     sandbox of the test's own, started in-process, or the real service
//     when DATAINTEGRATION_BASE_URL, DATAINTEGRATION_API_KEY and
//     DATAINTEGRATION_WORKSPACE_ID are set. Most acceptance tests.
//   - Engine (engine.go): the engine's CLI run by hand with the provider
//     built from this tree, as a user runs it, for what resource.Test cannot
//     do: the examples and guides in their folders, TF_LOG, a SIGINT,
//     -generate-config-out, warnings on a successful plan, a release
//     installed by `terraform init`, a state written by an earlier version.
//   - ProtoProvider (proto.go): the provider over protocol 6, in-process,
//     with no engine: a validation or a read exactly as Terraform asks for
//     it, request counts at scale, benchmarks.
//   - The unit harness of package provider (its harness_test.go): a
//     resource's methods called directly, with a client to a sandbox, for
//     outcomes an engine cannot set up: a destroy from a stale state, an
//     answer refused or lost.
//
// The configurations the tests apply are built by config.go, the checks
// they share are in checks.go, and fleet.go applies many connectors and
// triggers at once, as the reliability tests and the benchmarks do.
// network.go puts an Env behind https and a proxy (TLSEnv, NewProxy).
// Variables are named after their harness: e for an *Env, eng for an
// *Engine, p for a *ProtoProvider.
//
// Whichever the harness, an acceptance test fails when its engine printed
// one of its secrets (output.go): a package whose tests run an engine calls
// Main from its TestMain. Capability says which engine versions have a
// feature, and RequireCapability skips a test, saying why, where the
// engine under test lacks it.
package acctest
