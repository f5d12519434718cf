package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// Cell is a table cell. A Num cell holds a number (Text parses as one); an
// undefined number is a non-Num cell "n/a".
type Cell struct {
	Text string `json:"text"`
	Num  bool   `json:"num,omitempty"`
}

// Table is one table of the report.
type Table struct {
	ID      string   `json:"id"`
	Caption string   `json:"caption"`
	Head    []string `json:"head"`
	Rows    [][]Cell `json:"rows"`
	// Legend explains the codes the rows use, one "code: meaning" line
	// each, shown right below the table.
	Legend []string `json:"legend,omitempty"`
	Note   string   `json:"note,omitempty"`
}

func txt(s string) Cell { return Cell{Text: s} }

// num formats x with %.*g, "n/a" when undefined.
func num(x float64, prec int) Cell {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Cell{Text: "n/a"}
	}
	return Cell{Text: fmt.Sprintf("%.*g", prec, x), Num: true}
}

func fixed(x float64, prec int) Cell {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Cell{Text: "n/a"}
	}
	return Cell{Text: fmt.Sprintf("%.*f", prec, x), Num: true}
}

func integer(n int) Cell { return Cell{Text: fmt.Sprint(n), Num: true} }

func ptr(p *float64, prec int) Cell {
	if p == nil {
		return Cell{Text: "n/a"}
	}
	return num(*p, prec)
}

// The paper's numbers.
var (
	paperTable1 = map[string][2]float64{ // L2 of the best fit, seconds per fit
		"heat": {0.051, 59}, "wave": {0.119, 152}, "wave-full": {0.011, 159}, "burgers": {0.103, 588},
	}
	paperTable3 = map[string][3]float64{ // L2_best, mean L2, mean MAD over the five best
		"heat-fixed": {0.00538, 0.00588, 0.00446}, "heat": {0.00508, 0.00678, 0.00530},
		"wave-fixed": {0.0129, 0.01514, 0.01248}, "wave": {0.01146, 0.01114, 0.00903},
	}
	paperRegression = [2]float64{0.24, 596} // alpha, beta of the best regression fit
)

// byEvidence returns the fits with a defined evidence, highest first (ties
// by seed).
func byEvidence(fits []FitRecord) []FitRecord {
	return sortedBy(fits, func(r FitRecord) float64 { return -r.LogEvidence })
}

// byError returns the fits with a defined error, lowest first (ties by
// seed).
func byError(fits []FitRecord) []FitRecord {
	return sortedBy(fits, func(r FitRecord) float64 { return r.RelL2 })
}

// sortedBy returns the fits whose key is not NaN, by increasing key, ties
// by seed.
func sortedBy(fits []FitRecord, key func(FitRecord) float64) []FitRecord {
	var out []FitRecord
	for _, r := range fits {
		if !math.IsNaN(key(r)) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b FitRecord) int {
		if c := cmp.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Seed, b.Seed)
	})
	return out
}

// ranked is how a study picks its best fits: by evidence, or for the fixed
// baseline (no evidence worth the name) by the lowest error, as the paper.
func ranked(st *Study) []FitRecord {
	if st.Base.Fixed.On {
		return byError(st.Fits)
	}
	return byEvidence(st.Fits)
}

func okCount(fits []FitRecord) int {
	n := 0
	for _, r := range fits {
		if r.Status == string(bayes.StatusOK) {
			n++
		}
	}
	return n
}

func meanSeconds(fits []FitRecord) float64 {
	if len(fits) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, r := range fits {
		s += r.Seconds
	}
	return s / float64(len(fits))
}

func namedValues(names []string, v []float64) string {
	return heldValues(names, v, nil)
}

// heldValues is namedValues with each value whose held entry is true (a
// beta held at a known noise, record.Result.HeldBetas) marked "(held)".
func heldValues(names []string, v []float64, held []bool) string {
	parts := make([]string, len(v))
	for i := range v {
		parts[i] = fmtG(v[i], 4)
		if len(v) > 1 {
			n := fmt.Sprint(i)
			if i < len(names) {
				n = names[i]
			}
			parts[i] = n + " " + parts[i]
		}
		if i < len(held) && held[i] {
			parts[i] += " (held)"
		}
	}
	return strings.Join(parts, ", ")
}

func rho(fits []FitRecord) float64 {
	z, e := evidenceAndError(fits)
	return record.Spearman(z, e)
}

// Tables returns the report's tables: the summary of every study, the
// paper's Tables 1-3 rebuilt from our runs, the inverse problems, the
// scan per network size and the PINNacle suite (when they ran) and the
// settings.
func (r *Report) Tables() []Table {
	ts := []Table{r.summaryTable(), r.table1(), r.table2(), r.samplingTable(), r.table3(), r.inverseTable()}
	if st := r.Study("scan"); st != nil {
		ts = append(ts, scanTable(st))
	}
	if slices.ContainsFunc(r.Studies, func(st *Study) bool { return isSuite(st.Name) }) {
		ts = append(ts, r.pinnacleTable())
	}
	return append(ts, r.settingsTable())
}

// summaryTable is one row per study: the best fit by evidence (by error for
// the fixed baseline) with the paper's numbers beside.
func (r *Report) summaryTable() Table {
	t := Table{ID: "summary", Caption: "Every study: the best fit by evidence (fixed baseline: by error)",
		Head: []string{"study", "fits (ok)", "best seed", "rel L2", "coverage 2σ", "q95", "coverage, held-out β", "coverage, calibrated", "q95, calibrated", "alphas", "betas", "ln Z", "rho(ln Z, L2)", "min rel L2", "s/fit", "warnings (best fit)", "paper"}}
	var used []string // warning codes of the rows, for the legend
	for _, st := range r.Studies {
		if st.Err != nil && len(st.Fits) == 0 {
			row := []Cell{txt(st.Name), txt("failed")}
			for len(row) < len(t.Head)-1 {
				row = append(row, txt(""))
			}
			t.Rows = append(t.Rows, append(row, txt(paperNote(st.Name))))
			continue
		}
		rk := ranked(st)
		row := []Cell{txt(st.Name), txt(fmt.Sprintf("%d (%d)", len(st.Fits), okCount(st.Fits)))}
		warnings := ""
		if len(rk) == 0 {
			row = append(row, txt("none"))
			for range 9 {
				row = append(row, txt("n/a"))
			}
		} else {
			b := rk[0]
			row = append(row, integer(int(b.Seed)), num(b.RelL2, 3), fixed(b.Coverage, 3), fixed(b.Q95, 2), fixed(b.CoverageHeldOut, 3),
				fixed(b.CoverageCalibrated, 3), fixed(b.Q95Calibrated, 2), txt(namedValues(b.AlphaNames, b.Alpha)), txt(heldValues(b.BetaNames, b.Beta, b.HeldBetas)), fixed(b.LogEvidence, 2))
			codes := warningCodes(b.Warnings)
			warnings = strings.Join(codes, ", ")
			for _, c := range codes {
				if !slices.Contains(used, c) {
					used = append(used, c)
				}
			}
		}
		min := math.NaN()
		if e := byError(st.Fits); len(e) > 0 {
			min = e[0].RelL2
		}
		row = append(row, fixed(rho(st.Fits), 2), num(min, 3), num(meanSeconds(st.Fits), 3), txt(warnings), txt(paperNote(st.Name)))
		t.Rows = append(t.Rows, row)
	}
	t.Legend = warningLegend(used)
	t.Note = "rel L2 = ||u - u*|| / ||u*|| on the 100 x 100 grid (200 points for regression, over [-1, 1] where much holds no data; " +
		"poisson-holes: the grid points of the plate, u* the project's finite-difference reference); " +
		"coverage = share of grid points with |u - u*| <= 2σ (σ Laplace, no noise term; 0.954 if calibrated); " +
		"q95 = 95 % quantile of |u - u*|/σ (1.96 if calibrated); " +
		"held-out β: the same band with each β from the residuals at fresh points (band.HeldOut, not the paper's; wider); " +
		"calibrated: β the geometric mean of the fitted and the held-out one (with several β groups, that far in ln β times the group's share of γ; σ widened where a term's fresh residuals near a point exceed band.LocalRatio times their rms; after held-out final rounds from the β of the training misfit, every group at the geometric mean) where the fresh residuals exceed band.OverconfidentRatio times the training ones, else the paper's; then widened by sqrt(q95/2) where q95 of |u - target|/σ at fresh points of the conditions on u itself, where the residual is the error, exceeds 2, or narrowed by q95/band.ValueNarrow where that q95 is below band.ValueNarrow, no residual ratio widened it and every β group's fresh rms is within band.OverconfidentRatio times what its β states (band.Calibrated, no exact solution used; docs/calibration.md); " +
		"ln Z drops -N/2 ln 2π like the paper; rho < 0: higher evidence goes with lower error; s/fit is wall time with the run's concurrency; " +
		"warnings (best fit): what its ok status does not say, as the codes explained above this note; the sentences are in the study's records (warnings)."
	return t
}

func paperNote(study string) string {
	switch study {
	case "hmc":
		return fmt.Sprintf("alpha %g, beta %g", paperRegression[0], paperRegression[1])
	case "heat", "wave":
		return fmt.Sprintf("Table 1: %g; Table 3 Bayes: %g", paperTable1[study][0], paperTable3[study][0])
	case "wave-full", "burgers":
		return fmt.Sprintf("Table 1: %g", paperTable1[study][0])
	case "burgers-deep":
		return fmt.Sprintf("Table 1 (2-8-8-1): %g", paperTable1["burgers"][0])
	case "burgers-wide", "burgers-wide-fixed":
		return "(not in the paper)"
	case "lid-driven", "lid-driven-fixed":
		return "(not in the paper; PINNacle's NS2d-C: 3.6e-2 best, 4.7e-2 vanilla)"
	case "heat-lhs":
		return fmt.Sprintf("Table 1 (uniform points): %g", paperTable1["heat"][0])
	case "heat-fixed", "wave-fixed":
		return fmt.Sprintf("Table 3 fixed: %g", paperTable3[study][0])
	case "scan", "heat-inverse", "wave-inverse", "burgers-inverse", "lotka-volterra-inverse":
		return "(not in the paper)"
	case "burgers-identify", "burgers-identify-fixed":
		return "(not in the paper; Raissi et al.'s appendix table, 2000 points, 1 % noise: l1 off 0.039 %, l2 0.008 %, one run, no interval)"
	case "poisson-holes", "poisson-holes-fixed":
		return "(not in the paper; PINNacle's Poisson2d-C, best listed L2RE 1.23e-2)"
	}
	return ""
}

// paperProblem is the paper's study beside which a variant of ours is
// shown: heat-lhs beside heat, burgers-deep beside the 2-8-8-1 burgers.
func paperProblem(study string) string {
	return strings.TrimSuffix(strings.TrimSuffix(study, "-deep"), "-lhs")
}

// table1 is the paper's Table 1: L2 of the best model by evidence and the
// time per fit.
func (r *Report) table1() Table {
	t := Table{ID: "table1", Caption: "Table 1: L2 of the best model by evidence and time per fit, ours beside the paper's",
		Head: []string{"problem", "fits", "rel L2 (ours)", "MSE (ours)", "L2 (paper)", "s/fit (ours)", "s/fit (paper)"}}
	for _, name := range []string{"heat", "heat-lhs", "wave", "wave-full", "burgers", "burgers-deep", "burgers-wide", "burgers-wide-fixed", "lid-driven", "lid-driven-fixed"} {
		st := r.Study(name)
		p, inPaper := paperTable1[paperProblem(name)]
		row := []Cell{txt(name)}
		if st == nil || len(st.Fits) == 0 {
			row = append(row, txt("not run"), txt("n/a"), txt("n/a"))
		} else {
			rl, mse := math.NaN(), math.NaN()
			if rk := byEvidence(st.Fits); len(rk) > 0 {
				rl, mse = rk[0].RelL2, rk[0].MSE
			}
			row = append(row, integer(len(st.Fits)), num(rl, 3), num(mse, 3))
		}
		paperCell := func(v float64) Cell {
			if !inPaper {
				return txt("n/a")
			}
			return num(v, 3)
		}
		row = append(row, paperCell(p[0]))
		if st == nil {
			row = append(row, txt("n/a"))
		} else {
			row = append(row, num(meanSeconds(st.Fits), 3))
		}
		row = append(row, paperCell(p[1]))
		t.Rows = append(t.Rows, row)
	}
	t.Note = "The paper calls its L2 a \"mean square error\" without saying whether it is relative; we give both the relative L2 and the MSE. " +
		"The paper's times are PyTorch on its hardware; ours are Go wall times of one fit, " + workersText(r.Config.Workers) + " running at once. " +
		"heat-lhs: " + heatLHSText + "; its paper column is the paper's heat. " +
		"burgers-deep: " + burgersDeepText() + "; its paper column is the paper's 2-8-8-1. " +
		"burgers-wide: " + burgersWideText + " (not in the paper), weights by the evidence; burgers-wide-fixed: the same with every weight 1 on the terms' mean squared residuals (DeepXDE's loss) and no evidence. " +
		"lid-driven: " + lidText + ", its rel L2 PINNacle's joint L2RE over u, v, p; lid-driven-fixed: the same with every weight 1 (PINNacle's loss)."
	return t
}

func workersText(w int) string {
	if w <= 0 {
		return "one fit per core"
	}
	return fmt.Sprintf("%d fits", w)
}

// table2 replaces the paper's Table 2 (a list of loss-balancing schemes,
// nothing to measure) with the measured side of its comparison of Bayesian
// approaches (Table 4): our Laplace fit against HMC on the regression.
func (r *Report) table2() Table {
	t := Table{ID: "table2", Caption: "Table 2 (ours): the Bayesian approaches compared on the regression problem",
		Head: []string{"aspect", "Laplace + evidence (this work)", "HMC", "variational"}}
	st := r.Study("hmc")
	if st == nil || st.HMC == nil {
		t.Note = "The HMC study did not run or failed: see Failures."
		t.Rows = append(t.Rows, []Cell{txt("status"), txt("n/a"), txt("n/a"), txt("not implemented")})
		return t
	}
	c := st.HMC
	h := c.HMC
	t.Rows = [][]Cell{
		{txt("posterior"), txt("Gaussian at w_MP"), txt(fmt.Sprintf("%s: %d chains x %d samples, %d burn-in, %s", h.Sampler, h.Chains, h.Samples, h.BurnIn, trajectoryText(h))), txt("not implemented")},
		{txt("hyperparameters"), txt("evidence: alpha " + fmtG(c.Alpha[0], 4) + ", beta " + fmtG(c.Beta[0], 4)), txt("held at the Laplace values"), txt("")},
		{txt("wall time [s]"), num(st.Best.Seconds, 3), num(c.Diagnostics.Seconds, 3), txt("")},
		{txt("2σ coverage, inside data"), ptr(c.CoverageLaplace.Inside, 3), ptr(c.CoverageHMC.Inside, 3), txt("")},
		{txt("2σ coverage, outside data"), ptr(c.CoverageLaplace.Outside, 3), ptr(c.CoverageHMC.Outside, 3), txt("")},
		{txt("σ Laplace / σ HMC, inside"), ptr(c.WidthRatio.Inside, 3), num(1, 1), txt("")},
		{txt("σ Laplace / σ HMC, outside"), ptr(c.WidthRatio.Outside, 3), num(1, 1), txt("")},
		{txt("max |mean gap| / σ HMC"), ptr(c.MaxGap, 3), txt(""), txt("")},
		{txt("HMC min ESS, max R-hat"), txt(""), txt(strings.Join([]string{ptr(c.Diagnostics.MinESS, 4).Text, ptr(c.Diagnostics.MaxRHat, 4).Text}, ", ")), txt("")},
	}
	t.Note = "The paper's Table 2 lists loss-balancing strategies of other works (nothing to rebuild); its Table 4 compares the three Bayesian approaches " +
		"qualitatively (cost: low / medium / high). This table measures the two we implement on the paper's regression; the variational approach is not implemented. " +
		"The paper's best fit: alpha 0.24, beta 596."
	return t
}

// trajectoryText is how a run sets its trajectories: NUTS's maximum depth,
// static HMC's leapfrog steps.
func trajectoryText(h posterior.HMCRun) string {
	if h.Sampler == "hmc" {
		return fmt.Sprintf("%d leapfrog", h.Leapfrog)
	}
	return fmt.Sprintf("max depth %d", h.MaxDepth)
}

// samplingTable sets each sampled study's Laplace band beside the sampled
// one on its grid (the regression; heat, which the paper does not sample),
// with the sampler's diagnostics: one row per study.
func (r *Report) samplingTable() Table {
	t := Table{ID: "sampling", Caption: "Laplace band vs NUTS on the same posterior (alpha, beta at the best fit's), on the comparison grid",
		Head: []string{"study", "grid points", "sampler", "mean gap / sd sampled", "max gap", "sd Laplace / sd sampled", "2σ coverage, Laplace", "2σ coverage, sampled",
			"max R-hat", "min bulk ESS", "divergent / draws", "mean tree depth", "draws at max depth", "gradients", "sampler s"}}
	for _, st := range r.Studies {
		if _, ok := sampledStudy(st.Name, &r.Config); !ok {
			continue
		}
		c := st.HMC
		if c == nil {
			row := []Cell{txt(st.Name), txt("failed: see Failures")}
			for len(row) < len(t.Head) {
				row = append(row, txt(""))
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		h, d := c.HMC, c.Diagnostics
		what := fmt.Sprintf("%s, %d x %d after %d, %s metric, %s, target %g", h.Sampler, h.Chains, h.Samples, h.BurnIn, h.Metric, trajectoryText(h), h.TargetAccept)
		if h.Whiten {
			what += ", whitened by A"
		}
		div, depth, atMax := 0, 0.0, 0
		for i := range d.Divergent {
			div += d.Divergent[i]
		}
		for i := range d.TreeDepth {
			depth += d.TreeDepth[i] / float64(len(d.TreeDepth))
			atMax += d.AtMaxDepth[i]
		}
		t.Rows = append(t.Rows, []Cell{txt(st.Name), integer(len(c.Sampled.Mean)), txt(what), ptr(c.MeanGap, 3), ptr(c.MaxGap, 3), ptr(c.WidthRatio.All, 3),
			ptr(c.CoverageLaplace.All, 3), ptr(c.CoverageHMC.All, 3), ptr(d.MaxRHat, 4), ptr(d.MinESS, 4),
			txt(fmt.Sprintf("%d / %d", div, h.Chains*h.Samples)), fixed(depth, 2), integer(atMax), integer(d.Gradients), num(d.Seconds, 3)})
	}
	t.Note = "gap = |mean Laplace - mean sampled| / sd sampled, sd ratio and coverage (truth within 2 sd of the band's mean) over all grid points " +
		"(regression: 201 points of [-1, 1], data in [-0.8, -0.3] and [0.3, 0.8]; heat: 21 x 21 of (x, t)); R-hat (rank-normalized split) and bulk ESS " +
		"of the predictive, worst grid point; a sampled band is the posterior's only with R-hat <= 1.01 and ESS >= 400 (docs/hmc.md). " +
		"Records: hmc.json and hmc-<study>.json beside this page."
	return t
}

// table3 is the paper's Table 3: fixed weights against the Bayesian PINN,
// the best fit and the means over the five best (by error for the fixed
// weights, by evidence for the Bayesian PINN).
func (r *Report) table3() Table {
	t := Table{ID: "table3", Caption: "Table 3: fixed-weight PINN (alpha 0.05, beta 1) vs Bayesian PINN",
		Head: []string{"problem", "method", "fits", "L2_best", "paper", "mean L2 (5 best)", "paper", "mean MAD (5 best)", "paper"}}
	for _, pr := range []string{"heat", "wave"} {
		for _, m := range []struct{ study, method string }{{pr + "-fixed", "fixed weights"}, {pr, "Bayesian"}} {
			st := r.Study(m.study)
			p := paperTable3[m.study]
			row := []Cell{txt(pr), txt(m.method)}
			if st == nil || len(st.Fits) == 0 {
				row = append(row, txt("not run"), txt("n/a"), num(p[0], 4), txt("n/a"), num(p[1], 4), txt("n/a"), num(p[2], 4))
				t.Rows = append(t.Rows, row)
				continue
			}
			rk := ranked(st)
			best, l2, mad := math.NaN(), math.NaN(), math.NaN()
			if len(rk) > 0 {
				best = rk[0].RelL2
				top := rk[:min(5, len(rk))]
				l2, mad = 0, 0
				for _, f := range top {
					l2 += f.RelL2 / float64(len(top))
					mad += f.MAD / float64(len(top))
				}
			}
			row = append(row, integer(len(st.Fits)), num(best, 3), num(p[0], 4), num(l2, 3), num(p[1], 4), num(mad, 3), num(p[2], 4))
			t.Rows = append(t.Rows, row)
		}
	}
	t.Note = "Fixed weights: the five fits of lowest error; Bayesian: the five of highest evidence (the paper's selection). " +
		"L2 is our rel L2 on the 100 x 100 grid; MAD is the mean |u - u*| over that grid, averaged over the five (the paper's \"mean absolute deviation\" " +
		"cannot be a spread of the five L2 values, as it is as large as them)."
	return t
}

// scanTable is the scan's evidence and error per network size: the
// numbers of its evidence-vs-hidden figure.
func scanTable(st *Study) Table {
	t := Table{ID: "scan", Caption: "Architecture scan (heat, one hidden layer): the evidence and the error per size",
		Head: []string{"hidden", "fits (ok)", "best ln Z", "rel L2 of the best", "mean ln Z", "min rel L2"}}
	bySize := map[int][]FitRecord{}
	for _, f := range st.Fits {
		if len(f.Hidden) == 1 {
			bySize[f.Hidden[0]] = append(bySize[f.Hidden[0]], f)
		}
	}
	for _, h := range slices.Sorted(maps.Keys(bySize)) {
		fits := bySize[h]
		bestZ, bestL2, meanZ, minL2 := math.NaN(), math.NaN(), math.NaN(), math.NaN()
		if rk := byEvidence(fits); len(rk) > 0 {
			bestZ, bestL2, meanZ = rk[0].LogEvidence, rk[0].RelL2, 0
			for _, f := range rk {
				meanZ += f.LogEvidence / float64(len(rk))
			}
		}
		if rk := byError(fits); len(rk) > 0 {
			minL2 = rk[0].RelL2
		}
		t.Rows = append(t.Rows, []Cell{integer(h), txt(fmt.Sprintf("%d (%d)", len(fits), okCount(fits))), fixed(bestZ, 1), num(bestL2, 3), fixed(meanZ, 1), num(minL2, 3)})
	}
	t.Note = "best: the fit of highest ln Z of the size; mean ln Z over its fits with an evidence."
	return t
}

// settingsTable lists what each study ran and how long it took.
func (r *Report) settingsTable() Table {
	t := Table{ID: "settings", Caption: "Settings, seeds and time of each study",
		Head: []string{"study", "problem", "fits", "seeds", "hidden", "epochs", "hyper start / every", "alphas / betas", "recipe", "status", "time [s]"}}
	for _, st := range r.Studies {
		s := st.Resolved
		hidden := fmt.Sprint(s.Hidden)
		if st.Name == "scan" {
			hidden = fmt.Sprint(r.Config.ScanHidden)
		}
		seeds := ""
		if len(st.Seeds) > 0 {
			seeds = fmt.Sprintf("%d-%d", st.Seeds[0], st.Seeds[len(st.Seeds)-1])
		}
		modes := string(s.AlphaMode) + " / " + string(s.BetaMode)
		if s.Fixed.On {
			modes = fmt.Sprintf("fixed %g / %g", s.Fixed.Alpha, s.Fixed.Beta)
			if s.Fixed.Mean {
				modes += " on mean squares"
			}
		}
		recipe := string(s.Recipe)
		if s.Polish.On {
			recipe += ", " + string(s.Polish.Method) + " polish"
		}
		if s.Polish.Iter > 0 {
			recipe += fmt.Sprintf(", polishes of %d iterations", s.Polish.Iter)
		}
		if s.RunsFinalRounds() {
			recipe += fmt.Sprintf(", up to %d final MacKay rounds", s.Final.Rounds)
			if s.Final.Betas == bayes.RoundBetasHeldOut {
				recipe += " (betas from held-out misfits)"
			}
		}
		if s.Resample > 0 {
			recipe += fmt.Sprintf(", points redrawn every %d Adam epochs", s.Resample)
		}
		if st.Sampling == pde.LatinHypercube {
			recipe += ", Latin hypercube points"
		}
		status := "ok"
		if st.Err != nil {
			status = "FAILED"
		}
		t.Rows = append(t.Rows, []Cell{txt(st.Name), txt(st.Problem), integer(len(st.Fits)), txt(seeds), txt(hidden),
			integer(s.Epochs), txt(fmt.Sprintf("%d / %d", s.Hyper.Start, s.Hyper.Every)), txt(modes), txt(recipe), txt(status), num(st.Seconds, 4)})
	}
	sampler := func(s mcmc.Settings) string {
		hs := posterior.DefaultSampler(s)
		rs := hs.Resolved()
		text := fmt.Sprintf("%s %d chains x %d samples after %d warm-up", rs.Sampler, rs.Chains, rs.Samples, rs.Warmup)
		if len(rs.Temperatures) > 1 {
			text += fmt.Sprintf(", tempered over %d temperatures", len(rs.Temperatures))
		}
		return text
	}
	heat := "no sampling on heat"
	if r.Config.HeatHMC != nil {
		heat = "heat's best fit: " + sampler(*r.Config.HeatHMC)
	}
	t.Note = fmt.Sprintf("Plan %q: %d fits per study, epochs x %g of the paper's, data seed %d, seeds from %d, %s at once; "+
		"regression: %s (the paper's HMC: 4 x 15000 after 1000); %s. "+
		"Every fit: the bayes.Settings defaults otherwise (Adam LR 1e-3, alpha0 0.01, beta0 1, Gauss-Newton Hessian). Total %.0f s.",
		r.Config.Name, r.Config.Fits, r.Config.EpochScale, r.Config.DataSeed, r.Config.SeedBase, workersText(r.Config.Workers),
		sampler(r.Config.HMC), heat, r.Seconds)
	return t
}

// Grid returns the table's head and rows in Markdown, without caption,
// legend or note.
func (t Table) Grid() string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(t.Head, " | "), strings.Repeat("---|", len(t.Head)))
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = strings.ReplaceAll(c.Text, "|", `\|`)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	return b.String()
}

// Markdown renders t as a GitHub table, with the caption as a heading line
// and the note below.
func (t Table) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n%s", t.Caption, t.Grid())
	if len(t.Legend) > 0 {
		b.WriteString("\n")
		for _, l := range t.Legend {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if t.Note != "" {
		fmt.Fprintf(&b, "\n%s\n", t.Note)
	}
	return b.String()
}

// inverseTable is one row per unknown of the inverse studies: the best
// fit's estimate by evidence with its Laplace interval, and over the
// study's fits (network seeds, one data set) how the estimates spread and
// how many intervals hold the truth.
func (r *Report) inverseTable() Table {
	t := Table{ID: "inverse", Caption: "Inverse problems: the unknown coefficients of the best fit by evidence, and over all fits of the study",
		Head: []string{"study", "unknown", "truth", "estimate", "sd (inferred scale)", "95% interval", "rel. error", "fits", "mean estimate", "intervals holding the truth"}}
	var biased []string // studies whose intervals hold the truth in at most a tenth of 3 or more fits
	for _, name := range []string{"heat-inverse", "wave-inverse", "burgers-inverse", "lotka-volterra-inverse", "burgers-identify", "burgers-identify-fixed"} {
		st := r.Study(name)
		if st == nil || len(st.Fits) == 0 {
			continue
		}
		rk := ranked(st)
		fixed := st.Base.Fixed.On // weights by hand: no interval to show
		var all [][]score.Unknown
		for _, f := range st.Fits {
			if f.Unknowns != nil {
				all = append(all, f.Unknowns)
			}
		}
		for k, s := range score.SummarizeUnknowns(all) {
			row := []Cell{txt(name), txt(s.Name)}
			if len(rk) == 0 || len(rk[0].Unknowns) <= k {
				row = append(row, txt("n/a"), txt("n/a"), txt("n/a"), txt("n/a"), txt("n/a"))
			} else {
				u := rk[0].Unknowns[k]
				truth := math.NaN()
				if u.Truth != nil {
					truth = *u.Truth
				}
				sd, interval := num(u.SD, 3), txt(fmt.Sprintf("[%.5g, %.5g]", u.Lo95, u.Hi95))
				if fixed {
					sd, interval = txt("none"), txt("none")
				}
				row = append(row, num(truth, 4), num(u.Value, 5), sd, interval, num(u.RelErr(), 3))
			}
			holding := txt(fmt.Sprintf("%d of %d", s.Covered, s.Fits))
			if fixed {
				holding = txt("n/a")
			}
			row = append(row, integer(s.Fits), num(s.Mean, 5), holding)
			if !fixed && 10*s.Covered <= s.Fits && s.Fits >= 3 && !slices.Contains(biased, name) {
				biased = append(biased, name)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	t.Note = "sd is on the scale the unknown is inferred on (ln of a positive one); the interval is exp of ln value ± 1.96 sd. " +
		"The fits of a study differ in their network seed on one data set: the frequentist coverage over 100 draws of the measurement noise " +
		"is bpinn coverage's (docs/inverse.md). A fixed-weight baseline has no interval: its weights are set by hand, so the Laplace " +
		"approximation at them states no uncertainty of the data (at alpha 1e-8 on mean squares it spans orders of magnitude)." + biasNote(biased)
	return t
}

// biasNote says which studies' intervals hold the truth in at most a tenth
// of their fits (burgers-inverse: 1 of 33): nearly every seed errs the same
// way, which is the model's bias, not the noise (docs/inverse.md measures it
// for burgers-inverse).
func biasNote(studies []string) string {
	if len(studies) == 0 {
		return ""
	}
	return " " + strings.Join(studies, ", ") + ": at most one fit in ten has an interval that holds the truth, nearly every seed errs the same way: " +
		"the network's bias, not the noise (docs/inverse.md measures why for burgers-inverse: the PINN's own evidence of nu peaks above the truth)."
}
