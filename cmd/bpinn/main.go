// Command bpinn fits evidence-driven Bayesian physics-informed neural
// networks (Graczyk & Witkowski) from the command line: "bpinn --help"
// lists the commands (the table of commands below), docs/cli.md says what
// each does.
//
// Exit codes: 0 success (a fit that diverged is still a success: its status
// is in the output), 1 an I/O failure, 2 bad input (a one-line error on
// stderr, nothing written).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

func main() {
	stop := startProfile(os.Getenv("BPINN_CPUPROFILE"), os.Stderr)
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	interrupt = ctx
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	stop()
	os.Exit(code)
}

// interrupt ends with the first Ctrl-C or SIGTERM: a fit stops at its next
// epoch as cancelled and is still recorded, an ensemble keeps the fits that
// ended (a second Ctrl-C kills the process as usual).
var interrupt = context.Background()

// startProfile writes a CPU profile of the whole command to path (the
// environment variable BPINN_CPUPROFILE; docs/benchmarks.md) when it is set.
func startProfile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bpinn: BPINN_CPUPROFILE: %v (unset it or give a writable path)\n", err)
		os.Exit(exitUsage)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // I/O and other runtime failures
	exitUsage = 2 // bad input
)

// env is what a command runs with: its arguments as given (for --sbatch's
// script), standard input (os.Stdin when nil) and outputs.
type env struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (e env) in() io.Reader {
	if e.stdin == nil {
		return os.Stdin
	}
	return e.stdin
}

// command is one subcommand: its summary in bpinn --help; for its own
// --help, its usage line, text and footer (what follows the flags); and
// setup, which registers its flags and returns what runs it on the
// positional arguments.
type command struct {
	summary, usage, text string
	footer               func() string
	setup                func(fs *flag.FlagSet) func(pos []string, e env) error
}

func commands() map[string]command {
	return map[string]command{
		"fit":       {"train one network; --json writes its full result", "fit PROBLEM [flags]", fitText, problems.Schedules, setupFit},
		"ensemble":  {"train N seeds on all cores, rank by evidence; --out appends JSONL", "ensemble PROBLEM [--n N] [--out FILE.jsonl] [flags]", ensembleText, problems.Schedules, setupEnsemble},
		"merge":     {"merge ensemble JSONL shards into one ranked summary", "merge [--out FILE.jsonl] FILES...", mergeText, nil, setupMerge},
		"status":    {"count the fits of ensemble shards: missing seeds, one configuration", "status [--n N] [--seed-base SEED] [--shards N] FILES...", statusText, nil, setupStatus},
		"exact":     {"print the exact/reference solution at points read from stdin", "exact PROBLEM < points.txt", exactText, problems.InputOrders, setupExact},
		"predict":   {"print a recorded fit's outputs and bands at points read from stdin", "predict [--seed SEED] RECORD < points.txt", predictText, nil, setupPredict},
		"version":   {"print the release, module and Go versions", "version", versionText, nil, setupVersion},
		"coverage":  {"fit an inverse problem on N draws of its data: the coverage of the unknowns' 95% intervals", "coverage PROBLEM [--draws N] [flags]", coverageText, problems.Schedules, setupCoverage},
		"hmc":       {"compare the Laplace band with Hamiltonian Monte Carlo (regression)", "hmc PROBLEM [flags]", hmcText, func() string { return hmcFooter }, setupHMC},
		"reproduce": {"run every study of the paper and write report.html", "reproduce [--quick] [--out DIR] [flags]", reproduceText, reproduceFooter, setupReproduce},
	}
}

func run(args []string, stdout, stderr io.Writer) int { return runWith(args, nil, stdout, stderr) }

// runWith runs the command of args[0] reading stdin (os.Stdin when nil).
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cs := commands()
	if len(args) == 0 {
		fmt.Fprintf(stderr, "bpinn: missing command: use one of %s (bpinn --help)\n", strings.Join(names(cs), ", "))
		return exitUsage
	}
	switch args[0] {
	case "help":
		if len(args) > 1 { // "bpinn help fit" is "bpinn fit --help"
			return runWith([]string{args[1], "--help"}, stdin, stdout, stderr)
		}
		fallthrough
	case "-h", "-help", "--help":
		usage(stdout, cs)
		return exitOK
	}
	c, ok := cs[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "bpinn: unknown command %q: use one of %s (bpinn --help)\n", args[0], strings.Join(names(cs), ", "))
		return exitUsage
	}
	return c.exec(args[0], env{args[1:], stdin, stdout, stderr})
}

// exec parses the flags of command name and runs it: --help prints its
// usage, an error is printed in one line and sets the exit code.
func (c command) exec(name string, e env) int {
	fs := cliflag.NewFlagSet(name)
	do := c.setup(fs)
	pos, err := cliflag.Parse(fs, e.args)
	if errors.Is(err, flag.ErrHelp) {
		footer := ""
		if c.footer != nil {
			footer = c.footer()
		}
		cliflag.PrintUsage(e.stdout, fs, "bpinn "+c.usage, c.text, footer)
		return exitOK
	}
	if err == nil {
		err = do(pos, e)
	}
	if err != nil {
		return report(e.stderr, name, err)
	}
	return exitOK
}

func names(cs map[string]command) []string {
	var ns []string
	for n := range cs {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func usage(w io.Writer, cs map[string]command) {
	fmt.Fprintf(w, "usage: bpinn COMMAND [flags] [args]\n\nEvidence-driven Bayesian PINNs (Graczyk & Witkowski).\n\ncommands:\n")
	for _, n := range names(cs) {
		fmt.Fprintf(w, "  %-9s %s\n", n, cs[n].summary)
	}
	fmt.Fprintf(w, "\nbpinn COMMAND --help (or bpinn help COMMAND): a command's flags and defaults.\n"+
		"Exit codes: 0 success, 1 I/O failure, 2 bad input.\n")
}
