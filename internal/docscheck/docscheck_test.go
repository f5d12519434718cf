package docscheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/scripts/docfig"
)

// root is the repository, from this package's folder.
const root = "../.."

// docs are the pages whose names are checked, relative to root: those
// whose quoted figures scripts/docfig checks.
func docs(t *testing.T) []string {
	t.Helper()
	pages, err := docfig.Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTestNames: every go test command of the Makefile and the docs names,
// with -run, -bench and -fuzz, functions its packages have.
func TestTestNames(t *testing.T) {
	idx := newFuncIndex()
	check := func(where string, c chunk) {
		for _, cmd := range goTestCommands(c.text) {
			for _, err := range idx.check(cmd) {
				t.Errorf("%s:%d: %s: %v", where, c.line, cmd.text, err)
			}
		}
	}
	for _, c := range makeRecipes(read(t, "Makefile")) {
		check("Makefile", c)
	}
	for _, page := range docs(t) {
		for _, c := range codeChunks(read(t, page)) {
			check(page, c)
		}
	}
	if len(idx.dirs) == 0 {
		t.Error("no go test command with a package found: is the parser broken?")
	}
}

// TestPaths: every path of this module's Go trees (tops) the docs mention
// exists.
func TestPaths(t *testing.T) {
	n := 0
	for _, page := range docs(t) {
		for i, line := range strings.Split(read(t, page), "\n") {
			for _, p := range modulePaths(line) {
				n++
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("%s:%d: %s does not exist", page, i+1, p)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no path found in the docs: is the parser broken?")
	}
}

// TestMakeTargets: every `make TARGET` the docs show is a Makefile target.
func TestMakeTargets(t *testing.T) {
	targets := makeTargets(read(t, "Makefile"))
	if !slices.Contains(targets, "test") {
		t.Fatalf("the Makefile's targets %q lack test: is the parser broken?", targets)
	}
	for _, page := range docs(t) {
		for _, c := range codeChunks(read(t, page)) {
			for _, m := range makeRE.FindAllStringSubmatch(c.text, -1) {
				if !slices.Contains(targets, m[1]) {
					t.Errorf("%s:%d: make %s: the Makefile has no target %s (it has %s)", page, c.line, m[1], m[1], strings.Join(targets, ", "))
				}
			}
		}
	}
}

// # Reading the pages

// A chunk is a piece of code in a page: an inline code span or a line of a
// fenced block (with its continuation lines), at its first line.
type chunk struct {
	line int
	text string
}

var (
	fenceRE  = regexp.MustCompile("^\\s*(```|~~~)")
	inlineRE = regexp.MustCompile("`([^`]+)`")
)

// codeChunks returns the code of a Markdown page: each line of its fenced
// blocks (a line ending in \ joined with the next) and each inline code
// span, which may run over a line break.
func codeChunks(md string) []chunk {
	lines := strings.Split(md, "\n")
	var res []chunk
	prose := make([]string, len(lines)) // the lines outside fences
	in := false
	for i := 0; i < len(lines); i++ {
		if fenceRE.MatchString(lines[i]) {
			in = !in
			continue
		}
		if !in {
			prose[i] = lines[i]
			continue
		}
		c := chunk{line: i + 1, text: lines[i]}
		for strings.HasSuffix(c.text, `\`) && i+1 < len(lines) {
			i++
			c.text = strings.TrimSuffix(c.text, `\`) + " " + lines[i]
		}
		res = append(res, c)
	}
	text := strings.Join(prose, "\n")
	for _, m := range inlineRE.FindAllStringSubmatchIndex(text, -1) {
		res = append(res, chunk{line: 1 + strings.Count(text[:m[0]], "\n"), text: strings.ReplaceAll(text[m[2]:m[3]], "\n", " ")})
	}
	return res
}

// makeRecipes returns the recipe lines of a Makefile, continuations joined
// and $$ read as $.
func makeRecipes(mk string) []chunk {
	lines := strings.Split(mk, "\n")
	var res []chunk
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "\t") {
			continue
		}
		c := chunk{line: i + 1, text: lines[i]}
		for strings.HasSuffix(c.text, `\`) && i+1 < len(lines) {
			i++
			c.text = strings.TrimSuffix(c.text, `\`) + " " + lines[i]
		}
		c.text = strings.ReplaceAll(c.text, "$$", "$")
		res = append(res, c)
	}
	return res
}

var targetRE = regexp.MustCompile(`(?m)^([A-Za-z][A-Za-z0-9_-]*)\s*:([^=]|$)`)

// makeTargets returns the targets a Makefile defines.
func makeTargets(mk string) []string {
	var res []string
	for _, m := range targetRE.FindAllStringSubmatch(mk, -1) {
		res = append(res, m[1])
	}
	return res
}

// makeRE matches make and a target as a command in code: at the start of a
// code span or line, after && or a prompt; the target not a flag. (An
// error message's "make them with ..." after a ; is prose.)
var makeRE = regexp.MustCompile(`(?:^\s*|&&\s*|\$\s+)make\s+([a-z][a-z0-9-]*)\b`)

var (
	tokenRE       = regexp.MustCompile(`[A-Za-z0-9_./@~-]+`)
	goIdentRE     = regexp.MustCompile(`\.[A-Z][A-Za-z0-9_.]*$`)
	placeholderRE = regexp.MustCompile(`/[A-Z]+$`)
)

// modulePaths returns the paths of this module a line mentions: those
// starting at one of tops, bare, after ./ or ../, or after the
// module's path; not another module's (golang.org/x/tools/cmd/...).
// Placeholders in capitals (pkg/NAME) are left out.
func modulePaths(line string) []string {
	var res []string
	for _, tok := range tokenRE.FindAllString(line, -1) {
		i := firstTop(tok)
		if i < 0 {
			continue
		}
		prefix := strings.TrimLeft(tok[:i], "./")
		if prefix != "" && !strings.HasSuffix(prefix, "evidence-pinn/bpinn/") {
			continue
		}
		p := strings.TrimRight(strings.TrimSuffix(tok[i:], "/..."), ".,-/")
		p = goIdentRE.ReplaceAllString(p, "") // internal/version.Version: a name in the package
		if placeholderRE.MatchString(p) {
			continue
		}
		res = append(res, p)
	}
	return res
}

// tops are the repository's folders of Go packages whose paths the docs
// name.
var tops = []string{"pkg/", "internal/", "cmd/", "nb/", "scripts/", "testsupport/", "lab/"}

// firstTop returns where tok's first segment of tops starts (at the start
// or after a /), or -1.
func firstTop(tok string) int {
	for i := 0; i < len(tok); i++ {
		if i > 0 && tok[i-1] != '/' {
			continue
		}
		for _, top := range tops {
			if strings.HasPrefix(tok[i:], top) && len(tok) > i+len(top) {
				return i
			}
		}
	}
	return -1
}

// # go test commands

// A goTest is a go test command's patterns and packages.
type goTest struct {
	text     string
	patterns map[string]string // by flag: run, bench, fuzz
	pkgs     []string          // ./pkg/bayes, ./pkg/...
}

// words splits shell text into words, quotes removed, stopping at an
// unquoted ;, &, |, #, <, > or backtick (the end of a command).
func words(s string) (ws []string, rest string) {
	var w strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				ws, inWord = append(ws, w.String()), false
				w.Reset()
			}
		case strings.IndexByte(";&|#<>`", c) >= 0:
			if inWord {
				ws = append(ws, w.String())
			}
			return ws, s[i:]
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		ws = append(ws, w.String())
	}
	return ws, ""
}

// goTestCommands finds the go test commands in a piece of code.
func goTestCommands(code string) []goTest {
	var res []goTest
	for {
		i := strings.Index(code, "go test")
		if i < 0 {
			return res
		}
		ws, rest := words(code[i+len("go test"):])
		g := goTest{text: strings.TrimSpace(code[i : len(code)-len(rest)]), patterns: map[string]string{}}
		for j := 0; j < len(ws); j++ {
			w := ws[j]
			if w == "-args" {
				break
			}
			if name, val, ok := strings.Cut(strings.TrimPrefix(w, "-"), "="); ok && strings.HasPrefix(w, "-") && isPatternFlag(name) {
				g.patterns[name] = val
				continue
			}
			if name := strings.TrimPrefix(strings.TrimPrefix(w, "-"), "test."); strings.HasPrefix(w, "-") && isPatternFlag(name) && j+1 < len(ws) {
				g.patterns[name] = ws[j+1]
				j++
				continue
			}
			if strings.HasPrefix(w, "./") {
				g.pkgs = append(g.pkgs, w)
			}
		}
		if len(g.patterns) > 0 && len(g.pkgs) > 0 {
			res = append(res, g)
		}
		code = rest
	}
}

func isPatternFlag(name string) bool { return name == "run" || name == "bench" || name == "fuzz" }

// kinds are the function name prefixes each flag matches.
var kinds = map[string][]string{
	"run":   {"Test", "Fuzz", "Example"},
	"bench": {"Benchmark"},
	"fuzz":  {"Fuzz"},
}

// funcIndex caches the test functions of package folders.
type funcIndex struct {
	dirs map[string][]string // folder relative to root -> test function names
}

func newFuncIndex() *funcIndex { return &funcIndex{dirs: map[string][]string{}} }

// funcs returns the Test, Benchmark, Fuzz and Example functions of the
// _test.go files in dir (relative to root), read with go/parser.
func (x *funcIndex) funcs(dir string) ([]string, error) {
	if f, ok := x.dirs[dir]; ok {
		return f, nil
	}
	files, err := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				names = append(names, fd.Name.Name)
			}
		}
	}
	x.dirs[dir] = names
	return names, nil
}

// packageDirs resolves a package argument (./pkg/bayes, ./pkg/...) to the
// folders under root that hold tests.
func packageDirs(pkg string) ([]string, error) {
	p := strings.TrimSuffix(strings.TrimPrefix(pkg, "./"), "/")
	base, all := strings.CutSuffix(p, "...")
	base = strings.TrimSuffix(base, "/")
	if base == "" {
		base = "."
	}
	if info, err := os.Stat(filepath.Join(root, base)); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("no package folder %s", pkg)
	}
	if !all {
		return []string{base}, nil
	}
	var dirs []string
	err := filepath.WalkDir(filepath.Join(root, base), func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); path != filepath.Join(root, base) && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		dirs = append(dirs, rel)
		return nil
	})
	return dirs, err
}

// check returns what is wrong with cmd's patterns: a package folder that
// does not exist, a pattern that does not compile, or an alternative of a
// pattern that matches no function of its kind in the packages.
func (x *funcIndex) check(cmd goTest) []error {
	var names []string
	var errs []error
	for _, pkg := range cmd.pkgs {
		dirs, err := packageDirs(pkg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range dirs {
			f, err := x.funcs(d)
			if err != nil {
				errs = append(errs, err)
			}
			names = append(names, f...)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	for _, flag := range []string{"run", "bench", "fuzz"} {
		pat, ok := cmd.patterns[flag]
		if !ok || pat == "^$" || strings.Contains(pat, "$(") || regexp.MustCompile(`\$[A-Za-z{]`).MatchString(pat) {
			continue
		}
		var have []string
		for _, n := range names {
			for _, k := range kinds[flag] {
				if strings.HasPrefix(n, k) {
					have = append(have, n)
				}
			}
		}
		for _, alt := range topLevel(firstLevel(pat), '|') {
			re, err := regexp.Compile(alt)
			if err != nil {
				errs = append(errs, fmt.Errorf("-%s %q: %v", flag, pat, err))
				continue
			}
			if !slices.ContainsFunc(have, re.MatchString) {
				errs = append(errs, fmt.Errorf("-%s %q: no %s function of %s matches %q: a stale name? (%s)",
					flag, pat, strings.Join(kinds[flag], "/"), strings.Join(cmd.pkgs, " "), alt, some(have)))
			}
		}
	}
	return errs
}

// some lists up to 8 names, for a message.
func some(names []string) string {
	switch {
	case len(names) == 0:
		return "it has none"
	case len(names) > 8:
		return "it has " + strings.Join(names[:8], ", ") + fmt.Sprintf(" and %d more", len(names)-8)
	}
	return "it has " + strings.Join(names, ", ")
}

// firstLevel is the part of a go test pattern before its first unbracketed
// /, which names top-level functions (the rest names subtests).
func firstLevel(pat string) string { return topLevel(pat, '/')[0] }

// topLevel splits s at sep outside parentheses and brackets.
func topLevel(s string, sep byte) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case sep:
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// TestParsers: the readers find commands, paths and targets where the
// pages write them, and the checker fails a stale name.
func TestParsers(t *testing.T) {
	md := "Run `go test -run\nTestA -v ./pkg/x` or:\n\n```sh\ngo test -run '^$' -fuzz '^FuzzB$' \\\n  -fuzztime 60s ./cmd/bpinn   # a fuzz\nmake fuzz\n```\n\nthen `make test`; see `band: make them` and pkg/record/jsonl.go, ../pkg/pde, golang.org/x/tools/cmd/goimports, internal/version.Version, `go doc ./pkg/NAME`, nb/nb.go, scripts/slurm, gonb/x.\n"
	var cmds []string
	for _, c := range codeChunks(md) {
		for _, g := range goTestCommands(c.text) {
			cmds = append(cmds, fmt.Sprintf("%d %v %v", c.line, g.patterns, g.pkgs))
		}
	}
	want := []string{"5 map[fuzz:^FuzzB$ run:^$] [./cmd/bpinn]", "1 map[run:TestA] [./pkg/x]"}
	if !slices.Equal(cmds, want) {
		t.Errorf("go test commands %q, want %q", cmds, want)
	}
	var targets []string
	for _, c := range codeChunks(md) {
		for _, m := range makeRE.FindAllStringSubmatch(c.text, -1) {
			targets = append(targets, m[1])
		}
	}
	if !slices.Equal(targets, []string{"fuzz", "test"}) {
		t.Errorf("make targets %q, want fuzz, test", targets)
	}
	var paths []string
	for _, l := range strings.Split(md, "\n") {
		paths = append(paths, modulePaths(l)...)
	}
	if want := []string{"pkg/x", "cmd/bpinn", "pkg/record/jsonl.go", "pkg/pde", "internal/version", "nb/nb.go", "scripts/slurm"}; !slices.Equal(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	if got := makeTargets("a: b\n\tcmd\nX := 1\nc-d:\n"); !slices.Equal(got, []string{"a", "c-d"}) {
		t.Errorf("makeTargets: %q", got)
	}

	idx := newFuncIndex()
	for _, c := range []struct {
		cmd   string
		stale bool
	}{
		{"go test -run '^$' -fuzz '^FuzzLoadNetwork$' ./cmd/bpinn", false},
		{"go test -run '^$' -fuzz '^FuzzExactInput$' ./cmd/bpinn", true},
		{"go test -run '^$' -fuzz '^FuzzReadResults$' ./pkg/bayes", true},
		{"go test -run '^$' -bench 'Fit(Heat|Wave)Inverse|Jacobian' ./pkg/bayes", false},
		{"go test -run '^$' -bench 'Fit(Heat|Wave)Inverse|NoSuch' ./pkg/bayes", true},
		{"go test -run 'TestKill/sub' ./internal/...", false},
		{"go test -run TestKill ./internal/nosuch", true},
	} {
		g := goTestCommands(c.cmd)
		if len(g) != 1 {
			t.Fatalf("%s: %d commands", c.cmd, len(g))
		}
		if errs := idx.check(g[0]); (len(errs) > 0) != c.stale {
			t.Errorf("%s: errors %v; want stale %v", c.cmd, errs, c.stale)
		}
	}
}
