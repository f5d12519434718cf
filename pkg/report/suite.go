package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// SuiteProblems are the PINNacle suite problems the report fits
// (pkg/problems, docs/results/pinnacle.md), each as a study NAME with the
// trainer's defaults (no schedule: the derived one) and a study
// NAME-fixed with PINNacle's loss on the same net and points. heat2d-lt
// is left out: its reference is a file the product does not ship, so the
// report could not score it (bpinn predict does, at the file's rows).
var SuiteProblems = []string{"heat2d-ms", "wave2d-ms", "poisson-nd", "heat-nd", "poisson-inv", "poisson-inv-as-coded", "burgers1d"}

// pinnacleListed is PINNacle's best listed L2RE of a suite problem and the
// method that reached it, from a secondary summary of PINNacle's paper
// (approximate; "all fail": every listed method near 1).
var pinnacleListed = map[string]struct {
	L2RE   float64
	Method string
}{
	"heat2d-ms": {6.21e-2, "PINN"}, "wave2d-ms": {9.82e-1, "all fail"},
	"poisson-nd": {4.67e-4, "L-BFGS"}, "heat-nd": {1.19e-4, "L-BFGS"}, "poisson-inv": {2.45e-2, "hp-VPINN"},
	"burgers1d": {1.45e-2, "PINN"},
}

// pinnacleClass is the PINNacle name and class of each suite problem.
var pinnacleClass = map[string]string{
	"heat2d-ms": "Heat2d-MS (Heat2D_Multiscale)", "wave2d-ms": "Wave2d-MS (Wave2D_LongTime, as coded)",
	"poisson-nd": "PNd (PoissonND, 5-D)", "heat-nd": "HNd (HeatND, 5-D ball x time)",
	"poisson-inv": "PInv (PoissonInv, source corrected)", "poisson-inv-as-coded": "PInv (PoissonInv, source as coded)",
	"burgers1d": "Burgers1d-C (Burgers1D)",
}

// isSuite reports whether a study is one of the suite's pairs, which
// Plan.SuiteFits sizes.
func isSuite(name string) bool {
	return slices.Contains(SuiteProblems, strings.TrimSuffix(name, "-fixed"))
}

// suiteNames are the suite's studies, each problem's pair in turn.
func suiteNames() []string {
	var names []string
	for _, p := range SuiteProblems {
		names = append(names, p, p+"-fixed")
	}
	return names
}

// describeSuite describes a suite study: the problem of its name with the
// defaults, or with "-fixed" PINNacle's loss (every term's mean square at
// weight 1, no weight decay, no evidence: unitWeights); ok is false for
// every other study.
func (st *Study) describeSuite(cfg *Config) (n int, ok bool) {
	if !isSuite(st.Name) {
		return 0, false
	}
	st.Problem = strings.TrimSuffix(st.Name, "-fixed")
	st.Label = st.Name
	title := "PINNacle's " + pinnacleClass[st.Problem] + " as PINNacle writes it, the net and schedule derived from the problem"
	if st.Problem == st.Name {
		st.Title = title + ", weights by the evidence"
	} else {
		st.Title = title + ", every loss weight 1 on mean squared residuals and no evidence (PINNacle's loss)"
		unitWeights(st)
	}
	return cfg.SuiteFits, true
}

// derivedSteps are the lengths a plan scales of the schedule a study's
// problem has none of (the suite): those bayes.Settings.Resolve derives
// from the problem, so that a plan scales them as a measured schedule's.
func derivedSteps(p *pde.Problem) (epochs, hyperStart, polishIter int, err error) {
	s, err := bayes.Settings{Seed: 1}.Resolve(p)
	return s.Epochs, s.Hyper.Start, s.Polish.Iter, err
}

// median is the median of the values that are not NaN (NaN if none).
func median(v []float64) float64 {
	var x []float64
	for _, a := range v {
		if !math.IsNaN(a) {
			x = append(x, a)
		}
	}
	if len(x) == 0 {
		return math.NaN()
	}
	sort.Float64s(x)
	if n := len(x); n%2 == 0 {
		return (x[n/2-1] + x[n/2]) / 2
	}
	return x[len(x)/2]
}

// suiteErrors is the median of a study's L2RE over its fits and each
// fit's, in seed order ("not run" when the study has no fit).
func suiteErrors(st *Study) (Cell, string) {
	if st == nil || len(st.Fits) == 0 {
		return txt("not run"), ""
	}
	v := make([]float64, len(st.Fits))
	parts := make([]string, len(st.Fits))
	for i, f := range st.Fits {
		v[i], parts[i] = f.RelL2, fmtG(f.RelL2, 2)
	}
	return num(median(v), 3), strings.Join(parts, ", ")
}

// suiteCoverage is the median over a study's fits of its band's 2σ
// coverage, joint and per field.
func suiteCoverage(st *Study) string {
	if st == nil || len(st.Fits) == 0 {
		return "n/a"
	}
	var joint []float64
	fields := map[string][]float64{}
	for _, f := range st.Fits {
		joint = append(joint, f.Coverage)
		for k, c := range f.OutputCoverage {
			fields[k] = append(fields[k], c)
		}
	}
	text := fmtG(median(joint), 3)
	if len(fields) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			parts = append(parts, k+" "+fmtG(median(fields[k]), 3))
		}
		text += " (" + strings.Join(parts, ", ") + ")"
	}
	return text
}

// pinnacleTable sets, per suite problem, our L2RE (the defaults, the
// evidence) beside PINNacle's loss on the same net and points and
// PINNacle's best listed figure.
func (r *Report) pinnacleTable() Table {
	t := Table{ID: "pinnacle", Caption: "PINNacle's suite as PINNacle writes it: the evidence with the defaults beside PINNacle's loss on the same net and points",
		Head: []string{"problem", "PINNacle", "fits", "L2RE, evidence (median)", "per seed", "L2RE, PINNacle's loss (median)", "per seed",
			"s/fit, evidence", "s/fit, PINNacle's loss", "net", "2σ coverage, evidence (median)", "best listed L2RE (PINNacle)"}}
	for _, name := range SuiteProblems {
		ours, fixedSt := r.Study(name), r.Study(name+"-fixed")
		if ours == nil && fixedSt == nil {
			continue
		}
		o, oEach := suiteErrors(ours)
		f, fEach := suiteErrors(fixedSt)
		fits, net, oSec, fSec := "0", "n/a", math.NaN(), math.NaN()
		if ours != nil {
			fits, oSec = fmt.Sprint(len(ours.Fits)), meanSeconds(ours.Fits)
			if ours.sizes != nil {
				net = netText(ours)
			}
		}
		if fixedSt != nil {
			fSec = meanSeconds(fixedSt.Fits)
		}
		listed := "PInv's, for this source as coded"
		if l, ok := pinnacleListed[name]; ok {
			listed = fmt.Sprintf("%.3g (%s)", l.L2RE, l.Method)
		}
		t.Rows = append(t.Rows, []Cell{txt(name), txt(pinnacleClass[name]), txt(fits), o, txt(oEach), f, txt(fEach),
			num(oSec, 3), num(fSec, 3), txt(net), txt(suiteCoverage(ours)), txt(listed)})
	}
	t.Note = "L2RE = ||Y - Y*|| / ||Y*|| jointly over the fields at PINNacle's test points (problems.SuiteTestPoints), Y* the exact solution " +
		"(wave2d-ms: PINNacle's ref_sol, which does not solve the coded equation; no solver of it comes within 0.26); median over the seeds. " +
		"Evidence: bpinn fit NAME with the defaults (net, epochs, hyperparameter steps, polishes and final rounds derived from the problem, balanced starting betas, " +
		"a refit with the conditions first when a condition is left unmet). PINNacle's loss: the same net, points and Adam epochs, every term's mean square at weight 1, " +
		"no weight decay, one polish, no evidence. Best listed: PINNacle's figure with its 5 x 100 net and 4x or more the points, " +
		"from a secondary summary of its paper (approximate). heat2d-lt is not fitted here: its reference is a COMSOL export the report does not ship " +
		"(docs/results/pinnacle.md). s/fit is wall time with the run's concurrency."
	return t
}

// netText is a study's network, inputs to fields, e.g. 3-21-21-1.
func netText(st *Study) string {
	parts := make([]string, len(st.sizes))
	for i, n := range st.sizes {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, "-")
}
