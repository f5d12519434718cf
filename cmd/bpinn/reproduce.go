package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	rpt "github.com/evidence-pinn/bpinn/pkg/report"
	"github.com/evidence-pinn/bpinn/pkg/viz"
)

const reproduceUsage = `usage: bpinn reproduce [--quick] [--out DIR] [flags]

Runs every study of the paper, one after another, each with a progress bar
on stderr (plain lines when stderr is not a terminal):

  hmc           regression fits, the best by evidence against NUTS (Fig. 2)
  heat          heat equation (Table 1, Figs. 3-5); its best fit against
                NUTS in coordinates whitened by the fit's A (not in the paper)
  heat-lhs      heat with the same 50 + 50 points drawn as a Latin hypercube
                (--sampling lhs)
  wave          wave equation, one alpha and one beta (Table 1, Figs. 6-9)
  wave-full     wave equation, alpha per weight class, beta per term group
  burgers       Burgers' equation (Table 1, Figs. 11-12)
  burgers-deep  Burgers with the 2-6-6-6-1 net the evidence prefers, points
                redrawn every 100 Adam epochs (--hidden 6,6,6 --resample 100)
  burgers-wide  Burgers with DeepXDE's 2-20-20-20-1 net and points (921
                weights), weights by the evidence, its measured schedule
                (10 fits; --quick 3)
  burgers-wide-fixed
                the same with every loss weight 1 on mean squared
                residuals (DeepXDE's loss) and no evidence
  heat-fixed    heat with alpha = 0.05, beta = 1 fixed (Table 3 baseline)
  wave-fixed    wave with alpha = 0.05, beta = 1 fixed (Table 3 baseline)
  scan          heat with 2, 4, ..., 12 hidden units: evidence vs size
  heat-inverse, wave-inverse, burgers-inverse, lotka-volterra-inverse
                the unknown coefficients (kappa, c, nu; the predator-prey
                rates a, b, c, d) with their 95 % intervals, a third of a
                study's fits on one data set
                (docs/inverse.md; coverage over noise draws is bpinn
                coverage's)
  poisson-holes Laplace's equation on a plate with four holes (PINNacle's
                Poisson2d-C), 2-20-20-20-1 net, weights by the evidence
                (as many fits as burgers-wide)
  poisson-holes-fixed
                the same net with PINNacle's loss: every mean squared
                residual weight 1 (the equation unscaled,
                poisson-holes-raw) and no evidence
  lid-driven    PINNacle's NS2d-C (Navier-Stokes in the lid-driven
                cavity; u, v, p), a beta per equation and condition
                (3 fits; --quick 1; docs/results/lid-driven.md)
  lid-driven-fixed
                the same with PINNacle's loss: every weight 1 on mean
                squared residuals, no evidence
  burgers-identify
                Raissi et al.'s Burgers identification: l1, l2 of
                u_t + l1 u u_x - l2 u_xx = 0 with their 95 % intervals from
                2000 measurements (1 % noise), 2-20x8-1 net (3 fits; not
                in --quick; docs/results/burgers-identify.md)
  burgers-identify-fixed
                the same with Raissi's loss: both mean squares weight 1,
                no evidence

Each fit is appended to DIR/<study>.jsonl as it ends; at the end
DIR/report.html holds every figure and the paper's Tables 1-3 rebuilt
beside the paper's numbers, DIR/figures/*.png the static figures and
DIR/results.md the tables (also printed on stdout). The full run has 1165
fits (100 per study; 10 of each burgers-wide and poisson-holes study, 3
of each lid-driven and burgers-identify study);
--quick has 12 per study, 3 of each burgers-wide and poisson-holes study,
epochs cut 2x. docs/reproduction.md is the report of a full run, with its
times.

flags:
  --quick          the short run (make reproduce)
  --out DIR        output directory, created if missing (default out/full,
                   out/quick with --quick)
  --workers W      concurrent fits (default 0: one per core)
  --seed-base B    fit i of every study has seed B + i (default 1)
  --recipe R       tuned (the default of bayes.Settings: the paper's schedule,
                   then a Gauss-Newton polish and MacKay rounds) or paper (the
                   paper's schedule alone)
  --shard I/N      run shard I of N of every study, no report (job arrays)
  --from DIRS      the report from the comma-separated folders of the shards

On a cluster each task of a job array runs --shard I/N with the same flags
into a folder of its own (the fits i with i mod N == I, no NUTS, no
report); --from DIR0,DIR1,... then builds the report from those folders
without training, checking that every seed is there with the study's
settings (give the flags of the sharded run).

exit status: 0 every study ran, 1 a study failed (the report is still
written, with a section naming what failed and why) or an I/O error,
2 bad input (nothing run).
`

func cmdReproduce(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("reproduce")
	quick := fs.Bool("quick", false, "")
	tiny := fs.Bool("tiny", false, "") // test only: seconds, numbers meaningless
	out := fs.String("out", "", "")
	workers := fs.Int("workers", 0, "")
	base := seedFlag{1}
	fs.Var(&base, "seed-base", "")
	recipe := choice{"", choiceNames(bayes.Recipes)}
	fs.Var(&recipe, "recipe", "")
	failStudy := fs.String("fail-study", "", "") // test only: this study panics
	only := fs.String("only", "", "")            // test only: comma-separated studies
	var sh shard
	fs.Var(&sh, "shard", "")
	from := fs.String("from", "", "")
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, reproduceUsage)
		return exitOK
	}
	if err == nil && len(pos) > 0 {
		err = usagef("unexpected argument %q", pos[0])
	}
	if err == nil {
		err = checkWorkers(*workers)
	}
	plan := rpt.PlanFor(*quick, *tiny, bayes.Recipe(recipe.v))
	if *out == "" {
		*out = plan.DefaultOut()
	}
	cfg := rpt.Config{Plan: plan, Out: *out, Workers: *workers, SeedBase: base.v, FailStudy: *failStudy, Shard: sh.i, Shards: sh.n}
	if *from != "" {
		cfg.From = strings.Split(*from, ",")
	}
	if *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}
	if err == nil {
		err = asUsage(cfg.Check())
	}
	if err == nil && sh.n == 0 { // fail now, not after the run, and before creating --out
		_, err = viz.EChartsJS()
	}
	if err == nil {
		err = asUsage(cfg.PrepareOut())
	}
	if err != nil {
		return report(stderr, "reproduce", err)
	}
	cfg.Progress = func(study string, total int) rpt.Progress { return newStudyProgress(stderr, study, total) }

	fmt.Fprintf(stderr, "bpinn reproduce: %s plan, writing to %s\n", plan.Name, *out)
	rep, err := rpt.Execute(interrupt, cfg)
	if err != nil {
		return report(stderr, "reproduce", err)
	}
	if sh.n > 0 {
		code := exitOK
		for _, st := range rep.Failed() {
			fmt.Fprintf(stderr, "bpinn reproduce: FAILED %s: %s\n", st.Name, oneLine(firstLine(st.Err.Error())))
			code = exitFail
		}
		fmt.Fprintf(stderr, "bpinn reproduce: shard %s of every study in %s; once every shard ran: bpinn reproduce --from DIR0,DIR1,... with the same flags\n", &sh, *out)
		return code
	}
	pg := rpt.Build(rep)
	if err := pg.Write(*out); err != nil {
		return report(stderr, "reproduce", err)
	}
	fmt.Fprint(stdout, pg.Markdown())
	fmt.Fprintf(stderr, "bpinn reproduce: wrote %s in %s\n", filepath.Join(*out, "report.html"), time.Duration(rep.Seconds*float64(time.Second)).Round(time.Second))
	if len(pg.Failures) > 0 {
		for _, f := range pg.Failures {
			fmt.Fprintf(stderr, "bpinn reproduce: FAILED %s: %s\n", f.What, oneLine(firstLine(f.Why)))
		}
		return exitFail
	}
	return exitOK
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// asUsage makes err, if any, bad input (exit 2).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return errUsage{err.Error()}
}

// studyProgress is a bar on a terminal, plain lines otherwise.
type studyProgress struct {
	w           io.Writer
	study       string
	total, done int
	bar         *progressbar.ProgressBar
	start       time.Time
}

func newStudyProgress(w io.Writer, study string, total int) *studyProgress {
	p := &studyProgress{w: w, study: study, total: total, start: time.Now()}
	p.bar = newBar(w, total, fmt.Sprintf("%-10s", study), progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
	return p
}

func (p *studyProgress) Step(line string) {
	p.done++
	if p.bar != nil {
		p.bar.Add(1)
		return
	}
	fmt.Fprintf(p.w, "bpinn reproduce: %s %d/%d %s\n", p.study, p.done, p.total, line)
}

func (p *studyProgress) Finish() {
	if p.bar != nil {
		if p.done < p.total { // a failed study: leave the bar where it stopped
			fmt.Fprintln(p.w)
		}
		return
	}
	fmt.Fprintf(p.w, "bpinn reproduce: %s done, %d/%d steps in %.1f s\n", p.study, p.done, p.total, time.Since(p.start).Seconds())
}
