// Package pde is the problem API: a PDE (or a regression) as data, from
// which pkg/bayes builds and trains a model.
//
// # Writing a problem
//
// A [Problem] is data: named inputs and a domain (a box, or any
// geom.Domain of pkg/geom: a disk, a polygon, a plate with holes, a
// space-time of one), loss terms and optionally an exact solution and
// unknown coefficients. A [Term] has points, optional targets and fields
// (values per point), a beta group, and a [Residual] built from [Vars]: u (v.U), its derivatives by input name
// (v.D("t"), v.D2("x", "x")), the coordinates (v.X("x"), for sources and
// variable coefficients), the targets (v.Target), the term's fields
// (v.Field("f")), the problem's unknowns (v.Unknown("kappa")), on a
// boundary the normal derivative (v.DN()) and for a periodic condition u at
// the paired points (v.Pair()).
// [Problem.Validate] builds every residual once on a stand-in network, so a
// misspelt name, a panic, a residual of the wrong shape or one that does
// not depend on u is an error naming the term before anything trains.
// A residual can be written as text, [Equation] ("u_t = kappa*u_xx"), and
// the usual terms in one line: [PDE], [Dirichlet], [Neumann], [NeumannOn],
// [Robin], [RobinOn], [Periodic], [InitialValue], [InitialRate],
// [Measurements]. A term's points are given or drawn ([Draw],
// [Problem.Sample]) on a [Region]: the interior, faces of the box, the
// whole boundary, named boundary parts ([On]) or the initial slice.
// docs/problems.md is the guide.
//
// # Where the rest lives
//
// The paper's problems, their exact and reference solutions and their
// training schedules are in pkg/problems, written through this API; a
// problem's schedule (net, epochs, hyperparameter steps) is not part of
// the problem but goes with the fit (bayes.Settings, pkg/schedule).
package pde
