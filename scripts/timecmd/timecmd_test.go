package timecmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/internal/reap"
)

// run runs scripts/time-commands.sh with args, its temporary folders under
// a test directory and a reap mark, and returns its stdout and exit code.
func run(t *testing.T, mark string, args ...string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the script clones with git")
	}
	cmd := exec.Command(filepath.Join("..", "time-commands.sh"), args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), mark)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	// A process the script leaves behind with its stdout would hold Output
	// open: stop waiting for it 10 s after the script ends.
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("time-commands.sh %q: %v\n%s", args, err, stderr.String())
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// row matches a row of the table: the command, wall and CPU time, status.
var row = regexp.MustCompile(`(?m)^(.+?)\s+([0-9.]+s|[0-9]+m [0-9]{2}s)\s+([0-9.]+s|[0-9]+m [0-9]{2}s)\s+([0-9]+)$`)

// TestTable: one row per command with its exit status, the script's own
// status the worst of them, and the commit and the machine in the header.
func TestTable(t *testing.T) {
	out, code := run(t, reap.NewMark(), "--", "sleep 0.2; exit 3")
	rows := row.FindAllStringSubmatch(out, -1)
	if code != 1 || len(rows) != 1 || rows[0][1] != "sleep 0.2; exit 3" || rows[0][4] != "3" {
		t.Fatalf("exit %d, rows %q; want 1 and the command with status 3:\n%s", code, rows, out)
	}
	if !strings.Contains(out, "Fresh clone of") || !strings.Contains(out, "cores") {
		t.Errorf("no header with the clone and the machine:\n%s", out)
	}
	if rows[0][2] == "0.0s" {
		t.Errorf("a 0.2 s command timed %s:\n%s", rows[0][2], out)
	}

	out, code = run(t, reap.NewMark(), "--dry-run")
	rows = row.FindAllStringSubmatch(out, -1)
	if code != 0 || len(rows) != 2 || rows[0][1] != "make -n reproduce" || rows[1][1] != "make -n test" {
		t.Errorf("--dry-run: exit %d, rows %q; want make -n reproduce and make -n test:\n%s", code, rows, out)
	}
}

// TestBusyEnds: the CPU-bound processes of --busy end with the script.
func TestBusyEnds(t *testing.T) {
	mark := reap.Cleanup(t)
	out, code := run(t, mark, "--busy", "--", "true")
	if code != 0 || !strings.Contains(out, "with a CPU-bound process on each core") {
		t.Fatalf("--busy: exit %d:\n%s", code, out)
	}
	if left := reap.Pids(mark); len(left) > 0 {
		t.Errorf("--busy left %d processes running: %v", len(left), left)
	}
}
