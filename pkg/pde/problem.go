package pde

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// Residual builds a term's residual (N x 1) from the network's jet at the
// term's points and the term's targets (N x 1, nil for a term without data).
// The squared residuals are the term's loss E_D = 1/2 sum r^2.
type Residual func(j *ad.Jet, target *ad.Node) *ad.Node

// Term is one loss term: points in the domain, optional targets, and the
// residual; Group names the beta hyperparameter the term is weighted by when
// betas are split ("pde", "boundary", "data").
type Term struct {
	Name     string
	Group    string
	Points   [][]float64 // one row per point, in the problem's input order
	Target   []float64   // one value per point, or nil
	Residual Residual
	// Measured marks observations: targets measured at given points (with
	// noise), not a condition that holds wherever one looks. Training that
	// redraws the points of the other terms (Problem.Redraw) keeps these.
	Measured bool
	// Draw, if not nil, says how Problem.Sample draws the term's Points
	// and Target: a region of the domain, a count and a sampler.
	Draw *Draw
}

// Defaults are the paper's settings for a problem.
type Defaults struct {
	Hidden     []int  // hidden layer sizes
	Epochs     int    // Adam epochs
	HyperStart int    // first epoch with a hyperparameter update
	HyperEvery int    // epochs between hyperparameter updates
	AlphaMode  string // "single" or "classes"
	BetaMode   string // "single" or "split"
	// FinalHyper caps the tuned recipe's final MacKay rounds where the
	// default (20) does not suit the problem; 0 means the default.
	FinalHyper int
}

// Problem is a PDE (or a regression) as data: the domain, the loss terms and
// the exact or reference solution.
type Problem struct {
	Name   string
	Inputs []string  // input names in order, e.g. x, t
	Lo, Hi []float64 // the domain box
	Params map[string]float64
	// Sampling is how the paper's problems drew their points (Uniform or
	// LatinHypercube); "" for points given otherwise.
	Sampling string
	Terms    []Term
	// Exact returns the exact or reference solution at a point (nil if none).
	Exact    func(x []float64) float64
	Defaults Defaults
	// Fresh, if not nil, returns the same problem with new points (and new
	// measurement noise) of the same kinds: held-out points on which a fit's
	// residuals show what its training points cannot, e.g. a PDE satisfied
	// at the collocation points and not between them.
	// The paper's problems (New and their constructors) set it and Redraw.
	Fresh func() (*Problem, error)
	// Redraw, if not nil, returns draw k >= 1 of the problem's points: the
	// same terms, in the same order and sizes, at new points. A trainer
	// uses it to move the collocation points during training while the
	// Measured terms stay; k = 0 is the problem's own draw.
	Redraw func(k uint64) (*Problem, error)
}

// Dim is the number of inputs.
func (p *Problem) Dim() int { return len(p.Inputs) }

// BetaGroups returns the beta group names for a mode, and for each term the
// index of its group: "single" puts every term in one group "beta".
func (p *Problem) BetaGroups(mode string) (names []string, termGroup []int, err error) {
	switch mode {
	case "single", "":
		return []string{"beta"}, make([]int, len(p.Terms)), nil
	case "split":
		idx := map[string]int{}
		termGroup = make([]int, len(p.Terms))
		for i, t := range p.Terms {
			k, ok := idx[t.Group]
			if !ok {
				k = len(names)
				idx[t.Group] = k
				names = append(names, "beta_"+t.Group)
			}
			termGroup[i] = k
		}
		return names, termGroup, nil
	}
	return nil, nil, fmt.Errorf("unknown beta mode %q: use single or split", mode)
}

// Validate checks the problem's data: at least one term, every term with
// points of the right dimension inside the domain, targets matching points,
// finite values. Errors name the term and the field.
func (p *Problem) Validate() error {
	if p.Dim() < 1 || p.Dim() > 3 {
		return fmt.Errorf("problem %q: %d inputs; a problem has 1 to 3 inputs", p.Name, p.Dim())
	}
	if len(p.Lo) != p.Dim() || len(p.Hi) != p.Dim() {
		return fmt.Errorf("problem %q: domain Lo/Hi need %d values each", p.Name, p.Dim())
	}
	for i := range p.Lo {
		if !(p.Lo[i] < p.Hi[i]) {
			return fmt.Errorf("problem %q: domain of %s is [%g, %g]; need Lo < Hi", p.Name, p.Inputs[i], p.Lo[i], p.Hi[i])
		}
	}
	if len(p.Terms) == 0 {
		return fmt.Errorf("problem %q: no loss terms; add at least one Term", p.Name)
	}
	for _, t := range p.Terms {
		if len(t.Points) == 0 {
			return fmt.Errorf("problem %q term %q: no points; give it at least one point", p.Name, t.Name)
		}
		if t.Residual == nil {
			return fmt.Errorf("problem %q term %q: no Residual function", p.Name, t.Name)
		}
		if t.Target != nil && len(t.Target) != len(t.Points) {
			return fmt.Errorf("problem %q term %q: %d targets for %d points", p.Name, t.Name, len(t.Target), len(t.Points))
		}
		for k, x := range t.Points {
			if len(x) != p.Dim() {
				return fmt.Errorf("problem %q term %q: point %d has %d coordinates, want %d (%v)", p.Name, t.Name, k, len(x), p.Dim(), p.Inputs)
			}
			for i, v := range x {
				if math.IsNaN(v) || v < p.Lo[i] || v > p.Hi[i] {
					return fmt.Errorf("problem %q term %q: point %d has %s = %g outside [%g, %g]", p.Name, t.Name, k, p.Inputs[i], v, p.Lo[i], p.Hi[i])
				}
			}
		}
		for k, v := range t.Target {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("problem %q term %q: target %d is %v", p.Name, t.Name, k, v)
			}
		}
	}
	return nil
}

// NumPoints is the number of residuals of all terms.
func (p *Problem) NumPoints() int {
	n := 0
	for _, t := range p.Terms {
		n += len(t.Points)
	}
	return n
}

// Grid returns a grid over the domain with the exact solution at each point
// (nil if the problem has none): n points in 1-D, n x n in 2-D, and in 3-D
// and 4-D m^d points with m = max(2, round(n^(2/d))), about as many points as
// in 2-D. The first input varies fastest.
func (p *Problem) Grid(n int) (pts [][]float64, exact []float64) {
	d := p.Dim()
	if d < 1 || d > 4 {
		panic(fmt.Sprintf("pde: Grid: %d inputs; a problem has 1 to 4 inputs", d))
	}
	m := max(n, 0)
	if d > 2 {
		m = max(2, int(math.Round(math.Pow(float64(n), 2/float64(d)))))
	}
	total := 1
	for range d {
		total *= m
	}
	for i := 0; i < total; i++ {
		x := make([]float64, d)
		for k, r := 0, i; k < d; k, r = k+1, r/m {
			x[k] = lerp(p.Lo[k], p.Hi[k], r%m, m)
		}
		pts = append(pts, x)
	}
	if p.Exact != nil {
		exact = make([]float64, len(pts))
		for i, x := range pts {
			exact[i] = p.Exact(x)
		}
	}
	return pts, exact
}

func lerp(lo, hi float64, i, n int) float64 {
	if n == 1 {
		return (lo + hi) / 2
	}
	return lo + (hi-lo)*float64(i)/float64(n-1)
}

// Fit residual builders shared by the problems.

// DataResidual is u - target.
func DataResidual(j *ad.Jet, target *ad.Node) *ad.Node { return ad.Sub(j.U, target) }

// DerivativeResidual returns the residual d u/d x_i - target.
func DerivativeResidual(i int) Residual {
	return func(j *ad.Jet, target *ad.Node) *ad.Node { return ad.Sub(j.D(i), target) }
}

func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

// sampler draws training points from the data seed's stream, by
// independent uniform draws or by Latin hypercube sampling (lhs).
type sampler struct {
	rng  *rand.Rand
	lhs  bool
	name string
}

// strata returns n values in [lo, hi], one uniform in each of n equal
// pieces, in a random order.
func (s sampler) strata(n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i, k := range s.rng.Perm(n) {
		v[i] = lo + (hi-lo)*(float64(k)+s.rng.Float64())/float64(n)
	}
	return v
}

// line returns n values in [lo, hi]: independent uniform draws, or one in
// each of n equal pieces.
func (s sampler) line(n int, lo, hi float64) []float64 {
	if s.lhs {
		return s.strata(n, lo, hi)
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = uniform(s.rng, lo, hi)
	}
	return v
}

// box returns n points in the box [lo, hi]: independent uniform draws
// (coordinates of a point drawn in turn), or a Latin hypercube.
func (s sampler) box(n int, lo, hi []float64) [][]float64 {
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, len(lo))
	}
	if s.lhs {
		for d := range lo {
			for i, v := range s.strata(n, lo[d], hi[d]) {
				pts[i][d] = v
			}
		}
		return pts
	}
	for _, p := range pts {
		for d := range p {
			p[d] = uniform(s.rng, lo[d], hi[d])
		}
	}
	return pts
}

// boundary returns n points on the edges x=lo0, x=hi0 and t=lo1 of a 2-D
// box with the exact value g. Uniform picks an edge with probability 1/3
// per point and a uniform position on it; lhs stratifies the three edges
// laid end to end (each counted as length 1), so each edge gets n/3 points
// (up to two) spread along it.
func (s sampler) boundary(n int, lo, hi []float64, g func(x, t float64) float64) ([][]float64, []float64) {
	pts := make([][]float64, n)
	tgt := make([]float64, n)
	var along []float64
	if s.lhs {
		along = s.strata(n, 0, 3)
	}
	for i := range pts {
		var edge int
		var f float64 // position along the edge, in [0, 1)
		if s.lhs {
			e := math.Min(math.Floor(along[i]), 2)
			edge, f = int(e), along[i]-e
		} else {
			edge = s.rng.IntN(3)
		}
		var x, t float64
		switch edge {
		case 0:
			x, t = lo[0], s.pos(f, lo[1], hi[1])
		case 1:
			x, t = hi[0], s.pos(f, lo[1], hi[1])
		default:
			x, t = s.pos(f, lo[0], hi[0]), lo[1]
		}
		pts[i] = []float64{x, t}
		tgt[i] = g(x, t)
	}
	return pts, tgt
}

// pos maps a stratified fraction f to [lo, hi], or draws uniformly.
func (s sampler) pos(f, lo, hi float64) float64 {
	if s.lhs {
		return lo + (hi-lo)*f
	}
	return uniform(s.rng, lo, hi)
}
