package layercheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

const root = "../.."

// below lists, for each top-level tree of the module's Go packages, the
// trees its non-test files may import besides its own. A tree without a
// row is an error: a new tree states where it stands.
var below = map[string][]string{
	"internal":    nil,
	"pkg":         {"internal"},
	"testsupport": {"pkg", "internal"},
	"lab":         {"pkg", "internal", "testsupport"}, // experiment harnesses, apart from the library
	"nb":          {"pkg", "internal"},
	"scripts":     {"pkg", "internal"},
	"cmd":         {"pkg", "internal", "scripts"}, // scripts/slurm's sbatch files, embedded
}

// TestLayers fails for every non-test file that imports a tree its own
// tree may not (an arrow running back up), and for a tree with no row.
func TestLayers(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := modfile.ModulePath(src)
	files, err := sources(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tree := range []string{"internal", "pkg", "cmd"} {
		if !slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, tree+"/") }) {
			t.Fatalf("no Go file found under %s/ (%d files in all): is the walk broken?", tree, len(files))
		}
	}
	errs, err := violations(root, module, files, below)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Error(e)
	}
}

// TestViolationsFound runs the check on a made-up module whose low tree
// imports a higher one, so TestLayers cannot pass by reading nothing.
func TestViolationsFound(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("internal/low/low.go", "package low\n\nimport _ \"m/pkg/lib\"\n")
	write("internal/low/low_test.go", "package low\n\nimport _ \"m/cmd/tool\"\n") // tests may
	write("pkg/lib/lib.go", "package lib\n\nimport _ \"m/internal/low\"\n")
	write("cmd/tool/main.go", "package main\n\nimport _ \"m/pkg/lib\"\n")
	write("extra/x.go", "package x\n")
	write("tools/sub/go.mod", "module other\n")
	write("tools/sub/s.go", "package s\n\nimport _ \"m/cmd/tool\"\n") // another module
	files, err := sources(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cmd/tool/main.go", "extra/x.go", "internal/low/low.go", "pkg/lib/lib.go"}; !slices.Equal(files, want) {
		t.Fatalf("sources %q, want %q", files, want)
	}
	errs, err := violations(dir, "m", files, map[string][]string{"internal": nil, "pkg": {"internal"}, "cmd": {"pkg", "internal"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"extra/: a tree of Go packages with no row in below: add one naming the trees it may import",
		`internal/low/low.go imports m/pkg/lib: internal/ may import only its own packages (an arrow running back up)`,
	}
	if !slices.Equal(errs, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
}

// sources returns the non-test Go files of the module at root, slash
// paths relative to it, sorted; folders named testdata or starting with .
// or _, and nested modules, are not the module's.
func sources(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// violations returns, for files (relative to root) of the module, each
// import of a tree that the file's tree may not import by rules, and each
// tree with no rule.
func violations(root, module string, files []string, rules map[string][]string) ([]string, error) {
	var errs []string
	noRule := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		tree, _, ok := strings.Cut(f, "/")
		if !ok {
			continue // a file at the root is the module's main package, if any: no tree
		}
		allowed, ok := rules[tree]
		if !ok {
			if !noRule[tree] {
				noRule[tree] = true
				errs = append(errs, fmt.Sprintf("%s/: a tree of Go packages with no row in below: add one naming the trees it may import", tree))
			}
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, spec := range file.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return nil, err
			}
			rest, ok := strings.CutPrefix(path, module+"/")
			if !ok {
				continue
			}
			to, _, _ := strings.Cut(rest, "/")
			if to == tree || slices.Contains(allowed, to) {
				continue
			}
			may := "only its own packages"
			if len(allowed) > 0 {
				may = "only its own and " + strings.Join(allowed, "/, ") + "/"
			}
			errs = append(errs, fmt.Sprintf("%s imports %s: %s/ may import %s (an arrow running back up)", f, path, tree, may))
		}
	}
	return errs, nil
}
