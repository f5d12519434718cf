package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

// # JSONL files of results
//
// An ensemble file holds one Result per line. A line is written with one
// write call and fsynced before AppendResult returns, so after a crash the
// file is a sequence of complete lines followed by at most one torn line (a
// last line without its newline). Readers ignore and report that line;
// OpenAppend cuts it away before appending. Order in the file is the order
// the fits ended; everything derived from a file (ranking, summary, merge)
// depends only on the set of records, sorted by seed.

// AppendResult writes r as one complete JSON line to w with one write call
// and, when w can (an *os.File), syncs it before returning. A failed write
// leaves at most a torn last line.
func AppendResult(w io.Writer, r Result) error {
	line, err := r.MarshalLine()
	if err != nil {
		return err
	}
	name := "the output"
	if n, ok := w.(interface{ Name() string }); ok {
		name = n.Name()
	}
	if _, err := w.Write(line); err != nil {
		return fmt.Errorf("append seed %d to %s: %v", r.Seed, name, err)
	}
	if f, ok := w.(interface{ Sync() error }); ok {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("fsync %s: %v", name, err)
		}
	}
	return nil
}

// DecodeResults parses JSONL data. complete is the length of the prefix made
// of complete (newline-terminated) lines; a non-empty remainder is a torn
// last line, ignored and reported by torn. Blank lines are skipped. A
// complete line that is not a Result is an error naming its line number.
func DecodeResults(data []byte) (rs []Result, complete int, torn bool, err error) {
	complete = bytes.LastIndexByte(data, '\n') + 1
	torn = len(bytes.TrimSpace(data[complete:])) > 0
	lineNo := 0
	for rest := data[:complete]; len(rest) > 0; {
		lineNo++
		i := bytes.IndexByte(rest, '\n')
		line := rest[:i]
		rest = rest[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Result
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, complete, torn, fmt.Errorf("line %d: %v", lineNo, err)
		}
		if err := r.check(); err != nil {
			return nil, complete, torn, fmt.Errorf("line %d: %v", lineNo, err)
		}
		rs = append(rs, r)
	}
	return rs, complete, torn, nil
}

// check rejects records that cannot come from NewResult.
func (r *Result) check() error {
	switch {
	case r.Problem == "":
		return fmt.Errorf("seed %d: no problem name: not a bpinn result", r.Seed)
	case r.Status == "":
		return fmt.Errorf("seed %d: no status: not a bpinn result", r.Seed)
	case r.Epochs < 0:
		return fmt.Errorf("seed %d: epochs = %d", r.Seed, r.Epochs)
	}
	return nil
}

// ReadResults reads a JSONL file of results. A torn last line is ignored and
// reported; any other bad line is an error naming the file and line.
func ReadResults(path string) (rs []Result, tornLine bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	rs, _, tornLine, err = DecodeResults(data)
	if err != nil {
		return nil, tornLine, fmt.Errorf("%s: %v", path, err)
	}
	return rs, tornLine, nil
}

// OpenAppend opens path for appending results (creating it if needed),
// after reading its records and truncating a torn last line away. It returns
// the records already there and whether a torn line was cut.
func OpenAppend(path string) (f *os.File, rs []Result, tornLine bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, false, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, nil, false, err
	}
	rs, complete, tornLine, err := DecodeResults(data)
	if err != nil {
		f.Close()
		return nil, nil, tornLine, fmt.Errorf("%s: %v", path, err)
	}
	if complete < len(data) {
		if err := f.Truncate(int64(complete)); err != nil {
			f.Close()
			return nil, nil, tornLine, err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, tornLine, err
		}
	}
	if _, err := f.Seek(int64(complete), io.SeekStart); err != nil {
		f.Close()
		return nil, nil, tornLine, err
	}
	return f, rs, tornLine, nil
}

// MergeResults joins sets of results into one, sorted by seed. Duplicates of
// a seed that agree apart from Seconds are kept once (the first seen);
// duplicates that disagree, and records of different RunConfigs, are errors.
func MergeResults(sets ...[]Result) ([]Result, error) {
	bySeed := map[uint64]Result{}
	var cfg *RunConfig
	for _, set := range sets {
		for _, r := range set {
			if cfg == nil {
				c := r.RunConfig
				cfg = &c
			} else if d := r.RunConfig.Diff(*cfg); d != "" {
				return nil, fmt.Errorf("seed %d was run with another configuration than seed %d (%s): results of different runs cannot be merged",
					r.Seed, bySeedFirst(bySeed), d)
			}
			if old, ok := bySeed[r.Seed]; ok {
				if !SameApartFromSeconds(old, r) {
					return nil, fmt.Errorf("seed %d appears twice with different results", r.Seed)
				}
				continue
			}
			bySeed[r.Seed] = r
		}
	}
	out := make([]Result, 0, len(bySeed))
	for _, r := range bySeed {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seed < out[j].Seed })
	return out, nil
}

// MergeFiles reads the JSONL files of an ensemble's shards and merges them
// with MergeResults, one file at a time so that an error names the file
// that does not match. torn lists the files that end in a torn line (a
// killed shard), whose complete lines are merged. No fit in any file is an
// error.
func MergeFiles(paths []string) (merged []Result, torn []string, err error) {
	for i, path := range paths {
		rs, t, err := ReadResults(path)
		if err != nil {
			return nil, nil, err
		}
		if t {
			torn = append(torn, path)
		}
		if merged, err = MergeResults(merged, rs); err != nil {
			if i == 0 {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			return nil, nil, fmt.Errorf("%s does not match %s: %w", path, strings.Join(paths[:i], ", "), err)
		}
	}
	if len(merged) == 0 {
		return nil, nil, fmt.Errorf("no fits in %s", strings.Join(paths, ", "))
	}
	return merged, torn, nil
}

// MarshalLines is rs as JSON lines, one per result, in their order.
func MarshalLines(rs []Result) ([]byte, error) {
	var data []byte
	for i := range rs {
		line, err := rs[i].MarshalLine()
		if err != nil {
			return nil, err
		}
		data = append(data, line...)
	}
	return data, nil
}

func bySeedFirst(m map[uint64]Result) uint64 {
	first := true
	var s uint64
	for k := range m {
		if first || k < s {
			s, first = k, false
		}
	}
	return s
}

// HistBin is one bin of the relative-log-evidence histogram: fits with
// Lo < ln Z - max ln Z <= Hi.
type HistBin struct {
	Lo, Hi float64 // Lo may be -Inf
	Count  int
}

// RelEvidenceEdges are the histogram's bin edges in nats below the best fit.
var RelEvidenceEdges = []float64{0, -1, -2, -5, -10, -20, -50, -100, math.Inf(-1)}

// SummaryEntry is one ranked fit.
type SummaryEntry struct {
	Seed        uint64
	Status      string
	LogEvidence float64 // NaN when undefined
	RelL2       float64 // NaN when undefined
	Coverage    float64 // NaN when undefined
	Residuals   string  // Result.ResidualLine
}

// Summary ranks a set of results by log evidence.
type Summary struct {
	Problem   string
	N         int            // fits
	Statuses  map[string]int // fits per status
	Ranked    []SummaryEntry // by decreasing log evidence, undefined last, ties by seed
	WithZ     int            // fits with a defined log evidence
	Best      *SummaryEntry  // best by evidence, nil when no fit has one
	BestError *SummaryEntry  // lowest rel L2 (for comparison), nil when none
	RelLogZ   []float64      // ln Z - max ln Z of the fits with evidence, in rank order
	Histogram []HistBin
	// Spearman is the rank correlation between log evidence and the true
	// rel L2 over fits where both are defined (NaN with fewer than 3).
	// Strongly negative means higher evidence goes with lower error: the
	// evidence is a good selector.
	Spearman  float64
	SpearmanN int
}

// Summarize ranks results (deduplicated by MergeResults first, so the
// summary depends only on the set of records).
func Summarize(rs []Result) (Summary, error) {
	rs, err := MergeResults(rs)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{N: len(rs), Statuses: map[string]int{}, Spearman: math.NaN()}
	if len(rs) > 0 {
		s.Problem = rs[0].Problem
	}
	byseed := map[uint64]SummaryEntry{}
	ranked := make([]Ranked, len(rs))
	var z, e []float64
	for i := range rs {
		r := &rs[i]
		s.Statuses[r.Status]++
		en := SummaryEntry{Seed: r.Seed, Status: r.Status, LogEvidence: Val(r.LogEvidence), RelL2: r.RelL2(), Coverage: r.Coverage(), Residuals: r.ResidualLine()}
		byseed[r.Seed] = en
		ranked[i] = Ranked{Seed: r.Seed, LogEvidence: en.LogEvidence, Error: en.RelL2}
		z, e = append(z, en.LogEvidence), append(e, en.RelL2)
		if !math.IsNaN(en.RelL2) && (s.BestError == nil || en.RelL2 < s.BestError.RelL2) {
			c := en
			s.BestError = &c
		}
	}
	for _, r := range Rank(ranked) {
		s.Ranked = append(s.Ranked, byseed[r.Seed])
	}
	if len(s.Ranked) > 0 && !math.IsNaN(s.Ranked[0].LogEvidence) {
		best := s.Ranked[0]
		s.Best = &best
		for _, en := range s.Ranked {
			if math.IsNaN(en.LogEvidence) {
				break
			}
			s.WithZ++
			s.RelLogZ = append(s.RelLogZ, en.LogEvidence-best.LogEvidence)
		}
	}
	for k := 0; k+1 < len(RelEvidenceEdges); k++ {
		b := HistBin{Hi: RelEvidenceEdges[k], Lo: RelEvidenceEdges[k+1]}
		for _, d := range s.RelLogZ {
			if d > b.Lo && d <= b.Hi {
				b.Count++
			}
		}
		s.Histogram = append(s.Histogram, b)
	}
	s.Spearman = Spearman(z, e)
	for i := range z {
		if !math.IsNaN(z[i]) && !math.IsNaN(e[i]) {
			s.SpearmanN++
		}
	}
	return s, nil
}

// Verdict says in words whether the evidence selects good fits.
func (s Summary) Verdict() string {
	rho := s.Spearman
	switch {
	case math.IsNaN(rho):
		return "undefined (fewer than 3 fits with both evidence and error): no verdict on the evidence as a selector"
	case rho <= -0.5:
		return "strongly negative: higher evidence goes with lower error, the evidence is a good selector"
	case rho < -0.2:
		return "weakly negative: the evidence is a weak selector"
	case rho <= 0.2:
		return "near zero: the evidence does not select fits by error here"
	default:
		return "positive: higher evidence goes with higher error, the evidence is a bad selector here"
	}
}

// WriteText prints the summary for people. It depends only on the records,
// never on timings, so two runs over the same records print the same bytes.
func (s Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ensemble of %d fits", s.N)
	if s.Problem != "" {
		fmt.Fprintf(&b, " (%s)", s.Problem)
	}
	b.WriteString("\nstatus:")
	keys := make([]string, 0, len(s.Statuses))
	for k := range s.Statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, s.Statuses[k])
	}
	b.WriteString("\n")
	if s.Best == nil {
		b.WriteString("best by evidence: none (no fit has a defined log evidence)\n")
	} else {
		fmt.Fprintf(&b, "best by evidence: seed %d  ln Z = %s  rel L2 = %s  coverage(2 sigma) = %s\n",
			s.Best.Seed, fmtNum(s.Best.LogEvidence, "%.6g"), fmtNum(s.Best.RelL2, "%.4g"), fmtNum(s.Best.Coverage, "%.3f"))
		if s.Best.Residuals != "" {
			fmt.Fprintf(&b, "  its rms residual, training -> fresh points: %s\n", s.Best.Residuals)
		}
	}
	if s.BestError != nil {
		fmt.Fprintf(&b, "lowest error:     seed %d  ln Z = %s  rel L2 = %s\n",
			s.BestError.Seed, fmtNum(s.BestError.LogEvidence, "%.6g"), fmtNum(s.BestError.RelL2, "%.4g"))
	}
	fmt.Fprintf(&b, "relative log evidence ln Z - max ln Z (%d fits with evidence):\n", s.WithZ)
	maxC := 0
	for _, h := range s.Histogram {
		maxC = max(maxC, h.Count)
	}
	for _, h := range s.Histogram {
		lo := fmt.Sprintf("%g", h.Lo)
		if math.IsInf(h.Lo, -1) {
			lo = "-inf"
		}
		bar := ""
		if maxC > 0 {
			bar = strings.Repeat("#", (h.Count*40+maxC-1)/maxC)
		}
		fmt.Fprintf(&b, "  (%5s, %4g] %4d %s\n", lo, h.Hi, h.Count, bar)
	}
	fmt.Fprintf(&b, "spearman rho(ln Z, rel L2) = %s over %d fits: %s\n", fmtNum(s.Spearman, "%.3f"), s.SpearmanN, s.Verdict())
	b.WriteString("top fits by evidence:\n")
	for i, en := range s.Ranked {
		if i == 10 {
			fmt.Fprintf(&b, "  ... %d more\n", len(s.Ranked)-10)
			break
		}
		fmt.Fprintf(&b, "  %2d. seed %-6d ln Z = %-12s rel L2 = %-10s coverage = %-6s %s\n", i+1, en.Seed,
			fmtNum(en.LogEvidence, "%.6g"), fmtNum(en.RelL2, "%.4g"), fmtNum(en.Coverage, "%.3f"), en.Status)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtNum(x float64, f string) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf(f, x)
}
