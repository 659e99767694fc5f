package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/provider"
)

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
