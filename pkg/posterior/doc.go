// Package posterior samples the posterior a fit's Laplace approximation
// stands for and compares the two, as the paper's section "Comparison with
// Hybrid Monte Carlo" does: NewLogDensity (and NewJointLogDensity, with
// ln alpha and ln beta) give the posterior as an mcmc.LogDensity;
// CompareHMC samples it and sets the sampled predictive beside the Laplace
// band on a grid; SampleUnknowns samples the unknown coefficients of an
// inverse problem jointly with the weights.
package posterior
