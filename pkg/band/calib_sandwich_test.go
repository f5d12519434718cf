package band_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
)

// sandwichPriors are the sandwich band's priors TestCalibAnyFit scores,
// by the short name its table prints.
var sandwichPriors = []struct {
	name  string
	prior band.SandwichPrior
}{{"sw0", band.SandwichNoPrior}, {"swA", band.SandwichPriorCurvature}, {"swS", band.SandwichPriorScore}}

// sandwichModes are how the scored sandwich bands take the fresh
// residuals (band.SandwichValued), "" the sandwich itself.
var sandwichModes = []string{"", "stated", "geometric", "shape"}

// sandwichTally counts, per candidate band, the fits of a study that meet
// both targets.
type sandwichTally struct {
	names []string
	met   map[string]int
}

// sandwichScores scores f's sandwich bands on the records' grid (with
// BPINN_CALIB_SANDWICH set, TestCalibAnyFit): each prior's band alone
// ("sw0", "swA", "swS"); with the prior's curvature, also the bands of
// the fresh residuals tempered (sandwichModes: "swAstated", ...), each
// alone, through the calibrated band's value check ("+v"), and the larger
// ("max") and the geometric mean ("gm") of it and the calibrated band. It
// returns the line of coverage / q95 / median sigma over the paper's it
// prints and adds to tally.
func sandwichScores(t *testing.T, f *bayes.Fit, tally *sandwichTally) string {
	q, err := f.Model.Problem.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	d := drawOf(t, q)
	pts, exact := calibGrid(f.Model.Problem)
	mean, J, err := f.Jacobian(pts)
	if err != nil {
		t.Fatal(err)
	}
	n := len(pts)
	cal, err := band.Calibrated(f, d)
	if err != nil {
		return " calibrated: " + err.Error()
	}
	calSigma := cal.Laplace.Sigmas(J, n)
	cal.Widen(pts, calSigma)
	paper := f.Laplace.Sigmas(J, n)
	var line strings.Builder
	add := func(name string, sigma []float64) {
		cov, q95, wider := bandStats(mean, sigma, exact, paper)
		ok := meetsBoth(cov, q95)
		if !slices.Contains(tally.names, name) {
			tally.names = append(tally.names, name)
		}
		tally.met[name] += ok
		fmt.Fprintf(&line, " %s %.3f/%.2f/x%.2g%s", name, cov, q95, wider, map[int]string{0: "", 1: "*"}[ok])
	}
	for _, sp := range sandwichPriors {
		modes := sandwichModes
		if sp.prior != band.SandwichPriorCurvature {
			modes = modes[:1] // the other priors: the sandwich alone
		}
		for _, mode := range modes {
			name := sp.name + mode
			sw, err := band.SandwichValued(f, d, sp.prior, mode)
			if err != nil {
				fmt.Fprintf(&line, " %s: %v", name, err)
				continue
			}
			raw := sw.Laplace.Sigmas(J, n)
			add(name, raw)
			if sp.prior != band.SandwichPriorCurvature {
				continue
			}
			v := slices.Clone(raw)
			sw.Widen(pts, v)
			add(name+"+v", v)
			mx, gm := make([]float64, n), make([]float64, n)
			for i := range raw {
				mx[i], gm[i] = math.Max(raw[i], calSigma[i]), math.Sqrt(raw[i]*calSigma[i])
			}
			add("max("+name+",cal)", mx)
			add("gm("+name+",cal)", gm)
		}
	}
	return line.String()
}

// String is the tally's counts, in the order the candidates were scored.
func (s *sandwichTally) String() string {
	var b strings.Builder
	for _, n := range s.names {
		fmt.Fprintf(&b, " %s %d;", n, s.met[n])
	}
	return b.String()
}
