package record_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math"
	"runtime"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/record"
	"github.com/evidence-pinn/bpinn/testsupport/testfit"
)

// weightsHash is FNV-1a over the bits of w: a fit's weights in one number.
func weightsHash(w []float64) uint64 {
	h := fnv.New64a()
	for _, v := range w {
		_ = binary.Write(h, binary.LittleEndian, math.Float64bits(v))
	}
	return h.Sum64()
}

// A paper problem under its schedule fits unmapped, the same bits as
// before the maps existed (the golden numbers are that code's, for this
// fit), and records no map: no Scale setting, no map in the weights.
func TestShippedScheduleUnmapped(t *testing.T) {
	t.Parallel()
	f := testfit.Train(t, "heat", bayes.Settings{Seed: 1, Epochs: 400})
	const (
		goldenWeights  = 0xe50748a4c0cd239b
		goldenEvidence = 0x40740334e98db3c2
	)
	if f.Settings.Scale != bayes.ScaleNone || f.Model.Net.Mapped() {
		t.Errorf("heat under its schedule: scale %q, mapped %v; want none, unmapped", f.Settings.Scale, f.Model.Net.Mapped())
	}
	// The golden bits are amd64's (pkg/ad's assembly kernels round as they do).
	if h, e := weightsHash(f.Model.Net.W), math.Float64bits(f.Laplace.LogEvidence); runtime.GOARCH == "amd64" && (h != goldenWeights || e != goldenEvidence) {
		t.Errorf("weights %#x, log evidence bits %#x; want %#x, %#x (the fit before the maps)", h, e, uint64(goldenWeights), uint64(goldenEvidence))
	}
	r := record.NewResult(f, 10)
	if _, ok := r.Settings["Scale"]; ok {
		t.Errorf("the record's settings hold Scale %v; want none recorded", r.Settings["Scale"])
	}
	b, err := json.Marshal(r.Weights)
	if err != nil || bytes.Contains(b, []byte("shift")) {
		t.Errorf("the record's weights (error %v) hold a map: %.200s", err, b)
	}
}
