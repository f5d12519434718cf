package band

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// The error estimate: the solution's error u - u* read from the residuals
// alone, by one Gauss-Newton step of the whole problem (every term, at the
// training points and at fresh ones) in a space larger than the network's
// tangent space: the output layer of the network with EstimateFeatures
// random units added to its last hidden layer. The correction du that
// step finds makes u + du satisfy the linearized equations and conditions
// in least squares, so -du estimates the error. Where the problem is
// linear and the features can hold the error (heat, notebook 07's
// Poisson and advection-diffusion) it matches the exact error to a few
// per cent (docs/calibration.md); where they cannot (Burgers' shock) two
// estimates from other features and other points disagree, and the
// estimate is not used (EstimateAgree).
const (
	// EstimateFeatures is the number of random units added.
	EstimateFeatures = 300
	// EstimateDraws is the number of fresh draws each of the two estimates
	// reads besides the training points: the first the problem's fresh
	// draw and EstimateDraws-1 redraws of it, the second EstimateDraws
	// other redraws.
	EstimateDraws = 4
	// EstimateAgree is the largest rms difference of the two estimates,
	// relative to the rms of the first, at which the estimate is used.
	// Measured on the 90 fits of docs/calibration.md's table: 0.009-0.124
	// on the 27 heat and notebook 07 fits whose estimates it accepts (each
	// then meeting both targets), 0.34-1.15 on the wave, wave-full and
	// three accurate poisson-2d fits whose halves it rejects.
	EstimateAgree = 0.2
	// estimateBudget is the largest Jacobian of one draw (its residuals
	// times the widened network's weights) the estimate computes: a heat
	// draw is 0.12 million values, a Burgers one 1.4 million; a problem
	// far beyond it (poisson-holes: 39 million, gigabytes of intermediate
	// rows and minutes per record) keeps the checks' band.
	estimateBudget = 8e6
	// estimateGrid is the points per axis at which the estimate sizes the
	// band (a 50 x 50 grid in 2-D).
	estimateGrid = 50
	// estimateRcond is the relative singular value below which the least
	// squares step drops a direction. (A Tikhonov damping of 1e-6 instead,
	// by the normal equations, is about nine times cheaper but makes the
	// two halves agree less: 0.27 against 0.09 on the full run's heat-lhs.)
	estimateRcond = 1e-8
)

// estimable reports whether the error estimate can apply to q: no
// measurements (their noise moves the solution in ways no residual
// shows), no unknowns and no transforms. NewFreshDraw draws the estimate's
// redraws only then.
func estimable(q *pde.Problem) bool {
	return len(q.Unknowns) == 0 && len(q.Transforms) == 0 && !hasMeasurements(q)
}

// estimatedScales is, per output, the factor by which the paper's band of
// f must be scaled for 95 % of the estimated errors on a grid of the
// domain to lie within 2 sigma; ok is false when the estimate does not
// apply (a problem not estimable, so d holds no redraws; no hidden layer
// or no box; a draw's Jacobian beyond estimateBudget) or its two halves disagree
// (EstimateAgree). agree is that disagreement (NaN when not computed).
func estimatedScales(f *bayes.Fit, d FreshDraw) (scales []float64, agree float64, ok bool) {
	agree = math.NaN()
	p := f.Model.Problem
	if f.Laplace == nil || !estimable(p) || len(d.extra) < 2*EstimateDraws-1 {
		return nil, agree, false
	}
	S := f.Model.Net.Sizes
	if len(S) < 3 || len(p.Lo) != S[0] || len(p.Hi) != S[0] { // no hidden layer to widen, no box to place units in
		return nil, agree, false
	}
	rows := 0
	for _, t := range d.p.Terms {
		rows += len(t.Points)
	}
	if widenedWeights := f.Model.Net.NumWeights() + EstimateFeatures*(S[len(S)-3]+1+S[len(S)-1]); float64(rows)*float64(widenedWeights) > estimateBudget {
		return nil, agree, false
	}
	pts, _ := (&pde.Problem{Inputs: p.Inputs, Lo: p.Lo, Hi: p.Hi, Domain: p.Domain}).Grid(estimateGrid)
	halves := [][]*pde.Problem{
		append([]*pde.Problem{p, d.p}, d.extra[:EstimateDraws-1]...),
		append([]*pde.Problem{p}, d.extra[EstimateDraws-1:2*EstimateDraws-1]...),
	}
	// the halves are independent: on a fit of several threads, at once
	var est [2][][]float64
	var errs [2]error
	var wg sync.WaitGroup
	for h, draws := range halves {
		run := func() { est[h], errs[h] = errorEstimate(f, draws, uint64(h+1), pts) }
		if f.Model.Threads() > 1 {
			wg.Go(run)
		} else {
			run()
		}
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		return nil, agree, false
	}
	var diff, norm float64
	for k := range est[0] {
		for i, v := range est[0][k] {
			diff += (v - est[1][k][i]) * (v - est[1][k][i])
			norm += v * v
		}
	}
	if agree = math.Sqrt(diff / norm); !(agree <= EstimateAgree) {
		return nil, agree, false
	}
	_, sigma, err := f.PredictOutputs(pts)
	if err != nil {
		return nil, agree, false
	}
	scales = make([]float64, len(sigma))
	for k, s := range sigma {
		z := make([]float64, 0, len(s))
		for i, si := range s {
			if si > 0 {
				z = append(z, math.Abs(est[0][k][i])/si)
			}
		}
		if scales[k] = score.Quantile(z, 0.95) / 2; !(scales[k] > 0) || math.IsInf(scales[k], 0) {
			return nil, agree, false
		}
	}
	return scales, agree, true
}

// errorEstimate is the estimated error of every output of f at pts from
// the residuals on draws (the widened network's, seeded by seed).
func errorEstimate(f *bayes.Fit, draws []*pde.Problem, seed uint64, pts [][]float64) ([][]float64, error) {
	net := widened(f.Model.Net, f.Model.Problem, EstimateFeatures, rand.New(rand.NewPCG(seed, 0x5eed)))
	nout := net.Sizes[len(net.Sizes)-1]
	ncol := nout * (net.Sizes[len(net.Sizes)-2] + 1) // the output layer's weights, then its bias
	n := 0
	for _, q := range draws {
		for _, t := range q.Terms {
			n += len(t.Points)
		}
	}
	rows := make([]float64, 0, n*ncol)
	rhs := make([]float64, 0, n)
	for _, q := range draws {
		m, err := f.ModelOnNet(q, net)
		if err != nil {
			return nil, err
		}
		res, jac := m.OutputJacobians()
		for t, r := range res {
			sb := math.Sqrt(f.Beta[m.TermGroup[t]])
			for i, ri := range r {
				for _, v := range jac[t][i*ncol : (i+1)*ncol] {
					rows = append(rows, sb*v)
				}
				rhs = append(rhs, -sb*ri)
			}
		}
	}
	du, err := leastSquares(mat.NewDense(len(rhs), ncol, rows), rhs, estimateRcond)
	if err != nil {
		return nil, err
	}
	// u - (u + du), the error, is -du's output layer on the features:
	// the widened net with du for its output layer and no output shift
	copy(net.W[net.NumWeights()-ncol:], du)
	if net.OutShift != nil {
		net.OutShift = make([]float64, nout)
	}
	vals := net.EvalBatch(pts)
	est := make([][]float64, nout)
	for k := range est {
		est[k] = make([]float64, len(pts))
		for i := range pts {
			est[k][i] = -vals[i*nout+k]
		}
	}
	return est, nil
}

// widened is net with k more units in its last hidden layer, whose
// incoming weights are random and outgoing weights zero: the same outputs,
// and output-layer columns of the Jacobian that hold the linearized
// residuals of k random functions besides the network's own units. With
// one hidden layer the new units see the inputs (through net's input map,
// which they share with its units): act(a.x + b), a of
// random direction and a slope of 1 to 40 across the box (log-uniform),
// the unit's centre b = -a.x0 at a random point x0 of the box; deeper,
// they see the previous hidden layer's values, centred at its values at
// such a point.
func widened(net *nn.MLP, p *pde.Problem, k int, rng *rand.Rand) *nn.MLP {
	S := net.Sizes
	L := len(S) - 1                 // layers; L-2 is the last hidden layer's index
	below := hiddenValues(net, L-2) // nil: the new units see the inputs (not their waves)
	sizes := slices.Clone(S)
	sizes[L-1] += k
	w := nn.Zero(sizes, net.Activation)
	w.InShift, w.InScale, w.OutShift, w.OutScale = net.InShift, net.InScale, net.OutShift, net.OutScale
	if net.Waves != nil {
		w.SetWaves(net.Waves, nil)
	}
	for l := 0; l < L; l++ {
		ow, ob := net.Layer(l)
		nw, nb := w.Layer(l)
		in, nin := net.InWidth(l), w.InWidth(l)
		for r := 0; r < S[l+1]; r++ {
			copy(nw[r*nin:r*nin+in], ow[r*in:(r+1)*in])
		}
		copy(nb, ob)
	}
	in, H := net.InWidth(L-2), S[L-1]
	nw, nb := w.Layer(L - 2)
	x0 := make([]float64, len(p.Lo))
	for j := 0; j < k; j++ {
		for d := range x0 {
			x0[d] = p.Lo[d] + rng.Float64()*(p.Hi[d]-p.Lo[d])
		}
		h := net.MapInput(x0)
		if below != nil {
			h = below(x0)
		}
		slope := math.Exp(rng.Float64() * math.Log(40))
		row := nw[(H+j)*in : (H+j)*in+len(h)]
		norm := 0.0
		for i := range row {
			row[i] = rng.NormFloat64()
			norm += row[i] * row[i]
		}
		norm = math.Sqrt(norm)
		b := 0.0
		for i := range row {
			width := 2.0 // a hidden unit's values span [-1, 1], as mapped inputs do
			if below == nil && net.InShift == nil {
				width = p.Hi[i] - p.Lo[i]
			}
			row[i] *= slope / norm * 2 / width
			b -= row[i] * h[i]
		}
		nb[H+j] = b
	}
	return w
}

// hiddenValues returns the function x -> the values of net's hidden layer
// l-1 (the layer feeding layer l), or nil for l = 0 (the inputs): the net
// cut after that layer, followed by an identity layer, so that Eval
// applies the activation to it.
func hiddenValues(net *nn.MLP, l int) func(x []float64) []float64 {
	if l == 0 {
		return nil
	}
	S := net.Sizes
	H := S[l]
	cut := nn.Zero(append(slices.Clone(S[:l+1]), H), net.Activation)
	cut.InShift, cut.InScale = net.InShift, net.InScale // the values it sees; no output map
	if net.Waves != nil {
		cut.SetWaves(net.Waves, nil)
	}
	copy(cut.W, net.W[:len(cut.W)-H*H-H])
	id, _ := cut.Layer(l)
	for i := 0; i < H; i++ {
		id[i*H+i] = 1
	}
	return func(x []float64) []float64 { return cut.Eval(x, nil) }
}

// estimateWarnings is the record's warning from the error estimate's
// scales (estimatedScales, one per output named by outputs): the paper's
// band is likely overconfident where 95 % of the estimated errors lie
// within more than ValueOverconfident sigma (a scale above
// ValueOverconfident/2), likely too wide where within less than
// ValueNarrow sigma; nil when neither.
func estimateWarnings(scales []float64, outputs []string) []string {
	var out []string
	for k, s := range scales {
		name := ""
		if len(scales) > 1 {
			name = " of " + outputs[k]
		}
		switch q := 2 * s; {
		case q > ValueOverconfident:
			out = append(out, fmt.Sprintf("the 2-sigma band%s is likely overconfident: the error estimated from the residuals at fresh points puts 95 %% of the errors within %.2g sigma (above %g); use the calibrated band", name, q, ValueOverconfident))
		case q < ValueNarrow:
			out = append(out, fmt.Sprintf("the 2-sigma band%s is likely too wide: the error estimated from the residuals at fresh points puts 95 %% of the errors within %.2g sigma (below %g); use the calibrated band", name, q, ValueNarrow))
		}
	}
	return out
}
