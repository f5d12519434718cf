package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/datafile"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/problems"
)

const exactText = `Reads points from stdin, one per line, coordinates separated by spaces or
tabs in the problem's input order, and prints the exact (heat, wave,
wave-full, regression) or reference (burgers: exact Cole-Hopf;
poisson-holes: the project's finite-difference solution) solution at
each, one value per line at full precision (shortest form that reads back
exactly).
Blank lines and lines starting with # are skipped. A malformed line, a point
outside the domain's box or a wrong number of coordinates is an error naming
the line, a point in a hole of poisson-holes one naming the point (exit 2);
nothing is printed then.`

func cmdExact(args []string, stdout, stderr io.Writer) int {
	return cmdExactFrom(args, nil, stdout, stderr)
}

// cmdExactFrom reads points from stdin (os.Stdin when nil).
func cmdExactFrom(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("exact")
	var kappa posFloat
	fs.Var(&kappa, "kappa", "heat diffusivity `K` (heat only; default 0.1)")
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout, fs, "bpinn exact PROBLEM < points.txt", exactText, exactOrders())
		return exitOK
	}
	if err == nil {
		err = runExact(pos, kappa, stdinOr(stdin), stdout, stderr)
	}
	if err != nil {
		return report(stderr, "exact", err)
	}
	return exitOK
}

func exactOrders() string {
	return describeProblems("input order and domain of each problem:\n", func(e problems.Entry, p *pde.Problem) string {
		var dom []string
		for i, in := range p.Inputs {
			dom = append(dom, fmt.Sprintf("%s in [%g, %g]", in, p.Lo[i], p.Hi[i]))
		}
		return fmt.Sprintf("  %-15s %-6s (%s)\n", e.Name, strings.Join(p.Inputs, " "), strings.Join(dom, ", "))
	})
}

func runExact(pos []string, kappa posFloat, in io.Reader, out, hint io.Writer) error {
	if len(pos) != 1 {
		return usagef("want one problem (%s), got %d arguments", strings.Join(problems.Names(), ", "), len(pos))
	}
	ff := fitFlags{kappa: kappa, dataSeed: seedFlag{1}}
	p, err := ff.problem(pos[0])
	if err != nil {
		return err
	}
	if p.Exact == nil {
		return usagef("problem %q has no exact solution", p.Name)
	}
	if isTerminal(in) { // otherwise the command seems to hang
		fmt.Fprintf(hint, "bpinn exact: type points (%s), one per line; end with Ctrl-D\n", strings.Join(p.Inputs, " "))
	}
	pts, err := datafile.ReadPoints(in, p)
	if pe := (*datafile.PointError)(nil); errors.As(err, &pe) {
		return usagef("%v", pe)
	}
	if err != nil {
		return err
	}
	var b []byte
	for _, x := range pts {
		if !p.Contains(x) { // in a hole of a plate: no solution there
			return usagef("point %v is outside the domain of %s", x, p.Name)
		}
		b = strconv.AppendFloat(b, p.Exact(x)+0, 'g', -1, 64) // +0: no "-0"
		b = append(b, '\n')
	}
	_, err = out.Write(b)
	return err
}

func stdinOr(r io.Reader) io.Reader {
	if r == nil {
		return os.Stdin
	}
	return r
}
