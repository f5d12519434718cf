package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// PlanFor is the plan a run asks for: Tiny (tests), else Quick, else Full,
// with recipe replacing the plan's unless it is empty.
func PlanFor(quick, tiny bool, recipe bayes.Recipe) Plan {
	plan := Full()
	switch {
	case tiny:
		plan = Tiny()
	case quick:
		plan = Quick()
	}
	if recipe != "" {
		plan.Recipe = recipe
	}
	return plan
}

// DefaultOut is the output directory of a run of p when none is given.
func (p Plan) DefaultOut() string { return filepath.Join("out", p.Name) }

// Check checks c before anything runs: a shard (Shards) and the folders of
// shards (From) exclude each other, each of From is a folder, Only and
// FailStudy name studies, and the plan runs those of Only. Its errors are
// one line naming bpinn reproduce's flag.
func (c *Config) Check() error {
	if c.Shards > 0 && c.From != nil {
		return errors.New("--shard runs one shard, --from reports on all of them: use one")
	}
	for _, d := range c.From {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return fmt.Errorf("--from %s: not a folder of a shard's files", d)
		}
	}
	for _, s := range c.Only {
		if err := checkStudy("--only", s); err != nil {
			return err
		}
		if !c.Plan.runs(s) {
			return fmt.Errorf("--only: the %s plan runs no %s fits: run it in the full plan (without --quick)", c.Plan.Name, s)
		}
	}
	if c.FailStudy != "" {
		return checkStudy("--fail-study", c.FailStudy)
	}
	return nil
}

// checkStudy checks that name, given to bpinn reproduce's flag, is a study.
func checkStudy(flag, name string) error {
	if !slices.Contains(Names(), name) {
		return fmt.Errorf("%s: unknown study %q: use one of %s", flag, name, strings.Join(Names(), ", "))
	}
	return nil
}

// PrepareOut creates c.Out if needed and checks that a file can be written
// in it, so that a run does not fail at its end. Its errors are one line
// naming bpinn reproduce's --out.
func (c *Config) PrepareOut() error {
	dir := c.Out
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("--out %s is not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out %s: cannot create it: %v", dir, errors.Unwrap(err))
	}
	tmp, err := os.CreateTemp(dir, ".reproduce.check*")
	if err != nil {
		return fmt.Errorf("--out %s: cannot write in it: %v", dir, errors.Unwrap(err))
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}

// Execute runs c: the report of a sharded run from the folders From (Load)
// when they are set, else the studies themselves (Run).
func Execute(ctx context.Context, c Config) (*Report, error) {
	if c.From != nil {
		return Load(ctx, c, c.From)
	}
	return Run(ctx, c)
}
