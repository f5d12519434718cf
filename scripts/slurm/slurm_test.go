package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBpinn is a bpinn that writes its arguments, one a line, to $ARGV.
const fakeBpinn = "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$ARGV\"\n"

// runScript runs an sbatch script with bash as a task would run it (env:
// the task's SLURM_* variables), with a fake bpinn, and returns the
// arguments bpinn got, or the script's output and error.
func runScript(t *testing.T, script string, env []string, args ...string) ([]string, string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bpinn"), []byte(fakeBpinn), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "job.sbatch"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := filepath.Join(dir, "argv")
	cmd := exec.Command("bash", append([]string{"job.sbatch"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "ARGV="+argv), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, string(out), err
	}
	b, err := os.ReadFile(argv)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), "", nil
}

// TestEnsembleScript checks what bpinn a task of ensemble.sbatch runs, and
// that the script Ensemble writes runs the same command with its flags
// fixed, whatever arguments and SHARDS sbatch gives it.
func TestEnsembleScript(t *testing.T) {
	task := []string{"SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_PER_TASK=2"}
	flags := []string{"heat", "--n", "12", "--epochs=300", "--known-noise", "beta=0.01"}
	want := strings.Join(append(append([]string{"ensemble"}, flags...),
		"--shard", "1/3", "--workers", "2", "--out", "results/heat-1-of-3.jsonl", "--resume"), " ")

	got, _, err := runScript(t, EnsembleScript, append(task, "SHARDS=3"), flags...)
	if err != nil || strings.Join(got, " ") != want {
		t.Errorf("ensemble.sbatch ran bpinn %q (%v), want %q", got, err, want)
	}
	script, err := Ensemble(flags, 3, 2, "bpinn ensemble heat ...")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"#SBATCH --array=0-2\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --job-name=bpinn-heat\n", "# Written by: bpinn ensemble heat ...\n"} {
		if !strings.Contains(script, w) {
			t.Errorf("the written script lacks %q:\n%s", w, script)
		}
	}
	got, _, err = runScript(t, script, append(task, "SHARDS=7"), "wave", "--n", "5")
	if err != nil || strings.Join(got, " ") != want {
		t.Errorf("the written script ran bpinn %q (%v), want %q", got, err, want)
	}
	// The directives and the command are the repository's.
	tail := EnsembleScript[strings.Index(EnsembleScript, "#SBATCH --mem"):]
	tail = strings.Replace(tail, `SHARDS="${SHARDS:-10}"`, "SHARDS=3", 1)
	if !strings.Contains(script, tail[:strings.Index(tail, "[ $#")]) {
		t.Errorf("the written script departs from ensemble.sbatch:\n%s", script)
	}

	// A task without a problem fails before it runs anything.
	for _, args := range [][]string{nil, {"--n", "5", "heat"}} {
		got, out, err := runScript(t, EnsembleScript, task, args...)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(out, "usage: SHARDS=N sbatch") {
			t.Errorf("ensemble.sbatch %q: ran bpinn %q (%v, %q), want exit 2 and the usage", args, got, err, out)
		}
	}
	for _, c := range []struct {
		args          []string
		shards, cores int
		want          string
	}{
		{nil, 3, 1, "want the problem"},
		{[]string{"--n", "5"}, 3, 1, "want the problem"},
		{[]string{"heat"}, 0, 1, "at least one shard"},
		{[]string{"heat"}, 3, 0, "one core"},
	} {
		if _, err := Ensemble(c.args, c.shards, c.cores, ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Ensemble(%q, %d, %d): %v, want %q", c.args, c.shards, c.cores, err, c.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"heat":           "heat",
		"--epochs=300":   "--epochs=300",
		"data=0.02,b=1":  "data=0.02,b=1",
		"two words":      "'two words'",
		"it's":           `'it'\''s'`,
		"$HOME":          "'$HOME'",
		"":               "''",
		"a;rm -rf /":     "'a;rm -rf /'",
		"results/x.json": "results/x.json",
	} {
		if got := shellQuote([]string{in}); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDocumentedScripts: docs/scale-out.md shows the scripts as they are
// in this folder, the files the Slurm test submits.
func TestDocumentedScripts(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "scale-out.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string]string{"ensemble.sbatch": EnsembleScript, "merge.sbatch": MergeScript} {
		if link := "(../scripts/slurm/" + name + ")"; !strings.Contains(string(doc), link) {
			t.Errorf("docs/scale-out.md does not link %s", link)
		}
		// The copy: a bash block right after a line "`NAME`:".
		open := "`" + name + "`:\n\n```bash\n"
		_, rest, ok := strings.Cut(string(doc), open)
		k := strings.Index(rest, "\n```\n")
		if !ok || k < 0 {
			t.Errorf("docs/scale-out.md has no %q", open)
			continue
		}
		if shown := rest[:k+1]; shown != file {
			t.Errorf("docs/scale-out.md shows another %s than scripts/slurm/%s: copy the file into the doc\nshown:\n%s\nfile:\n%s", name, name, shown, file)
		}
	}
}
