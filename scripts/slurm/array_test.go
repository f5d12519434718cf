package slurm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The ensemble of TestSlurmArray: heat with its defaults (0.3 to 0.6 s a
// fit on one core, two tasks on the two cores), 3 shards of 16 seeds. A
// task runs its 16 fits one after another (--cpus-per-task=1), so a task
// killed after its first fit is killed mid-run with time to spare: the
// test's scancel lands seconds after that fit (3.6 s after the task
// started, measured), when 6 fits a task could all be written.
const (
	arrayShards   = 3
	arrayPerShard = 16
	arrayN        = arrayShards * arrayPerShard
	killedTask    = 1
)

// TestSlurmArray runs the repository's ensemble.sbatch as a job array and
// merge.sbatch as a job depending on it, on a one-node cluster of its own,
// as docs/scale-out.md submits them. It cancels one array task after that
// task's first fit (scancel JOB_TASK), requeues it (scontrol requeue
// JOB_TASK: Slurm 22.05 requeues a cancelled array task, and the task's
// --resume continues its file), waits for the array and the merge, and
// checks that no seed is lost or run twice, that the merged summary is the
// bytes an unsharded run prints, and that the merged records are that
// run's, seconds aside.
func TestSlurmArray(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Slurm cluster and runs an ensemble on it; skipped under -short")
	}
	ctx := t.Context()
	if dl, ok := t.Deadline(); ok { // fail, and stop the daemons, before go test's timeout panics
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-15*time.Second))
		defer cancel()
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c := startCluster(ctx, t)
	if v, err := c.run(ctx, "", "sinfo", "--version"); err == nil {
		t.Logf("%s, %d CPUs", strings.TrimSpace(v), c.cpus)
	}

	// bpinn on the PATH of the jobs, which inherit sbatch's environment.
	bin := c.file("bin")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "bpinn"), "github.com/evidence-pinn/bpinn/cmd/bpinn").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	c.setEnv("PATH", bin+":"+c.path())
	c.setEnv("SHARDS", fmt.Sprint(arrayShards))
	work := c.file("work")
	must(t, os.MkdirAll(filepath.Join(work, "logs"), 0o755))
	ensembleSbatch, err := filepath.Abs("ensemble.sbatch")
	must(t, err)
	mergeSbatch, err := filepath.Abs("merge.sbatch")
	must(t, err)
	args := []string{"heat", "--n", fmt.Sprint(arrayN), "--seed-base", "1"}

	// Submitted as docs/scale-out.md does, but with 3 tasks of 1 core.
	out, err := c.run(ctx, work, "sbatch", append([]string{"--parsable", fmt.Sprintf("--array=0-%d", arrayShards-1), "--cpus-per-task=1", ensembleSbatch}, args...)...)
	must(t, err)
	job, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	out, err = c.run(ctx, work, "sbatch", "--parsable", "--dependency=afterok:"+job, mergeSbatch, "heat")
	must(t, err)
	mergeJob, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	t.Logf("array job %s, merge job %s", job, mergeJob)

	// Cancel one task mid-run and requeue it.
	results := filepath.Join(work, "results")
	shardFile := func(i int) string { return filepath.Join(results, fmt.Sprintf("heat-%d-of-%d.jsonl", i, arrayShards)) }
	task := fmt.Sprintf("%s_%d", job, killedTask)
	c.waitFor(ctx, t, "task "+task+"'s first fit", func() bool { return countLines(shardFile(killedTask)) >= 1 })
	_, err = c.run(ctx, "", "scancel", task)
	must(t, err)
	c.waitFor(ctx, t, "task "+task+" to be cancelled", func() bool {
		st, err := c.tasks(ctx, task)
		return err == nil && st[killedTask] == "CANCELLED"
	})
	done := countLines(shardFile(killedTask))
	if done >= arrayPerShard {
		t.Fatalf("task %s wrote all its %d fits before scancel stopped it: nothing is left to resume", task, done)
	}
	t.Logf("cancelled task %s after %d of %d fits", task, done, arrayPerShard)
	// A requeued job waits about two minutes before it may start again
	// (its BeginTime); StartTime=now lets it run at once.
	c.waitFor(ctx, t, "scontrol requeue "+task, func() bool { _, err := c.run(ctx, "", "scontrol", "requeue", task); return err == nil })
	_, err = c.run(ctx, "", "scontrol", "update", "JobId="+task, "StartTime=now")
	must(t, err)
	// The cancel ended the merge's afterok dependency for good (Slurm
	// marks it DependencyNeverSatisfied); set it anew.
	_, err = c.run(ctx, "", "scontrol", "update", "JobId="+mergeJob, fmt.Sprintf("Dependency=afterok:%s_0:%s_1:%s_2", job, job, job))
	must(t, err)

	c.waitJob(ctx, t, job, arrayShards)
	c.waitJob(ctx, t, mergeJob, 0)

	log, err := os.ReadFile(filepath.Join(work, "logs", fmt.Sprintf("bpinn-ensemble-%s.log", task)))
	must(t, err)
	if want := fmt.Sprintf("resuming results/heat-%d-of-%d.jsonl: %d fits done, %d to run", killedTask, arrayShards, done, arrayPerShard-done); !strings.Contains(string(log), want) {
		t.Errorf("the requeued task's log lacks %q:\n%s", want, log)
	}

	// The reference: one unsharded run of the same flags, outside Slurm.
	whole := c.file("whole.jsonl")
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "bpinn"), append([]string{"ensemble"}, append(args, "--workers", "2", "--out", whole)...)...)
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("unsharded run: %v", err)
	}

	var shards []string
	for i := range arrayShards {
		shards = append(shards, shardFile(i))
	}
	if err := checkShards(shards, 1, arrayN); err != nil {
		t.Error(err)
	}
	got, err := os.ReadFile(filepath.Join(results, "heat-summary.txt"))
	must(t, err)
	if !bytes.Equal(got, want) {
		t.Errorf("merged summary differs from the unsharded run's:\n%s\nwant\n%s", got, want)
	}
	merged := filepath.Join(results, "heat.jsonl")
	if err := sameRecords(merged, whole); err != nil {
		t.Error(err)
	}
	if out, err := c.run(ctx, work, filepath.Join(bin, "bpinn"), append([]string{"status", "--n", fmt.Sprint(arrayN), "--shards", fmt.Sprint(arrayShards)}, shards...)...); err != nil {
		t.Errorf("bpinn status of the finished shards: %v\n%s", err, out)
	}

	// The checks catch a lost and a duplicated fit in these very files.
	lost, dup := c.file("lost.jsonl"), c.file("dup.jsonl")
	b, err := os.ReadFile(shardFile(0))
	must(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	must(t, os.WriteFile(lost, []byte(strings.Join(lines[1:], "")), 0o644))
	must(t, os.WriteFile(dup, append(b, lines[0]...), 0o644))
	if err := checkShards(append([]string{lost}, shards[1:]...), 1, arrayN); err == nil || !strings.Contains(err.Error(), "lost") {
		t.Errorf("checkShards misses a lost fit: %v", err)
	}
	if err := checkShards(append([]string{dup}, shards[1:]...), 1, arrayN); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("checkShards misses a duplicated fit: %v", err)
	}
	b, err = os.ReadFile(merged)
	must(t, err)
	lines = strings.SplitAfter(string(b), "\n")
	must(t, os.WriteFile(lost, []byte(strings.Join(lines[1:], "")), 0o644))
	if err := sameRecords(lost, whole); err == nil {
		t.Errorf("sameRecords misses a lost record")
	}
}

// waitJob waits until every task of job (tasks of an array, 0 for a plain
// job) completed, and fails at the first task that ended otherwise.
func (c *cluster) waitJob(ctx context.Context, t *testing.T, job string, tasks int) {
	t.Helper()
	var last map[int]string
	c.waitFor(ctx, t, "job "+job, func() bool {
		st, err := c.tasks(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if out, _ := c.run(ctx, "", "scontrol", "-o", "show", "job", job); strings.Contains(out, "Reason=DependencyNeverSatisfied") {
			t.Fatalf("job %s will never run: %s", job, out)
		}
		last = st
		n := 0
		for id, s := range st {
			switch s {
			case "COMPLETED":
				n++
			case "PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "REQUEUED":
			default:
				out, _ := c.run(ctx, "", "scontrol", "show", "job", job)
				t.Fatalf("job %s task %d ended %s:\n%s", job, id, s, out)
			}
		}
		if tasks == 0 {
			tasks = 1
		}
		return n == tasks && len(st) == tasks
	})
	t.Logf("job %s: %v", job, last)
}

// checkShards checks the shard files of an ensemble of n seeds from base,
// file i holding shard i/len(files): every line a complete record of a seed
// of its shard, no seed twice, none lost.
func checkShards(files []string, base uint64, n int) error {
	var errs []string
	seen := map[uint64]string{}
	for i, f := range files {
		recs, err := readRecords(f)
		if err != nil {
			return err
		}
		for _, r := range recs {
			switch {
			case r.seed < base || r.seed >= base+uint64(n):
				errs = append(errs, fmt.Sprintf("%s line %d: seed %d outside %d..%d", f, r.line, r.seed, base, base+uint64(n)-1))
			case int((r.seed-base)%uint64(len(files))) != i:
				errs = append(errs, fmt.Sprintf("%s line %d: seed %d belongs to shard %d, not %d", f, r.line, r.seed, (r.seed-base)%uint64(len(files)), i))
			}
			if where, ok := seen[r.seed]; ok {
				errs = append(errs, fmt.Sprintf("seed %d fitted twice: %s and %s line %d", r.seed, where, f, r.line))
			}
			seen[r.seed] = fmt.Sprintf("%s line %d", f, r.line)
		}
	}
	for s := base; s < base+uint64(n); s++ {
		if _, ok := seen[s]; !ok {
			errs = append(errs, fmt.Sprintf("seed %d lost: in no shard file (shard %d)", s, (s-base)%uint64(len(files))))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("shards: %s", strings.Join(errs, "; "))
	}
	return nil
}

// sameRecords reports how the records of two JSONL files differ, in any
// order and apart from their "seconds".
func sameRecords(got, want string) error {
	g, err := readRecords(got)
	if err != nil {
		return err
	}
	w, err := readRecords(want)
	if err != nil {
		return err
	}
	key := func(rs []record) []string {
		var ks []string
		for _, r := range rs {
			ks = append(ks, r.text)
		}
		slices.Sort(ks)
		return ks
	}
	gk, wk := key(g), key(w)
	if len(gk) != len(wk) {
		return fmt.Errorf("%s holds %d records, %s %d", got, len(gk), want, len(wk))
	}
	for i := range gk {
		if gk[i] != wk[i] {
			return fmt.Errorf("%s and %s differ (seconds aside):\n%.300s\n%.300s", got, want, gk[i], wk[i])
		}
	}
	return nil
}

// record is one line of a JSONL file of fits, its "seconds" zeroed.
type record struct {
	seed uint64
	line int
	text string
}

var secondsRE = regexp.MustCompile(`"seconds": ?[-0-9.eE+]+`)

func readRecords(path string) ([]record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return nil, fmt.Errorf("%s ends in a torn line", path)
	}
	var rs []record
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l == "" {
			continue
		}
		var r struct {
			Seed *uint64 `json:"seed"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Seed == nil {
			return nil, fmt.Errorf("%s line %d: not a record of a fit: %.80s", path, i+1, l)
		}
		rs = append(rs, record{*r.Seed, i + 1, secondsRE.ReplaceAllString(l, `"seconds":0`)})
	}
	return rs, nil
}

func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// TestShardChecks: the checks of TestSlurmArray fail on a lost fit, a fit
// run twice, a fit in the wrong shard and a record that differs, and pass
// on records that differ in their seconds only. It needs no Slurm.
func TestShardChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, seeds ...int) string {
		var b strings.Builder
		for _, s := range seeds {
			fmt.Fprintf(&b, `{"seed":%d,"log_evidence":%d.5,"seconds":%d.25}`+"\n", s, 10*s, s)
		}
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	s0, s1 := write("s0", 1, 3, 5), write("s1", 2, 4, 6)
	if err := checkShards([]string{s0, s1}, 1, 6); err != nil {
		t.Errorf("complete shards: %v", err)
	}
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{write("lost", 1, 5), s1}, "seed 3 lost"},
		{[]string{write("twice", 1, 3, 5, 3), s1}, "seed 3 fitted twice"},
		{[]string{s0, write("s1b", 2, 4, 6, 5)}, "belongs to shard 0"},
		{[]string{s0, write("s1c", 2, 4, 6, 8)}, "outside 1..6"},
	} {
		if err := checkShards(c.files, 1, 6); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("checkShards(%v): %v, want %q", c.files, err, c.want)
		}
	}
	all := write("all", 6, 5, 4, 3, 2, 1)
	b, _ := os.ReadFile(all)
	slower := filepath.Join(dir, "slower")
	must(t, os.WriteFile(slower, []byte(strings.ReplaceAll(string(b), ".25}", ".75}")), 0o644))
	if err := sameRecords(slower, write("sorted", 1, 2, 3, 4, 5, 6)); err != nil {
		t.Errorf("records differing in seconds and order: %v", err)
	}
	other := filepath.Join(dir, "other")
	must(t, os.WriteFile(other, []byte(strings.Replace(string(b), "30.5", "30.25", 1)), 0o644))
	if err := sameRecords(other, all); err == nil {
		t.Errorf("sameRecords misses a changed evidence")
	}
	if err := sameRecords(write("short", 1, 2, 3, 4, 5), all); err == nil {
		t.Errorf("sameRecords misses a lost record")
	}
}
