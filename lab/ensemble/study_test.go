package ensemble_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// studyVars is every variable TestStudy reads and what it sets.
var studyVars = map[string]string{
	"BPINN_STUDY":            "the studies: full, or problems (heat,wave,...)",
	"BPINN_STUDY_N":          "fits per study (default 20)",
	"BPINN_STUDY_SEED":       "first seed (default 1)",
	"BPINN_STUDY_WORKERS":    "fits at once (default one per core)",
	"BPINN_STUDY_OUT":        "a JSONL file, one line per fit",
	"BPINN_STUDY_HESSIAN":    "Settings.Hessian: gauss-newton or exact",
	"BPINN_STUDY_UPDATER":    "Settings.Updater: adam or mackay",
	"BPINN_STUDY_FIXED":      "1: Settings.Fixed.On (Table 3's baseline)",
	"BPINN_STUDY_POLISH":     "1: Settings.Polish.On",
	"BPINN_STUDY_LR":         "Settings.LR",
	"BPINN_STUDY_HYPERLR":    "Settings.Hyper.LR",
	"BPINN_STUDY_ALPHA0":     "Settings.Hyper.Alpha0",
	"BPINN_STUDY_BETA0":      "Settings.Hyper.Beta0",
	"BPINN_STUDY_EPOCHS":     "Settings.Epochs",
	"BPINN_STUDY_FINAL":      "Settings.Final.Rounds",
	"BPINN_STUDY_DECAY":      "Settings.LRDecay",
	"BPINN_STUDY_FIXEDALPHA": "Settings.Fixed.Alpha",
	"BPINN_STUDY_FIXEDBETA":  "Settings.Fixed.Beta",
	"BPINN_STUDY_RECIPE":     "Settings.Recipe: tuned or paper",
	"BPINN_STUDY_HIDDEN":     "Settings.Hidden, e.g. 16,16",
	"BPINN_STUDY_HYPERSTART": "Settings.Hyper.Start",
	"BPINN_STUDY_UNTIE":      "Settings.Hyper.UntieAt",
	"BPINN_STUDY_POLISHITER": "Settings.Polish.Iter",
	"BPINN_STUDY_RESAMPLE":   "Settings.Resample",
	"BPINN_STUDY_NOISEVAR":   "1: problems.Options.NoiseIsVariance (regression noise 0.05 is a variance)",
	"BPINN_STUDY_SAMPLING":   "problems.Options.Sampling: uniform or lhs",
	"BPINN_STUDY_JOIN":       "k: train on k data sets (data seeds 1..k) joined term by term: k times the points",
	"BPINN_STUDY_DIRECT":     "n: capacity check: no PDE, one data term of the exact solution on the problem's n x n grid",
	"BPINN_STUDY_REGION":     "w: split the pde and data terms at |x| = w into near and far beta groups (with split betas)",
}

// studyEnv is the variable k, which must be one of studyVars.
func studyEnv(k string) string {
	if _, ok := studyVars[k]; !ok {
		panic("study_test.go reads " + k + ", which studyVars does not list")
	}
	return os.Getenv(k)
}

// checkStudyEnv fails on a BPINN_STUDY_* variable that studyVars does not
// list: a misspelt knob would otherwise leave its setting at the default.
func checkStudyEnv(t testing.TB) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := studyVars[k]; strings.HasPrefix(k, "BPINN_STUDY") && !ok {
			t.Fatalf("%s is not a variable of the study; they are %s", k, strings.Join(slices.Sorted(maps.Keys(studyVars)), ", "))
		}
	}
}

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

// studyResidualRMS is band.ResidualCheck on the problem's fresh points, with
// the pde and data terms split at |x| = region if region > 0; held is nil
// when no fresh draw matches the fit's terms.
func studyResidualRMS(f *bayes.Fit, region float64) (train, held []float64) {
	q, err := f.Model.Problem.Fresh()
	if err != nil {
		return f.Model.GroupRMS(f.Beta), nil
	}
	if region > 0 {
		q.Terms = splitNear(q.Terms, region)
	}
	d, err := band.NewFreshDraw(q)
	if err == nil {
		train, held, err = band.ResidualCheck(f, d)
	}
	if err != nil { // e.g. BPINN_STUDY_DIRECT: other terms than the fresh draw's
		return f.Model.GroupRMS(f.Beta), nil
	}
	return train, held
}

// studyProblem is the problem of a study with the knobs that change it
// (BPINN_STUDY_JOIN, _REGION, _DIRECT); direct tells that its betas are
// single.
func studyProblem(t testing.TB, problem string, o problems.Options) (p *pde.Problem, direct bool) {
	p, err := problems.New(problem, o)
	if err != nil {
		t.Fatal(err)
	}
	for k := 2; k <= envInt(t, "BPINN_STUDY_JOIN", 1); k++ {
		ok := o
		ok.DataSeed = uint64(k)
		q, err := problems.New(problem, ok)
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
		direct = true
	}
	return p, direct
}

// studyRecordOf is what the study keeps of a fit.
func studyRecordOf(t testing.TB, problem string, f *bayes.Fit) studyRecord {
	r := studyRecord{Problem: problem, Seed: f.Settings.Seed, Status: string(f.Status), Reason: f.Reason,
		Hidden: f.Settings.Hidden, Recipe: string(f.Settings.Recipe), PolishIter: envInt(t, "BPINN_STUDY_POLISHITER", 0),
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
	if f.Status != bayes.StatusDiverged {
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
func gridRatios(f *bayes.Fit, n int) (meanAbs, q50, q90, q95 float64) {
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
	v := studyEnv(k)
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
	v := studyEnv(k)
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
	v := studyEnv(k)
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
func studySettings(t testing.TB) (bayes.Settings, problems.Options) {
	s := bayes.Settings{
		Hessian: bayes.HessianKind(studyEnv("BPINN_STUDY_HESSIAN")),
		Updater: bayes.Updater(studyEnv("BPINN_STUDY_UPDATER")),
		Fixed:   bayes.FixedWeights{On: studyEnv("BPINN_STUDY_FIXED") == "1", Alpha: envFloat(t, "BPINN_STUDY_FIXEDALPHA"), Beta: envFloat(t, "BPINN_STUDY_FIXEDBETA")},
		Polish:  bayes.PolishSettings{On: studyEnv("BPINN_STUDY_POLISH") == "1"},
		LR:      envFloat(t, "BPINN_STUDY_LR"),
		Hyper:   bayes.HyperSteps{LR: envFloat(t, "BPINN_STUDY_HYPERLR"), Alpha0: envFloat(t, "BPINN_STUDY_ALPHA0"), Beta0: envFloat(t, "BPINN_STUDY_BETA0"), Start: envInt(t, "BPINN_STUDY_HYPERSTART", 0), UntieAt: envInt(t, "BPINN_STUDY_UNTIE", 0)},
		Epochs:  envInt(t, "BPINN_STUDY_EPOCHS", 0),
		Final:   bayes.FinalRounds{Rounds: envInt(t, "BPINN_STUDY_FINAL", 0)},
		LRDecay: envFloat(t, "BPINN_STUDY_DECAY"),
		Recipe:  bayes.Recipe(studyEnv("BPINN_STUDY_RECIPE")),
		Hidden:  envInts(t, "BPINN_STUDY_HIDDEN"),
	}
	o := problems.Options{NoiseIsVariance: studyEnv("BPINN_STUDY_NOISEVAR") == "1",
		Sampling: pde.Sampler(studyEnv("BPINN_STUDY_SAMPLING"))}
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
	var ranked []record.Ranked
	var le, errs, covs []float64
	steps, npd, occ := 0, 0, 0
	for _, r := range rs {
		sm.Statuses[r.Status]++
		ranked = append(ranked, record.Ranked{Seed: r.Seed, LogEvidence: r.LogEvidence, Error: r.RelL2})
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
	sm.Rho = record.Spearman(le, errs)
	order := record.Rank(ranked)
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
	which := studyEnv("BPINN_STUDY")
	if which == "" {
		t.Skip("set BPINN_STUDY=full or BPINN_STUDY=heat,wave,... to run the studies")
	}
	names := strings.Split(which, ",")
	if which == "full" {
		names = problems.Names()
	}
	n := envInt(t, "BPINN_STUDY_N", 20)
	first := uint64(envInt(t, "BPINN_STUDY_SEED", 1))
	workers := envInt(t, "BPINN_STUDY_WORKERS", 0)
	s, o := studySettings(t)
	var out *os.File
	if path := studyEnv("BPINN_STUDY_OUT"); path != "" {
		var err error
		if out, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			t.Fatal(err)
		}
		defer out.Close()
	}
	checkStudyEnv(t)
	s.Polish.Iter = envInt(t, "BPINN_STUDY_POLISHITER", 0)
	s.Resample = envInt(t, "BPINN_STUDY_RESAMPLE", 0)
	seeds, err := runner.Seeds(first, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range names {
		p, direct := studyProblem(t, problem, o)
		ps := s
		if direct {
			ps.BetaMode = "single"
		}
		ps = testfit.Scheduled(p, ps)
		var rs []studyRecord
		err := runner.Run(context.Background(), seeds, runner.Options{Workers: workers, Done: func(o runner.Outcome) {
			if o.Err != nil {
				t.Error(o.Err)
				return
			}
			r := studyRecordOf(t, problem, o.Fit)
			rs = append(rs, r)
			if out != nil {
				line, _ := json.Marshal(jsonSafe(r))
				if _, err := fmt.Fprintf(out, "%s\n", line); err != nil {
					t.Error(err)
				} else if err := out.Sync(); err != nil {
					t.Error(err)
				}
			}
		}}, func(ctx context.Context, seed uint64) (*bayes.Fit, error) {
			si := ps
			si.Seed = seed
			return bayes.Train(ctx, p, si)
		})
		if err != nil {
			t.Fatal(err)
		}
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

// TestStudySplitNear checks the near/far split of BPINN_STUDY_REGION: every
// point lands in exactly one part, on the right side, with its target, and
// the model gets one beta per part.
func TestStudySplitNear(t *testing.T) {
	p, err := problems.New("burgers", problems.Options{})
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
	m, err := bayes.NewModel(p, nn.New([]int{2, 8, 8, 1}, nn.Tanh, rand.New(rand.NewPCG(1, 1))), "single", "split")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.N) != 5 || m.N[0] != len(terms[0].Points) || m.N[4] != len(terms[4].Points) {
		t.Errorf("beta groups N = %v", m.N)
	}
}
