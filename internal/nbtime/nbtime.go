// Package nbtime reads and rewrites the running time a notebook states for
// quick mode ("In quick mode this notebook runs in about 15 s"). The
// notebooks' test requires the statement; scripts/checkdocs measures it
// against a run. No test compares it with a clock: a busy machine would
// fail it.
package nbtime

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// sep is what may stand between two words of the statement in the .ipynb
// file: white space and the end of one JSON string of a cell's source and
// the start of the next.
const sep = `(?:\s|\\n"\s*,\s*")+`

// statedRE matches the statement in a markdown cell's text, its words
// separated by single spaces; rawRE matches it in the .ipynb file.
var (
	statedRE = regexp.MustCompile(`quick mode this notebook runs in about (\d+) (s|seconds|minutes?)\b`)
	rawRE    = regexp.MustCompile(`quick mode this notebook runs` + sep + `in` + sep + `about` + sep + `(\d+)` + sep + `(s|seconds|minutes?)\b`)
)

// ErrNone says that no markdown cell states the time.
var ErrNone = errors.New(`no markdown cell states the quick-mode time ("In quick mode this notebook runs in about N s"): time a quick run (make check-docs) and say it, so a student knows what to expect`)

// Stated returns the quick-mode running time that the notebook ipynb (the
// file's bytes) states in a markdown cell.
func Stated(ipynb []byte) (time.Duration, error) {
	var nb struct {
		Cells []struct {
			CellType string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(ipynb, &nb); err != nil {
		return 0, fmt.Errorf("not a notebook: %v", err)
	}
	for _, c := range nb.Cells {
		if c.CellType != "markdown" {
			continue
		}
		var lines []string
		if err := json.Unmarshal(c.Source, &lines); err != nil {
			var s string
			if err := json.Unmarshal(c.Source, &s); err != nil {
				continue
			}
			lines = []string{s}
		}
		text := strings.Join(strings.Fields(strings.Join(lines, "")), " ")
		if m := statedRE.FindStringSubmatch(text); m != nil {
			return parse(m[1], m[2]), nil
		}
	}
	return 0, ErrNone
}

func parse(n, unit string) time.Duration {
	v, _ := strconv.Atoi(n)
	if strings.HasPrefix(unit, "min") {
		return time.Duration(v) * time.Minute
	}
	return time.Duration(v) * time.Second
}

// Phrase is how a notebook states d: "N s" rounded to 5 s (at least 5 s)
// below 90 s, else "N minutes" rounded to the minute.
func Phrase(d time.Duration) string {
	if d < 90*time.Second {
		return fmt.Sprintf("%d s", max(5, 5*int(math.Round(d.Seconds()/5))))
	}
	return fmt.Sprintf("%d minutes", int(math.Round(d.Minutes())))
}

// Off reports whether measured is more than factor times stated, or less
// than stated over factor.
func Off(stated, measured time.Duration, factor float64) bool {
	s, m := stated.Seconds(), measured.Seconds()
	return m > factor*s || m < s/factor
}

// Rewrite returns the notebook ipynb with its statement changed to say
// measured (as Phrase does), the rest of the file byte for byte.
func Rewrite(ipynb []byte, measured time.Duration) ([]byte, error) {
	locs := rawRE.FindAllSubmatchIndex(ipynb, -1)
	if len(locs) != 1 {
		return nil, fmt.Errorf("the file holds %d statements of the quick-mode time, want 1", len(locs))
	}
	l := locs[0] // whole, number, unit
	n, unit, _ := strings.Cut(Phrase(measured), " ")
	var out []byte
	out = append(out, ipynb[:l[2]]...)
	out = append(out, n...)
	out = append(out, ipynb[l[3]:l[4]]...)
	out = append(out, unit...)
	return append(out, ipynb[l[5]:]...), nil
}

// A Run is one notebook's measured run, a line of the file BPINN_NB_TIMES
// names: notebooks_test.go appends it, scripts/checkdocs reads it.
type Run struct {
	Notebook string  `json:"notebook"` // its path relative to notebooks/
	Wall     float64 `json:"wall_s"`   // nbconvert's wall time, seconds
	CPU      float64 `json:"cpu_s"`    // its CPU time and its children's
}

// Append appends r to the file path as a JSON line.
func Append(path string, r Run) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadRuns reads the runs Append wrote to path.
func ReadRuns(path string) ([]Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []Run
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var r Run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Notebook == "" || r.Wall <= 0 {
			return nil, fmt.Errorf("%s:%d: not a notebook's run: %q", path, n, sc.Text())
		}
		rs = append(rs, r)
	}
	return rs, sc.Err()
}
