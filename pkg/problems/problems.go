package problems

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Options configures the paper's problems. The zero value gives the paper's
// settings, written on each field.
type Options struct {
	// DataSeed draws the points and the noise; 0 means 1. The same data seed
	// gives the same data set, so fits of an ensemble are compared on one D.
	DataSeed uint64
	// Kappa is the heat equation's diffusivity (the paper does not give it);
	// 0 means 0.1.
	Kappa float64
	// Noise is the regression's Gaussian noise; 0 means 0.05. By default it
	// is the standard deviation; with NoiseIsVariance it is the variance (the
	// paper's wording).
	Noise           float64
	NoiseIsVariance bool
	// BurgersNoise is the standard deviation of the measured Burgers data;
	// 0 means 0.02.
	BurgersNoise float64
	// Sampling is how the training points are drawn: pde.Uniform or
	// pde.LatinHypercube, which stratifies: n points of a box take one
	// value in each of n equal strata of every coordinate, and points on a
	// line or on the boundary one in each of n equal pieces. "" is the
	// problem's own: Latin hypercube for lid-driven, uniform (the paper's)
	// for the others.
	Sampling pde.Sampler
	// Reaction is the reaction rate r of the data of heat2-inverse and
	// heat2-reaction (u_t = kappa u_xx - r u); 0 means none
	// (docs/inverse.md).
	Reaction float64
}

func (o Options) sampler() (sampler, error) {
	s := o.DataSeed
	if s == 0 {
		s = 1
	}
	rng := rand.New(rand.NewPCG(s, 0x5eed))
	switch o.Sampling {
	case "", pde.Uniform:
		return sampler{rng: rng, name: pde.Uniform}, nil
	case pde.LatinHypercube:
		return sampler{rng: rng, lhs: true, name: pde.LatinHypercube}, nil
	}
	return sampler{}, fmt.Errorf("sampling %q: the paper's problems draw %s or %s points (%s is for the Draw terms of a problem of your own)",
		o.Sampling, pde.Uniform, pde.LatinHypercube, pde.Halton)
}

// withDraws sets p's Fresh, the problem built with data seed
// max(o.DataSeed, 1) + pde.FreshSeedOffset, and Redraw(k), built with
// max(o.DataSeed, 1) + k*pde.RedrawSeedStride: the seeds of a user's
// Problem.Sample.
func withDraws(p *pde.Problem, o Options, build func(Options) *pde.Problem) *pde.Problem {
	at := func(seed uint64) (*pde.Problem, error) {
		f := o
		f.DataSeed = seed
		return build(f), nil
	}
	p.Fresh = func() (*pde.Problem, error) { return at(max(o.DataSeed, 1) + pde.FreshSeedOffset) }
	p.Redraw = func(k uint64) (*pde.Problem, error) { return at(max(o.DataSeed, 1) + k*pde.RedrawSeedStride) }
	return p
}

// mustSampler is o's sampler for the problem constructors, which take
// Options directly; New checks the scheme first and returns its error.
func (o Options) mustSampler() sampler {
	s, err := o.sampler()
	if err != nil {
		panic("problems: " + err.Error())
	}
	return s
}

// Regression is the paper's HMC comparison: u = x^2 cos^2(4x) measured with
// Gaussian noise at 12 points in [-0.8,-0.3] and 12 in [0.3,0.8], fitted by
// a 1-6-1 network.
func Regression(o Options) *pde.Problem {
	smp := o.mustSampler()
	noise := o.Noise
	if noise == 0 {
		noise = 0.05
	}
	std := noise
	if o.NoiseIsVariance {
		std = math.Sqrt(noise)
	}
	var pts [][]float64
	var y []float64
	for _, iv := range [][2]float64{{-0.8, -0.3}, {0.3, 0.8}} {
		// Uniform draws each x just before its noise (the data of seed 1
		// stay those of the first release).
		var xs []float64
		if smp.lhs {
			xs = smp.line(12, iv[0], iv[1])
		}
		for i := 0; i < 12; i++ {
			var x float64
			if smp.lhs {
				x = xs[i]
			} else {
				x = uniform(smp.rng, iv[0], iv[1])
			}
			pts = append(pts, []float64{x})
			y = append(y, RegressionCurve(x)+std*smp.rng.NormFloat64())
		}
	}
	return withDraws(&pde.Problem{
		Name: "regression", Inputs: []string{"x"}, Lo: []float64{-1}, Hi: []float64{1}, Sampling: smp.name,
		Params: map[string]float64{"noise_std": std},
		Terms:  []pde.Term{{Name: "data", Group: "data", Points: pts, Target: y, Residual: pde.DataResidual, Measured: true}},
		Exact:  func(x []float64) float64 { return RegressionCurve(x[0]) },
	}, o, Regression)
}

// Heat is u_t = kappa u_xx on [0,1]^2 with u(0,t)=u(1,t)=0, u(x,0)=sin(pi x):
// 50 interior points and 50 on the boundary and initial line, a 2-6-1 net.
func Heat(o Options) *pde.Problem {
	smp := o.mustSampler()
	kappa := o.Kappa
	if kappa == 0 {
		kappa = 0.1
	}
	lo, hi := []float64{0, 0}, []float64{1, 1}
	interior := smp.box(50, lo, hi)
	bpts, btgt := smp.boundary(50, lo, hi, func(x, t float64) float64 { return HeatExact(x, t, kappa) })
	return withDraws(&pde.Problem{
		Name: "heat", Inputs: []string{"x", "t"}, Lo: lo, Hi: hi, Sampling: smp.name,
		Params: map[string]float64{"kappa": kappa},
		Terms: []pde.Term{
			{Name: "pde", Group: "pde", Points: interior, Residual: func(v *pde.Vars) *ad.Node {
				return ad.Sub(v.D("t"), ad.Scale(v.D2("x", "x"), kappa))
			}},
			{Name: "boundary", Group: "boundary", Points: bpts, Target: btgt, Residual: pde.DataResidual},
		},
		Exact: func(x []float64) float64 { return HeatExact(x[0], x[1], kappa) },
	}, o, Heat)
}

// Wave is u_tt = u_xx on [0,1]^2 with u(0,t)=u(1,t)=0, u(x,0)=sin(pi x) +
// 0.5 sin(2 pi x) and u_t(x,0)=0 (the paper's "u_t(0,t)" is a typo: the exact
// solution needs zero initial velocity): 50 interior, 50 boundary/initial,
// and 25 extra initial points for u and 25 for u_t, a 2-8-1 net.
func Wave(o Options) *pde.Problem {
	smp := o.mustSampler()
	lo, hi := []float64{0, 0}, []float64{1, 1}
	interior := smp.box(50, lo, hi)
	bpts, btgt := smp.boundary(50, lo, hi, WaveExact)
	init := make([][]float64, 25)
	itgt := make([]float64, 25)
	vel := make([][]float64, 25)
	var xs, vs []float64
	if smp.lhs {
		xs, vs = smp.line(25, 0, 1), smp.line(25, 0, 1)
	}
	for i := range init {
		if !smp.lhs { // interleaved, as the first release drew them
			xs, vs = append(xs, uniform(smp.rng, 0, 1)), append(vs, uniform(smp.rng, 0, 1))
		}
		init[i] = []float64{xs[i], 0}
		itgt[i] = WaveExact(xs[i], 0)
		vel[i] = []float64{vs[i], 0}
	}
	return withDraws(&pde.Problem{
		Name: "wave", Inputs: []string{"x", "t"}, Lo: lo, Hi: hi, Params: map[string]float64{}, Sampling: smp.name,
		Terms: []pde.Term{
			{Name: "pde", Group: "pde", Points: interior, Residual: func(v *pde.Vars) *ad.Node {
				return ad.Sub(v.D2("t", "t"), v.D2("x", "x"))
			}},
			{Name: "boundary", Group: "boundary", Points: bpts, Target: btgt, Residual: pde.DataResidual},
			{Name: "initial", Group: "boundary", Points: init, Target: itgt, Residual: pde.DataResidual},
			{Name: "initial-velocity", Group: "boundary", Points: vel, Target: make([]float64, 25), Residual: pde.DerivativeResidual("t")},
		},
		Exact: func(x []float64) float64 { return WaveExact(x[0], x[1]) },
	}, o, Wave)
}

// waveFull is the wave problem with the paper's full hyperparameter set:
// an alpha per weight class and betas split by term group.
func waveFull(o Options) *pde.Problem {
	p := Wave(o)
	p.Name = "wave-full"
	return withDraws(p, o, waveFull)
}

// Burgers is u_t + u u_x = (0.01/pi) u_xx on [-1,1]x[0,1], u(x,0) = -sin(pi x),
// u(+-1,t) = 0, with 200 equation points, 200 boundary/initial points and 60
// measured points (noise 0.02); half of the equation and measured points lie
// in x in [-0.2, 0.2]. The reference is the exact Cole-Hopf solution. Net
// 2-8-8-1, one alpha and betas for pde, boundary and data.
func Burgers(o Options) *pde.Problem {
	smp := o.mustSampler()
	rng := smp.rng
	nu := BurgersNu()
	ref := sharedBurgersRef(nu)
	noise := burgersNoise(o)
	lo, hi := []float64{-1, 0}, []float64{1, 1}
	half := func(n int) [][]float64 {
		if smp.lhs {
			return append(smp.box(n/2, []float64{-0.2, 0}, []float64{0.2, 1}), smp.box(n-n/2, lo, hi)...)
		}
		pts := make([][]float64, n)
		for i := range pts {
			x := uniform(rng, -1, 1) // drawn and dropped for the first half: the first release's stream
			if i < n/2 {
				x = uniform(rng, -0.2, 0.2)
			}
			pts[i] = []float64{x, uniform(rng, 0, 1)}
		}
		return pts
	}
	interior := half(200)
	bpts, btgt := smp.boundary(200, lo, hi, func(x, t float64) float64 {
		if t == 0 {
			return -math.Sin(math.Pi * x)
		}
		return 0
	})
	data := half(60)
	dtgt := make([]float64, len(data))
	for i, x := range data {
		dtgt[i] = ref.U(x[0], x[1]) + noise*rng.NormFloat64()
	}
	return withDraws(&pde.Problem{
		Name: "burgers", Inputs: []string{"x", "t"}, Lo: lo, Hi: hi, Sampling: smp.name,
		Params: map[string]float64{"nu": nu, "noise_std": noise},
		Terms: []pde.Term{
			{Name: "pde", Group: "pde", Points: interior, Residual: func(v *pde.Vars) *ad.Node {
				return ad.Sub(ad.Add(v.D("t"), ad.Mul(v.U, v.D("x"))), ad.Scale(v.D2("x", "x"), nu))
			}},
			{Name: "boundary", Group: "boundary", Points: bpts, Target: btgt, Residual: pde.DataResidual},
			{Name: "data", Group: "data", Points: data, Target: dtgt, Residual: pde.DataResidual, Measured: true},
		},
		Exact: func(x []float64) float64 { return ref.U(x[0], x[1]) },
	}, o, Burgers)
}

// burgersRefs caches the reference solution of each viscosity: building one
// (its Gauss-Hermite rule) costs about 1.4 ms, and Problem.Redraw builds the
// problem anew every Settings.Resample epochs. A BurgersRef is read-only.
var burgersRefs sync.Map // float64 -> *BurgersRef

func sharedBurgersRef(nu float64) *BurgersRef {
	if r, ok := burgersRefs.Load(nu); ok {
		return r.(*BurgersRef)
	}
	r, _ := burgersRefs.LoadOrStore(nu, NewBurgersRef(nu, 0))
	return r.(*BurgersRef)
}

// burgersNoise is the standard deviation of the Burgers measurements.
func burgersNoise(o Options) float64 {
	if o.BurgersNoise == 0 {
		return 0.02
	}
	return o.BurgersNoise
}
