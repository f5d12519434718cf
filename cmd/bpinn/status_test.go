package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatus: bpinn status on complete shards, on shards with fits missing
// (a lost file, a torn one), on shards of two configurations and on a
// duplicate that disagrees.
func TestStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var shards []string
	for i := range 3 {
		out := filepath.Join(dir, fmt.Sprintf("heat-%d-of-3.jsonl", i))
		if code, _, stderr := cli(t, ensembleArgs(out, 7, "--workers", "1", "--shard", fmt.Sprintf("%d/3", i))...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		shards = append(shards, out)
	}
	other := filepath.Join(dir, "other.jsonl") // seeds 1-2 of another schedule
	if code, _, stderr := cli(t, with(ensembleArgs(other, 2), "--epochs", "400", "--workers", "1")...); code != 0 {
		t.Fatalf("other run: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(dir, "torn.jsonl") // shard 1 killed in its second fit's line
	first := strings.SplitAfter(string(b), "\n")[0]
	os.WriteFile(torn, []byte(first+first[:40]), 0o644)
	conflict := filepath.Join(dir, "conflict.jsonl")
	os.WriteFile(conflict, []byte(strings.Replace(first, `"status":"ok"`, `"status":"occam-invalid"`, 1)), 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)

	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout []string // each must appear
		stderr string
	}{
		{"complete", append([]string{"--n", "7", "--shards", "3"}, shards...), 0,
			[]string{"heat-0-of-3.jsonl: 3 fits, seeds 1 to 7\n", "heat-1-of-3.jsonl: 2 fits, seeds 2 to 5\n",
				"configuration: one (problem heat, data seed 1, net [2 6 1], epochs 300)\n", "seeds 1 to 7 (--n 7 --seed-base 1): 7 of 7 held, none missing\n"}, ""},
		{"without --n", shards, 0, []string{"seeds 1 to 7 (the largest seed found; give --n to check the last seeds too): 7 of 7 held, none missing"}, ""},
		{"a lost file", []string{"--n", "7", "--shards", "3", shards[0], shards[2]}, 1,
			[]string{"5 of 7 held, 2 missing:\n  shard 1/3: 2, 5\n"}, "bpinn status: 2 of 7 seeds missing (run their shards again with --resume)\n"},
		{"the last seeds", []string{"--n", "9", shards[0], shards[1], shards[2]}, 1,
			[]string{"7 of 9 held, 2 missing:\n  8-9\n"}, "2 of 9 seeds missing"},
		{"a torn file", []string{"--n", "7", "--shards", "3", shards[0], torn, shards[2]}, 1,
			[]string{"torn.jsonl: 1 fit, seeds 2 to 2; ends in a torn line", "shard 1/3: 5\n"}, "1 of 7 seeds missing"},
		{"another configuration", append([]string{other}, shards...), 1,
			[]string{"heat-0-of-3.jsonl: 3 fits, seeds 1 to 7; ANOTHER CONFIGURATION: seed 1 (problem heat, data seed 1, net [2 6 1], epochs 300) against seed 1 of " + other + " (problem heat, data seed 1, net [2 6 1], epochs 400)",
				"duplicates: 2 seeds held more than once"}, "files of another configuration than " + other + ": 3"},
		{"a conflict", append([]string{"--n", "7", conflict}, shards...), 1,
			[]string{"duplicates: 1 seed held more than once", "CONFLICTS: seeds 2 have records that disagree"}, "1 seed with disagreeing records"},
		{"seeds outside", []string{"--n", "3", shards[0]}, 1, []string{"and 2 outside"}, "2 seeds outside 1 to 3"},
		{"no fits", []string{empty}, 2, nil, "bpinn status: no fits in " + empty},
	} {
		code, stdout, stderr := cli(t, append([]string{"status"}, c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.code, stderr)
		}
		for _, w := range c.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: report lacks %q:\n%s", c.name, w, stdout)
			}
		}
		if !strings.Contains(stderr, c.stderr) || strings.Count(stderr, "\n") != min(c.code, 1) {
			t.Errorf("%s: stderr %q, want one line with %q", c.name, stderr, c.stderr)
		}
	}
}
