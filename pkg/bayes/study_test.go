package bayes

// The studies of docs/results.md and fast checks of the trainer.
//
// The fast tests run under plain `go test ./pkg/bayes/`. The studies are
// heavy and run only when BPINN_STUDY is set:
//
//	BPINN_STUDY=heat,wave BPINN_STUDY_N=100 go test -run TestStudy -timeout 2h -v ./pkg/bayes/
//	BPINN_STUDY=full go test -run TestStudy -timeout 6h -v ./pkg/bayes/
//
// Further knobs (all optional, the zero value is the default Settings):
// BPINN_STUDY_N (fits per study, default 20), BPINN_STUDY_SEED (first seed,
// default 1), BPINN_STUDY_WORKERS (goroutines, default GOMAXPROCS),
// BPINN_STUDY_HESSIAN (gauss-newton|exact), BPINN_STUDY_UPDATER
// (adam|mackay), BPINN_STUDY_FIXED=1 (Table 3's baseline),
// BPINN_STUDY_NOISEVAR=1 (regression noise 0.05 is a variance),
// BPINN_STUDY_POLISH=1, BPINN_STUDY_LR, BPINN_STUDY_HYPERLR,
// BPINN_STUDY_ALPHA0, BPINN_STUDY_BETA0, BPINN_STUDY_EPOCHS,
// BPINN_STUDY_FINAL (Settings.FinalHyper), BPINN_STUDY_DECAY (Settings.LRDecay),
// BPINN_STUDY_FIXEDALPHA, BPINN_STUDY_FIXEDBETA,
// BPINN_STUDY_RECIPE (tuned|paper), BPINN_STUDY_HIDDEN (e.g. 16,16),
// BPINN_STUDY_HYPERSTART, BPINN_STUDY_UNTIE (Settings.UntieAt),
// BPINN_STUDY_POLISHITER (Settings.PolishIter),
// BPINN_STUDY_SAMPLING (pde.Options.Sampling: uniform|lhs),
// BPINN_STUDY_JOIN=k (train on k data sets, data seeds 1..k, joined term by
// term: k times the points), BPINN_STUDY_DIRECT=n (capacity check: no PDE,
// one data term of the exact solution on the problem's n x n grid),
// BPINN_STUDY_REGION=w (split the pde and data terms at |x| = w into
// near and far beta groups; with split betas),
// BPINN_STUDY_OUT (a JSONL file, one line per fit).
//
// Every record carries, besides rel L2 and the 2-sigma coverage, the mean
// absolute error on the grid and the quantiles of |u - u*| / sigma over the
// grid (ratio_q50/q90/q95): a calibrated Gaussian band has q95 = 1.96; the
// factor by which sigma would have to grow to cover 95 % is q95 / 1.96.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"gonum.org/v1/gonum/mat"
)

// studyRecord is one fit of a study.
type studyRecord struct {
	Problem     string    `json:"problem"`
	Seed        uint64    `json:"seed"`
	Status      string    `json:"status"`
	Reason      string    `json:"reason,omitempty"`
	RelL2       float64   `json:"rel_l2"`
	MSE         float64   `json:"mse"`
	Coverage    float64   `json:"coverage_2sigma"`
	Alpha       []float64 `json:"alpha"`
	Beta        []float64 `json:"beta"`
	LogEvidence float64   `json:"log_evidence"` // paper's convention (drops -N/2 ln 2pi); NaN when undefined
	LogP        float64   `json:"log_p"`
	Gamma       float64   `json:"gamma"`
	Steps       int       `json:"hyper_steps"`
	NotPD       int       `json:"not_pd"`
	OccamBad    int       `json:"occam_bad"`
	Rejected    int       `json:"rejected"`
	Seconds     float64   `json:"seconds"`
	Hidden      []int     `json:"hidden"`
	Recipe      string    `json:"recipe"`
	MeanAbs     float64   `json:"mean_abs"`  // mean |u - u*| on the grid
	RatioQ50    float64   `json:"ratio_q50"` // quantiles of |u - u*| / sigma on the grid
	RatioQ90    float64   `json:"ratio_q90"`
	RatioQ95    float64   `json:"ratio_q95"`
	PolishIter  int       `json:"polish_iter,omitempty"`
	// Per beta group: 1/sqrt(beta) (the noise level the evidence assigns),
	// the rms residual at the training points, and the rms residual of the
	// same network at fresh points of the same kinds (data seed + 1000).
	NoiseStd   []float64 `json:"noise_std"`
	TrainRMS   []float64 `json:"train_rms"`
	HeldOutRMS []float64 `json:"heldout_rms"`
}

// studyResidualRMS is Fit.ResidualCheck on the problem's fresh points, with
// the pde and data terms split at |x| = region if region > 0; held is nil
// when no fresh draw matches the fit's terms.
func studyResidualRMS(f *Fit, region float64) (train, held []float64) {
	q, err := f.Model.Problem.Fresh()
	if err != nil {
		return groupRMS(f.Model, f.Beta), nil
	}
	if region > 0 {
		q.Terms = splitNear(q.Terms, region)
	}
	train, held, err = f.ResidualCheck(q)
	if err != nil { // e.g. BPINN_STUDY_DIRECT: other terms than the fresh draw's
		return groupRMS(f.Model, f.Beta), nil
	}
	return train, held
}

func runStudyFit(t testing.TB, problem string, o pde.Options, s Settings) studyRecord {
	p, err := pde.New(problem, o)
	if err != nil {
		t.Fatal(err)
	}
	for k := 2; k <= envInt(t, "BPINN_STUDY_JOIN", 1); k++ {
		ok := o
		ok.DataSeed = uint64(k)
		q, err := pde.New(problem, ok)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Terms {
			p.Terms[i].Points = append(p.Terms[i].Points, q.Terms[i].Points...)
			if p.Terms[i].Target != nil {
				p.Terms[i].Target = append(p.Terms[i].Target, q.Terms[i].Target...)
			}
		}
	}
	if w := envFloat(t, "BPINN_STUDY_REGION"); w > 0 {
		p.Terms = splitNear(p.Terms, w)
	}
	if n := envInt(t, "BPINN_STUDY_DIRECT", 0); n > 0 {
		pts, exact := p.Grid(n)
		p.Terms = []pde.Term{{Name: "data", Group: "data", Points: pts, Target: exact, Residual: pde.DataResidual}}
		s.BetaMode = "single"
	}
	s.PolishIter = envInt(t, "BPINN_STUDY_POLISHITER", 0)
	s.Resample = envInt(t, "BPINN_STUDY_RESAMPLE", 0)
	f, err := Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	r := studyRecord{Problem: problem, Seed: f.Settings.Seed, Status: f.Status, Reason: f.Reason,
		Hidden: f.Settings.Hidden, Recipe: f.Settings.Recipe, PolishIter: envInt(t, "BPINN_STUDY_POLISHITER", 0),
		MeanAbs: math.NaN(), RatioQ50: math.NaN(), RatioQ90: math.NaN(), RatioQ95: math.NaN(),
		Alpha: f.Alpha, Beta: f.Beta, Steps: f.Hyper.Steps, NotPD: f.Hyper.NotPD,
		OccamBad: f.Hyper.OccamBad, Rejected: f.Hyper.Rejected, Seconds: f.Seconds,
		LogEvidence: math.NaN(), LogP: math.NaN(), RelL2: math.NaN(), MSE: math.NaN(), Coverage: math.NaN()}
	if f.Laplace != nil {
		r.LogP, r.Gamma = f.Laplace.LogP, f.Laplace.Gamma
		if f.Laplace.OccamOK {
			r.LogEvidence = f.Laplace.LogEvidence
		}
	}
	if f.Status != StatusDiverged {
		if e, err := f.GridErrors(100); err == nil {
			r.RelL2, r.MSE = e.RelL2, e.MSE
			if f.Laplace != nil {
				r.Coverage = e.Coverage2S
			}
			r.MeanAbs, r.RatioQ50, r.RatioQ90, r.RatioQ95 = gridRatios(f, 100)
			r.TrainRMS, r.HeldOutRMS = studyResidualRMS(f, envFloat(t, "BPINN_STUDY_REGION"))
			for _, b := range f.Beta {
				r.NoiseStd = append(r.NoiseStd, 1/math.Sqrt(b))
			}
		}
	}
	return r
}

// splitNear replaces each pde and data term by two, "_near" (points with
// |first input| <= w) and "_far", each with its own beta group: a residual
// noise that differs near Burgers' shock from elsewhere.
func splitNear(terms []pde.Term, w float64) []pde.Term {
	var out []pde.Term
	for _, tm := range terms {
		if tm.Group != "pde" && tm.Group != "data" {
			out = append(out, tm)
			continue
		}
		near, far := tm, tm
		near.Name, near.Group, near.Points, near.Target = tm.Name+"_near", tm.Group+"_near", nil, nil
		far.Name, far.Group, far.Points, far.Target = tm.Name+"_far", tm.Group+"_far", nil, nil
		for i, x := range tm.Points {
			part := &far
			if math.Abs(x[0]) <= w {
				part = &near
			}
			part.Points = append(part.Points, x)
			if tm.Target != nil {
				part.Target = append(part.Target, tm.Target[i])
			}
		}
		out = append(out, near, far)
	}
	return out
}

// gridRatios returns the mean |u - u*| on the n x n grid and the 50, 90 and
// 95 % quantiles of |u - u*| / sigma (NaN without a Laplace approximation).
func gridRatios(f *Fit, n int) (meanAbs, q50, q90, q95 float64) {
	pts, exact := f.Model.Problem.Grid(n)
	mean, sigma, err := f.Predict(pts)
	if err != nil {
		panic(err)
	}
	var ratios []float64
	for i, u := range mean {
		d := math.Abs(u - exact[i])
		meanAbs += d / float64(len(mean))
		if sigma != nil && sigma[i] > 0 {
			ratios = append(ratios, d/sigma[i])
		}
	}
	if len(ratios) == 0 {
		return meanAbs, math.NaN(), math.NaN(), math.NaN()
	}
	sort.Float64s(ratios)
	q := func(p float64) float64 { return ratios[int(p*float64(len(ratios)-1))] }
	return meanAbs, q(0.5), q(0.9), q(0.95)
}

func envInts(t testing.TB, k string) []int {
	v := os.Getenv(k)
	if v == "" {
		return nil
	}
	var xs []int
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("%s=%q: %v", k, v, err)
		}
		xs = append(xs, x)
	}
	return xs
}

func envFloat(t testing.TB, k string) float64 {
	v := os.Getenv(k)
	if v == "" {
		return 0
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", k, v, err)
	}
	return x
}

func envInt(t testing.TB, k string, d int) int {
	v := os.Getenv(k)
	if v == "" {
		return d
	}
	x, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", k, v, err)
	}
	return x
}

// studySettings reads the knobs of the study from the environment.
func studySettings(t testing.TB) (Settings, pde.Options) {
	s := Settings{
		Hessian:    HessianKind(os.Getenv("BPINN_STUDY_HESSIAN")),
		Updater:    Updater(os.Getenv("BPINN_STUDY_UPDATER")),
		Fixed:      os.Getenv("BPINN_STUDY_FIXED") == "1",
		Polish:     os.Getenv("BPINN_STUDY_POLISH") == "1",
		LR:         envFloat(t, "BPINN_STUDY_LR"),
		HyperLR:    envFloat(t, "BPINN_STUDY_HYPERLR"),
		Alpha0:     envFloat(t, "BPINN_STUDY_ALPHA0"),
		Beta0:      envFloat(t, "BPINN_STUDY_BETA0"),
		Epochs:     envInt(t, "BPINN_STUDY_EPOCHS", 0),
		FinalHyper: envInt(t, "BPINN_STUDY_FINAL", 0),
		LRDecay:    envFloat(t, "BPINN_STUDY_DECAY"),
		FixedAlpha: envFloat(t, "BPINN_STUDY_FIXEDALPHA"),
		FixedBeta:  envFloat(t, "BPINN_STUDY_FIXEDBETA"),
		Recipe:     os.Getenv("BPINN_STUDY_RECIPE"),
		Hidden:     envInts(t, "BPINN_STUDY_HIDDEN"),
		HyperStart: envInt(t, "BPINN_STUDY_HYPERSTART", 0),
		UntieAt:    envInt(t, "BPINN_STUDY_UNTIE", 0),
	}
	o := pde.Options{NoiseIsVariance: os.Getenv("BPINN_STUDY_NOISEVAR") == "1",
		Sampling: os.Getenv("BPINN_STUDY_SAMPLING")}
	return s, o
}

// studySummary is what docs/results.md reports for one study.
type studySummary struct {
	Problem                 string
	N                       int
	Statuses                map[string]int
	Best                    studyRecord // best by evidence
	MinErr, MedErr          float64
	Rho                     float64 // Spearman(log evidence, rel L2)
	NotPDFrac, OccamFrac    float64 // over all hyperparameter steps
	MeanSeconds, MeanCov    float64
	BestByErrorRankEvidence int // rank (1-based) of the best-by-evidence fit by error
	FitsWithEvidenceDefined int
}

func summarize(problem string, rs []studyRecord) studySummary {
	sm := studySummary{Problem: problem, N: len(rs), Statuses: map[string]int{}}
	var ranked []Ranked
	var le, errs, covs []float64
	steps, npd, occ := 0, 0, 0
	for _, r := range rs {
		sm.Statuses[r.Status]++
		ranked = append(ranked, Ranked{Seed: r.Seed, LogEvidence: r.LogEvidence, Error: r.RelL2})
		le, errs = append(le, r.LogEvidence), append(errs, r.RelL2)
		steps, npd, occ = steps+r.Steps, npd+r.NotPD, occ+r.OccamBad
		sm.MeanSeconds += r.Seconds / float64(len(rs))
		if !math.IsNaN(r.Coverage) {
			covs = append(covs, r.Coverage)
		}
		if !math.IsNaN(r.LogEvidence) {
			sm.FitsWithEvidenceDefined++
		}
	}
	if steps > 0 {
		sm.NotPDFrac, sm.OccamFrac = float64(npd)/float64(steps), float64(occ)/float64(steps)
	}
	sm.Rho = Spearman(le, errs)
	order := Rank(ranked)
	for _, r := range rs {
		if r.Seed == order[0].Seed {
			sm.Best = r
		}
	}
	fin := slices.DeleteFunc(slices.Clone(errs), func(x float64) bool { return math.IsNaN(x) })
	sort.Float64s(fin)
	if len(fin) > 0 {
		sm.MinErr, sm.MedErr = fin[0], fin[len(fin)/2]
		sm.BestByErrorRankEvidence = sort.SearchFloat64s(fin, sm.Best.RelL2) + 1
	}
	for _, c := range covs {
		sm.MeanCov += c / float64(len(covs))
	}
	return sm
}

func (sm studySummary) String() string {
	b := sm.Best
	return fmt.Sprintf("%s: %d fits %v | best-by-evidence seed %d: relL2 %.3g mse %.3g cov %.3f alpha %.4g beta %.4g logEv %.2f (error rank %d) | min relL2 %.3g median %.3g | rho(logEv,err) %.2f | evidence defined %d | hyper steps notPD %.3f occamBad %.3f | mean cov %.3f | %.2f s/fit",
		sm.Problem, sm.N, sm.Statuses, b.Seed, b.RelL2, b.MSE, b.Coverage, b.Alpha, b.Beta, b.LogEvidence,
		sm.BestByErrorRankEvidence, sm.MinErr, sm.MedErr, sm.Rho, sm.FitsWithEvidenceDefined,
		sm.NotPDFrac, sm.OccamFrac, sm.MeanCov, sm.MeanSeconds)
}

// TestStudy runs the studies of docs/results.md (see the top of this file).
func TestStudy(t *testing.T) {
	which := os.Getenv("BPINN_STUDY")
	if which == "" {
		t.Skip("set BPINN_STUDY=full or BPINN_STUDY=heat,wave,... to run the studies")
	}
	problems := strings.Split(which, ",")
	if which == "full" {
		problems = pde.Names()
	}
	n := envInt(t, "BPINN_STUDY_N", 20)
	first := uint64(envInt(t, "BPINN_STUDY_SEED", 1))
	workers := envInt(t, "BPINN_STUDY_WORKERS", 0)
	s, o := studySettings(t)
	var out *os.File
	if path := os.Getenv("BPINN_STUDY_OUT"); path != "" {
		var err error
		if out, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			t.Fatal(err)
		}
		defer out.Close()
	}
	for _, problem := range problems {
		seeds := make([]uint64, n)
		for i := range seeds {
			seeds[i] = first + uint64(i)
		}
		var mu sync.Mutex
		var rs []studyRecord
		Ensemble(seeds, workers, func(seed uint64) studyRecord {
			si := s
			si.Seed = seed
			return runStudyFit(t, problem, o, si)
		}, func(_ uint64, r studyRecord) {
			mu.Lock()
			defer mu.Unlock()
			rs = append(rs, r)
			if out != nil {
				line, _ := json.Marshal(jsonSafe(r))
				fmt.Fprintf(out, "%s\n", line)
			}
		})
		t.Log(summarize(problem, rs))
	}
}

// jsonSafe replaces NaN (which encoding/json rejects) by -1e300 sentinels.
func jsonSafe(r studyRecord) studyRecord {
	fix := func(x *float64) {
		if math.IsNaN(*x) || math.IsInf(*x, 0) {
			*x = -1e300
		}
	}
	fix(&r.LogEvidence)
	fix(&r.LogP)
	fix(&r.RelL2)
	fix(&r.MSE)
	fix(&r.Coverage)
	fix(&r.MeanAbs)
	fix(&r.RatioQ50)
	fix(&r.RatioQ90)
	fix(&r.RatioQ95)
	return r
}

// Bounds of TestStudyHeatReduced: seed 1 measured rel L2 0.0215 and
// coverage 0.933 (50x50 grid); the full schedule reaches 0.008-0.01.
const (
	heatReducedMaxErr = 0.05
	heatReducedMinCov = 0.5
)

// A heat fit with a reduced schedule reaches a small error with a calibrated
// enough band and a valid evidence.
func TestStudyHeatReduced(t *testing.T) {
	f := resultTestFit(t, "heat", Settings{Seed: 1, Epochs: 6000, HyperStart: 2000})
	if f.Status != StatusOK {
		t.Fatalf("status %s: %s", f.Status, f.Reason)
	}
	e, err := f.GridErrors(50)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("heat 6000 epochs: rel L2 %.3g coverage %.3f alpha %.3g beta %.3g log evidence %.2f, %.2f s",
		e.RelL2, e.Coverage2S, f.Alpha, f.Beta, f.Laplace.LogEvidence, f.Seconds)
	if e.RelL2 > heatReducedMaxErr || e.Coverage2S < heatReducedMinCov {
		t.Errorf("rel L2 %.3g (want <= %g), coverage %.3f (want >= %g)", e.RelL2, heatReducedMaxErr, e.Coverage2S, heatReducedMinCov)
	}
	if f.Hyper.NotPD != 0 {
		t.Errorf("Gauss-Newton A not positive definite at %d of %d steps", f.Hyper.NotPD, f.Hyper.Steps)
	}
}

// The evidence prefers a reasonable network (1-6-1) to one clearly too small
// (1-1-1) on the regression data: issue 3's evidence ranking test. A net
// clearly too large (1-20-1) does not lose: its extra units stay at the
// prior, so ln Z - comb is that of 1-6-1 (the Occam factors of the unused
// weights cancel), and comb = sum ln M! + M ln 2 then ranks it first
// (docs/results.md, section 4).
func TestStudyEvidenceRanking(t *testing.T) {
	p, err := pde.New("regression", pde.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type best struct{ lnZ, comb, gamma float64 }
	fit := func(hidden []int) best {
		b := best{lnZ: math.Inf(-1)}
		for seed := uint64(1); seed <= 3; seed++ {
			f, err := Train(context.Background(), p, Settings{Seed: seed, Hidden: hidden, Epochs: 6000, HyperStart: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if l := f.Laplace; l != nil && l.OccamOK && l.LogEvidence > b.lnZ {
				b = best{l.LogEvidence, l.Comb, l.Gamma}
			}
		}
		return b
	}
	small, good, large := fit([]int{1}), fit([]int{6}), fit([]int{20})
	t.Logf("best ln Z (comb, gamma): 1-1-1 %.2f (%.2f, %.2f), 1-6-1 %.2f (%.2f, %.2f), 1-20-1 %.2f (%.2f, %.2f)",
		small.lnZ, small.comb, small.gamma, good.lnZ, good.comb, good.gamma, large.lnZ, large.comb, large.gamma)
	if !(good.lnZ > small.lnZ+5) {
		t.Errorf("log evidence of 1-6-1 (%.2f) does not beat 1-1-1 (%.2f) by 5", good.lnZ, small.lnZ)
	}
	if d := (large.lnZ - large.comb) - (good.lnZ - good.comb); math.Abs(d) > 2 {
		t.Errorf("ln Z - comb: 1-20-1 differs from 1-6-1 by %.2f nats, want the plateau (|d| <= 2)", d)
	}
	if math.Abs(large.gamma-good.gamma) > 1 {
		t.Errorf("gamma: 1-20-1 %.2f, 1-6-1 %.2f: want the same well-determined parameters", large.gamma, good.gamma)
	}
	if !(large.lnZ > good.lnZ+20) {
		t.Errorf("ln Z of 1-20-1 (%.2f) does not exceed 1-6-1's (%.2f) by its larger comb", large.lnZ, good.lnZ)
	}
}

// The fixed-weight baseline of Table 3 keeps alpha = 0.05 and beta = 1.
func TestStudyFixedBaseline(t *testing.T) {
	f := resultTestFit(t, "heat", Settings{Seed: 2, Epochs: 1500, HyperStart: 500, Fixed: true})
	if f.Hyper.Steps != 0 {
		t.Errorf("%d hyperparameter steps in a fixed fit", f.Hyper.Steps)
	}
	for _, a := range f.Alpha {
		if a != 0.05 {
			t.Errorf("alpha %v, want 0.05", f.Alpha)
		}
	}
	for _, b := range f.Beta {
		if b != 1 {
			t.Errorf("beta %v, want 1", f.Beta)
		}
	}
	for _, h := range f.History {
		if h.Alpha[0] != 0.05 || h.Beta[0] != 1 {
			t.Fatalf("history at epoch %d: alpha %v beta %v", h.Epoch, h.Alpha, h.Beta)
		}
	}
}

// A NaN injected at an epoch ends the fit as diverged, naming the epoch.
func TestStudyNaNInjection(t *testing.T) {
	f := nanTestFit(t, "heat", Settings{Seed: 1, Epochs: 200, HyperStart: 50}, 77)
	if f.Status != StatusDiverged || f.Epochs != 77 || !strings.Contains(f.Reason, "epoch 77") {
		t.Errorf("status %q epochs %d reason %q; want diverged at epoch 77", f.Status, f.Epochs, f.Reason)
	}
	if f.Laplace != nil {
		t.Error("a diverged fit has a Laplace approximation")
	}
}

// Two fits with the same seed are bitwise identical; another seed differs.
func TestStudyDeterminism(t *testing.T) {
	p, err := pde.New("wave", pde.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Seed: 5, Epochs: 300, HyperStart: 100, Polish: true, FinalHyper: 1}
	a, err := Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	if !same(a.Model.Net.W, b.Model.Net.W) || !same(a.Alpha, b.Alpha) || !same(a.Beta, b.Beta) {
		t.Errorf("same seed, different fits: alpha %v/%v beta %v/%v", a.Alpha, b.Alpha, a.Beta, b.Beta)
	}
	if a.Laplace == nil || b.Laplace == nil || math.Float64bits(a.Laplace.LogEvidence) != math.Float64bits(b.Laplace.LogEvidence) {
		t.Error("same seed, different log evidence")
	}
	s.Seed = 6
	c, err := Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if same(a.Model.Net.W, c.Model.Net.W) {
		t.Error("seeds 5 and 6 gave the same weights")
	}
}

// The final rounds stop when the hyperparameters settle (FinalTol) and
// leave them at MacKay's fixed point of the final w_MP (to the accuracy of
// one more step); a cap of FinalHyper rounds is respected.
func TestStudyFinalHyperFixedPoint(t *testing.T) {
	f := resultTestFit(t, "regression", Settings{Seed: 1, Epochs: 3000, HyperStart: 1000})
	if f.Status != StatusOK {
		t.Fatalf("status %s: %s", f.Status, f.Reason)
	}
	t.Logf("%d final rounds, last move %.3g", f.Hyper.FinalRounds, f.Hyper.FinalMove)
	if f.Hyper.FinalRounds >= f.Settings.FinalHyper || f.Hyper.FinalMove > f.Settings.FinalTol {
		t.Errorf("final rounds %d of at most %d, last move %.3g: want them to end on the tolerance %g",
			f.Hyper.FinalRounds, f.Settings.FinalHyper, f.Hyper.FinalMove, f.Settings.FinalTol)
	}
	c := f.Curvature()
	alpha, beta := f.Laplace.MacKay(c)
	for i := range alpha {
		if r := alpha[i] / f.Alpha[i]; math.Abs(r-1) > 5*f.Settings.FinalTol {
			t.Errorf("alpha %.6g, MacKay's fixed point %.6g", f.Alpha[i], alpha[i])
		}
	}
	for i := range beta {
		if r := beta[i] / f.Beta[i]; math.Abs(r-1) > 5*f.Settings.FinalTol {
			t.Errorf("beta %.6g, MacKay's fixed point %.6g", f.Beta[i], beta[i])
		}
	}
	capped := resultTestFit(t, "regression", Settings{Seed: 1, Epochs: 3000, HyperStart: 1000, FinalHyper: 2, FinalTol: 1e-12})
	if capped.Hyper.FinalRounds != 2 {
		t.Errorf("FinalHyper 2 with a tolerance never met: %d rounds", capped.Hyper.FinalRounds)
	}
}

// Heat with one alpha per weight class: the MacKay rounds drive a class's
// alpha toward 0 until A is numerically singular after round 6. The fit
// steps back to round 5, where the evidence is defined, and that state is
// bit for bit the fit that was told to stop after 5 rounds.
func TestStudyFinalRoundsStepBack(t *testing.T) {
	p, err := pde.New("heat", pde.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Seed: 1, Epochs: 1000, HyperStart: 500, AlphaMode: "classes", FinalHyper: 6}
	f, err := Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status %s, %d rounds, backoff %q", f.Status, f.Hyper.FinalRounds, f.Hyper.FinalBackoff)
	if f.Status != StatusOK || f.Laplace == nil || math.IsNaN(f.Laplace.LogEvidence) {
		t.Fatalf("status %s (%s): want ok with an evidence after stepping back", f.Status, f.Reason)
	}
	if f.Hyper.FinalRounds != 5 || !strings.Contains(f.Hyper.FinalBackoff, "after round 6: ") {
		t.Fatalf("rounds %d, backoff %q: want reported at round 5 after round 6 failed", f.Hyper.FinalRounds, f.Hyper.FinalBackoff)
	}
	s.FinalHyper = 5
	g, err := Train(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if g.Hyper.FinalBackoff != "" || g.Hyper.FinalRounds != 5 {
		t.Fatalf("5 rounds: %d rounds, backoff %q", g.Hyper.FinalRounds, g.Hyper.FinalBackoff)
	}
	if !slices.Equal(f.Model.Net.W, g.Model.Net.W) || !slices.Equal(f.Alpha, g.Alpha) || !slices.Equal(f.Beta, g.Beta) ||
		f.Laplace.LogEvidence != g.Laplace.LogEvidence || f.Polish.F != g.Polish.F || f.Hyper.FinalMove != g.Hyper.FinalMove {
		t.Errorf("stepped back to round 5: ln Z %.17g alpha %v, E_T %.17g; stopped at round 5: ln Z %.17g alpha %v, E_T %.17g",
			f.Laplace.LogEvidence, f.Alpha, f.Polish.F, g.Laplace.LogEvidence, g.Alpha, g.Polish.F)
	}
}

// TestStudySplitNear checks the near/far split of BPINN_STUDY_REGION: every
// point lands in exactly one part, on the right side, with its target, and
// the model gets one beta per part.
func TestStudySplitNear(t *testing.T) {
	p, err := pde.New("burgers", pde.Options{})
	if err != nil {
		t.Fatal(err)
	}
	terms := splitNear(p.Terms, 0.2)
	var names []string
	for _, tm := range terms {
		names = append(names, tm.Group)
	}
	if want := []string{"pde_near", "pde_far", "boundary", "data_near", "data_far"}; !slices.Equal(names, want) {
		t.Fatalf("groups %v, want %v", names, want)
	}
	if n := len(terms[0].Points) + len(terms[1].Points); n != len(p.Terms[0].Points) {
		t.Errorf("pde split into %d points, want %d", n, len(p.Terms[0].Points))
	}
	for _, tm := range terms {
		for i, x := range tm.Points {
			if near := math.Abs(x[0]) <= 0.2; near != strings.HasSuffix(tm.Group, "_near") && tm.Group != "boundary" {
				t.Errorf("%s point %v on the wrong side", tm.Group, x)
			}
			if tm.Target != nil && tm.Group != "boundary" {
				if k := slices.IndexFunc(p.Terms[2].Points, func(y []float64) bool { return slices.Equal(x, y) }); p.Terms[2].Target[k] != tm.Target[i] {
					t.Errorf("%s point %v: target %g, want %g", tm.Group, x, tm.Target[i], p.Terms[2].Target[k])
				}
			}
		}
	}
	if len(terms[3].Points)+len(terms[4].Points) != len(p.Terms[2].Points) || len(terms[3].Target) != len(terms[3].Points) {
		t.Errorf("data split %d + %d points, want %d", len(terms[3].Points), len(terms[4].Points), len(p.Terms[2].Points))
	}
	p.Terms = terms
	m, err := NewModel(p, nn.New([]int{2, 8, 8, 1}, nn.Tanh, rand.New(rand.NewPCG(1, 1))), "single", "split")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.N) != 5 || m.N[0] != len(terms[0].Points) || m.N[4] != len(terms[4].Points) {
		t.Errorf("beta groups N = %v", m.N)
	}
}

// Known noise: the held beta never moves, and the other hyperparameters are
// set as if the held group were not there. With one alpha and one free
// beta, tying the groups (Adam on the summed gradient, MacKay pooled over
// the free groups) must then change nothing, to the bit. In the final
// rounds alpha reaches MacKay's fixed point with beta held.
func TestStudyKnownNoise(t *testing.T) {
	p, err := pde.New("heat", pde.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, up := range []Updater{UpdaterAdam, UpdaterMacKay} {
		s := Settings{Seed: 1, Epochs: 1500, HyperStart: 500, BetaMode: "split", Updater: up, Recipe: RecipePaper,
			KnownNoise: map[string]float64{"boundary": 1e-3}}
		f, err := Train(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		s.UntieAt = s.Epochs + 1
		g, err := Train(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		b := slices.Index(f.Model.BetaNames, "beta_boundary")
		for _, h := range append(f.History, g.History...) {
			if std := 1e-3; h.Beta[b] != 1/(std*std) {
				t.Fatalf("%s: beta_boundary %g at epoch %d: want it held at 1/0.001^2", up, h.Beta[b], h.Epoch)
			}
		}
		if f.Beta[1-b] == s.Beta0 || f.Hyper.Steps == 0 {
			t.Errorf("%s: beta_pde never moved (%g)", up, f.Beta[1-b])
		}
		if !slices.Equal(f.Model.Net.W, g.Model.Net.W) || !slices.Equal(f.Alpha, g.Alpha) || !slices.Equal(f.Beta, g.Beta) {
			t.Errorf("%s: tied and untied differ: alpha %v / %v, beta %v / %v", up, f.Alpha, g.Alpha, f.Beta, g.Beta)
		}
	}
	r, err := pde.New("regression", pde.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Train(context.Background(), r, Settings{Seed: 1, Epochs: 3000, HyperStart: 1000, KnownNoise: map[string]float64{"beta": 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	if std := 0.05; f.Status != StatusOK || f.Beta[0] != 1/(std*std) {
		t.Fatalf("status %s, beta %g: want ok and beta held at 400", f.Status, f.Beta[0])
	}
	c := f.Curvature()
	alpha, _ := f.Laplace.MacKay(c)
	if r := alpha[0] / f.Alpha[0]; math.Abs(r-1) > 5*f.Settings.FinalTol {
		t.Errorf("alpha %.6g, MacKay's fixed point with beta held %.6g", f.Alpha[0], alpha[0])
	}
}

// The Gauss-Newton polish leaves w at the minimum of E_T to well within the
// posterior's width (the Newton step A^-1 grad, in units of each weight's
// posterior std, is negligible: the Laplace expansion point is right), as
// low as L-BFGS's in far fewer iterations, and its matrix is the Laplace
// approximation's A.
func TestStudyGaussNewtonPolish(t *testing.T) {
	p, err := pde.New("heat", pde.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := Settings{Seed: 2, Epochs: 3000, HyperStart: 1000, Recipe: RecipePaper, Polish: true}
	gnS, lbS := base, base
	gnS.PolishMethod, lbS.PolishMethod = PolishGaussNewton, PolishLBFGS
	gn, err := Train(context.Background(), p, gnS)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := Train(context.Background(), p, lbS)
	if err != nil {
		t.Fatal(err)
	}
	if gn.Status != StatusOK || lb.Status != StatusOK {
		t.Fatalf("statuses %s (%s), %s (%s)", gn.Status, gn.Reason, lb.Status, lb.Reason)
	}
	t.Logf("E_T after Gauss-Newton %.10g (%d iterations), after L-BFGS %.10g (%d iterations)",
		gn.Polish.F, gn.Polish.Iterations, lb.Polish.F, lb.Polish.Iterations)
	if gn.Polish.F > lb.Polish.F*(1+1e-9) || 2*gn.Polish.Iterations > lb.Polish.Iterations {
		t.Errorf("Gauss-Newton: E_T %.10g in %d iterations; L-BFGS %.10g in %d: want as low in half the iterations",
			gn.Polish.F, gn.Polish.Iterations, lb.Polish.F, lb.Polish.Iterations)
	}
	P := gn.Model.NumWeights()
	grad := make([]float64, P)
	gn.lossAndGrad(grad)
	var step mat.VecDense
	if err := gn.Laplace.Chol.SolveVecTo(&step, mat.NewVecDense(P, grad)); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := 0; i < P; i++ {
		worst = math.Max(worst, math.Abs(step.AtVec(i))/math.Sqrt(gn.Laplace.AInv.At(i, i)))
	}
	t.Logf("Newton step from the polished w: at most %.3g posterior std", worst)
	if worst > 1e-3 {
		t.Errorf("Newton step A^-1 grad from the polished w is %.3g posterior std: not at the minimum", worst)
	}
	h := mat.NewSymDense(P, nil)
	gn.gaussNewtonMatrix()(h)
	var a mat.SymDense
	gn.Laplace.Chol.ToSym(&a)
	if !mat.EqualApprox(h, &a, 1e-9*mat.Norm(&a, math.Inf(1))) {
		t.Error("the polish's Gauss-Newton matrix is not the Laplace approximation's A")
	}
}
