// Package report runs every study of the paper (Graczyk & Witkowski,
// "Numerical experiments") and assembles their figures and tables into one
// offline HTML page, report.html, with static PNG copies of the figures.
//
// # Overview
//
// Run executes the studies of a Plan at once, their fits (runner.Run)
// sharing the workers through one set of slots, the costliest fit first,
// appending each finished fit to DIR/<study>.jsonl the moment it ends;
// Config.Status sees the run's progress and the time left every 30 s. Build turns the studies into
// figures (pkg/viz) and tables (the paper's Tables 1-3 with the paper's
// numbers beside ours); Write writes report.html, results.md and
// figures/*.png.
//
// # Error Handling
//
// A study that fails (an error, or a panic recovered inside it) keeps its
// Err; the others still run and the report names what failed and why.
// Run returns an error only when DIR cannot be written.
package report

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/evidence-pinn/bpinn/internal/atomicfile"
	"github.com/evidence-pinn/bpinn/internal/par"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// Plan says how much of the paper to run. Full is the paper's run; Quick
// and Tiny are smaller versions with the same studies.
type Plan struct {
	Name string // "full", "quick", "tiny": shown in the report
	// About says in a sentence what the plan runs short of the paper's
	// studies, shown under the report's title ("" for the full plan).
	About string
	// Fits is the number of fits of every study (the paper: 100).
	Fits int
	// EpochScale multiplies each problem's epochs, hyper start and polish
	// iterations (the paper's schedule is 1; 0 means 1).
	EpochScale float64
	// ScanHidden are the hidden-unit counts of the architecture scan (on
	// heat), ScanFits the fits per count.
	ScanHidden []int
	ScanFits   int
	// Recipe is bayes.Settings.Recipe of every fit: "" is the toolkit's
	// default (tuned), bayes.RecipePaper the paper's schedule alone.
	Recipe bayes.Recipe
	// WideFits is the number of fits of each burgers-wide and poisson-holes
	// study (921-weight nets, a minute or more of CPU per fit); 0 leaves
	// those studies out.
	WideFits int
	// WideEpochScale replaces EpochScale for the studies WideFits sizes; 0
	// means EpochScale.
	WideEpochScale float64
	// StudyFits, if set, gives named studies their own number of fits, in
	// place of the counts above.
	StudyFits map[string]int
	// Scales, if set, gives named studies their own factor on their
	// problem's epochs, hyper start and polish iterations, in place of the
	// ones above (the quick plan's shorter runs of the costliest studies).
	Scales map[string]float64
	// LidFits is the number of fits of each lid-driven study at the
	// problem's schedule (a 963-weight net on 3001 residuals, about 3
	// minutes of CPU); 0 leaves those studies out.
	LidFits int
	// SuiteFits is the number of fits (seeds) of each PINNacle suite study
	// (SuiteProblems, each with the defaults and with PINNacle's loss,
	// NAME-fixed); 0 leaves those studies out.
	SuiteFits int
	// IdentifyFits is the number of fits of each burgers-identify study at
	// the problem's schedule (Raissi's 3021-weight net on 4000 residuals,
	// several minutes of CPU per fit); 0 leaves those studies out.
	IdentifyFits int
	// HMC are the sampler settings of the Laplace-vs-HMC study; zero
	// fields take posterior.DefaultSampler's values (NUTS, 4 chains x 400 draws
	// after 500 warm-up, target acceptance 0.98, depth 12).
	HMC mcmc.Settings
	// HeatHMC, if not nil, are the sampler settings of the heat study's
	// Laplace-vs-NUTS comparison on its best fit (bpinn hmc heat --whiten),
	// zero fields as HMC's; nil leaves it out.
	HeatHMC *mcmc.Settings
}

// Full is the paper's run: 100 fits per study with the paper's schedules,
// NUTS with bpinn hmc's defaults (the paper's HMC, 4 x 15000, did not
// mix: docs/hmc.md); the scan has 20 fits per size, each burgers-wide
// and poisson-holes study 10, each lid-driven and burgers-identify study
// 3. Heat's best fit is sampled with the settings that converge on heat's
// 2-6-1 posterior (4 chains x 3000 draws after 1000 warm-up, dense metric,
// target 0.9, depth 10, tempered over five temperatures 1-2.1: R-hat of u
// 1.0075 on `bpinn fit heat --seed 1`'s fit, 1.001 on the full run's best,
// 11-25 min of CPU; docs/hmc.md). Each PINNacle suite study fits seeds
// 1-3 with the whole derived schedule (the median of three).
func Full() Plan {
	return Plan{Name: "full", Fits: 100, EpochScale: 1, ScanHidden: []int{2, 4, 6, 8, 10, 12}, ScanFits: 20, WideFits: 10, LidFits: 3, IdentifyFits: 3, SuiteFits: 3,
		HeatHMC: &mcmc.Settings{Chains: 4, Samples: 3000, Warmup: 1000, MaxDepth: 10, TargetAccept: 0.9, Metric: mcmc.Dense, Temperatures: []float64{1, 1.2, 1.45, 1.75, 2.1}}}
}

// Quick is the main job of a newcomer, about 12 minutes on 2 cores with
// its setup: 12 fits per study, epochs and hyper start cut 2x, NUTS 2
// chains x 400 draws after 500 warm-up (heat: 2 x 200 after 400, depth 9,
// about 10 s of CPU), 6 fits per scanned size, two fits of each
// burgers-wide study at its whole schedule (1500 epochs, about 1 min of
// CPU each: issue 23's target is about the best by evidence), one
// poisson-holes fit at its whole schedule (about 3 min of CPU), and one
// fit of PINNacle's loss on the plate and of each lid-driven study at
// half their schedule's epochs and polish iterations (the full plan runs
// them whole: their errors here are larger, said in the report's
// settings table); no burgers-identify fit (several minutes of CPU each);
// one fit (seed 1) of each PINNacle suite study, ours and PINNacle's loss,
// at a tenth of the derived epochs and polish iterations (SuiteQuickScale:
// about half a minute of CPU each where the whole schedule takes four).
func Quick() Plan {
	scales := map[string]float64{"poisson-holes-fixed": 0.5, "lid-driven": 0.5, "lid-driven-fixed": 0.5}
	for _, name := range suiteNames() {
		scales[name] = SuiteQuickScale
	}
	return Plan{Name: "quick", About: "The quick plan: 12 fits per study at half their epochs; one poisson-holes fit at its whole schedule; one fit of PINNacle's loss on the plate and of each lid-driven study, and two of each burgers-wide study, at half their epochs and polish iterations; one fit of each PINNacle suite study (the defaults, and PINNacle's loss) at a tenth of its derived epochs and polish iterations (the settings table says what each ran); no burgers-identify. Their numbers are those of shorter runs: `make reproduce-full` runs the paper's, and the suite's seeds 1-3 whole.",
		Fits: 12, EpochScale: 0.5, ScanHidden: []int{2, 4, 6, 8, 10, 12}, ScanFits: 6, WideFits: 2, WideEpochScale: 1, LidFits: 1, SuiteFits: 1,
		StudyFits: map[string]int{"poisson-holes": 1, "poisson-holes-fixed": 1},
		Scales:    scales,
		HMC:       mcmc.Settings{Chains: 2}, HeatHMC: &mcmc.Settings{Chains: 2, Samples: 200, Warmup: 400, MaxDepth: 9, TargetAccept: 0.9, Metric: mcmc.Dense}}
}

// SuiteQuickScale is the quick plan's factor on a PINNacle suite study's
// derived epochs, hyperparameter start and polish iterations: its 14 fits
// then add about 3 minutes on 2 cores to make reproduce.
const SuiteQuickScale = 0.1

// Tiny is for tests: every study and figure in a few seconds, numbers
// meaningless (3 fits, 1% of the epochs, the paper's recipe without the
// polish, a short HMC); the burgers-wide studies are left out (their dense
// Laplace and grid band alone take seconds per fit).
func Tiny() Plan {
	return Plan{Name: "tiny", About: "The tiny plan, for tests: numbers meaningless.", Fits: 3, EpochScale: 0.01, ScanHidden: []int{2, 4}, ScanFits: 3, Recipe: bayes.RecipePaper,
		HMC: mcmc.Settings{Chains: 1, Samples: 100, Warmup: 40, MaxDepth: 5}, HeatHMC: &mcmc.Settings{Chains: 1, Samples: 30, Warmup: 30, MaxDepth: 4}}
}

// Config is one reproduction run.
type Config struct {
	Plan
	Out      string // directory of the JSONL files, hmc.json, report.html, figures/
	Workers  int    // concurrent fits; 0 means one per core
	SeedBase uint64 // fit i of a study has seed SeedBase+i; 0 means 1
	DataSeed uint64 // the data set of every study; 0 means 1
	// Progress, if set, is called when a study starts, with the number of
	// steps it will report (fits, plus one for the HMC run).
	Progress func(study string, total int) Progress
	// Only, if set, runs only the named studies (Names), keeping order.
	Only []string
	// FailStudy makes the named study panic at its start: a test hook for
	// the failure path.
	FailStudy string
	// Shards > 0 runs shard Shard of Shards of every study (a task of a job
	// array): only the seeds of fits i with i mod Shards == Shard, and no
	// HMC, which needs every fit; Load joins the shards' folders.
	Shard, Shards int
	// From, if set, are the folders of the shards of a sharded run:
	// Execute builds the report from their records (Load) instead of
	// training.
	From []string
	// Status, if set, is called every StatusEvery (30 s when 0) while the
	// studies run, with the run's progress and an estimate of the time
	// left.
	Status      func(Status)
	StatusEvery time.Duration
	// Command is the command line that ran the report, as its Source
	// names it ("bpinn reproduce --quick").
	Command string

	slots *slots // the workers, shared by the studies (runAll)
}

// Progress follows one study.
type Progress interface {
	Step(line string) // one fit (or the HMC run) finished; line describes it
	Finish()
}

// The burgers-deep study: the net the evidence prefers to the paper's
// 2-8-8-1 and the resampling period it ranks first (docs/results/burgers.md).
var (
	burgersDeepHidden   = []int{6, 6, 6}
	burgersDeepResample = 100
)

// burgersDeepText describes the burgers-deep study from its settings.
func burgersDeepText() string {
	arch := "2"
	for _, h := range burgersDeepHidden {
		arch += fmt.Sprintf("-%d", h)
	}
	return fmt.Sprintf("%s-1 (preferred by the evidence to the paper's 2-8-8-1), points redrawn every %d Adam epochs", arch, burgersDeepResample)
}

// burgersWideText describes the burgers-wide studies.
const burgersWideText = "DeepXDE's 2-20-20-20-1 net and 2540 + 80 + 160 points with burgers' 60 measurements"

// isWide reports whether a study is one of the burgers-wide or
// poisson-holes pairs, which Plan.WideFits sizes.
func isWide(name string) bool {
	return slices.Contains([]string{"burgers-wide", "burgers-wide-fixed", "poisson-holes", "poisson-holes-fixed"}, name)
}

// poissonHolesText describes the poisson-holes studies.
const poissonHolesText = "Laplace's equation on a plate with four holes (PINNacle's Poisson2d-C), a 2-20-20-20-1 net"

// lidText describes the lid-driven studies.
const lidText = "PINNacle's NS2d-C (steady Navier-Stokes in the lid-driven cavity, Re = 100; fields u, v, p; u and v exact on the lid and the walls), reference: the project's own solver (refsol)"

// isLid reports whether a study is one of the lid-driven pair, which
// Plan.LidFits sizes and which run the problem's schedule unscaled.
func isLid(name string) bool { return name == "lid-driven" || name == "lid-driven-fixed" }

// identifyText describes the burgers-identify studies.
const identifyText = "Burgers' equation, identification (Raissi et al. 2019): l1 and l2 of u_t + l1 u u_x - l2 u_xx = 0 (true 1, 0.01/pi) from 2000 measurements with 1 % noise, the equation at the same points, a 2-20x8-1 net"

// isIdentify reports whether a study is one of the burgers-identify pair,
// which Plan.IdentifyFits sizes and which run the problem's schedule
// unscaled.
func isIdentify(name string) bool {
	return name == "burgers-identify" || name == "burgers-identify-fixed"
}

// inverseTitles are the titles of the inverse studies (docs/inverse.md).
var inverseTitles = map[string]string{
	"heat-inverse":           "Heat equation, inverse: the diffusivity kappa (true 0.1) from 30 noisy measurements",
	"wave-inverse":           "Wave equation, inverse: the wave speed c (true 1) from 30 noisy measurements",
	"burgers-inverse":        "Burgers' equation, inverse: the viscosity nu (true 0.01/pi) from the 60 measurements of the burgers study",
	"lotka-volterra-inverse": "Lotka-Volterra predator-prey system, inverse: the four rates (true 1, 0.5, 0.5, 1) from 41 noisy measurements of both populations",
}

// heatLHSText describes the heat-lhs study.
const heatLHSText = "the same 50 + 50 points drawn as a Latin hypercube (stratified) instead of independently"

// Names lists the studies in the order Run runs them.
func Names() []string {
	return append([]string{"hmc", "heat", "heat-lhs", "wave", "wave-full", "burgers", "burgers-deep", "burgers-wide", "burgers-wide-fixed", "heat-fixed", "wave-fixed", "scan",
		"heat-inverse", "wave-inverse", "burgers-inverse", "lotka-volterra-inverse", "poisson-holes", "poisson-holes-fixed",
		"lid-driven", "lid-driven-fixed", "burgers-identify", "burgers-identify-fixed"}, suiteNames()...)
}

// FitRecord is one finished fit, as kept in memory for the report (the
// JSONL holds the full Result, with the history and the points).
type FitRecord struct {
	Seed        uint64
	Hidden      []int
	Status      string
	LogEvidence float64 // NaN when undefined
	RelL2       float64 // NaN when undefined
	MSE         float64 // NaN when undefined
	MAD         float64 // mean |u - u*| on the 100x100 grid; NaN when undefined
	Coverage    float64 // NaN when undefined
	// CoverageHeldOut is the coverage of the band with beta from residuals
	// at fresh points (band.HeldOut); NaN when undefined.
	CoverageHeldOut float64
	// CoverageCalibrated and Q95Calibrated are those of the calibrated band
	// (band.Calibrated), Q95 the paper band's 95 % quantile of
	// |u - u*|/sigma; NaN when undefined.
	CoverageCalibrated, Q95, Q95Calibrated float64
	// OutputCoverage is each field's 2σ coverage for a problem of several
	// fields (record.GridErrors.Outputs), nil for one.
	OutputCoverage map[string]float64
	Alpha, Beta    []float64
	AlphaNames     []string
	BetaNames      []string
	HeldBetas      []bool // record.Result.HeldBetas: a beta held at a known noise
	Gamma          float64
	Seconds        float64
	Warnings       []string // record.Result.Warnings
	// Unknowns are an inverse problem's coefficients with their Laplace
	// intervals (nil for a forward problem).
	Unknowns []score.Unknown
}

// Study is one study of the paper and what came of it.
type Study struct {
	Name    string // file stem: DIR/<Name>.jsonl
	Title   string
	Problem string // problems.New name
	Label   string // the start of its figure titles: Problem, or Name for a variant of one
	// Sampling is problems.Options.Sampling of the problem: "" for the paper's
	// independent uniform draws.
	Sampling pde.Sampler
	Base     bayes.Settings // the settings of every fit, Seed (and for the scan Hidden) aside
	// Resolved is Base resolved for the problem (the defaults filled in).
	Resolved bayes.Settings
	Seeds    []uint64
	Fits     []FitRecord // finished fits, sorted by seed
	// Best is the fit of highest log evidence (nil if none has one); its
	// figures are the study's.
	Best *bayes.Fit
	// HMC is the Laplace-vs-HMC comparison of the best fit (study "hmc";
	// "heat" when Plan.HeatHMC is set).
	HMC *posterior.Comparison
	// Seconds is the time its fits and comparison ran, added up: the
	// studies run at once, sharing the workers.
	Seconds float64
	Err     error // why the study failed; nil if it ran

	fitCost, hmcCost float64 // expected seconds of one fit and of the comparison
	sizes            []int   // the network's layer sizes, inputs to fields (set as the study runs)
	// fitConfig is Base resolved once for the problem, with the first
	// seed: every fit's configuration but its seed (set as the study runs).
	fitConfig bayes.Config
}

// Report is a finished run.
type Report struct {
	Config  Config
	Studies []*Study
	Started time.Time
	Seconds float64
	// CPUSeconds is the process's CPU time at the end of the run.
	CPUSeconds float64
	Version    record.VersionInfo
}

// Study returns the named study, nil if it was not run.
func (r *Report) Study(name string) *Study {
	for _, s := range r.Studies {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Failed returns the studies that failed.
func (r *Report) Failed() []*Study {
	var out []*Study
	for _, s := range r.Studies {
		if s.Err != nil {
			out = append(out, s)
		}
	}
	return out
}

func (c *Config) defaults() {
	if c.SeedBase == 0 {
		c.SeedBase = 1
	}
	if c.DataSeed == 0 {
		c.DataSeed = 1
	}
	if c.EpochScale == 0 {
		c.EpochScale = 1
	}
	if c.Fits <= 0 {
		c.Fits = 1
	}
	if c.ScanFits <= 0 {
		c.ScanFits = 1
	}
}

// Run runs the studies of cfg and returns them; a study's failure is in its
// Err. The error is non-nil only when cfg.Out cannot be created.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	return runAll(ctx, cfg, runFits)
}

// fitsFunc fills a study's Fits and Best: by training (runFits) or from
// the records of a sharded run (Load).
type fitsFunc func(ctx context.Context, st *Study, p *pde.Problem, cfg *Config, prog Progress) error

// runAll runs the studies of cfg, their fits from fits.
func runAll(ctx context.Context, cfg Config, fits fitsFunc) (*Report, error) {
	cfg.defaults()
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	rep := &Report{Config: cfg, Started: time.Now(), Version: record.Version()}
	for _, name := range Names() {
		if cfg.Only != nil && !slices.Contains(cfg.Only, name) || !cfg.Plan.runs(name) {
			continue
		}
		rep.Studies = append(rep.Studies, newStudy(name, &cfg))
	}
	// Every study at once, their fits sharing the workers through one set
	// of slots, the costliest first: a study of fewer fits than workers
	// leaves no core idle, and the longest fits do not end the run alone.
	var total float64
	for _, st := range rep.Studies {
		total += st.cost()
	}
	workers, err := runner.Workers(cfg.Workers)
	if err != nil {
		return nil, err
	}
	cfg.slots = newSlots(workers, total)
	ctx = par.WithThreads(ctx, runtime.GOMAXPROCS(0)/workers)
	stop := cfg.tick()
	defer stop()
	order := slices.Clone(rep.Studies)
	slices.SortStableFunc(order, func(a, b *Study) int { return cmp.Compare(b.fitCost, a.fitCost) })
	var wg sync.WaitGroup
	for _, st := range order {
		wg.Go(func() { st.Err = runStudy(ctx, st, &cfg, fits) })
	}
	wg.Wait()
	for _, st := range rep.Studies {
		st.Seconds = cfg.slots.seconds(st.Name)
	}
	rep.Seconds, rep.CPUSeconds = time.Since(rep.Started).Seconds(), cpuSeconds()
	return rep, nil
}

// runs reports whether the plan runs the study: the plan leaves out the
// costly ones it gives no fits.
func (p Plan) runs(name string) bool {
	return !(isWide(name) && p.WideFits == 0 || isLid(name) && p.LidFits == 0 ||
		isIdentify(name) && p.IdentifyFits == 0 || isSuite(name) && p.SuiteFits == 0)
}

// cost is the expected seconds of the study's fits and comparison.
func (st *Study) cost() float64 { return st.fitCost*float64(len(st.Seeds)) + st.hmcCost }

// gate waits for a slot of the run's workers for one of st's fits or its
// comparison (what), of expected cost seconds.
func (st *Study) gate(ctx context.Context, cfg *Config, cost float64, what string) (func(), error) {
	return cfg.slots.acquire(ctx, st.Name, cost, st.Name+" "+what)
}

// tick calls c.Status every c.StatusEvery until the returned stop.
func (c *Config) tick() (stop func()) {
	if c.Status == nil {
		return func() {}
	}
	t := time.NewTicker(cmp.Or(c.StatusEvery, 30*time.Second))
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case <-t.C:
				c.Status(c.slots.status())
			case <-done:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		close(done)
		<-ended
	}
}

// newStudy describes a study: its problem, its settings and its seeds.
func newStudy(name string, cfg *Config) *Study {
	st := &Study{Name: name, Problem: name}
	n := st.describe(cfg)
	if k, ok := cfg.StudyFits[name]; ok {
		n = k
	}
	for i := range n {
		if cfg.Shards == 0 || i%cfg.Shards == cfg.Shard {
			st.Seeds = append(st.Seeds, cfg.SeedBase+uint64(i))
		}
	}
	st.Label = cmp.Or(st.Label, st.Problem)
	st.fitCost = fitSeconds(name) * epochScale(name, cfg)
	if hs, ok := sampledStudy(name, cfg); ok && cfg.Shards == 0 {
		st.hmcCost = hmcSeconds(name, hs)
	}
	if e, err := problems.Lookup(st.Problem); err == nil { // else runStudy reports it
		st.Base.Schedule = e.ScheduleFor(studyOptions(st, cfg))
	}
	return st
}

// describe sets the study's title and, where it is not the problem of its
// name with the problem's schedule, its problem, label and settings; it
// returns the number of fits of the full study.
func (st *Study) describe(cfg *Config) (n int) {
	if n, ok := st.describeBaseline(cfg); ok {
		return n
	}
	if n, ok := st.describeSuite(cfg); ok {
		return n
	}
	n = cfg.Fits
	name := st.Name
	switch name {
	case "hmc":
		st.Title, st.Problem = "Regression: Laplace approximation vs HMC", "regression"
	case "heat":
		st.Title = "Heat equation"
	case "heat-lhs":
		// The paper's model and point counts, the points stratified: on ten
		// draws its selected fit meets 3e-3 with a band that covers
		// (docs/results/burgers.md).
		st.Problem, st.Label, st.Sampling = "heat", name, pde.LatinHypercube
		st.Title = "Heat equation, " + heatLHSText
	case "wave":
		st.Title = "Wave equation (one alpha, one beta)"
	case "wave-full":
		st.Title = "Wave equation, full model (alpha per weight class, beta per term group)"
	case "burgers":
		st.Title = "Burgers' equation (one alpha, beta per term group)"
	case "burgers-deep":
		// The net the evidence prefers to the paper's 2-8-8-1 (docs/results/burgers.md),
		// with new collocation and boundary points every 100
		// Adam epochs: together they reach the 5e-2 the paper's net misses.
		st.Problem, st.Label = "burgers", name
		st.Title = "Burgers' equation, " + burgersDeepText()
		st.Base.Hidden = slices.Clone(burgersDeepHidden)
		st.Base.Resample = burgersDeepResample
	case "burgers-wide":
		// The problem's schedule is the measured one
		// (docs/results/burgers-wide.md): 1500 Adam epochs on points redrawn every 100, the
		// `auto` curvature, the data's beta held at its noise, L-BFGS
		// polishes of 1000 iterations, three held-out final rounds.
		st.Title = "Burgers' equation, " + burgersWideText + ", weights by the evidence"
		n = cfg.WideFits
	case "poisson-holes":
		// The problem's measured schedule (docs/results/poisson-holes.md).
		st.Title = poissonHolesText + ", weights by the evidence"
		n = cfg.WideFits
	case "lid-driven":
		st.Title, n = lidText+", a beta per equation by the evidence, the gauge's held", cfg.LidFits
	case "burgers-identify":
		st.Title, n = identifyText+", weights by the evidence", cfg.IdentifyFits
	case "scan":
		st.Title, st.Problem = "Architecture scan by evidence (heat, one hidden layer)", "heat"
		n = cfg.ScanFits * len(cfg.ScanHidden)
	case "heat-inverse", "wave-inverse", "burgers-inverse", "lotka-volterra-inverse":
		// A third of the fits: each study's data set is one draw; the
		// coverage over 100 draws is bpinn coverage's (docs/inverse.md).
		st.Title = inverseTitles[name]
		n = max(1, cfg.Fits/3)
	}
	return n
}

// describeBaseline describes the fixed-weight baselines, the studies that
// fit a problem of another study with hand-set weights and no evidence;
// ok is false for every other study.
func (st *Study) describeBaseline(cfg *Config) (n int, ok bool) {
	n, name := cfg.Fits, st.Name
	switch name {
	case "burgers-wide-fixed":
		// DeepXDE's default loss on DeepXDE's fixed points.
		st.Problem, st.Label = "burgers-wide", name
		st.Title = "Burgers' equation, " + burgersWideText + ", every loss weight 1 on mean squared residuals and no evidence (DeepXDE's default)"
		unitWeights(st)
		n = cfg.WideFits
	case "poisson-holes-fixed":
		// PINNacle's loss: the mean squares of the equation's residual,
		// unscaled, and the conditions', summed with unit weights.
		st.Problem, st.Label = "poisson-holes-raw", name
		st.Title = poissonHolesText + ", every loss weight 1 on mean squared residuals and no evidence (PINNacle's loss)"
		unitWeights(st)
		n = cfg.WideFits
	case "lid-driven-fixed":
		// PINNacle's loss: every term's mean square with weight 1 (the
		// three equations and the gauge; the transforms meet the lid and
		// the walls), no weight decay, no evidence.
		st.Problem, st.Label, n = "lid-driven", name, cfg.LidFits
		st.Title = lidText + ", every loss weight 1 on mean squared residuals and no evidence (PINNacle's loss)"
		st.Base.Fixed = bayes.FixedWeights{On: true, Alpha: bayes.MinHyper, Beta: 1, Mean: true}
	case "burgers-identify-fixed":
		// Raissi's loss: the two mean squares with weight 1, no weight
		// decay, no evidence.
		st.Problem, st.Label, n = "burgers-identify", name, cfg.IdentifyFits
		st.Title = identifyText + ", every loss weight 1 on mean squared residuals and no evidence (Raissi's loss)"
		unitWeights(st)
	case "heat-fixed", "wave-fixed":
		st.Problem = name[:len(name)-len("-fixed")]
		st.Title = st.Problem + " equation, fixed alpha = 0.05, beta = 1 (Table 3 baseline)"
		st.Base.Fixed.On = true
	default:
		return 0, false
	}
	return n, true
}

// unitWeights makes st the unit-weight baseline of DeepXDE and PINNacle:
// every loss weight 1 on a sum of per-term mean squared residuals
// (Fixed.Mean: beta_t = 2/N_t), no weight decay (alpha at its least), no
// evidence, the points fixed; the problem's epochs and one polish of its
// length.
func unitWeights(st *Study) {
	st.Base.Fixed = bayes.FixedWeights{On: true, Alpha: bayes.MinHyper, Beta: 1, Mean: true}
	st.Base.Resample = -1
}

// studyOptions are the options of a study's problem.
func studyOptions(st *Study, cfg *Config) problems.Options {
	return problems.Options{DataSeed: cfg.DataSeed, Sampling: st.Sampling}
}

// runStudy runs one study, turning a panic into its error.
func runStudy(ctx context.Context, st *Study, cfg *Config, fits fitsFunc) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	if cfg.FailStudy == st.Name {
		panic("injected failure (test hook)")
	}
	p, err := problems.New(st.Problem, studyOptions(st, cfg))
	if err != nil {
		return err
	}
	// The problem's schedule, its epochs scaled.
	d := st.Base.Schedule
	st.Base.Recipe = cfg.Recipe
	scale := epochScale(st.Name, cfg)
	scaled := func(n int) int { return max(1, int(math.Round(float64(n)*scale))) }
	if d.Hidden == nil && st.Base.Hidden == nil {
		// No schedule (the suite): the derived one's lengths, scaled, as
		// settings, so that the schedule stays empty and the fit keeps
		// the defaults of a problem nobody measured (Settings.Scale).
		epochs, start, polish, err := derivedSteps(p)
		if err != nil {
			return err
		}
		st.Base.Epochs, st.Base.Hyper.Start, st.Base.Polish.Iter = scaled(epochs), scaled(start), scaled(polish)
	} else {
		st.Base.Epochs, st.Base.Hyper.Start = scaled(d.Epochs), scaled(d.HyperStart)
	}
	if d.PolishIter > 0 { // the schedule's: the paper's recipe does not polish
		st.Base.Schedule = d.Clone()
		st.Base.Schedule.PolishIter = scaled(d.PolishIter)
	}
	first := st.Base // every fit's settings but its seed: resolved once, at the first
	first.Seed = cfg.SeedBase
	if st.fitConfig, err = bayes.NewConfig(p, first); err != nil {
		return err
	}
	st.Resolved = st.fitConfig.Settings()
	st.sizes = append(append([]int{p.Dim()}, st.Resolved.Hidden...), len(p.OutputNames()))
	hs, sampled := sampledStudy(st.Name, cfg)
	sampled = sampled && cfg.Shards == 0
	total := len(st.Seeds)
	if sampled {
		total++
	}
	var prog Progress = nopProgress{}
	if cfg.Progress != nil {
		prog = cfg.Progress(st.Name, total)
	}
	defer prog.Finish()

	if err := fits(ctx, st, p, cfg, prog); err != nil {
		return err
	}
	if sampled {
		return runHMC(ctx, st, cfg, hs, prog)
	}
	return nil
}

// epochScale is the factor on the epochs, hyper start and polish
// iterations of a study's problem schedule in cfg's plan.
func epochScale(name string, cfg *Config) float64 {
	if s, ok := cfg.Scales[name]; ok {
		return s
	}
	scale := cfg.EpochScale
	switch {
	case isWide(name) && cfg.WideEpochScale > 0:
		scale = cfg.WideEpochScale
	case isLid(name), isIdentify(name), isSuite(name):
		scale = 1
	}
	if name == "lotka-volterra-inverse" && scale >= 0.5 {
		// The quick plan's half: 1500 Adam epochs before the evidence do
		// not find the cycle (rates 700x off on seed 1); the full 10000
		// cost 6 s of CPU (docs/results/lotka-volterra.md).
		scale = 1
	}
	return scale
}

// sampledStudy returns the sampler settings of a study whose best fit is
// compared with NUTS (hmc, and heat when the plan says so) and whether it
// is one.
func sampledStudy(name string, cfg *Config) (mcmc.Settings, bool) {
	switch {
	case name == "hmc":
		return cfg.HMC, true
	case name == "heat" && cfg.HeatHMC != nil:
		return *cfg.HeatHMC, true
	}
	return mcmc.Settings{}, false
}

// comparisonFile is the file of a study's Laplace-vs-NUTS comparison:
// hmc.json for the regression, hmc-<study>.json otherwise.
func comparisonFile(study string) string {
	if study == "hmc" {
		return "hmc.json"
	}
	return "hmc-" + study + ".json"
}

type nopProgress struct{}

func (nopProgress) Step(string) {}
func (nopProgress) Finish()     {}

// runFits trains the study's fits through runner.Run, appends each
// to DIR/<study>.jsonl as it ends, and keeps the best fit by evidence.
func runFits(ctx context.Context, st *Study, p *pde.Problem, cfg *Config, prog Progress) error {
	path := filepath.Join(cfg.Out, st.Name+".jsonl")
	file, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer file.Close()
	gridPts, gridExact := p.Grid(100)

	bestZ := math.Inf(-1)
	err = runner.Run(ctx, st.Seeds, runner.Options{Workers: cfg.Workers, Out: file,
		DataSeed: func(uint64) uint64 { return cfg.DataSeed },
		Gate: func(ctx context.Context, seed uint64) (func(), error) {
			return st.gate(ctx, cfg, st.fitCost, fmt.Sprintf("seed %d", seed))
		},
		Done: func(o runner.Outcome) {
			if o.Err != nil {
				return
			}
			rec := fitRecord(o.Fit, &o.Record, gridPts, gridExact)
			st.Fits = append(st.Fits, rec)
			if z := rec.LogEvidence; !math.IsNaN(z) && (z > bestZ || z == bestZ && st.Best != nil && o.Key < st.Best.Settings.Seed) {
				bestZ, st.Best = z, o.Fit
			}
			prog.Step(fmt.Sprintf("seed %d %s: rel L2 %s, ln Z %s (%.1f s)", o.Key, rec.Status,
				fmtG(rec.RelL2, 4), fmtG(rec.LogEvidence, 6), rec.Seconds))
		}}, func(ctx context.Context, seed uint64) (*bayes.Fit, error) {
		if st.Name != "scan" {
			return bayes.TrainConfig(ctx, st.fitConfig.WithSeed(seed))
		}
		s := st.Base // the scan's net changes with the seed: its own resolution
		s.Seed = seed
		i := int(seed - cfg.SeedBase)
		s.Hidden = []int{cfg.ScanHidden[i%len(cfg.ScanHidden)]}
		return bayes.Train(ctx, p, s)
	})
	slices.SortFunc(st.Fits, func(a, b FitRecord) int { return cmp.Compare(a.Seed, b.Seed) })
	return err
}

// fitRecord extracts what the report needs from a fit and its record; f is
// nil for a record that cannot be restored (weights not finite), whose
// hyperparameters come from the record.
func fitRecord(f *bayes.Fit, r *record.Result, pts [][]float64, exact []float64) FitRecord {
	rec := FitRecord{Seed: r.Seed, Status: r.Status, Seconds: r.Seconds, Warnings: r.Warnings,
		LogEvidence: val(r.LogEvidence), RelL2: r.RelL2(), Coverage: r.Coverage(), MSE: math.NaN(), MAD: math.NaN(),
		AlphaNames: r.AlphaNames, BetaNames: r.BetaNames, HeldBetas: r.HeldBetas(), Gamma: val(r.Gamma)}
	if f != nil {
		rec.Hidden, rec.Alpha, rec.Beta, rec.Unknowns = f.Settings.Hidden, f.Alpha, f.Beta, f.Unknowns()
	} else {
		rec.Hidden = slices.Clone(r.Architecture[1 : len(r.Architecture)-1])
		for _, n := range r.AlphaNames {
			rec.Alpha = append(rec.Alpha, val(r.Alpha[n]))
		}
		for _, n := range r.BetaNames {
			rec.Beta = append(rec.Beta, val(r.Beta[n]))
		}
	}
	rec.CoverageHeldOut, rec.CoverageCalibrated, rec.Q95, rec.Q95Calibrated = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if e := r.Errors; e != nil {
		rec.MSE = val(e.MSE)
		rec.CoverageHeldOut = val(e.Coverage2SHeldOut)
		rec.CoverageCalibrated, rec.Q95, rec.Q95Calibrated = val(e.Coverage2SCalibrated), val(e.Q95), val(e.Q95Calibrated)
		for name, o := range e.Outputs {
			if rec.OutputCoverage == nil {
				rec.OutputCoverage = map[string]float64{}
			}
			rec.OutputCoverage[name] = val(o.Coverage2S)
		}
	}
	if r.Weights != nil && exact != nil {
		var sum float64
		out := make([]float64, 1)
		for i, x := range pts {
			sum += math.Abs(r.Weights.Eval(x, out)[0] - exact[i])
		}
		rec.MAD = sum / float64(len(pts))
	}
	return rec
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// runHMC samples the posterior of the study's best fit with the settings
// hs and writes DIR/<comparisonFile>.
func runHMC(ctx context.Context, st *Study, cfg *Config, hs mcmc.Settings, prog Progress) error {
	if st.Best == nil {
		return fmt.Errorf("no %s fit has a defined evidence: nothing to compare HMC with", st.Problem)
	}
	hs.Seed = cfg.SeedBase
	release, err := st.gate(ctx, cfg, st.hmcCost, "NUTS")
	if err != nil {
		return err
	}
	defer release()
	// Heat is sampled in the coordinates whitened by its fit's A, where
	// warm-up starts from the Laplace covariance (docs/hmc.md); the
	// regression as bpinn hmc regression does.
	cmp, err := posterior.CompareHMC(ctx, st.Best, &hs, &posterior.CompareOptions{Whiten: st.Name != "hmc"})
	if err != nil {
		return err
	}
	st.HMC = cmp
	prog.Step(fmt.Sprintf("%s %d chains x %d samples: %.1f s", cmp.HMC.Sampler, cmp.HMC.Chains, cmp.HMC.Samples, cmp.Diagnostics.Seconds))
	b, err := json.MarshalIndent(struct {
		FitSeed     uint64                `json:"fit_seed"`
		FitSeconds  float64               `json:"fit_seconds"`
		LogEvidence float64               `json:"log_evidence"`
		Comparison  *posterior.Comparison `json:"comparison"`
	}{st.Best.Settings.Seed, st.Best.Seconds, st.Best.Laplace.LogEvidence, cmp}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(cfg.Out, comparisonFile(st.Name)), append(b, '\n'))
}

// fmtG formats x with prec significant digits, "n/a" when undefined.
func fmtG(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.*g", prec, x)
}
