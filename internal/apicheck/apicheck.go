// Package apicheck finds the gaps in a Go package's API reference: an
// exported name without a doc comment, a package without a package comment,
// a package without a runnable example. Its test runs it on every package
// under pkg/ and nb/, so `go doc` on each reads as a manual.
package apicheck

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Packages lists the directories under root (itself included) that hold
// non-test Go files, as slash-separated paths relative to root, sorted.
func Packages(root string) ([]string, error) {
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			seen[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs, err
}

// Check parses the Go files of dir (tests included, for the examples) and
// returns one line per gap, each naming the file position and what is
// missing.
func Check(dir string) ([]string, error) {
	fset := token.NewFileSet()
	p, own, err := parseDir(fset, dir)
	if err != nil {
		return nil, err
	}
	var gaps []string
	add := func(pos token.Pos, format string, args ...any) {
		gaps = append(gaps, fmt.Sprintf("%s: %s", fset.Position(pos), fmt.Sprintf(format, args...)))
	}
	if strings.TrimSpace(p.Doc) == "" {
		add(own.Package, "package %s has no package doc comment (write one in doc.go)", p.Name)
	}
	if !hasRunnableExample(p) {
		add(own.Package, "package %s has no runnable Example (an Example function with an // Output: comment in a _test.go file)", p.Name)
	}
	checkNames(p, add)
	return gaps, nil
}

// parseDir parses the Go files of dir into the documentation of its
// package and returns one of the package's own (non-test) files.
func parseDir(fset *token.FileSet, dir string) (*doc.Package, *ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	// The package is named by its own files; its tests (the external
	// name_test package too) contribute only examples.
	var own *ast.File
	for _, f := range files {
		if !strings.HasSuffix(fset.Position(f.Package).Filename, "_test.go") {
			own = f
			break
		}
	}
	if own == nil {
		return nil, nil, fmt.Errorf("%s: no non-test Go files", dir)
	}
	p, err := doc.NewFromFiles(fset, files, own.Name.Name)
	return p, own, err
}

// checkNames adds a gap for each exported name of p without a doc comment.
func checkNames(p *doc.Package, add func(pos token.Pos, format string, args ...any)) {
	checkValues := func(vs []*doc.Value) {
		for _, v := range vs {
			if v.Doc != "" {
				continue // a group's comment documents all its names
			}
			for _, s := range v.Decl.Specs {
				vs := s.(*ast.ValueSpec)
				if vs.Doc != nil || vs.Comment != nil {
					continue
				}
				for _, n := range vs.Names {
					if n.IsExported() {
						add(n.Pos(), "%s has no doc comment", n.Name)
					}
				}
			}
		}
	}
	checkFuncs := func(fs []*doc.Func) {
		for _, f := range fs {
			if f.Doc == "" {
				name := f.Name
				if f.Recv != "" {
					name = strings.TrimPrefix(f.Recv, "*") + "." + f.Name
				}
				add(f.Decl.Pos(), "%s has no doc comment", name)
			}
		}
	}
	checkValues(p.Consts)
	checkValues(p.Vars)
	checkFuncs(p.Funcs)
	for _, t := range p.Types {
		if t.Doc == "" {
			add(t.Decl.Pos(), "type %s has no doc comment", t.Name)
		}
		checkValues(t.Consts)
		checkValues(t.Vars)
		checkFuncs(t.Funcs)
		checkFuncs(t.Methods)
	}
}

// hasRunnableExample reports whether any example of p, wherever go/doc
// attached it, has an output comment, i.e. is run by go test.
func hasRunnableExample(p *doc.Package) bool {
	runnable := func(es []*doc.Example) bool {
		for _, e := range es {
			if e.Output != "" || e.EmptyOutput {
				return true
			}
		}
		return false
	}
	if runnable(p.Examples) {
		return true
	}
	for _, f := range p.Funcs {
		if runnable(f.Examples) {
			return true
		}
	}
	for _, t := range p.Types {
		if runnable(t.Examples) {
			return true
		}
		for _, f := range append(append([]*doc.Func{}, t.Funcs...), t.Methods...) {
			if runnable(f.Examples) {
				return true
			}
		}
	}
	return false
}
