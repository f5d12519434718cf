package bayes

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// TestHeatInverseGeometry is the measurement behind docs/inverse.md's
// "Laplace against sampling": heat-inverse's default fit (seed 1, about 35
// s of CPU), its posterior seen in the coordinates z whitened by the
// Gauss-Newton A and by |H| (SampleUnknowns' whitenings), where the Laplace
// picture is a standard normal at z = 0, and then at draws of a short NUTS
// chain. It runs only when BPINN_GEOMETRY is set:
//
//	BPINN_GEOMETRY=1 go test -run TestHeatInverseGeometry -v ./pkg/bayes/
func TestHeatInverseGeometry(t *testing.T) {
	if os.Getenv("BPINN_GEOMETRY") == "" {
		t.Skip("a study: set BPINN_GEOMETRY=1")
	}
	p, err := pde.New("heat-inverse", pde.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Train(t.Context(), p, Settings{Seed: 1})
	if err != nil || f.Laplace == nil {
		t.Fatalf("fit: %v (status %s)", err, f.Status)
	}
	P := len(f.Model.Theta)
	absH, lambda, err := f.exactPrecision()
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
		newZ, _ := f.whitenedBy(w.L, f.NewLogDensity)
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
