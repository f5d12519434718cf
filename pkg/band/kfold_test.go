package band

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScaleInterval: components drawn with a known c (seeded) give back c
// within its interval; the interval is narrow (the check calibrates) where
// the band's variance is comparable to the noise, and reaches 0 (the
// noise hides the band) where it is a hundredth of it.
func TestScaleInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(c, v, n float64, m int) (e, vs, ns []float64) {
		for range m {
			e = append(e, math.Sqrt(c*c*v+n)*rng.NormFloat64())
			vs, ns = append(vs, v), append(ns, n)
		}
		return e, vs, ns
	}
	e, v, n := draw(2, 1, 1, 400)
	c, lo, hi := scaleInterval(e, v, n)
	if k := (kfold{n: 400, c: c, lo: lo, hi: hi}); !(lo < 2 && 2 < hi) || !k.informative() || math.Abs(c-2) > 0.3 {
		t.Errorf("c 2, band variance = noise: c %.3g in [%.3g, %.3g], want 2 inside a narrow interval", c, lo, hi)
	}
	if k := (kfold{n: 400, c: c, lo: lo, hi: hi}); k.factor(1) != c || k.factor(2) != 1 || k.factor(10) != hi/10 {
		t.Errorf("factors %v %v %v, want c/1, 1, hi/10", k.factor(1), k.factor(2), k.factor(10))
	}
	e, v, n = draw(1, 0.01, 1, 20)
	c, lo, hi = scaleInterval(e, v, n)
	if k := (kfold{n: 20, c: c, lo: lo, hi: hi}); lo != 0 || k.informative() || k.calibrates(1) {
		t.Errorf("band variance a hundredth of the noise, 20 points: c %.3g in [%.3g, %.3g], want an interval from 0 that calibrates nothing", c, lo, hi)
	}
}
