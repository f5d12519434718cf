package record_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/record"
)

// jsonlFake is a synthetic result with the given evidence and error (NaN:
// undefined) and a fixed RunConfig.
func jsonlFake(seed uint64, lnZ, rel float64) record.Result {
	r := record.Result{Seed: seed, Status: string(bayes.StatusOK), Epochs: 10, RunConfig: record.RunConfig{Problem: "heat", DataSeed: 1,
		Inputs: []string{"x", "t"}, Params: map[string]float64{"kappa": 0.1}, Architecture: []int{2, 6, 1}, EpochsPlan: 10},
		LogEvidence: record.Num(lnZ), Errors: &record.GridErrors{RelL2: record.Num(rel), Points: 4}, Seconds: float64(seed) / 7}
	if math.IsNaN(lnZ) {
		r.Status = string(bayes.StatusNotPD)
	}
	return r
}

func TestAppendReadTorn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "e.jsonl")
	f, rs, torn, err := record.OpenAppend(path)
	if err != nil || len(rs) != 0 || torn {
		t.Fatalf("OpenAppend(new) = %d results, torn %v, %v", len(rs), torn, err)
	}
	for s := uint64(1); s <= 3; s++ {
		if err := record.AppendResult(f, jsonlFake(s, float64(s), 0.1)); err != nil {
			t.Fatal(err)
		}
	}
	line, _ := (&record.Result{Seed: 9, Status: "ok", RunConfig: record.RunConfig{Problem: "heat"}}).MarshalLine()
	f.Write(line[:len(line)/2]) // a fit killed mid-write
	f.Close()

	rs, torn, err = record.ReadResults(path)
	if err != nil || len(rs) != 3 || !torn {
		t.Fatalf("ReadResults = %d results, torn %v, %v; want 3, true, nil", len(rs), torn, err)
	}
	f, rs, torn, err = record.OpenAppend(path)
	if err != nil || len(rs) != 3 || !torn {
		t.Fatalf("OpenAppend(torn) = %d results, torn %v, %v; want 3, true, nil", len(rs), torn, err)
	}
	if err := record.AppendResult(f, jsonlFake(4, 4, 0.1)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rs, torn, err = record.ReadResults(path)
	if err != nil || len(rs) != 4 || torn {
		t.Fatalf("after repair: %d results, torn %v, %v; want 4, false, nil", len(rs), torn, err)
	}
	for i, r := range rs {
		if r.Seed != uint64(i+1) {
			t.Errorf("record %d has seed %d, want %d", i, r.Seed, i+1)
		}
	}
}

func TestDecodeResultsErrors(t *testing.T) {
	t.Parallel()
	good, _ := (&record.Result{Seed: 1, Status: "ok", RunConfig: record.RunConfig{Problem: "heat"}}).MarshalLine()
	for _, c := range []struct {
		name, data, want string
	}{
		{"garbage", string(good) + "not json\n", "line 2"},
		{"no problem", string(good) + "{\"seed\":2,\"status\":\"ok\"}\n", "line 2: seed 2: no problem"},
		{"nan string", "{\"seed\":1,\"status\":\"ok\",\"problem\":\"heat\",\"log_evidence\":NaN}\n", "line 1"},
		{"bad weights", "{\"seed\":1,\"status\":\"ok\",\"problem\":\"heat\",\"weights\":{\"layers\":[]}}\n", "line 1"},
	} {
		_, _, _, err := record.DecodeResults([]byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	rs, complete, torn, err := record.DecodeResults([]byte("\n  \n" + string(good) + "\n"))
	if err != nil || len(rs) != 1 || torn || complete == 0 {
		t.Errorf("blank lines: %d results, torn %v, %v", len(rs), torn, err)
	}
}

func TestMergeResults(t *testing.T) {
	t.Parallel()
	a := []record.Result{jsonlFake(3, 1, 0.1), jsonlFake(1, 2, 0.2)}
	dup := jsonlFake(3, 1, 0.1)
	dup.Seconds = 99 // seconds may differ
	b := []record.Result{dup, jsonlFake(2, 0, 0.3)}
	m, err := record.MergeResults(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || m[0].Seed != 1 || m[1].Seed != 2 || m[2].Seed != 3 {
		t.Errorf("merged seeds %v, want 1 2 3", seedsOf(m))
	}
	bad := jsonlFake(3, 1.5, 0.1)
	if _, err := record.MergeResults(a, []record.Result{bad}); err == nil || !strings.Contains(err.Error(), "seed 3") {
		t.Errorf("conflicting duplicate: error %v, want one naming seed 3", err)
	}
	other := jsonlFake(7, 1, 0.1)
	other.EpochsPlan = 11
	if _, err := record.MergeResults(a, []record.Result{other}); err == nil || !strings.Contains(err.Error(), "configuration") || !strings.Contains(err.Error(), "(epochs_planned 11, not ") {
		t.Errorf("other run config: error %v, want a configuration error naming epochs_planned", err)
	}
}

// MergeFiles merges shard files one at a time: a torn file is named and
// its complete lines kept, a file of another run is named, and files
// without fits are an error; MarshalLines writes the merge back.
func TestMergeFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, rs ...record.Result) string {
		path := filepath.Join(dir, name)
		data, err := record.MarshalLines(rs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	other := jsonlFake(5, 1, 0.1)
	other.EpochsPlan = 11
	a, b := write("a.jsonl", jsonlFake(1, 1, 0.1), jsonlFake(3, 2, 0.2)), write("b.jsonl", jsonlFake(2, 3, 0.3))
	torn := write("torn.jsonl", jsonlFake(4, 4, 0.4))
	f, err := os.OpenFile(torn, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seed":6,"sta`)
	f.Close()
	m, tornFiles, err := record.MergeFiles([]string{a, b, torn})
	if err != nil || !slices.Equal(seedsOf(m), []uint64{1, 2, 3, 4}) || !slices.Equal(tornFiles, []string{torn}) {
		t.Errorf("merge: seeds %v, torn %v, %v; want 1-4, [%s], nil", seedsOf(m), tornFiles, err, torn)
	}
	if _, _, err := record.MergeFiles([]string{a, write("other.jsonl", other)}); err == nil || !strings.Contains(err.Error(), "other.jsonl does not match "+a) {
		t.Errorf("a file of another run: error %v, want one naming it", err)
	}
	if _, _, err := record.MergeFiles([]string{write("empty.jsonl")}); err == nil || !strings.Contains(err.Error(), "no fits in") {
		t.Errorf("no fits: error %v", err)
	}
}

func seedsOf(rs []record.Result) []uint64 {
	var s []uint64
	for _, r := range rs {
		s = append(s, r.Seed)
	}
	return s
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	// Evidence decreasing with error: a perfect selector (rho = -1).
	var rs []record.Result
	for i := uint64(1); i <= 6; i++ {
		rs = append(rs, jsonlFake(i, -3*float64(i), 0.1*float64(i)))
	}
	rs = append(rs, jsonlFake(7, math.NaN(), 0.05), jsonlFake(8, -3, 0.15)) // undefined evidence; a tie with seed 1
	rs[0].BetaNames = []string{"beta_pde", "beta_data"}
	rs[0].ResidualRMS = map[string]record.ResidualRMS{"beta_pde": {Train: record.Num(0.02), Fresh: record.Num(0.5)}, "beta_data": {Train: record.Num(0.1)}}
	s, err := record.Summarize(rs)
	if err != nil {
		t.Fatal(err)
	}
	if s.Best == nil || s.Best.Seed != 1 {
		t.Fatalf("best %+v, want seed 1 (ties by seed)", s.Best)
	}
	if got := s.Ranked[1].Seed; got != 8 {
		t.Errorf("second by evidence is seed %d, want 8 (tie with seed 1 broken by seed)", got)
	}
	if got := s.Ranked[len(s.Ranked)-1].Seed; got != 7 {
		t.Errorf("last ranked is seed %d, want 7 (undefined evidence last)", got)
	}
	if s.N != 8 || s.WithZ != 7 || s.Statuses[string(bayes.StatusOK)] != 7 || s.Statuses[string(bayes.StatusNotPD)] != 1 {
		t.Errorf("N %d WithZ %d statuses %v", s.N, s.WithZ, s.Statuses)
	}
	// ln Z - max: 0, 0, -3, -6, -9, -12, -15 -> bins (-1,0]:2 (-5,-2]:1 (-10,-5]:2 (-20,-10]:2.
	want := []int{2, 0, 1, 2, 2, 0, 0, 0}
	for k, b := range s.Histogram {
		if b.Count != want[k] {
			t.Errorf("bin (%g, %g]: %d fits, want %d", b.Lo, b.Hi, b.Count, want[k])
		}
	}
	if s.Spearman > -0.9 || !strings.Contains(s.Verdict(), "good selector") {
		t.Errorf("rho = %.3f (%s), want about -1 and a good selector", s.Spearman, s.Verdict())
	}
	if s.BestError == nil || s.BestError.Seed != 7 {
		t.Errorf("lowest error %+v, want seed 7", s.BestError)
	}
	// The printed summary depends on the set of records only.
	var a, b bytes.Buffer
	s.WriteText(&a)
	shuffled := append([]record.Result(nil), rs...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	s2, _ := record.Summarize(append(shuffled, rs[2]))
	s2.WriteText(&b)
	if a.String() != b.String() {
		t.Errorf("summary depends on order or duplicates:\n%s\nvs\n%s", a.String(), b.String())
	}
	for _, w := range []string{"best by evidence: seed 1", "spearman rho", "good selector", "ok=7",
		"its rms residual, training -> fresh points: pde 0.02 -> 0.5 (x25), data 0.1 -> n/a"} {
		if !strings.Contains(a.String(), w) {
			t.Errorf("summary lacks %q:\n%s", w, a.String())
		}
	}
	if empty, err := record.Summarize(nil); err != nil || empty.Best != nil || !math.IsNaN(empty.Spearman) {
		t.Errorf("empty summary: %+v, %v", empty, err)
	}
}

// FuzzReadResults checks that the JSONL loader never panics, reports a torn
// line only without a final newline, and that what it accepts survives a
// write and a second read unchanged.
func FuzzReadResults(f *testing.F) {
	good, _ := (&record.Result{Seed: 1, Status: "ok", RunConfig: record.RunConfig{Problem: "heat"}}).MarshalLine()
	f.Add(good)
	f.Add(append(append([]byte{}, good...), good[:10]...))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"seed":2,"status":"diverged","problem":"wave","log_evidence":null,"weights":{"layers":[{"W":[[1,2]],"b":[0]}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, complete, torn, err := record.DecodeResults(data)
		if complete < 0 || complete > len(data) || (complete > 0 && data[complete-1] != '\n') {
			t.Fatalf("complete = %d of %d bytes", complete, len(data))
		}
		if torn && complete == len(data) {
			t.Fatalf("torn with nothing after the last newline")
		}
		if err != nil {
			return
		}
		path := filepath.Join(t.TempDir(), "r.jsonl")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if err := record.AppendResult(out, r); err != nil {
				t.Fatalf("an accepted record does not write back: %v", err)
			}
		}
		out.Close()
		back, torn2, err := record.ReadResults(path)
		if err != nil || torn2 || len(back) != len(rs) {
			t.Fatalf("reread: %d of %d records, torn %v, %v", len(back), len(rs), torn2, err)
		}
		for i := range rs {
			x, _ := json.Marshal(&rs[i])
			y, _ := json.Marshal(&back[i])
			if !bytes.Equal(x, y) {
				t.Fatalf("record %d changed on a round trip:\n%s\n%s", i, x, y)
			}
		}
	})
}
