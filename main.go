package main

import (
	"flag"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/provider"
)

// `make docs` runs these with the Terraform CLI it builds on PATH: format the
// examples, then render docs/ from the schemas, templates/ and examples/.
//go:generate terraform fmt -recursive ./examples/
//go:generate go tool tfplugindocs generate --provider-name dataintegration

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// address is the provider's source address; its type, "dataintegration",
// names the provider's own log level variable, TF_LOG_PROVIDER_DATAINTEGRATION.
const (
	address = "registry.terraform.io/dataintegration/dataintegration"
	logName = "dataintegration"
)

// stopProfile ends the profiles of a provider built with `-tags profile`
// (see profile.go); it does nothing otherwise.
var stopProfile = func() {}

func main() {
	debugMode := flag.Bool("debug", false, "start the provider in debug mode, for debuggers such as delve")
	flag.Parse()
	// No soft memory limit (GOMEMLIMIT works as for any Go program): the
	// plan reading 10,000 jobs peaks at about 85 MiB without one, and the
	// 80 MiB limit the provider once set only made the collector run more
	// often, for no smaller peak (BENCHMARKS.md).
	opts := []tf6server.ServeOpt{tf6server.WithLogEnvVarName(logName)}
	if *debugMode {
		// The provider's own terminal shows its logs: they stay.
		opts = append(opts, tf6server.WithManagedDebug())
	} else if !logsCollected(os.Getenv) {
		silenceLogs(os.Setenv)
		opts = append(opts, tf6server.WithGoPluginLogger(hclog.NewNullLogger()))
	}
	err := tf6server.Serve(address, providerserver.NewProtocol6(provider.New(version)()), opts...)
	stopProfile()
	if err != nil {
		log.Fatal(err)
	}
}

// logsCollected tells whether Terraform (or OpenTofu) keeps the provider's
// log lines, reading the variables as both engines do: TF_LOG_PROVIDER, else
// TF_LOG, names the level of the provider's lines; unset or OFF, every line
// the provider writes is parsed and dropped. (An unknown level counts as
// TRACE to the engines, so it counts as collected here.)
func logsCollected(getenv func(string) string) bool {
	level := getenv("TF_LOG_PROVIDER")
	if level == "" {
		level = getenv("TF_LOG")
	}
	return level != "" && !strings.EqualFold(level, "OFF")
}

// logLevelVars are the variables terraform-plugin-log reads in the provider
// process for the level of each logger the provider starts: the SDK's, its
// protocol subsystem, the framework's and the provider's own. Each defaults
// to TRACE when unset.
var logLevelVars = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_" + strings.ToUpper(logName)}

// silenceLogs turns every logger of terraform-plugin-log off, for a run
// whose logs no one collects. Left at their TRACE default, they wrote about
// 120 JSON lines (65 KB) for each connector of a plan refreshing 200
// connectors, which Terraform parsed and threw away: a third of the
// provider's CPU time. With them off, that plan takes about 60% of the time,
// and one reading 10,000 jobs about half (BENCHMARKS.md).
func silenceLogs(setenv func(key, value string) error) {
	for _, v := range logLevelVars {
		_ = setenv(v, "OFF") // os.Setenv fails only on a malformed name
	}
}
