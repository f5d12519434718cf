package posterior

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// NewLogDensity returns ln p(w | D, alpha, beta) = -E_T(w) + const (w is
// Model.Theta: the weights, then the unknowns on their inferred scale), with
// E_T = sum_i alpha_i E_w^i + sum_t beta_t E_D^t at the fit's alpha and
// beta, and its gradient. Each call compiles its own Model on a copy of
// the network, so the densities of different calls may run concurrently:
// func() mcmc.LogDensity { return NewLogDensity(f) } is what mcmc.Sample's newDensity wants. The fit itself
// is neither read nor written when the density runs.
//
// It panics if f has no Model or if the Model cannot be rebuilt (a Fit from
// Train always can).
func NewLogDensity(f *bayes.Fit) mcmc.LogDensity {
	cm, alpha, beta := f.ModelCopy()
	ed := make([]float64, len(beta))
	return func(w, grad []float64) float64 {
		u := totalLoss(cm, w, grad, alpha, beta, ed, nil)
		negate(grad)
		return -u
	}
}

// NewJointLogDensity returns the density of x = (w, ln alpha_1..C,
// ln beta_1..T) given the data, with flat priors on the logs (the
// framework's: p(alpha) ∝ 1/alpha, whose Jacobian alpha cancels it):
//
//	ln p(x) = -E_T(w) + sum_i (W_i/2) ln alpha_i + sum_t (N_t/2) ln beta_t + const,
//
// the normalizers of p(w|alpha) and p(D|w,beta). Its maximum over the
// hyperparameters with w integrated out is the evidence's optimum; sampled,
// the marginals of ln alpha and ln beta are what the Occam widths
// sigma_ln_alpha, sigma_ln_beta approximate. See NewLogDensity for
// concurrency and panics.
func NewJointLogDensity(f *bayes.Fit) mcmc.LogDensity {
	cm, alpha, beta := f.ModelCopy()
	ed := make([]float64, len(beta))
	ew := make([]float64, len(alpha))
	nw := len(cm.Theta) // the weights and the unknowns, then the logs
	W := cm.W()
	return func(x, grad []float64) float64 {
		la, lb := x[nw:nw+len(alpha)], x[nw+len(alpha):]
		for i, v := range la {
			alpha[i] = math.Exp(v)
		}
		for t, v := range lb {
			beta[t] = math.Exp(v)
		}
		lp := -totalLoss(cm, x[:nw], grad[:nw], alpha, beta, ed, ew)
		negate(grad[:nw])
		for i, v := range la {
			lp += float64(W[i]) / 2 * v
			grad[nw+i] = float64(W[i])/2 - alpha[i]*ew[i]
		}
		for t, v := range lb {
			lp += float64(cm.N[t]) / 2 * v
			grad[nw+len(alpha)+t] = float64(cm.N[t])/2 - beta[t]*ed[t]
		}
		return lp
	}
}

// negate flips the sign of every entry of x.
func negate(x []float64) {
	for i, v := range x {
		x[i] = -v
	}
}

// totalLoss returns E_T(w) at alpha and beta and writes dE_T/dw into grad,
// E_D^t into ed and, if ew is not nil, E_w^i into ew: the same sums as
// Fit.lossAndGrad, on m's own network.
func totalLoss(m *bayes.Model, w, grad, alpha, beta, ed, ew []float64) float64 {
	copy(m.Theta, w)
	m.DataLoss(beta, ed, grad)
	var u float64
	for t, b := range beta {
		u += b * ed[t]
	}
	clear(ew)
	for k, wk := range w {
		i := m.AlphaOf[k]
		if i < 0 { // a flat-prior unknown adds nothing
			continue
		}
		a := alpha[i]
		u += 0.5 * a * wk * wk
		grad[k] += a * wk
		if ew != nil {
			ew[i] += 0.5 * wk * wk
		}
	}
	return u
}

// RegressionIntervals are the intervals where the paper's regression
// problem has data: 12 points in each.
var RegressionIntervals = [][2]float64{{-0.8, -0.3}, {0.3, 0.8}}

// Default grids of CompareHMC: points per side.
const (
	defaultCompareGrid   = 201 // 1-D
	defaultCompareGrid2D = 21  // 2-D: 21 x 21
)

// Comparison is the Laplace approximation of a fit set against a sampler
// on the same posterior, point by point on a grid and in a few numbers.
// Every float is finite, so the struct encodes to JSON as it is: a number
// that is undefined (no grid point in a region, no exact solution, an
// R-hat of a constant chain) is a nil pointer, omitted from the JSON.
type Comparison struct {
	Problem string    `json:"problem"`
	Alpha   []float64 `json:"alpha"` // the fit's; held fixed unless Hyper
	Beta    []float64 `json:"beta"`  // the fit's; held fixed unless Hyper
	// HMC is the resolved sampler settings.
	HMC HMCRun `json:"hmc_settings"`
	// Intervals are the data intervals of a 1-D problem: a grid point is
	// "inside" if it lies in one of them. For "regression" they are
	// RegressionIntervals; for another 1-D problem, the span of its
	// points. On more dimensions every grid point is inside.
	Intervals [][2]float64 `json:"data_intervals,omitempty"`

	// X is the grid of a 1-D problem; Points the grid of any (one row per
	// point); Truth the exact solution on it (nil if the problem has none).
	X      []float64   `json:"x,omitempty"`
	Points [][]float64 `json:"points,omitempty"`
	Truth  []float64   `json:"truth,omitempty"`
	// Laplace is the fit's mean (the network at w_MP) and the Laplace
	// standard deviation sqrt(g^T A^-1 g).
	Laplace Band `json:"laplace"`
	// Sampled is the sampled predictive: mean and standard deviation of
	// the network's output over all draws, with the Monte Carlo error of
	// the mean, the bulk and tail ESS and the rank-normalized split R-hat
	// per point.
	Sampled PointSummary `json:"hmc"`

	// MaxGap and MeanGap are the largest and the mean of
	// |mean_Laplace - mean_sampled| / sd_sampled over the grid.
	MaxGap  *float64 `json:"max_gap_sigma,omitempty"`
	MeanGap *float64 `json:"mean_gap_sigma,omitempty"`
	// WidthRatio is the mean of sigma_Laplace / sd_sampled over the grid
	// points of each region: below 1 the Laplace band is narrower.
	WidthRatio Regions `json:"width_ratio"`
	// Coverage is, per band, the fraction of grid points whose truth lies
	// within 2 standard deviations of the band's mean (empty without an
	// exact solution).
	CoverageLaplace Regions `json:"coverage_laplace"`
	CoverageHMC     Regions `json:"coverage_hmc"`
	// Calibrated is the record's calibrated band (band.Calibrated at the
	// problem's fresh draw, which never reads the exact solution) around
	// the fit's mean, with its WidthRatioCalibrated (sigma_calibrated /
	// sd_sampled) and CoverageCalibrated beside the Laplace band's: the
	// sampled posterior is the reference both bands approximate. Nil
	// unless CompareOptions.Calibrated.
	Calibrated           *Band    `json:"calibrated,omitempty"`
	WidthRatioCalibrated *Regions `json:"width_ratio_calibrated,omitempty"`
	CoverageCalibrated   *Regions `json:"coverage_calibrated,omitempty"`

	// Hyper compares the sampled ln alpha and ln beta with the evidence's
	// optimum (with SampleHyper only).
	Hyper *HyperComparison `json:"hyper,omitempty"`

	Diagnostics Diagnostics `json:"diagnostics"`

	// Draws is the sampler's run the comparison summarizes, every draw in
	// the weights' coordinates (whitened runs mapped back; ln alpha and
	// ln beta after the parameters with SampleHyper) with its ln p: for
	// diagnostics of one's own, such as the weights' R-hat in a form the
	// network's symmetries leave unchanged. Not in the JSON.
	Draws *mcmc.Result `json:"-"`
}

// HMCRun is the resolved settings of a sampler run.
type HMCRun struct {
	Sampler      string  `json:"sampler"` // "nuts" or "hmc"
	Metric       string  `json:"metric"`  // "diag", "dense" or "unit"
	Samples      int     `json:"samples"` // kept per chain
	BurnIn       int     `json:"burn_in"`
	Chains       int     `json:"chains"`
	Leapfrog     int     `json:"leapfrog,omitempty"`  // HMC
	MaxDepth     int     `json:"max_depth,omitempty"` // NUTS
	TargetAccept float64 `json:"target_accept"`
	Seed         uint64  `json:"seed"`
	SampleHyper  bool    `json:"sample_hyper,omitempty"`
	// Whiten: the sampler ran in the fit's Laplace-whitened coordinates
	// (CompareOptions.Whiten).
	Whiten bool `json:"whiten,omitempty"`
	// Temperatures is the ladder of parallel tempering, if any
	// (mcmc.Settings.Temperatures).
	Temperatures []float64 `json:"temperatures,omitempty"`
}

// Band is a predictive mean with its standard deviation, per grid point.
type Band struct {
	Mean  []float64 `json:"mean"`
	Sigma []float64 `json:"sigma"`
}

// PointSummary is the predictive's mcmc.Summary per point, undefined
// values (NaN) as nulls.
type PointSummary struct {
	Mean    []float64  `json:"mean"`
	Std     []float64  `json:"std"`
	MCSE    []*float64 `json:"mcse"`
	ESS     []*float64 `json:"ess"` // bulk
	TailESS []*float64 `json:"tail_ess"`
	RHat    []*float64 `json:"rhat"`
}

// Regions holds a number for the grid points inside the data intervals,
// those outside, and all; nil where the region has no grid point.
type Regions struct {
	Inside  *float64 `json:"inside,omitempty"`
	Outside *float64 `json:"outside,omitempty"`
	All     *float64 `json:"all,omitempty"`
}

// HyperComparison is, per hyperparameter, its sampled marginal against
// the evidence framework's point estimate and Occam width.
type HyperComparison struct {
	Alpha []HyperMarginal `json:"alpha"`
	Beta  []HyperMarginal `json:"beta"`
}

// HyperMarginal is one hyperparameter h (an alpha or a beta group).
type HyperMarginal struct {
	Name string `json:"name"`
	// Evidence is ln h at the fit (the evidence's optimum, as far as the
	// fit's updates reached it); Occam is the width sigma_ln_h of the
	// paper's formula (nil where its argument is not positive).
	Evidence float64  `json:"ln_evidence_optimum"`
	Occam    *float64 `json:"occam_sigma"`
	// Mean, SD, MCSE, ESS and RHat summarize the sampled ln h; Z is
	// (Mean - Evidence) / Occam, the gap in Occam widths.
	Mean float64  `json:"mean"`
	SD   float64  `json:"sd"`
	MCSE *float64 `json:"mcse,omitempty"`
	ESS  *float64 `json:"ess,omitempty"`
	RHat *float64 `json:"rhat,omitempty"`
	Z    *float64 `json:"gap_occam_sigma,omitempty"`
}

// Diagnostics are the sampler's numbers.
type Diagnostics struct {
	// Per chain: the mean accept statistic, the step size after warm-up,
	// the divergent kept draws and those during warm-up, the mean tree
	// depth and the draws at MaxDepth (NUTS), the mean leapfrog steps per
	// draw, and E-BFMI (nil if undefined).
	Accept          []float64  `json:"accept"`
	StepSize        []float64  `json:"step_size"`
	Divergent       []int      `json:"divergent"`
	BurnInDivergent []int      `json:"burn_in_divergent"`
	TreeDepth       []float64  `json:"tree_depth,omitempty"`
	AtMaxDepth      []int      `json:"at_max_depth,omitempty"`
	Leapfrog        []float64  `json:"leapfrog"`
	EBFMI           []*float64 `json:"ebfmi"`
	// SwapAccept is, with tempering, per chain the accepted fraction of
	// the exchanges proposed between adjacent temperatures.
	SwapAccept [][]float64 `json:"swap_accept,omitempty"`
	// MinESS, MinTailESS and MaxRHat are the smallest bulk and tail ESS
	// and the largest R-hat of the predictive over the grid. The weights'
	// own R-hat is not reported: the tanh network's sign and permutation
	// symmetries make it meaningless (see docs/hmc.md).
	MinESS     *float64 `json:"min_ess,omitempty"`
	MinTailESS *float64 `json:"min_tail_ess,omitempty"`
	MaxRHat    *float64 `json:"max_rhat,omitempty"`
	// Seconds is the wall time of the sampler (warm-up and sampling of all
	// chains, not the predictive); Gradients the number of evaluations of
	// the density and its gradient, over all chains.
	Seconds   float64 `json:"seconds"`
	Gradients int     `json:"gradients"`
	// PredictiveSeconds is the time to evaluate the network on the grid
	// for every draw and to summarize it (ESS and R-hat per point).
	PredictiveSeconds float64 `json:"predictive_seconds"`
	// SamplesPerSecond is kept draws (all chains) per wall second;
	// ESSPerSecond and ESSPerGradient are MinESS per wall second and per
	// 1000 gradients.
	SamplesPerSecond float64  `json:"samples_per_second"`
	ESSPerSecond     *float64 `json:"ess_per_second,omitempty"`
	ESSPerKGradient  *float64 `json:"ess_per_1000_gradients,omitempty"`
}

// CompareOptions are the options of CompareHMC.
type CompareOptions struct {
	// Grid holds the points of the comparison, one row each; nil means
	// 201 points over a 1-D domain, 21 x 21 over a 2-D one.
	Grid [][]float64
	// SampleHyper, if true, samples ln alpha and ln beta jointly with the
	// weights (Fit.NewJointLogDensity) instead of holding them at the
	// fit's values, and fills Comparison.Hyper.
	SampleHyper bool
	// Whiten, if true, samples in the coordinates z = L^T (w - w_MP) of
	// the fit's Laplace precision A = L L^T (the metric adapted in warm-up
	// starts from A^-1 instead of the identity); the draws are mapped back
	// to w. The posterior is the same (a linear map); where it is close
	// to the Laplace Gaussian it is about a standard normal in z. The
	// hyperparameters of SampleHyper are not transformed.
	Whiten bool
	// Calibrated, if true, sets the calibrated band beside the Laplace one
	// (Comparison.Calibrated); the problem must have fresh points
	// (pde.Problem.Fresh).
	Calibrated bool
}

// CompareHMC samples the posterior exp(-E_T(w)) with alpha and beta fixed
// at the fit's values (or jointly with them, see CompareOptions), from the
// fit's weights w_MP (plus the sampler's jitter), and compares the sampled
// predictive with the fit's Laplace band on a grid. Zero fields of s (or a
// nil s) take DefaultSampler's values: NUTS tuned for these posteriors.
// The fit is not modified.
//
// CompareHMC returns an error if the problem has more than 2 inputs and no
// grid is given, if the fit has no Laplace approximation (its A was not
// positive definite), or if the sampler fails (see mcmc.Sample).
func CompareHMC(ctx context.Context, f *bayes.Fit, s *mcmc.Settings, o *CompareOptions) (*Comparison, error) {
	if f == nil || f.Model == nil {
		return nil, errors.New("posterior: CompareHMC: the fit has no Model")
	}
	if o == nil {
		o = &CompareOptions{}
	}
	p := f.Model.Problem
	if err := oneField(p); err != nil {
		return nil, fmt.Errorf("posterior: CompareHMC: %w", err)
	}
	if f.Laplace == nil {
		return nil, fmt.Errorf("posterior: CompareHMC: the fit has no Laplace approximation (status %s: %s)", f.Status, f.Reason)
	}
	var given mcmc.Settings
	if s != nil {
		given = *s
	}
	ds := DefaultSampler(given)
	s = &ds
	rs := s.Resolved()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	points, err := comparePoints(p, o.Grid)
	if err != nil {
		return nil, err
	}
	c, inside := newComparison(f, rs, o, points)
	if c.Laplace.Mean, c.Laplace.Sigma, err = f.Predict(points); err != nil {
		return nil, err
	}
	if o.Calibrated {
		if c.Calibrated, err = calibratedBand(f, points); err != nil {
			return nil, err
		}
	}
	res, secs, err := sampleFit(ctx, f, s, o)
	if err != nil {
		return nil, err
	}

	start := time.Now()
	eval := newGridEval(f, points)
	nw := len(f.Model.Net.W) // the network's weights come first in Theta
	pred := res.Predictive(len(points), func(x, out []float64) { eval(x[:nw], out) })
	c.Diagnostics.PredictiveSeconds = time.Since(start).Seconds()
	c.Sampled = pointSummary(pred)
	if o.SampleHyper {
		c.Hyper = hyperComparison(f, res)
	}
	c.compareBands(pred, inside)
	c.Diagnostics = diagnostics(res, pred, secs, c.Diagnostics.PredictiveSeconds)
	c.Draws = res
	return c, nil
}

// comparePoints are the points of the comparison: grid, or the default
// grid of a 1-D or 2-D problem.
func comparePoints(p *pde.Problem, grid [][]float64) ([][]float64, error) {
	points := grid
	if points == nil {
		switch p.Dim() {
		case 1:
			points, _ = p.Grid(defaultCompareGrid)
		case 2:
			points, _ = p.Grid(defaultCompareGrid2D)
		default:
			return nil, fmt.Errorf("posterior: CompareHMC: problem %q has %d inputs; pass a grid", p.Name, p.Dim())
		}
	}
	if len(points) == 0 {
		return nil, errors.New("posterior: CompareHMC: the grid is empty; pass nil for the default")
	}
	return points, nil
}

// newComparison is the comparison's description of the run, the points
// (as X and the data's intervals for a 1-D problem) and the truth, and
// which points are inside the data (all of them beyond 1-D).
func newComparison(f *bayes.Fit, rs mcmc.Settings, o *CompareOptions, points [][]float64) (c *Comparison, inside []bool) {
	p := f.Model.Problem
	c = &Comparison{
		Problem: p.Name,
		Alpha:   slices.Clone(f.Alpha),
		Beta:    slices.Clone(f.Beta),
		HMC: HMCRun{Sampler: string(rs.Sampler), Metric: string(rs.Metric), Samples: rs.Samples,
			BurnIn: rs.Warmup, Chains: rs.Chains, TargetAccept: rs.TargetAccept, Seed: rs.Seed,
			SampleHyper: o.SampleHyper, Whiten: o.Whiten, Temperatures: rs.Temperatures},
		Points: points,
	}
	if rs.Sampler == mcmc.HMC {
		c.HMC.Leapfrog = rs.Leapfrog
	} else {
		c.HMC.MaxDepth = rs.MaxDepth
	}
	inside = make([]bool, len(points))
	if p.Dim() == 1 {
		c.Intervals = dataIntervals(f)
		c.X = make([]float64, len(points))
		for i, x := range points {
			c.X[i] = x[0]
			for _, iv := range c.Intervals {
				if x[0] >= iv[0] && x[0] <= iv[1] {
					inside[i] = true
				}
			}
		}
		c.Points = nil
	} else {
		for i := range inside {
			inside[i] = true
		}
	}
	if p.Exact != nil {
		c.Truth = make([]float64, len(points))
		for i, x := range points {
			c.Truth[i] = p.Exact(x)
		}
	}
	return c, inside
}

// sampleFit runs the sampler from the fit's weights (and hyperparameters
// with SampleHyper; in whitened coordinates with Whiten) and returns the
// draws in the weights' coordinates and the sampler's wall time.
func sampleFit(ctx context.Context, f *bayes.Fit, s *mcmc.Settings, o *CompareOptions) (res *mcmc.Result, secs float64, err error) {
	newDensity, x0 := func() mcmc.LogDensity { return NewLogDensity(f) }, slices.Clone(f.Model.Theta)
	if o.SampleHyper {
		newDensity = func() mcmc.LogDensity { return NewJointLogDensity(f) }
		for _, a := range f.Alpha {
			x0 = append(x0, math.Log(a))
		}
		for _, b := range f.Beta {
			x0 = append(x0, math.Log(b))
		}
	}
	var toX func(z []float64)
	if o.Whiten {
		newDensity, toX = whitened(f, newDensity)
		clear(x0[:len(f.Model.Theta)]) // z = 0 is w_MP
	}
	start := time.Now()
	res, err = mcmc.Sample(ctx, newDensity, x0, s)
	if err != nil {
		return nil, 0, err
	}
	secs = time.Since(start).Seconds()
	if toX != nil {
		mapDraws(res, toX)
	}
	return res, secs, nil
}

// compareBands sets the gaps between the means, the ratio of the widths
// and the coverage of the truth, inside the data and outside.
func (c *Comparison) compareBands(pred []mcmc.Summary, inside []bool) {
	var gaps []float64
	for i, ps := range pred {
		if ps.SD > 0 {
			gaps = append(gaps, math.Abs(c.Laplace.Mean[i]-ps.Mean)/ps.SD)
		}
	}
	if len(gaps) > 0 {
		c.MaxGap = record.Num(slices.Max(gaps))
		c.MeanGap = record.Num(stat.Mean(gaps, nil))
	}
	var covL *Regions
	c.WidthRatio, covL = c.against(c.Laplace, pred, inside)
	if c.Truth != nil {
		covH := make([]float64, len(pred))
		for i, u := range c.Truth {
			covH[i] = within(u, pred[i].Mean, 2*pred[i].SD)
		}
		c.CoverageLaplace, c.CoverageHMC = *covL, regionMeans(covH, inside)
	}
	if c.Calibrated != nil {
		ratio, cov := c.against(*c.Calibrated, pred, inside)
		c.WidthRatioCalibrated, c.CoverageCalibrated = &ratio, cov
	}
}

// against compares band b with the sampled predictive pred: b's sigma over
// the sampled sd and, where the truth is known, b's 2-sigma coverage of
// it (else nil), each averaged by region.
func (c *Comparison) against(b Band, pred []mcmc.Summary, inside []bool) (ratio Regions, coverage *Regions) {
	r := make([]float64, len(pred))
	for i, ps := range pred {
		r[i] = b.Sigma[i] / ps.SD // NaN or Inf where SD is 0: regionMeans leaves it out
	}
	if c.Truth == nil {
		return regionMeans(r, inside), nil
	}
	cov := make([]float64, len(pred))
	for i, u := range c.Truth {
		cov[i] = within(u, b.Mean[i], 2*b.Sigma[i])
	}
	rc := regionMeans(cov, inside)
	return regionMeans(r, inside), &rc
}

// calibratedBand is the calibrated band of f at points, around the fit's
// mean (the calibrated band changes sigma only): band.Calibrated at the
// problem's own fresh draw, as a record computes it.
func calibratedBand(f *bayes.Fit, points [][]float64) (*Band, error) {
	fresh, err := band.FreshDrawOf(f.Model.Problem)
	if err != nil {
		return nil, fmt.Errorf("posterior: CompareHMC: no calibrated band: %w", err)
	}
	cf, err := band.Calibrated(f, fresh)
	if err != nil {
		return nil, fmt.Errorf("posterior: CompareHMC: no calibrated band: %w", err)
	}
	mean, sigma, err := cf.Predict(points)
	if err != nil {
		return nil, err
	}
	return &Band{Mean: mean, Sigma: sigma}, nil
}

// mapDraws applies to, in place, to every draw of res.
func mapDraws(res *mcmc.Result, to func(x []float64)) {
	for c := range res.Draws {
		for i := range res.Len() {
			to(res.Sample(c, i))
		}
	}
}

// pointSummary is the predictive's summaries as a PointSummary.
func pointSummary(pred []mcmc.Summary) PointSummary {
	n := len(pred)
	ps := PointSummary{Mean: make([]float64, n), Std: make([]float64, n), MCSE: make([]*float64, n),
		ESS: make([]*float64, n), TailESS: make([]*float64, n), RHat: make([]*float64, n)}
	for i, s := range pred {
		ps.Mean[i], ps.Std[i] = s.Mean, s.SD
		ps.MCSE[i], ps.ESS[i] = record.Num(s.MCSE), record.Num(s.BulkESS)
		ps.TailESS[i], ps.RHat[i] = record.Num(s.TailESS), record.Num(s.RHat)
	}
	return ps
}

// diagnostics gathers the per-chain and predictive diagnostics of a run.
func diagnostics(res *mcmc.Result, pred []mcmc.Summary, secs, predSecs float64) Diagnostics {
	d := Diagnostics{Seconds: secs, PredictiveSeconds: predSecs, Gradients: res.Gradients()}
	nuts := res.Sampler == mcmc.NUTS
	for i := range res.Chains {
		ch := &res.Chains[i]
		d.Accept = append(d.Accept, ch.MeanAccept())
		d.StepSize = append(d.StepSize, ch.StepSize)
		d.Divergent = append(d.Divergent, ch.Divergences())
		d.BurnInDivergent = append(d.BurnInDivergent, ch.WarmupDivergent)
		var lf float64
		for _, l := range ch.Leapfrog {
			lf += float64(l) / float64(len(ch.Leapfrog))
		}
		d.Leapfrog = append(d.Leapfrog, lf)
		d.EBFMI = append(d.EBFMI, record.Num(ch.EBFMI()))
		if ch.SwapAccept != nil {
			d.SwapAccept = append(d.SwapAccept, ch.SwapAccept)
		}
		if nuts {
			d.TreeDepth = append(d.TreeDepth, ch.MeanTreeDepth())
			d.AtMaxDepth = append(d.AtMaxDepth, ch.AtMaxDepth(slices.Max(ch.TreeDepth)))
		}
	}
	bulk, tail, rhat := make([]float64, len(pred)), make([]float64, len(pred)), make([]float64, len(pred))
	for i, s := range pred {
		bulk[i], tail[i], rhat[i] = s.BulkESS, s.TailESS, s.RHat
	}
	d.MinESS = extremum(bulk, slices.Min)
	d.MinTailESS = extremum(tail, slices.Min)
	d.MaxRHat = extremum(rhat, slices.Max)
	if secs > 0 {
		d.SamplesPerSecond = float64(len(res.Chains)*res.Len()) / secs
		if d.MinESS != nil {
			d.ESSPerSecond = record.Num(*d.MinESS / secs)
			d.ESSPerKGradient = record.Num(*d.MinESS / float64(d.Gradients) * 1000)
		}
	}
	return d
}

// hyperComparison summarizes the sampled ln alpha and ln beta, the last
// coordinates of res, against the fit's values and Occam widths.
func hyperComparison(f *bayes.Fit, res *mcmc.Result) *HyperComparison {
	nw := len(f.Model.Theta) // the logs follow the weights and the unknowns
	l := f.Laplace
	marginal := func(j int, name string, at float64, lnSigma float64, ok bool) HyperMarginal {
		s := mcmc.Summarize(res.Trace(nil, j))
		h := HyperMarginal{Name: name, Evidence: math.Log(at), Mean: s.Mean, SD: s.SD,
			MCSE: record.Num(s.MCSE), ESS: record.Num(s.BulkESS), RHat: record.Num(s.RHat)}
		if ok {
			h.Occam = record.Num(math.Exp(lnSigma))
			h.Z = record.Num((s.Mean - h.Evidence) / math.Exp(lnSigma))
		}
		return h
	}
	hc := &HyperComparison{}
	for i, a := range f.Alpha {
		hc.Alpha = append(hc.Alpha, marginal(nw+i, f.Model.Alphas[i].Name, a, l.LnSigmaAlpha[i], l.OccamArgAlpha[i] > 0))
	}
	for t, b := range f.Beta {
		hc.Beta = append(hc.Beta, marginal(nw+len(f.Alpha)+t, f.Model.BetaNames[t], b, l.LnSigmaBeta[t], l.OccamArgBeta[t] > 0))
	}
	return hc
}

// dataIntervals returns RegressionIntervals for the regression problem and
// the span of the points otherwise.
func dataIntervals(f *bayes.Fit) [][2]float64 {
	p := f.Model.Problem
	if p.Name == "regression" {
		return slices.Clone(RegressionIntervals)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range p.Terms {
		for _, x := range t.Points {
			lo, hi = math.Min(lo, x[0]), math.Max(hi, x[0])
		}
	}
	return [][2]float64{{lo, hi}}
}

// newGridEval returns f(w, out) = the network with weights w at points,
// for mcmc.Result.Predictive: one compiled program, fed by copying w into
// the buffer it is bound to.
func newGridEval(f *bayes.Fit, points [][]float64) func(w, out []float64) {
	net := f.Model.Net.Clone()
	g := ad.NewGraph()
	x := g.Input("x", len(points), len(points[0]))
	ps := net.Params(g)
	u := net.Apply(ps, x)
	if u.Shape().Cols == 1 { // the field, as Predict gives it (the transforms were checked when the model was built)
		if t, err := f.Model.Problem.TransformOutput(0, u, x); err == nil {
			u = t
		}
	}
	prog := g.Compile(u)
	prog.Set(x, slices.Concat(points...))
	ps.Bind(prog, net.W)
	return func(w, out []float64) {
		copy(net.W, w)
		prog.Run()
		copy(out, prog.Value(u))
	}
}

// within returns 1 if |u - m| <= width, else 0.
func within(u, m, width float64) float64 {
	if math.Abs(u-m) <= width {
		return 1
	}
	return 0
}

// regionMeans averages the finite values of x inside, outside and over all.
func regionMeans(x []float64, inside []bool) Regions {
	var s [3]float64
	var n [3]int
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		r := 1
		if inside[i] {
			r = 0
		}
		s[r] += v
		n[r]++
		s[2] += v
		n[2]++
	}
	avg := func(k int) *float64 {
		if n[k] == 0 {
			return nil
		}
		return record.Num(s[k] / float64(n[k]))
	}
	return Regions{Inside: avg(0), Outside: avg(1), All: avg(2)}
}

// extremum returns pick over the finite values of x, or nil if none.
func extremum(x []float64, pick func([]float64) float64) *float64 {
	var ok []float64
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ok = append(ok, v)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	return record.Num(pick(ok))
}

// DefaultSampler returns s with CompareHMC's defaults filled in where s
// leaves a field zero. For NUTS (the default sampler): a diagonal metric,
// target acceptance 0.98, tree depth up to 12, 4 chains of 400 draws after
// 500 warm-up iterations. The regression posterior needs the high target
// and the depth: where a hidden unit's output weight is near zero its input
// weights are free, elsewhere they are pinned, a funnel whose narrow end
// diverges at Stan's 0.8 (6% of the draws; 0.6% at 0.95, at most 0.06% at
// 0.98) and whose length takes 2000-4000 leapfrog steps per draw; 400 draws
// give a bulk ESS of 670-1000 on the predictive (docs/hmc.md). For static HMC:
// the paper's run, 15000 samples after 1000 burn-in iterations, 20
// leapfrog steps, target 0.8.
func DefaultSampler(s mcmc.Settings) mcmc.Settings {
	or := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	if s.Sampler == "" {
		s.Sampler = mcmc.NUTS
	}
	if s.Metric == "" {
		s.Metric = mcmc.Diag
	}
	if s.Sampler == mcmc.HMC {
		or(&s.Samples, 15000)
		return s
	}
	or(&s.Samples, 400)
	if !s.NoWarmup {
		or(&s.Warmup, 500)
	}
	or(&s.MaxDepth, 12)
	if s.TargetAccept == 0 {
		s.TargetAccept = 0.98
	}
	return s
}
