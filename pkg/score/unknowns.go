package score

import (
	"fmt"
	"math"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// z95 is the standard normal's 97.5 % quantile: theta +- z95 sd is the 95 %
// interval of a Gaussian marginal.
const z95 = 1.959963984540054

// Unknown is the Laplace marginal of one unknown coefficient: on the scale
// it was inferred on (ln of the value for a Positive unknown) the posterior
// is Gaussian with mean Theta and standard deviation SD = sqrt((A^-1)_kk),
// so the 95 % interval is Theta +- 1.96 SD there, mapped to the natural
// scale (exp of its ends for a Positive unknown).
type Unknown struct {
	Name     string
	Positive bool
	Theta    float64 // on the inferred scale
	Value    float64 // natural scale
	SD       float64 // on the inferred scale; NaN without a Laplace approximation
	Lo95     float64 // natural scale; NaN without SD
	Hi95     float64
	Truth    *float64 // where the problem knows it
	Init     float64  // the starting value, natural scale
}

// RelErr is |Value - Truth| / |Truth|, NaN without a truth.
func (u Unknown) RelErr() float64 {
	if u.Truth == nil {
		return math.NaN()
	}
	return math.Abs(u.Value-*u.Truth) / math.Abs(*u.Truth)
}

// Covers reports whether the 95 % interval holds the truth.
func (u Unknown) Covers() bool {
	return u.Truth != nil && u.Lo95 <= *u.Truth && *u.Truth <= u.Hi95
}

// UnknownScale maps an unknown's natural value to the scale it is inferred
// on: ln v for a Positive unknown, v otherwise.
func UnknownScale(u pde.Unknown, v float64) float64 {
	if u.Positive {
		return math.Log(v)
	}
	return v
}

// UnknownNatural is the inverse of UnknownScale.
func UnknownNatural(u pde.Unknown, theta float64) float64 {
	if u.Positive {
		return math.Exp(theta)
	}
	return theta
}

// NewUnknown is u's marginal at theta, its value on the inferred scale,
// with standard deviation sd there (NaN without a Laplace approximation).
func NewUnknown(u pde.Unknown, theta, sd float64) Unknown {
	e := Unknown{Name: u.Name, Positive: u.Positive, Theta: theta, Value: UnknownNatural(u, theta),
		SD: sd, Lo95: math.NaN(), Hi95: math.NaN(), Truth: u.Truth, Init: u.Init}
	if !math.IsNaN(sd) {
		e.Lo95, e.Hi95 = UnknownNatural(u, theta-z95*sd), UnknownNatural(u, theta+z95*sd)
	}
	return e
}

// String is "kappa = 0.1003 (sd 0.0091 on ln, 95 % [0.0839, 0.1199], truth 0.1)".
func (u Unknown) String() string {
	scale := ""
	if u.Positive {
		scale = " on ln"
	}
	s := fmt.Sprintf("%s = %.5g (sd %.3g%s, 95%% [%.5g, %.5g]", u.Name, u.Value, u.SD, scale, u.Lo95, u.Hi95)
	if u.Truth != nil {
		s += fmt.Sprintf(", truth %.5g, rel. error %.2g", *u.Truth, u.RelErr())
	}
	return s + ")"
}

// UnknownSummary is one unknown over repeated fits, each on its own draw of
// the data (the frequentist check of the Laplace interval): a calibrated
// 95 % interval holds the truth in about 95 of 100 draws.
type UnknownSummary struct {
	Name       string
	Fits       int     // fits with an interval
	Mean       float64 // mean estimate (natural scale)
	SDOfMean   float64 // the estimates' standard deviation (natural scale)
	MeanSD     float64 // mean Laplace sd (inferred scale)
	MeanRelErr float64 // mean |estimate - truth| / |truth|
	MaxRelErr  float64
	Covered    int     // intervals holding the truth
	Coverage   float64 // Covered / Fits
	CoverageSE float64 // binomial standard error sqrt(c (1 - c) / Fits)
}

// SummarizeUnknowns summarizes each unknown over fits (one []Unknown per
// fit, in the problem's order); fits without an interval are skipped.
func SummarizeUnknowns(fits [][]Unknown) []UnknownSummary {
	var out []UnknownSummary
	for k := 0; len(fits) > 0 && k < len(fits[0]); k++ {
		s := UnknownSummary{Name: fits[0][k].Name}
		var sum, sum2 float64
		for _, us := range fits {
			u := us[k]
			if math.IsNaN(u.SD) {
				continue
			}
			s.Fits++
			sum += u.Value
			sum2 += u.Value * u.Value
			s.MeanSD += u.SD
			e := u.RelErr()
			s.MeanRelErr += e
			s.MaxRelErr = math.Max(s.MaxRelErr, e)
			if u.Covers() {
				s.Covered++
			}
		}
		if n := float64(s.Fits); n > 0 {
			s.Mean, s.MeanSD, s.MeanRelErr = sum/n, s.MeanSD/n, s.MeanRelErr/n
			s.SDOfMean = math.Sqrt(math.Max(0, sum2/n-s.Mean*s.Mean))
			s.Coverage = float64(s.Covered) / n
			s.CoverageSE = math.Sqrt(s.Coverage * (1 - s.Coverage) / n)
		}
		out = append(out, s)
	}
	return out
}
