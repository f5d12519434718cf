package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sortedLines returns a JSONL file's lines sorted by seed with seconds
// blanked: two runs of the same fits give the same string.
func sortedLines(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("%s ends in a torn line", path)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		lines[i] = noSeconds([]byte(l))
	}
	seed := func(l string) uint64 {
		var s uint64
		fmt.Sscanf(l, `{"seed":%d`, &s)
		return s
	}
	sort.Slice(lines, func(i, j int) bool { return seed(lines[i]) < seed(lines[j]) })
	return strings.Join(lines, "\n")
}

func ensembleArgs(out string, n int, more ...string) []string {
	return with(with([]string{"ensemble", "heat", "--n", fmt.Sprint(n), "--out", out}, quick...), more...)
}

func TestEnsembleWorkers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var sums, files []string
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "w"+w+".jsonl")
		code, stdout, stderr := cli(t, ensembleArgs(out, 6, "--workers", w, "--seed-base", "11")...)
		if code != 0 {
			t.Fatalf("workers %s: exit %d: %s", w, code, stderr)
		}
		if got := strings.Count(stderr, "bpinn ensemble: "); got != 6 {
			t.Errorf("workers %s: %d progress lines, want 6:\n%s", w, got, stderr)
		}
		sums, files = append(sums, stdout), append(files, sortedLines(t, out))
	}
	if files[0] != files[1] {
		t.Errorf("--workers 1 and 2 give different records (apart from seconds)")
	}
	if sums[0] != sums[1] {
		t.Errorf("--workers 1 and 2 give different summaries:\n%s\n%s", sums[0], sums[1])
	}
	for _, w := range []string{"ensemble of 6 fits (heat)", "best by evidence: seed 1", "spearman rho", "status: ok=6"} {
		if !strings.Contains(sums[0], w) {
			t.Errorf("summary lacks %q:\n%s", w, sums[0])
		}
	}
	// A resume of a complete file runs nothing and prints the same summary.
	out := filepath.Join(dir, "w1.jsonl")
	code, stdout, stderr := cli(t, ensembleArgs(out, 6, "--resume", "--seed-base", "11")...)
	if code != 0 || stdout != sums[0] || !strings.Contains(stderr, "6 fits done, 0 to run") {
		t.Errorf("resume of a complete run: exit %d, stderr %q, summary changed: %v", code, stderr, stdout != sums[0])
	}
	// A resume with other flags is refused, and the file is left alone.
	before, _ := os.ReadFile(out)
	code, _, stderr = cli(t, with(ensembleArgs(out, 6, "--resume", "--seed-base", "11"), "--hidden", "4")...)
	if after, _ := os.ReadFile(out); code != exitUsage || !strings.Contains(stderr, "another run") || !bytes.Equal(before, after) {
		t.Errorf("resume with other flags: exit %d, stderr %q, file changed %v", code, stderr, !bytes.Equal(before, after))
	}
}

func TestShardMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jsonl")
	code, want, stderr := cli(t, ensembleArgs(whole, 8, "--workers", "2")...)
	if code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, stderr)
	}
	shards := []string{}
	for i := 0; i < 4; i++ {
		out := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
		code, _, stderr := cli(t, ensembleArgs(out, 8, "--workers", "1", "--shard", fmt.Sprintf("%d/4", i))...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		if got := strings.Count(sortedLines(t, out), "\n") + 1; got != 2 {
			t.Errorf("shard %d/4 of 8 seeds holds %d fits, want 2", i, got)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	// Order of the files and a repeated shard do not matter.
	code, got, stderr := cli(t, append([]string{"merge", "--out", merged, shards[3], shards[1]}, append(shards[:3:3], shards[0])...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if got != want {
		t.Errorf("merged summary differs from the unsharded run:\n%s\nwant\n%s", got, want)
	}
	if sortedLines(t, merged) != sortedLines(t, whole) {
		t.Errorf("merged records differ from the unsharded run's (apart from seconds)")
	}
	b, _ := os.ReadFile(merged)
	if string(b) != sortedLinesRaw(b) {
		t.Errorf("merge --out is not sorted by seed")
	}
	// A conflicting duplicate is an error.
	bad := filepath.Join(dir, "bad.jsonl")
	line := strings.SplitN(string(b), "\n", 2)[0]
	os.WriteFile(bad, []byte(strings.Replace(line, `"status":"ok"`, `"status":"occam-invalid"`, 1)+"\n"), 0o644)
	if code, _, stderr := cli(t, "merge", merged, bad); code != exitUsage || !strings.Contains(stderr, "different results") ||
		!strings.Contains(stderr, "bad.jsonl does not match "+merged) {
		t.Errorf("conflicting duplicate: exit %d, stderr %q, want it to name both files", code, stderr)
	}
	// Files without a fit are bad input, not an empty summary.
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	if code, _, stderr := cli(t, "merge", empty); code != exitUsage || !strings.Contains(stderr, "no fits in") {
		t.Errorf("empty file: exit %d, stderr %q", code, stderr)
	}
}

// sortedLinesRaw sorts lines by their seed prefix without touching them.
func sortedLinesRaw(b []byte) string {
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	seed := func(l string) uint64 {
		var s uint64
		fmt.Sscanf(l, `{"seed":%d`, &s)
		return s
	}
	sort.SliceStable(lines, func(i, j int) bool { return seed(lines[i]) < seed(lines[j]) })
	return strings.Join(lines, "")
}

// TestKillResume builds the binary, SIGKILLs an ensemble after its first
// line, tears the last line as a crash mid-write would, resumes, and checks
// that the records and the summary equal an uninterrupted run's.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bpinn")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// About 0.1 s a fit, one worker: the kill lands mid-run.
	args := func(out string, more ...string) []string {
		return append([]string{"ensemble", "heat", "--n", "8", "--workers", "1", "--epochs", "2000", "--hyper-start", "500", "--recipe", "paper", "--out", out}, more...)
	}
	whole := filepath.Join(dir, "whole.jsonl")
	want, err := exec.Command(bin, args(whole)...).Output()
	if err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}

	killed := filepath.Join(dir, "killed.jsonl")
	cmd := exec.Command(bin, args(killed)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(killed)
		if bytes.IndexByte(b, '\n') >= 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no line after 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	b, _ := os.ReadFile(killed)
	n := bytes.Count(b, []byte("\n"))
	t.Logf("killed after %d of 8 fits", n)
	if n >= 8 {
		t.Skipf("the run finished before the kill (%d lines): nothing to resume", n)
	}
	first := b[:bytes.IndexByte(b, '\n')+1]
	f, err := os.OpenFile(killed, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(first[:len(first)/2]) // a torn half line
	f.Close()

	resume := exec.Command(bin, args(killed, "--resume")...)
	var stderr bytes.Buffer
	resume.Stderr = &stderr
	got, err := resume.Output()
	if err != nil {
		t.Fatalf("resume: %v: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "torn line") || !strings.Contains(stderr.String(), fmt.Sprintf("%d fits done, %d to run", n, 8-n)) {
		t.Errorf("resume did not report the torn line and the %d fits done:\n%s", n, stderr.String())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("resumed summary differs from the uninterrupted run:\n%s\nwant\n%s", got, want)
	}
	if sortedLines(t, killed) != sortedLines(t, whole) {
		t.Errorf("resumed records differ from the uninterrupted run's (apart from seconds)")
	}
}
