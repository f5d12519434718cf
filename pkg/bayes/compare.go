// The comparison of the paper's section "Comparison with Hybrid Monte
// Carlo": the Laplace approximation of a trained fit against HMC on the same
// posterior exp(-E_T(w)), with alpha and beta held at the fit's values.

package bayes

import (
	"gonum.org/v1/gonum/stat"

	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// NewPotential returns U(w) = E_T(w) = sum_i alpha_i E_w^i + sum_t beta_t
// E_D^t at the fit's alpha and beta, with its gradient, so that exp(-U) is
// the weight posterior up to a constant. Each call compiles its own Model
// on a copy of the network, so the Potentials of different calls may run
// concurrently: f.NewPotential is what HMC's newU wants. The fit itself is
// neither read nor written when the Potential runs.
//
// It panics if f has no Model or if the Model cannot be rebuilt (a Fit from
// Train always can).
func (f *Fit) NewPotential() Potential {
	if f == nil || f.Model == nil {
		panic("bayes: NewPotential: the fit has no Model")
	}
	m := f.Model
	alphaMode, betaMode := f.Settings.AlphaMode, f.Settings.BetaMode
	if alphaMode == "" {
		alphaMode = m.Problem.Defaults.AlphaMode
	}
	if betaMode == "" {
		betaMode = m.Problem.Defaults.BetaMode
	}
	cm, err := NewModel(m.Problem, m.Net.Clone(), alphaMode, betaMode)
	if err != nil {
		panic("bayes: NewPotential: " + err.Error())
	}
	alpha := slices.Clone(f.Alpha)
	beta := slices.Clone(f.Beta)
	ed := make([]float64, len(beta))
	alphaOf := cm.AlphaOf
	return func(w, grad []float64) float64 {
		// The same sums as Fit.lossAndGrad, on the Potential's own Model.
		copy(cm.Net.W, w)
		cm.DataLoss(beta, ed, grad)
		var u float64
		for t, b := range beta {
			u += b * ed[t]
		}
		for k, wk := range w {
			a := alpha[alphaOf[k]]
			u += 0.5 * a * wk * wk
			grad[k] += a * wk
		}
		return u
	}
}

// RegressionIntervals are the intervals where the paper's regression
// problem has data: 12 points in each.
var RegressionIntervals = [][2]float64{{-0.8, -0.3}, {0.3, 0.8}}

// defaultCompareGrid is the number of grid points of CompareHMC.
const defaultCompareGrid = 201

// Comparison is the Laplace approximation of a fit set against HMC on the
// same posterior, point by point on a grid and in a few numbers. Every
// float is finite, so the struct encodes to JSON as it is: a number that is
// undefined (no grid point in a region, no exact solution, an R-hat of a
// constant chain) is a nil pointer, omitted from the JSON.
type Comparison struct {
	Problem string    `json:"problem"`
	Alpha   []float64 `json:"alpha"` // held fixed during HMC
	Beta    []float64 `json:"beta"`  // held fixed during HMC
	// HMC is the resolved sampler settings.
	HMC HMCRun `json:"hmc_settings"`
	// Intervals are the data intervals: a grid point is "inside" if it
	// lies in one of them. For "regression" they are RegressionIntervals;
	// for another 1-D problem, the span of its points.
	Intervals [][2]float64 `json:"data_intervals"`

	// X is the grid; Truth the exact solution on it (nil if the problem
	// has none).
	X     []float64 `json:"x"`
	Truth []float64 `json:"truth,omitempty"`
	// Laplace is the fit's mean (the network at w_MP) and the Laplace
	// standard deviation sqrt(g^T A^-1 g).
	Laplace Band `json:"laplace"`
	// Sampled is the HMC predictive: mean and standard deviation of the
	// network's output over all draws, with the Monte Carlo error of the
	// mean, the bulk ESS and the rank-normalized split R-hat per point.
	Sampled PointSummary `json:"hmc"`

	// MaxGap and MeanGap are the largest and the mean of
	// |mean_Laplace - mean_HMC| / std_HMC over the grid.
	MaxGap  *float64 `json:"max_gap_sigma,omitempty"`
	MeanGap *float64 `json:"mean_gap_sigma,omitempty"`
	// WidthRatio is the mean of sigma_Laplace / std_HMC over the grid
	// points of each region: below 1 the Laplace band is narrower.
	WidthRatio Regions `json:"width_ratio"`
	// Coverage is, per band, the fraction of grid points whose truth lies
	// within 2 standard deviations of the band's mean (empty without an
	// exact solution).
	CoverageLaplace Regions `json:"coverage_laplace"`
	CoverageHMC     Regions `json:"coverage_hmc"`

	Diagnostics Diagnostics `json:"diagnostics"`
}

// HMCRun is the resolved settings of an HMC run.
type HMCRun struct {
	Samples  int    `json:"samples"` // kept per chain
	BurnIn   int    `json:"burn_in"`
	Chains   int    `json:"chains"`
	Leapfrog int    `json:"leapfrog"`
	Seed     uint64 `json:"seed"`
}

// Band is a predictive mean with its standard deviation, per grid point.
type Band struct {
	Mean  []float64 `json:"mean"`
	Sigma []float64 `json:"sigma"`
}

// PointSummary is PredictiveSummary with undefined values (NaN) as nulls.
type PointSummary struct {
	Mean []float64  `json:"mean"`
	Std  []float64  `json:"std"`
	MCSE []*float64 `json:"mcse"`
	ESS  []*float64 `json:"ess"`
	RHat []*float64 `json:"rhat"`
}

// Regions holds a number for the grid points inside the data intervals,
// those outside, and all; nil where the region has no grid point.
type Regions struct {
	Inside  *float64 `json:"inside,omitempty"`
	Outside *float64 `json:"outside,omitempty"`
	All     *float64 `json:"all,omitempty"`
}

// Diagnostics are the sampler's numbers.
type Diagnostics struct {
	// Accept, StepSize and Divergent are per chain (see HMCResult);
	// BurnInDivergent counts the divergences while adapting.
	Accept          []float64 `json:"accept"`
	StepSize        []float64 `json:"step_size"`
	Divergent       []int     `json:"divergent"`
	BurnInDivergent []int     `json:"burn_in_divergent"`
	// MinESS and MaxRHat are the smallest bulk ESS and the largest R-hat
	// of the predictive over the grid. The weights' own R-hat is not
	// reported: the tanh network's sign and permutation symmetries make
	// it meaningless (see docs/hmc.md).
	MinESS  *float64 `json:"min_ess,omitempty"`
	MaxRHat *float64 `json:"max_rhat,omitempty"`
	// Seconds is the wall time of HMC (burn-in and sampling of all chains,
	// not the predictive); Gradients the number of evaluations of U and
	// its gradient, over all chains.
	Seconds   float64 `json:"seconds"`
	Gradients int     `json:"gradients"`
	// PredictiveSeconds is the time to evaluate the network on the grid
	// for every draw and to summarize it (ESS and R-hat per point).
	PredictiveSeconds float64 `json:"predictive_seconds"`
	// SamplesPerSecond is kept samples (all chains) per wall second;
	// ESSPerSecond is MinESS per wall second.
	SamplesPerSecond float64  `json:"samples_per_second"`
	ESSPerSecond     *float64 `json:"ess_per_second,omitempty"`
}

// CompareHMC runs HMC on exp(-E_T(w)) with alpha and beta fixed at the
// fit's values, from the fit's weights w_MP (plus the sampler's jitter), and
// compares its predictive with the fit's Laplace band on grid (nil means
// 201 points over the problem's domain). A nil s means HMC's defaults, the
// paper's run. The fit is not modified.
//
// CompareHMC returns an error if the problem is not one-dimensional, if the
// fit has no Laplace approximation (its A was not positive definite), or if
// HMC fails (see HMC).
func CompareHMC(f *Fit, s *HMCSettings, grid []float64) (*Comparison, error) {
	if f == nil || f.Model == nil {
		return nil, errors.New("bayes: CompareHMC: the fit has no Model")
	}
	p := f.Model.Problem
	if p.Dim() != 1 {
		return nil, fmt.Errorf("bayes: CompareHMC: problem %q has %d inputs; the comparison is for 1-D problems", p.Name, p.Dim())
	}
	if f.Laplace == nil {
		return nil, fmt.Errorf("bayes: CompareHMC: the fit has no Laplace approximation (status %s: %s)", f.Status, f.Reason)
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	if grid == nil {
		pts, _ := p.Grid(defaultCompareGrid)
		grid = make([]float64, len(pts))
		for i, x := range pts {
			grid[i] = x[0]
		}
	}
	if len(grid) == 0 {
		return nil, errors.New("bayes: CompareHMC: the grid is empty; pass nil for the default")
	}
	points := make([][]float64, len(grid))
	for i, x := range grid {
		points[i] = []float64{x}
	}

	c := &Comparison{
		Problem: p.Name,
		Alpha:   slices.Clone(f.Alpha),
		Beta:    slices.Clone(f.Beta),
		HMC: HMCRun{Samples: cfg.samples, BurnIn: cfg.burnIn, Chains: cfg.chains,
			Leapfrog: cfg.leapfrog, Seed: cfg.seed},
		Intervals: dataIntervals(f),
		X:         slices.Clone(grid),
	}
	if p.Exact != nil {
		c.Truth = make([]float64, len(grid))
		for i, x := range points {
			c.Truth[i] = p.Exact(x)
		}
	}
	if c.Laplace.Mean, c.Laplace.Sigma, err = f.Predict(points); err != nil {
		return nil, err
	}

	// Each chain counts its own gradients; HMC waits for the chains, so
	// the counts are read after they are written.
	var counts []*int
	newU := func() Potential {
		u := f.NewPotential()
		n := new(int)
		counts = append(counts, n)
		return func(w, grad []float64) float64 {
			*n++
			return u(w, grad)
		}
	}
	start := time.Now()
	res, err := HMC(newU, f.Model.Net.W, s)
	if err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()

	start = time.Now()
	pred := res.Predictive(len(grid), newGridEval(f, grid))
	c.Diagnostics.PredictiveSeconds = time.Since(start).Seconds()
	c.Sampled = PointSummary{Mean: pred.Mean, Std: pred.Std,
		MCSE: finitePtrs(pred.MCSE), ESS: finitePtrs(pred.ESS), RHat: finitePtrs(pred.RHat)}

	inside := make([]bool, len(grid))
	for i, x := range grid {
		for _, iv := range c.Intervals {
			if x >= iv[0] && x <= iv[1] {
				inside[i] = true
			}
		}
	}
	var gaps []float64
	ratio := make([]float64, len(grid))
	for i := range grid {
		sd := pred.Std[i]
		if sd > 0 {
			gaps = append(gaps, math.Abs(c.Laplace.Mean[i]-pred.Mean[i])/sd)
			ratio[i] = c.Laplace.Sigma[i] / sd
		} else {
			ratio[i] = math.NaN()
		}
	}
	if len(gaps) > 0 {
		c.MaxGap = finitePtr(slices.Max(gaps))
		c.MeanGap = finitePtr(stat.Mean(gaps, nil))
	}
	c.WidthRatio = regionMeans(ratio, inside)
	if c.Truth != nil {
		covL := make([]float64, len(grid))
		covH := make([]float64, len(grid))
		for i, u := range c.Truth {
			covL[i] = within(u, c.Laplace.Mean[i], 2*c.Laplace.Sigma[i])
			covH[i] = within(u, pred.Mean[i], 2*pred.Std[i])
		}
		c.CoverageLaplace = regionMeans(covL, inside)
		c.CoverageHMC = regionMeans(covH, inside)
	}

	d := &c.Diagnostics
	d.Accept, d.StepSize = res.Accept, res.StepSize
	d.Divergent, d.BurnInDivergent = res.Divergent, res.BurnInDivergent
	d.MinESS = extremum(pred.ESS, slices.Min)
	d.MaxRHat = extremum(pred.RHat, slices.Max)
	d.Seconds = secs
	for _, n := range counts {
		d.Gradients += *n
	}
	if secs > 0 {
		d.SamplesPerSecond = float64(cfg.chains*cfg.samples) / secs
		if d.MinESS != nil {
			d.ESSPerSecond = finitePtr(*d.MinESS / secs)
		}
	}
	return c, nil
}

// dataIntervals returns RegressionIntervals for the regression problem and
// the span of the points otherwise.
func dataIntervals(f *Fit) [][2]float64 {
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

// newGridEval returns f(w, out) = the network with weights w on grid, for
// HMCResult.Predictive: one compiled program, fed by copying w into the
// buffer it is bound to.
func newGridEval(f *Fit, grid []float64) func(w, out []float64) {
	net := f.Model.Net.Clone()
	g := ad.NewGraph()
	x := g.Input("x", len(grid), 1)
	ps := net.Params(g)
	u := net.Apply(ps, x)
	prog := g.Compile(u)
	prog.Set(x, grid)
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
		return finitePtr(s[k] / float64(n[k]))
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
	return finitePtr(pick(ok))
}

// finitePtr returns &v, or nil if v is NaN or ±Inf.
func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// finitePtrs maps finitePtr over x.
func finitePtrs(x []float64) []*float64 {
	out := make([]*float64, len(x))
	for i, v := range x {
		out[i] = finitePtr(v)
	}
	return out
}
