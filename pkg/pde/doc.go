// Package pde defines the problems of the toolkit and their exact and
// reference solutions.
//
// # Writing a problem
//
// A [Problem] is data: named inputs and a box domain, loss terms and
// optionally an exact solution and unknown coefficients. A [Term] has
// points, optional targets and fields (values per point), a beta group, and
// a [Residual] built from [Vars]: u (v.U), its derivatives by input name
// (v.D("t"), v.D2("x", "x")), the coordinates (v.X("x"), for sources and
// variable coefficients), the targets (v.Target), the term's fields
// (v.Field("f")) and the problem's unknowns (v.Unknown("kappa")).
// [Problem.Validate] builds every residual once on a stand-in network, so a
// misspelt name, a panic, a residual of the wrong shape or one that does
// not depend on u is an error naming the term before anything trains.
// A residual can be written as text, [Equation] ("u_t = kappa*u_xx"), and
// the usual terms in one line: [PDE], [Dirichlet], [Neumann], [Robin],
// [InitialValue], [InitialRate], [Measurements].
// docs/problems.md is the guide.
//
// # The paper's problems
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
package pde
