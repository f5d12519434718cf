package depcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

const root = "../.."

// row returns the table row of docs/dependencies.md whose first cell is
// `name`, or "".
func row(doc, name string) string {
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "| `"+name+"` |") {
			return line
		}
	}
	return ""
}

func parseMod(t *testing.T, path string) *modfile.File {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// moduleOf returns the required module that provides the package path pkg
// (the longest module path that prefixes it).
func moduleOf(f *modfile.File, pkg string) *modfile.Require {
	var best *modfile.Require
	for _, r := range f.Require {
		p := r.Mod.Path
		if (pkg == p || strings.HasPrefix(pkg, p+"/")) && (best == nil || len(p) > len(best.Mod.Path)) {
			best = r
		}
	}
	return best
}

// TestDependenciesListed fails when docs/dependencies.md misses a direct
// dependency or a tool of the build, or lists it at another version: a new
// or upgraded dependency is a license to check.
func TestDependenciesListed(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, "docs", "dependencies.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	need := func(name, version, from string) {
		r := row(doc, name)
		switch {
		case r == "":
			t.Errorf("docs/dependencies.md has no row for %s (%s %s, from %s): add it with its license (read its LICENSE) and why we use it", name, name, version, from)
		case !strings.Contains(r, version):
			t.Errorf("docs/dependencies.md lists %s, but %s uses %s: check its license at that version and update the row", name, from, version)
		}
	}

	checked := 0
	for _, mod := range []string{"go.mod", "tools/gopls/go.mod"} {
		f := parseMod(t, mod)
		for _, r := range f.Require {
			if !r.Indirect {
				need(r.Mod.Path, r.Mod.Version, mod)
				checked++
			}
		}
		for _, tool := range f.Tool {
			r := moduleOf(f, tool.Path)
			if r == nil {
				t.Errorf("%s: no required module provides the tool %s", mod, tool.Path)
				continue
			}
			need(tool.Path, r.Mod.Version, mod)
			checked++
		}
	}

	setup, err := os.ReadFile(filepath.Join(root, "scripts", "setup.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ECHARTS_VERSION=(\S+)$`).FindSubmatch(setup)
	if m == nil {
		t.Fatal("scripts/setup.sh no longer sets ECHARTS_VERSION=...: update this test to where the echarts version lives")
	}
	need("echarts", string(m[1]), "scripts/setup.sh")
	checked++

	// go.mod's 6 direct modules, x/mod and 3 tools, gopls, echarts.
	if checked < 12 {
		t.Errorf("checked only %d dependencies: is go.mod parsed?", checked)
	}
}

// TestRowFindsOnlyFirstCells keeps row from matching a name mentioned in
// another row's prose, which would let a missing dependency pass.
func TestRowFindsOnlyFirstCells(t *testing.T) {
	doc := "| module | version |\n|---|---|\n| `a/b` | v1.0.0 | uses `c/d` |\n"
	if row(doc, "a/b") == "" {
		t.Error("row missed a/b")
	}
	for _, name := range []string{"c/d", "a", "b"} {
		if r := row(doc, name); r != "" {
			t.Errorf("row(%q) = %q, want none", name, r)
		}
	}
}
