package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// ReadFit reads the fit of the given seed (0: the only one) from a file
// holding one JSON result (bpinn fit --json) or JSON lines of them (an
// ensemble's). Its errors say what the file holds instead.
func ReadFit(path string, seed uint64) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rs []Result
	var one Result
	if err := json.Unmarshal(data, &one); err == nil {
		rs = []Result{one}
	} else if rs, _, _, err = DecodeResults(append(bytes.TrimSpace(data), '\n')); err != nil {
		return nil, fmt.Errorf("%s: not a bpinn record (bpinn fit --json or ensemble JSONL): %v", path, err)
	}
	var found []Result
	for _, r := range rs {
		if seed == 0 || r.Seed == seed {
			found = append(found, r)
		}
	}
	switch {
	case len(found) == 1 && found[0].Problem != "":
		return &found[0], nil
	case len(rs) == 0 || len(found) == 1:
		return nil, fmt.Errorf("%s: no fit in the file (bpinn fit --json writes one)", path)
	case len(found) == 0:
		return nil, fmt.Errorf("%s: no fit of seed %d among its %d", path, seed, len(rs))
	}
	return nil, fmt.Errorf("%s: %d fits; pick one with --seed", path, len(found))
}

// Truths are the true values of the unknowns the record keeps (those of a
// problem whose data were made from known coefficients).
func (r *Result) Truths() map[string]float64 {
	t := map[string]float64{}
	for name, u := range r.Unknowns {
		if u.Truth != nil && !math.IsNaN(*u.Truth) {
			t[name] = *u.Truth
		}
	}
	return t
}
