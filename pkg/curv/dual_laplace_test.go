package curv_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/internal/par"
	"github.com/evidence-pinn/bpinn/pkg/curv"
)

// hessiansOf is the dense Laplace's input for s: H_t = J_t^T J_t formed
// with gonum, and loss.
func hessiansOf(s *curv.System, loss curv.Loss) *curv.Hessians {
	c := &curv.Hessians{AlphaOf: s.AlphaOf, Loss: loss}
	for t, j := range s.J {
		jm := mat.NewDense(s.Rows(t), s.P, j)
		var h mat.Dense
		h.Mul(jm.T(), jm)
		c.H = append(c.H, h.RawMatrix().Data)
	}
	return c
}

// lossOf is a seeded Loss for s.
func lossOf(seed uint64, s *curv.System) curv.Loss {
	rng := rand.New(rand.NewPCG(seed, 11))
	l := curv.Loss{W: make([]int, len(s.Alpha)), Comb: 3.5}
	for _, g := range s.AlphaOf {
		l.W[g]++
	}
	for range s.Alpha {
		l.EW = append(l.EW, 1+rng.Float64())
	}
	for t := range s.J {
		l.N = append(l.N, s.Rows(t))
		l.ED = append(l.ED, 0.01+rng.Float64())
	}
	return l
}

// TestDualLaplace checks the Dual final Laplace against the dense one of
// the same Gauss-Newton A: ln|A|, every gamma, every Occam argument, the
// log evidence and the band's g^T A^-1 g, with alpha groups interleaved
// and larger than N (the in-place Gram of V) and contiguous and smaller
// (the copied one).
func TestDualLaplace(t *testing.T) {
	t.Parallel()
	contiguous := func(s *curv.System) {
		for k := range s.AlphaOf {
			s.AlphaOf[k] = min(2*k/s.P, 1)
		}
	}
	for _, c := range []struct {
		name  string
		P     int
		rows  []int
		group func(*curv.System)
	}{
		{"interleaved, groups > N", 60, []int{8, 5}, nil},
		{"contiguous, groups < N", 40, []int{20, 5, 9}, contiguous},
	} {
		s := randomSystem(5, c.P, c.rows)
		if c.group != nil {
			c.group(s)
		}
		loss := lossOf(6, s)
		want, err := curv.NewLaplace(hessiansOf(s, loss), s.Alpha, s.Beta)
		if err != nil {
			t.Fatal(err)
		}
		got, err := curv.NewDualLaplace(s, loss, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Kind != curv.Dual || want.Kind != curv.Dense {
			t.Errorf("%s: kinds %q and %q, want dual and dense", c.name, got.Kind, want.Kind)
		}
		for t2, j := range s.J {
			if j != nil {
				t.Errorf("%s: J[%d] not released", c.name, t2)
			}
		}
		// The Occam arguments W_i/2 - ... cancel to a few 1e-3 of W_i/2
		// here: compareLaplace compares them relative to W_i/2 and N_t/2.
		J, gotV := compareLaplace(t, c.name, got, want, loss, c.P, 1e-9)
		n := len(gotV)
		pool := par.New(2)
		one := randomSystemLike(s, c.P, c.rows, c.group) // J as parts of one array: Q in place
		all := slices.Concat(one.J...)
		for t2, off := 0, 0; t2 < len(one.J); t2++ {
			n := len(one.J[t2])
			one.J[t2], off = all[off:off+n], off+n
		}
		before := slices.Clone(all)
		threaded, err := curv.NewDualLaplace(one, loss, pool)
		if slices.Equal(all, before) {
			t.Errorf("%s: J in one array not overwritten: copied", c.name)
		}
		pool2 := make([]float64, n)
		if err == nil {
			threaded.VariancesTo(pool2, J, n)
		}
		pool.Close()
		if !slices.Equal(pool2, gotV) {
			t.Errorf("%s: J in one array on two threads give %v, stacked on one %v", c.name, pool2, gotV)
		}
	}
}

// randomSystemLike rebuilds the system randomSystem(5, ...) gave s, which
// NewDualLaplace consumed.
func randomSystemLike(s *curv.System, P int, rows []int, group func(*curv.System)) *curv.System {
	r := randomSystem(5, P, rows)
	if group != nil {
		group(r)
	}
	return r
}

// TestDualLaplaceNotPD checks that a non-finite Jacobian is reported as
// A not positive definite under Dual, not as a result.
func TestDualLaplaceNotPD(t *testing.T) {
	t.Parallel()
	s := randomSystem(5, 30, []int{4})
	s.J[0][3] = 1e300 // S = I + R D^-1 R^T overflows
	_, err := curv.NewDualLaplace(s, lossOf(6, s), nil)
	if _, ok := err.(curv.NotPositiveDefinite); !ok {
		t.Errorf("err = %v, want NotPositiveDefinite", err)
	}
}

func TestAutoLaplace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		P, N int
		want curv.Kind
	}{
		{3023, 4000, curv.Dense},      // at the limit: dense whatever N
		{40801, 5200, curv.Dual},      // poisson-holes' 5 x 100
		{9937, 2840, curv.Dual},       // burgers-wide at h = 56
		{5000, 8000, curv.LowRank},    // more residuals than weights
		{200000, 20000, curv.LowRank}, // S would be 20000^2
		{3201, 3200, curv.Dual},       // just above the limit
		{3201, 3201, curv.LowRank},    // N = P: the dual is no cheaper
		{3200, 100000, curv.Dense},    // the limit itself
	} {
		if got := curv.AutoLaplace(c.P, c.N, 3200); got != c.want {
			t.Errorf("AutoLaplace(%d weights, %d residuals) = %q; want %q", c.P, c.N, got, c.want)
		}
	}
}
