package main

import (
	"context"
	"flag"
	"log"
	"os"
	"runtime/debug"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/provider"
)

// `make docs` runs these with the Terraform CLI it builds on PATH: format the
// examples, then render docs/ from the schemas, templates/ and examples/.
//go:generate terraform fmt -recursive ./examples/
//go:generate go tool tfplugindocs generate --provider-name dataintegration

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// memoryLimit is the provider's soft memory limit, unless GOMEMLIMIT says
// otherwise. The provider lives for one Terraform command, and reading
// 10,000 jobs holds about 45 MiB at its peak: left alone, the garbage
// collector lets the heap grow to twice that before it runs. Past the limit
// it collects more often instead; nothing fails, a much larger read is only
// slower.
const memoryLimit = 80 << 20

func main() {
	debugMode := flag.Bool("debug", false, "start the provider in debug mode, for debuggers such as delve")
	flag.Parse()
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/dataintegration/dataintegration",
		Debug:   *debugMode,
	})
	if err != nil {
		log.Fatal(err)
	}
}
