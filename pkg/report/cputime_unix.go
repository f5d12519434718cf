//go:build unix

package report

import (
	"syscall"
	"time"
)

// cpuSeconds is the process's CPU time so far (user and system), 0 where
// the OS does not say.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}
