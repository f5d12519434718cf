// Package slurm holds the sbatch scripts of docs/scale-out.md as the files
// users submit: ensemble.sbatch (a job array, one shard of an ensemble per
// task) and merge.sbatch (the merge of the shards, a dependent job). They are
// embedded so that "bpinn ensemble --sbatch" writes copies of the same file
// that the package's test runs on a one-node Slurm cluster of its own.
package slurm

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

// EnsembleScript is ensemble.sbatch, MergeScript merge.sbatch.
var (
	//go:embed ensemble.sbatch
	EnsembleScript string
	//go:embed merge.sbatch
	MergeScript string
)

// Ensemble returns a copy of ensemble.sbatch for shards tasks of cpus cores
// each, with args (the problem, then the ensemble's flags) written into the
// script, so that every task runs the same flags whatever sbatch is given.
// command, the command line that asked for the script, heads it as a
// comment in place of the general usage notes.
func Ensemble(args []string, shards, cpus int, command string) (string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", fmt.Errorf("want the problem before the flags, got %q", args)
	}
	if shards < 1 || cpus < 1 {
		return "", fmt.Errorf("want at least one shard and one core, got %d and %d", shards, cpus)
	}
	lines := strings.SplitAfter(EnsembleScript, "\n")
	first := 0 // the general usage notes end at the first directive
	for first < len(lines) && !strings.HasPrefix(lines[first], "#SBATCH") {
		first++
	}
	// Each line that Ensemble fills in must be there once: a test renders
	// the script, so an edit of the file that breaks this fails there.
	edits := []struct{ prefix, line string }{
		{"#SBATCH --job-name=", "#SBATCH --job-name=bpinn-" + args[0]},
		{"#SBATCH --array=", fmt.Sprintf("#SBATCH --array=0-%d", shards-1)},
		{"#SBATCH --cpus-per-task=", fmt.Sprintf("#SBATCH --cpus-per-task=%d", cpus)},
		{`SHARDS="${SHARDS:-`, fmt.Sprintf("SHARDS=%d", shards)},
		{"[ $# -gt 0 ]", "set -- " + shellQuote(args)},
	}
	out := []string{"#!/bin/bash\n", "# Written by: " + strings.ReplaceAll(command, "\n", " ") + "\n",
		"# Submit with: mkdir -p logs && sbatch THIS-FILE (docs/scale-out.md)\n"}
	for _, e := range edits {
		n := 0
		for i := first; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], e.prefix) {
				lines[i] = e.line + "\n"
				n++
			}
		}
		if n != 1 {
			return "", fmt.Errorf("ensemble.sbatch has %d lines starting %q, want 1", n, e.prefix)
		}
	}
	return strings.Join(append(out, lines[first:]...), ""), nil
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./=,:+@%-]+$`)

// shellQuote joins words for a shell, single-quoting those that need it.
func shellQuote(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if shellSafe.MatchString(w) {
			q[i] = w
		} else {
			q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
