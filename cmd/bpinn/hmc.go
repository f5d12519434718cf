package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

const hmcUsage = `usage: bpinn hmc regression [flags]

Trains the Laplace fit of the paper's regression problem (u = x^2 cos^2(4x),
24 noisy points, a 1-6-1 tanh net), then samples the same posterior
exp(-E_T(w)) by HMC with alpha and beta held at the fit's values, starting at
the fit's w_MP, and compares the two predictive bands on 201 points of
[-1, 1]. Only "regression" is supported. See docs/hmc.md.

flags (defaults are the paper's run):
  --samples N    samples kept per chain (default 15000)
  --burn-in B    warm-up iterations per chain, adapting the step size and
                 the mass matrix (default 1000; 0 for none)
  --chains C     independent chains, run concurrently (default 4)
  --leapfrog L   leapfrog steps per iteration (default 20)
  --seed S       HMC seed (default 1)
  --fit-seed S   seed of the network initialization of the fit (default 1)
  --epochs N     training epochs of the fit (default 15000, the paper)
  --json FILE    write diagnostics, both predictive curves and the
                 comparison numbers to FILE (written atomically)

exit status: 0 ok, 1 the fit or the sampler failed, or writing FILE failed
after the run; 2 bad input (FILE's directory is checked before the run).
`

// hmcReport is the JSON the hmc command writes.
type hmcReport struct {
	Command    string            `json:"command"`
	Fit        hmcFit            `json:"fit"`
	Comparison *bayes.Comparison `json:"comparison"`
}

// hmcFit describes the Laplace fit that HMC is compared with.
type hmcFit struct {
	Seed        uint64    `json:"seed"`
	Epochs      int       `json:"epochs"`
	Status      string    `json:"status"`
	Alpha       []float64 `json:"alpha"`
	Beta        []float64 `json:"beta"`
	LogEvidence *float64  `json:"log_evidence,omitempty"` // nil when undefined
	Seconds     float64   `json:"seconds"`
}

// cmdHMC runs "bpinn hmc". args excludes the subcommand's name.
func cmdHMC(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("hmc")
	samples := fs.Int("samples", 15000, "")
	burnIn := fs.Int("burn-in", 1000, "")
	chains := fs.Int("chains", 4, "")
	leapfrog := fs.Int("leapfrog", 20, "")
	seed, fitSeed := seedFlag{1}, seedFlag{1}
	fs.Var(&seed, "seed", "")
	fs.Var(&fitSeed, "fit-seed", "")
	epochs := fs.Int("epochs", 15000, "")
	jsonPath := fs.String("json", "", "")

	bad := func(format string, a ...any) int { return report(stderr, "hmc", usagef(format, a...)) }
	positional, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, hmcUsage)
		return 0
	}
	if err != nil {
		return report(stderr, "hmc", err)
	}
	p, perr := pde.New("regression", pde.Options{})
	switch {
	case perr != nil:
		return report(stderr, "hmc", perr)
	case len(positional) == 0:
		return bad(`missing the problem: only "regression" is supported`)
	case len(positional) > 1:
		return bad("one problem expected, got %q", positional)
	case positional[0] != "regression":
		return bad(`unknown problem %q: only "regression" is supported`, positional[0])
	case *samples <= 0:
		return bad("--samples is %d: need at least 1", *samples)
	case *burnIn < 0:
		return bad("--burn-in is %d: need 0 or more", *burnIn)
	case *chains <= 0:
		return bad("--chains is %d: need at least 1", *chains)
	case *leapfrog <= 0:
		return bad("--leapfrog is %d: need at least 1", *leapfrog)
	case *epochs < p.Defaults.HyperStart:
		return bad("--epochs is %d: need at least %d, the epoch of the first hyperparameter step", *epochs, p.Defaults.HyperStart)
	}
	if *jsonPath != "" {
		if err := checkWritable(*jsonPath); err != nil {
			return report(stderr, "hmc", err)
		}
	}
	fail := func(err error) int { return report(stderr, "hmc", err) } // exit 1: none is a usage error

	// The paper's comparison: HMC at the alpha and beta of the paper's recipe.
	s := bayes.Settings{Seed: fitSeed.v, Epochs: *epochs, Recipe: bayes.RecipePaper}
	if s, err = s.Resolve(p); err != nil {
		return bad("%v", err)
	}
	fmt.Fprintf(stderr, "bpinn hmc: training the Laplace fit (%d epochs, seed %d)\n", *epochs, fitSeed.v)
	fit, err := bayes.Train(interrupt, p, s)
	if err != nil {
		return fail(err)
	}
	if fit.Laplace == nil || fit.Status == bayes.StatusDiverged {
		return fail(fmt.Errorf("the fit with seed %d ended %s (%s); try another --fit-seed", fitSeed.v, fit.Status, fit.Reason))
	}
	hs := &bayes.HMCSettings{Samples: *samples, BurnIn: *burnIn, NoBurnIn: *burnIn == 0,
		Chains: *chains, Leapfrog: *leapfrog, Seed: seed.v}
	var barDone func()
	hs.Progress, barDone = hmcProgress(stderr, *chains)
	fmt.Fprintf(stderr, "bpinn hmc: sampling %s x %d samples after %d burn-in, %d leapfrog steps\n",
		nouns(*chains, "chain"), *samples, *burnIn, *leapfrog)
	cmp, err := bayes.CompareHMC(fit, hs, nil)
	barDone()
	if err != nil {
		return fail(err)
	}
	rep := hmcReport{Command: "hmc", Comparison: cmp, Fit: hmcFit{
		Seed: fitSeed.v, Epochs: fit.Epochs, Status: fit.Status,
		Alpha: fit.Alpha, Beta: fit.Beta, Seconds: fit.Seconds,
	}}
	if fit.Laplace.OccamOK {
		v := fit.Laplace.LogEvidence
		rep.Fit.LogEvidence = &v
	}
	printHMCSummary(stdout, &rep)
	if *jsonPath != "" {
		if err := saveJSON(*jsonPath, &rep); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", *jsonPath)
	}
	return 0
}

// hmcProgress shows the iterations of all chains as one bar on a terminal
// (nothing otherwise: the log has the start and end lines). done erases a
// bar that a failed chain left unfinished.
func hmcProgress(w io.Writer, chains int) (progress func(chain, done, total int), done func()) {
	if !isTerminal(w) {
		return nil, func() {}
	}
	var mu sync.Mutex
	var bar *progressbar.ProgressBar
	counts := make([]int, chains)
	progress = func(chain, d, total int) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			bar = newBar(w, chains*total, "hmc iterations", progressbar.OptionClearOnFinish())
		}
		counts[chain] = d
		sum := 0
		for _, x := range counts {
			sum += x
		}
		bar.Set(sum)
	}
	return progress, func() {
		mu.Lock()
		defer mu.Unlock()
		clearBar(bar)
	}
}

// printHMCSummary writes the comparison as a few aligned tables.
func printHMCSummary(w io.Writer, r *hmcReport) {
	c := r.Comparison
	h := c.HMC
	fmt.Fprintf(w, "Laplace vs HMC on %s: alpha %s, beta %s (fit seed %d, %d epochs, %s)\n",
		c.Problem, floats(c.Alpha), floats(c.Beta), r.Fit.Seed, r.Fit.Epochs, r.Fit.Status)
	fmt.Fprintf(w, "HMC: %s x %d samples after %d burn-in, %d leapfrog steps, seed %d\n\n",
		nouns(h.Chains, "chain"), h.Samples, h.BurnIn, h.Leapfrog, h.Seed)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tinside data\toutside\tall\t")
	row := func(name string, r bayes.Regions) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, hmcNum(r.Inside), hmcNum(r.Outside), hmcNum(r.All))
	}
	row("sigma ratio Laplace/HMC", c.WidthRatio)
	row("2-sigma coverage Laplace", c.CoverageLaplace)
	row("2-sigma coverage HMC", c.CoverageHMC)
	tw.Flush()
	fmt.Fprintf(w, "|mean Laplace - mean HMC| / sigma HMC: max %s, mean %s\n\n", hmcNum(c.MaxGap), hmcNum(c.MeanGap))

	d := c.Diagnostics
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chain\taccept\tstep size\tdivergent\tburn-in divergent\t")
	for i := range d.Accept {
		fmt.Fprintf(tw, "%d\t%.3f\t%.3g\t%d\t%d\t\n", i, d.Accept[i], d.StepSize[i], d.Divergent[i], d.BurnInDivergent[i])
	}
	tw.Flush()
	fmt.Fprintf(w, "predictive: min ESS %s, max R-hat %s\n", hmcNum(d.MinESS), hmcNum(d.MaxRHat))
	fmt.Fprintf(w, "HMC: %.3g s, %d gradients, %.4g samples/s, ESS/s %s (predictive %.3g s, fit %.3g s)\n",
		d.Seconds, d.Gradients, d.SamplesPerSecond, hmcNum(d.ESSPerSecond), d.PredictiveSeconds, r.Fit.Seconds)
}

// floats formats one value per hyperparameter group, comma-separated.
func floats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.4g", x)
	}
	return strings.Join(s, ", ")
}

// hmcNum formats an optional number, "-" when undefined.
func hmcNum(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.4g", *v)
}

// nouns is "1 chain", "2 chains": n and noun, plural unless n is 1.
func nouns(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
