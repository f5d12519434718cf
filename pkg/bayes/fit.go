package bayes

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/choice"
	"github.com/evidence-pinn/bpinn/pkg/ad"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/score"
)

// Status is how a fit ended; its value is the name a record keeps.
type Status string

// The statuses of a fit.
const (
	StatusOK           Status = "ok"
	StatusDiverged     Status = "diverged"              // NaN/Inf in the loss or gradient
	StatusNotPD        Status = "not-positive-definite" // final A not positive definite: no evidence
	StatusOccamInvalid Status = "occam-invalid"         // an Occam argument <= 0: log evidence undefined
	StatusPolishFailed Status = "polish-failed"
	StatusCancelled    Status = "cancelled" // the context ended the fit: the fit so far
	// StatusNoLaplace: an exact Hessian or unknown coefficients above
	// DenseLimit weights, which no structure of the Laplace approximation
	// there handles (curv.AutoLaplace): no band, no log evidence.
	StatusNoLaplace Status = "no-laplace"
)

// Statuses lists the statuses, ok first.
var Statuses = []Status{StatusOK, StatusDiverged, StatusNotPD, StatusOccamInvalid, StatusPolishFailed, StatusCancelled, StatusNoLaplace}

// ParseStatus returns the status named s (a record's "status").
func ParseStatus(s string) (Status, error) { return choice.Parse("status", s, Statuses) }

// HistoryPoint is the state every HistoryEvery epochs.
type HistoryPoint struct {
	Epoch int       `json:"epoch"`
	ET    float64   `json:"e_t"`
	EHyp  float64   `json:"e_hyp,omitempty"` // at the last hyperparameter step
	Alpha []float64 `json:"alpha"`
	Beta  []float64 `json:"beta"`
}

// HyperStats counts what happened at hyperparameter steps.
type HyperStats struct {
	Steps    int `json:"steps"`
	NotPD    int `json:"not_pd"`    // A not positive definite: step skipped
	Rejected int `json:"rejected"`  // update would leave [MinHyper, MaxHyper]: rejected
	OccamBad int `json:"occam_bad"` // Occam argument <= 0 at a step (log evidence undefined there)
	// FinalRounds is the number of MacKay rounds after training and
	// FinalMove the largest relative change of a hyperparameter in the last
	// one (at most Settings.Final.Tol when the rounds converged).
	FinalRounds int     `json:"final_rounds"`
	FinalMove   float64 `json:"final_move"`
	// FinalBackoff says why the fit is reported at an earlier round than
	// the last: the last rounds left A numerically singular (a hyperparameter
	// running toward 0 or the cap), so the fit steps back to the latest
	// round at which A factorized and the evidence is defined.
	FinalBackoff string `json:"final_backoff,omitempty"`
}

// Fit is a trained model with its Laplace approximation.
type Fit struct {
	Model    *Model
	Settings Settings
	Alpha    []float64
	Beta     []float64
	EW, ED   []float64
	Laplace  *curv.Laplace // nil unless A is positive definite at the end; its Kind names the structure
	Status   Status
	Reason   string // what went wrong and where, empty when ok
	Epochs   int    // epochs run (less than Settings.Epochs when diverged)
	History  []HistoryPoint
	Hyper    HyperStats
	Polish   *nn.PolishResult
	Seconds  float64
	// Warnings say what an ok status does not: a hyperparameter held at
	// the clamp [MinHyper, MaxHyper] (the log evidence is then computed at
	// the clamp, not at a fixed point), final rounds that stopped before
	// settling. Empty when there is nothing to say.
	Warnings []string
	known    []float64 // per beta group: the held beta (KnownNoise), NaN when inferred
	raised   string    // a restart's: which betas began raised, as its warnings say it (raiseFirst)
	fresh    *Model    // RoundBetasHeldOut: the model on the fresh points of the rounds' misfits
	// widening widens every sigma Predict gives (a band of pkg/band,
	// through WithBand); nil for a fit as trained.
	widening func(points [][]float64, sigma []float64)
	// widenOutput, if not nil, widens the sigma of output k > 0 in its
	// place (WithOutputBand).
	widenOutput func(k int, points [][]float64, sigma []float64)
}

// holdKnown puts the known betas back into beta.
func (f *Fit) holdKnown(beta []float64) {
	for t, b := range f.known {
		if !math.IsNaN(b) {
			beta[t] = b
		}
	}
}

// Inferred reports whether f's beta group t is set by the evidence (not
// held at a known noise, Settings.KnownNoise).
func (f *Fit) Inferred(t int) bool { return f.known == nil || math.IsNaN(f.known[t]) }

// Predict returns the network's mean and the Laplace standard deviation
// sqrt(g^T A^-1 g) at points, each a slice of the problem's inputs in order
// (sigma is nil without a Laplace approximation), of the first output (u;
// PredictOutput for the others). Points of the wrong width or with a
// coordinate that is not finite are an error.
func (f *Fit) Predict(points [][]float64) (mean, sigma []float64, err error) {
	return f.PredictQuantity(points, output)
}

// output is the quantity u itself.
func output(v *pde.Vars) *ad.Node { return v.U }

// PredictQuantity is Predict for any quantity built from the network's jet
// at the points: a derivative (func(v *pde.Vars) *ad.Node { return
// v.D("x") }), a flux, or a term's residual (a residual that reads targets
// or fields cannot be predicted at new points). Its band comes from the same
// Laplace posterior: sigma^2 = g^T A^-1 g with g the quantity's gradient
// with respect to the weights.
func (f *Fit) PredictQuantity(points [][]float64, q pde.Residual) (mean, sigma []float64, err error) {
	mean, sigma, err = f.predictBlocks(points, q)
	if err != nil || sigma == nil {
		return mean, sigma, err
	}
	f.Widen(points, sigma)
	return mean, sigma, nil
}

// JacobianBlockValues is the most values of one block's Jacobian (its
// points times the weights) that a prediction or a grid's bands hold at
// once: 64 MB. The 100 x 100 grid of a 5 x 100 network (41k weights)
// would be 3.3 GB whole; in blocks of 195 points it is the same numbers,
// each point's computed alone.
const JacobianBlockValues = 8 << 20

// JacobianBlocks calls fn for consecutive blocks of points (the first at
// index lo) with the quantity q's values there and, when f has a Laplace
// approximation, their Jacobian (rows x P, row-major; nil otherwise), each
// block's Jacobian within JacobianBlockValues. The values are those of one
// call over all points: every point is computed alone. An error of fn ends
// the walk and is returned; so is a point of the wrong width or with a
// coordinate that is not finite, before fn is called.
func (f *Fit) JacobianBlocks(points [][]float64, q pde.Residual, fn func(lo int, mean, J []float64) error) error {
	rows := len(points)
	if P := f.Model.NumWeights(); f.Laplace != nil && P > 0 {
		rows = max(1, JacobianBlockValues/P)
	}
	return f.jacobianBlocks(points, q, rows, fn)
}

// jacobianBlocks is JacobianBlocks in blocks of rows points.
func (f *Fit) jacobianBlocks(points [][]float64, q pde.Residual, rows int, fn func(lo int, mean, J []float64) error) error {
	if err := f.checkPoints(points); err != nil {
		return err
	}
	var b *blockProgram // compiled for a full block, run on each; the last, shorter, compiles its own
	for lo := 0; lo < len(points); lo += rows {
		hi := min(lo+rows, len(points))
		if b == nil || b.n != hi-lo {
			var err error
			if b, err = f.newBlockProgram(hi-lo, q); err != nil {
				return err
			}
		}
		mean, J := b.run(points[lo:hi]) // checked above, with each point's index among all
		if err := fn(lo, mean, J); err != nil {
			return err
		}
	}
	return nil
}

// predictBlocks is q's mean and Laplace sigma at points (sigma nil without
// a Laplace approximation), block by block (JacobianBlocks), unwidened.
func (f *Fit) predictBlocks(points [][]float64, q pde.Residual) (mean, sigma []float64, err error) {
	mean = make([]float64, len(points))
	if f.Laplace != nil && len(points) > 0 {
		sigma = make([]float64, len(points))
	}
	err = f.JacobianBlocks(points, q, func(lo int, m, J []float64) error {
		copy(mean[lo:], m)
		if J != nil {
			copy(sigma[lo:], f.Laplace.Sigmas(J, len(m)))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return mean, sigma, nil
}

// checkPoints is meanJacobian's check of points, with each point's index
// in points.
func (f *Fit) checkPoints(points [][]float64) error {
	p := f.Model.Problem
	for k, x := range points {
		if len(x) != p.Dim() {
			return fmt.Errorf("point %d has %d coordinates; problem %q has %d inputs (%s)", k, len(x), p.Name, p.Dim(), strings.Join(p.Inputs, ", "))
		}
		for i, c := range x {
			if math.IsNaN(c) || math.IsInf(c, 0) {
				return fmt.Errorf("point %d: %s = %v; give finite coordinates", k, p.Inputs[i], c)
			}
		}
	}
	return nil
}

// Widen applies f's widening (WithBand) to sigma, its band at points;
// nothing for a fit as trained.
func (f *Fit) Widen(points [][]float64, sigma []float64) {
	if f.widening != nil {
		f.widening(points, sigma)
	}
}

// meanJacobian returns the quantity q at points and, when f has a Laplace
// approximation, its Jacobian g = dq/dw there (n x P, row-major); a bad
// point is an error (checkPoints).
func (f *Fit) meanJacobian(points [][]float64, q pde.Residual) (mean, J []float64, err error) {
	if err := f.checkPoints(points); err != nil {
		return nil, nil, err
	}
	return f.checkedMeanJacobian(points, q)
}

// checkedMeanJacobian is meanJacobian at points already checked.
func (f *Fit) checkedMeanJacobian(points [][]float64, q pde.Residual) (mean, J []float64, err error) {
	if len(points) == 0 {
		return []float64{}, nil, nil
	}
	b, err := f.newBlockProgram(len(points), q)
	if err != nil {
		return nil, nil, err
	}
	mean, J = b.run(points)
	return mean, J, nil
}

// blockProgram is the compiled program of a quantity's values, and its
// Jacobian when the fit has a Laplace approximation, at n points: built
// once, run on every block of n points (jacobianBlocks), where a program
// compiled for each block took most of a large net's band's allocations.
type blockProgram struct {
	n     int
	x, u  *ad.Node
	prog  *ad.Program  // the values (and the Jacobian's, jac.Prog)
	jac   *ad.Jacobian // nil without a Laplace approximation
	P     int
	inDim int
}

// newBlockProgram compiles q at n points of f's model (n > 0).
func (f *Fit) newBlockProgram(n int, q pde.Residual) (*blockProgram, error) {
	m := f.Model
	p := m.Problem
	g := ad.NewGraph()
	x := g.Input("x", n, p.Dim())
	netPs := m.Net.Params(g)
	// The unknowns are parameters here too: a quantity that reads one (a
	// flux kappa u_x) varies with it, and its band integrates it out; u
	// itself has zero columns for them.
	ps, unknowns := netPs, map[string]*ad.Node{}
	for _, uk := range p.Unknowns {
		unknowns[uk.Name] = g.Param("unknown_"+uk.Name, 1, 1)
		ps = append(ps, unknowns[uk.Name])
	}
	qp := &pde.Problem{Name: p.Name, Inputs: p.Inputs, Outputs: p.Outputs, Transforms: p.Transforms, Params: p.Params, Unknowns: p.Unknowns, // an equation reads them by name
		Terms: []pde.Term{{Name: "prediction", Residual: q}}}
	u, err := qp.BuildResidual(0, pde.ResidualInputs{U: m.Net.Apply(netPs, x), X: x, Unknowns: unknowns})
	if err != nil {
		return nil, err
	}
	b := &blockProgram{n: n, x: x, u: u, P: m.NumWeights(), inDim: p.Dim()}
	if f.Laplace == nil {
		b.prog = g.Compile(u)
		ps.Bind(b.prog, m.Theta)
		return b, nil
	}
	b.jac = ad.NewJacobian(u, ps)
	b.prog = b.jac.Prog
	b.prog.SetPool(m.pool)
	ps.Bind(b.prog, m.Theta)
	return b, nil
}

// run returns the quantity at points (b.n of them) and, with a Laplace
// approximation, its Jacobian there (n x P, row-major, a new array).
func (b *blockProgram) run(points [][]float64) (mean, J []float64) {
	flat := make([]float64, 0, b.n*b.inDim)
	for _, x := range points {
		flat = append(flat, x...)
	}
	if b.prog.Uses(b.x) { // a quantity of the unknowns alone reads no point
		b.prog.Set(b.x, flat)
	}
	if b.jac == nil {
		b.prog.Run()
		return slices.Clone(b.prog.Value(b.u)), nil
	}
	J = make([]float64, b.n*b.P)
	b.jac.ComputeTo(J)
	return slices.Clone(b.prog.Value(b.u)), J
}

// GridErrors evaluates the fit on the problem's n x n grid against its
// exact solution (score.OnGrid): the errors and the paper band's coverage;
// record.ErrorsOf adds q95 and the other bands. With several outputs, the
// errors are over all of them and Outputs holds each output's.
func (f *Fit) GridErrors(n int) (score.Errors, error) {
	return score.OnGrid(f.Model.Problem, n, f.PredictOutput)
}
