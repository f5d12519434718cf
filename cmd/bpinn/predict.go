package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/internal/termbar"

	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

const predictText = `Reads a fit's record (bpinn fit --json, or an ensemble's JSONL: pick the fit
with --seed) and points from stdin, and prints a header naming the
columns, then per point its inputs and each output's mean and Laplace sigma
(and calibrated sigma where recorded), from the record alone, without
training. A bad line is an error naming it (exit 2). Details: docs/cli.md.`

func cmdPredict(args []string, stdout, stderr io.Writer) int {
	return cmdPredictFrom(args, nil, stdout, stderr)
}

// cmdPredictFrom reads points from stdin (os.Stdin when nil).
func cmdPredictFrom(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cliflag.NewFlagSet("predict")
	var seed cliflag.Seed
	fs.Var(&seed, "seed", "the `seed` of the fit to use when the file holds several")
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cliflag.PrintUsage(stdout, fs, "bpinn predict [--seed SEED] RECORD < points.txt", predictText, "")
		return exitOK
	}
	if err == nil {
		err = runPredict(pos, seed.V, stdinOr(stdin), stdout, stderr)
	}
	if err != nil {
		return report(stderr, "predict", err)
	}
	return exitOK
}

func runPredict(pos []string, seed uint64, in io.Reader, out, hint io.Writer) error {
	if len(pos) != 1 {
		return usagef("want one record file (bpinn fit --json FILE), got %d arguments", len(pos))
	}
	r, err := readRecord(pos[0], seed)
	if err != nil {
		return err
	}
	p, err := problems.Rebuild(r.Problem, r.DataSeed, r.Sampling, r.Params, recordTruths(r))
	if err != nil {
		return usagef("%s: %v; a fit of a problem of your own is restored in Go (record.Restore, then record.Predict)", pos[0], err)
	}
	f, err := record.Restore(p, r)
	if err != nil {
		return usagef("%s: %v", pos[0], err)
	}
	if termbar.IsTerminal(in) { // otherwise the command seems to hang
		fmt.Fprintf(hint, "bpinn predict: type points (%s), one per line; end with Ctrl-D\n", strings.Join(p.Inputs, " "))
	}
	pts, err := p.ReadPoints(in)
	if pe := (*pde.PointError)(nil); errors.As(err, &pe) {
		return usagef("%v", pe)
	}
	if err != nil {
		return err
	}
	pr, err := record.Predict(f, pts)
	if err != nil {
		return err
	}
	return pr.WriteTable(out)
}

// readRecord reads the fit of the given seed (0: the only one) from a
// file holding one JSON result or JSON lines of them.
func readRecord(path string, seed uint64) (*record.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("%v", err)
	}
	var rs []record.Result
	var one record.Result
	if err := json.Unmarshal(data, &one); err == nil {
		rs = []record.Result{one}
	} else if rs, _, _, err = record.DecodeResults(append(bytes.TrimSpace(data), '\n')); err != nil {
		return nil, usagef("%s: not a bpinn record (bpinn fit --json or ensemble JSONL): %v", path, err)
	}
	var found []record.Result
	for _, r := range rs {
		if seed == 0 || r.Seed == seed {
			found = append(found, r)
		}
	}
	switch {
	case len(found) == 1 && found[0].Problem != "":
		return &found[0], nil
	case len(rs) == 0 || len(found) == 1:
		return nil, usagef("%s: no fit in the file (bpinn fit --json writes one)", path)
	case len(found) == 0:
		return nil, usagef("%s: no fit of seed %d among its %d", path, seed, len(rs))
	}
	return nil, usagef("%s: %d fits; pick one with --seed", path, len(found))
}

// recordTruths are the true values of the unknowns a record keeps.
func recordTruths(r *record.Result) map[string]float64 {
	t := map[string]float64{}
	for name, u := range r.Unknowns {
		if u.Truth != nil && !math.IsNaN(*u.Truth) {
			t[name] = *u.Truth
		}
	}
	return t
}
