package curvstudy

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/score"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// TestDualStudy compares the dual final Laplace with the dense one where
// both fit (fewer residuals than weights, at most DenseLimit weights): at
// each fit's final weights and hyperparameters, ln Z, gamma, the band's
// sigma and coverage on the grid (100 x 100; 50 x 50 for burgers-wide);
// and the hyperparameters MacKay's rounds settle on at those weights
// under each structure, from 1.5 times the fit's. It prints the table of
// docs/curvature.md (BPINN_DUAL_STUDY=heat,burgers runs those rows only):
//
//	BPINN_DUAL_STUDY=1 go test -count=1 -timeout 60m -run TestDualStudy -v ./lab/curvstudy
func TestDualStudy(t *testing.T) {
	only := os.Getenv("BPINN_DUAL_STUDY")
	if only == "" {
		t.Skip("BPINN_DUAL_STUDY not set")
	}
	fmt.Println("| problem, net | P | N | ln Z dense | ln Z dual - dense | gamma dense | gamma rel. diff. | hyperparameters rel. diff. | sigma rel. diff. (median, max) | coverage dense / dual | CPU s dense / dual |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range []struct {
		name   string
		hidden []int
		s      bayes.Settings
		grid   int
	}{
		{"heat", []int{20, 20}, bayes.Settings{}, 100},
		{"burgers", []int{40, 40}, bayes.Settings{Epochs: 3000, Hyper: bayes.HyperSteps{Start: 1500}, Curvature: bayes.CurvatureAuto, Final: bayes.FinalRounds{Rounds: 3}}, 100},
		{"burgers-wide", []int{37, 37, 37}, bayes.Settings{Epochs: 1000, Hyper: bayes.HyperSteps{Start: 250}, Curvature: bayes.CurvatureAuto, Final: bayes.FinalRounds{Rounds: 1}}, 50},
	} {
		if only != "1" && !slices.Contains(strings.Split(only, ","), c.name) {
			continue
		}
		p, err := problems.New(c.name, problems.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := c.s
		s.Seed, s.Hidden = 1, c.hidden
		f, err := bayes.Train(context.Background(), p, testfit.Scheduled(p, s))
		if err != nil || f.Laplace == nil {
			t.Fatalf("%s: %v, status %s (%s)", c.name, err, f.Status, f.Reason)
		}
		var dense, dual *curv.Laplace
		cpuDense := cpuOf(func() { dense, err = curv.NewLaplace(f.Hessians(), f.Alpha, f.Beta) })
		if err != nil {
			t.Fatal(err)
		}
		cpuDual := cpuOf(func() { dual, err = curv.NewDualLaplace(ownSystem(f), lossOf(f), nil) })
		if err != nil {
			t.Fatal(err)
		}
		pts, exact, err := p.GridOutputs(c.grid)
		if err != nil {
			t.Fatal(err)
		}
		mean, J, err := f.Jacobian(pts)
		if err != nil {
			t.Fatal(err)
		}
		sd, sv := dense.Sigmas(J, len(pts)), dual.Sigmas(J, len(pts))
		diffs := make([]float64, len(sd))
		for i := range sd {
			diffs[i] = math.Abs(sv[i]/sd[i] - 1)
		}
		slices.Sort(diffs)
		cd, cv := score.Compute(mean, sd, exact[0]).Coverage2S, score.Compute(mean, sv, exact[0]).Coverage2S
		hd, hv := settle(t, f, curv.Dense), settle(t, f, curv.Dual)
		hyper := 0.0
		for i := range hd {
			hyper = math.Max(hyper, math.Abs(hv[i]/hd[i]-1))
		}
		gamma := math.Abs(dual.Gamma/dense.Gamma - 1)
		for t2, g := range dense.GammaBeta {
			gamma = math.Max(gamma, math.Abs(dual.GammaBeta[t2]/g-1))
		}
		N := 0
		for _, n := range f.Model.N {
			N += n
		}
		fmt.Printf("| %s %v | %d | %d | %.3f | %.2g | %.2f | %.2g | %.2g | %.2g, %.2g | %.4f / %.4f | %.1f / %.1f |\n",
			c.name, c.hidden, f.Model.NumWeights(), N, dense.LogEvidence, dual.LogEvidence-dense.LogEvidence,
			dense.Gamma, gamma, hyper, diffs[len(diffs)/2], diffs[len(diffs)-1], cd, cv, cpuDense, cpuDual)
	}
}

// ownSystem is system(f) with the Jacobians copied into one array of its
// own: curv.NewDualLaplace overwrites the array it is given, and the
// model's must stay.
func ownSystem(f *bayes.Fit) *curv.System {
	s := system(f)
	all := slices.Concat(s.J...)
	off := 0
	for t, n := range f.Model.N {
		s.J[t] = all[off*s.P : (off+n)*s.P]
		off += n
	}
	return s
}

// settle runs MacKay's update at f's weights under kind (Dense: A from
// f's Hessians, as the fit's own dense rounds; Dual: from the residual
// Jacobians), from 1.5 times f's hyperparameters, for 10 steps (or until
// none moves by 1e-6), clamped as the final rounds clamp, and returns the
// alphas then betas it ends at; f is left as it was.
func settle(t *testing.T, f *bayes.Fit, kind curv.Kind) []float64 {
	return settleWith(t, f, func(f *bayes.Fit) (*curv.Hyper, curv.Loss, error) { return evidence(f, kind) })
}

// settleWith is settle with the evidence from ev.
func settleWith(t *testing.T, f *bayes.Fit, ev func(*bayes.Fit) (*curv.Hyper, curv.Loss, error)) []float64 {
	alpha0, beta0 := slices.Clone(f.Alpha), slices.Clone(f.Beta)
	defer func() { copy(f.Alpha, alpha0); copy(f.Beta, beta0) }()
	for i := range f.Alpha {
		f.Alpha[i] *= 1.5
	}
	for i := range f.Beta {
		f.Beta[i] *= 1.5
	}
	for range 10 {
		hy, loss, err := ev(f)
		if err != nil {
			t.Fatal(err)
		}
		alpha, beta := hy.MacKay(loss)
		next, prev := append(alpha, beta...), append(slices.Clone(f.Alpha), f.Beta...)
		move := 0.0
		for i, v := range next {
			next[i] = min(max(v, bayes.MinHyper), bayes.MaxHyper)
			move = math.Max(move, math.Abs(next[i]/prev[i]-1))
		}
		copy(f.Alpha, next[:len(alpha)])
		copy(f.Beta, next[len(alpha):])
		if move < 1e-6 {
			break
		}
	}
	return append(slices.Clone(f.Alpha), f.Beta...)
}

// evidence is the evidence at f's weights and hyperparameters with A
// under kind, Dense or Dual (its traces without the squares: MacKay's
// update needs none), and the loss parts there.
func evidence(f *bayes.Fit, kind curv.Kind) (*curv.Hyper, curv.Loss, error) {
	if kind == curv.Dense {
		c := f.Hessians()
		l, err := curv.NewLaplace(c, f.Alpha, f.Beta)
		if err != nil {
			return nil, curv.Loss{}, err
		}
		return &l.Hyper, c.Loss, nil
	}
	loss := lossOf(f)
	tr, err := curv.Compute(system(f), curv.Options{Kind: kind})
	if err != nil {
		return nil, loss, err
	}
	hy := curv.Evidence(tr, f.Alpha, f.Beta, loss)
	return &hy, loss, nil
}

// cpuOf is the CPU seconds (user and system) of the process while body
// runs.
func cpuOf(body func()) float64 {
	now := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := now()
	body()
	return (now() - start).Seconds()
}
