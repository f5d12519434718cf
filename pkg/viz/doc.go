// Package viz draws the figures of the paper from plain data (slices and
// small structs, no other project package), as static images with
// gonum/plot (PNG, SVG, PDF) and as interactive echarts charts (HTML that
// renders offline). The CLI, the report and the notebooks share it; only
// its sub-package nb talks to the notebook.
//
// # Overview
//
// Each figure has a static function returning a *Figure and an interactive
// twin, with the same input, returning a go-echarts chart:
//
//	figure              static             interactive              paper
//	training points     Points             PointsChart              points panels of heat, wave, Burgers
//	evidence histogram  EvidenceHistogram  EvidenceHistogramChart   histogram of ln Z − max ln Z
//	training history    Training           TrainingChart            E_T, β, α, E_hyp evolution
//	solution slices     Slices             SlicesChart              u_true, u_pred and 2σ at five times
//	field on a grid     HeatMap            HeatMapChart             u or |u − u_exact| with a colour bar
//	error and band      ErrorBand          ErrorBandChart           wave error, red outside 2σ
//	Laplace vs HMC      LaplaceVsHMC       LaplaceVsHMCChart        regression comparison
//	evidence vs error   EvidenceVsError    EvidenceVsErrorChart     ensemble ln Z vs relative L2 error
//	evidence vs width   EvidenceVsHidden   EvidenceVsHiddenChart    architecture selection
//
// A *Figure is a grid of gonum plots with a title, a shared legend drawn
// outside the panels and an optional colour bar; PNG, SVG and Encode render
// it (or any *plot.Plot) to bytes. Charts become HTML that renders offline
// with the sub-package offline (offline.Page, a standalone page;
// offline.Fragment, for a notebook output or another page; offline.Charts,
// when the page already has echarts).
//
// Labels hold the texts of a figure; an empty field takes the default
// written in each function's comment. Colours follow the Okabe-Ito palette
// (SeriesColor) with distinct markers and dashes, and fields use viridis
// (Viridis), so the figures read in greyscale print and for colour-blind
// readers.
//
// # Invariants
//
// Constructors validate their data: nothing NaN or infinite is ever drawn,
// lengths match, standard deviations are >= 0, values on log axes are > 0.
// Points along x need not be sorted; figures sort copies and never modify
// the caller's slices. Drawing a Figure does not modify its plots.
//
// # Error Handling
//
// Invalid data is an error wrapping ErrEmpty, ErrLength, ErrNaN, ErrInf or
// ErrDomain (test with errors.Is), with the figure and field in the
// message. PNG, SVG and Encode return gonum/plot's drawing panics (a plot
// changed into an impossible state after construction) as errors.
//
// # Tests
//
// Golden images of every static figure live in testdata; after an intended
// change, regenerate them with
//
//	go test ./pkg/viz -run Golden -regen
//
// and look at the new PNGs before committing them.
package viz
