package pde

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

func TestParseSampler(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]Sampler{"uniform": Uniform, "lhs": LatinHypercube, "halton": Halton} {
		if s, err := ParseSampler(name); err != nil || s != want {
			t.Errorf("ParseSampler(%q) = %q, %v; want %q", name, s, err, want)
		}
	}
	for _, name := range []string{"", "sobol", "LHS", "Uniform"} {
		_, err := ParseSampler(name)
		if want := fmt.Sprintf("unknown sampler %q: use uniform, lhs or halton", name); err == nil || err.Error() != want {
			t.Errorf("ParseSampler(%q): %v, want %s", name, err, want)
		}
	}
}

// Every sampler: n points in the unit cube, the same bits from the same
// seed, other points from another seed.
func TestSamplerUnit(t *testing.T) {
	t.Parallel()
	for _, s := range Samplers() {
		for d := 0; d <= 4; d++ {
			a, err := s.Unit(rand.NewPCG(5, 6), 40, d)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := s.Unit(rand.NewPCG(5, 6), 40, d)
			c, _ := s.Unit(rand.NewPCG(7, 6), 40, d)
			if len(a) != 40 {
				t.Fatalf("%s d = %d: %d points, want 40", s, d, len(a))
			}
			for _, x := range a {
				if len(x) != d || slices.ContainsFunc(x, func(v float64) bool { return !(v >= 0 && v <= 1) }) {
					t.Fatalf("%s d = %d: point %v outside the unit cube", s, d, x)
				}
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s d = %d: two draws of one seed differ", s, d)
			}
			if d > 0 && reflect.DeepEqual(a, c) {
				t.Errorf("%s d = %d: seeds 5 and 7 give the same points", s, d)
			}
		}
	}
	if _, err := Sampler("grid").Unit(rand.NewPCG(1, 1), 3, 2); err == nil || !strings.Contains(err.Error(), `unknown sampler "grid"`) {
		t.Errorf("Unit of an unknown sampler: %v", err)
	}
	if _, err := Sampler(Uniform).Unit(rand.NewPCG(1, 1), -1, 2); err == nil || !strings.Contains(err.Error(), "need n >= 0") {
		t.Errorf("Unit of -1 points: %v", err)
	}
}

// Latin hypercube: one point in each of n equal strata of every coordinate.
func TestLatinHypercubeStrata(t *testing.T) {
	t.Parallel()
	const n = 37
	pts, err := Sampler(LatinHypercube).Unit(rand.NewPCG(2, 2), n, 4)
	if err != nil {
		t.Fatal(err)
	}
	for d := 0; d < 4; d++ {
		seen := make([]bool, n)
		for _, x := range pts {
			k := min(int(x[d]*n), n-1)
			if seen[k] {
				t.Fatalf("coordinate %d: two points in stratum %d", d, k)
			}
			seen[k] = true
		}
	}
	// a uniform set of that size has two points in one stratum
	u, _ := Sampler(Uniform).Unit(rand.NewPCG(2, 2), n, 1)
	seen := map[int]bool{}
	for _, x := range u {
		seen[int(x[0]*n)] = true
	}
	if len(seen) == n {
		t.Errorf("uniform points fill every stratum too: the check cannot tell")
	}
}

// starDiscrepancy2D is the exact star discrepancy of points in [0,1]^2:
// the largest gap between the share of points in a box [0,a) x [0,b) (or
// closed) and its area, over the corners a, b made of the points'
// coordinates and 1.
func starDiscrepancy2D(pts [][]float64) float64 {
	n := float64(len(pts))
	as, bs := []float64{1}, []float64{1}
	for _, x := range pts {
		as, bs = append(as, x[0]), append(bs, x[1])
	}
	worst := 0.0
	for _, a := range as {
		for _, b := range bs {
			open, closed := 0, 0
			for _, x := range pts {
				if x[0] < a && x[1] < b {
					open++
				}
				if x[0] <= a && x[1] <= b {
					closed++
				}
			}
			worst = max(worst, a*b-float64(open)/n, float64(closed)/n-a*b)
		}
	}
	return worst
}

// Halton sets are spread more evenly than independent uniform ones: over 8
// seeds of 128 points, every Halton set has a lower star discrepancy than
// the mean uniform one, and the means differ by more than a factor 2.
func TestHaltonDiscrepancy(t *testing.T) {
	t.Parallel()
	mean := map[Sampler]float64{}
	worstHalton := 0.0
	for seed := uint64(1); seed <= 8; seed++ {
		for _, s := range []Sampler{Uniform, Halton} {
			pts, err := s.Unit(rand.NewPCG(seed, 9), 128, 2)
			if err != nil {
				t.Fatal(err)
			}
			d := starDiscrepancy2D(pts)
			mean[s] += d / 8
			if s == Halton {
				worstHalton = max(worstHalton, d)
			}
		}
	}
	if worstHalton >= mean[Uniform] || 2*mean[Halton] >= mean[Uniform] {
		t.Errorf("star discrepancy of 128 points: Halton mean %.4f (worst %.4f), uniform mean %.4f", mean[Halton], worstHalton, mean[Uniform])
	}
	// the measure sees structure: a set clumped in one corner is far off
	clump := make([][]float64, 128)
	for i := range clump {
		clump[i] = []float64{0.5 * float64(i) / 128, 0.5}
	}
	if d := starDiscrepancy2D(clump); d < 0.7 {
		t.Errorf("star discrepancy of a clumped set %.3f, want > 0.7", d)
	}
}

// heatDrawn is the paper's heat problem written with draws: equation
// points in the interior, boundary values on x = 0, 1 and t = 0, and noisy
// measurements inside.
func heatDrawn(s Sampler) *Problem {
	exact := func(x []float64) float64 { return math.Sin(math.Pi*x[0]) * math.Exp(-0.1*math.Pi*math.Pi*x[1]) }
	return &Problem{
		Name: "heat-drawn", Inputs: []string{"x", "t"}, Lo: []float64{0, 0}, Hi: []float64{1, 1}, Sampling: s,
		Terms: []Term{
			{Name: "pde", Group: "pde", Residual: func(v *Vars) *ad.Node {
				return ad.Sub(ad.Sub(v.D("t"), ad.Scale(v.D2("x", "x"), 0.1)), v.Field("zero"))
			}, Draw: &Draw{Region: Interior(), N: 30, Fields: map[string]func([]float64) float64{
				"zero": func(x []float64) float64 { return 0 * x[0] }}}},
			{Name: "walls", Group: "boundary", Residual: DataResidual, Draw: &Draw{Region: Boundary("t"), N: 10, Value: exact}},
			{Name: "initial", Group: "boundary", Residual: DataResidual, Draw: &Draw{Region: Initial("t"), N: 10, Value: exact, Sampler: Halton}},
			{Name: "data", Group: "data", Residual: DataResidual, Draw: &Draw{Region: Interior(), N: 20, Value: exact, Noise: 0.01,
				Fields: map[string]func([]float64) float64{"t2": func(x []float64) float64 { return 2 * x[1] }}}},
			{Name: "given", Group: "boundary", Residual: DataResidual, Points: [][]float64{{0.5, 1}}, Target: []float64{0.2}},
		},
		Exact: exact,
	}
}

func TestSample(t *testing.T) {
	t.Parallel()
	for _, s := range Samplers() {
		p := heatDrawn(s)
		a, err := p.Sample(11)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("%s: the sampled problem does not validate: %v", s, err)
		}
		b, _ := p.Sample(11)
		c, _ := p.Sample(12)
		if p.Terms[0].Points != nil || p.Fresh != nil {
			t.Fatalf("%s: Sample changed the problem it was called on", s)
		}
		want := map[Sampler]Sampler{Uniform: "uniform+halton", LatinHypercube: "lhs+halton", Halton: "halton"}[s]
		if a.Sampling != want {
			t.Errorf("%s: Sampling %q, want %q", s, a.Sampling, want)
		}
		for i, ta := range a.Terms {
			if !reflect.DeepEqual(ta.Points, b.Terms[i].Points) || !reflect.DeepEqual(ta.Target, b.Terms[i].Target) {
				t.Errorf("%s term %s: seed 11 drawn twice differs", s, ta.Name)
			}
			if ta.Draw != nil && reflect.DeepEqual(ta.Points, c.Terms[i].Points) {
				t.Errorf("%s term %s: seeds 11 and 12 give the same points", s, ta.Name)
			}
			if ta.Draw != nil && len(ta.Points) != ta.Draw.N {
				t.Errorf("%s term %s: %d points, want %d", s, ta.Name, len(ta.Points), ta.Draw.N)
			}
		}
		if again, err := a.Sample(11); err != nil || !samePoints(again.Terms, a.Terms) {
			t.Errorf("%s: sampling the sampled problem with its seed gives other points (%v)", s, err)
		}
		given := *p
		given.Terms = slices.Clone(p.Terms)
		given.Terms[0].Points = a.Terms[0].Points // points of one's own and a Draw
		if _, err := given.Sample(11); err == nil || !strings.Contains(err.Error(), "both Points and a Draw") {
			t.Errorf("%s: a term with Points and a Draw sampled with %v, want an error naming both", s, err)
		}
		if !samePoints(a.Terms[4:], p.Terms[4:]) {
			t.Errorf("%s: the term without a Draw changed", s)
		}
		// targets: exact values on the boundary, exact plus the noise on data
		for k, x := range a.Terms[1].Points {
			if x[0] != 0 && x[0] != 1 || a.Terms[1].Target[k] != p.Exact(x) {
				t.Errorf("%s walls point %v target %g, want x on 0 or 1 and %g", s, x, a.Terms[1].Target[k], p.Exact(x))
			}
		}
		for k, x := range a.Terms[3].Points {
			if f := a.Terms[3].Fields["t2"]; len(f) != 20 || f[k] != 2*x[1] {
				t.Fatalf("%s data field t2 at %v: %v, want 2 t at each of 20 points", s, x, f)
			}
		}
		var ss float64
		for k, x := range a.Terms[3].Points {
			ss += math.Pow(a.Terms[3].Target[k]-p.Exact(x), 2)
		}
		if rms := math.Sqrt(ss / 20); rms < 0.005 || rms > 0.02 || !a.Terms[3].Measured || a.Terms[0].Measured {
			t.Errorf("%s data noise rms %.4f (want about 0.01), data measured %v, pde measured %v", s, rms, a.Terms[3].Measured, a.Terms[0].Measured)
		}
	}
}

// samePoints reports whether two lists of terms have the same names,
// points and targets.
func samePoints(a, b []Term) bool {
	return slices.EqualFunc(a, b, func(x, y Term) bool {
		return x.Name == y.Name && reflect.DeepEqual(x.Points, y.Points) && reflect.DeepEqual(x.Target, y.Target) && reflect.DeepEqual(x.Fields, y.Fields)
	})
}

// Fresh draws every drawn term anew, measurements and their noise too;
// Redraw(k) draws the terms that are not measured and keeps the others;
// Redraw(0) is the problem's own draw.
func TestSampleFreshRedraw(t *testing.T) {
	t.Parallel()
	p, err := heatDrawn(LatinHypercube).Sample(3)
	if err != nil {
		t.Fatal(err)
	}
	f, err := p.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	r1, err := p.Redraw(1)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := p.Redraw(2)
	r1b, _ := p.Redraw(1)
	r0, _ := p.Redraw(0)
	if !samePoints(r1.Terms, r1b.Terms) {
		t.Errorf("Redraw(1) twice differs")
	}
	for i, tp := range p.Terms {
		same := func(q *Problem) bool { return samePoints(p.Terms[i:i+1], q.Terms[i:i+1]) }
		drawn := tp.Draw != nil
		if drawn == same(f) {
			t.Errorf("term %s (drawn %v): Fresh kept its points and targets: %v", tp.Name, drawn, same(f))
		}
		if keep := !drawn || tp.Measured; keep != same(r1) || keep != same(r2) {
			t.Errorf("term %s (drawn %v, measured %v): Redraw(1) kept it %v, Redraw(2) %v", tp.Name, drawn, tp.Measured, same(r1), same(r2))
		}
		if !same(r0) {
			t.Errorf("term %s: Redraw(0) differs from the problem's own draw", tp.Name)
		}
		if len(r1.Terms[i].Points) != len(tp.Points) {
			t.Errorf("term %s: Redraw(1) has %d points, want %d", tp.Name, len(r1.Terms[i].Points), len(tp.Points))
		}
	}
	if err := r1.Validate(); err != nil {
		t.Errorf("Redraw(1) does not validate: %v", err)
	}
	// Fresh of Fresh moves on; Redraw of a redraw is the same family
	ff, _ := f.Fresh()
	if reflect.DeepEqual(ff.Terms[0].Points, f.Terms[0].Points) {
		t.Errorf("Fresh of Fresh repeats its points")
	}
	if r12, _ := r1.Redraw(2); !samePoints(r12.Terms, r2.Terms) {
		t.Errorf("Redraw(2) of Redraw(1) differs from Redraw(2)")
	}
}

// A problem without draws comes back as a copy with Fresh and Redraw kept.
func TestSampleNoDraws(t *testing.T) {
	t.Parallel()
	p := heatLike()
	p.Fresh = func() (*Problem, error) { return heatLike(), nil }
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	if q == p || q.Fresh == nil || q.Sampling != p.Sampling {
		t.Errorf("Sample of a problem without draws: %p from %p, Fresh %v, Sampling %q", q, p, q.Fresh != nil, q.Sampling)
	}
	if !samePoints(q.Terms, p.Terms) {
		t.Errorf("the terms changed")
	}
}

// Every bad draw is a one-line error naming the problem, the term and what
// to change, never a panic.
func TestSampleErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(p *Problem)
		want string
	}{
		{"unknown input in Face", func(p *Problem) { p.Terms[1].Draw.Region = Face("y", Lo) },
			`problem "heat-drawn" term "walls": region Face("y", Lo): no input "y"; the inputs are ["x" "t"]`},
		{"unknown input in Faces", func(p *Problem) { p.Terms[1].Draw.Region = Faces("X") }, `term "walls": region Faces("X"): no input "X"`},
		{"unknown input in Boundary", func(p *Problem) { p.Terms[1].Draw.Region = Boundary("time") }, `term "walls": region Boundary("time"): no input "time"`},
		{"unknown input in Initial", func(p *Problem) { p.Terms[2].Draw.Region = Initial("") }, `term "initial": region Initial(""): no input ""`},
		{"N zero", func(p *Problem) { p.Terms[0].Draw.N = 0 }, `problem "heat-drawn" term "pde": draw of 0 points; set Draw.N >= 1`},
		{"N negative", func(p *Problem) { p.Terms[3].Draw.N = -5 }, `term "data": draw of -5 points; set Draw.N >= 1`},
		// A typo in N exhausted memory.
		{"N too large", func(p *Problem) { p.Terms[0].Draw.N = 1 << 40 }, `term "pde": draw of 1099511627776 points; at most 16777216`},
		{"side zero", func(p *Problem) { p.Terms[1].Draw.Region = Face("x", 0) }, `term "walls": region Face("x", Side(0)): side Side(0); use pde.Lo or pde.Hi`},
		{"side three", func(p *Problem) { p.Terms[1].Draw.Region = Face("t", 3) }, `region Face("t", Side(3)): side Side(3); use pde.Lo or pde.Hi`},
		{"zero region", func(p *Problem) { p.Terms[0].Draw.Region = Region{} },
			`problem "heat-drawn" term "pde": no region; set Draw.Region to pde.Interior(), Face, Faces, Boundary, Initial, On or FacePairs`},
		{"boundary without faces", func(p *Problem) { p.Terms[1].Draw.Region = Boundary("x", "t") },
			`term "walls": region Boundary("x", "t"): leaves out every input, so it has no faces; list fewer inputs`},
		{"unknown term sampler", func(p *Problem) { p.Terms[2].Draw.Sampler = "sobol" },
			`problem "heat-drawn" term "initial": unknown sampler "sobol": use uniform, lhs or halton`},
		{"unknown problem sampler", func(p *Problem) { p.Sampling = "random" }, `term "pde": unknown sampler "random"`},
		{"negative noise", func(p *Problem) { p.Terms[3].Draw.Noise = -0.1 }, `term "data": draw noise -0.1; set Draw.Noise to a standard deviation >= 0`},
		{"NaN noise", func(p *Problem) { p.Terms[3].Draw.Noise = math.NaN() }, `term "data": draw noise NaN`},
		{"noise without value", func(p *Problem) { p.Terms[0].Draw.Noise = 0.1 }, `term "pde": draw noise 0.1 without a Value; set Draw.Value`},
		{"value panics", func(p *Problem) {
			p.Terms[1].Draw.Value = func(x []float64) float64 { return x[2] }
		}, `term "walls": its Draw.Value panicked at [`},
		{"field panics", func(p *Problem) {
			p.Terms[3].Draw.Fields["t2"] = func(x []float64) float64 { panic("no") }
		}, `term "data": its Draw.Fields["t2"] panicked at [`},
		{"nil field", func(p *Problem) { p.Terms[0].Draw.Fields["zero"] = nil },
			`term "pde": Draw.Fields["zero"] is nil; give it a function of the point or remove it`},
		{"repeated input", func(p *Problem) { p.Inputs[1] = "x" }, `inputs ["x" "x"]: every input needs its own non-empty name`},
		{"five inputs", func(p *Problem) {
			p.Inputs, p.Lo, p.Hi = []string{"a", "b", "c", "d", "e", "f", "g"}, make([]float64, 7), []float64{1, 1, 1, 1, 1, 1, 1}
		}, `problem "heat-drawn": 7 inputs; a problem has 1 to 6 inputs: set Inputs`},
		{"no inputs", func(p *Problem) { p.Inputs = nil }, `0 inputs`},
		{"short Hi", func(p *Problem) { p.Hi = p.Hi[:1] }, `domain Lo/Hi need 2 values each`},
		{"infinite bound", func(p *Problem) { p.Hi[1] = math.Inf(1) }, `domain of t is [0, +Inf]; need finite Lo < Hi`},
		{"empty interval", func(p *Problem) { p.Lo[0] = 1 }, `domain of x is [1, 1]; need finite Lo < Hi`},
	}
	names := map[string]bool{}
	for _, c := range cases {
		names[c.name] = true
		p := heatDrawn(Uniform)
		c.edit(p)
		q, err := sampleNoPanic(t, p)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || q != nil {
			t.Errorf("%s: got %v, want an error containing %s", c.name, err, c.want)
		}
	}
	if len(names) != len(cases) {
		t.Errorf("two cases share a name")
	}
	// Redraw reports a Value that fails only at some points
	p := heatDrawn(Uniform)
	p.Terms[1].Draw.Value = func(x []float64) float64 {
		if x[1] > 0.9 {
			panic("late")
		}
		return 0
	}
	var err error
	for seed := uint64(0); err == nil; seed++ { // a seed whose own draw passes
		var q *Problem
		if q, err = sampleNoPanic(t, p); err == nil {
			_, err = q.Redraw(seed + 1)
		}
	}
	if !strings.Contains(err.Error(), `term "walls": its Draw.Value panicked at [`) {
		t.Errorf("a Value that panics on some draws: %v", err)
	}
}

func sampleNoPanic(t *testing.T, p *Problem) (q *Problem, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("Sample panicked: %v", r)
		}
	}()
	return p.Sample(1)
}

// The draws of a term are its own stream: changing another term's count
// leaves them as they were.
func TestSampleStreams(t *testing.T) {
	t.Parallel()
	p := heatDrawn(Halton)
	a, _ := p.Sample(4)
	p.Terms[0].Draw.N = 7
	b, err := p.Sample(4)
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for i := range a.Terms {
		if !reflect.DeepEqual(a.Terms[i].Points, b.Terms[i].Points) {
			changed = append(changed, a.Terms[i].Name)
		}
	}
	sort.Strings(changed)
	if !slices.Equal(changed, []string{"pde"}) {
		t.Errorf("changing the pde count changed the points of %v, want only pde", changed)
	}
}

// A problem of draws validates only once sampled, and says so.
func TestValidateUnsampled(t *testing.T) {
	t.Parallel()
	err := heatDrawn(Uniform).Validate()
	if want := `problem "heat-drawn" term "pde": a Draw but no points yet; draw them with p.Sample(seed) and use the problem it returns`; err == nil || err.Error() != want {
		t.Errorf("Validate of an unsampled problem: %v, want %s", err, want)
	}
}
