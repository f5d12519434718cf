// Command rescore judges recorded fits' calibrated bands with the current
// code: each record of the JSONL files given is restored (its problem
// rebuilt from the registry, record.Restore), recorded again
// (record.NewResult: the bands and warnings as the current pkg/band
// assesses them) and scored per field against the calibrated band's
// targets, coverage in [0.90, 0.99] and q95 in [1.4, 2.6]: MEETS (and
// "MEETS, WARNED" where the record warns of that band all the same: a
// false alarm), WARNED (missed, and the record says so for that field:
// "band uncalibrated for FIELD: ..." or "the calibrated band of FIELD
// ..."), or SILENT (missed without a word); -warnings prints each field's
// band warnings under its line. A problem without an exact solution
// (heat2d-lt) gets its fields' band warnings alone. docs/calibration.md's
// suite table is its output:
//
//	go run ./lab/rescore out/full/poisson-nd.jsonl out/full/heat-nd.jsonl ...
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/pkg/problems"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// showWarnings prints, under each field's line, the warnings of its band.
var showWarnings = flag.Bool("warnings", false, "print each field's band warnings under its line")

func main() {
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./lab/rescore [-warnings] FILE.jsonl ...  (records of registered problems)")
		os.Exit(2)
	}
	failed := false
	for _, path := range flag.Args() {
		if err := rescore(path); err != nil {
			fmt.Fprintf(os.Stderr, "rescore: %s: %v\n", path, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// rescore prints one line per record of path and field.
func rescore(path string) error {
	rs, _, err := record.ReadResults(path)
	if err != nil {
		return err
	}
	for _, r := range rs {
		p, err := problems.Rebuild(r.Problem, r.DataSeed, r.Sampling, r.Params, r.Truths())
		if err != nil {
			return err
		}
		f, err := record.Restore(p, &r)
		if err != nil {
			return fmt.Errorf("seed %d: %w", r.Seed, err)
		}
		f.Warnings = nil // the fit's own are not the band's
		n := record.NewResult(f, 100)
		if n.Errors == nil { // no exact solution: the warnings alone
			for _, k := range p.OutputNames() {
				ws := bandWarnings(n.Warnings, k, len(p.OutputNames()))
				fmt.Printf("%s seed %d %s: no exact solution to score against; %d warnings of its calibrated band\n", r.Problem, r.Seed, k, len(ws))
				printWarnings(ws)
			}
			continue
		}
		outs := n.Errors.Outputs
		if outs == nil {
			outs = map[string]*record.GridErrors{p.OutputNames()[0]: n.Errors}
		}
		for _, k := range p.OutputNames() {
			o := outs[k]
			c, q := record.Val(o.Coverage2SCalibrated), record.Val(o.Q95Calibrated)
			ws := bandWarnings(n.Warnings, k, len(outs))
			fmt.Printf("%s seed %d %s: rel L2 %.3g, paper's band %.3f / %.3g, calibrated %.3f / %.3g: %s\n",
				r.Problem, r.Seed, k, record.Val(o.RelL2), record.Val(o.Coverage2S), record.Val(o.Q95), c, q,
				verdict(c >= 0.9 && c <= 0.99 && q >= 1.4 && q <= 2.6, len(ws) > 0))
			if *showWarnings {
				printWarnings(ws)
			}
		}
	}
	return nil
}

// verdict is MEETS, or MEETS, WARNED (a false alarm: the record warns of
// a band that meets both targets), WARNED or SILENT.
func verdict(meets, warned bool) string {
	switch {
	case meets && warned:
		return "MEETS, WARNED"
	case meets:
		return "MEETS"
	case warned:
		return "WARNED"
	}
	return "SILENT"
}

// bandWarnings is those of ws that warn of the calibrated band of field k
// (of a problem of n fields).
func bandWarnings(ws []string, k string, n int) []string {
	return slices.DeleteFunc(slices.Clone(ws), func(w string) bool {
		if strings.Contains(w, "calibrated band of "+k+" ") || strings.Contains(w, "band uncalibrated for "+k+":") {
			return false
		}
		return n != 1 || !(strings.HasPrefix(w, "band uncalibrated") || strings.HasPrefix(w, "the calibrated band of"))
	})
}

// printWarnings prints ws, one to a line, indented.
func printWarnings(ws []string) {
	for _, w := range ws {
		fmt.Printf("\t%s\n", w)
	}
}
