package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// RunFile appends each fit to its file and summarizes the file: a resumed
// run trains nothing more and prints the same summary, a torn last line is
// cut and its seed trained again, and Merge of the file gives the same
// summary again.
func TestRunFile(t *testing.T) {
	t.Parallel()
	p := problems.Heat(problems.Options{})
	s := testfit.Scheduled(p, bayes.Settings{Seed: 1, Epochs: 200, Hyper: bayes.HyperSteps{Start: 100}, Recipe: bayes.RecipePaper})
	c, err := bayes.NewConfig(p, s)
	if err != nil {
		t.Fatal(err)
	}
	cfg := record.NewRunConfig(c, 1)
	path := filepath.Join(t.TempDir(), "ens.jsonl")
	var notes []string
	ran := 0
	o := runner.FileOptions{Out: path, Config: cfg, Workers: 2, DataSeed: 1,
		Notify: func(msg string) { notes = append(notes, msg) },
		Done:   func(int, *record.Result) { ran++ }}
	text := func(sum record.Summary) string {
		var b bytes.Buffer
		if err := sum.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	sum, err := runner.RunFile(context.Background(), c, []uint64{1, 2}, o)
	if err != nil || ran != 2 || sum.N != 2 {
		t.Fatalf("first run: %d fits ran, summary of %d, %v", ran, sum.N, err)
	}
	first := text(sum)
	if _, err := runner.RunFile(context.Background(), c, []uint64{1, 2}, o); !runner.IsInput(err) || !strings.Contains(err.Error(), "use --resume") {
		t.Errorf("a second run without Resume: %v, want an input error", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-100], 0o644); err != nil { // the last fit killed mid-write
		t.Fatal(err)
	}
	o.Resume, ran = true, 0
	sum, err = runner.RunFile(context.Background(), c, []uint64{1, 2}, o)
	if err != nil || ran != 1 || text(sum) != first {
		t.Errorf("resumed after a torn line: %d fits ran (want 1), %v; summary\n%s\nwant\n%s", ran, err, text(sum), first)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "torn line") || !strings.Contains(notes[1], "1 fits done, 1 to run") {
		t.Errorf("notes %q, want the torn line and the resumption", notes)
	}
	merged := filepath.Join(t.TempDir(), "merged.jsonl")
	sum, err = runner.Merge([]string{path, path}, merged, func(string) { t.Error("a torn file in a clean merge") })
	if err != nil || text(sum) != first {
		t.Errorf("Merge: %v; summary\n%s\nwant\n%s", err, text(sum), first)
	}
	if rs, torn, err := record.ReadResults(merged); err != nil || torn || len(rs) != 2 {
		t.Errorf("merged file: %d records (torn %v), %v", len(rs), torn, err)
	}
}
