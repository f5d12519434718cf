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
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

func main() {
	stop := startProfile(os.Getenv("BPINN_CPUPROFILE"), os.Stderr)
	ctx, cancel := interruptible()
	interrupt = ctx
	code := runWith(os.Args[1:], nil, os.Stdout, os.Stderr)
	cancel()
	stop()
	os.Exit(code)
}

// interruptible returns a context that ends with the first Ctrl-C or
// SIGTERM (its cause names the signal), by which time the signals'
// default behaviour is back: a second one kills the process, also while
// the first one's fit writes its record (a band assessment of minutes on
// a large problem). signal.NotifyContext alone would keep catching them.
func interruptible() (context.Context, context.CancelFunc) {
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-sig.Done()
		stop()
		cancel(context.Cause(sig))
	}()
	return ctx, func() { stop(); cancel(nil) }
}

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

// program is bpinn: its commands, each with its summary, usage line,
// text, --help footer and setup.
func program() cliflag.Program {
	return cliflag.Program{Name: "bpinn", Title: "Evidence-driven Bayesian PINNs (Graczyk & Witkowski).", Commands: map[string]cliflag.Command{
		"fit":       newCommand("train one network; --json writes its full result", "fit PROBLEM [flags]", fitText, problems.Schedules, setupFit),
		"ensemble":  newCommand("train N seeds on all cores, rank by evidence; --out appends JSONL", "ensemble PROBLEM [--n N] [--out FILE.jsonl] [flags]", ensembleText, problems.Schedules, setupEnsemble),
		"merge":     newCommand("merge ensemble JSONL shards into one ranked summary", "merge [--out FILE.jsonl] FILES...", mergeText, nil, setupMerge),
		"status":    newCommand("count the fits of ensemble shards: missing seeds, one configuration", "status [--n N] [--seed-base SEED] [--shards N] FILES...", statusText, nil, setupStatus),
		"exact":     newCommand("print the exact/reference solution at points read from stdin", "exact PROBLEM < points.txt", exactText, problems.InputOrders, setupExact),
		"predict":   newCommand("print a recorded fit's outputs and bands at points read from stdin", "predict [--seed SEED] RECORD < points.txt", predictText, nil, setupPredict),
		"version":   newCommand("print the release, module and Go versions", "version", versionText, nil, setupVersion),
		"coverage":  newCommand("fit an inverse problem on N draws of its data: the coverage of the unknowns' 95% intervals", "coverage PROBLEM [--draws N] [flags]", coverageText, problems.Schedules, setupCoverage),
		"hmc":       newCommand("compare the Laplace band with Hamiltonian Monte Carlo (regression)", "hmc PROBLEM [flags]", hmcText, func() string { return hmcFooter }, setupHMC),
		"reproduce": newCommand("run every study of the paper and write report.html", "reproduce [--quick] [--out DIR] [flags]", reproduceText, reproduceFooter, setupReproduce),
	}}
}

// newCommand is the command of the summary, usage line, text, footer and setup.
func newCommand(summary, usage, text string, footer func() string, setup func(*flag.FlagSet) func([]string, env) error) cliflag.Command {
	return cliflag.Command{Summary: summary, Usage: usage, Text: text, Footer: footer, Setup: setup}
}

// runWith runs the command of args[0] reading stdin (os.Stdin when nil).
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program().Run(args, stdin, stdout, stderr)
}
