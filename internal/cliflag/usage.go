package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// UsageError is bad input: the command prints it in one line and exits 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef is a UsageError of the formatted message.
func Usagef(format string, a ...any) error { return UsageError{fmt.Sprintf(format, a...)} }

// AsUsage makes err, if any, a UsageError.
func AsUsage(err error) error {
	if err == nil {
		return nil
	}
	return UsageError{Msg: err.Error()}
}

// ExitCode is an error the command has already reported: it exits with
// the code.
type ExitCode int

func (c ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// Exit codes of Report.
const (
	exitFail  = 1 // I/O and other runtime failures
	exitUsage = 2 // bad input
)

// Report prints err in one line after cmd ("bpinn fit: ...") and returns
// the exit code: 2 for bad input (pointing to cmd --help), the code of an
// ExitCode, 1 for anything else.
func Report(stderr io.Writer, cmd string, err error) int {
	if c, ok := err.(ExitCode); ok {
		return int(c)
	}
	var u UsageError
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "%s: %s (see %s --help)\n", cmd, OneLine(u.Msg), cmd)
		return exitUsage
	}
	fmt.Fprintf(stderr, "%s: %s\n", cmd, OneLine(err.Error()))
	return exitFail
}

// OneLine is s with every run of white space, newlines too, one blank.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// NewFlagSet returns a FlagSet that reports errors to the caller only.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// Parse parses flags and positional arguments in any order ("fit heat
// --epochs 10" and "fit --epochs 10 heat"). Everything after "--" is
// positional. It returns flag.ErrHelp for -h/--help, and a UsageError in
// the words of the help for a bad flag.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, UsageError{flagError(err)}
		}
		left := fs.Args()
		if len(left) == 0 {
			return pos, nil
		}
		if used := len(rest) - len(left); used > 0 && rest[used-1] == "--" {
			return append(pos, left...), nil
		}
		pos = append(pos, left[0])
		rest = left[1:]
	}
}

// flag's error texts, and what a user of "--name" flags reads instead.
var (
	flagBadValue = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-([\w-]+): (.*)$`)
	flagUnknown  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNoValue  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagSyntax   = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagError rewrites a flag.Parse error in the words of the help: "--epochs
// 0: must be positive" instead of `invalid value "0" for flag -epochs: ...`.
func flagError(err error) string {
	s := err.Error()
	if m := flagBadValue.FindStringSubmatch(s); m != nil {
		v, uerr := strconv.Unquote(m[1])
		if uerr != nil || v == "" || strings.ContainsAny(v, " \t") {
			v = m[1]
		}
		why := m[3]
		switch why {
		case "parse error": // the flag package's own integer and bool flags
			why = "not a valid value"
		case "value out of range":
			why = "out of range"
		}
		return fmt.Sprintf("--%s %s: %s", m[2], v, why)
	}
	if m := flagUnknown.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("unknown flag --%s", m[1])
	}
	if m := flagNoValue.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	if m := flagSyntax.FindStringSubmatch(s); m != nil {
		return fmt.Sprintf("%s is not a flag: write --name or --name=value", m[1])
	}
	return s
}

// TestOnly starts the usage of a flag that --help does not show.
const TestOnly = "test only: "

// PrintUsage writes a command's usage line, text, flags with their
// defaults (those whose usage starts with TestOnly left out) and footer,
// wrapped to 80 columns.
func PrintUsage(w io.Writer, fs *flag.FlagSet, usageLine, text, footer string) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nflags:\n", usageLine, strings.TrimSpace(text))
	const col, width = 26, 80
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, TestOnly) {
			return
		}
		name, u := flag.UnquoteUsage(f)
		if p, ok := f.Value.(placeholder); ok {
			name = p.placeholder()
		}
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		if def := f.DefValue; def != "" && def != "false" {
			u += " (default " + def + ")"
		}
		if len(line) >= col-1 { // the text starts on the next line
			fmt.Fprintln(w, line)
			line = ""
		}
		for _, l := range wrap(u, width-col) {
			fmt.Fprintf(w, "%-*s%s\n", col, line, l)
			line = ""
		}
	})
	if footer != "" {
		fmt.Fprintf(w, "\n%s", footer)
	}
}

// wrap splits s into lines of at most n bytes at spaces (a longer word
// keeps its own line).
func wrap(s string, n int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		if cur != "" && len(cur)+1+len(word) > n {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += word
	}
	return append(lines, cur)
}

// Given is the set of the flags of fs that were given.
func Given(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// Words returns the flags of args (already parsed by fs), each with its
// value, in their order and spelling, without positional arguments and
// without the flags named in drop.
func Words(fs *flag.FlagSet, args []string, drop ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break // only positional arguments follow
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		words := []string{a}
		if f := fs.Lookup(name); f != nil && !inline && !isBoolFlag(f) && i+1 < len(args) {
			i++
			words = append(words, args[i])
		}
		if !slices.Contains(drop, name) {
			out = append(out, words...)
		}
	}
	return out
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// CheckWritable fails early, before any training, when path cannot be
// written (a missing directory, a directory in its place).
func CheckWritable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return Usagef("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return Usagef("cannot write %s: directory %s does not exist", path, dir)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check*")
	if err != nil {
		return Usagef("cannot write in %s: %v", dir, err)
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}
