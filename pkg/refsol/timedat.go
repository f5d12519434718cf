package refsol

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TimeTable is a time-dependent reference read from a PINNacle .dat file
// of one field in two space dimensions: the nodes (x, y), the times of the
// columns and u at every node and time (U[node][time]).
type TimeTable struct {
	Nodes [][2]float64
	Times []float64
	U     [][]float64
}

// ReadTimeDat reads PINNacle's (COMSOL's) export of one field over time:
// rows x y u(t_1) ... u(t_m), the times read from the last comment line
// whose columns are labelled "... @ t=T" (the header PINNacle's
// trans_time_data_to_dataset reads). Every data row must have m values.
func ReadTimeDat(r io.Reader) (*TimeTable, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("refsol: reading the reference: %w", err)
	}
	tab, err := ReadDat(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	times, err := headerTimes(string(raw))
	if err != nil {
		return nil, err
	}
	if len(times) != len(tab.Values[0]) {
		return nil, fmt.Errorf("refsol: the header labels %d times, the rows hold %d values; a time reference has one value per labelled time", len(times), len(tab.Values[0]))
	}
	return &TimeTable{Nodes: tab.Points, Times: times, U: tab.Values}, nil
}

// ReadTimeDatFile reads a file by ReadTimeDat; errors name the file.
func ReadTimeDatFile(path string) (*TimeTable, error) { return readFile(path, ReadTimeDat) }

// headerTimes returns the times of the last comment line with "@" labels.
func headerTimes(text string) ([]float64, error) {
	var times []float64
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "%") || !strings.Contains(line, "@") {
			continue
		}
		labels := strings.Split(line, "@")[1:]
		ts := make([]float64, len(labels))
		for i, l := range labels {
			at := strings.Index(l, "t=")
			if at < 0 {
				return nil, fmt.Errorf("refsol: header label %q has no t=; label each column \"u @ t=T\"", strings.TrimSpace(l))
			}
			v, err := strconv.ParseFloat(strings.Fields(l[at+2:])[0], 64)
			if err != nil {
				return nil, fmt.Errorf("refsol: header label %q: the time is not a number", strings.TrimSpace(l))
			}
			ts[i] = v
		}
		times = ts
	}
	if times == nil {
		return nil, fmt.Errorf("refsol: no header line labels the columns' times (\"u @ t=T\"); this is not a time-dependent COMSOL export")
	}
	return times, nil
}

// Rows returns the table as PINNacle's test set: one row (x, y, t) per
// node and time, node by node with time fastest, and u at each.
func (t *TimeTable) Rows() (pts [][]float64, u []float64) {
	for i, n := range t.Nodes {
		for j, tm := range t.Times {
			pts = append(pts, []float64{n[0], n[1], tm})
			u = append(u, t.U[i][j])
		}
	}
	return pts, u
}
