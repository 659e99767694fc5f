//go:build !unix

package main

import "github.com/hashicorp/go-hclog"

// tieToEngine leaves go-plugin's handling as it is where there are no
// process groups to signal: go-plugin ignores Ctrl-C, and the engine ends
// the provider.
func tieToEngine(hclog.Logger) {}
