package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/evidence-pinn/bpinn/pkg/band"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/figdata"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/viz"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

// Figure is one figure of the report: the interactive chart of the page and
// the static figure written to figures/<ID>.png.
type Figure struct {
	ID      string // e.g. "heat-slices": the PNG's name and the page anchor
	Study   string
	Caption string
	Chart   offline.Chart
	Static  *viz.Figure
}

// figureError is a figure that could not be drawn.
type figureError struct {
	ID  string
	Err error
}

// addFunc adds a figure of a kind (its ID after the study's name) and
// caption, drawn by build.
type addFunc func(kind, caption string, build func() (offline.Chart, *viz.Figure, error))

// figures builds the figures of a study; a figure that cannot be drawn is
// returned in errs and left out.
func figures(st *Study) (figs []Figure, errs []figureError) {
	add := func(kind, caption string, build func() (offline.Chart, *viz.Figure, error)) {
		id := st.Name + "-" + kind
		c, f, err := build()
		if err != nil {
			errs = append(errs, figureError{id, err})
			return
		}
		figs = append(figs, Figure{ID: id, Study: st.Name, Caption: caption, Chart: c, Static: f})
	}
	if st.Err != nil && len(st.Fits) == 0 {
		return nil, nil
	}
	logZ, relErr := evidenceAndError(st.Fits)
	best := st.Best
	switch st.Name {
	case "hmc":
		if st.HMC != nil {
			add("laplace-vs-hmc", "The best regression fit by evidence (Laplace, 2σ band) and HMC on the same posterior (alpha, beta fixed at the fit's values): the paper's Fig. 2.",
				func() (offline.Chart, *viz.Figure, error) {
					return both(viz.LaplaceVsHMCChart, viz.LaplaceVsHMC, figdata.Comparison(st.Best.Model.Problem, st.HMC), viz.Labels{})
				})
		}
		addEnsemble(add, st, logZ, relErr)
	case "heat", "heat-lhs", "wave", "wave-full", "burgers", "burgers-deep", "burgers-wide", "burgers-wide-fixed", "heat-inverse", "wave-inverse", "burgers-inverse",
		"poisson-holes", "poisson-holes-fixed", "burgers-identify", "burgers-identify-fixed":
		pdeFigures(add, st, logZ, relErr)
	case "lotka-volterra-inverse": // one input, two fields: the curves in time, not slices of u(x, t)
		addEnsemble(add, st, logZ, relErr)
		if best != nil {
			add("populations", "Prey u(τ) and predator v(τ) of the best fit by evidence with its 2σ band, the measurements it was fitted to (rings) and the exact curves of the true rates.", func() (offline.Chart, *viz.Figure, error) {
				l := viz.Labels{Title: st.Label + ": populations of the best fit", X: "τ", Y: "population"}
				cs, data := figdata.Curves(best, 200), figdata.Measured(best.Model.Problem)
				c, err := viz.SlicesMeasuredChart(cs, data, l)
				if err != nil {
					return nil, nil, err
				}
				f, err := viz.SlicesMeasured(cs, data, l)
				return c, f, err
			})
		}
	case "scan":
		groups := map[int][]float64{}
		for _, r := range st.Fits {
			if len(r.Hidden) == 1 && !math.IsNaN(r.LogEvidence) {
				groups[r.Hidden[0]] = append(groups[r.Hidden[0]], r.LogEvidence)
			}
		}
		var hs []viz.HiddenEvidence
		for h, z := range groups {
			hs = append(hs, viz.HiddenEvidence{Hidden: h, LogZ: z})
		}
		slices.SortFunc(hs, func(a, b viz.HiddenEvidence) int { return a.Hidden - b.Hidden })
		add("evidence-vs-hidden", "Log evidence of every fit of the heat problem against the number of hidden units (mean ± 1 sd).", func() (offline.Chart, *viz.Figure, error) {
			return both(viz.EvidenceVsHiddenChart, viz.EvidenceVsHidden, hs, viz.Labels{})
		})
		add("evidence-vs-error", "Log evidence against the true error over all scanned architectures.", func() (offline.Chart, *viz.Figure, error) {
			rho := record.Spearman(logZ, relErr)
			c, err := viz.EvidenceVsErrorChart(logZ, relErr, rho, viz.Labels{Title: "scan: evidence vs error"})
			if err != nil {
				return nil, nil, err
			}
			f, err := viz.EvidenceVsError(logZ, relErr, rho, viz.Labels{Title: "scan: evidence vs error"})
			return c, f, err
		})
	}
	return figs, errs
}

// pdeFigures adds the figures of a study of a PDE (the paper's and the
// plates): its points, the ensemble's, the best fit's training, and its
// solution and error as slices in time or maps on a plate.
func pdeFigures(add addFunc, st *Study, logZ, relErr []float64) {
	best := st.Best
	if best != nil {
		add("points", "Training points of the loss terms.", func() (offline.Chart, *viz.Figure, error) {
			in := best.Model.Problem.Inputs // x, t; x, y on a plate
			return both(viz.PointsChart, viz.Points, figdata.Points(best.Model.Problem), viz.Labels{Title: st.Label + ": training points", X: in[0], Y: in[1]})
		})
	}
	addEnsemble(add, st, logZ, relErr)
	if best == nil {
		return
	}
	add("training", "Training history of the best fit by evidence: E_T, beta, alpha, E_hyp.", func() (offline.Chart, *viz.Figure, error) {
		return both(viz.TrainingChart, viz.Training, figdata.History(best), viz.Labels{Title: st.Label + ": training of the best fit (seed " + fmt.Sprint(best.Settings.Seed) + ")"})
	})
	p := best.Model.Problem
	if p.Domain != nil {
		// A plate in (x, y): maps over the domain, its holes blank; no
		// slices in time.
		add("solution-map", "u of the best fit by evidence on the domain (holes blank).", func() (offline.Chart, *viz.Figure, error) {
			u, _ := figdata.Fields(best, 60)
			return both(viz.HeatMapChart, viz.HeatMap, u, viz.Labels{Title: st.Label + ": u_pred", X: p.Inputs[0], Y: p.Inputs[1], Z: "u"})
		})
		add("error-map", "|u - u*| of the best fit by evidence on the domain (holes blank; u* the reference solution).", func() (offline.Chart, *viz.Figure, error) {
			_, absErr := figdata.Fields(best, 60)
			return both(viz.HeatMapChart, viz.HeatMap, absErr, viz.Labels{Title: st.Label + ": |u_pred − u_true|", X: p.Inputs[0], Y: p.Inputs[1], Z: "|error|"})
		})
		return
	}
	ss := figdata.Slices(best) // the paper's five times
	add("slices", "Exact and predicted solution of the best fit by evidence at five times, with the 2σ band.", func() (offline.Chart, *viz.Figure, error) {
		return both(viz.SlicesChart, viz.Slices, ss, viz.Labels{Title: st.Label + ": exact and predicted u"})
	})
	if st.Name == "wave" || st.Name == "wave-full" {
		add("error-band", "Error u_true - u_pred of the best fit with its 2σ band (the paper's Fig. 9); red: outside the band.", func() (offline.Chart, *viz.Figure, error) {
			return both(viz.ErrorBandChart, viz.ErrorBand, ss, viz.Labels{Title: st.Label + ": error and 2σ"})
		})
	}
	add("error-band-calibrated", "The same error with the calibrated 2σ band (band.Calibrated: built from the fit and fresh points, without the exact solution; the paper's band where the fit is not warned overconfident and its errors at fresh boundary points lie within it); red: outside the band.", func() (offline.Chart, *viz.Figure, error) {
		cal, err := calibrated(best)
		if err != nil {
			return nil, nil, err
		}
		cs := figdata.Slices(cal)
		return both(viz.ErrorBandChart, viz.ErrorBand, cs, viz.Labels{Title: st.Label + ": error and calibrated 2σ"})
	})
	add("error-map", "|u - u*| of the best fit by evidence on the domain.", func() (offline.Chart, *viz.Figure, error) {
		_, absErr := figdata.Fields(best, 60)
		return both(viz.HeatMapChart, viz.HeatMap, absErr, viz.Labels{Title: st.Label + ": |u_pred − u_true|", Z: "|error|"})
	})
}

// calibrated is f's calibrated band on the fresh draw of its problem.
func calibrated(f *bayes.Fit) (*bayes.Fit, error) {
	d, err := band.FreshDrawOf(f.Model.Problem)
	if err != nil {
		return nil, err
	}
	return band.Calibrated(f, d)
}

// addEnsemble adds the histogram of the relative log evidence and the
// evidence-vs-error scatter of a study.
func addEnsemble(add addFunc, st *Study, logZ, relErr []float64) {
	var z []float64
	for _, r := range st.Fits {
		if !math.IsNaN(r.LogEvidence) {
			z = append(z, r.LogEvidence)
		}
	}
	add("evidence-histogram", "Histogram of ln Z - max ln Z over the ensemble.", func() (offline.Chart, *viz.Figure, error) {
		rel, err := viz.RelativeLogEvidence(z)
		if err != nil {
			return nil, nil, err
		}
		l := viz.Labels{Title: fmt.Sprintf("%s: relative log evidence (N = %d)", st.Label, len(rel))}
		c, err := viz.EvidenceHistogramChart(rel, 0, l)
		if err != nil {
			return nil, nil, err
		}
		f, err := viz.EvidenceHistogram(rel, 0, l)
		return c, f, err
	})
	add("evidence-vs-error", "Log evidence against the true relative L2 error of every fit (rho: Spearman).", func() (offline.Chart, *viz.Figure, error) {
		rho := record.Spearman(logZ, relErr)
		l := viz.Labels{Title: st.Label + ": evidence vs error"}
		c, err := viz.EvidenceVsErrorChart(logZ, relErr, rho, l)
		if err != nil {
			return nil, nil, err
		}
		f, err := viz.EvidenceVsError(logZ, relErr, rho, l)
		return c, f, err
	})
}

// both builds the chart and the static figure of the same data.
func both[T any, C offline.Chart](chart func(T, viz.Labels) (C, error), static func(T, viz.Labels) (*viz.Figure, error), data T, l viz.Labels) (offline.Chart, *viz.Figure, error) {
	c, err := chart(data, l)
	if err != nil {
		return nil, nil, err
	}
	f, err := static(data, l)
	if err != nil {
		return nil, nil, err
	}
	return c, f, nil
}

// evidenceAndError returns the (ln Z, rel L2) pairs where both are defined.
func evidenceAndError(fits []FitRecord) (logZ, relErr []float64) {
	for _, r := range fits {
		if !math.IsNaN(r.LogEvidence) && r.RelL2 > 0 && !math.IsInf(r.RelL2, 0) {
			logZ, relErr = append(logZ, r.LogEvidence), append(relErr, r.RelL2)
		}
	}
	return logZ, relErr
}
