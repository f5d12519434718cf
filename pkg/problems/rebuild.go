package problems

import (
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Rebuild builds the registered problem name as a recorded fit of it was
// built: its data seed and sampling, and the options read back from what
// a record keeps of the problem, its parameters (kappa, noise_std,
// reaction) and its unknowns' true values (an inverse heat problem's kappa
// is one). pkg/record's Restore then checks that the points and targets
// are the fit's: a fit on data of a user's file (WithData) is not
// rebuilt here, nor is a problem that is not registered (restore those on
// the problem itself).
func Rebuild(name string, dataSeed uint64, sampling string, params, truths map[string]float64) (*pde.Problem, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	o := Options{DataSeed: dataSeed, Sampling: pde.Sampler(sampling)}
	first := func(keys ...float64) float64 {
		for _, k := range keys {
			if k != 0 {
				return k
			}
		}
		return 0
	}
	if e.Takes("Kappa") {
		o.Kappa = first(params["kappa"], truths["kappa"])
	}
	if e.Takes("Noise") {
		o.Noise = params["noise_std"]
	}
	if e.Takes("BurgersNoise") {
		o.BurgersNoise = params["noise_std"]
	}
	if e.Takes("Reaction") {
		o.Reaction = params["reaction"]
	}
	return New(name, o)
}
