package report

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/atomicfile"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// Load builds the report of a run split into shards (Config.Shards), each
// written to one of dirs, without training: every study's records are read
// from DIR/<study>.jsonl of each of dirs, merged (a seed held twice must
// agree, as bpinn merge checks), checked against the study as cfg
// describes it (every seed there, each fit of the study's settings) and
// restored (record.Restore); the merged records go to cfg.Out/<study>.jsonl,
// and the HMC comparisons run on the restored best fits. cfg is that of
// the sharded run, without Shards.
func Load(ctx context.Context, cfg Config, dirs []string) (*Report, error) {
	if cfg.Shards != 0 {
		return nil, errors.New("report: Load builds the report of every shard: give it a Config without Shards")
	}
	if len(dirs) == 0 {
		return nil, errors.New("report: Load: no folders of shards")
	}
	return runAll(ctx, cfg, func(ctx context.Context, st *Study, p *pde.Problem, cfg *Config, prog Progress) error {
		return loadFits(st, p, cfg, dirs, prog)
	})
}

// mergeShards reads the study's records from the files of dirs, one per
// seed sorted by seed, and checks that they are every seed of the study.
func mergeShards(st *Study, dirs []string) ([]record.Result, error) {
	// Merged by seed; not by record.MergeResults, which wants one
	// configuration, while the scan's differ by seed: each record is
	// checked against its seed's settings by loadFits.
	bySeed := map[uint64]record.Result{}
	for _, d := range dirs {
		path := filepath.Join(d, st.Name+".jsonl")
		rs, _, err := record.ReadResults(path) // a torn line's fit is reported missing below
		if err != nil {
			return nil, fmt.Errorf("%v (run the study's shard into %s again)", err, d)
		}
		for _, r := range rs {
			if old, ok := bySeed[r.Seed]; ok && !record.SameApartFromSeconds(old, r) {
				return nil, fmt.Errorf("seed %d appears twice with different results (in %s)", r.Seed, path)
			} else if !ok {
				bySeed[r.Seed] = r
			}
		}
	}
	held := map[uint64]bool{}
	var rs []record.Result
	for _, s := range slices.Sorted(maps.Keys(bySeed)) {
		held[s] = true
		rs = append(rs, bySeed[s])
	}
	var missing []string
	for _, s := range st.Seeds {
		if !held[s] {
			missing = append(missing, fmt.Sprint(s))
		}
	}
	if len(missing) > 10 {
		missing = append(missing[:10], "...")
	}
	if len(missing) > 0 || len(rs) != len(st.Seeds) {
		return nil, fmt.Errorf("the shards hold %d of the study's %d fits; missing seeds: %s: run their shards again",
			len(rs), len(st.Seeds), cmp.Or(strings.Join(missing, ", "), "none, but others are extra"))
	}
	return rs, nil
}

// loadFits fills st.Fits and st.Best from the study's files in dirs.
func loadFits(st *Study, p *pde.Problem, cfg *Config, dirs []string, prog Progress) error {
	rs, err := mergeShards(st, dirs)
	if err != nil {
		return err
	}
	var data []byte
	gridPts, gridExact := p.Grid(100)
	bestZ := math.Inf(-1)
	for i := range rs {
		r := &rs[i]
		s := st.Base
		s.Seed = r.Seed
		if st.Name == "scan" {
			s.Hidden = []int{cfg.ScanHidden[int(r.Seed-cfg.SeedBase)%len(cfg.ScanHidden)]}
		}
		c, err := bayes.NewConfig(p, s)
		if err != nil {
			return err
		}
		want := record.NewRunConfig(c, cfg.DataSeed)
		if d := r.RunConfig.Diff(want); d != "" && !r.RunConfig.Equal(withScheduleResample(want, s)) {
			return fmt.Errorf("seed %d was run with other settings than this study's (%s): give the flags of the sharded run (--quick, --recipe, --seed-base)", r.Seed, d)
		}
		var f *bayes.Fit
		if r.Weights != nil {
			if f, err = record.Restore(p, r); err != nil {
				return err
			}
		}
		rec := fitRecord(f, r, gridPts, gridExact)
		st.Fits = append(st.Fits, rec)
		if z := rec.LogEvidence; f != nil && !math.IsNaN(z) && z > bestZ { // rs is sorted by seed: a tie keeps the lower
			bestZ, st.Best = z, f
		}
		line, err := r.MarshalLine()
		if err != nil {
			return err
		}
		data = append(data, line...)
		prog.Step(fmt.Sprintf("seed %d %s: rel L2 %s, ln Z %s (restored)", r.Seed, rec.Status, fmtG(rec.RelL2, 4), fmtG(rec.LogEvidence, 6)))
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(cfg.Out, st.Name+".jsonl"), data)
}

// withScheduleResample is want as earlier builds recorded it for settings
// s that turn off a resampling schedule (Resample -1): with the schedule's
// Resample, though the fit never redrew its points (a second Resolve read
// the resolved 0 as "the schedule's"). Such records still load.
func withScheduleResample(want record.RunConfig, s bayes.Settings) record.RunConfig {
	if s.Resample >= 0 || s.Schedule.Resample <= 0 || want.Settings == nil {
		return want
	}
	old := want
	old.Settings = maps.Clone(want.Settings)
	old.Settings["Resample"] = s.Schedule.Resample
	return old
}
