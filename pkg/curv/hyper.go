package curv

import "math"

// Loss is what the evidence needs besides A: the loss parts at w_MP and the
// group sizes.
type Loss struct {
	EW   []float64 // E_w^i per alpha group
	ED   []float64 // E_D^t per beta group
	W    []int     // weights per alpha group
	N    []int     // residuals per beta group
	Comb float64   // the network's symmetry term sum_l (ln M_l! + M_l ln 2)
}

// Hyper is the evidence at given hyperparameters from A's traces.
//
// Conventions: LogP = ln p(D|alpha,beta) = -EHyp drops the constant
// -N/2 ln(2 pi) (LogPConst).
type Hyper struct {
	EHyp         float64
	GradLogAlpha []float64 // dE_hyp/d ln alpha_i = alpha_i E_w^i + alpha_i tr_i(A^-1)/2 - W_i/2
	GradLogBeta  []float64 // dE_hyp/d ln beta_t = beta_t E_D^t + beta_t tr(A^-1 H_t)/2 - N_t/2

	GammaAlpha []float64 // W_i - alpha_i tr_i(A^-1)
	GammaBeta  []float64 // beta_t tr(A^-1 H_t)
	Gamma      float64   // effective number of parameters, sum_i GammaAlpha

	// The Occam terms' arguments W_i/2 - 1/2 alpha_i^2 tr((A^-1 P_i)^2) and
	// N_t/2 - 1/2 beta_t^2 tr((A^-1 H_t)^2), i.e. -alpha^2 d2 ln p/d alpha^2;
	// nil without the squares.
	OccamArgAlpha, OccamArgBeta []float64
	LnSigmaAlpha, LnSigmaBeta   []float64 // -1/2 ln(arg); 0 where arg <= 0 (see OccamOK)
	OccamOK                     bool      // every argument positive (false without the squares)

	LogP        float64 // ln p(D|alpha,beta) = -EHyp
	LogPConst   float64 // -N/2 ln(2 pi), dropped from LogP
	LogEvidence float64 // LogP + sum ln sigma + Comb; valid only when OccamOK
}

// NewHyper evaluates the evidence. trSqAlpha and trSqBeta may be nil (no
// Occam factors: OccamOK false, LogEvidence = LogP + Comb).
func NewHyper(logDet float64, trAlpha, trBeta, trSqAlpha, trSqBeta, alpha, beta []float64, l Loss) Hyper {
	nA, nB := len(alpha), len(beta)
	squares := trSqAlpha != nil && trSqBeta != nil
	h := Hyper{EHyp: 0.5 * logDet, GradLogAlpha: make([]float64, nA), GammaAlpha: make([]float64, nA),
		GradLogBeta: make([]float64, nB), GammaBeta: make([]float64, nB), OccamOK: squares}
	if squares {
		h.OccamArgAlpha, h.LnSigmaAlpha = make([]float64, nA), make([]float64, nA)
		h.OccamArgBeta, h.LnSigmaBeta = make([]float64, nB), make([]float64, nB)
	}
	for i, al := range alpha {
		W := float64(l.W[i])
		h.EHyp += al*l.EW[i] - W/2*math.Log(al)
		h.GradLogAlpha[i] = al*l.EW[i] + 0.5*al*trAlpha[i] - W/2
		h.GammaAlpha[i] = W - al*trAlpha[i]
		h.Gamma += h.GammaAlpha[i]
		if squares {
			h.OccamArgAlpha[i] = W/2 - 0.5*al*al*trSqAlpha[i]
			h.LnSigmaAlpha[i], h.OccamOK = lnSigma(h.OccamArgAlpha[i], h.OccamOK)
		}
	}
	nTotal := 0
	for t, b := range beta {
		N := float64(l.N[t])
		nTotal += l.N[t]
		h.EHyp += b*l.ED[t] - N/2*math.Log(b)
		h.GradLogBeta[t] = b*l.ED[t] + 0.5*b*trBeta[t] - N/2
		h.GammaBeta[t] = b * trBeta[t]
		if squares {
			h.OccamArgBeta[t] = N/2 - 0.5*b*b*trSqBeta[t]
			h.LnSigmaBeta[t], h.OccamOK = lnSigma(h.OccamArgBeta[t], h.OccamOK)
		}
	}
	h.LogP = -h.EHyp
	h.LogPConst = -float64(nTotal) / 2 * math.Log(2*math.Pi)
	h.LogEvidence = h.LogP + l.Comb
	for _, v := range h.LnSigmaAlpha {
		h.LogEvidence += v
	}
	for _, v := range h.LnSigmaBeta {
		h.LogEvidence += v
	}
	return h
}

// Evidence is NewHyper from Traces.
func Evidence(tr *Traces, alpha, beta []float64, l Loss) Hyper {
	return NewHyper(tr.LogDet, tr.TrAlpha, tr.TrBeta, tr.TrSqAlpha, tr.TrSqBeta, alpha, beta, l)
}

func lnSigma(arg float64, ok bool) (float64, bool) {
	if !(arg > 0) {
		return 0, false
	}
	return -0.5 * math.Log(arg), ok
}

// MacKay returns the fixed-point update alpha_i = gamma_i/(2 E_w^i),
// beta_t = (N_t - gamma_t)/(2 E_D^t), where the gradient of E_hyp vanishes.
func (h *Hyper) MacKay(l Loss) (alpha, beta []float64) {
	alpha = make([]float64, len(h.GammaAlpha))
	for i := range alpha {
		alpha[i] = h.GammaAlpha[i] / (2 * l.EW[i])
	}
	beta = make([]float64, len(h.GammaBeta))
	for t := range beta {
		beta[t] = (float64(l.N[t]) - h.GammaBeta[t]) / (2 * l.ED[t])
	}
	return alpha, beta
}
