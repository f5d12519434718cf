// Package curv holds the posterior precision of the evidence framework: the
// dense Laplace approximation of a fit (Laplace), and what a hyperparameter
// step needs from
//
//	A = sum_t beta_t J_t^T J_t + diag(alpha_g(k))
//
// (J_t the N_t x P Jacobian of beta group t's residuals, g(k) the alpha group
// of weight k): ln|A|, tr(A^-1 H_t) per beta group (H_t = J_t^T J_t, giving
// gamma_t), the trace of A^-1 over each alpha group (giving gamma_i), and for
// the Occam factors of the log evidence tr((A^-1 H_t)^2) and tr((A^-1 P_i)^2).
// Hyper turns these into E_hyp, its gradient, the effective parameters,
// MacKay's update and the log evidence.
//
// # The dense Laplace
//
// Laplace is A factorized and inverted with every quantity of the evidence
// and the band's variances g^T A^-1 g. NewLaplace builds it for a fit from
// the data Hessians H_t themselves (Hessians: exact ones too, and
// parameters in no alpha group), and the Dense structure below from the
// J_t; the two differ only in how A and tr(A^-1 H_t) are formed (A^-1 H_t
// from the H_t, or W = L^-1 J_t^T, cheaper while N_t < P), and share the
// factorization, A^-1, ln|A|, the alpha traces and NotPositiveDefinite.
// A and the beta traces are summed in other orders, so the two agree to
// round-off (about 1e-9 relative at a fit), not to the bit; a fit's records
// come from NewLaplace up to bayes.DenseLimit weights. Above it,
// NewDualLaplace gives the same Laplace for the Gauss-Newton A through the
// N x N matrix of the Woodbury identity and the LQ factors of the
// residual Jacobian (lqDual), exact while N < P; where it does not fit,
// NewLowRankLaplace gives it from the leading Ritz pairs of the
// prior-whitened Gauss-Newton matrix (Lanczos), approximate, in the same
// LQ form; AutoLaplace chooses.
//
// # Structures
//
// Structures (Kind), by cost for N residuals, P weights:
//
//   - Dense: A formed and factorized, O(N P^2 + P^3), memory O(P^2). The
//     reference.
//   - Dual: Woodbury through the N x N matrix I + Jb D^-1 Jb^T (Jb the
//     beta-weighted stacked Jacobian): exact, O(N^2 P + N^3); for N < P.
//   - Diag: A replaced by its diagonal (the diagonal of the Gauss-Newton
//     matrix plus alpha), O(N P).
//   - LastLayer: the output layer's block of A exact and dense, every other
//     weight diagonal (block-diagonal A), O(N P + N L^2 + L^3).
//   - Layers: every layer's block of A exact and dense (block-diagonal A by
//     layer), O(N sum L_l^2 + sum L_l^3).
//   - LowRank: the Gauss-Newton matrix G = sum beta J^T J by k steps of
//     Lanczos (matrix-vector products J^T(J v), fully reorthogonalized) as
//     U Lambda U^T, plus the diagonal G lost by it, plus alpha; the rank-k
//     Woodbury identity then gives every quantity, O(k N P + k^2 P).
//   - Stochastic: Hutchinson's estimator for the traces, stochastic Lanczos
//     quadrature for ln|A| from the same Jacobi-preconditioned conjugate
//     gradient runs (one per Rademacher probe), O(probes steps N P).
//
// Kronecker-factored blocks (K-FAC) are not offered: they factor a layer's
// block as the Kronecker product of the layer's input and output-gradient
// second moments, which holds for a loss of the network output alone. A
// PINN residual mixes u with its input derivatives (u_t + u u_x - nu u_xx),
// whose Jacobian rows are sums of several such products per point, so the
// single Kronecker factorization is an approximation of unknown quality;
// Layers gives the exact per-layer blocks that K-FAC would approximate.
//
// The Jacobians are held explicitly (N x P, row-major); the matrix-free
// structures use them only through products J v and J^T u, never forming A.
// Diag needs of them only their column squares, which System.ColSquares
// may give instead, summed a block of rows at a time (AddColSquares).
package curv

import (
	"fmt"
	"math"
)

// Kind names a curvature structure.
type Kind string

// The structures (see the package comment).
const (
	Dense      Kind = "dense"
	Dual       Kind = "dual"
	Diag       Kind = "diag"
	LastLayer  Kind = "last-layer"
	Layers     Kind = "layers"
	LowRank    Kind = "lowrank"
	Stochastic Kind = "stochastic"
)

// Kinds lists the structures.
func Kinds() []Kind { return []Kind{Dense, Dual, Diag, LastLayer, Layers, LowRank, Stochastic} }

// ParseKind checks a structure's name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown curvature %q: use one of dense, dual, diag, last-layer, layers, lowrank, stochastic", s)
}

// System is A = sum_t Beta[t] J[t]^T J[t] + diag(Alpha[AlphaOf[k]]).
type System struct {
	P int
	J [][]float64 // per beta group, N_t x P row-major
	// ColSquares, when J is nil, stand for it in the Diag structure, which
	// needs only diag(J_t^T J_t) per beta group (the column sums of
	// squares, P each; AddColSquares sums them a block of rows at a time,
	// without the N x P array). Every other structure needs J.
	ColSquares [][]float64
	Beta       []float64
	Alpha      []float64 // per alpha group
	AlphaOf    []int     // weight -> alpha group
	// Layers are the contiguous weight ranges [lo, hi) of the network's
	// layers in order, the output layer last (LastLayer and Layers use
	// them).
	Layers [][2]int
}

// Rows is N_t.
func (s *System) Rows(t int) int { return len(s.J[t]) / s.P }

// N is the total number of residuals.
func (s *System) N() int {
	n := 0
	for t := range s.J {
		n += s.Rows(t)
	}
	return n
}

// check validates s for a structure that reads the Jacobians.
func (s *System) check() error {
	if s.J == nil && s.ColSquares != nil {
		return fmt.Errorf("curv: System.ColSquares serve the diag structure alone: this one needs the Jacobians (System.J)")
	}
	if err := s.checkPriors(); err != nil {
		return err
	}
	if len(s.J) != len(s.Beta) {
		return fmt.Errorf("curv: %d Jacobians for %d betas", len(s.J), len(s.Beta))
	}
	for t, j := range s.J {
		if len(j)%s.P != 0 {
			return fmt.Errorf("curv: Jacobian %d has %d values, not a multiple of P = %d", t, len(j), s.P)
		}
	}
	return nil
}

// checkDiag validates s for the Diag structure: ColSquares in place of
// J when J is nil.
func (s *System) checkDiag() error {
	if s.J != nil || s.ColSquares == nil {
		return s.check()
	}
	if err := s.checkPriors(); err != nil {
		return err
	}
	if len(s.ColSquares) != len(s.Beta) {
		return fmt.Errorf("curv: %d column-square vectors for %d betas", len(s.ColSquares), len(s.Beta))
	}
	for t, h := range s.ColSquares {
		if len(h) != s.P {
			return fmt.Errorf("curv: column squares %d have %d values, not P = %d", t, len(h), s.P)
		}
	}
	return nil
}

// checkPriors validates P, the alpha groups and every hyperparameter.
func (s *System) checkPriors() error {
	if s.P <= 0 || len(s.AlphaOf) != s.P {
		return fmt.Errorf("curv: %d weights, %d alpha-group indices", s.P, len(s.AlphaOf))
	}
	for _, g := range s.AlphaOf {
		if g < 0 || g >= len(s.Alpha) {
			return fmt.Errorf("curv: alpha group %d of %d", g, len(s.Alpha))
		}
	}
	for _, v := range append(append([]float64(nil), s.Alpha...), s.Beta...) {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("curv: hyperparameter %v: every alpha and beta must be positive and finite", v)
		}
	}
	return nil
}

// alphaDiag is alpha per weight.
func (s *System) alphaDiag() []float64 {
	d := make([]float64, s.P)
	for k, g := range s.AlphaOf {
		d[k] = s.Alpha[g]
	}
	return d
}

// Options choose a structure and its budget.
type Options struct {
	Kind Kind // "" means Dense
	// Squares also computes tr((A^-1 H_t)^2) and tr((A^-1 P_i)^2), which
	// only the Occam factors of the log evidence need (a hyperparameter
	// step does not). LowRank and Stochastic estimate them by Hutchinson.
	Squares bool
	Rank    int     // LowRank: Lanczos steps; 0 means 64 (NewLowRankLaplace: LaplaceRank)
	Probes  int     // Stochastic (and the squares of LowRank): probe vectors; 0 means 16
	Steps   int     // Stochastic: most conjugate-gradient steps per solve; 0 means 200
	Tol     float64 // Stochastic: relative residual ending a solve; 0 means 1e-8
	Seed    uint64  // LowRank and Stochastic: the random start and probes; 0 means 1
}

func (o Options) resolve() Options {
	if o.Kind == "" {
		o.Kind = Dense
	}
	if o.Rank == 0 {
		o.Rank = 64
	}
	if o.Probes == 0 {
		o.Probes = 16
	}
	if o.Steps == 0 {
		o.Steps = 200
	}
	if o.Tol == 0 {
		o.Tol = 1e-8
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// Traces are the quantities of A that the evidence needs. H_t is the
// unweighted J_t^T J_t.
type Traces struct {
	LogDet  float64
	TrAlpha []float64 // tr(A^-1 P_i): the trace of A^-1 over alpha group i
	TrBeta  []float64 // tr(A^-1 H_t)
	// With Options.Squares (else nil):
	TrSqAlpha []float64 // tr((A^-1 P_i)^2) = sum_{a,b in i} (A^-1)_ab^2
	TrSqBeta  []float64 // tr((A^-1 H_t)^2)
	// Products counts the products of a Jacobian with a vector (J v or
	// J^T u), the matrix-free structures' unit of work.
	Products int
	// Solve writes A^-1 b into dst under the structure (for the band
	// sigma^2 = g^T A^-1 g); Stochastic solves by conjugate gradients.
	Solve func(dst, b []float64)
}

// NotPositiveDefinite reports that A, or the small matrix that stands for
// it under Kind's structure, could not be factorized: it holds a NaN or an
// infinity (NonFinite; MinDiag is then the offending value), it is not
// positive definite (MinDiag its least diagonal entry, NaN where the
// structure does not form A), or it factorized but is too ill-conditioned
// to invert in double precision (Cond, a condition number estimate, not
// 0). Every structure reports its failures with it, NewLaplace too.
type NotPositiveDefinite struct {
	Kind      Kind
	MinDiag   float64
	NonFinite bool
	Cond      float64
}

// notPD is the failure of kind's factorization, A's diagonal unknown.
func notPD(kind Kind) NotPositiveDefinite {
	return NotPositiveDefinite{Kind: kind, MinDiag: math.NaN()}
}

// Error says whether A held a non-finite entry, was numerically singular
// or was not positive definite, and by how much where that is known.
func (e NotPositiveDefinite) Error() string {
	switch {
	case e.NonFinite:
		return fmt.Sprintf("A = sum beta H + diag(alpha) holds a non-finite entry (%v)", e.MinDiag)
	case e.Cond != 0:
		return fmt.Sprintf("A = sum beta H + diag(alpha) is numerically singular (condition number %.3g): alphas and betas too far apart for double precision", e.Cond)
	case math.IsNaN(e.MinDiag):
		return fmt.Sprintf("A = sum beta H + diag(alpha) is not positive definite (%s structure)", e.Kind)
	}
	return fmt.Sprintf("A = sum beta H + diag(alpha) is not positive definite (min diagonal %.3g)", e.MinDiag)
}

// Compute returns A's traces under o's structure.
func Compute(s *System, o Options) (*Traces, error) {
	o = o.resolve()
	check := s.check
	if o.Kind == Diag {
		check = s.checkDiag
	}
	if err := check(); err != nil {
		return nil, err
	}
	tr := &Traces{TrAlpha: make([]float64, len(s.Alpha)), TrBeta: make([]float64, len(s.Beta))}
	if o.Squares {
		tr.TrSqAlpha = make([]float64, len(s.Alpha))
		tr.TrSqBeta = make([]float64, len(s.Beta))
	}
	var err error
	switch o.Kind {
	case Dense:
		err = denseTraces(s, tr)
	case Dual:
		err = dual(s, tr)
	case Diag:
		err = blockDiag(s, nil, tr)
	case LastLayer:
		if len(s.Layers) == 0 {
			return nil, fmt.Errorf("curv: last-layer needs System.Layers")
		}
		err = blockDiag(s, s.Layers[len(s.Layers)-1:], tr)
	case Layers:
		if len(s.Layers) == 0 {
			return nil, fmt.Errorf("curv: layers needs System.Layers")
		}
		err = blockDiag(s, s.Layers, tr)
	case LowRank:
		err = lowRank(s, o, tr)
	case Stochastic:
		err = stochastic(s, o, tr)
	default:
		_, err = ParseKind(string(o.Kind))
	}
	if err != nil {
		return nil, err
	}
	return tr, nil
}

// Auto chooses a structure for P weights and N residuals: the dense A up
// to 400 weights, the exact dual form while there are fewer residuals than
// weights (at most 1000), else the diagonal: the approximate structures
// all miss gamma by tens of percent, and the cheapest of them trains no
// worse than the others (docs/curvature.md compares them).
func Auto(P, N int) Kind {
	switch {
	case P <= 400:
		return Dense
	case N < P && N <= 1000: // exact at O(N^2 P + N^3): a second or so
		return Dual
	}
	return Diag
}
