//go:build !unix

package report

// cpuSeconds is 0: the process's CPU time is read on Unix systems only.
func cpuSeconds() float64 { return 0 }
