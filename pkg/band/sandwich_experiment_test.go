package band

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/internal/dense"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// SandwichPrior is what the sandwich band's B takes of the prior.
type SandwichPrior int

// The prior's parts of B.
const (
	// SandwichNoPrior: B holds the fresh residuals alone.
	SandwichNoPrior SandwichPrior = iota
	// SandwichPriorCurvature adds diag(alpha), the prior's part of A: the
	// prior taken as right, so that B = A where the residuals are.
	SandwichPriorCurvature
	// SandwichPriorScore adds (alpha w)(alpha w)^T, the outer product of
	// the prior's gradient at w_MP, as one more observation.
	SandwichPriorScore
)

// Sandwich returns a copy of f whose Predict gives the misspecification-
// robust (Huber-White) band: the covariance A^-1 B A^-1 of the weights
// instead of the Laplace A^-1, with A the fit's Laplace precision at w_MP
// and B = sum_t (N_t / n_t) beta_t^2 sum_i r_i^2 j_i j_i^T over the fresh
// points i of each beta group t (r_i the residual, j_i = dr_i/dw, n_t the
// group's fresh points, N_t its training points), plus the prior's part
// (SandwichPrior). Where the fresh residuals are what beta states and the
// fresh points' gradients are those of the training points, B is A and
// the band the Laplace band; residuals larger in the directions that move
// u widen it there. It reads the fit and the fresh draw's points and
// measurements, never an exact solution. It is an experiment, not the
// calibrated band: on the paper's problems it is tens to thousands of
// times wider than the errors (docs/calibration.md). As with HeldOut, only
// the copy's predictions are meaningful.
func Sandwich(f *bayes.Fit, fresh FreshDraw, prior SandwichPrior) (*bayes.Fit, error) {
	m2, err := fresh.model(f)
	if err != nil {
		return nil, err
	}
	l, err := sandwichLaplace(f, freshB(f, m2, prior))
	if errors.Is(err, errBNotPD) && prior != SandwichPriorCurvature {
		return nil, fmt.Errorf("%w (fewer independent fresh residuals than weights); add the prior's curvature, SandwichPriorCurvature", err)
	}
	if err != nil {
		return nil, err
	}
	return f.WithBand(f.Beta, l, nil), nil
}

// errBNotPD is the error of a sandwich B that does not factorize.
var errBNotPD = errors.New("sandwich band: B is not positive definite")

// sandwichLaplace is a Laplace approximation whose Cholesky factor is that
// of the sandwich precision A B^-1 A (so that its Sigmas give
// sqrt(g^T A^-1 B A^-1 g)): with B = L_B L_B^T, the R of the QR
// factorization of L_B^-1 A, which never forms the squared matrix. Only
// its Chol, Alpha and Beta are set. B is P x P, row-major.
func sandwichLaplace(f *bayes.Fit, B []float64) (*curv.Laplace, error) {
	if f.Laplace == nil {
		return nil, fmt.Errorf("sandwich band: the fit has no Laplace approximation (status %s)", f.Status)
	}
	P := f.Model.NumWeights()
	b := mat.NewSymDense(P, B)
	var lb mat.Cholesky
	if !lb.Factorize(b) {
		return nil, errBNotPD
	}
	var a mat.SymDense
	f.Laplace.Chol.ToSym(&a)
	var lower mat.TriDense
	lb.LTo(&lower)
	var m mat.Dense
	if err := lower.SolveTo(&m, false, &a); err != nil {
		return nil, fmt.Errorf("sandwich band: %w", err)
	}
	var qr mat.QR
	qr.Factorize(&m)
	var r mat.Dense
	qr.RTo(&r)
	u := mat.NewTriDense(P, mat.Upper, nil)
	for i := range P {
		s := 1.0 // rows of R may be negated (Q absorbs it): a positive diagonal
		if r.At(i, i) < 0 {
			s = -1
		}
		for j := i; j < P; j++ {
			u.SetTri(i, j, s*r.At(i, j))
		}
	}
	l := &curv.Laplace{Alpha: f.Alpha, Beta: f.Beta}
	l.Chol.SetFromU(u)
	return l, nil
}

// freshB is the sandwich band's B from f's model on the fresh points.
func freshB(f *bayes.Fit, fresh *bayes.Model, prior SandwichPrior) []float64 {
	res, jac, scale := freshResiduals(f, fresh)
	return sandwichB(f, res, jac, fresh.TermGroup, scale, prior)
}

// freshResiduals is each term's fresh residuals and Jacobian (f's model on
// the fresh points) and each beta group's scale in B, beta_t^2 N_t / n_t:
// the n_t fresh points of group t stand for its N_t training points.
func freshResiduals(f *bayes.Fit, fresh *bayes.Model) (res, jac [][]float64, scale []float64) {
	res, jac = fresh.TermJacobians()
	scale = make([]float64, len(f.Beta))
	for t, b := range f.Beta {
		scale[t] = b * b * float64(f.Model.N[t]) / float64(fresh.N[t])
	}
	return res, jac, scale
}

// sandwichB is sum_k scale_t(k) sum_i r_i^2 j_i j_i^T over the terms k of
// res and jac (each term's residuals and Jacobian rows, scaled in place;
// group its beta group) plus the prior's part: P x P, row-major, both
// triangles.
func sandwichB(f *bayes.Fit, res, jac [][]float64, group []int, scale []float64, prior SandwichPrior) []float64 {
	P := f.Model.NumWeights()
	B := make([]float64, P*P)
	tmp := make([]float64, P*P)
	for k, r := range res {
		c := math.Sqrt(scale[group[k]])
		rows := jac[k]
		for i, ri := range r {
			s := c * ri
			for j := range rows[i*P : (i+1)*P] {
				rows[i*P+j] *= s
			}
		}
		dense.GaussNewton(nil, tmp, rows, len(r), P)
		for i, v := range tmp {
			B[i] += v
		}
	}
	switch prior {
	case SandwichPriorCurvature:
		for i, gi := range f.Model.AlphaOf {
			if gi >= 0 {
				B[i*P+i] += f.Alpha[gi]
			}
		}
	case SandwichPriorScore:
		g := make([]float64, P)
		for i, gi := range f.Model.AlphaOf {
			if gi >= 0 {
				g[i] = f.Alpha[gi] * f.Model.Theta[i]
			}
		}
		for i := range P {
			for j := range P {
				B[i*P+j] += g[i] * g[j]
			}
		}
	}
	return B
}
