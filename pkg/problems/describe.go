package problems

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/pde"
)

// Takers lists, comma-separated, the problems that an option (a field name
// of Options) changes: what a caller names when it refuses the option.
func Takers(option string) string {
	var names []string
	for _, e := range entries {
		if e.Takes(option) {
			names = append(names, e.Name)
		}
	}
	return strings.Join(names, ", ")
}

// WithInit returns p with its unknowns started at init's values (natural
// scale). An error names the unknown first ("nu: ..." or "nu=-1: ..."), so
// that a caller can put its own word before it.
func WithInit(p *pde.Problem, init map[string]float64) (*pde.Problem, error) {
	q := *p
	q.Unknowns = slices.Clone(p.Unknowns)
	for name, v := range init {
		i := slices.IndexFunc(q.Unknowns, func(u pde.Unknown) bool { return u.Name == name })
		if i < 0 {
			var names []string
			for _, u := range q.Unknowns {
				names = append(names, u.Name)
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("%s: problem %q has no unknown coefficients", name, p.Name)
			}
			return nil, fmt.Errorf("%s: problem %q has no unknown %q; its unknowns: %s", name, p.Name, name, strings.Join(names, ", "))
		}
		if q.Unknowns[i].Positive && !(v > 0) {
			return nil, fmt.Errorf("%s=%g: %s is inferred on a log scale; start it above 0", name, v, name)
		}
		q.Unknowns[i].Init = v
	}
	return &q, nil
}

// Schedules is a table of every problem's inputs and default training
// schedule (the paper's settings), for a command's --help.
func Schedules() string {
	const row = "  %-15s  %-6s  %-6s  %-6v  %-11v  %-11v  %-7s  %s\n"
	head := "problems and their defaults (the paper's settings):\n" +
		fmt.Sprintf(row, "problem", "inputs", "hidden", "epochs", "hyper-start", "hyper-every", "alphas", "betas")
	return describe(head, func(e Entry, p *pde.Problem) string {
		if e.Schedule == nil {
			return fmt.Sprintf("  %-15s  %-6s  none: the trainer's defaults\n", e.Name, strings.Join(p.Inputs, ","))
		}
		d := e.Schedule(Options{})
		hidden := make([]string, len(d.Hidden))
		for i, h := range d.Hidden {
			hidden[i] = strconv.Itoa(h)
		}
		return fmt.Sprintf(row, e.Name, strings.Join(p.Inputs, ","), strings.Join(hidden, ","), d.Epochs, d.HyperStart, d.HyperEvery, d.AlphaMode, d.BetaMode)
	})
}

// InputOrders is a table of every problem's inputs in their order, with
// the box of each, for a command that reads points.
func InputOrders() string {
	return describe("input order and domain of each problem:\n", func(e Entry, p *pde.Problem) string {
		var dom []string
		for i, in := range p.Inputs {
			dom = append(dom, fmt.Sprintf("%s in [%g, %g]", in, p.Lo[i], p.Hi[i]))
		}
		return fmt.Sprintf("  %-15s %-6s (%s)\n", e.Name, strings.Join(p.Inputs, " "), strings.Join(dom, ", "))
	})
}

// describe returns header followed by line(entry, problem) for every
// problem of the registry, built with the default options.
func describe(header string, line func(e Entry, p *pde.Problem) string) string {
	var b strings.Builder
	b.WriteString(header)
	for _, e := range entries {
		b.WriteString(line(e, e.New(Options{})))
	}
	return b.String()
}

// WriteExact writes the exact or reference solution of p at pts in full
// precision (the shortest form that reads back exactly): one value per
// line for a problem of one field; for several, a header naming the
// inputs and fields, then per point its inputs and every field.
func WriteExact(w io.Writer, p *pde.Problem, pts [][]float64) error {
	several := len(p.OutputNames()) > 1
	var b []byte
	if several {
		b = append(b, strings.Join(append(slices.Clone(p.Inputs), p.OutputNames()...), " ")+"\n"...)
	}
	for _, x := range pts {
		vals := p.ExactValues(x)
		if several {
			vals = append(slices.Clone(x), vals...)
		}
		for i, v := range vals {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendFloat(b, v+0, 'g', -1, 64) // +0: no "-0"
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}
