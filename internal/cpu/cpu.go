// Package cpu says which vector instructions the processor offers, for the
// assembly kernels of pkg/ad and internal/dense.
package cpu

// AVX2FMA reports AVX2 and FMA with the YMM registers saved by the OS
// (false on other architectures and with -tags purego).
var AVX2FMA = detect()
