package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/evidence-pinn/bpinn/internal/cliflag"
	"github.com/evidence-pinn/bpinn/pkg/runner"
)

const mergeText = `Reads the JSONL files of ensemble shards and prints one ranked summary, the
same bytes an unsharded run prints; --out writes the merged records, sorted
by seed. Records of one seed that disagree, or of runs with other flags,
are an error (exit 2). Details: docs/cli.md.`

// setupMerge registers bpinn merge's flags.
func setupMerge(fs *flag.FlagSet) func([]string, env) error {
	out := fs.String("out", "", "write the merged records, sorted by seed, to `FILE.jsonl`")
	return func(pos []string, e env) error { return runMerge(pos, *out, e.Stdout, e.Stderr) }
}

func runMerge(files []string, out string, stdout, stderr io.Writer) error {
	if len(files) == 0 {
		return usagef("no files to merge")
	}
	if out != "" {
		if err := cliflag.CheckWritable(out); err != nil {
			return err
		}
	}
	sum, err := runner.Merge(files, out, func(torn string) {
		fmt.Fprintf(stderr, "bpinn merge: %s ends in a torn line: ignored (finish that shard with --resume)\n", torn)
	})
	if runner.IsInput(err) {
		return asUsage(err)
	}
	if err != nil {
		return err
	}
	return sum.WriteText(stdout)
}
