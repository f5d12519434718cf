package refsol

import (
	"strings"
	"testing"
)

func TestReadTimeDat(t *testing.T) {
	const file = "% Model: x\r\n% X   Y   u (K) @ t=0   u (K) @ t=0.5\r\n0 0 1 2\r\n0.5 1 3 4\r\n"
	tab, err := ReadTimeDat(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Times) != 2 || tab.Times[0] != 0 || tab.Times[1] != 0.5 {
		t.Fatalf("times %v, want [0 0.5]", tab.Times)
	}
	pts, u := tab.Rows()
	want := [][]float64{{0, 0, 0}, {0, 0, 0.5}, {0.5, 1, 0}, {0.5, 1, 0.5}}
	for i, p := range pts {
		for k := range p {
			if p[k] != want[i][k] {
				t.Fatalf("row %d: %v, want %v", i, p, want[i])
			}
		}
		if u[i] != float64(i+1) {
			t.Fatalf("row %d: u = %g, want %d", i, u[i], i+1)
		}
	}
	for _, bad := range []struct{ file, says string }{
		{"% X Y u\n0 0 1\n", "no header line"},
		{"% X Y u @ t=0 u @ t=1\n0 0 1\n", "labels 2 times"},
		{"% X Y u @ s=0\n0 0 1\n", "has no t="},
	} {
		if _, err := ReadTimeDat(strings.NewReader(bad.file)); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%q: error %v, want one saying %q", bad.file, err, bad.says)
		}
	}
}
