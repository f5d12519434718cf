package nbtime

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// cell is a notebook whose one markdown cell's source is lines.
func cell(lines ...string) []byte {
	var q []string
	for _, l := range lines {
		q = append(q, `"`+strings.ReplaceAll(l, "\n", `\n`)+`"`)
	}
	return []byte(`{"cells": [{"cell_type": "code", "source": "x := 1"}, {"cell_type": "markdown", "source": [` + "\n    " + strings.Join(q, ",\n    ") + "\n   ]}]}")
}

func TestStated(t *testing.T) {
	for _, c := range []struct {
		nb   []byte
		want time.Duration
	}{
		{cell("In quick mode this notebook runs in about 15 s on 2 cores."), 15 * time.Second},
		{cell("Intro. In quick mode this\n", "notebook runs in about 2 minutes."), 2 * time.Minute},
		{cell("In quick mode this notebook runs in\n", "about 1 minute"), time.Minute},
		{cell("in quick mode this notebook runs in about 40 seconds"), 40 * time.Second},
	} {
		got, err := Stated(c.nb)
		if err != nil || got != c.want {
			t.Errorf("Stated(%s) = %v, %v; want %v", c.nb, got, err, c.want)
		}
	}
	for _, nb := range [][]byte{cell("It runs fast."), []byte(`{"cells": [{"cell_type": "code", "source": "// In quick mode this notebook runs in about 5 s"}]}`)} {
		if _, err := Stated(nb); !errors.Is(err, ErrNone) {
			t.Errorf("Stated(%s): %v, want ErrNone", nb, err)
		}
	}
	if _, err := Stated([]byte("{")); err == nil {
		t.Error("Stated of a broken file: no error")
	}
}

func TestPhrase(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second:           "5 s",
		12 * time.Second:      "10 s",
		13 * time.Second:      "15 s",
		70 * time.Second:      "70 s",
		89 * time.Second:      "90 s",
		95 * time.Second:      "2 minutes",
		150 * time.Second:     "3 minutes",
		20*time.Minute + 10e9: "20 minutes",
	} {
		if got := Phrase(d); got != want {
			t.Errorf("Phrase(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestOff(t *testing.T) {
	s := 15 * time.Second
	for m, want := range map[time.Duration]bool{15 * time.Second: false, 30 * time.Second: false, 31 * time.Second: true, 7 * time.Second: true, 8 * time.Second: false} {
		if got := Off(s, m, 2); got != want {
			t.Errorf("Off(%v, %v, 2) = %v, want %v", s, m, got, want)
		}
	}
}

// TestRewrite: the statement, split across two lines of the file or not,
// says the new time and the file is otherwise unchanged.
func TestRewrite(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{cell("In quick mode this notebook runs in about 15 s on 2 cores."), cell("In quick mode this notebook runs in about 70 s on 2 cores.")},
		{cell("A. In quick mode this notebook runs\n", "in about 2 minutes on 2 cores."), cell("A. In quick mode this notebook runs\n", "in about 70 s on 2 cores.")},
	} {
		got, err := Rewrite(c.in, 68*time.Second)
		if err != nil || string(got) != string(c.want) {
			t.Errorf("Rewrite:\n%s\n%v\nwant:\n%s", got, err, c.want)
		}
		if d, err := Stated(got); err != nil || d != 70*time.Second {
			t.Errorf("Stated(Rewrite(...)) = %v, %v; want 70s", d, err)
		}
	}
	if _, err := Rewrite(cell("no statement"), time.Second); err == nil {
		t.Error("Rewrite without a statement: no error")
	}
}

// TestRuns: what Append writes, ReadRuns reads back; a line that is not a
// run is an error naming it.
func TestRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "times.jsonl")
	want := []Run{{"a.ipynb", 12.5, 20}, {"b.ipynb", 70, 45.7}}
	for _, r := range want {
		if err := Append(path, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadRuns(path)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ReadRuns: %v, %v; want %v", got, err, want)
	}
	os.WriteFile(path, []byte("{}\n"), 0o644)
	if _, err := ReadRuns(path); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("ReadRuns of a line without a notebook: %v", err)
	}
}
