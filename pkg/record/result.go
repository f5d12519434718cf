package record

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// LogPConvention says which convention Result.LogP and Result.LogEvidence use.
const LogPConvention = "paper: ln p(D|alpha,beta) = -E_hyp, dropping -N/2 ln(2 pi) (given in log_p_const)"

// RunConfig is what a command fixes about a fit apart from its seed: two fits
// with equal RunConfigs and equal seeds give the same Result apart from
// Seconds. An ensemble file holds fits of one RunConfig; resume and merge
// refuse files that mix them.
type RunConfig struct {
	Problem      string             `json:"problem"`
	DataSeed     uint64             `json:"data_seed"`         // problems.Options.DataSeed as resolved by the caller (0: not recorded)
	Sampling     string             `json:"sampling"`          // how the points were drawn (pde.Problem.Sampling; "" in records older than the field: uniform)
	Inputs       []string           `json:"inputs"`            // input names in order
	Outputs      []string           `json:"outputs,omitempty"` // output names in order (pde.Problem.Outputs); absent: one output u
	Params       map[string]float64 `json:"params"`            // the problem's physical parameters (kappa, nu, noise_std)
	Architecture []int              `json:"architecture"`
	Activation   string             `json:"activation"`
	Hessian      string             `json:"hessian"`
	Updater      string             `json:"updater"`
	AlphaMode    string             `json:"alpha_mode"`
	BetaMode     string             `json:"beta_mode"`
	EpochsPlan   int                `json:"epochs_planned"`
	HyperStart   int                `json:"hyper_start"`
	HyperEvery   int                `json:"hyper_every"`
	HistoryEvery int                `json:"history_every"`
	LR           float64            `json:"lr"`
	HyperLR      float64            `json:"hyper_lr"`
	Alpha0       float64            `json:"alpha0"`
	Beta0        float64            `json:"beta0"`
	Fixed        bool               `json:"fixed"`
	FixedAlpha   float64            `json:"fixed_alpha"`
	FixedBeta    float64            `json:"fixed_beta"`
	PolishOn     bool               `json:"polish_requested"`
	// Settings is every field of the resolved bayes.Settings except Seed,
	// Threads and the functions, under one flat key each as settingsKeys
	// lists them (a grouped field as HyperStart for Hyper.Start, Polish for
	// Polish.On, FinalHyper for Final.Rounds), so that settings added later
	// are recorded (and compared on resume and merge) without a schema
	// change.
	Settings map[string]any `json:"settings"`
}

// NewRunConfig returns the configuration a Result of a fit of cfg will
// carry. dataSeed is recorded as given.
func NewRunConfig(cfg bayes.Config, dataSeed uint64) RunConfig {
	p, s := cfg.Problem(), cfg.Settings()
	params := make(map[string]float64, len(p.Params))
	for k, v := range p.Params {
		params[k] = v
	}
	return RunConfig{
		Problem: p.Name, DataSeed: dataSeed, Sampling: string(p.Sampling),
		Inputs:       append([]string(nil), p.Inputs...),
		Params:       params,
		Outputs:      outputsOf(p),
		Architecture: append(append([]int{p.Dim()}, s.Hidden...), len(p.OutputNames())),
		Activation:   string(s.Activation), Hessian: string(s.Hessian), Updater: string(s.Updater),
		AlphaMode: string(s.AlphaMode), BetaMode: string(s.BetaMode),
		EpochsPlan: s.Epochs, HyperStart: s.Hyper.Start, HyperEvery: s.Hyper.Every, HistoryEvery: s.HistoryEvery,
		LR: s.LR, HyperLR: s.Hyper.LR, Alpha0: s.Hyper.Alpha0, Beta0: s.Hyper.Beta0,
		Fixed: s.Fixed.On, FixedAlpha: s.Fixed.Alpha, FixedBeta: s.Fixed.Beta,
		PolishOn: s.Polish.On,
		Settings: settingsMap(s),
	}
}

// outputsOf is the record's output names: nil for the one output u, so
// that such a record is as it always was.
func outputsOf(p *pde.Problem) []string {
	if names := p.OutputNames(); len(names) > 1 || names[0] != pde.DefaultOutput {
		return slices.Clone(names)
	}
	return nil
}

// Equal reports whether two configurations are the same (compared through
// their JSON, so it is exact on every float).
func (c RunConfig) Equal(o RunConfig) bool { return c.Diff(o) == "" }

// Diff names the first field (by JSON name, alphabetically; a setting as
// settings.Name) in which c and o differ, as "name c's value, not o's", or
// returns "" when they are the same. Fields added to the records later
// compare as their older value when absent.
func (c RunConfig) Diff(o RunConfig) string {
	for _, r := range []*RunConfig{&c, &o} {
		if r.Sampling == "" {
			r.Sampling = string(pde.Uniform) // records older than the field
		}
		if r.Settings != nil {
			r.Settings = maps.Clone(r.Settings)
			for k, v := range settingsAddedLater {
				if _, ok := r.Settings[k]; !ok {
					r.Settings[k] = v
				}
			}
		}
	}
	a, err1 := json.Marshal(c)
	b, err2 := json.Marshal(o)
	if err := cmp.Or(err1, err2); err != nil {
		return err.Error()
	}
	if bytes.Equal(a, b) {
		return ""
	}
	return jsonDiff("", a, b)
}

// jsonDiff names the first key of the JSON objects a and b whose values
// differ, descending into the settings object; a value that is not an
// object is named whole.
func jsonDiff(prefix string, a, b []byte) string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return fmt.Sprintf("%s %s, not %s", strings.TrimSuffix(prefix, "."), a, b)
	}
	keys := slices.Sorted(maps.Keys(ma))
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		va, vb := ma[k], mb[k]
		switch {
		case bytes.Equal(va, vb):
		case va == nil || vb == nil:
			return fmt.Sprintf("%s%s %s, not %s", prefix, k, cmp.Or(string(va), "absent"), cmp.Or(string(vb), "absent"))
		case k == "settings" && prefix == "":
			return jsonDiff("settings.", va, vb)
		default:
			return fmt.Sprintf("%s%s %s, not %s", prefix, k, va, vb)
		}
	}
	return ""
}

// GridErrors are the errors of a fit against the exact solution on a grid;
// a field is null when undefined (no exact solution, non-finite prediction,
// or, for coverage, no Laplace approximation).
type GridErrors struct {
	RelL2      *float64 `json:"rel_l2"`
	MSE        *float64 `json:"mse"`
	MaxAbs     *float64 `json:"max_abs"`
	Coverage2S *float64 `json:"coverage_2sigma"` // fraction of grid points with |u - u*| <= 2 sigma
	Points     int      `json:"points"`          // grid points used
	// TestPoints says the errors are at the problem's test points
	// (pde.Problem.TestPoints: PINNacle's, a reference's nodes), not on a
	// grid; absent for a grid.
	TestPoints bool `json:"test_points,omitempty"`
	// The same with the band of band.HeldOut (beta from residuals at fresh
	// points), and its sigma over the evidence's, median over the grid;
	// absent without fresh points or a Laplace approximation.
	Coverage2SHeldOut *float64 `json:"coverage_2sigma_heldout,omitempty"`
	SigmaRatioHeldOut *float64 `json:"sigma_ratio_heldout,omitempty"`
	// Q95 is the 95 % quantile over the grid of |u - u*| / sigma for the
	// paper's band (1.96 for a calibrated Gaussian band); absent without a
	// Laplace approximation.
	Q95 *float64 `json:"q95,omitempty"`
	// The same for the band of band.Calibrated (beta from the training and
	// the fresh residuals, no exact solution used), and its sigma over the
	// paper's, median over the grid; absent without fresh points or a
	// Laplace approximation.
	Coverage2SCalibrated *float64 `json:"coverage_2sigma_calibrated,omitempty"`
	Q95Calibrated        *float64 `json:"q95_calibrated,omitempty"`
	SigmaRatioCalibrated *float64 `json:"sigma_ratio_calibrated,omitempty"`
	// Bands holds every band of the record's "bands" by method name, each
	// scored as above (the held-out and calibrated ones' figures repeat
	// those fields); absent without them.
	Bands map[string]*BandErrors `json:"bands,omitempty"`
	// Outputs holds each output's errors, for a problem of several outputs
	// (pde.Problem.Outputs); the fields above are then over all outputs
	// (rel_l2 is PINNacle's joint L2RE, ||Y - Y*||_F / ||Y*||_F) and
	// Points counts grid points, not values. Absent for one output.
	Outputs map[string]*GridErrors `json:"outputs,omitempty"`
}

// BandErrors are a band's errors on the grid (score.Band): its 2-sigma
// coverage, its q95 of |u - u*| / sigma and its sigma over the paper
// band's, median over the grid; null where undefined.
type BandErrors struct {
	Coverage2S *float64 `json:"coverage_2sigma"`
	Q95        *float64 `json:"q95"`
	SigmaRatio *float64 `json:"sigma_ratio"`
}

// PolishJSON is the L-BFGS polish as recorded.
type PolishJSON struct {
	F0         *float64 `json:"f0"` // E_T before
	F          *float64 `json:"f"`  // E_T after
	Iterations int      `json:"iterations"`
	Evals      int      `json:"evals"`
	Status     string   `json:"status"`
}

// TermData is one loss term's training points as used by the fit.
type TermData struct {
	Name      string      `json:"name"`
	Group     string      `json:"group"`      // the term's group ("pde", "boundary", "data")
	BetaGroup string      `json:"beta_group"` // the beta it is weighted by in this fit
	Points    [][]float64 `json:"points"`     // rows in the order of inputs
	Target    []float64   `json:"target,omitempty"`
	Output    string      `json:"output,omitempty"` // the output a data term measures (pde.Term.Output); absent: the first
}

// HistoryJSON is one recorded epoch; alpha and beta are in the order of
// alpha_names and beta_names.
type HistoryJSON struct {
	Epoch int       `json:"epoch"`
	ET    *float64  `json:"e_t"`
	EHyp  *float64  `json:"e_hyp"` // at the last hyperparameter step; null before the first
	Alpha []float64 `json:"alpha"`
	Beta  []float64 `json:"beta"`
}

// VersionInfo identifies the build that wrote a Result.
type VersionInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"` // module version, "(devel)" for a local build
	Go       string `json:"go"`
	Revision string `json:"vcs_revision,omitempty"`
	Modified bool   `json:"vcs_modified,omitempty"`
}

// String is the build as bpinn version prints it: module, version, the
// VCS revision (and whether the tree was modified) if recorded, and Go's
// version.
func (v VersionInfo) String() string {
	s := v.Module + " " + v.Version
	if v.Revision != "" {
		s += " (" + v.Revision
		if v.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + v.Go
}

// Version reads the running binary's build information.
func Version() VersionInfo {
	v := VersionInfo{Module: "github.com/evidence-pinn/bpinn", Version: "(unknown)", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// Result is the JSON record of one fit (docs/results-schema.md). Every number
// that may be undefined is a pointer and null in JSON, so no NaN or Inf is
// ever written; Status and Reason say why a number is missing. Everything
// except Seconds is a function of the RunConfig and the seed alone.
type Result struct {
	Seed   uint64 `json:"seed"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	Epochs int    `json:"epochs"` // epochs run (the diverging epoch when diverged)
	RunConfig

	AlphaNames []string            `json:"alpha_names"`
	BetaNames  []string            `json:"beta_names"`
	AlphaSizes map[string]int      `json:"alpha_sizes"` // W_i: weights per alpha group
	BetaSizes  map[string]int      `json:"beta_sizes"`  // N_t: residuals per beta group
	Alpha      map[string]*float64 `json:"alpha"`
	Beta       map[string]*float64 `json:"beta"`
	EW         map[string]*float64 `json:"e_w"`
	ED         map[string]*float64 `json:"e_d"`

	LogEvidence    *float64            `json:"log_evidence"` // log_p + sum ln sigma + comb; null unless defined
	LogP           *float64            `json:"log_p"`        // = -e_hyp (see log_p_convention)
	LogPConvention string              `json:"log_p_convention"`
	LogPConst      *float64            `json:"log_p_const"` // -N/2 ln(2 pi), not included in log_p
	EHyp           *float64            `json:"e_hyp"`
	LogDetA        *float64            `json:"log_det_a"`
	LnSigmaAlpha   map[string]*float64 `json:"ln_sigma_alpha"` // null where the Occam argument <= 0
	LnSigmaBeta    map[string]*float64 `json:"ln_sigma_beta"`
	OccamArgAlpha  map[string]*float64 `json:"occam_arg_alpha"`
	OccamArgBeta   map[string]*float64 `json:"occam_arg_beta"`
	OccamOK        bool                `json:"occam_ok"`
	Comb           *float64            `json:"comb"`
	Gamma          *float64            `json:"gamma"` // effective number of parameters
	GammaAlpha     map[string]*float64 `json:"gamma_alpha"`
	GammaBeta      map[string]*float64 `json:"gamma_beta"`

	// LaplaceStructure is the structure the evidence and the band were
	// computed in (curv.Laplace.Kind: dense, or above bayes.DenseLimit
	// dual or lowrank); empty without a Laplace approximation.
	LaplaceStructure string `json:"laplace_structure,omitempty"`
	// LogDetGap bounds what the lowrank structure's ln|A| misses of the
	// Gauss-Newton A's (curv.Laplace.LogDetGap); nil under the others.
	LogDetGap *float64 `json:"log_det_gap,omitempty"`

	// Unknowns are the inferred coefficients of an inverse problem by name
	// (absent for a forward problem).
	Unknowns map[string]UnknownJSON `json:"unknowns,omitempty"`
	// Warnings are Fit.Warnings, what an ok status does not say, and the
	// record's own, found without the exact solution: a 2-sigma band that
	// is likely overconfident (OverconfidentRatio, or else
	// ValueOverconfident) or likely too wide (ValueNarrow).
	Warnings []string `json:"warnings,omitempty"`
	// EvidenceAtClamp says the log evidence was computed with a
	// hyperparameter held at MinHyper or MaxHyper, not at a fixed point.
	EvidenceAtClamp bool `json:"evidence_at_clamp,omitempty"`

	Errors *GridErrors `json:"errors"` // null when the problem has no exact solution
	// ResidualRMS per beta group, at the training points and at fresh ones
	// (band.ResidualCheck); null when the problem has no Fresh.
	ResidualRMS map[string]ResidualRMS `json:"residual_rms"`
	// Bands are the fit's other bands as values (band.Band: the method,
	// its betas, per-output factors and local widening), as the fresh
	// points assessed them (band.Assess); Predict reads them back without
	// assessing again. Absent without fresh points or a Laplace
	// approximation.
	Bands   []band.Band      `json:"bands,omitempty"`
	Hyper   bayes.HyperStats `json:"hyper"`
	Polish  *PolishJSON      `json:"polish,omitempty"`
	Seconds float64          `json:"seconds"`
	Version VersionInfo      `json:"version"`

	Weights *nn.MLP       `json:"weights"` // null when a weight is not finite
	Terms   []TermData    `json:"terms"`
	History []HistoryJSON `json:"history"`
}

func atClamp(v float64) bool { return v <= bayes.MinHyper || v >= bayes.MaxHyper }

// Num returns a pointer to x, or nil when x is NaN or infinite.
func Num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Val returns *p, or NaN for nil.
func Val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func numMap(names []string, xs []float64) map[string]*float64 {
	m := make(map[string]*float64, len(names))
	for i, n := range names {
		if i < len(xs) {
			m[n] = Num(xs[i])
		} else {
			m[n] = nil
		}
	}
	return m
}

func finiteOrZero(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if Num(x) != nil {
			out[i] = x
		}
	}
	return out
}

// NewResult records f with the configuration it was trained with
// (f.Config(), not resolved again). gridN is the grid of the errors: gridN
// x gridN points for problems with two inputs, 2 gridN points for one
// input (so 100 gives the paper's 100x100 grid and 200 points on a line);
// below 1 the record has no errors and a warning saying why. What the
// record holds of the fit is gathered first (its configuration, alpha
// groups, unknowns, and, when its weights are finite, its bands and grid
// errors: band.AssessAndScore), then written into the record.
func NewResult(f *bayes.Fit, gridN int) Result {
	m := f.Model
	c, alphaSizes, unknowns := f.Config(), m.W(), f.Unknowns()
	var weights *nn.MLP
	var a *band.Assessment
	var e *score.Errors
	if !slices.ContainsFunc(m.Net.W, func(w float64) bool { return Num(w) == nil }) {
		weights = m.Net.Clone()
		a, e = band.AssessAndScore(f, gridN)
	}
	r := newResult(f, c, alphaSizes)
	r.Unknowns = unknownsJSON(unknowns)
	if weights != nil {
		r.Weights = weights
		r.setAssessment(a)
		if gridN < 1 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("gridN = %d: no errors on a grid; give gridN >= 1", gridN))
		} else if e != nil {
			r.Errors = recordErrors(*e)
			r.Errors.TestPoints = c.Problem().TestPoints != nil
		}
	}
	r.Terms = termsData(c.Problem(), r.BetaNames, m.TermGroup)
	r.History = historyJSON(f.History)
	return r
}

// newResult is the record of f's own numbers under its configuration c
// (alphaSizes: the weights of each alpha group), with nothing of its
// bands, unknowns, weights, terms or history yet.
func newResult(f *bayes.Fit, c bayes.Config, alphaSizes []int) Result {
	m := f.Model
	cfg, s := NewRunConfig(c, 0), c.Settings()
	alphaNames := make([]string, len(m.Alphas))
	sizes := map[string]int{}
	for i, g := range m.Alphas {
		alphaNames[i] = g.Name
		sizes[g.Name] = alphaSizes[i]
	}
	betaNames := append([]string(nil), m.BetaNames...)
	betaSizes := map[string]int{}
	for t, n := range betaNames {
		betaSizes[n] = m.N[t]
	}
	r := Result{
		Seed: s.Seed, Status: string(f.Status), Reason: f.Reason, Epochs: f.Epochs, RunConfig: cfg,
		AlphaNames: alphaNames, BetaNames: betaNames, AlphaSizes: sizes, BetaSizes: betaSizes,
		Alpha: numMap(alphaNames, f.Alpha), Beta: numMap(betaNames, f.Beta),
		EW: numMap(alphaNames, f.EW), ED: numMap(betaNames, f.ED),
		LogPConvention: LogPConvention,
		Hyper:          f.Hyper, Seconds: f.Seconds, Version: Version(),
		Warnings: slices.Clone(f.Warnings),
		EvidenceAtClamp: f.Laplace != nil && !s.Fixed.On &&
			(slices.ContainsFunc(f.Alpha, atClamp) || slices.ContainsFunc(f.Beta, atClamp)),
	}
	nTotal := 0
	for _, n := range m.N {
		nTotal += n
	}
	r.LogPConst = Num(-float64(nTotal) / 2 * math.Log(2*math.Pi))
	if f.Laplace != nil {
		r.setLaplace(f.Laplace)
	}
	if f.Polish != nil {
		r.Polish = &PolishJSON{F0: Num(f.Polish.F0), F: Num(f.Polish.F), Iterations: f.Polish.Iterations,
			Evals: f.Polish.Evals, Status: f.Polish.Status}
	}
	return r
}

// setLaplace records the Laplace approximation's evidence terms.
func (r *Result) setLaplace(l *curv.Laplace) {
	alphaNames, betaNames := r.AlphaNames, r.BetaNames
	r.EHyp, r.LogP, r.LogDetA = Num(l.EHyp), Num(l.LogP), Num(l.LogDetA)
	r.LaplaceStructure = string(l.Kind)
	if l.Kind == curv.LowRank {
		r.LogDetGap = Num(l.LogDetGap)
	}
	r.Comb, r.Gamma = Num(l.Comb), Num(l.Gamma)
	r.GammaAlpha, r.GammaBeta = numMap(alphaNames, l.GammaAlpha), numMap(betaNames, l.GammaBeta)
	r.OccamArgAlpha, r.OccamArgBeta = numMap(alphaNames, l.OccamArgAlpha), numMap(betaNames, l.OccamArgBeta)
	r.LnSigmaAlpha, r.LnSigmaBeta = numMap(alphaNames, l.LnSigmaAlpha), numMap(betaNames, l.LnSigmaBeta)
	for i, a := range l.OccamArgAlpha { // Laplace writes 0 where undefined
		if !(a > 0) {
			r.LnSigmaAlpha[alphaNames[i]] = nil
		}
	}
	for t, a := range l.OccamArgBeta {
		if !(a > 0) {
			r.LnSigmaBeta[betaNames[t]] = nil
		}
	}
	r.OccamOK = l.OccamOK
	if l.OccamOK {
		r.LogEvidence = Num(l.LogEvidence)
	}
}

// setAssessment records the residuals, the warnings and the bands of a,
// the assessment at the problem's fresh points (nil: none).
func (r *Result) setAssessment(a *band.Assessment) {
	if a == nil {
		return
	}
	r.ResidualRMS = make(map[string]ResidualRMS, len(r.BetaNames))
	for t, n := range r.BetaNames {
		r.ResidualRMS[n] = ResidualRMS{Train: Num(a.Train[t]), Fresh: Num(a.Fresh[t])}
	}
	for _, w := range a.Warnings {
		if !slices.Contains(r.Warnings, w) { // a restored fit carries its record's
			r.Warnings = append(r.Warnings, w)
		}
	}
	for _, b := range a.Bands {
		r.Bands = append(r.Bands, *b)
	}
}

// termsData copies each term's points and targets with its groups and
// beta groups (betaNames[termGroup[i]] for term i).
func termsData(p *pde.Problem, betaNames []string, termGroup []int) []TermData {
	var out []TermData
	for i, t := range p.Terms {
		td := TermData{Name: t.Name, Group: t.Group, Output: t.Output, Points: make([][]float64, len(t.Points)),
			BetaGroup: betaNames[termGroup[i]]}
		for k, x := range t.Points {
			td.Points[k] = append([]float64(nil), x...)
		}
		if t.Target != nil {
			td.Target = append([]float64(nil), t.Target...)
		}
		out = append(out, td)
	}
	return out
}

// historyJSON is the training history as recorded.
func historyJSON(history []bayes.HistoryPoint) []HistoryJSON {
	out := make([]HistoryJSON, len(history))
	for i, h := range history {
		out[i] = HistoryJSON{Epoch: h.Epoch, ET: Num(h.ET), Alpha: finiteOrZero(h.Alpha), Beta: finiteOrZero(h.Beta)}
		if h.EHyp != 0 {
			out[i].EHyp = Num(h.EHyp)
		}
	}
	return out
}

// ErrorsOf is f's errors against the exact solution on the grid of a
// record of gridN (gridN x gridN points; 2 gridN in 1-D), with q95 and the
// held-out and calibrated bands at the fresh points of f's problem: a
// record's "errors" as plain numbers, NaN where undefined (no Laplace
// approximation, no fresh points); with several outputs, over all of them
// and each output's in Outputs. An error when the problem has no exact
// solution, more than two inputs or a prediction that is not finite.
func ErrorsOf(f *bayes.Fit, gridN int) (score.Errors, error) {
	a, _ := band.AssessFresh(f) // nil without fresh points: no other band
	return band.GridErrors(f, a, gridN)
}

// recordErrors is e as a record holds it: null (or absent) where undefined.
func recordErrors(e score.Errors) *GridErrors {
	g := &GridErrors{RelL2: Num(e.RelL2), MSE: Num(e.MSE), MaxAbs: Num(e.MaxAbs), Points: e.GridN}
	if e.Outputs != nil {
		g.Outputs = make(map[string]*GridErrors, len(e.Outputs))
		for name, o := range e.Outputs {
			g.Outputs[name] = recordErrors(o)
		}
	}
	if g.MSE == nil {
		return g
	}
	g.Coverage2S, g.Q95 = Num(e.Coverage2S), Num(e.Q95)
	g.Coverage2SHeldOut, g.SigmaRatioHeldOut = Num(e.Coverage2SHeldOut), Num(e.SigmaRatioHeldOut)
	g.Coverage2SCalibrated, g.Q95Calibrated, g.SigmaRatioCalibrated = Num(e.Coverage2SCalibrated), Num(e.Q95Calibrated), Num(e.SigmaRatioCalibrated)
	for name, b := range e.Bands {
		if g.Bands == nil {
			g.Bands = make(map[string]*BandErrors, len(e.Bands))
		}
		g.Bands[name] = &BandErrors{Coverage2S: Num(b.Coverage2S), Q95: Num(b.Q95), SigmaRatio: Num(b.SigmaRatio)}
	}
	return g
}

// RelL2 returns the grid's relative L2 error, NaN when undefined.
func (r *Result) RelL2() float64 {
	if r.Errors == nil {
		return math.NaN()
	}
	return Val(r.Errors.RelL2)
}

// Coverage returns the grid's 2-sigma coverage, NaN when undefined.
func (r *Result) Coverage() float64 {
	if r.Errors == nil {
		return math.NaN()
	}
	return Val(r.Errors.Coverage2S)
}

// MarshalLine returns r as one JSON line ending in a newline.
func (r *Result) MarshalLine() ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("result of seed %d: %v", r.Seed, err)
	}
	return append(b, '\n'), nil
}

// SameApartFromSeconds reports whether two results are identical in every
// field except Seconds (compared through their JSON, so bitwise on floats).
func SameApartFromSeconds(a, b Result) bool {
	a.Seconds, b.Seconds = 0, 0
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
