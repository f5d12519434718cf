package main

import (
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/scripts/slurm"
)

// TestSbatch: --sbatch writes scripts/slurm/ensemble.sbatch filled in with
// the flags as given (in their order and spelling, the problem first),
// without --sbatch and --workers, which the script sets per task.
func TestSbatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		set  string // the script's "set --" line: what every task runs
	}{
		{[]string{"heat", "--n", "1000", "--seed-base", "1", "--sbatch", "10", "--workers", "8"},
			"set -- heat --n 1000 --seed-base 1"},
		{[]string{"--sbatch=3", "--fixed", "heat", "-workers", "2", "--n", "6", "--epochs=300", "--data-seed", "3"},
			"set -- heat --fixed --n 6 --epochs=300 --data-seed 3"},
		{[]string{"burgers", "--hidden", "8,8", "--sbatch", "2", "--workers=1", "--resample", "-1", "--recipe", "paper"},
			"set -- burgers --hidden 8,8 --resample -1 --recipe paper"},
	} {
		code, stdout, stderr := cli(t, append([]string{"ensemble"}, c.args...)...)
		if code != 0 || stderr != "" {
			t.Errorf("%q: exit %d: %s", c.args, code, stderr)
			continue
		}
		if !strings.Contains(stdout, "\n"+c.set+"\n") {
			t.Errorf("%q: script lacks %q:\n%s", c.args, c.set, stdout)
		}
		if !strings.HasPrefix(stdout, "#!/bin/bash\n# Written by: bpinn ensemble "+strings.Join(c.args, " ")+"\n") {
			t.Errorf("%q: script does not start with its command:\n%s", c.args, stdout)
		}
	}
	// The same bytes as the package writes for those words.
	_, got, _ := cli(t, "ensemble", "heat", "--n", "12", "--sbatch", "3", "--workers", "2")
	want, err := slurm.Ensemble([]string{"heat", "--n", "12"}, 3, 2, "bpinn ensemble heat --n 12 --sbatch 3 --workers 2")
	if err != nil || got != want {
		t.Errorf("bpinn ensemble --sbatch wrote\n%s\nwant (%v)\n%s", got, err, want)
	}
}
