// Convergence diagnostics of Markov chains (Vehtari, Gelman, Simpson,
// Carpenter & Bürkner 2021, "Rank-normalization, folding, and localization:
// an improved R-hat", Bayesian Analysis 16(2), as implemented in Stan).
//
// Every function takes one trace per chain of any scalar quantity: a
// weight, U, a prediction. All chains must have the same length.

package mcmc

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"
)

// ESS returns the effective sample size of the mean of a scalar over the
// chains (Stan's ess_basic on split chains): each chain is cut into two
// halves, autocovariances γ_t are pooled over the m half-chains as
//
//	ρ_t = 1 - (W - mean_c γ_t,c) / var⁺,  var⁺ = (n-1)/n W + B/n,
//
// summed in pairs until a pair is negative (Geyer's initial positive
// sequence), made monotone (initial monotone sequence), and
// ESS = m n / τ with τ = -1 + 2 sum_{t<T} ρ_t + ρ_T, capped at
// m n log10(m n). The Monte Carlo standard error of the sample mean is
// sd/sqrt(ESS).
//
// ESS returns NaN if a chain has fewer than 4 values, a value is not
// finite, or all values are equal. It panics if chains is empty or the
// chains' lengths differ.
func ESS(chains [][]float64) float64 {
	split, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	return essSplit(split)
}

// BulkESS returns the bulk effective sample size (Stan's ess_bulk): ESS of
// the rank-normalized values z = Φ⁻¹((r - 3/8)/(S + 1/4)), r the rank of a
// value among all S values of all chains. It is ESS made robust to heavy
// tails; for a near-Gaussian quantity the two agree. NaN and panics are as
// for ESS.
func BulkESS(chains [][]float64) float64 {
	split, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	return essSplit(rankNormalize(split))
}

// SplitRHat returns the split potential scale reduction factor of
// Gelman et al. (BDA3, sec. 11.4): each chain is cut into two halves of n
// values, and with W the mean within-half variance and B/n the variance of
// the half means,
//
//	R̂ = sqrt(var⁺/W),  var⁺ = (n-1)/n W + B/n.
//
// R̂ → 1 as chains mix; above 1.01 (Vehtari et al. 2021) they have not.
// It returns NaN if a chain has fewer than 4 values, a value is not
// finite, or all halves are constant. It panics if chains is empty or the
// chains' lengths differ.
func SplitRHat(chains [][]float64) float64 {
	split, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	return rhatSplit(split)
}

// RankRHat returns the rank-normalized split R-hat of Vehtari et al.
// (2021), Stan's default: the larger of SplitRHat of the rank-normalized
// values (bulk; see BulkESS) and of the rank-normalized folded values
// |x - median| (tails, which catch chains that differ in scale only).
// Because of the ranks it is bounded (about 1.7 for two chains in disjoint
// modes) where SplitRHat is not. NaN and panics are as for SplitRHat.
func RankRHat(chains [][]float64) float64 {
	split, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	bulk := rhatSplit(rankNormalize(split))
	all := make([]float64, 0, len(split)*len(split[0]))
	for _, c := range split {
		all = append(all, c...)
	}
	med := median(all)
	folded := make([][]float64, len(split))
	for i, c := range split {
		folded[i] = make([]float64, len(c))
		for j, v := range c {
			folded[i][j] = math.Abs(v - med)
		}
	}
	tail := rhatSplit(rankNormalize(folded))
	if math.IsNaN(bulk) || math.IsNaN(tail) {
		return math.NaN()
	}
	return math.Max(bulk, tail)
}

// splitChains cuts each chain into two halves (dropping the middle value
// of an odd chain) and returns them as views. ok is false if the chains are
// shorter than 4 or hold a non-finite value.
func splitChains(chains [][]float64) (split [][]float64, ok bool) {
	if len(chains) == 0 {
		panic("mcmc: no chains")
	}
	n := len(chains[0])
	for i, c := range chains {
		if len(c) != n {
			panic(fmt.Sprintf("mcmc: chain %d has %d values, chain 0 has %d", i, len(c), n))
		}
	}
	if n < 4 {
		return nil, false
	}
	h := n / 2
	split = make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		for _, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, false
			}
		}
		split = append(split, c[:h:h], c[n-h:])
	}
	return split, true
}

// rhatSplit is SplitRHat on already split chains.
func rhatSplit(split [][]float64) float64 {
	m, n := len(split), len(split[0])
	means := make([]float64, m)
	var w float64
	for c, x := range split {
		mu, sd := meanStd(x)
		means[c] = mu
		w += sd * sd
	}
	w /= float64(m)
	_, sdMeans := meanStd(means)
	varPlus := float64(n-1)/float64(n)*w + sdMeans*sdMeans
	if !(w > 0) {
		return math.NaN()
	}
	return math.Sqrt(varPlus / w)
}

// essSplit is ESS on already split chains (Stan's
// compute_effective_sample_size).
func essSplit(split [][]float64) float64 {
	m, n := len(split), len(split[0])
	acov := make([][]float64, m)
	means := make([]float64, m)
	var meanVar float64
	ac := newAutocov(n)
	for c, x := range split {
		acov[c] = make([]float64, n)
		means[c] = ac.compute(acov[c], x)
		meanVar += acov[c][0] * float64(n) / float64(n-1)
	}
	meanVar /= float64(m)
	varPlus := meanVar * float64(n-1) / float64(n)
	if m > 1 {
		_, sd := meanStd(means)
		varPlus += sd * sd
	}
	if !(varPlus > 0) || !(meanVar > 0) {
		return math.NaN()
	}
	meanAcov := func(t int) float64 {
		var s float64
		for c := range acov {
			s += acov[c][t]
		}
		return s / float64(m)
	}
	rho := make([]float64, n+1)
	rho[0] = 1
	even := 1.0
	odd := 1 - (meanVar-meanAcov(1))/varPlus
	rho[1] = odd
	// Geyer's initial positive sequence: pairs (ρ_{2k}, ρ_{2k+1}) while
	// their sum is positive.
	s := 1
	for s < n-4 && even+odd > 0 {
		even = 1 - (meanVar-meanAcov(s+1))/varPlus
		odd = 1 - (meanVar-meanAcov(s+2))/varPlus
		if even+odd >= 0 {
			rho[s+1], rho[s+2] = even, odd
		}
		s += 2
	}
	maxS := s
	// Used in the improved estimate, which reduces the variance in the
	// antithetic case (Stan).
	if rho[maxS] > 0 {
		rho[maxS+1] = rho[maxS]
	}
	// Initial monotone sequence: pair sums may not increase.
	for s := 1; s <= maxS-3; s += 2 {
		if rho[s+1]+rho[s+2] > rho[s-1]+rho[s] {
			rho[s+1] = (rho[s-1] + rho[s]) / 2
			rho[s+2] = rho[s+1]
		}
	}
	total := float64(m * n)
	tau := -1 + rho[maxS+1]
	for _, r := range rho[:maxS] {
		tau += 2 * r
	}
	return math.Min(total/tau, total*math.Log10(total))
}

// autocov computes autocovariances by FFT, with buffers for one length.
type autocov struct {
	fft  *fourier.FFT
	buf  []float64
	coef []complex128
}

func newAutocov(n int) *autocov {
	size := 1
	for size < 2*n {
		size *= 2
	}
	return &autocov{
		fft:  fourier.NewFFT(size),
		buf:  make([]float64, size),
		coef: make([]complex128, size/2+1),
	}
}

// compute writes γ_t = (1/n) sum_{i<n-t} (x_i - x̄)(x_{i+t} - x̄) into
// dst[t] for t < n (zero-padded FFT, so no wrap-around) and returns x̄.
func (a *autocov) compute(dst, x []float64) float64 {
	n := len(x)
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	for i, v := range x {
		a.buf[i] = v - mean
	}
	clear(a.buf[n:])
	a.fft.Coefficients(a.coef, a.buf)
	for i, c := range a.coef {
		a.coef[i] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
	}
	a.fft.Sequence(a.buf, a.coef)
	scale := 1 / (float64(len(a.buf)) * float64(n))
	for t := range dst {
		dst[t] = a.buf[t] * scale
	}
	return mean
}

// rankNormalize returns the normal scores Φ⁻¹((r - 3/8)/(S + 1/4)) of the
// values, r their rank among all S values (ties get their average rank),
// in the same chain layout.
func rankNormalize(chains [][]float64) [][]float64 {
	// Sort values with their positions in one flat slice: no closures over
	// the chains, which made sort.Slice the cost of the whole predictive.
	type ref struct {
		v    float64
		c, i int32
	}
	n := 0
	for _, x := range chains {
		n += len(x)
	}
	refs := make([]ref, 0, n)
	for c, x := range chains {
		for i, v := range x {
			refs = append(refs, ref{v, int32(c), int32(i)})
		}
	}
	slices.SortFunc(refs, func(a, b ref) int { return cmp.Compare(a.v, b.v) })
	out := make([][]float64, len(chains))
	for c, x := range chains {
		out[c] = make([]float64, len(x))
	}
	total := float64(len(refs))
	for lo := 0; lo < len(refs); {
		hi := lo + 1
		for hi < len(refs) && refs[hi].v == refs[lo].v {
			hi++
		}
		// Ranks lo+1..hi share their average.
		rank := float64(lo+1+hi) / 2
		z := math.Sqrt2 * math.Erfinv(2*(rank-0.375)/(total+0.25)-1)
		for _, r := range refs[lo:hi] {
			out[r.c][r.i] = z
		}
		lo = hi
	}
	return out
}

// median returns the median of x, which it sorts.
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// TailESS returns the tail effective sample size (Stan's ess_tail): the
// smaller ESS of the indicators of the 5% and 95% quantiles, I(x <= q05)
// and I(x <= q95), on split chains (Vehtari et al. 2021). It says how well
// the chains resolve the 90% interval. NaN and panics are as for ESS.
func TailESS(chains [][]float64) float64 {
	split, ok := splitChains(chains)
	if !ok {
		return math.NaN()
	}
	var all []float64
	for _, c := range split {
		all = append(all, c...)
	}
	slices.Sort(all)
	ess := math.Inf(1)
	ind := make([][]float64, len(split))
	for _, prob := range []float64{0.05, 0.95} {
		q := quantile(all, prob)
		for i, c := range split {
			ind[i] = make([]float64, len(c))
			for j, v := range c {
				if v <= q {
					ind[i][j] = 1
				}
			}
		}
		ess = math.Min(ess, essSplit(ind))
	}
	return ess
}

// quantile returns the quantile prob of sorted x, interpolated linearly
// (R's type 7, as Stan's posterior package).
func quantile(sorted []float64, prob float64) float64 {
	h := float64(len(sorted)-1) * prob
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[lo]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// EBFMI returns the energy Bayesian fraction of missing information of one
// chain's energies (Betancourt 2016): sum (E_n - E_{n-1})² / sum (E_n -
// Ē)². Below 0.3 the momentum resampling explores the energy levels slowly
// (heavy tails; Stan warns). NaN for fewer than 2 energies or constant ones.
func EBFMI(energy []float64) float64 {
	if len(energy) < 2 {
		return math.NaN()
	}
	mean, _ := meanStd(energy)
	var num, den float64
	for i, e := range energy {
		if i > 0 {
			d := e - energy[i-1]
			num += d * d
		}
		den += (e - mean) * (e - mean)
	}
	if !(den > 0) {
		return math.NaN()
	}
	return num / den
}

// Summary is what a Stan user reads for one scalar quantity over all
// chains.
type Summary struct {
	Mean, SD float64
	// MCSE is the Monte Carlo standard error of Mean, SD/sqrt(ESS) with
	// the ESS of the mean (ESS, not BulkESS).
	MCSE float64
	// BulkESS and TailESS are the effective sample sizes of the bulk and
	// of the 5% and 95% quantiles; RHat the rank-normalized split R-hat.
	BulkESS, TailESS, RHat float64
}

// Summarize returns the Summary of one scalar's chains. NaN fields are
// those undefined for these chains (see ESS); panics are as for ESS.
func Summarize(chains [][]float64) Summary {
	var all []float64
	for _, c := range chains {
		all = append(all, c...)
	}
	var s Summary
	s.Mean, s.SD = meanStd(all)
	s.MCSE = s.SD / math.Sqrt(ESS(chains))
	s.BulkESS = BulkESS(chains)
	s.TailESS = TailESS(chains)
	s.RHat = RankRHat(chains)
	return s
}

// meanStd returns the mean and the standard deviation (N-1 denominator).
func meanStd(x []float64) (m, s float64) {
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(x)-1))
}
