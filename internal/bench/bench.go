// Package bench measures the provider at scale, each figure beside its
// target, through `make bench`; BENCHMARKS.md holds the figures.
package bench
