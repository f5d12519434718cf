package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/evidence-pinn/bpinn/cmd/internal/termbar"
	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

const exactText = `Reads points from stdin, one per line in the problem's input order, and
prints the exact or reference solution at each at full precision: one value
per line, or for a problem of several fields a header and per point its
inputs and every field. A bad line or a point outside the domain is an
error naming it (exit 2), and nothing is printed. Details: docs/cli.md.`

// setupExact registers bpinn exact's flags.
func setupExact(fs *flag.FlagSet) func([]string, env) error {
	var kappa cliflag.PosFloat
	fs.Var(&kappa, "kappa", "heat diffusivity `K` (heat only; default 0.1)")
	return func(pos []string, e env) error { return runExact(pos, kappa, e.In(), e.Stdout, e.Stderr) }
}

func runExact(pos []string, kappa cliflag.PosFloat, in io.Reader, out, hint io.Writer) error {
	if len(pos) != 1 {
		return usagef("want one problem (%s), got %d arguments", strings.Join(problems.Names(), ", "), len(pos))
	}
	ff := fitFlags{kappa: kappa, dataSeed: cliflag.Seed{V: 1}}
	p, _, err := ff.problem(pos[0])
	if err != nil {
		return err
	}
	if !p.HasExact() {
		return usagef("problem %q has no exact solution", p.Name)
	}
	if termbar.IsTerminal(in) { // otherwise the command seems to hang
		fmt.Fprintf(hint, "bpinn exact: type points (%s), one per line; end with Ctrl-D\n", strings.Join(p.Inputs, " "))
	}
	pts, err := datafile.ReadPoints(in, p)
	if pe := (*datafile.PointError)(nil); errors.As(err, &pe) {
		return usagef("%v", pe)
	}
	if err != nil {
		return err
	}
	for _, x := range pts {
		if !p.Contains(x) { // in a hole of a plate: no solution there
			return usagef("point %v is outside the domain of %s", x, p.Name)
		}
	}
	return problems.WriteExact(out, p, pts)
}
