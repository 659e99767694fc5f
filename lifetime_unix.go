//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
)

// runSignals are the signals a terminal, a CI runner or `timeout` sends to
// every process of the run's process group, the provider included, to stop
// the run. The engine stops gracefully on SIGINT and SIGTERM: it waits for
// the operations in flight, then writes the state; a provider ended by the
// signal loses their answers, and the objects the service made miss the
// state. A signal that ends the engine (SIGHUP without nohup) ends the
// provider through watchParent.
var runSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// parentPoll is how often the provider looks whether the engine is gone.
const parentPoll = 100 * time.Millisecond

// tieToEngine makes the engine alone end the provider: the signals of the
// run are ignored, and the provider exits as soon as the engine is gone.
func tieToEngine(logger hclog.Logger) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, runSignals...)
	go func() {
		for sig := range ch {
			logger.Debug("signal received; the provider serves on until the engine stops it", "signal", sig.String())
		}
	}()
	go watchParent(os.Getppid, parentPoll, func() { os.Exit(1) })
}

// watchParent calls gone once the parent process is no longer the one the
// provider had at start: killed or crashed, the engine cannot stop the
// provider, whose orphan is adopted by another process. It compares
// parents, not the parent with 1, because the engine may be process 1 in
// a container. The kernel's parent-death signal would need no polling, but
// it fires when the thread that started the provider ends, which a Go
// engine's threads may do while the engine lives.
func watchParent(getppid func() int, every time.Duration, gone func()) {
	parent := getppid()
	t := time.NewTicker(every)
	defer t.Stop()
	for range t.C {
		if getppid() != parent {
			gone()
			return
		}
	}
}
