// Package band holds the uncertainty bands of a fit beyond the paper's
// Laplace band, each judged by the fit's residuals at fresh points of its
// problem (Problem.Fresh), never by the exact solution:
//
//   - ResidualCheck: each beta group's rms residual at the training points
//     and at fresh ones; a ratio well above 1 says the band is overconfident.
//   - HeldOut: the Laplace band with each beta from the fresh residuals.
//   - Calibrated: the band fed a FreshDraw (fresh points without the exact
//     solution): the paper's band scaled to the error estimated from the
//     residuals (a Gauss-Newton step in the network's output layer widened
//     by random units) where two such estimates agree; else betas lowered toward the fresh precision where the
//     residuals warn, widened locally where a term's fresh residuals peak,
//     widened or narrowed by the value check at the conditions on u
//     itself, widened by the measurement check at new measurements, and
//     moved or confirmed by the K-fold check of data given once (its
//     folds left out by the Laplace's linearized refit; kfold.go)
//     (docs/calibration.md).
//   - Assess: all a record keeps of them: the residual check, the band of
//     every registered method (Methods, Register: held-out, calibrated),
//     the warning of a band likely too narrow or too wide, and the
//     calibrated band's own: a field no check calibrates or whose stated
//     condition the fit leaves unmet ("band uncalibrated", with the
//     reason), a calibrated band a direct check still finds beyond its
//     q95 target, an unknown's interval likely unreliable (status.go).
//   - GridErrors: the fit's errors on a grid against the exact solution
//     with each band of an assessment scored by its method (grid.go);
//     AssessAndScore: the assessment and those errors in one call, what a
//     record holds of the bands (pkg/record encodes them).
//
// A band is a value (Band: its method, the betas of its A, a factor per
// output, a local widening), which a record stores and a restored fit
// predicts without the checks that sized it; a new method is a Build
// from the Check that every method reads, and one Register call.
// Band.On, HeldOut and Calibrated return a copy of the fit
// (bayes.Fit.WithOutputBand) whose Predict gives the band; only its
// predictions are meaningful.
package band
