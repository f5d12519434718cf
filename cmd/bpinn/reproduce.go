package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
  heat-inverse, wave-inverse, burgers-inverse
                the unknown coefficient (kappa, c, nu) with its 95 %
                interval, a third of a study's fits on one data set
                (docs/inverse.md; coverage over noise draws is bpinn
                coverage's)
  lid-driven    PINNacle's NS2d-C (Navier-Stokes in the lid-driven
                cavity; u, v, p), a beta per equation and condition
                (3 fits; --quick 1; docs/results/lid-driven.md)
  lid-driven-fixed
                the same with PINNacle's loss: every weight 1 on mean
                squared residuals, no evidence

Each fit is appended to DIR/<study>.jsonl (fsynced) as it ends; NUTS writes
DIR/hmc.json and DIR/hmc-heat.json (the report's sampling table). At the end DIR/report.html holds every figure (interactive,
the echarts library inlined: no network needed), the paper's Tables 1-3
rebuilt from the run with the paper's numbers beside, the settings, seeds
and times; DIR/figures/*.png are the static figures, DIR/results.md the
tables in Markdown (also printed on stdout).

Full run (the default): 100 fits per study with the paper's epochs, 20 per
size in the scan, 10 of each burgers-wide study, 33 of each inverse one,
NUTS with bpinn hmc's defaults (4 chains x 400 draws, about 50 s of CPU):
1139 fits, about 51 minutes on 2 cores (measured 2026-11-26 from a clean
clone, on a day this machine ran fits about twice as slowly as on
2026-11-23: hmc 37 s, heat 162 s with another job beside it, heat-lhs
28 s, wave 62 s, wave-full 69 s, burgers 436 s, burgers-deep 974 s,
burgers-wide 321 s and burgers-wide-fixed 157 s (1500 epochs, four
L-BFGS polishes of 1000 iterations: about 60 s of CPU per evidence fit
with its record; docs/results/burgers-wide.md), heat-fixed 13 s,
wave-fixed 33 s, scan 84 s, heat-inverse 510 s, wave-inverse 19 s,
burgers-inverse 164 s; 138 s with its data's noise held, in the
54-minute run of docs/reproduction.md).
--quick: 12 fits per study, epochs and hyper start cut 2x, 6 fits per size,
NUTS 2 chains x 400 draws, 3 burgers-wide fits of each kind (the same schedule),
a third of the fits for the inverse studies, NUTS on heat's best fit (2
chains x 200 draws): about 11 minutes on 2 cores (measured 2026-11-26
from a clean clone, with another job's sampler on one of the cores: 680 s
of studies, burgers-wide 192 s and burgers-wide-fixed 100 s of them; 701 s
for make reproduce with its setup). The full run samples heat with 4 x
500 draws after 1500 warm-up (about 150 s of CPU; docs/hmc.md).

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

On a cluster: --shard I/N runs shard I of N of every study (the fits i
with i mod N == I, no HMC) into DIR and writes no report; each task of a
job array runs one shard with the same flags into a folder of its own.
--from DIR0,DIR1,... then builds the report of the whole run from those
folders without training: it merges each study's files, checks that every
seed is there and was run with the study's settings (give the flags of
the sharded run), restores the fits, runs the HMC comparisons on the best,
and writes the merged files, report.html and the rest to --out, as one
run would (times aside).

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
	plan := rpt.Full()
	switch {
	case *tiny:
		plan = rpt.Tiny()
	case *quick:
		plan = rpt.Quick()
	}
	if recipe.v != "" {
		plan.Recipe = bayes.Recipe(recipe.v)
	}
	if *out == "" {
		*out = filepath.Join("out", plan.Name)
	}
	cfg := rpt.Config{Plan: plan, Out: *out, Workers: *workers, SeedBase: base.v, FailStudy: *failStudy, Shard: sh.i, Shards: sh.n}
	var dirs []string
	if *from != "" {
		dirs = strings.Split(*from, ",")
	}
	if err == nil && sh.n > 0 && dirs != nil {
		err = usagef("--shard runs one shard, --from reports on all of them: use one")
	}
	for _, d := range dirs {
		if st, serr := os.Stat(d); err == nil && (serr != nil || !st.IsDir()) {
			err = usagef("--from %s: not a folder of a shard's files", d)
		}
	}
	if err == nil && *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}
	for _, s := range append(cfg.Only, *failStudy) {
		if err == nil && s != "" && !slices.Contains(rpt.Names(), s) {
			err = usagef("unknown study %q: use one of %s", s, strings.Join(rpt.Names(), ", "))
		}
	}
	if err == nil && sh.n == 0 { // fail now, not after the run, and before creating --out
		_, err = viz.EChartsJS()
	}
	if err == nil {
		err = checkOutDir(*out)
	}
	if err != nil {
		return report(stderr, "reproduce", err)
	}
	cfg.Progress = func(study string, total int) rpt.Progress { return newStudyProgress(stderr, study, total) }

	fmt.Fprintf(stderr, "bpinn reproduce: %s plan, writing to %s\n", plan.Name, *out)
	var rep *rpt.Report
	if dirs != nil {
		rep, err = rpt.Load(interrupt, cfg, dirs)
	} else {
		rep, err = rpt.Run(interrupt, cfg)
	}
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

// checkOutDir creates dir if needed and checks that a file can be written
// in it, before anything runs.
func checkOutDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usagef("--out %s is not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out %s: cannot create it: %v", dir, errors.Unwrap(err))
	}
	tmp, err := os.CreateTemp(dir, ".reproduce.check*")
	if err != nil {
		return usagef("--out %s: cannot write in it: %v", dir, errors.Unwrap(err))
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
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
