package apicheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPIReference fails for every package under pkg/ (the library) and
// nb/ (the notebooks' helpers) with an exported name lacking a doc comment,
// no package comment or no runnable example; it walks the directories, so a
// new package is checked as soon as it exists.
func TestAPIReference(t *testing.T) {
	for _, top := range []struct {
		dir   string
		least int // packages the walk must find, so it cannot pass by finding none
	}{{"pkg", 5}, {"nb", 1}} {
		root := filepath.Join("..", "..", top.dir)
		dirs, err := Packages(root)
		if err != nil {
			t.Fatal(err)
		}
		if len(dirs) < top.least {
			t.Fatalf("found only %d packages under %s: %v", len(dirs), root, dirs)
		}
		for _, d := range dirs {
			gaps, err := Check(filepath.Join(root, d))
			if err != nil {
				t.Errorf("%s/%s: %v", top.dir, d, err)
				continue
			}
			for _, g := range gaps {
				t.Errorf("%s", g)
			}
		}
	}
}

// TestCheckFindsGaps runs Check on a package built to miss everything, so
// the walk above cannot pass by checking nothing.
func TestCheckFindsGaps(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", `package a

const C = 1

// Grouped are documented by their group's comment.
const (
	G1 = 1
	G2 = 2
)

var (
	V = 1
	W = 2 // W has a line comment.
)

func F() {}

type T struct{}

func NewT() T { return T{} }

func (T) M() {}

// U is documented, its method is not.
type U int

func (*U) N() {}

func unexported() {}
`)
	write("a_test.go", `package a_test

func ExampleF() {}
`)
	gaps, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(gaps, "\n")
	for _, want := range []string{"no package doc comment", "no runnable Example", "C has no", "V has no", "F has no", "type T has no", "NewT has no", "T.M has no", "U.N has no"} {
		if !strings.Contains(all, want) {
			t.Errorf("gaps lack %q:\n%s", want, all)
		}
	}
	for _, not := range []string{"G1", "G2", "W has", "unexported", "type U"} {
		if strings.Contains(all, not) {
			t.Errorf("gaps name %q, which is documented or unexported:\n%s", not, all)
		}
	}
	if len(gaps) != 9 {
		t.Errorf("got %d gaps, want 9:\n%s", len(gaps), all)
	}

	write("doc.go", "// Package a is documented.\npackage a\n")
	write("a_test.go", "package a_test\n\nfunc ExampleF() {\n\t// Output:\n}\n")
	gaps, err = Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	all = strings.Join(gaps, "\n")
	if strings.Contains(all, "package") {
		t.Errorf("a package comment and a runnable example still reported:\n%s", all)
	}
}
