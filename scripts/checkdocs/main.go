// Command checkdocs measures the running times the notebooks state for
// quick mode ("In quick mode this notebook runs in about 15 s") and reports
// those off by more than a factor (2) either way; with -w it rewrites them
// in place. It is make check-docs: the tests assert no time, since a busy
// machine would fail them.
//
//	go run ./scripts/checkdocs                 run every notebook, report
//	go run ./scripts/checkdocs -run 05 -w      run 05-burgers, rewrite its time
//	go run ./scripts/checkdocs -times FILE     report on times measured before
//
// It runs the notebooks through their test (go test -run TestNotebooks
// ./notebooks, which needs scripts/setup.sh) with BPINN_NB_TIMES set, so
// they run exactly as the test runs them, and compares the wall time: run
// it on an otherwise idle machine, the kind the statement is for.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/evidence-pinn/bpinn/internal/nbtime"
)

func main() {
	run := flag.String("run", "", "run only the notebooks whose subtest name matches this regexp (go test -run TestNotebooks/REGEXP)")
	times := flag.String("times", "", "read the times from this BPINN_NB_TIMES file instead of running the notebooks")
	write := flag.Bool("w", false, "rewrite the stated times that are off in the notebooks")
	factor := flag.Float64("factor", 2, "report a stated time when the measured one is more than this factor above or below it")
	flag.Parse()
	if err := main1(*run, *times, *write, *factor); err != nil {
		fmt.Fprintln(os.Stderr, "checkdocs:", err)
		os.Exit(1)
	}
}

func main1(run, timesFile string, write bool, factor float64) error {
	if factor <= 1 {
		return fmt.Errorf("-factor %g: want more than 1", factor)
	}
	dir, err := notebooksDir()
	if err != nil {
		return err
	}
	var runErr error
	if timesFile == "" {
		warnIfBusy()
		f, err := os.CreateTemp("", "bpinn-nb-times-*.jsonl")
		if err != nil {
			return err
		}
		f.Close()
		defer os.Remove(f.Name())
		timesFile = f.Name()
		runErr = runNotebooks(dir, run, timesFile)
	}
	ts, err := nbtime.ReadRuns(timesFile)
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		return fmt.Errorf("no notebook ran to the end (go test: %v)", runErr)
	}
	off, err := report(os.Stdout, dir, ts, factor, write)
	if err != nil {
		return err
	}
	switch {
	case runErr != nil:
		return fmt.Errorf("the notebooks' test failed (its output above): %v", runErr)
	case off > 0 && !write:
		return fmt.Errorf("%d stated time(s) off by more than %gx: correct them, or rerun with -w", off, factor)
	}
	return nil
}

// warnIfBusy says so when the machine runs more than one process per core:
// the wall times it measures then overstate what a student waits.
func warnIfBusy() {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return
	}
	var load float64
	if _, err := fmt.Sscan(string(b), &load); err == nil && load > float64(runtime.NumCPU()) {
		fmt.Fprintf(os.Stderr, "checkdocs: the load average is %.1f on %d cores: the wall times will be long; measure on an idle machine before rewriting\n", load, runtime.NumCPU())
	}
}

// notebooksDir is the module's notebooks/ folder.
func notebooksDir() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the bpinn module: run from the repository")
	}
	return filepath.Join(filepath.Dir(mod), "notebooks"), nil
}

// runNotebooks runs the notebooks' test in dir, its output to stderr, with
// the times appended to timesFile.
func runNotebooks(dir, run, timesFile string) error {
	cmd := exec.Command("go", "test", "-count=1", "-timeout", "60m", "-v", "-run", "TestNotebooks/"+run, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BPINN_NB_TIMES="+timesFile)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// report writes a table of stated and measured times of the notebooks in
// dir and returns how many are off by more than factor; with write it
// rewrites those statements to the measured wall time.
func report(w io.Writer, dir string, ts []nbtime.Run, factor float64, write bool) (off int, err error) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "notebook\tstated\twall\tCPU\t")
	for _, t := range ts {
		path := filepath.Join(dir, t.Notebook)
		b, err := os.ReadFile(path)
		if err != nil {
			return off, err
		}
		stated, err := nbtime.Stated(b)
		if err != nil {
			return off, fmt.Errorf("%s: %v", t.Notebook, err)
		}
		wall := time.Duration(t.Wall * float64(time.Second))
		verdict := "ok"
		if nbtime.Off(stated, wall, factor) {
			off++
			verdict = fmt.Sprintf("off (%.1fx): say about %s", wall.Seconds()/stated.Seconds(), nbtime.Phrase(wall))
			if write {
				nb, err := nbtime.Rewrite(b, wall)
				if err != nil {
					return off, fmt.Errorf("%s: %v", t.Notebook, err)
				}
				if err := os.WriteFile(path, nb, 0o644); err != nil {
					return off, err
				}
				verdict = "rewritten: about " + nbtime.Phrase(wall)
			}
		}
		fmt.Fprintf(tw, "%s\t%v\t%.1f s\t%.1f s\t%s\n", t.Notebook, stated, t.Wall, t.CPU, verdict)
	}
	return off, tw.Flush()
}
