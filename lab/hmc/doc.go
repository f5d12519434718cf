// Package hmc is the study of docs/hmc.md's "Sampling on a PDE: heat":
// NUTS on heat's posterior at the tuned fit (seed 1), R-hat and ESS of u,
// of ln p and of the weights raw and in a canonical form that the tanh
// network's sign and permutation symmetries leave unchanged.
// TestHeatNUTSReference samples for minutes and runs only when
// BPINN_HEAT_NUTS gives the draws per chain:
//
//	BPINN_HEAT_NUTS=500 BPINN_HEAT_NUTS_CHAINS=4 go test -run TestHeatNUTSReference -v ./lab/hmc
package hmc
