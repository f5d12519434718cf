package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/evidence-pinn/bpinn/cmd/internal/termbar"
	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/bayes"
	rpt "github.com/evidence-pinn/bpinn/pkg/report"
	"github.com/evidence-pinn/bpinn/pkg/viz/offline"
)

const reproduceText = `Runs every study of the paper (listed below; docs/cli.md says what each
is) at once, their fits sharing the workers, the costliest first; a line
on stderr as each fit ends, and every 30 s one with what runs and the time
left; --only runs a few of them. Each fit is appended to
DIR/<study>.jsonl as it ends; at the end DIR/report.html holds every
figure and the paper's Tables 1-3 beside the paper's numbers,
DIR/figures/*.png the static figures, DIR/results.md the tables (also
printed on stdout) and DIR/results.json the tables with the run's source,
which the docs quote. On a cluster each task of a job array runs
--shard I/N into a folder of its own, and --from builds the report from
those folders (docs/scale-out.md).`

const reproduceEnd = `exit status: 0 every study ran, 1 a study failed (the report is still
written, with a section naming what failed and why) or an I/O error,
2 bad input (nothing run).
`

// reproduceFlags are the flags of bpinn reproduce.
type reproduceFlags struct {
	quick, tiny, noHeatNUTS    bool
	out, failStudy, only, from string
	workers                    int
	base                       cliflag.Seed
	recipe                     cliflag.Choice
	shard                      cliflag.Shard
}

func (r *reproduceFlags) register(fs *flag.FlagSet) {
	r.base, r.recipe = cliflag.Seed{V: 1}, cliflag.Choice{Choices: cliflag.Names(bayes.Recipes)}
	fs.BoolVar(&r.quick, "quick", false, "the short run (make reproduce, about 10 min on 2 cores): 12 fits per study, epochs cut 2x, fewer and shorter fits of the costliest studies")
	fs.BoolVar(&r.tiny, "tiny", false, cliflag.TestOnly+"seconds, numbers meaningless")
	fs.StringVar(&r.out, "out", "", "output directory `DIR`, created if missing (default out/full, out/quick with --quick)")
	fs.IntVar(&r.workers, "workers", 0, "`W` concurrent fits; 0 is one per core")
	fs.Var(&r.base, "seed-base", "fit i of every study has seed `B` + i")
	fs.Var(&r.recipe, "recipe", "tuned (the default of bayes.Settings: the paper's schedule, then a Gauss-Newton polish and MacKay rounds) or paper (the paper's schedule alone)")
	fs.BoolVar(&r.noHeatNUTS, "no-heat-nuts", false, "leave out the comparison of heat's best fit with NUTS (11-25 min of CPU in the full plan); the settings table says so")
	fs.StringVar(&r.failStudy, "fail-study", "", cliflag.TestOnly+"this study panics")
	fs.StringVar(&r.only, "only", "", "run only the comma-separated `STUDIES` (listed below), each with the plan's settings; the report has their tables alone")
	fs.Var(&r.shard, "shard", "run shard I of N of every study, no report (job arrays)")
	fs.StringVar(&r.from, "from", "", "build the report from the comma-separated `DIRS` of the shards, without training")
}

// config is the checked configuration of the flags, its output directory
// prepared; nothing has run.
func (r *reproduceFlags) config(pos []string) (rpt.Config, error) {
	if len(pos) > 0 {
		return rpt.Config{}, usagef("unexpected argument %q", pos[0])
	}
	if err := checkWorkers(r.workers); err != nil {
		return rpt.Config{}, err
	}
	plan := rpt.PlanFor(r.quick, r.tiny, bayes.Recipe(r.recipe.V))
	if r.noHeatNUTS {
		plan.HeatHMC = nil
	}
	cfg := rpt.Config{Plan: plan, Out: cmp.Or(r.out, plan.DefaultOut()), Workers: r.workers, SeedBase: r.base.V,
		FailStudy: r.failStudy, Shard: r.shard.I, Shards: r.shard.N}
	if r.from != "" {
		cfg.From = strings.Split(r.from, ",")
	}
	if r.only != "" {
		cfg.Only = strings.Split(r.only, ",")
	}
	if err := cfg.Check(); err != nil {
		return cfg, asUsage(err)
	}
	if r.shard.N == 0 { // fail now, not after the run, and before creating --out
		if _, err := offline.EChartsJS(); err != nil {
			return cfg, err
		}
	}
	return cfg, asUsage(cfg.PrepareOut())
}

// setupReproduce registers bpinn reproduce's flags.
func setupReproduce(fs *flag.FlagSet) func([]string, env) error {
	var r reproduceFlags
	r.register(fs)
	return func(pos []string, e env) error {
		cfg, err := r.config(pos)
		if err != nil {
			return err
		}
		cfg.Command = commandLine("bpinn reproduce", fs)
		return runReproduce(cfg, r.shard, e.Stdout, e.Stderr)
	}
}

// commandLine is name with the flags set on fs, as a user would type them.
func commandLine(name string, fs *flag.FlagSet) string {
	s := name
	fs.Visit(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && f.Value.String() == "true" {
			s += " --" + f.Name
			return
		}
		s += " --" + f.Name + " " + f.Value.String()
	})
	return s
}

// runReproduce runs the studies of cfg and writes the report, or the shard
// of every study; a study that failed is reported in one line each, and
// the command exits 1.
func runReproduce(cfg rpt.Config, shard cliflag.Shard, stdout, stderr io.Writer) error {
	// The studies run at once: their progress is plain lines (several bars
	// would overwrite each other), and every 30 s a line with what runs
	// and the time left.
	lines := struct{ io.Writer }{stderr}
	cfg.Progress = func(study string, total int) rpt.Progress { return termbar.NewStudy(lines, study, total) }
	cfg.Status = func(s rpt.Status) {
		running := "nothing"
		if len(s.Running) > 0 {
			running = strings.Join(s.Running, ", ")
		}
		fmt.Fprintf(stderr, "bpinn reproduce: %s elapsed, %d fits ended, running %s; about %s left\n", s.Elapsed, s.Ended, running, s.Left)
	}
	fmt.Fprintf(stderr, "bpinn reproduce: %s plan, writing to %s\n", cfg.Plan.Name, cfg.Out)
	rep, err := rpt.Execute(interrupt, cfg)
	if err != nil {
		return err
	}
	var code error
	if shard.N > 0 {
		for _, st := range rep.Failed() {
			code = failed(stderr, st.Name, st.Err.Error())
		}
		fmt.Fprintf(stderr, "bpinn reproduce: shard %s of every study in %s; once every shard ran: bpinn reproduce --from DIR0,DIR1,... with the same flags\n", &shard, cfg.Out)
		return code
	}
	pg := rpt.Build(rep)
	if err := pg.Write(cfg.Out); err != nil {
		return err
	}
	fmt.Fprint(stdout, pg.Markdown())
	fmt.Fprintf(stderr, "bpinn reproduce: wrote %s in %s\n", filepath.Join(cfg.Out, "report.html"), time.Duration(rep.Seconds*float64(time.Second)).Round(time.Second))
	for _, f := range pg.Failures {
		code = failed(stderr, f.What, f.Why)
	}
	return code
}

// failed reports a failed study in one line; the command then exits 1.
func failed(stderr io.Writer, what, why string) error {
	fmt.Fprintf(stderr, "bpinn reproduce: FAILED %s: %s\n", what, cliflag.OneLine(firstLine(why)))
	return cliflag.ExitCode(exitFail)
}

// reproduceFooter names the studies for --help, wrapped, and the exit
// codes.
func reproduceFooter() string {
	var b strings.Builder
	line := "studies:"
	for _, n := range rpt.Names() {
		if len(line)+1+len(n)+1 > 78 {
			b.WriteString(line + "\n")
			line = " "
		}
		line += " " + n + ","
	}
	b.WriteString(strings.TrimSuffix(line, ",") + "\n\n" + reproduceEnd)
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
