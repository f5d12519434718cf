package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/evidence-pinn/bpinn/internal/cliflag"

	"github.com/schollz/progressbar/v3"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const hmcUsage = `usage: bpinn hmc PROBLEM [flags]

Trains the Laplace fit of PROBLEM and samples the same posterior (alpha and
beta held at the fit's values) from its mode, then compares the two
predictive bands on a grid; for an inverse problem (heat-inverse, ...) it
samples the weights and the unknowns jointly and sets each unknown's
marginal beside its Laplace interval (--epochs, --sample-hyper, --whiten
and --json do not apply there). What it reports: docs/hmc.md and
docs/inverse.md.

flags:
  --sampler S       nuts (default) or hmc
  --samples N       draws kept per chain (default 400; hmc: 15000, the
                    paper's)
  --burn-in B       warm-up iterations per chain, adapting the step size and
                    the metric (default 500; hmc: 1000; 0 for none)
  --chains C        independent chains, run concurrently (default 4)
  --metric M        diag (default; inverse problems: dense), dense or unit:
                    the inverse metric that warm-up estimates
  --target-accept D mean acceptance statistic that warm-up aims for
                    (default 0.98; hmc: 0.8; lower is faster, with more
                    divergent draws)
  --max-depth D     NUTS: at most 2^D leapfrog steps per draw (default 12)
  --leapfrog L      hmc: leapfrog steps per iteration (default 20; giving it
                    selects --sampler hmc)
  --sample-hyper    sample ln alpha and ln beta jointly with the weights
                    (flat priors on the logs) and compare their marginals
                    with the evidence's optimum and Occam widths
  --whiten          sample in coordinates whitened by the fit's Laplace
                    precision A: z = L^T (w - w_MP), A = L L^T (the
                    warm-up's metric then starts from A^-1)
  --whitening W     inverse problems: exact (default: |H|, the exact Hessian
                    of E_T at the fit's mode with its eigenvalues made
                    positive) or gauss-newton (the fit's A) whitens the
                    coordinates z = L^T (theta - theta_MP), L L^T = |H| or A
  --seed S          sampler seed (default 1)
  --fit-seed S      seed of the network initialization of the fit (default 1)
  --epochs N        training epochs of the fit (default: the problem's)
  --hidden SIZES    hidden layer cliflag.Sizes of the fit, e.g. 6 or 8,8 (default:
                    the problem's)
  --recipe R        paper (default: the paper's schedule, Adam with
                    hyperparameter updates) or tuned (bpinn fit's default:
                    then a Gauss-Newton polish and MacKay rounds, which end
                    at a mode of the posterior)
  --json FILE       write the settings, per-chain diagnostics, both
                    predictive bands and the comparison to FILE (atomically)

exit status: 0 ok, 1 the fit or the sampler failed, or writing FILE failed
after the run; 2 bad input (FILE's directory is checked before the run).
`

// hmcReport is the JSON the hmc command writes.
type hmcReport struct {
	Command    string                `json:"command"`
	Fit        hmcFit                `json:"fit"`
	Comparison *posterior.Comparison `json:"comparison"`
}

// hmcFit describes the Laplace fit that HMC is compared with.
type hmcFit struct {
	Seed        uint64    `json:"seed"`
	Epochs      int       `json:"epochs"`
	Hidden      []int     `json:"hidden"`
	Status      string    `json:"status"`
	Alpha       []float64 `json:"alpha"`
	Beta        []float64 `json:"beta"`
	LogEvidence *float64  `json:"log_evidence,omitempty"` // nil when undefined
	Seconds     float64   `json:"seconds"`
}

// cmdHMC runs "bpinn hmc". args excludes the subcommand's name.
func cmdHMC(args []string, stdout, stderr io.Writer) int {
	fs := cliflag.NewFlagSet("hmc")
	sampler := fs.String("sampler", "", "")
	samples := fs.Int("samples", 0, "")
	burnIn := fs.Int("burn-in", 0, "")
	chains := fs.Int("chains", mcmc.DefaultChains, "")
	metric := fs.String("metric", string(mcmc.Diag), "")
	target := fs.Float64("target-accept", 0, "")
	maxDepth := fs.Int("max-depth", 0, "")
	leapfrog := fs.Int("leapfrog", 0, "")
	sampleHyper := fs.Bool("sample-hyper", false, "")
	whiten := fs.Bool("whiten", false, "")
	whitening := fs.String("whitening", string(bayes.Exact), "")
	seed, fitSeed := cliflag.Seed{V: 1}, cliflag.Seed{V: 1}
	fs.Var(&seed, "seed", "")
	fs.Var(&fitSeed, "fit-seed", "")
	epochs := fs.Int("epochs", 0, "")
	var hidden cliflag.Sizes
	fs.Var(&hidden, "hidden", "")
	recipe := cliflag.Choice{V: string(bayes.RecipePaper), Choices: cliflag.Names(bayes.Recipes)}
	fs.Var(&recipe, "recipe", "")
	jsonPath := fs.String("json", "", "")

	bad := func(format string, a ...any) int { return report(stderr, "hmc", usagef(format, a...)) }
	positional, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, hmcUsage)
		return 0
	}
	if err != nil {
		return report(stderr, "hmc", err)
	}
	if len(positional) == 0 {
		return bad(`missing the problem, e.g. "regression" or "heat"`)
	}
	if len(positional) > 1 {
		return bad("one problem expected, got %q", positional)
	}
	entry, perr := problems.Lookup(positional[0])
	if perr != nil {
		return report(stderr, "hmc", usagef("%v", perr))
	}
	p := entry.New(problems.Options{})
	o := posterior.Options{Sampler: mcmc.Sampler(*sampler), Seed: seed.V, SampleHyper: *sampleHyper, Whiten: *whiten,
		Fit: bayes.Settings{Schedule: entry.Schedule(problems.Options{}), Seed: fitSeed.V, Recipe: bayes.Recipe(recipe.V), Hidden: hidden.V}}
	given := map[string]bool{} // a given flag is checked as given, an unset one takes its default
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["metric"] {
		o.Metric = new(mcmc.Metric(*metric))
	}
	o.Samples, o.Warmup, o.Chains = ifGiven(given["samples"], samples), ifGiven(given["burn-in"], burnIn), ifGiven(given["chains"], chains)
	o.TargetAccept, o.MaxDepth = ifGiven(given["target-accept"], target), ifGiven(given["max-depth"], maxDepth)
	o.Leapfrog, o.Epochs, o.Whitening = ifGiven(given["leapfrog"], leapfrog), ifGiven(given["epochs"], epochs), ifGiven(given["whitening"], whitening)
	plan, err := o.Resolve(p)
	if err != nil {
		return bad("%v", err)
	}
	if *jsonPath != "" {
		if err := cliflag.CheckWritable(*jsonPath); err != nil {
			return report(stderr, "hmc", err)
		}
	}
	fail := func(err error) int { return report(stderr, "hmc", err) } // exit 1: none is a usage error
	hs, s := &plan.Sampler, plan.Fit
	if plan.Unknowns { // an inverse problem: the unknowns' marginals (docs/inverse.md)
		return hmcUnknowns(p, s, hs, plan.Whitening, stdout, stderr)
	}
	fmt.Fprintf(stderr, "bpinn hmc: training the Laplace fit of %s (%s recipe, %d epochs, seed %d)\n", p.Name, s.Recipe, s.Epochs, s.Seed)
	fit, err := bayes.Train(interrupt, p, s)
	if err != nil {
		return fail(err)
	}
	if fit.Laplace == nil || fit.Status == bayes.StatusDiverged {
		return fail(fmt.Errorf("the fit with seed %d ended %s (%s); try another --fit-seed", s.Seed, fit.Status, fit.Reason))
	}
	var barDone func()
	hs.Progress, barDone = hmcProgress(stderr, hs.Chains)
	what := fmt.Sprintf("max depth %d", hs.MaxDepth)
	if hs.Sampler == mcmc.HMC {
		what = runner.Plural(hs.Resolved().Leapfrog, "leapfrog step")
	}
	fmt.Fprintf(stderr, "bpinn hmc: sampling with %s (%s metric, %s), %s x %d draws after %d warm-up\n",
		hs.Sampler, hs.Metric, what, runner.Plural(hs.Chains, "chain"), hs.Samples, hs.Warmup)
	cmp, err := posterior.CompareHMC(interrupt, fit, hs, &plan.Compare)
	barDone()
	if err != nil {
		return fail(err)
	}
	rep := hmcReport{Command: "hmc", Comparison: cmp, Fit: hmcFit{
		Seed: s.Seed, Epochs: fit.Epochs, Hidden: fit.Settings.Hidden, Status: fit.Status,
		Alpha: fit.Alpha, Beta: fit.Beta, Seconds: fit.Seconds, LogEvidence: logEvidence(fit),
	}}
	printHMCSummary(stdout, &rep)
	if *jsonPath != "" {
		if err := saveJSON(*jsonPath, &rep); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", *jsonPath)
	}
	return 0
}

// ifGiven is v if its flag was given, else nil (the option's default).
func ifGiven[T any](given bool, v *T) *T {
	if given {
		return v
	}
	return nil
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
	held := "held"
	if h.SampleHyper {
		held = "sampled; fit's"
	}
	fmt.Fprintf(w, "Laplace vs %s on %s: alpha %s, beta %s (%s; fit seed %d, %d epochs, %s)\n",
		h.Sampler, c.Problem, floats(c.Alpha), floats(c.Beta), held, r.Fit.Seed, r.Fit.Epochs, r.Fit.Status)
	what := fmt.Sprintf("max depth %d", h.MaxDepth)
	if h.Sampler == string(mcmc.HMC) {
		what = runner.Plural(h.Leapfrog, "leapfrog step")
	}
	metric := h.Metric + " metric"
	if h.Whiten {
		metric += " in coordinates whitened by the fit's A"
	}
	fmt.Fprintf(w, "%s: %s x %d draws after %d warm-up, %s, %s, target accept %g, seed %d\n\n",
		h.Sampler, runner.Plural(h.Chains, "chain"), h.Samples, h.BurnIn, metric, what, h.TargetAccept, h.Seed)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tinside data\toutside\tall\t")
	row := func(name string, r posterior.Regions) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, hmcNum(r.Inside), hmcNum(r.Outside), hmcNum(r.All))
	}
	row("sigma ratio Laplace/sampled", c.WidthRatio)
	row("2-sigma coverage Laplace", c.CoverageLaplace)
	row("2-sigma coverage sampled", c.CoverageHMC)
	tw.Flush()
	fmt.Fprintf(w, "|mean Laplace - mean sampled| / sd sampled: max %s, mean %s\n\n", hmcNum(c.MaxGap), hmcNum(c.MeanGap))

	if hc := c.Hyper; hc != nil {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "hyperparameter\tln at fit\tOccam sigma\tsampled mean\tsampled sd\tgap/Occam\tR-hat\tESS\t")
		for _, m := range slices.Concat(hc.Alpha, hc.Beta) {
			fmt.Fprintf(tw, "ln %s\t%.4g\t%s\t%.4g\t%.3g\t%s\t%s\t%s\t\n", m.Name, m.Evidence, hmcNum(m.Occam),
				m.Mean, m.SD, hmcNum(m.Z), hmcNum(m.RHat), hmcNum(m.ESS))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}

	d := c.Diagnostics
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chain\taccept\tstep size\tleapfrog/draw\ttree depth\tat max depth\tE-BFMI\tdivergent\twarm-up divergent\t")
	for i := range d.Accept {
		depth, atMax := "-", "-"
		if i < len(d.TreeDepth) {
			depth, atMax = fmt.Sprintf("%.2f", d.TreeDepth[i]), fmt.Sprint(d.AtMaxDepth[i])
		}
		fmt.Fprintf(tw, "%d\t%.3f\t%.3g\t%.1f\t%s\t%s\t%s\t%d\t%d\t\n", i, d.Accept[i], d.StepSize[i], d.Leapfrog[i],
			depth, atMax, hmcNum(d.EBFMI[i]), d.Divergent[i], d.BurnInDivergent[i])
	}
	tw.Flush()
	fmt.Fprintf(w, "predictive: min bulk ESS %s, min tail ESS %s, max R-hat %s\n", hmcNum(d.MinESS), hmcNum(d.MinTailESS), hmcNum(d.MaxRHat))
	fmt.Fprintf(w, "%s: %.3g s, %d gradients, %.4g samples/s, ESS/s %s, ESS per 1000 gradients %s (predictive %.3g s, fit %.3g s)\n",
		h.Sampler, d.Seconds, d.Gradients, d.SamplesPerSecond, hmcNum(d.ESSPerSecond), hmcNum(d.ESSPerKGradient), d.PredictiveSeconds, r.Fit.Seconds)
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
