//go:build profile

package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// A provider built with `-tags profile` writes a CPU profile and an
// allocation profile of each of its processes when
// DATAINTEGRATION_PROFILE_DIR names a folder: Terraform starts the provider
// more than once a command, so each process writes cpu-<pid>.pprof and
// allocs-<pid>.pprof there. BENCHMARKS.md says how to read them.
func init() {
	dir := os.Getenv("DATAINTEGRATION_PROFILE_DIR")
	if dir == "" {
		return
	}
	name := func(kind string) string { return fmt.Sprintf("%s/%s-%d.pprof", dir, kind, os.Getpid()) }
	cpu, err := os.Create(name("cpu"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		return
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		return
	}
	stopProfile = func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		runtime.GC()
		if f, err := os.Create(name("allocs")); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			_ = f.Close()
		}
	}
}
