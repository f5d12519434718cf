// Package holes is the check behind docs/results/poisson-holes.md's
// default fit: `bpinn fit poisson-holes` (seed 1) against the reference on
// the grid and, where present, PINNacle's points ($PINNACLE_DIR, default
// ../shared/pinnacle beside the repository), within issue 39's targets.
// TestPoissonHolesDefaultFit runs only when BPINN_HOLES_FIT is set (about
// 2 min of CPU):
//
//	BPINN_HOLES_FIT=1 go test -timeout 30m -run TestPoissonHolesDefaultFit -v ./lab/holes
package holes
