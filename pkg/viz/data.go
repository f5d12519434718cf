package viz

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// PointSet is one group of training points in a 2-D domain, for instance
// the collocation points of one loss term ("equation", "boundary", "data").
type PointSet struct {
	Name string
	X, Y []float64 // coordinates; same length
}

// Series is one recorded quantity during training.
type Series struct {
	Name   string    // legend text; empty: a default from the panel (α, α_1, ...)
	Epochs []int     // strictly increasing
	Values []float64 // one per epoch
}

// History is what the Training figure shows: each quantity carries its own
// epochs, so that E_T may be recorded every epoch and the hyperparameters
// only at the hyper-phase updates. A series without values is left out.
type History struct {
	ET          Series   // total loss E_T
	EHyp        Series   // E_hyp, minus the log of p(D|α,β)
	Alpha       []Series // one per α group (weight class), values > 0
	Beta        []Series // one per β group (loss term), values > 0
	LogEvidence Series   // ln Z, optional
}

// Slice is the solution at one time t: the exact (or reference) solution,
// the prediction and its standard deviation at the points X.
type Slice struct {
	T     float64   // time of the slice
	Label string    // panel title; empty: "t = <T>"
	X     []float64 // points; any order (they are sorted for drawing)
	Exact []float64 // u_true(X, T); nil if unknown
	Pred  []float64 // u_pred(X, T)
	Sigma []float64 // predictive standard deviation, >= 0; nil if none
}

func (s Slice) title() string {
	if s.Label != "" {
		return s.Label
	}
	return fmt.Sprintf("t = %.3g", s.T)
}

// Field is a scalar field on a rectangular grid, for instance u(x, t) or
// |u - u_exact|. Z is row-major over Y: Z[j*len(X)+i] is the value at
// (X[i], Y[j]), the order of a loop over Y outside a loop over X.
type Field struct {
	X, Y []float64 // strictly increasing grid coordinates, at least 2 each
	Z    []float64 // len(X)*len(Y) values
	// Mask, if not nil, has len(Z) entries; a true one is a cell outside
	// the domain (a hole of the plate), left blank and out of the colour
	// scale, whatever its Z.
	Mask []bool
}

// masked reports whether cell i of f is outside the domain.
func (f Field) masked(i int) bool { return f.Mask != nil && f.Mask[i] }

// Band is a posterior predictive on a grid: mean and standard deviation.
type Band struct {
	Name  string // e.g. "Laplace (evidence)" or "HMC"
	Mean  []float64
	Sigma []float64 // >= 0
}

// Comparison holds what the Laplace-vs-HMC figure shows: noisy data, the
// true curve and one or more posterior predictives on the grid X.
type Comparison struct {
	DataX, DataY []float64 // training data; may be empty
	X            []float64 // grid; any order
	True         []float64 // true curve on X; nil if unknown
	Fits         []Band    // one panel each, e.g. Laplace then HMC
}

// HiddenEvidence is the log evidence of every ensemble member trained with
// a given number of hidden units.
type HiddenEvidence struct {
	Hidden int
	LogZ   []float64
}

// RelativeLogEvidence returns ln Z_i - max_j ln Z_j, the quantity of the
// paper's evidence histograms (all values <= 0, the best model at 0).
func RelativeLogEvidence(logZ []float64) ([]float64, error) {
	if err := checkVec("RelativeLogEvidence", "logZ", logZ, -1); err != nil {
		return nil, err
	}
	m := slices.Max(logZ)
	out := make([]float64, len(logZ))
	for i, v := range logZ {
		out[i] = v - m
	}
	return out, nil
}

// sortByX returns copies of x and of each column, reordered so that x is
// non-decreasing. nil columns stay nil.
func sortByX(x []float64, cols ...[]float64) ([]float64, [][]float64) {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	perm := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, len(idx))
		for i, j := range idx {
			out[i] = v[j]
		}
		return out
	}
	outs := make([][]float64, len(cols))
	for k, c := range cols {
		outs[k] = perm(c)
	}
	return perm(x), outs
}

func checkIncreasing(fig, name string, v []float64) error {
	for i := 1; i < len(v); i++ {
		if !(v[i] > v[i-1]) {
			return fmt.Errorf("viz: %s: %s[%d] = %g not above %s[%d] = %g, want strictly increasing: %w",
				fig, name, i, v[i], name, i-1, v[i-1], ErrDomain)
		}
	}
	return nil
}

// checkSlice validates one slice; needExact/needSigma make those required.
func checkSlice(fig string, k int, s Slice, needExact, needSigma bool) error {
	name := func(f string) string { return fmt.Sprintf("slice %d %s", k, f) }
	if err := checkVec(fig, name("X"), s.X, -1); err != nil {
		return err
	}
	n := len(s.X)
	if err := checkVec(fig, name("Pred"), s.Pred, n); err != nil {
		return err
	}
	if s.Exact != nil || needExact {
		if err := checkVec(fig, name("Exact"), s.Exact, n); err != nil {
			return err
		}
	}
	if s.Sigma != nil || needSigma {
		if err := checkVec(fig, name("Sigma"), s.Sigma, n); err != nil {
			return err
		}
		if err := checkPositive(fig, name("Sigma"), s.Sigma, true); err != nil {
			return err
		}
	}
	if math.IsNaN(s.T) || math.IsInf(s.T, 0) {
		return fmt.Errorf("viz: %s: slice %d T = %v: %w", fig, k, s.T, ErrDomain)
	}
	return nil
}

func (h History) panels() []historyPanel {
	named := func(ss []Series, sym string) []Series {
		var out []Series
		for i, s := range ss {
			if len(s.Values) == 0 && len(s.Epochs) == 0 {
				continue
			}
			if s.Name == "" {
				s.Name = sym
				if len(ss) > 1 {
					s.Name = fmt.Sprintf("%s_%d", sym, i+1)
				}
			}
			out = append(out, s)
		}
		return out
	}
	one := func(s Series, name string) []Series {
		if len(s.Values) == 0 && len(s.Epochs) == 0 {
			return nil
		}
		if s.Name == "" {
			s.Name = name
		}
		return []Series{s}
	}
	all := []historyPanel{
		{title: "E_T", series: one(h.ET, "E_T")},
		{title: "β", series: named(h.Beta, "β"), positive: true},
		{title: "α", series: named(h.Alpha, "α"), positive: true},
		{title: "E_hyp", series: one(h.EHyp, "E_hyp")},
		{title: "ln Z", series: one(h.LogEvidence, "ln Z")},
	}
	var out []historyPanel
	for _, p := range all {
		if len(p.series) > 0 {
			out = append(out, p)
		}
	}
	return out
}

type historyPanel struct {
	title    string
	series   []Series
	positive bool // values must be > 0
}

// logY reports whether the panel is drawn on a log axis: when all its
// values are positive and they span at least a factor of 10.
func (p historyPanel) logY() bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range p.series {
		for _, v := range s.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo > 0 && hi >= 10*lo
}

func (h History) check(fig string) ([]historyPanel, error) {
	ps := h.panels()
	if len(ps) == 0 {
		return nil, fmt.Errorf("viz: %s: empty history: %w", fig, ErrEmpty)
	}
	for _, p := range ps {
		for _, s := range p.series {
			what := fmt.Sprintf("%s %q", p.title, s.Name)
			if err := checkVec(fig, what+" Values", s.Values, len(s.Epochs)); err != nil {
				return nil, err
			}
			for i := 1; i < len(s.Epochs); i++ {
				if s.Epochs[i] <= s.Epochs[i-1] {
					return nil, fmt.Errorf("viz: %s: %s Epochs[%d] = %d not above %d, want strictly increasing: %w",
						fig, what, i, s.Epochs[i], s.Epochs[i-1], ErrDomain)
				}
			}
			if p.positive {
				if err := checkPositive(fig, what+" Values", s.Values, false); err != nil {
					return nil, err
				}
			}
		}
	}
	return ps, nil
}

func (c Comparison) check(fig string) error {
	if len(c.Fits) == 0 {
		return fmt.Errorf("viz: %s: no fits: %w", fig, ErrEmpty)
	}
	if err := checkVec(fig, "X", c.X, -1); err != nil {
		return err
	}
	if len(c.DataX) > 0 || len(c.DataY) > 0 {
		if err := checkVec(fig, "DataX", c.DataX, -1); err != nil {
			return err
		}
		if err := checkVec(fig, "DataY", c.DataY, len(c.DataX)); err != nil {
			return err
		}
	}
	if c.True != nil {
		if err := checkVec(fig, "True", c.True, len(c.X)); err != nil {
			return err
		}
	}
	for i, f := range c.Fits {
		if err := checkVec(fig, fmt.Sprintf("Fits[%d] Mean", i), f.Mean, len(c.X)); err != nil {
			return err
		}
		if err := checkVec(fig, fmt.Sprintf("Fits[%d] Sigma", i), f.Sigma, len(c.X)); err != nil {
			return err
		}
		if err := checkPositive(fig, fmt.Sprintf("Fits[%d] Sigma", i), f.Sigma, true); err != nil {
			return err
		}
	}
	return nil
}

func (f Field) check(fig string) (lo, hi float64, err error) {
	if len(f.X) < 2 || len(f.Y) < 2 {
		return 0, 0, fmt.Errorf("viz: %s: grid %d x %d, want at least 2 x 2: %w", fig, len(f.X), len(f.Y), ErrEmpty)
	}
	for _, v := range []struct {
		name string
		v    []float64
	}{{"X", f.X}, {"Y", f.Y}} {
		if err := checkVec(fig, v.name, v.v, -1); err != nil {
			return 0, 0, err
		}
		if err := checkIncreasing(fig, v.name, v.v); err != nil {
			return 0, 0, err
		}
	}
	if err := checkVec(fig, "Z", f.Z, len(f.X)*len(f.Y)); err != nil {
		return 0, 0, err
	}
	if f.Mask != nil && len(f.Mask) != len(f.Z) {
		return 0, 0, fmt.Errorf("viz: %s: Mask has %d entries, Z %d: %w", fig, len(f.Mask), len(f.Z), ErrLength)
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, z := range f.Z {
		if !f.masked(i) {
			lo, hi = min(lo, z), max(hi, z)
		}
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("viz: %s: every cell is masked: %w", fig, ErrEmpty)
	}
	if lo == hi { // a constant field still gets a colour bar
		d := math.Max(math.Abs(lo)*0.05, 0.5)
		lo, hi = lo-d, hi+d
	}
	return lo, hi, nil
}

func checkHidden(fig string, groups []HiddenEvidence) ([]HiddenEvidence, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("viz: %s: no architectures: %w", fig, ErrEmpty)
	}
	gs := slices.Clone(groups)
	sort.SliceStable(gs, func(a, b int) bool { return gs[a].Hidden < gs[b].Hidden })
	for i, g := range gs {
		if g.Hidden <= 0 {
			return nil, fmt.Errorf("viz: %s: Hidden = %d, want > 0: %w", fig, g.Hidden, ErrDomain)
		}
		if i > 0 && g.Hidden == gs[i-1].Hidden {
			return nil, fmt.Errorf("viz: %s: Hidden = %d given twice: %w", fig, g.Hidden, ErrDomain)
		}
		if err := checkVec(fig, fmt.Sprintf("LogZ of %d hidden", g.Hidden), g.LogZ, -1); err != nil {
			return nil, err
		}
	}
	return gs, nil
}

// hiddenStats is what the evidence-vs-size figures draw of checked groups:
// the sizes in increasing order with the mean and standard deviation of
// each size's ln Z, and every member as (size, ln Z).
type hiddenStats struct {
	hidden, mean, sd []float64
	memX, memY       []float64
}

func newHiddenStats(gs []HiddenEvidence) hiddenStats {
	var st hiddenStats
	for _, g := range gs {
		h := float64(g.Hidden)
		st.hidden = append(st.hidden, h)
		for _, z := range g.LogZ {
			st.memX, st.memY = append(st.memX, h), append(st.memY, z)
		}
		m, sd := meanStd(g.LogZ)
		st.mean, st.sd = append(st.mean, m), append(st.sd, sd)
	}
	return st
}

func meanStd(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

type histBin struct {
	lo, hi float64
	n      int
}

// histogram bins v into n equal bins over [min, max] (the last bin closed);
// n <= 0 picks ceil(sqrt(len(v))) clamped to [1, 50].
func histogram(v []float64, n int) []histBin {
	if n <= 0 {
		n = int(math.Ceil(math.Sqrt(float64(len(v)))))
		n = max(1, min(n, 50))
	}
	lo, hi := slices.Min(v), slices.Max(v)
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	w := (hi - lo) / float64(n)
	bins := make([]histBin, n)
	for i := range bins {
		bins[i] = histBin{lo: lo + float64(i)*w, hi: lo + float64(i+1)*w}
	}
	bins[n-1].hi = hi
	for _, x := range v {
		i := int((x - lo) / w)
		i = max(0, min(i, n-1))
		bins[i].n++
	}
	return bins
}
