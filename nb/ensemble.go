package nb

import (
	"context"
	"os"
	"path/filepath"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// DrawChart shows an interactive chart made by a viz function,
// DrawChart(viz.SlicesChart(ss, l)), and stops the cell at an error of
// making or showing it.
func DrawChart(c offline.Chart, err error) {
	Check(err)
	Check(Chart(c))
}

// Seeds is 1, ..., n: the seeds of an ensemble of n fits.
func Seeds(n int) []uint64 {
	seeds := make([]uint64, max(n, 0))
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// Ensemble trains n fits of p (Seeds(n)) on all cores with a progress bar
// (TrainEnsemble), writes each to path as one JSON line (record.Result)
// the moment it ends, and returns the fit of highest log evidence. GoNB
// runs every cell as a new program, so later cells read the fits back
// from the file: BestFit, ReadResults.
func Ensemble(p *pde.Problem, s bayes.Settings, n int, path string) (*bayes.Fit, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	run, err := TrainEnsemble(context.Background(), "", p, s, Seeds(n), runner.EnsembleOptions{Out: file})
	if err != nil {
		return nil, err
	}
	return run.Best, file.Close()
}

// ReadResults reads the fits that Ensemble wrote to path.
func ReadResults(path string) ([]record.Result, error) {
	rs, _, err := record.ReadResults(path)
	return rs, err
}

// BestFit rebuilds, on p, the fit of highest log evidence that Ensemble
// wrote to path (record.Restore): its network, hyperparameters, history
// and Laplace band.
func BestFit(p *pde.Problem, path string) (*bayes.Fit, error) {
	rs, err := ReadResults(path)
	if err != nil {
		return nil, err
	}
	return record.Restore(p, record.BestResult(rs))
}
