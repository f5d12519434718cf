// Package problems holds the paper's problems and the studies built on
// them, written through the problem API of pkg/pde, with the training
// schedule measured for each.
//
// # What it holds
//
//   - The forward problems: [Regression], [Heat], [Wave] (and wave-full,
//     the same problem with the paper's full hyperparameter set), [Burgers]
//     and [BurgersWide] (DeepXDE's net and point counts).
//   - The inverse problems: [HeatInverse], [Heat2Inverse] and
//     [Heat2Reaction] (a model choice), [BurgersInverse],
//     [BurgersWideInverse], [WaveInverse]; [BurgersIdentify] and
//     [BurgersIdentifyClean] (Raissi et al.'s identification of both
//     coefficients of Burgers' equation from 2000 measurements); [Known]
//     holds their unknowns at the truths.
//   - The registry: an [Entry] per problem with its constructor, its
//     schedule (bayes.Settings.Schedule) and the [Options] that change it;
//     [New], [Lookup], [Names] and [Entries] read it.
//
// Every constructor draws its points and noise from [Options].DataSeed
// with streams of its own, so the same data seed gives the same data set
// bit for bit, and sets the problem's Fresh and Redraw.
//
// Exact solutions, used as ground truth for the figures and error norms:
//
//   - [RegressionCurve]: the regression target f(x) = x² cos²(4x).
//   - [HeatExact]: u_t = κ u_xx on [0, 1] with u(0, t) = u(1, t) = 0 and
//     u(x, 0) = sin(πx); u = sin(πx) exp(−κπ²t).
//   - [WaveExact]: u_tt = u_xx on [0, 1] with zero boundary values and zero
//     initial velocity; u = sin(πx) cos(πt) + ½ sin(2πx) cos(2πt).
//   - [BurgersRef]: viscous Burgers u_t + u u_x = ν u_xx on [−1, 1]×[0, 1]
//     with u(x, 0) = −sin(πx), u(±1, t) = 0 and ν = [BurgersNu]() = 0.01/π,
//     evaluated exactly through the Cole–Hopf transform with a Gauss–Hermite
//     rule in log space. U and Ux agree with an independent quadrature to
//     about 1e-14 and reproduce the benchmark u_x(0, 1.6037/π) = −152.00516.
//
// # Adding a problem
//
// Write a constructor func(Options) *pde.Problem that builds the problem
// through pkg/pde (named inputs, terms with points or draws, residuals
// from pde.Vars) and returns it through withDraws, so that Fresh and
// Redraw rebuild it at other data seeds; then add an [Entry] to the
// registry (registry.go) with its name, its schedule and the Options it
// reads. The CLI, the report and the tests find it there.
package problems
