package posterior

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// SampledUnknown is an unknown's marginal posterior from samples of the
// joint posterior of the weights and the unknowns, beside the Laplace one.
type SampledUnknown struct {
	Name string `json:"name"`
	// Mean and SD of the samples on the inferred scale (ln for a positive
	// unknown); Lo95 and Hi95 their 2.5 % and 97.5 % quantiles mapped to
	// the natural scale.
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	Lo95 float64 `json:"lo95"`
	Hi95 float64 `json:"hi95"`
	// ESS and TailESS are the bulk and tail effective sample sizes, RHat
	// the rank-normalized split R-hat of the unknown's chains.
	ESS     float64 `json:"ess"`
	TailESS float64 `json:"tail_ess"`
	RHat    float64 `json:"rhat"`
	// Laplace is the fit's Gaussian marginal of the same unknown.
	Laplace score.Unknown `json:"-"`
}

// UnknownsMetric is SampleUnknowns' metric where its settings leave it
// zero: on heat-inverse, in coordinates whitened by |H|, the dense metric's
// chains mixed better than the diagonal one's (docs/inverse.md).
const UnknownsMetric = mcmc.Dense

// sampleJoint draws from the density started at x0: the one call into the
// sampler, kept apart so that a change of sampler changes this function
// alone.
func sampleJoint(ctx context.Context, newDensity func() mcmc.LogDensity, x0 []float64, s *mcmc.Settings) (*mcmc.Result, error) {
	return mcmc.Sample(ctx, newDensity, x0, s)
}

// SampleUnknowns samples the joint posterior exp(-E_T(w, theta)) of the
// weights and the unknowns (theta on the inferred scale) at the fit's alpha
// and beta, from the fit's mode, and returns each unknown's marginal with
// the Laplace one beside it: where the two agree, the Laplace interval is
// the posterior's (docs/inverse.md). It returns the sampler's result too
// (diagnostics, its draws mapped back to the parameters). A zero Metric of
// s is UnknownsMetric; other zero fields take DefaultSampler's values.
// whiten names the Hessian of E_T whose precision whitens (below): Exact
// (also for "") or GaussNewton. It is an error for a fit without unknowns
// or without a Laplace approximation, or for another whiten.
//
// The sampler runs in whitened coordinates z, parameters = mode + L^-T z
// with L L^T the precision: for Exact |H|, the exact Hessian at the mode
// with its eigenvalues in absolute value (exactPrecision), for GaussNewton
// the fit's A. The posterior is exactly the same (a linear map, a constant
// Jacobian); its scales, which differ by 1e10 when a beta sits at the
// clamp, are about 1 where it is close to the Gaussian of that precision.
// The Gauss-Newton A leaves out the residuals' second derivatives, which a
// beta at the clamp multiplies: on heat-inverse the exact Hessian in A's
// coordinates has eigenvalues from -838 to 857, and E_T one unit out
// rises 1e6 times more than A predicts; in |H|'s coordinates 1e3 times.
// Neither converges there yet (docs/inverse.md).
func SampleUnknowns(ctx context.Context, f *bayes.Fit, s *mcmc.Settings, whiten bayes.HessianKind) ([]SampledUnknown, *mcmc.Result, error) {
	lap := f.Unknowns()
	if len(lap) == 0 {
		return nil, nil, fmt.Errorf("problem %q has no unknown coefficients to sample", f.Model.Problem.Name)
	}
	if f.Laplace == nil {
		return nil, nil, fmt.Errorf("the fit has no Laplace approximation (status %s): nothing to start from", f.Status)
	}
	var set mcmc.Settings
	if s != nil {
		set = *s
	}
	if set.Metric == "" {
		set.Metric = UnknownsMetric
	}
	set = DefaultSampler(set)
	var L *mat.TriDense
	var err error
	switch whiten {
	case bayes.Exact, "":
		if L, _, err = exactPrecision(f); err != nil {
			return nil, nil, err
		}
	case bayes.GaussNewton:
		L = new(mat.TriDense)
		f.Laplace.Chol.LTo(L)
	default:
		return nil, nil, fmt.Errorf("unknown whitening %q: use %s or %s", whiten, bayes.Exact, bayes.GaussNewton)
	}
	newDensity, toTheta := whitenedBy(f, L, func() mcmc.LogDensity { return NewLogDensity(f) })
	res, err := sampleJoint(ctx, newDensity, make([]float64, len(f.Model.Theta)), &set)
	if err != nil {
		return nil, nil, err
	}
	mapDraws(res, toTheta)
	nw := f.Model.Net.NumWeights()
	out := make([]SampledUnknown, len(lap))
	var tr [][]float64
	for k, l := range lap {
		tr = res.Trace(tr, nw+k)
		var all []float64
		for _, c := range tr {
			all = append(all, c...)
		}
		mean, sd := stat.MeanStdDev(all, nil)
		slices.Sort(all)
		u := f.Model.Problem.Unknowns[k]
		out[k] = SampledUnknown{Name: l.Name, Mean: mean, SD: sd,
			Lo95: score.UnknownNatural(u, stat.Quantile(0.025, stat.Empirical, all, nil)),
			Hi95: score.UnknownNatural(u, stat.Quantile(0.975, stat.Empirical, all, nil)),
			ESS:  mcmc.BulkESS(tr), TailESS: mcmc.TailESS(tr), RHat: mcmc.RankRHat(tr), Laplace: l}
	}
	return out, res, nil
}

// whitened returns a log density in the coordinates z of SampleUnknowns
// (one per chain, with its own buffers) and the map z -> x, in place: the
// first len(Theta) coordinates are parameters = mode + L^-T z with A = L
// L^T the fit's Laplace precision; the coordinates after them (CompareHMC's
// ln alpha, ln beta) pass through unchanged. newLP is the density of x
// (func() mcmc.LogDensity { return NewLogDensity(f) }, func() mcmc.LogDensity { return NewJointLogDensity(f) }).
func whitened(f *bayes.Fit, newLP func() mcmc.LogDensity) (newDensity func() mcmc.LogDensity, toX func(z []float64)) {
	var L mat.TriDense
	f.Laplace.Chol.LTo(&L)
	return whitenedBy(f, &L, newLP)
}

// whitenedBy is whitened with any lower-triangular factor L of a positive
// definite precision (the Laplace A, or exactPrecision's |H|).
func whitenedBy(f *bayes.Fit, L *mat.TriDense, newLP func() mcmc.LogDensity) (newDensity func() mcmc.LogDensity, toX func(z []float64)) {
	lt := L.RawTriangular()
	mode := slices.Clone(f.Model.Theta)
	P := len(mode)
	toX = func(z []float64) {
		blas64.Trsv(blas.Trans, lt, blas64.Vector{N: P, Data: z[:P], Inc: 1}) // L^T x = z
		for j, m := range mode {
			z[j] += m
		}
	}
	newDensity = func() mcmc.LogDensity {
		lp := newLP()
		var x []float64
		return func(z, grad []float64) float64 {
			x = append(x[:0], z...)
			toX(x)
			v := lp(x, grad)
			blas64.Trsv(blas.NoTrans, lt, blas64.Vector{N: P, Data: grad[:P], Inc: 1}) // d/dz = L^-1 d/dx
			return v
		}
	}
	return newDensity, toX
}

// exactPrecision returns the lower Cholesky factor L of |H|, H = sum_t
// beta_t H_t + diag(alpha) the exact Hessian of E_T at the fit's
// parameters (H_t by reverse-over-reverse Hessian-vector products), with
// |H| = V max(|Lambda|, floor) V^T from H's eigen-decomposition: where the
// parameters are not an exact minimum H has negative eigenvalues, and |H|
// keeps their scale (as SoftAbs does, Betancourt 2013) with a positive
// definite metric. The floor is the least alpha, the prior's curvature. It
// returns H's eigenvalues too, ascending.
func exactPrecision(f *bayes.Fit) (*mat.TriDense, []float64, error) {
	m := f.Model
	P := m.NumWeights()
	c := &curv.Hessians{AlphaOf: m.AlphaOf, H: make([][]float64, len(f.Beta))}
	for t := range c.H {
		c.H[t] = make([]float64, P*P)
	}
	m.Hessians(bayes.Exact, c.H)
	h := mat.NewSymDense(P, nil)
	curv.BuildA(c, f.Alpha, f.Beta, h)
	var eig mat.EigenSym
	if !eig.Factorize(h, true) {
		return nil, nil, errors.New("the exact Hessian of E_T at the fit's parameters has no eigen-decomposition (not finite?)")
	}
	lambda := eig.Values(nil)
	floor := math.Inf(1)
	for _, a := range f.Alpha {
		floor = math.Min(floor, a)
	}
	if math.IsInf(floor, 1) {
		floor = 1
	}
	// |H| = V diag(max(|lambda|, floor)) V^T = (V S)(V S)^T, S its square root
	var vs mat.Dense
	eig.VectorsTo(&vs)
	for j, l := range lambda {
		col := vs.ColView(j).(*mat.VecDense)
		col.ScaleVec(math.Sqrt(math.Max(math.Abs(l), floor)), col)
	}
	habs := mat.NewSymDense(P, nil)
	habs.SymOuterK(1, &vs)
	var chol mat.Cholesky
	if !chol.Factorize(habs) {
		return nil, nil, errors.New("|H| of the exact Hessian is not positive definite in double precision")
	}
	var L mat.TriDense
	chol.LTo(&L)
	return &L, lambda, nil
}

// String compares the sampled marginal with the Laplace one.
func (s SampledUnknown) String() string {
	l := s.Laplace
	return fmt.Sprintf("%s: HMC mean %.6g sd %.3g, 95%% [%.6g, %.6g] (bulk ESS %.0f, tail ESS %.0f, R-hat %.3f); Laplace %.6g sd %.3g, 95%% [%.6g, %.6g]; sd ratio Laplace/HMC %.3g",
		s.Name, s.Mean, s.SD, s.Lo95, s.Hi95, s.ESS, s.TailESS, s.RHat, l.Theta, l.SD, l.Lo95, l.Hi95, l.SD/s.SD) + truthNote(l.Truth)
}

func truthNote(t *float64) string {
	if t == nil || math.IsNaN(*t) {
		return ""
	}
	return fmt.Sprintf("; truth %.6g", *t)
}
