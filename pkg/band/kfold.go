package band

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// The K-fold check: the user's own measurements, given once (WithData:
// no new ones at any draw), turned into a check of the band in both
// directions. Each fold of a Measured term's points is left out in turn
// and the fit refitted without it by the Laplace's linearized refit, one
// Newton step from the trained weights: with Sigma the band's covariance
// of the fold's residuals (J A^-1 J^T) and beta the term's precision, the
// refit's residuals there are (I - beta Sigma)^-1 r and their band's
// covariance Sigma (I - beta Sigma)^-1, exact for the linearized model.
// In the eigenvectors of Sigma (eigenvalues lambda) the refit's residual
// components e_j are independent with variance c^2 v_j + 1/beta,
// v_j = lambda_j / (1 - beta lambda_j), when the band scaled by c is
// right; the likelihood of c over every fold's components gives its
// estimate and a 2-sigma interval (a likelihood ratio of 4). Within a fold
// the components count once each, so errors that move every point the
// same way (one direction of the solution the data fix) count once, not
// once per point. Its cost is one solve of A per measured point and one
// eigendecomposition of each fold's Sigma (n_f^3): milliseconds for
// hundreds of measurements.
const (
	// KFolds is the number of folds (more when a fold would exceed
	// kfoldMaxFold points).
	KFolds = 5
	// KFoldMin is the fewest measurements of an output the check reads.
	KFoldMin = 10
	// KFoldSpan is the widest ratio c_hi / c_lo of the interval of c
	// within which the check calibrates the band: wider, the measurements'
	// noise hides errors of the band's size, and the check says so.
	KFoldSpan    = 4.0
	kfoldMaxFold = 400
)

// kfold is the K-fold check of one output: the estimate of the factor c
// by which the band's sigma should be scaled, its interval [lo, hi], and
// the number of measurements read.
type kfold struct {
	n          int
	c, lo, hi  float64
	components [2][]float64 // e_j and v_j of every fold, pooled
	noise      []float64    // 1/beta of each component's term
}

// informative reports whether the check pins c to within KFoldSpan.
func (k kfold) informative() bool { return k.n >= KFoldMin && k.lo > 0 && k.hi <= KFoldSpan*k.lo }

// factor is the check's factor for a band already scaled by s: c/s where
// s lies below the interval (the band narrower than the measurements
// allow), hi/s where above (the widest band they allow: c may be 0), 1
// where inside; 0 where the check did not run.
func (k kfold) factor(s float64) float64 {
	switch {
	case k.n < KFoldMin:
		return 0
	case s < k.lo:
		return k.c / s
	case s > k.hi:
		return k.hi / s
	}
	return 1
}

// calibrates reports whether the check sized or confirmed a band scaled
// by s: it moved it, or pins c within KFoldSpan.
func (k kfold) calibrates(s float64) bool {
	return k.n >= KFoldMin && (k.informative() || s < k.lo || s > k.hi)
}

// settled is the scale at which the check leaves a band scaled by s:
// s times factor(s), s where the check did not run.
func (k kfold) settled(s float64) float64 {
	if f := k.factor(s); f > 0 {
		return s * f
	}
	return s
}

// sigmaNoise is, at the measurements the check read, the rms sigma of
// the band scaled by s and the rms of the noise 1/beta it takes for
// them. Each component's band variance lambda_j (an eigenvalue of the
// fold's Sigma) is v_j n_j / (n_j + v_j), v_j its refit variance; over
// a fold they sum to Sigma's trace, the band's sigma^2 at its points.
func (k kfold) sigmaNoise(s float64) (sigma, noise float64) {
	var band, nn float64
	for j, v := range k.components[1] {
		n := k.noise[j]
		band += v * n / (n + v)
		nn += n
	}
	m := float64(len(k.noise))
	return s * math.Sqrt(band/m), math.Sqrt(nn / m)
}

// kfoldChecks is the K-fold check of each output of f measured by a
// Measured term, for the band of Laplace l at betas beta, except the
// outputs skip(k) names (those the measurement check sized); a zero kfold
// elsewhere. The folds are drawn from the fit's seed. The band it reads
// is l's, which the caller compares with its own scale of the output
// (widening.valueScale); the local widening is left out.
func kfoldChecks(f *bayes.Fit, l *curv.Laplace, beta []float64, skip func(k int) bool) []kfold {
	p := f.Model.Problem
	out := make([]kfold, len(p.OutputNames()))
	if l == nil || !hasMeasurements(p) {
		return out
	}
	m, _, _ := f.ModelCopy() // a model of its own: the fit's stays untouched
	res, jac := m.TermJacobians()
	P := len(m.Theta)
	rng := rand.New(rand.NewPCG(f.Settings.Seed, 0x6b666f6c64))
	for t, tm := range p.Terms {
		k := m.TermOutput[t]
		b := beta[m.TermGroup[t]]
		n := len(res[t])
		if !tm.Measured || skip(k) || n < KFoldMin || !(b > 0) {
			continue
		}
		folds := max(KFolds, (n+kfoldMaxFold-1)/kfoldMaxFold)
		perm := rng.Perm(n)
		for j := range folds {
			idx := perm[j*n/folds : (j+1)*n/folds]
			e, v, ok := foldComponents(l, jac[t], res[t], idx, P, b)
			if !ok {
				continue
			}
			o := &out[k]
			o.components[0], o.components[1] = append(o.components[0], e...), append(o.components[1], v...)
			for range e {
				o.noise = append(o.noise, 1/b)
			}
			o.n += len(idx)
		}
	}
	for k := range out {
		if out[k].n >= KFoldMin {
			out[k].c, out[k].lo, out[k].hi = scaleInterval(out[k].components[0], out[k].components[1], out[k].noise)
		}
	}
	return out
}

// foldComponents is the linearized refit without the fold idx of a term
// (Jacobian jac, n x P, residuals r, precision b): its residual
// components e_j at the fold in the eigenvectors of the band's covariance
// Sigma there, and their band variances v_j (see the K-fold check); ok is
// false when A cannot be solved or Sigma not decomposed.
func foldComponents(l *curv.Laplace, jac, r []float64, idx []int, P int, b float64) (e, v []float64, ok bool) {
	nf := len(idx)
	J := mat.NewDense(nf, P, nil)
	rf := make([]float64, nf)
	for i, at := range idx {
		J.SetRow(i, jac[at*P:(at+1)*P])
		rf[i] = r[at]
	}
	var Y mat.Dense
	if err := l.Chol.SolveTo(&Y, J.T()); err != nil {
		return nil, nil, false
	}
	var S mat.Dense
	S.Mul(J, &Y)
	sym := mat.NewSymDense(nf, nil)
	for i := range nf {
		for j := i; j < nf; j++ {
			sym.SetSym(i, j, (S.At(i, j)+S.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, nil, false
	}
	var U mat.Dense
	eig.VectorsTo(&U)
	var proj mat.VecDense
	proj.MulVec(U.T(), mat.NewVecDense(nf, rf))
	for j, lam := range eig.Values(nil) {
		lam = math.Max(lam, 0)
		d := 1 - b*lam // > 0: A minus the fold's precision keeps alpha
		if !(d > 0) {
			return nil, nil, false
		}
		e, v = append(e, proj.AtVec(j)/d), append(v, lam/d)
	}
	return e, v, true
}

// scaleInterval is the maximum-likelihood c of components e_j ~ N(0,
// c^2 v_j + n_j) and its interval where twice the log likelihood is
// within 4 of its maximum, on a grid of c from 1e-3 to 1e3 (c below the
// grid counts as 0).
func scaleInterval(e, v, n []float64) (c, lo, hi float64) {
	const steps, from, to = 1200, -3.0, 3.0
	ll := func(c float64) float64 {
		s := 0.0
		for j, ej := range e {
			vv := c*c*v[j] + n[j]
			s -= math.Log(vv) + ej*ej/vv
		}
		return s
	}
	grid := make([]float64, steps+1)
	vals := make([]float64, steps+1)
	best := 0
	for i := range grid {
		grid[i] = math.Pow(10, from+(to-from)*float64(i)/steps)
		if vals[i] = ll(grid[i]); vals[i] > vals[best] {
			best = i
		}
	}
	c, lo, hi = grid[best], math.Inf(1), 0
	if ll(0) >= vals[best] {
		c = 0
	}
	top := math.Max(vals[best], ll(0))
	for i, g := range grid {
		if top-vals[i] <= 4 {
			lo, hi = math.Min(lo, g), math.Max(hi, g)
		}
	}
	if top-ll(0) <= 4 || hi == 0 { // hi 0: only c below the grid is likely
		lo, hi = 0, math.Max(hi, grid[0])
	}
	return c, lo, hi
}
