// Package curvstudy measures pkg/curv's curvature structures against the
// dense A = sum_t beta_t J_t^T J_t + diag(alpha) at a fit's weights and
// hyperparameters: the errors of ln|A|, of the effective parameters, of the
// evidence's gradient and value, and of the band (docs/curvature.md). It
// builds on a fit through bayes' public API; pkg/curv cannot import bayes.
//
// It is a study, not part of the library: TestCurvatureTable prints
// docs/curvature.md's table when BPINN_CURV_TABLE names the problems,
//
//	BPINN_CURV_TABLE=heat,burgers go test -count=1 -run TestCurvatureTable -v -timeout 60m ./lab/curvstudy
//
// and skips without it, as TestDualStudy (BPINN_DUAL_STUDY), the dual
// final Laplace against the dense one, and TestLowRankStudy
// (BPINN_LOWRANK_STUDY), the low-rank one; the package's other tests
// are quick.
package curvstudy

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// Row measures one curvature structure against the dense A at a
// fit's final weights and hyperparameters (docs/curvature.md).
type Row struct {
	Options curv.Options
	Seconds float64 // computing the traces (with the squares)
	// Relative errors against the dense computation.
	LogDetA float64 // |ln|A| - dense| / |dense|
	Gamma   float64 // largest over the groups of |gamma - dense| / dense (alpha and beta groups)
	// |grad E_hyp - dense| / |(W_i/2, N_t/2)| (Euclidean over ln alpha, ln
	// beta): relative to the size of the gradient's terms, since at the
	// fixed point the gradient itself is about 0.
	Grad     float64
	LogEv    float64 // |ln Z - dense| / |dense|
	LogEvAbs float64 // ln Z - dense
	Sigma    float64 // median over the points (stochastic above 200 weights: the first 10) of |sigma / sigma_dense - 1|
	Products int     // Jacobian-vector products
	Err      string  // the structure failed (A not positive definite)
}

// Compare evaluates each structure of opts at f's weights and
// hyperparameters with the squares (Occam factors) and compares it with the
// dense computation, the band at points included. f needs a Laplace
// approximation (P <= DenseLimit and A positive definite).
func Compare(f *bayes.Fit, opts []curv.Options, points [][]float64) ([]Row, error) {
	if f.Laplace == nil {
		return nil, fmt.Errorf("fit has no Laplace approximation (status %s): nothing to compare with", f.Status)
	}
	m := f.Model
	loss := lossOf(f)
	sys := system(f)
	ref, err := curv.Compute(sys, curv.Options{Kind: curv.Dense, Squares: true})
	if err != nil {
		return nil, err
	}
	want := curv.Evidence(ref, f.Alpha, f.Beta, loss)
	gradScale := 0.0
	for _, n := range append(slices.Clone(loss.W), loss.N...) {
		gradScale += float64(n*n) / 4
	}
	gradScale = math.Sqrt(gradScale)
	_, J, err := f.Jacobian(points)
	if err != nil {
		return nil, err
	}
	sigmas := func(tr *curv.Traces, n int) []float64 {
		P := m.NumWeights()
		s, x := make([]float64, n), make([]float64, P)
		for i := range s {
			g := J[i*P : i*P+P]
			tr.Solve(x, g)
			s[i] = math.Sqrt(math.Max(0, dot(g, x)))
		}
		return s
	}
	sigRef := sigmas(ref, len(points))
	var rows []Row
	for _, o := range opts {
		o.Squares = true
		start := time.Now()
		tr, err := curv.Compute(sys, o)
		row := Row{Options: o, Seconds: time.Since(start).Seconds()}
		if err != nil {
			row.Err = err.Error()
			rows = append(rows, row)
			continue
		}
		got := curv.Evidence(tr, f.Alpha, f.Beta, loss)
		row.Products = tr.Products
		row.LogDetA = rel(tr.LogDet, ref.LogDet)
		for i := range got.GammaAlpha {
			row.Gamma = math.Max(row.Gamma, rel(got.GammaAlpha[i], want.GammaAlpha[i]))
		}
		for i := range got.GammaBeta {
			row.Gamma = math.Max(row.Gamma, rel(got.GammaBeta[i], want.GammaBeta[i]))
		}
		g, w := append(slices.Clone(got.GradLogAlpha), got.GradLogBeta...), append(slices.Clone(want.GradLogAlpha), want.GradLogBeta...)
		diff := make([]float64, len(g))
		for i := range g {
			diff[i] = g[i] - w[i]
		}
		row.Grad = math.Sqrt(dot(diff, diff)) / gradScale
		row.LogEv, row.LogEvAbs = rel(got.LogEvidence, want.LogEvidence), got.LogEvidence-want.LogEvidence
		if !got.OccamOK {
			row.LogEv, row.LogEvAbs = math.NaN(), math.NaN()
		}
		n := len(points)
		if o.Kind == curv.Stochastic && m.NumWeights() > 200 {
			n = min(n, 10) // a conjugate-gradient solve per point
		}
		sig := sigmas(tr, n)
		ratios := make([]float64, len(sig))
		for i := range sig {
			ratios[i] = math.Abs(sig[i]/sigRef[i] - 1)
		}
		slices.Sort(ratios)
		row.Sigma = ratios[len(ratios)/2]
		rows = append(rows, row)
	}
	return rows, nil
}

// system is the fit's curvature system: its groups' Jacobians at its
// weights, hyperparameters and layers.
func system(f *bayes.Fit) *curv.System {
	m := f.Model
	return &curv.System{P: m.NumWeights(), J: m.GroupJacobians(), Beta: f.Beta, Alpha: f.Alpha, AlphaOf: m.AlphaOf, Layers: m.Layers()}
}

// lossOf is the fit's loss parts at its weights: E_W per alpha group, E_D
// per beta group (at f's betas), the group sizes and Comb.
func lossOf(f *bayes.Fit) curv.Loss {
	m := f.Model
	loss := curv.Loss{EW: make([]float64, len(f.Alpha)), ED: make([]float64, len(f.Beta)), W: m.W(), N: m.N, Comb: bayes.Comb(m.Net.Hidden())}
	m.DataLoss(f.Beta, loss.ED, make([]float64, m.NumWeights()))
	m.WeightLoss(loss.EW)
	return loss
}

// rel is the relative error |got - want| / |want|.
func rel(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
