package runner

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/evidence-pinn/bpinn/internal/atomicfile"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// shardFile is one file's records as status reads them.
type shardFile struct {
	path string
	rs   []record.Result
	torn bool
}

// Status writes to stdout what the files of an ensemble's shards hold: the
// fits of each file, whether they are of one configuration (merge refuses a
// mix), disagreeing duplicates, and which seeds of base .. base+n-1 are
// missing (with n = 0: the gaps below the largest seed found), each under
// its shard of shards when shards > 0: the task to rerun with --resume.
// The error is an InputError for files that cannot be read or hold no fits,
// and otherwise names, in one line, what is wrong with the ensemble.
func Status(stdout io.Writer, files []string, n int, base uint64, shards int) error {
	if len(files) == 0 {
		return inputf("no files: give the shard files of one ensemble")
	}
	if n > 0 && uint64(n-1) > math.MaxUint64-base {
		return inputf("--seed-base %d + --n %d: the last seed overflows 64 bits; lower --seed-base", base, n)
	}
	var sf []shardFile
	for _, f := range files {
		rs, torn, err := record.ReadResults(f)
		if err != nil {
			return &InputError{err.Error()}
		}
		sf = append(sf, shardFile{f, rs, torn})
	}
	problems, err := statusFiles(stdout, sf)
	if err != nil {
		return err
	}
	held, p := statusDuplicates(stdout, sf)
	problems = append(problems, p...)
	problems = append(problems, statusSeeds(stdout, held, n, base, shards)...)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// statusFiles writes each file's line, naming the first record whose
// configuration differs from the first record's, and then the one
// configuration; it returns what makes the exit status 1 (one phrase each)
// and an InputError when no file holds a fit.
func statusFiles(stdout io.Writer, sf []shardFile) (problems []string, err error) {
	var first *record.Result
	var firstFile string
	mixed := 0
	for _, f := range sf {
		line := fmt.Sprintf("%s: %s", f.path, Plural(len(f.rs), "fit"))
		if len(f.rs) > 0 {
			lo, hi := f.rs[0].Seed, f.rs[0].Seed
			for _, r := range f.rs {
				lo, hi = min(lo, r.Seed), max(hi, r.Seed)
			}
			line += fmt.Sprintf(", seeds %d to %d", lo, hi)
		}
		if f.torn {
			line += "; ends in a torn line (a killed task: run its shard again with --resume)"
		}
		for i := range f.rs {
			r := &f.rs[i]
			if first == nil {
				first, firstFile = r, f.path
			} else if !r.RunConfig.Equal(first.RunConfig) {
				line += fmt.Sprintf("; ANOTHER CONFIGURATION: seed %d (%s) against seed %d of %s (%s)",
					r.Seed, describeConfig(r.RunConfig), first.Seed, firstFile, describeConfig(first.RunConfig))
				mixed++
				break
			}
		}
		fmt.Fprintln(stdout, line)
	}
	if first == nil {
		files := make([]string, len(sf))
		for i, f := range sf {
			files[i] = f.path
		}
		return nil, inputf("no fits in %s", strings.Join(files, ", "))
	}
	if mixed == 0 {
		fmt.Fprintf(stdout, "configuration: one (%s)\n", describeConfig(first.RunConfig))
	} else {
		problems = append(problems, fmt.Sprintf("files of another configuration than %s: %d", firstFile, mixed))
	}
	return problems, nil
}

// statusDuplicates writes the seeds held more than once and those whose
// records disagree; it returns one record per seed and the problems.
func statusDuplicates(stdout io.Writer, sf []shardFile) (held map[uint64]record.Result, problems []string) {
	where := map[uint64][]int{} // seed -> indices into sf (one per record)
	held = map[uint64]record.Result{}
	var conflicts []string
	for i, f := range sf {
		for _, r := range f.rs {
			if old, ok := held[r.Seed]; ok && !record.SameApartFromSeconds(old, r) && !slices.Contains(conflicts, fmt.Sprint(r.Seed)) {
				conflicts = append(conflicts, fmt.Sprint(r.Seed))
			}
			if _, ok := held[r.Seed]; !ok {
				held[r.Seed] = r
			}
			where[r.Seed] = append(where[r.Seed], i)
		}
	}
	dups := 0
	for _, w := range where {
		if len(w) > 1 {
			dups++
		}
	}
	if dups > 0 {
		fmt.Fprintf(stdout, "duplicates: %s held more than once (merge keeps one of each)\n", Plural(dups, "seed"))
	}
	if len(conflicts) > 0 {
		fmt.Fprintf(stdout, "CONFLICTS: seeds %s have records that disagree\n", strings.Join(conflicts, ", "))
		problems = append(problems, Plural(len(conflicts), "seed")+" with disagreeing records")
	}
	return held, problems
}

// statusSeeds writes how many of the seeds base .. base+n-1 (n = 0: up to
// the largest held) are held, those outside, and the missing ones, under
// their shard when shards > 0; it returns the problems.
func statusSeeds(stdout io.Writer, held map[uint64]record.Result, n int, base uint64, shards int) (problems []string) {
	last, span := base+uint64(n-1), fmt.Sprintf("--n %d --seed-base %d", n, base)
	if n == 0 {
		last, span = base, "the largest seed found; give --n to check the last seeds too"
		for s := range held {
			last = max(last, s)
		}
	}
	var missing []uint64
	for s := base; ; s++ {
		if _, ok := held[s]; !ok {
			missing = append(missing, s)
		}
		if s == last {
			break
		}
	}
	total := last - base + 1
	var outside int
	for s := range held {
		if s < base || s > last {
			outside++
		}
	}
	fmt.Fprintf(stdout, "seeds %d to %d (%s): %d of %d held", base, last, span, total-uint64(len(missing)), total)
	if outside > 0 {
		fmt.Fprintf(stdout, ", and %d outside", outside)
		problems = append(problems, fmt.Sprintf("%s outside %d to %d (another --seed-base or --n?)", Plural(outside, "seed"), base, last))
	}
	if len(missing) == 0 {
		fmt.Fprintln(stdout, ", none missing")
		return problems
	}
	fmt.Fprintf(stdout, ", %d missing:\n", len(missing))
	if shards == 0 {
		fmt.Fprintf(stdout, "  %s\n", fmtSeeds(missing, 20))
	} else {
		byShard := make([][]uint64, shards)
		for _, s := range missing {
			i := (s - base) % uint64(shards)
			byShard[i] = append(byShard[i], s)
		}
		for i, ss := range byShard {
			if len(ss) > 0 {
				fmt.Fprintf(stdout, "  shard %d/%d: %s\n", i, shards, fmtSeeds(ss, 20))
			}
		}
	}
	return append(problems, fmt.Sprintf("%d of %d seeds missing (run their shards again with --resume)", len(missing), total))
}

// describeConfig names what usually tells two runs apart.
func describeConfig(c record.RunConfig) string {
	return fmt.Sprintf("problem %s, data seed %d, net %v, epochs %d", c.Problem, c.DataSeed, c.Architecture, c.EpochsPlan)
}

// fmtSeeds writes seeds (sorted) compactly: runs of consecutive seeds as
// a-b, at most max items before an ellipsis.
func fmtSeeds(seeds []uint64, max int) string {
	var items []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if j == i {
			items = append(items, fmt.Sprint(seeds[i]))
		} else {
			items = append(items, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		}
		i = j + 1
	}
	if len(items) > max {
		items = append(items[:max], "...")
	}
	return strings.Join(items, ", ")
}

// Plural is "1 fit", "2 fits": n and noun, plural unless n is 1 (the
// summaries of runs and of samplers).
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Merge joins the records of ensemble shards' files (record.MergeFiles: a
// seed held twice must agree, every record of one run) and summarizes
// them; with out it writes the merged records there, sorted by seed,
// atomically. A file whose last line is torn (a killed shard) is passed
// to torn and its line ignored. Bad files are input errors (IsInput).
func Merge(files []string, out string, torn func(file string)) (record.Summary, error) {
	merged, tornFiles, err := record.MergeFiles(files)
	if err != nil {
		return record.Summary{}, &InputError{err.Error()}
	}
	for _, f := range tornFiles {
		torn(f)
	}
	sum, err := record.Summarize(merged)
	if err != nil {
		return record.Summary{}, &InputError{err.Error()}
	}
	if out != "" {
		data, err := record.MarshalLines(merged)
		if err != nil {
			return record.Summary{}, err
		}
		if err := atomicfile.Write(out, data); err != nil {
			return record.Summary{}, err
		}
	}
	return sum, nil
}
