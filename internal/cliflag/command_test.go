package cliflag

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// A Program dispatches to its commands, lists them, prints a command's
// --help from its FlagSet, and turns errors into one line and an exit code.
func TestProgram(t *testing.T) {
	var got []string
	p := Program{Name: "prog", Title: "A program.", Commands: map[string]Command{
		"echo": {Summary: "print the words", Usage: "echo WORDS", Text: "Prints the words.", Footer: func() string { return "footer\n" },
			Setup: func(fs *flag.FlagSet) func([]string, Env) error {
				n := fs.Int("n", 1, "`N` times")
				return func(pos []string, e Env) error {
					if len(pos) == 0 {
						return Usagef("no words")
					}
					got = append(got, strings.Repeat(strings.Join(pos, " "), *n))
					return nil
				}
			}},
		"fail": {Summary: "fail", Usage: "fail", Setup: func(*flag.FlagSet) func([]string, Env) error {
			return func([]string, Env) error { return errors.New("it broke\nbadly") }
		}},
		"quiet": {Summary: "exit 3", Usage: "quiet", Setup: func(*flag.FlagSet) func([]string, Env) error {
			return func([]string, Env) error { return ExitCode(3) }
		}},
	}}
	for _, c := range []struct {
		args        []string
		code        int
		out, errOut string
	}{
		{[]string{"echo", "a", "--n", "2"}, 0, "", ""},
		{[]string{"--help"}, 0, "  echo      print the words\n", ""},
		{[]string{"help", "echo"}, 0, "usage: prog echo WORDS\n\nPrints the words.\n\nflags:\n  --n N", ""},
		{[]string{"echo", "-h"}, 0, "footer\n", ""},
		{nil, 2, "", "prog: missing command: use one of echo, fail, quiet (prog --help)\n"},
		{[]string{"frob"}, 2, "", `prog: unknown command "frob"`},
		{[]string{"echo"}, 2, "", "prog echo: no words (see prog echo --help)\n"},
		{[]string{"echo", "--n", "x"}, 2, "", "prog echo: --n x: not a valid value (see prog echo --help)\n"},
		{[]string{"fail"}, 1, "", "prog fail: it broke badly\n"},
		{[]string{"quiet"}, 3, "", ""},
	} {
		var o, e bytes.Buffer
		code := p.Run(c.args, nil, &o, &e)
		if code != c.code || !strings.Contains(o.String(), c.out) || !strings.Contains(e.String(), c.errOut) || (c.errOut == "" && e.Len() > 0) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, o.String(), e.String(), c.code, c.out, c.errOut)
		}
	}
	if len(got) != 1 || got[0] != "aa" {
		t.Errorf("echo ran with %q, want [aa]", got)
	}
}
