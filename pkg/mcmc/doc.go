// Package mcmc samples any density known up to a constant through its log
// and gradient: the no-U-turn sampler (NUTS) as Stan runs it, and static
// Hamiltonian Monte Carlo with a fixed number of leapfrog steps (the
// paper's reference), with Stan's windowed warm-up (dual averaging of the
// step size, a diagonal or dense metric), and the convergence diagnostics
// of Vehtari et al. (2021): rank-normalized split R-hat, bulk and tail
// ESS, Monte Carlo standard errors, E-BFMI.
//
// The package knows nothing of networks or PDEs: a posterior over network
// weights is one LogDensity among others (pkg/bayes builds it).
package mcmc

// LogDensity returns ln p(x) up to a constant and writes its gradient
// d ln p / dx into grad (len(grad) == len(x)). It may return NaN or -Inf
// where the density is zero or undefined; a trajectory that reaches such a
// point is divergent and is not followed there. It must not keep x or grad.
type LogDensity func(x, grad []float64) float64
