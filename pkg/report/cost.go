package report

import (
	"github.com/evidence-pinn/bpinn/pkg/mcmc"
	"github.com/evidence-pinn/bpinn/pkg/posterior"
)

// fullFitSeconds is the time one fit of each study takes at its problem's
// whole schedule with its record, on one core of an idle 2-core machine
// with the other core training too (the full plan's s/fit; `bpinn
// reproduce` prints each fit's time). They only order the fits (the costliest first) and
// estimate the time left: a wrong figure costs a worse estimate, never a
// different result.
var fullFitSeconds = map[string]float64{
	"hmc": 0.11, "heat": 0.84, "heat-lhs": 0.6, "wave": 1.2, "wave-full": 1.3,
	"burgers": 9.2, "burgers-deep": 21, "burgers-wide": 60, "burgers-wide-fixed": 24,
	"heat-fixed": 0.31, "wave-fixed": 0.68, "scan": 1.4,
	"heat-inverse": 34, "wave-inverse": 1.3, "burgers-inverse": 8, "lotka-volterra-inverse": 5,
	"poisson-holes": 200, "poisson-holes-fixed": 110, "lid-driven": 170, "lid-driven-fixed": 100,
	"burgers-identify": 360, "burgers-identify-fixed": 200,
	// The PINNacle suite's derived schedules (burgers1d, wave2d-ms: with their refits, begun after the first fit's first final round).
	"heat2d-ms": 250, "wave2d-ms": 430, "poisson-nd": 250, "heat-nd": 250, "poisson-inv": 250, "poisson-inv-as-coded": 250, "burgers1d": 275,
	"heat2d-ms-fixed": 30, "wave2d-ms-fixed": 30, "poisson-nd-fixed": 30, "heat-nd-fixed": 30, "poisson-inv-fixed": 30, "poisson-inv-as-coded-fixed": 30, "burgers1d-fixed": 30,
}

// fitSeconds is the expected time of one of study's fits at its problem's
// whole schedule.
func fitSeconds(study string) float64 {
	if s, ok := fullFitSeconds[study]; ok {
		return s
	}
	return 1
}

// hmcSeconds is the expected time of a study's comparison with NUTS under
// hs: each draw of each chain and temperature costs what it did on heat's
// 2-6-1 posterior (about 12 ms at depth 9-10; the regression's 1-6-1 about
// 7 ms).
func hmcSeconds(study string, hs mcmc.Settings) float64 {
	ds := posterior.DefaultSampler(hs)
	rs := ds.Resolved()
	perDraw := 0.012
	if study == "hmc" {
		perDraw = 0.007
	}
	return perDraw * float64(rs.Chains*(rs.Samples+rs.Warmup)*max(1, len(rs.Temperatures)))
}
