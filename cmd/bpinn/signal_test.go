package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A first SIGINT ends interruptible's context, its cause naming the
// signal; a second one kills the process, as a user pressing Ctrl-C twice
// expects while the first one's fit writes its record. The child is this
// test binary run again, which without the kill would sleep a minute and
// say it survived.
func TestSecondInterruptKills(t *testing.T) {
	if os.Getenv("BPINN_SIGNAL_CHILD") == "1" {
		ctx, cancel := interruptible()
		defer cancel()
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			fmt.Println("kill:", err)
			os.Exit(3)
		}
		<-ctx.Done()
		fmt.Println("cause:", context.Cause(ctx))
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			fmt.Println("kill:", err)
			os.Exit(3)
		}
		time.Sleep(time.Minute)
		fmt.Println("survived the second SIGINT")
		os.Exit(0)
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondInterruptKills$")
	cmd.Env = append(os.Environ(), "BPINN_SIGNAL_CHILD=1")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child: %v, output %q: want it killed by the second SIGINT", err, out)
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("child ended %v, output %q: want killed by SIGINT", exit, out)
	}
	if !strings.Contains(string(out), "cause: interrupt signal received") {
		t.Errorf("output %q: want the first SIGINT as the context's cause", out)
	}
}
