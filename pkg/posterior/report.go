package posterior

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

// Report is a comparison with the Laplace fit it was run on: the JSON that
// bpinn hmc --json writes (docs/hmc.md) and, by WriteText, its summary.
type Report struct {
	Command    string      `json:"command"`
	Fit        FitSummary  `json:"fit"`
	Comparison *Comparison `json:"comparison"`
}

// FitSummary describes the Laplace fit that the sampler is compared with.
type FitSummary struct {
	Seed        uint64    `json:"seed"`
	Epochs      int       `json:"epochs"`
	Hidden      []int     `json:"hidden"`
	Status      string    `json:"status"`
	Alpha       []float64 `json:"alpha"`
	Beta        []float64 `json:"beta"`
	LogEvidence *float64  `json:"log_evidence,omitempty"` // nil when undefined
	Seconds     float64   `json:"seconds"`
}

// NewReport is the report of c, run by CompareHMC on f.
func NewReport(f *bayes.Fit, c *Comparison) *Report {
	return &Report{Command: "hmc", Comparison: c, Fit: FitSummary{
		Seed: f.Settings.Seed, Epochs: f.Epochs, Hidden: f.Settings.Hidden, Status: string(f.Status),
		Alpha: f.Alpha, Beta: f.Beta, Seconds: f.Seconds, LogEvidence: logEvidence(f),
	}}
}

// logEvidence is the fit's log evidence, nil when undefined.
func logEvidence(f *bayes.Fit) *float64 {
	if f.Laplace == nil || !f.Laplace.OccamOK {
		return nil
	}
	return &f.Laplace.LogEvidence
}

// SamplerLine says how the sampler runs its draws: NUTS's most tree depth,
// or HMC's leapfrog steps per iteration.
func SamplerLine(sampler string, maxDepth, leapfrog int) string {
	if sampler == string(mcmc.HMC) {
		return runner.Plural(leapfrog, "leapfrog step")
	}
	return fmt.Sprintf("max depth %d", maxDepth)
}

// WriteText writes the comparison as a few aligned tables: the bands by
// region, the hyperparameters' marginals when they were sampled, each
// chain's diagnostics and the cost.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	c := r.Comparison
	h := c.HMC
	held := "held"
	if h.SampleHyper {
		held = "sampled; fit's"
	}
	fmt.Fprintf(&b, "Laplace vs %s on %s: alpha %s, beta %s (%s; fit seed %d, %d epochs, %s)\n",
		h.Sampler, c.Problem, groupValues(c.Alpha), groupValues(c.Beta), held, r.Fit.Seed, r.Fit.Epochs, r.Fit.Status)
	metric := h.Metric + " metric"
	if h.Whiten {
		metric += " in coordinates whitened by the fit's A"
	}
	fmt.Fprintf(&b, "%s: %s x %d draws after %d warm-up, %s, %s, target accept %g, seed %d\n\n",
		h.Sampler, runner.Plural(h.Chains, "chain"), h.Samples, h.BurnIn, metric, SamplerLine(h.Sampler, h.MaxDepth, h.Leapfrog), h.TargetAccept, h.Seed)

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tinside data\toutside\tall\t")
	row := func(name string, r Regions) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, optNum(r.Inside), optNum(r.Outside), optNum(r.All))
	}
	row("sigma ratio Laplace/sampled", c.WidthRatio)
	row("2-sigma coverage Laplace", c.CoverageLaplace)
	row("2-sigma coverage sampled", c.CoverageHMC)
	if c.WidthRatioCalibrated != nil {
		row("sigma ratio calibrated/sampled", *c.WidthRatioCalibrated)
	}
	if c.CoverageCalibrated != nil {
		row("2-sigma coverage calibrated", *c.CoverageCalibrated)
	}
	tw.Flush()
	fmt.Fprintf(&b, "|mean Laplace - mean sampled| / sd sampled: max %s, mean %s\n\n", optNum(c.MaxGap), optNum(c.MeanGap))

	if hc := c.Hyper; hc != nil {
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "hyperparameter\tln at fit\tOccam sigma\tsampled mean\tsampled sd\tgap/Occam\tR-hat\tESS\t")
		for _, m := range slices.Concat(hc.Alpha, hc.Beta) {
			fmt.Fprintf(tw, "ln %s\t%.4g\t%s\t%.4g\t%.3g\t%s\t%s\t%s\t\n", m.Name, m.Evidence, optNum(m.Occam),
				m.Mean, m.SD, optNum(m.Z), optNum(m.RHat), optNum(m.ESS))
		}
		tw.Flush()
		fmt.Fprintln(&b)
	}

	d := c.Diagnostics
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chain\taccept\tstep size\tleapfrog/draw\ttree depth\tat max depth\tE-BFMI\tdivergent\twarm-up divergent\t")
	for i := range d.Accept {
		depth, atMax := "-", "-"
		if i < len(d.TreeDepth) {
			depth, atMax = fmt.Sprintf("%.2f", d.TreeDepth[i]), fmt.Sprint(d.AtMaxDepth[i])
		}
		fmt.Fprintf(tw, "%d\t%.3f\t%.3g\t%.1f\t%s\t%s\t%s\t%d\t%d\t\n", i, d.Accept[i], d.StepSize[i], d.Leapfrog[i],
			depth, atMax, optNum(d.EBFMI[i]), d.Divergent[i], d.BurnInDivergent[i])
	}
	tw.Flush()
	if d.SwapAccept != nil {
		fmt.Fprintf(&b, "parallel tempering at T = %s: exchanges accepted between adjacent temperatures, per chain:", groupValues(h.Temperatures))
		for _, a := range d.SwapAccept {
			fmt.Fprintf(&b, " [%s]", groupValues(a))
		}
		fmt.Fprintln(&b)
	}
	fmt.Fprintf(&b, "predictive: min bulk ESS %s, min tail ESS %s, max R-hat %s\n", optNum(d.MinESS), optNum(d.MinTailESS), optNum(d.MaxRHat))
	fmt.Fprintf(&b, "%s: %.3g s, %d gradients, %.4g samples/s, ESS/s %s, ESS per 1000 gradients %s (predictive %.3g s, fit %.3g s)\n",
		h.Sampler, d.Seconds, d.Gradients, d.SamplesPerSecond, optNum(d.ESSPerSecond), optNum(d.ESSPerKGradient), d.PredictiveSeconds, r.Fit.Seconds)
	_, err := w.Write([]byte(b.String())) // Write, which a wrapping writer may watch, not WriteString
	return err
}

// WriteUnknowns writes what SampleUnknowns found for the fit f (whitened
// by whiten): one line on the fit and the sampler, then each unknown's
// sampled marginal beside its Laplace one.
func WriteUnknowns(w io.Writer, f *bayes.Fit, su []SampledUnknown, res *mcmc.Result, whiten bayes.HessianKind) error {
	steps := make([]float64, len(res.Chains))
	leap := 0
	for c, ch := range res.Chains {
		steps[c] = ch.StepSize
		for _, l := range ch.Leapfrog {
			leap += l
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s seed %d: status %s, log evidence %s; %s (%s metric) in coordinates whitened by %s, %s x %d draws, step sizes %v, %.0f leapfrog steps per draw, %d divergent\n",
		f.Model.Problem.Name, f.Settings.Seed, f.Status, record.Fmt(logEvidence(f), "%.6g"), res.Sampler, res.Metric, precisionName(whiten), runner.Plural(len(res.Chains), "chain"), res.Len(), groupValues(steps),
		float64(leap)/float64(len(res.Chains)*res.Len()), res.Divergences())
	for _, s := range su {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	_, err := w.Write([]byte(b.String()))
	return err
}

// precisionName names the precision of a whitening.
func precisionName(w bayes.HessianKind) string {
	if w == bayes.GaussNewton {
		return "the fit's A"
	}
	return "|H|, the exact Hessian at the mode"
}

// groupValues formats values (one per hyperparameter group, or per
// chain) with 4 digits, comma-separated.
func groupValues(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.4g", x)
	}
	return strings.Join(s, ", ")
}

// optNum formats an optional number, "-" when undefined.
func optNum(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.4g", *v)
}
