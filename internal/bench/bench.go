// Package bench measures the provider at scale: requests, speed and memory
// against sandboxes, each figure beside its target, and the plans side by
// side with the provider built at a baseline and a minimal provider
// (testdata/yardstick). Its benchmarks run through `make bench`; the
// figures of one run are in BENCHMARKS.md.
package bench
