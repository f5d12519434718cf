package hmc_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// canonical returns the weights w of a one-hidden-layer net (sizes in-H-1)
// in a form the net's symmetries leave unchanged: each hidden unit's
// incoming weights, bias and outgoing weight flipped in sign so that the
// outgoing weight is >= 0 (tanh is odd), the units sorted by it (any
// permutation of hidden units gives the same function), then the output
// bias. Two weight vectors of one function (up to these symmetries) have
// the same canonical form, so an R-hat of it that is still high says the
// chains differ in function, not in which copy of a mode they sit.
func canonical(net *nn.MLP, w []float64) []float64 {
	in, h := net.Sizes[0], net.Sizes[1]
	c := net.Clone()
	copy(c.W, w)
	w1, b1 := c.Layer(0)
	w2, b2 := c.Layer(1)
	units := make([][]float64, h) // incoming..., bias, outgoing
	for j := range h {
		u := append(slices.Clone(w1[j*in:(j+1)*in]), b1[j], w2[j])
		if w2[j] < 0 {
			for k := range u {
				u[k] = -u[k]
			}
		}
		units[j] = u
	}
	slices.SortStableFunc(units, func(a, b []float64) int { return cmp.Compare(a[in+1], b[in+1]) })
	return append(slices.Concat(units...), b2...)
}

// TestCanonical checks that a sign flip of a hidden unit and a permutation
// of the units, which leave the network's function unchanged, leave the
// canonical form unchanged, and that another function has another form.
func TestCanonical(t *testing.T) {
	net := nn.New([]int{2, 6, 1}, nn.Tanh, rand.New(rand.NewPCG(1, 2)))
	x := [][]float64{{0.1, 0.7}, {-0.4, 0.2}}
	eval := func(n *nn.MLP) []float64 {
		var out []float64
		for _, p := range x {
			out = append(out, n.Eval(p, make([]float64, 1))...)
		}
		return out
	}
	want, f0 := canonical(net, net.W), eval(net)

	g := net.Clone()
	w1, b1 := g.Layer(0)
	w2, _ := g.Layer(1)
	w1[2], w1[3], b1[1], w2[1] = -w1[2], -w1[3], -b1[1], -w2[1] // flip unit 1
	for _, k := range []int{0, 1} {                             // swap units 2 and 4
		w1[4+k], w1[8+k] = w1[8+k], w1[4+k]
	}
	b1[2], b1[4] = b1[4], b1[2]
	w2[2], w2[4] = w2[4], w2[2]
	if f := eval(g); !slicesClose(f, f0, 1e-14) {
		t.Fatalf("the flipped and permuted net computes %v, the original %v: not a symmetry", f, f0)
	}
	if got := canonical(g, g.W); !slices.Equal(got, want) {
		t.Errorf("canonical form after a flip and a swap:\n%v\nwant\n%v", got, want)
	}
	w2[3] += 0.1
	if got := canonical(g, g.W); slices.Equal(got, want) {
		t.Error("another function has the same canonical form")
	}
}

func slicesClose(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return len(a) == len(b)
}

// TestHeatNUTSReference measures NUTS on heat's posterior at the fit of
// bpinn fit heat --seed 1 (docs/hmc.md, "Sampling on a PDE: heat"): the
// R-hat and ESS of u on the 21 x 21 grid, of ln p, and of the weights
// raw and in canonical form, the sign flips of hidden units within each
// chain, and each chain's mean ln p by quarters, which shows the rare
// excursions that keep the chains from agreeing (posterior.CompareHMC's
// run, whitened). It samples for minutes:
// set BPINN_HEAT_NUTS=SAMPLES (draws per chain), BPINN_HEAT_NUTS_CHAINS
// (default 4), BPINN_HEAT_NUTS_WARMUP (default 1500) and, for parallel
// tempering, BPINN_HEAT_NUTS_TEMPS (a ladder such as 1,1.3,1.69,2.2). The
// band comparison of the same run is bpinn hmc's (the same draws):
//
//	BPINN_HEAT_NUTS=500 BPINN_HEAT_NUTS_CHAINS=4 go test -run TestHeatNUTSReference -v ./lab/hmc
func TestHeatNUTSReference(t *testing.T) {
	n := envInt(t, "BPINN_HEAT_NUTS", 0)
	if n == 0 {
		t.Skip("set BPINN_HEAT_NUTS=SAMPLES to run (minutes)")
	}
	chains := envInt(t, "BPINN_HEAT_NUTS_CHAINS", 4)
	warmup := envInt(t, "BPINN_HEAT_NUTS_WARMUP", 1500)
	var temps []float64
	if v := os.Getenv("BPINN_HEAT_NUTS_TEMPS"); v != "" {
		for _, f := range strings.Split(v, ",") {
			var x float64
			if _, err := fmt.Sscan(f, &x); err != nil {
				t.Fatalf("BPINN_HEAT_NUTS_TEMPS=%q: want numbers like 1,1.3,1.69,2.2", v)
			}
			temps = append(temps, x)
		}
	}
	p, err := problems.New("heat", problems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := bayes.Train(t.Context(), p, testfit.Scheduled(p, bayes.Settings{Seed: 1, Recipe: bayes.RecipeTuned}))
	if err != nil || f.Laplace == nil {
		t.Fatalf("fit: %v", err)
	}
	s := posterior.DefaultSampler(mcmc.Settings{Metric: mcmc.Dense, Warmup: warmup, Samples: n, Chains: chains, TargetAccept: 0.9, MaxDepth: 10, Seed: 1, Temperatures: temps})
	comp, err := posterior.CompareHMC(t.Context(), f, &s, &posterior.CompareOptions{Whiten: true})
	if err != nil {
		t.Fatal(err)
	}
	res, d := comp.Draws, comp.Diagnostics
	lp := make([][]float64, len(res.Chains))
	var b strings.Builder
	for c := range lp {
		lp[c] = res.LogDensity[c]
		q := len(lp[c]) / 4
		fmt.Fprintf(&b, "\n  chain %d: step %.3g, mean ln p by quarters", c, res.Chains[c].StepSize)
		for k := range 4 {
			fmt.Fprintf(&b, " %.1f", stat.Mean(lp[c][k*q:(k+1)*q], nil))
		}
		if a := res.Chains[c].SwapAccept; a != nil {
			fmt.Fprintf(&b, ", exchanges accepted %.3v", a)
		}
	}
	raw, canon, flips := weightRHats(f.Model.Net, res)
	t.Logf("heat, %d x %d draws, %d gradients, %d divergent: u on the grid: max R-hat %.4f, min bulk ESS %.0f, min tail ESS %.0f; ln p: R-hat %.4f, ESS %.0f; weights: max R-hat %.3f raw, %.3f canonical; hidden-unit sign flips in the chains %v%s",
		chains, n, d.Gradients, res.Divergences(), *d.MaxRHat, *d.MinESS, *d.MinTailESS, mcmc.RankRHat(lp), mcmc.BulkESS(lp), raw, canon, flips, b.String())
}

// weightRHats returns the largest R-hat over the weights of res, raw and
// in canonical form, and per chain the draws at which an outgoing weight
// changed sign (a unit's flip, which could put chains in different copies
// of a mode).
func weightRHats(net *nn.MLP, res *mcmc.Result) (raw, canon float64, flips []int) {
	nw := len(net.W)
	C, n := len(res.Chains), res.Len()
	cw := make([][][]float64, C) // chain, draw, canonical weights
	flips = make([]int, C)
	_, w2 := net.Layer(1)
	off := nw - len(w2) - 1 // the outgoing weights of the one hidden layer
	for c := range C {
		for i := range n {
			w := res.Sample(c, i)[:nw]
			cw[c] = append(cw[c], canonical(net, w))
			if i > 0 {
				prev := res.Sample(c, i-1)
				for j := off; j < off+len(w2); j++ {
					if w[j]*prev[j] < 0 {
						flips[c]++
					}
				}
			}
		}
	}
	tr := make([][]float64, C)
	for j := range nw {
		raw = math.Max(raw, mcmc.RankRHat(res.Trace(nil, j)))
		for c := range C {
			tr[c] = tr[c][:0]
			for i := range n {
				tr[c] = append(tr[c], cw[c][i][j])
			}
		}
		canon = math.Max(canon, mcmc.RankRHat(tr))
	}
	return raw, canon, flips
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count", name, v)
	}
	return n
}
