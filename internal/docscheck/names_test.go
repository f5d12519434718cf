package docscheck

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// history is the page of what was measured when: its commands and names
// are those of their time (docs/journal.md says so), so the checks of
// this file leave it out.
const history = "docs/journal.md"

// current are the pages that state the current code: the docs but the
// history.
func current(t *testing.T) []string {
	t.Helper()
	return slices.DeleteFunc(docs(t), func(p string) bool { return p == history })
}

// # Test binaries

// binaryRE matches a compiled test binary run as a command (./record.test,
// /tmp/bayes.test), not the -o of the go test -c that builds it.
var binaryRE = regexp.MustCompile(`(^|[\s;&|(])([A-Za-z0-9_./-]*?)([A-Za-z0-9_-]+)\.test(\s|$)`)

// buildRE matches go test -c -o FILE PACKAGE.
var buildRE = regexp.MustCompile(`go test -c -o (\S+?)\.test\s+(\./\S+)`)

// testBinaries returns, by file name without .test, the package each
// test binary a page builds comes from (go test -c -o NAME.test ./pkg/x).
func testBinaries(page string) map[string]string {
	bins := map[string]string{}
	for _, m := range buildRE.FindAllStringSubmatch(page, -1) {
		bins[filepath.Base(m[1])] = strings.Trim(m[2], "`'\"")
	}
	return bins
}

// binaryCommands finds the runs of compiled test binaries in a piece of
// code, each with the package the page builds it from (bins) or, when the
// page does not build it, the package folder of its name (go test -c
// names the binary after the package).
func binaryCommands(code string, bins map[string]string) []goTest {
	var res []goTest
	for _, m := range binaryRE.FindAllStringSubmatchIndex(code, -1) {
		if strings.HasSuffix(strings.TrimSpace(code[:m[0]+len(code[m[2]:m[3]])]), "-o") {
			continue // the file go test -c writes
		}
		name := code[m[6]:m[7]]
		ws, rest := words(code[m[7]+len(".test"):])
		g := goTest{text: strings.TrimSpace(code[m[4] : len(code)-len(rest)]), patterns: map[string]string{}}
		for j := 0; j < len(ws)-1; j++ {
			if f := strings.TrimPrefix(ws[j], "-test."); f != ws[j] && isPatternFlag(f) {
				g.patterns[f] = ws[j+1]
				j++
			}
		}
		if len(g.patterns) == 0 {
			continue
		}
		pkg, ok := bins[name]
		if !ok {
			pkg = "./" + packageNamed(name)
		}
		g.pkgs = []string{pkg}
		res = append(res, g)
	}
	return res
}

// packageNamed returns the one package folder under tops whose name is
// name, or name itself (which the checker then reports as no folder).
func packageNamed(name string) string {
	var found []string
	for _, top := range tops {
		_ = filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == name {
				rel, _ := filepath.Rel(root, path)
				found = append(found, rel)
			}
			return nil
		})
	}
	if len(found) == 1 {
		return found[0]
	}
	return name
}

// TestBinaryNames: every run of a compiled test binary in the docs
// (./record.test -test.bench PATTERN) names functions of its package.
func TestBinaryNames(t *testing.T) {
	idx := newFuncIndex()
	n := 0
	for _, page := range current(t) {
		text := read(t, page)
		bins := testBinaries(text)
		for _, c := range codeChunks(text) {
			for _, cmd := range binaryCommands(c.text, bins) {
				n++
				for _, err := range idx.check(cmd) {
					t.Errorf("%s:%d: %s: %v", page, c.line, cmd.text, err)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no run of a test binary found in the docs: is the parser broken?")
	}
}

// # Test, benchmark, fuzz and example names in prose

// funcNameRE matches the name of a test function, a trailing * marking a
// family (BenchmarkDataLoss*).
var funcNameRE = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz|Example)[A-Z_][A-Za-z0-9_]*\*?`)

// allTestFuncs returns the top-level functions of every _test.go file of
// the module.
func allTestFuncs(t *testing.T) []string {
	t.Helper()
	idx := newFuncIndex()
	dirs, err := packageDirs("./...")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range dirs {
		f, err := idx.funcs(d)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, f...)
	}
	return names
}

// TestFuncNames: every Test, Benchmark, Fuzz or Example function the docs
// and the Makefile name, outside the go test commands TestTestNames and
// TestBinaryNames check as patterns, is a function of the module (Name*:
// the prefix of one).
func TestFuncNames(t *testing.T) {
	funcs := allTestFuncs(t)
	check := func(where string, line int, text string) {
		for _, name := range funcNameRE.FindAllString(text, -1) {
			if stem, family := strings.CutSuffix(name, "*"); family {
				if !slices.ContainsFunc(funcs, func(f string) bool { return strings.HasPrefix(f, stem) }) {
					t.Errorf("%s:%d: %s: no test function of the module starts with %s: a stale name?", where, line, name, stem)
				}
			} else if !slices.Contains(funcs, name) {
				t.Errorf("%s:%d: %s: no test function of the module has this name: a stale name?", where, line, name)
			}
		}
	}
	for _, page := range current(t) {
		text := read(t, page)
		bins := testBinaries(text)
		for i, line := range strings.Split(text, "\n") {
			for _, g := range append(goTestCommands(line), binaryCommands(line, bins)...) {
				line = strings.Replace(line, g.text, "", 1) // patterns, checked as such
			}
			check(page, i+1, line)
		}
	}
	mk := read(t, "Makefile")
	for i, line := range strings.Split(mk, "\n") {
		for _, g := range goTestCommands(strings.ReplaceAll(line, "$$", "$")) {
			line = strings.Replace(strings.ReplaceAll(line, "$$", "$"), g.text, "", 1)
		}
		check("Makefile", i+1, line)
	}
}

// # bpinn's commands and flags

// cli is bpinn's commands and each one's flags, read from its --help.
type cli struct {
	flags map[string][]string // by command
}

var (
	cliOnce sync.Once
	cliRead cli
	cliErr  error
)

// helpFlagRE matches a flag of a --help text's flags section.
var helpFlagRE = regexp.MustCompile(`(?m)^\s{2}--?([a-z][a-z0-9-]*)`)

// helpCommandRE matches a command of bpinn --help's commands section.
var helpCommandRE = regexp.MustCompile(`(?m)^  ([a-z][a-z-]*)\s+\S`)

// readCLI builds bpinn and reads its commands from bpinn --help and each
// command's flags from bpinn COMMAND --help.
func readCLI(t *testing.T) cli {
	t.Helper()
	cliOnce.Do(func() {
		bin := filepath.Join(os.TempDir(), fmt.Sprintf("bpinn-docscheck-%d", os.Getpid()))
		defer os.Remove(bin)
		build := exec.Command("go", "build", "-o", bin, "./cmd/bpinn")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			cliErr = fmt.Errorf("go build ./cmd/bpinn: %v\n%s", err, out)
			return
		}
		help := func(args ...string) string {
			out, _ := exec.Command(bin, args...).CombinedOutput() // --help may exit 0 or 2
			return string(out)
		}
		cliRead.flags = map[string][]string{}
		_, cmds, _ := strings.Cut(help("--help"), "commands:")
		for _, m := range helpCommandRE.FindAllStringSubmatch(cmds, -1) {
			var flags []string
			for _, f := range helpFlagRE.FindAllStringSubmatch(help(m[1], "--help"), -1) {
				flags = append(flags, f[1])
			}
			cliRead.flags[m[1]] = flags
		}
		if len(cliRead.flags) == 0 {
			cliErr = fmt.Errorf("bpinn --help lists no command: is the parser broken?")
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliRead
}

// A bpinnCall is a bpinn command in a piece of code: its command and the
// flags given to it.
type bpinnCall struct {
	command string
	flags   []string
}

// commandWordRE is what can be a command after bpinn: a lower-case word
// (bpinn's argument in go tool pprof -top bpinn cpu.prof is a file).
var commandWordRE = regexp.MustCompile(`^[a-z][a-z-]*$`)

// flagNameRE is a flag as a page writes it: -name, --name or --name=value,
// not a placeholder (--FLAG) or a negative number.
var flagNameRE = regexp.MustCompile(`^--?([a-z][a-z0-9-]*)(=.*)?$`)

// isBpinn says whether a word runs bpinn: bpinn, ./bpinn, a path ending
// in /bpinn, or go run's ./cmd/bpinn; not the module's import path.
func isBpinn(w string) bool {
	if strings.Contains(w, "evidence-pinn/") {
		return false
	}
	return w == "bpinn" || strings.HasSuffix(w, "/bpinn") || w == "./cmd/bpinn"
}

// bpinnCalls finds the bpinn commands in a piece of code.
func bpinnCalls(code string) []bpinnCall {
	var res []bpinnCall
	for rest := code; rest != ""; {
		var ws []string
		ws, rest = words(rest)
		rest = strings.TrimLeft(rest, ";&|#<>`")
		i := slices.IndexFunc(ws, isBpinn)
		if i < 0 || i+1 >= len(ws) || !commandWordRE.MatchString(ws[i+1]) {
			continue
		}
		c := bpinnCall{command: ws[i+1]}
		for _, w := range ws[i+2:] {
			if m := flagNameRE.FindStringSubmatch(w); m != nil {
				c.flags = append(c.flags, m[1])
			}
		}
		res = append(res, c)
	}
	return res
}

// check returns what is wrong with a call: a command bpinn does not have,
// or a flag its command does not.
func (c cli) check(call bpinnCall) []error {
	if call.command == "help" {
		return nil
	}
	flags, ok := c.flags[call.command]
	if !ok {
		return []error{fmt.Errorf("bpinn has no command %q (bpinn --help lists %s)", call.command, strings.Join(slices.Sorted(maps.Keys(c.flags)), ", "))}
	}
	var errs []error
	for _, f := range call.flags {
		if f != "h" && f != "help" && !slices.Contains(flags, f) {
			errs = append(errs, fmt.Errorf("bpinn %s has no flag --%s (bpinn %s --help): a stale name?", call.command, f, call.command))
		}
	}
	return errs
}

// TestCLINames: every bpinn command the docs and the Makefile's recipes
// show is one of bpinn's commands, with flags that command has (as
// bpinn COMMAND --help lists them).
func TestCLINames(t *testing.T) {
	c := readCLI(t)
	n := 0
	check := func(where string, ch chunk) {
		for _, call := range bpinnCalls(ch.text) {
			n++
			for _, err := range c.check(call) {
				t.Errorf("%s:%d: %v", where, ch.line, err)
			}
		}
	}
	for _, ch := range makeRecipes(read(t, "Makefile")) {
		check("Makefile", ch)
	}
	for _, page := range current(t) {
		for _, ch := range codeChunks(read(t, page)) {
			check(page, ch)
		}
	}
	if n == 0 {
		t.Error("no bpinn command found in the docs: is the parser broken?")
	}
}

// TestNameParsers: the readers of this file find test binaries, bpinn
// commands and test names where the pages write them, and the checks
// fail a stale one.
func TestNameParsers(t *testing.T) {
	page := "go test -c -o /tmp/b.test ./pkg/bayes\n/tmp/b.test -test.run '^$' -test.bench 'Jacobian/P=921' -test.benchtime 2x\n" +
		"/usr/bin/time -f %U ./record.test -test.bench NoSuch\ngo tool pprof -top /tmp/b.test cpu.prof\n"
	bins := testBinaries(page)
	var got []string
	for _, line := range strings.Split(page, "\n") {
		for _, g := range binaryCommands(line, bins) {
			got = append(got, fmt.Sprintf("%v %v", g.patterns, g.pkgs))
		}
	}
	want := []string{"map[bench:Jacobian/P=921 run:^$] [./pkg/bayes]", "map[bench:NoSuch] [./pkg/record]"}
	if !slices.Equal(got, want) {
		t.Errorf("test binaries %q, want %q", got, want)
	}
	idx := newFuncIndex()
	if errs := idx.check(binaryCommands("./record.test -test.bench NoSuch", nil)[0]); len(errs) != 1 {
		t.Errorf("a stale benchmark of a test binary: errors %v, want one", errs)
	}

	got = nil
	for _, code := range []string{
		"BPINN_CPUPROFILE=x.prof ./bpinn fit heat --seed 1 --json=out.json -v",
		"go run -buildvcs=true ./cmd/bpinn reproduce --quick --out out/quick && bpinn predict r.json < pts.txt",
		"go tool pprof -top bpinn cpu.prof; go get github.com/evidence-pinn/bpinn fit",
		"bpinn ensemble NAME --n 10 --FLAG x --lr -1",
	} {
		for _, c := range bpinnCalls(code) {
			got = append(got, fmt.Sprintf("%s %v", c.command, c.flags))
		}
	}
	want = []string{"fit [seed json v]", "reproduce [quick out]", "predict []", "ensemble [n lr]"}
	if !slices.Equal(got, want) {
		t.Errorf("bpinn commands %q, want %q", got, want)
	}
	c := cli{flags: map[string][]string{"fit": {"seed", "json"}}}
	for _, call := range []struct {
		call  bpinnCall
		stale int
	}{
		{bpinnCall{"fit", []string{"seed", "json", "help"}}, 0},
		{bpinnCall{"fit", []string{"seed", "threads"}}, 1},
		{bpinnCall{"frobnicate", nil}, 1},
		{bpinnCall{"help", []string{"x"}}, 0},
	} {
		if errs := c.check(call.call); len(errs) != call.stale {
			t.Errorf("%v: errors %v, want %d", call.call, errs, call.stale)
		}
	}

	if got := funcNameRE.FindAllString("TestA runs, BenchmarkDataLoss* too; Tests and Example alone are words, ExampleRegister a name", -1); !slices.Equal(got, []string{"TestA", "BenchmarkDataLoss*", "ExampleRegister"}) {
		t.Errorf("test names %q", got)
	}
}
