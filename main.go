package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/provider"
)

// `make docs` runs these with the Terraform CLI it builds on PATH: format the
// examples, then render docs/ from the schemas, templates/ and examples/.
//go:generate terraform fmt -recursive ./examples/
//go:generate go tool tfplugindocs generate --provider-name dataintegration

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	debug := flag.Bool("debug", false, "start the provider in debug mode, for debuggers such as delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/dataintegration/dataintegration",
		Debug:   *debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
