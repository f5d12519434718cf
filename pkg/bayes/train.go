package bayes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/evidence-pinn/bpinn/internal/fault"
	"github.com/evidence-pinn/bpinn/internal/par"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Train builds a network and runs the paper's training: Adam on E_T, and from
// Hyper.Start every Hyper.Every epochs a hyperparameter step on E_hyp. A fit
// that diverges stops at that epoch with status "diverged"; a fit whose
// context ends stops at the next epoch (or final round) with status
// "cancelled" and what it has so far. A fit from balanced betas (a
// derived schedule) that ends ok with a condition unmet is fitted again
// with the conditions first (keepStart says which is returned). Only an
// invalid problem or settings return an error, before anything is built.
// Train is TrainConfig of NewConfig(p, s).
func Train(ctx context.Context, p *pde.Problem, s Settings) (*Fit, error) {
	cfg, err := NewConfig(p, s)
	if err != nil {
		return nil, err
	}
	return train(ctx, cfg)
}

// TrainConfig is Train of the configuration cfg, validated and resolved
// (NewConfig) once for any number of fits. Only a zero Config, or
// held-out rounds on a problem whose fresh points fail, return an error.
func TrainConfig(ctx context.Context, cfg Config) (*Fit, error) {
	if cfg.problem == nil {
		return nil, errors.New("bayes: TrainConfig of a zero Config: make it with NewConfig")
	}
	return train(ctx, cfg)
}

// train is Train of cfg, made by NewConfig. A fit from balanced betas
// is watched from its first polish on: when a condition is unmet there or
// after a final round that did not settle the hyperparameters, it is
// refitted with the conditions first at once, and when the refit meets
// every condition it is kept and the first fit's remaining rounds, most
// of its cost, never run. Otherwise the first fit resumes its rounds
// unwatched and keepStart chooses between the two, as for a fit that
// leaves a condition unmet only at its end.
func train(ctx context.Context, cfg Config) (*Fit, error) {
	start := time.Now()
	f, ended, err := begin(ctx, cfg, start, nil)
	if err != nil || ended {
		return f, err
	}
	var (
		again *Fit
		unmet []string
		when  string // after which round a watched fit paused
		r     rounds
	)
	var pause func() bool // before a round: a condition is unmet (named in unmet)
	if f.Settings.Hyper.Balance {
		pause = func() bool { unmet = f.unmet(); return len(unmet) > 0 }
	}
	if f.end(ctx, cfg.problem, start, &r, pause) {
		when = after(r.next)
		if again, err = trainFrom(ctx, cfg, start, unmet); err != nil {
			return nil, err
		}
		if again.Status == StatusOK && len(again.unmet()) == 0 {
			return keepEarly(unmet, when, again), nil
		}
		f.end(ctx, cfg.problem, start, &r, nil)
	} else if unmet = f.restarts(); len(unmet) > 0 {
		if again, err = trainFrom(ctx, cfg, start, unmet); err != nil {
			return nil, err
		}
	}
	if again == nil {
		return f, nil
	}
	return keepStart(f, again, unmet, when), nil
}

// trainFrom is Train's fit of cfg, its betas started balanced (with
// Hyper.Balance) or, after a fit that left the terms unmet unmet, with
// theirs raised (raiseFirst).
func trainFrom(ctx context.Context, cfg Config, start time.Time, unmet []string) (*Fit, error) {
	f, ended, err := begin(ctx, cfg, start, unmet)
	if err != nil || ended {
		return f, err
	}
	f.end(ctx, cfg.problem, start, &rounds{}, nil)
	return f, nil
}

// begin builds trainFrom's fit and runs its Adam epochs and the polish
// after them; ended says the fit ended there (diverged or cancelled).
func begin(ctx context.Context, cfg Config, start time.Time, unmet []string) (f *Fit, ended bool, err error) {
	p, s := cfg.problem, cfg.settings
	f, err = newFit(cfg, par.ForFit(ctx, s.Threads))
	if err != nil {
		return nil, false, err
	}
	if unmet != nil {
		f.raised = f.raiseFirst(unmet)
	}
	if ended, err = f.adam(ctx, p, start); err != nil || ended {
		return f, ended, err
	}
	if s.Polish.On {
		f.stage("polish")
		if f.polish(ctx); ctx.Err() != nil {
			f.cancel(p, s.Epochs, start, ctx)
			return f, true, nil
		}
	}
	return f, false, nil
}

// end runs f's final rounds (after begin) from r and its final Laplace
// approximation; it pauses instead (paused true, r where to resume) when
// pause, if not nil, says so before a round.
func (f *Fit) end(ctx context.Context, p *pde.Problem, start time.Time, r *rounds, pause func() bool) (paused bool) {
	paused, ended := f.finalRounds(ctx, p, start, r, pause)
	if paused || ended {
		return paused
	}
	f.stage("Laplace")
	f.finish()
	if f.Status == StatusNotPD && r.good != nil {
		reason := f.Reason
		f.restore(r.good)
		f.finish()
		f.Hyper.FinalBackoff = fmt.Sprintf("after round %d: %s; reported at round %d",
			f.Hyper.FinalRounds+1, strings.TrimPrefix(reason, "at the end of training: "), f.Hyper.FinalRounds)
	}
	f.warn()
	f.Seconds = time.Since(start).Seconds()
	return false
}

// stage reports the stage f enters to its Settings.Stage, if any.
func (f *Fit) stage(name string) {
	if f.Settings.Stage != nil {
		f.Settings.Stage(name)
	}
}

// newFit builds the network of cfg (seeded by its Seed) and its model on
// its problem (its row work on threads), with the hyperparameters at their
// starting values.
func newFit(cfg Config, threads int) (*Fit, error) {
	p, s := cfg.problem, cfg.Settings() // the fit's own copies
	names, termGroup := cfg.BetaGroups()
	rng := rand.New(rand.NewPCG(s.Seed, 0x1417))
	sizes := append(append([]int{p.Dim()}, s.Hidden...), len(p.OutputNames()))
	net := nn.New(sizes, s.Activation, rng)
	switch s.Scale {
	case ScaleBox:
		ScaleMaps(net, p)
	case ScaleAuto:
		AutoMaps(net, p)
	}
	if s.Scale != ScaleNone {
		if w := ProblemWaves(net, p); w != nil {
			net.SetWaves(w, rng)
		}
	}
	own := p
	if s.Resample > 0 { // the model's points move: give it its own terms
		c := *p
		c.Terms = slices.Clone(p.Terms)
		own = &c
	}
	m, err := newModel(own, net, s.AlphaMode, names, termGroup)
	if err != nil {
		return nil, err
	}
	m.startPool(threads)
	f := &Fit{Model: m, Settings: s, Status: StatusOK}
	f.Alpha = fillN(len(m.Alphas), s.Hyper.Alpha0)
	f.known = s.KnownBetas(m.BetaNames)
	f.Beta = fillN(len(m.BetaNames), s.Hyper.Beta0)
	if s.Hyper.Balance {
		f.Beta = m.BalancedBetas(s.Hyper.Beta0, f.Inferred)
	}
	if s.Fixed.On {
		f.Alpha = fillN(len(m.Alphas), s.Fixed.Alpha)
		f.Beta = fillN(len(m.BetaNames), s.Fixed.Beta)
		if s.Fixed.Mean {
			for g, n := range m.N {
				f.Beta[g] /= float64(n) / 2
			}
		}
	}
	if s.Final.Betas == RoundBetasHeldOut && s.RunsFinalRounds() {
		q, err := p.Fresh()
		if err == nil {
			f.fresh, err = f.ModelOn(q) // compiled once; each round copies the weights in
		}
		if err != nil {
			return nil, fmt.Errorf("held-out rounds: %w", err)
		}
	}
	f.holdKnown(f.Beta)
	f.EW = make([]float64, len(f.Alpha))
	f.ED = make([]float64, len(f.Beta))
	return f, nil
}

// adam runs the Adam epochs with the hyperparameter steps. ended says that
// the fit ended there (it diverged or its context ended), with its status
// set; an error is a redraw of the points that failed.
func (f *Fit) adam(ctx context.Context, p *pde.Problem, start time.Time) (ended bool, err error) {
	s, m := f.Settings, f.Model
	grad := make([]float64, m.NumWeights())
	opt := nn.NewAdam(m.NumWeights(), &nn.AdamSettings{LR: s.LR})
	hyper := newHyperStepper(m, s)
	lastEHyp := 0.0
	decay := math.Log(s.LRDecay) / float64(s.Epochs)
	done := ctx.Done()
	nanAt := fault.NaNAt(ctx) // a test's injected divergence
	for epoch := 1; epoch <= s.Epochs; epoch++ {
		if cancelled(done) {
			f.cancel(p, epoch-1, start, ctx)
			return true, nil
		}
		if s.LRDecay != 1 {
			opt.S.LR = s.LR * math.Exp(decay*float64(epoch-1))
		}
		et := f.lossAndGrad(grad)
		if epoch == nanAt {
			et = math.NaN()
		}
		if bad := firstBad(et, grad); bad != "" {
			f.Status, f.Epochs = StatusDiverged, epoch
			f.Reason = fmt.Sprintf("%s is not finite at epoch %d", bad, epoch)
			f.endResample(p)
			f.Seconds = time.Since(start).Seconds()
			return true, nil
		}
		opt.Step(m.Theta, grad)
		if s.Resample > 0 && epoch%s.Resample == 0 && epoch < s.Epochs {
			if err := m.redraw(uint64(epoch / s.Resample)); err != nil {
				return true, err
			}
		}
		if !s.Fixed.On && epoch >= s.Hyper.Start && (epoch-s.Hyper.Start)%s.Hyper.Every == 0 {
			if e, ok := hyper.step(f, epoch < s.Hyper.UntieAt); ok {
				lastEHyp = e
			}
		}
		if epoch%s.HistoryEvery == 0 || epoch == s.Epochs {
			f.History = append(f.History, HistoryPoint{Epoch: epoch, ET: et, EHyp: lastEHyp,
				Alpha: append([]float64(nil), f.Alpha...), Beta: append([]float64(nil), f.Beta...)})
			if s.Progress != nil {
				s.Progress(epoch, s.Epochs)
			}
		}
	}
	f.Epochs = s.Epochs
	f.endResample(p)
	return false, nil
}

// rounds is where the final rounds stand: the next round to run and the
// state of the latest round at which A factorized (nil if none).
type rounds struct {
	next int
	good *fitState
}

// finalRounds runs MacKay's rounds after the Adam epochs (and the polish),
// each re-polished, from r.next until the hyperparameters settle; ended
// says that the context ended the fit. It pauses before a round when
// pause (if not nil) says so, r.next that round: run again from r, it goes
// on as if it had not paused.
func (f *Fit) finalRounds(ctx context.Context, p *pde.Problem, start time.Time, r *rounds, pause func() bool) (paused, ended bool) {
	s := f.Settings
	if !s.RunsFinalRounds() {
		return false, false
	}
	done := ctx.Done()
	for ; r.next < s.Final.Rounds && f.Status == StatusOK; r.next++ {
		if cancelled(done) {
			f.cancel(p, s.Epochs, start, ctx)
			return false, true
		}
		if pause != nil && pause() {
			return true, false
		}
		f.stage(fmt.Sprintf("final round %d of at most %d", r.next+1, s.Final.Rounds))
		before := f.state()
		move, ok := f.finalHyperStep()
		if !ok {
			break
		}
		r.good = before
		f.Hyper.FinalRounds, f.Hyper.FinalMove = r.next+1, move
		if s.Polish.On {
			f.polish(ctx) // a context that ends there ends the fit below or at the next round
		}
		if move <= s.Final.Tol {
			break
		}
	}
	if cancelled(done) { // in the last round's polish, or just after it
		f.cancel(p, s.Epochs, start, ctx)
		return false, true
	}
	return false, false
}

// cancelled reports whether done is closed, without waiting.
func cancelled(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// cancel ends a fit whose context ended after epochs epochs: the Laplace
// approximation at the weights so far (when A factorizes), status cancelled.
func (f *Fit) cancel(p *pde.Problem, epochs int, start time.Time, ctx context.Context) {
	f.Epochs = epochs
	f.endResample(p)
	f.finish()
	f.Status, f.Reason = StatusCancelled, fmt.Sprintf("%v after %d of %d epochs", context.Cause(ctx), epochs, f.Settings.Epochs)
	f.Seconds = time.Since(start).Seconds()
}

// warn lists what an ok fit's status does not say: hyperparameters at the
// clamp, final rounds that hit their cap before settling, conditions
// unmet (Conditions; fixed weights too, which can ignore a condition the
// more easily).
func (f *Fit) warn() {
	if f.Status != StatusOK {
		return
	}
	if !f.Settings.Fixed.On {
		f.warnHyper()
	}
	f.Warnings = append(f.Warnings, f.conditionWarnings()...)
}

// warnHyper lists the hyperparameters at the clamp and final rounds that
// did not settle.
func (f *Fit) warnHyper() {
	at := func(kind string, names []string, vals []float64, inferred func(int) bool) {
		for i, v := range vals {
			if inferred(i) && AtClamp(v) {
				name := kind + " " + names[i] // "beta_pde" or "beta", not "beta beta_pde"
				if names[i] == kind || strings.HasPrefix(names[i], kind+"_") {
					name = names[i]
				}
				f.Warnings = append(f.Warnings, fmt.Sprintf("%s = %g is at the clamp [%g, %g]: the log evidence is computed there, not at a fixed point", name, v, MinHyper, MaxHyper))
			}
		}
	}
	alphaNames := make([]string, len(f.Model.Alphas))
	for i, g := range f.Model.Alphas {
		alphaNames[i] = g.Name
	}
	at("alpha", alphaNames, f.Alpha, func(int) bool { return true })
	at("beta", f.Model.BetaNames, f.Beta, f.Inferred)
	s := f.Settings
	if s.RunsFinalRounds() && f.Hyper.FinalBackoff == "" && f.Hyper.FinalRounds >= s.Final.Rounds && f.Hyper.FinalMove > s.Final.Tol {
		// The text names Final.Rounds by its record key FinalHyper (the
		// CLI's --final-hyper): records carry it, so it keeps that name.
		f.Warnings = append(f.Warnings, fmt.Sprintf("the final rounds did not settle: %d rounds (the cap) ended moving a hyperparameter by %.3g (tolerance %g); raise FinalHyper or read the evidence as approximate", f.Hyper.FinalRounds, f.Hyper.FinalMove, s.Final.Tol))
	}
}

// endResample puts the problem's own points back after a resampled Adam
// phase: the polish, the rounds and the evidence use them.
func (f *Fit) endResample(p *pde.Problem) {
	if f.Settings.Resample > 0 {
		f.Model.setTerms(p.Terms)
	}
}

// lossAndGrad returns E_T and writes its gradient at the current weights.
func (f *Fit) lossAndGrad(grad []float64) float64 {
	m := f.Model
	m.DataLoss(f.Beta, f.ED, grad)
	m.WeightLoss(f.EW)
	et := 0.0
	for t, b := range f.Beta {
		et += b * f.ED[t]
	}
	for i, a := range f.Alpha {
		et += a * f.EW[i]
	}
	for k, w := range m.Theta {
		if gi := m.AlphaOf[k]; gi >= 0 {
			grad[k] += f.Alpha[gi] * w
		}
	}
	return et
}

func notFinite(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

func firstBad(et float64, grad []float64) string {
	if math.IsNaN(et) || math.IsInf(et, 0) {
		return "E_T"
	}
	for k, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return fmt.Sprintf("gradient[%d]", k)
		}
	}
	return ""
}

// finish computes the final Laplace approximation, in the structure
// laplaceKind chooses, and the status.
func (f *Fit) finish() {
	kind, why := f.laplaceKind()
	if why != "" {
		f.Model.DataLoss(f.Beta, f.ED, make([]float64, f.Model.NumWeights()))
		f.Model.WeightLoss(f.EW)
		if f.Status == StatusOK {
			f.Status, f.Reason = StatusNoLaplace, why
		}
		return
	}
	l, loss, err := f.laplace(kind, f.Beta)
	copy(f.EW, loss.EW)
	copy(f.ED, loss.ED)
	var npd curv.NotPositiveDefinite
	switch {
	case errors.As(err, &npd):
		f.Status, f.Reason = StatusNotPD, fmt.Sprintf("at the end of training: %v", err)
		return
	case err != nil:
		f.Status, f.Reason = StatusNotPD, err.Error()
		return
	}
	f.Laplace = l
	if !l.OccamOK && f.Status == StatusOK {
		f.Status = StatusOccamInvalid
		f.Reason = "an Occam factor's argument is not positive: the log evidence is undefined"
	}
}

// laplaceKind is the structure of f's final Laplace approximation
// (curv.AutoLaplace): dense up to DenseLimit weights, above it the exact
// dual form of the Gauss-Newton A while there are fewer residuals than
// weights (where laplace takes the low-rank form instead when it is much
// cheaper and close: curv.CloseLowRankLaplace), else its low-rank form;
// why says why there is none (then kind is "").
func (f *Fit) laplaceKind() (kind curv.Kind, why string) {
	m := f.Model
	P, N := m.NumWeights(), 0
	for _, n := range m.N {
		N += n
	}
	kind = curv.AutoLaplace(P, N, DenseLimit)
	switch {
	case kind == curv.Dense:
		return kind, ""
	case f.Settings.Hessian == Exact:
		return "", fmt.Sprintf("%d weights > %d: the Laplace approximation above the limit is the Gauss-Newton one (no band, no log evidence with hessian exact); use the Gauss-Newton hessian", P, DenseLimit)
	case len(m.Problem.Unknowns) > 0:
		return "", fmt.Sprintf("%d weights > %d: the Laplace approximation above the limit knows no unknown coefficients (no band, no log evidence)", P, DenseLimit)
	}
	return kind, ""
}

// laplace is the Laplace approximation at f's weights and alphas with the
// betas beta under kind (Dense, Dual or LowRank), and the loss parts
// there.
func (f *Fit) laplace(kind curv.Kind, beta []float64) (*curv.Laplace, curv.Loss, error) {
	if kind == curv.Dense {
		c := f.Hessians()
		l, err := curv.NewLaplace(c, f.Alpha, beta)
		return l, c.Loss, err
	}
	loss := f.loss()
	s := f.system(false)
	defer dropJacobians(s)
	s.Beta = beta
	if kind == curv.Dual {
		if l := curv.CloseLowRankLaplace(s, loss, f.lowRankOptions(), true, f.Model.pool); l != nil {
			return l, loss, nil
		}
	}
	l, err := f.laplaceOf(s, loss, kind)
	return l, loss, err
}

// laplaceOf is the Laplace approximation of s in kind, Dual or LowRank,
// as named (laplace chooses).
func (f *Fit) laplaceOf(s *curv.System, loss curv.Loss, kind curv.Kind) (*curv.Laplace, error) {
	if kind == curv.LowRank {
		return curv.NewLowRankLaplace(s, loss, f.lowRankOptions(), f.Model.pool)
	}
	return curv.NewDualLaplace(s, loss, f.Model.pool)
}

// laplaceRank is the Lanczos steps of the low-rank Laplace above
// DenseLimit (0: curv.LaplaceRank); a variable so that a test can take
// the low-rank attempt where the dual applies at a small net.
var laplaceRank = 0

// lowRankOptions are the options of f's low-rank Laplace.
func (f *Fit) lowRankOptions() curv.Options {
	return curv.Options{Rank: laplaceRank, Seed: f.Settings.Seed}
}
