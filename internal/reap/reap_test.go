package reap

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// startOrphan starts, with env added to this process's environment, a
// shell that leaves a sleep behind in a process group of its own and exits,
// as GoNB's gopls outlives a killed kernel; it returns the sleep's pid.
func startOrphan(t *testing.T, env ...string) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reap reads /proc")
	}
	cmd := exec.Command("sh", "-c", `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!`)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &pid); err != nil {
		t.Fatalf("the shell printed %q: %v", out, err)
	}
	// The sleep may not have exec'd yet: wait until it shows its mark.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile("/proc/" + strings.TrimSpace(string(out)) + "/comm"); err == nil && strings.TrimSpace(string(b)) == "sleep" {
			break
		}
	}
	return pid
}

// TestKill: a process that left its parent's group and outlived its parent
// is found by its mark, and only by its mark, and Kill ends it.
func TestKill(t *testing.T) {
	mark, other := NewMark(), NewMark()
	if mark == other || !strings.HasPrefix(mark, markPrefix) {
		t.Fatalf("NewMark: %q then %q", mark, other)
	}
	pid := startOrphan(t, mark)
	t.Cleanup(func() { _, _ = Kill(mark, 0) })
	if got := Pids(mark); !slices.Equal(got, []int{pid}) {
		t.Fatalf("Pids(mark) = %v, want [%d]", got, pid)
	}
	if got := Pids(other); len(got) != 0 {
		t.Errorf("Pids(another mark) = %v, want none", got)
	}
	found, err := Kill(mark, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.HasPrefix(found[0], "sleep (pid ") {
		t.Errorf("Kill found %q, want one sleep", found)
	}
	if Alive(pid) || len(Pids(mark)) != 0 {
		t.Errorf("the sleep (pid %d) still runs after Kill", pid)
	}
}

// TestCleanup: what a subtest leaves running carrying its mark is gone when
// the subtest ends.
func TestCleanup(t *testing.T) {
	var pid int
	t.Run("leaves a process", func(t *testing.T) {
		pid = startOrphan(t, Cleanup(t))
		if !Alive(pid) {
			t.Fatalf("the sleep (pid %d) did not start", pid)
		}
	})
	if Alive(pid) {
		t.Errorf("the sleep (pid %d) outlived the subtest", pid)
	}
}
