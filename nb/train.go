package nb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

// Train is bayes.Train with a progress bar over the whole fit: the Adam
// epochs, then an indeterminate bar naming each step after them (the
// polish, the final rounds, the Laplace approximation), then the time it
// took. An empty title is the problem's name and network ("heat, 2-6-1
// net"). s.Progress and s.Stage, if set, are called as well.
func Train(ctx context.Context, title string, p *pde.Problem, s bayes.Settings) (*bayes.Fit, error) {
	cfg, err := bayes.NewConfig(p, s)
	if err != nil {
		return nil, err
	}
	epochs := cfg.Settings().Epochs
	bar := Progress{Title: fitTitle(title, p, cfg.Settings())}
	bar.Start(epochs)
	f, err := bayes.TrainConfig(ctx, cfg.WithProgress(func(epoch, total int) {
		bar.Update(epoch, "")
		if s.Progress != nil {
			s.Progress(epoch, total)
		}
	}, func(what string) {
		bar.Update(epochs, what)
		if s.Stage != nil {
			s.Stage(what)
		}
	}))
	if err == nil {
		bar.Done()
	}
	gonbui.Sync()
	return f, err
}

// TrainEnsemble is runner.TrainEnsemble with a progress bar over the epochs
// of every fit and the count of fits done; it reaches its end with the
// last fit, not with the last epoch. An empty title is the problem's name,
// network and number of fits. opt.Progress, if set, is called as well.
func TrainEnsemble(ctx context.Context, title string, p *pde.Problem, s bayes.Settings, seeds []uint64, opt runner.EnsembleOptions) (*runner.EnsembleRun, error) {
	if err := runner.CheckSeeds(seeds); err != nil {
		return nil, err
	}
	first := s // every fit's settings but its seed: resolved at the first
	first.Seed = seeds[0]
	rs, err := first.Resolve(p)
	if err != nil {
		return nil, err
	}
	if title == "" {
		title = fmt.Sprintf("%s, %d fits", fitTitle("", p, rs), len(seeds))
	}
	bar := Progress{Title: title}
	bar.Start(len(seeds) * rs.Epochs)
	progress := opt.Progress
	opt.Progress = func(epochs, fits int) {
		bar.Update(epochs, fmt.Sprintf("%d of %d fits done", fits, len(seeds)))
		if progress != nil {
			progress(epochs, fits)
		}
	}
	run, err := runner.TrainEnsemble(ctx, p, s, seeds, opt)
	if err == nil {
		bar.Done()
	}
	gonbui.Sync()
	return run, err
}

// fitTitle is title, or "name, 2-6-1 net" for a resolved s.
func fitTitle(title string, p *pde.Problem, s bayes.Settings) string {
	if title != "" {
		return title
	}
	sizes := append(append([]int{p.Dim()}, s.Hidden...), len(p.OutputNames())) // one output per field
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("%s, %s net", p.Name, strings.Join(parts, "-"))
}
