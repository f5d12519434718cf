package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// zeroTimes sets every wall time of a report to zero: what may differ
// between two runs of the same fits.
func zeroTimes(r *Report) {
	r.Started, r.Seconds, r.CPUSeconds = time.Time{}, 0, 0
	for _, st := range r.Studies {
		st.Seconds = 0
		for i := range st.Fits {
			st.Fits[i].Seconds = 0
		}
		if st.Best != nil {
			st.Best.Seconds = 0
		}
		if c := st.HMC; c != nil {
			c.Diagnostics.Seconds, c.Diagnostics.PredictiveSeconds, c.Diagnostics.SamplesPerSecond, c.Diagnostics.ESSPerSecond = 0, 0, 0, nil
		}
	}
}

// TestShardsReport: a tiny run in two shards, joined by Load, gives the
// report of one run (the Markdown, times aside: tables, settings, the HMC
// comparisons of the restored best fits) and its records; Load refuses a
// lost shard and shards of other settings.
func TestShardsReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a tiny reproduction three times")
	}
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Config{Plan: Tiny(), Workers: 2, Only: []string{"hmc", "heat", "scan", "heat-inverse"}}
	whole := cfg
	whole.Out = filepath.Join(dir, "whole")
	want, err := Run(ctx, whole)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := range 2 {
		c := cfg
		c.Out, c.Shard, c.Shards = filepath.Join(dir, fmt.Sprint("shard", i)), i, 2
		rep, err := Run(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range rep.Studies {
			if st.Err != nil || st.HMC != nil || len(st.Fits) != len(st.Seeds) {
				t.Fatalf("shard %d/2 of %s: %d fits of %d seeds, HMC %v, %v", i, st.Name, len(st.Fits), len(st.Seeds), st.HMC != nil, st.Err)
			}
		}
		dirs = append(dirs, c.Out)
	}
	all := cfg
	all.Out = filepath.Join(dir, "all")
	got, err := Load(ctx, all, dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range got.Failed() {
		t.Fatalf("Load: study %s: %v", st.Name, st.Err)
	}
	zeroTimes(want)
	zeroTimes(got)
	wm, gm := Build(want).Markdown(), Build(got).Markdown()
	if wm != gm {
		wl, gl := strings.Split(wm, "\n"), strings.Split(gm, "\n")
		for i := range min(len(wl), len(gl)) {
			if wl[i] != gl[i] {
				t.Errorf("the report of the shards differs from one run's at line %d:\n%s\nwant\n%s", i+1, gl[i], wl[i])
				break
			}
		}
		if len(wl) != len(gl) {
			t.Errorf("the report of the shards has %d lines, one run's %d", len(gl), len(wl))
		}
	}
	for _, name := range cfg.Only {
		w, g := readSorted(t, filepath.Join(whole.Out, name+".jsonl")), readSorted(t, filepath.Join(all.Out, name+".jsonl"))
		if w != g {
			t.Errorf("%s: the merged records differ from one run's (seconds aside)", name)
		}
	}

	// A lost shard, and shards of another plan, fail every study.
	longer := Tiny()
	longer.EpochScale *= 2
	for _, c := range []struct {
		plan Plan
		dirs []string
		want string
	}{
		{Tiny(), dirs[1:], "missing seeds: 1"},
		{longer, dirs, "run with other settings than this study's"},
	} {
		bad := cfg
		bad.Plan, bad.Out = c.plan, filepath.Join(dir, "bad")
		rep, err := Load(ctx, bad, c.dirs)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range rep.Studies {
			if st.Err == nil || !strings.Contains(st.Err.Error(), c.want) {
				t.Errorf("Load of %d shards, plan %s: study %s: %v, want %q", len(c.dirs), c.plan.Name, st.Name, st.Err, c.want)
			}
		}
	}
	if _, err := Load(ctx, Config{Plan: Tiny(), Shards: 2}, dirs); err == nil {
		t.Error("Load with Shards set: no error")
	}
}

var secondsRE = regexp.MustCompile(`"seconds": ?[-0-9.eE+]+`)

// readSorted returns a JSONL file's lines sorted, "seconds" zeroed.
func readSorted(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(secondsRE.ReplaceAllString(string(b), `"seconds":0`), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestLoadFixedStudy: the records of a study that turns off its
// problem's resampling (poisson-holes-fixed: Resample -1 under a schedule
// that redraws every 100 epochs) load back as those of its settings; they
// once recorded the schedule's Resample, and Load refused them.
func TestLoadFixedStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a study and loads it back")
	}
	ctx := context.Background()
	plan := Tiny()
	plan.WideFits, plan.WideEpochScale = 1, 0.01
	cfg := Config{Plan: plan, Workers: 1, Only: []string{"poisson-holes-fixed"}, Out: filepath.Join(t.TempDir(), "run")}
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range rep.Failed() {
		t.Fatalf("Run: study %s: %v", st.Name, st.Err)
	}
	load := cfg
	load.Out = filepath.Join(t.TempDir(), "load")
	got, err := Load(ctx, load, []string{cfg.Out})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range got.Failed() {
		t.Errorf("Load: study %s: %v", st.Name, st.Err)
	}
	name := cfg.Only[0]
	path := filepath.Join(cfg.Out, name+".jsonl")
	if w, g := readSorted(t, path), readSorted(t, filepath.Join(load.Out, name+".jsonl")); w != g {
		t.Errorf("%s: the loaded records differ from the run's (seconds aside)", name)
	}

	// The records as earlier builds wrote them, with the schedule's
	// Resample, still load; another Resample is refused, naming the field.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ resample, want string }{
		{"100", ""},
		{"7", "(settings.Resample 7, not 0)"},
	} {
		old := strings.ReplaceAll(string(b), `"Resample":0,`, `"Resample":`+c.resample+`,`)
		if old == string(b) {
			t.Fatal(`no "Resample":0 in the records`)
		}
		if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Load(ctx, load, []string{cfg.Out})
		if err != nil {
			t.Fatal(err)
		}
		st := got.Studies[0]
		switch {
		case c.want == "" && st.Err != nil:
			t.Errorf("Load of records with Resample %s: %v", c.resample, st.Err)
		case c.want != "" && (st.Err == nil || !strings.Contains(st.Err.Error(), c.want)):
			t.Errorf("Load of records with Resample %s: %v, want an error naming %q", c.resample, st.Err, c.want)
		}
	}
}
