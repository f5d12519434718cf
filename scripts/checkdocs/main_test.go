package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/internal/nbtime"
)

const notebook = `{"cells": [{"cell_type": "markdown", "source": [
    "In quick mode this notebook runs\n",
    "in about 15 s on 2 cores."
   ]}]}`

// TestReport: a stated time within the factor is ok, one further off is
// reported, and -w rewrites only that one.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.ipynb", "b.ipynb"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(notebook), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := []nbtime.Run{{Notebook: "a.ipynb", Wall: 25, CPU: 30}, {Notebook: "b.ipynb", Wall: 70, CPU: 45.7}}
	var sb strings.Builder
	off, err := report(&sb, dir, ts, 2, false)
	if err != nil || off != 1 {
		t.Fatalf("report: %d off, %v; want 1", off, err)
	}
	if out := sb.String(); !strings.Contains(out, "off (4.7x): say about 70 s") || strings.Count(out, " ok") != 1 {
		t.Errorf("report:\n%s", out)
	}
	if _, err := report(&sb, dir, ts, 2, true); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]float64{"a.ipynb": 15, "b.ipynb": 70} {
		b, _ := os.ReadFile(filepath.Join(dir, n))
		if d, err := nbtime.Stated(b); err != nil || d.Seconds() != want {
			t.Errorf("%s after -w states %v, %v; want %g s", n, d, err, want)
		}
	}
}
