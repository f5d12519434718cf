package problems

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// pinned reports whether a term's points are part of the problem, kept by
// every draw: the lid-driven problems' pressure gauge p(0, 0) = 0, and
// PoissonInv's measurements on PINNacle's fixed 50 x 50 grid, HeatInv's at
// their 2500 points.
func pinned(problem, term string) bool {
	return term == "gauge" || (strings.HasPrefix(problem, "poisson-inv") || problem == "heat2d-inv") && term == "data"
}

// TestFresh: Fresh draws the same terms with as many new points, the same
// each time, and different from the training points.
func TestFresh(t *testing.T) {
	for _, name := range Names() {
		p, err := New(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		q1, err := p.Fresh()
		if err != nil {
			t.Fatal(err)
		}
		q2, _ := p.Fresh()
		if len(q1.Terms) != len(p.Terms) {
			t.Fatalf("%s: fresh has %d terms, want %d", name, len(q1.Terms), len(p.Terms))
		}
		for i, tm := range p.Terms {
			a, b := q1.Terms[i], q2.Terms[i]
			if a.Name != tm.Name || a.Group != tm.Group || len(a.Points) != len(tm.Points) {
				t.Errorf("%s term %d: fresh %s/%s with %d points, want %s/%s with %d", name, i, a.Name, a.Group, len(a.Points), tm.Name, tm.Group, len(tm.Points))
			}
			if !reflect.DeepEqual(a.Points, b.Points) || !reflect.DeepEqual(a.Target, b.Target) {
				t.Errorf("%s term %s: two fresh draws differ", name, tm.Name)
			}
			if moved := !reflect.DeepEqual(a.Points, tm.Points); moved != !pinned(name, tm.Name) {
				t.Errorf("%s term %s: fresh points moved %v", name, tm.Name, moved)
			}
		}
	}
}

// Redraw keeps every problem's terms and sizes, moves the points
// deterministically, and gives each draw its own points; boundary targets
// follow their points. Only the observations are Measured.
func TestRedraw(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		p, err := New(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, errA := p.Redraw(1)
		if a.Name != name {
			t.Errorf("%s: Redraw(1) is problem %q", name, a.Name)
		}
		a2, errA2 := p.Redraw(1)
		b, errB := p.Redraw(2)
		if errA != nil || errA2 != nil || errB != nil {
			t.Fatal(errA, errA2, errB)
		}
		if !reflect.DeepEqual(a.Terms[0].Points, a2.Terms[0].Points) {
			t.Errorf("%s: Redraw(1) is not deterministic", name)
		}
		for i, tm := range p.Terms {
			if a.Terms[i].Name != tm.Name || len(a.Terms[i].Points) != len(tm.Points) || len(a.Terms[i].Target) != len(tm.Target) {
				t.Errorf("%s term %d: draw 1 has %q with %d points, want %q with %d", name, i, a.Terms[i].Name, len(a.Terms[i].Points), tm.Name, len(tm.Points))
			}
			shared := reflect.DeepEqual(a.Terms[i].Points, tm.Points) || reflect.DeepEqual(a.Terms[i].Points, b.Terms[i].Points)
			if pinned(name, tm.Name) {
				shared = !reflect.DeepEqual(a.Terms[i].Points, tm.Points) || !reflect.DeepEqual(b.Terms[i].Points, tm.Points)
			}
			if shared {
				t.Errorf("%s term %q: draws 0, 1, 2 share their points (or a pinned point moved)", name, tm.Name)
			}
			if want := tm.Group == "data"; tm.Measured != want {
				t.Errorf("%s term %q: Measured %v, want %v", name, tm.Name, tm.Measured, want)
			}
			if tm.Name != "boundary" && tm.Name != "initial" || tm.Target == nil || p.Exact == nil {
				continue // a text value (Target nil) or no Exact: the suite's tests check those
			}
			for j, x := range a.Terms[i].Points {
				if d := math.Abs(a.Terms[i].Target[j] - p.Exact(x)); d > 1e-9 {
					t.Errorf("%s: boundary target at %v is off the exact solution by %g", name, x, d)
					break
				}
			}
		}
	}
}

// TestConstructorsDraw checks that a problem built by its constructor, not
// New, can be redrawn and held out the same way (notebooks build them so).
func TestConstructorsDraw(t *testing.T) {
	t.Parallel()
	o := Options{DataSeed: 3}
	for _, c := range []func(Options) *pde.Problem{Regression, Heat, Wave, Burgers} {
		p := c(o)
		if p.Redraw == nil || p.Fresh == nil {
			t.Fatalf("%s: constructor leaves Redraw or Fresh nil", p.Name)
		}
		viaNew, err := New(p.Name, o)
		if err != nil {
			t.Fatal(err)
		}
		a, errA := p.Redraw(2)
		b, errB := viaNew.Redraw(2)
		f, errF := p.Fresh()
		g, errG := viaNew.Fresh()
		if errA != nil || errB != nil || errF != nil || errG != nil {
			t.Fatal(errA, errB, errF, errG)
		}
		for i := range p.Terms {
			if !reflect.DeepEqual(a.Terms[i].Points, b.Terms[i].Points) || !reflect.DeepEqual(f.Terms[i].Points, g.Terms[i].Points) {
				t.Errorf("%s term %q: the constructor's draws differ from New's", p.Name, p.Terms[i].Name)
			}
		}
	}
}

// BenchmarkRedraw is the cost of one new draw of each problem's points
// (a fit with Settings.Resample = 100 pays it 200 times for Burgers).
func BenchmarkRedraw(b *testing.B) {
	for _, name := range []string{"heat", "wave", "burgers"} {
		p, err := New(name, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for k := uint64(1); b.Loop(); k++ {
				if _, err := p.Redraw(k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
