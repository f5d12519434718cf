package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

func ar1(rng *rand.Rand, m, n int, rho float64) [][]float64 {
	chains := make([][]float64, m)
	for c := range chains {
		x := make([]float64, n)
		x[0] = rng.NormFloat64() / math.Sqrt(1-rho*rho)
		for i := 1; i < n; i++ {
			x[i] = rho*x[i-1] + rng.NormFloat64()
		}
		chains[c] = x
	}
	return chains
}

func TestESSKnown(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name string
		m, n int
		rho  float64
	}{
		{"iid/1 chain", 1, 4000, 0},
		{"iid/4 chains", 4, 1000, 0},
		{"ar1 0.5", 4, 5000, 0.5},
		{"ar1 0.9", 4, 20000, 0.9},
		{"ar1 0.9/1 chain", 1, 80000, 0.9},
		{"ar1 -0.5 antithetic", 2, 5000, -0.5},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(3, uint64(test.n)))
			chains := ar1(rng, test.m, test.n, test.rho)
			want := float64(test.m*test.n) * (1 - test.rho) / (1 + test.rho)
			for _, f := range []struct {
				name string
				ess  func([][]float64) float64
			}{{"ESS", ESS}, {"BulkESS", BulkESS}} {
				if got := f.ess(chains); math.Abs(got/want-1) > 0.2 {
					t.Errorf("%s: got %.0f, want %.0f ± 20%%", f.name, got, want)
				}
			}
			if r := SplitRHat(chains); !(r < 1.01) {
				t.Errorf("got split R-hat %.4f for stationary chains, want < 1.01", r)
			}
			if r := RankRHat(chains); !(r < 1.01) {
				t.Errorf("got rank R-hat %.4f for stationary chains, want < 1.01", r)
			}
		})
	}
}

func TestESSRHatEdgeCases(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	shifted := ar1(rng, 4, 500, 0.3)
	for i := range shifted[0] {
		shifted[0][i] += 3
	}
	if r := SplitRHat(shifted); !(r > 1.5) {
		t.Errorf("one chain shifted by 3 sd: got split R-hat %.3f, want > 1.5", r)
	}
	// A chain that drifts: its halves disagree, which only split R-hat sees.
	drift := make([]float64, 2000)
	for i := range drift {
		drift[i] = float64(i)/200 + rng.NormFloat64()
	}
	if r := SplitRHat([][]float64{drift}); !(r > 1.5) {
		t.Errorf("drifting single chain: got split R-hat %.3f, want > 1.5", r)
	}
	// Same mean, different scales: only the folded (tail) R-hat sees it.
	scaled := ar1(rng, 2, 2000, 0)
	for i := range scaled[1] {
		scaled[1][i] *= 4
	}
	if r := RankRHat(scaled); !(r > 1.1) {
		t.Errorf("chains differing in scale: got rank R-hat %.3f, want > 1.1", r)
	}
	for _, test := range []struct {
		name   string
		chains [][]float64
	}{
		{"short", [][]float64{{1, 2, 3}}},
		{"constant", [][]float64{{1, 1, 1, 1, 1, 1}}},
		{"NaN", [][]float64{{1, 2, math.NaN(), 4, 5, 6}}},
		{"Inf", [][]float64{{1, 2, 3, math.Inf(1), 5, 6}}},
	} {
		for _, f := range []struct {
			name string
			f    func([][]float64) float64
		}{{"ESS", ESS}, {"BulkESS", BulkESS}, {"SplitRHat", SplitRHat}, {"RankRHat", RankRHat}} {
			if got := f.f(test.chains); !math.IsNaN(got) {
				t.Errorf("%s of %s chains: got %v, want NaN", f.name, test.name, got)
			}
		}
	}
	for _, f := range []func([][]float64) float64{ESS, SplitRHat} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("got no panic for chains of different lengths")
				}
			}()
			f([][]float64{{1, 2, 3, 4}, {1, 2, 3}})
		}()
	}
}

// TestTailESSAndEBFMI checks the tail ESS of independent draws (about the
// number of draws) and of an AR(1) chain (about its bulk ESS), and E-BFMI
// of independent energies (2) and of a slow random walk (near 0).
func TestTailESSAndEBFMI(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	iid := ar1(rng, 4, 2000, 0)
	if got := TailESS(iid); math.Abs(got/8000-1) > 0.25 {
		t.Errorf("iid: got tail ESS %.0f, want 8000 ± 25%%", got)
	}
	slow := ar1(rng, 4, 5000, 0.9)
	// The tail indicators of an AR(1) chain decorrelate faster than the
	// chain itself: between its bulk ESS and 4 times that.
	if got, bulk := TailESS(slow), BulkESS(slow); !(got > bulk && got < 4*bulk) {
		t.Errorf("AR(1) 0.9: got tail ESS %.0f, want between the bulk ESS %.0f and 4 times it", got, bulk)
	}
	if got := EBFMI(iid[0]); math.Abs(got-2) > 0.15 {
		t.Errorf("iid energies: got E-BFMI %.3f, want 2 ± 0.15", got)
	}
	walk := ar1(rng, 1, 5000, 0.99)[0]
	if got := EBFMI(walk); !(got < 0.1) {
		t.Errorf("slow energies: got E-BFMI %.3f, want < 0.1", got)
	}
	if got := TailESS([][]float64{{1, 2, math.NaN(), 4}}); !math.IsNaN(got) {
		t.Errorf("NaN chain: got tail ESS %v, want NaN", got)
	}
}
