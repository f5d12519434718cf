package posterior

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestHeatPosteriorGeometry measures why NUTS finds heat's posterior hard
// (docs/hmc.md, "Sampling on a PDE: heat"), in the coordinates z whitened
// by each fit's A, where the Laplace picture is a standard normal at z = 0:
// the paper's recipe ends where the gradient is not zero and the exact
// Hessian has negative eigenvalues (not a mode); the tuned recipe ends at a
// mode whose exact Hessian is within a factor of 10 of A; but even there
// E_T does not rise as |z|²/2: one Laplace width out along a random
// direction it has risen tens to thousands of times more.
func TestHeatPosteriorGeometry(t *testing.T) {
	t.Parallel()
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, recipe := range []bayes.Recipe{bayes.RecipePaper, bayes.RecipeTuned} {
		f, err := bayes.Train(t.Context(), p, testfit.Scheduled(p, bayes.Settings{Seed: 1, Recipe: recipe}))
		if err != nil || f.Laplace == nil {
			t.Fatalf("%s fit: %v (status %s)", recipe, err, f.Status)
		}
		newZ, _ := whitened(f, func() mcmc.LogDensity { return NewLogDensity(f) })
		lp := newZ()
		P := len(f.Model.Theta)
		z, g := make([]float64, P), make([]float64, P)
		lp(z, g)
		eig := hessianEigen(lp, z)
		t.Logf("%s: alpha %.4g, beta %.4g; at w_MP |grad_z ln p| %.3g, exact Hessian of E_T in z: eigenvalues %.3g .. %.3g",
			recipe, f.Alpha[0], f.Beta[0], floats.Norm(g, 2), eig[0], eig[P-1])
		if recipe == bayes.RecipePaper {
			if !(floats.Norm(g, 2) > 1 && eig[0] < -1) {
				t.Errorf("paper fit: |grad| %.3g, least eigenvalue %.3g: want a point that is not a mode (> 1, < -1)", floats.Norm(g, 2), eig[0])
			}
			continue
		}
		if !(floats.Norm(g, 2) < 1e-2 && eig[0] > 0.5 && eig[P-1] < 20) {
			t.Errorf("tuned fit: |grad| %.3g, eigenvalues %.3g .. %.3g: want a mode with A's curvature within [0.5, 20]", floats.Norm(g, 2), eig[0], eig[P-1])
		}
		rise := rises(lp, P, 1, 8, rand.New(rand.NewPCG(1, 1))) // Laplace: 0.5
		t.Logf("tuned: E_T one Laplace width out along 8 random directions: %.3g .. %.3g above the mode (Gaussian: 0.5)", rise[0], rise[7])
		if !(rise[0] > 5) {
			t.Errorf("tuned fit: E_T rises %.3g one width out, want > 5 (the measured non-Gaussianity)", rise[0])
		}
	}
}

// rises returns -ln p(z) + ln p(0) at n points z at distance radius from 0
// in random directions, ascending: under a standard normal, radius²/2.
func rises(lp mcmc.LogDensity, P int, radius float64, n int, rng *rand.Rand) []float64 {
	z, g := make([]float64, P), make([]float64, P)
	lp0 := lp(z, g)
	out := make([]float64, n)
	for k := range out {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		floats.Scale(radius/floats.Norm(z, 2), z)
		out[k] = lp0 - lp(z, g)
	}
	slices.Sort(out)
	return out
}

// hessianEigen returns the eigenvalues, ascending, of the Hessian of -lp at
// x by central differences of the gradient, symmetrized.
func hessianEigen(lp mcmc.LogDensity, x []float64) []float64 {
	P := len(x)
	y := slices.Clone(x)
	gp, gm := make([]float64, P), make([]float64, P)
	cols := mat.NewDense(P, P, nil)
	const step = 1e-5
	for j := range P {
		y[j] = x[j] + step
		lp(y, gp)
		y[j] = x[j] - step
		lp(y, gm)
		y[j] = x[j]
		for i := range P {
			cols.Set(i, j, -(gp[i]-gm[i])/(2*step))
		}
	}
	h := mat.NewSymDense(P, nil)
	for i := range P {
		for j := i; j < P; j++ {
			h.SetSym(i, j, (cols.At(i, j)+cols.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(h, false) {
		return nil
	}
	v := eig.Values(nil)
	slices.Sort(v)
	return v
}

// TestHeatInverseGeometry is the measurement behind docs/inverse.md's
// "Laplace against sampling": heat-inverse's default fit (seed 1, about 35
// s of CPU), its posterior seen in the coordinates z whitened by the
// Gauss-Newton A and by |H| (SampleUnknowns' whitenings), where the Laplace
// picture is a standard normal at z = 0, and then at draws of a short NUTS
// chain. It runs only when BPINN_GEOMETRY is set:
//
//	BPINN_GEOMETRY=1 go test -run TestHeatInverseGeometry -v ./pkg/posterior/
func TestHeatInverseGeometry(t *testing.T) {
	if os.Getenv("BPINN_GEOMETRY") == "" {
		t.Skip("a study: set BPINN_GEOMETRY=1")
	}
	p, err := problems.New("heat-inverse", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := bayes.Train(t.Context(), p, testfit.Scheduled(p, bayes.Settings{Seed: 1}))
	if err != nil || f.Laplace == nil {
		t.Fatalf("fit: %v (status %s)", err, f.Status)
	}
	P := len(f.Model.Theta)
	absH, lambda, err := exactPrecision(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("alpha %.4g, beta %.4g; polish %s; exact Hessian of E_T: eigenvalues %.4g .. %.4g", f.Alpha, f.Beta, f.Polish.Status, lambda[0], lambda[P-1])
	var gnL mat.TriDense
	f.Laplace.Chol.LTo(&gnL)
	for _, w := range []struct {
		name string
		L    *mat.TriDense
	}{{"A (Gauss-Newton)", &gnL}, {"|H| (exact)", absH}} {
		newZ, _ := whitenedBy(f, w.L, func() mcmc.LogDensity { return NewLogDensity(f) })
		lp := newZ()
		z, g := make([]float64, P), make([]float64, P)
		lp(z, g)
		eig := hessianEigen(lp, z)
		t.Logf("whitened by %s: at the mode |grad_z ln p| %.3g, Hessian of E_T in z %.4g .. %.4g", w.name, floats.Norm(g, 2), eig[0], eig[P-1])
		for _, r := range []float64{0.01, 0.1, 1} {
			rise := rises(lp, P, r, 8, rand.New(rand.NewPCG(1, 1)))
			t.Logf("  E_T at |z| = %g along 8 random directions: %.3g .. %.3g above the mode (Gaussian: %.3g)", r, rise[0], rise[7], r*r/2)
		}
		res, err := mcmc.Sample(t.Context(), newZ, z, &mcmc.Settings{Chains: 1, Samples: 50, Warmup: 150, MaxDepth: 10, Metric: mcmc.Dense, TargetAccept: 0.98, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		lp0 := lp(make([]float64, P), g)
		for _, i := range []int{0, 49} {
			x := slices.Clone(res.Sample(0, i))
			e := hessianEigen(lp, x)
			t.Logf("  NUTS (dense metric, step %.3g), draw %d of 50 after 150 warm-up: |z| %.3g, E_T %.3g above the mode, Hessian of E_T in z %.4g .. %.4g (10th largest %.3g)",
				res.Chains[0].StepSize, i, floats.Norm(x, 2), lp0-lp(x, g), e[0], e[P-1], e[P-10])
		}
	}
}
