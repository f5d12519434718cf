package pde

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// boxBitsProblems are box problems drawn on every box region, in 1 to 3
// inputs, with targets, noise and fields.
func boxBitsProblems(s Sampler) []*Problem {
	r := func(v *Vars) *ad.Node { return v.U }
	val := func(x []float64) float64 { return math.Sin(3*x[0]) + x[len(x)-1] }
	return []*Problem{
		{Name: "1d", Inputs: []string{"x"}, Lo: []float64{-1}, Hi: []float64{2}, Sampling: s, Terms: []Term{
			{Name: "pde", Residual: r, Draw: &Draw{Region: Interior(), N: 17, Fields: map[string]func([]float64) float64{"f": val}}},
			{Name: "ends", Residual: r, Draw: &Draw{Region: Faces("x"), N: 5, Value: val}},
			{Name: "left", Residual: r, Draw: &Draw{Region: Face("x", Lo), N: 3, Value: val}},
			{Name: "all", Residual: r, Draw: &Draw{Region: Boundary(), N: 4}},
		}},
		{Name: "2d", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 2.5}, Sampling: s, Terms: []Term{
			{Name: "pde", Residual: r, Draw: &Draw{Region: Interior(), N: 101}},
			{Name: "walls", Residual: r, Draw: &Draw{Region: Boundary("t"), N: 31, Value: val}},
			{Name: "all", Residual: r, Draw: &Draw{Region: Boundary(), N: 29, Value: val}},
			{Name: "init", Residual: r, Draw: &Draw{Region: Initial("t"), N: 13, Value: val}},
			{Name: "top", Residual: r, Draw: &Draw{Region: Face("t", Hi), N: 7}},
			{Name: "data", Residual: r, Draw: &Draw{Region: Interior(), N: 19, Value: val, Noise: 0.1}},
		}},
		{Name: "3d", Inputs: []string{"x", "y", "t"}, Lo: []float64{-1, 0, 0}, Hi: []float64{1, 3, 1}, Sampling: s, Terms: []Term{
			{Name: "pde", Residual: r, Draw: &Draw{Region: Interior(), N: 64}},
			{Name: "sides", Residual: r, Draw: &Draw{Region: Boundary("t"), N: 33, Value: val}},
			{Name: "ys", Residual: r, Draw: &Draw{Region: Faces("y"), N: 9, Value: val}},
			{Name: "init", Residual: r, Draw: &Draw{Region: Initial("t"), N: 21, Value: val}},
		}},
	}
}

// hashTerms hashes the points, targets and the field "f" of every term.
func hashTerms(h interface{ Write([]byte) (int, error) }, p *Problem) {
	put := func(v float64) { _, _ = h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))) }
	for _, t := range p.Terms {
		_, _ = h.Write([]byte(t.Name))
		for _, x := range t.Points {
			for _, v := range x {
				put(v)
			}
		}
		for _, v := range t.Target {
			put(v)
		}
		for _, v := range t.Fields["f"] {
			put(v)
		}
	}
}

// TestBoxBits pins the points that box regions draw, for every sampler,
// with the draw's Fresh and Redraw: the hash was taken from the box code
// before problems had domains, so a box problem's points stay bit for bit.
func TestBoxBits(t *testing.T) {
	t.Parallel()
	want := map[Sampler]string{
		Uniform:        "7f580c663b9e7bbcf493e59a34ccccd8623c35bc900ec4e20718da04eb4a8bb0",
		LatinHypercube: "1ace65f0e0f813e3eb79e12cb608da807f5e1cbf06335ae47f5516fc42d10e48",
		Halton:         "2ca1f7782aa565dcd23bc95aac81140b497bb240a9c7e2bd9e50d419bd8eccb5",
	}
	for _, s := range Samplers() {
		h := sha256.New()
		for _, p := range boxBitsProblems(s) {
			q, err := p.Sample(7)
			if err != nil {
				t.Fatal(err)
			}
			f, err := q.Fresh()
			if err != nil {
				t.Fatal(err)
			}
			r, err := q.Redraw(2)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []*Problem{q, f, r} {
				hashTerms(h, x)
			}
		}
		if got := fmt.Sprintf("%x", h.Sum(nil)); got != want[s] {
			t.Errorf("%s: hash %s, want %s", s, got, want[s])
		}
	}
}
