package report

import (
	"slices"
	"strings"
)

// warningKinds are the summary table's short codes for the warnings of a
// fit record (record.Result.Warnings). A warning is a sentence that would
// make a row a screen tall, so a cell holds its code and the legend below
// the table says what each code used means; the sentences stay in the
// records. A kind is recognized by a phrase of its sentence (pkg/bayes and
// pkg/band write them).
var warningKinds = []struct{ code, phrase, meaning string }{
	{"uncalibrated", "band uncalibrated",
		"no check could calibrate a field's band (no error estimate, too few fresh condition points or measurements of it): its calibrated band is the paper's moved only by the residual ratio; or only its conditions check it, on a problem whose measurements fix it inside; or a condition it has is unmet; the record says why"},
	{"interval", "% interval of",
		"an unknown's 95 % interval is likely unreliable: the fit's measurement residuals are far larger at new measurements than at its own, so the unknown may carry the network's error beyond it; the record gives the interval at the calibrated betas too"},
	{"cal-unchecked", "is unchecked",
		"the calibrated band is unchecked somewhere the grid judges it: beyond its rms (the K-fold check sized it beneath the measurements' noise, which hides how the errors are spread) or where the equation's fresh residuals peak (a shock, where no check reads the error); the record says which"},
	{"cal-overconf", "calibrated band of",
		"the calibrated band itself is likely overconfident (or too wide): a check that reads a field's errors directly still finds them far outside it; the record says where"},
	{"clamp", "is at the clamp",
		"a hyperparameter sits at its clamp [1e-8, 1e8]: the log evidence is computed there, not at a fixed point"},
	{"unsettled", "did not settle",
		"the final MacKay rounds reached their cap still moving a hyperparameter: read the evidence as approximate"},
	{"overconf-ratio", "larger at fresh points",
		"the paper's band is likely overconfident: an inferred β group's rms residual at fresh points exceeds band.OverconfidentRatio times its rms at the training points (or, after held-out rounds, the rms its β states); use the calibrated band"},
	{"too-wide", "likely too wide",
		"the paper's band is likely too wide: at fresh points of the conditions on u, its q95 of |u - target|/σ is below band.ValueNarrow, no residual ratio warns and every β group's fresh rms is within band.OverconfidentRatio times what its β states; use the calibrated band, which narrows"},
	{"overconf-value", "conditions on u itself",
		"the paper's band is likely overconfident: at fresh points of the conditions on u itself, where the residual u - target is the error, its q95 of |u - target|/σ exceeds band.ValueOverconfident; use the calibrated band"},
	{"overconf-estimate", "overconfident: the error estimated",
		"the paper's band is likely overconfident: the error estimated from the residuals at fresh points (band's error estimate) puts 95 % of the errors beyond band.ValueOverconfident σ; use the calibrated band"},
	{"unmet", " unmet: ",
		"a condition or an equation is unmet at the end: the fit may have settled on ignoring it (bayes.ConditionUnmet, EquationUnmet, EquationUncancelled); the record names the term and its ratio"},
	{"refit", "refitted with",
		"the fit from balanced betas left a condition or an equation unmet and was refitted with it first; the record says which fit was kept and why"},
}

// otherWarning is the code of a warning none of warningKinds recognizes.
const otherWarning = "other"

// warningCode returns the short code of one warning sentence.
func warningCode(w string) string {
	for _, k := range warningKinds {
		if strings.Contains(w, k.phrase) {
			return k.code
		}
	}
	return otherWarning
}

// warningCodes returns the codes of a fit's warnings, each once, in the
// order of the warnings.
func warningCodes(ws []string) []string {
	var codes []string
	for _, w := range ws {
		if c := warningCode(w); !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	return codes
}

// warningLegend explains every code in used, in the order of warningKinds
// (an unrecognized warning last), one "code: meaning" line each.
func warningLegend(used []string) []string {
	var legend []string
	for _, k := range warningKinds {
		if slices.Contains(used, k.code) {
			legend = append(legend, k.code+": "+k.meaning)
		}
	}
	if slices.Contains(used, otherWarning) {
		legend = append(legend, otherWarning+": a warning without a code here; the fit's record has its sentence (warnings)")
	}
	return legend
}
