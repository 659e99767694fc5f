package main

import (
	"flag"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
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
	// No soft memory limit (GOMEMLIMIT works as for any Go program): a
	// limit near the provider's peak only makes the collector run more
	// often, for no smaller peak (BENCHMARKS.md).
	opts := []tf6server.ServeOpt{tf6server.WithLogEnvVarName(logName)}
	if *debugMode {
		// The provider's own terminal shows its logs: they stay.
		opts = append(opts, tf6server.WithManagedDebug())
	} else {
		level := providerLogLevel(os.Getenv)
		setLogLevels(os.Getenv, os.Setenv, level)
		logger := pluginLogger(level)
		opts = append(opts, tf6server.WithGoPluginLogger(logger))
		// Started by the engine, the provider ends when the engine ends it
		// or is gone, not on the signals of the run (lifetime_unix.go).
		tieToEngine(logger)
	}
	srv, err := provider.NewServer(version)()
	if err != nil {
		log.Fatal(err)
	}
	err = tf6server.Serve(address, func() tfprotov6.ProviderServer { return srv }, opts...)
	stopProfile()
	if err != nil {
		log.Fatal(err)
	}
}

// providerLogLevel is the level of the provider's lines that Terraform (or
// OpenTofu) keeps, read as both engines read it: TF_LOG_PROVIDER, else
// TF_LOG, in any letter case; JSON and any value they do not know mean
// TRACE to them. It is "" when they keep none (unset, or OFF): every line
// the provider wrote would be parsed and dropped.
func providerLogLevel(getenv func(string) string) string {
	level := getenv("TF_LOG_PROVIDER")
	if level == "" {
		level = getenv("TF_LOG")
	}
	switch up := strings.ToUpper(level); up {
	case "", "OFF":
		return ""
	case "TRACE", "DEBUG", "INFO", "WARN", "ERROR":
		return up
	default:
		return "TRACE"
	}
}

// logLevelVars are the variables terraform-plugin-log reads in the provider
// process for the level of each logger the provider starts: the SDK's, its
// protocol subsystem, the framework's and the provider's own. Each defaults
// to TRACE when unset.
var logLevelVars = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_" + strings.ToUpper(logName)}

// setLogLevels sets the loggers of terraform-plugin-log to the level the
// engine keeps: all of them OFF when it keeps none (level ""), else those the
// user left unset, so that the provider writes the lines the engine keeps
// and no others. Left at their TRACE default, the loggers write many JSON
// lines for each resource, which the engine parses and throws away (at
// TF_LOG=ERROR as without TF_LOG): a large share of the provider's CPU time
// (BENCHMARKS.md).
func setLogLevels(getenv func(string) string, setenv func(key, value string) error, level string) {
	for _, v := range logLevelVars {
		switch {
		case level == "":
			_ = setenv(v, "OFF") // os.Setenv fails only on a malformed name
		case getenv(v) == "":
			_ = setenv(v, level)
		}
	}
}

// pluginLogger is go-plugin's logger, which says how the provider starts
// (a few lines at INFO and DEBUG), at the level the engine keeps.
func pluginLogger(level string) hclog.Logger {
	if level == "" {
		return hclog.NewNullLogger()
	}
	return hclog.New(&hclog.LoggerOptions{Level: hclog.LevelFromString(level), Output: os.Stderr, JSONFormat: true})
}
