package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Env is what a command runs with: its arguments as given (after the
// command's name), standard input (os.Stdin when nil) and outputs.
type Env struct {
	Args           []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// In is the command's standard input.
func (e Env) In() io.Reader {
	if e.Stdin == nil {
		return os.Stdin
	}
	return e.Stdin
}

// Command is one subcommand of a program: its Summary in the program's
// --help; for its own --help, its Usage line (after the program's name),
// Text and Footer (what follows the flags; nil: none); and Setup, which
// registers its flags and returns what runs it on the positional
// arguments.
type Command struct {
	Summary, Usage, Text string
	Footer               func() string
	Setup                func(fs *flag.FlagSet) func(pos []string, e Env) error
}

// Program is a program of subcommands: its name, the title its --help
// shows, and its commands by name.
type Program struct {
	Name, Title string
	Commands    map[string]Command
}

// Run runs the command named by args[0] on the rest and returns the exit
// code: "help CMD" is "CMD --help", --help lists the commands, a missing
// or unknown command is bad input (exit 2).
func (p Program) Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "%s: missing command: use one of %s (%s --help)\n", p.Name, strings.Join(p.names(), ", "), p.Name)
		return exitUsage
	}
	switch args[0] {
	case "help":
		if len(args) > 1 { // "bpinn help fit" is "bpinn fit --help"
			return p.Run([]string{args[1], "--help"}, stdin, stdout, stderr)
		}
		fallthrough
	case "-h", "-help", "--help":
		p.usage(stdout)
		return 0
	}
	c, ok := p.Commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q: use one of %s (%s --help)\n", p.Name, args[0], strings.Join(p.names(), ", "), p.Name)
		return exitUsage
	}
	return c.exec(p.Name+" "+args[0], Env{args[1:], stdin, stdout, stderr})
}

// exec parses the flags of the command (cmd is "program command") and runs
// it: --help prints its usage, an error is printed in one line (Report)
// and sets the exit code.
func (c Command) exec(cmd string, e Env) int {
	fs := NewFlagSet(cmd[strings.LastIndexByte(cmd, ' ')+1:])
	do := c.Setup(fs)
	pos, err := Parse(fs, e.Args)
	if errors.Is(err, flag.ErrHelp) {
		footer := ""
		if c.Footer != nil {
			footer = c.Footer()
		}
		PrintUsage(e.Stdout, fs, cmd[:strings.LastIndexByte(cmd, ' ')+1]+c.Usage, c.Text, footer)
		return 0
	}
	if err == nil {
		err = do(pos, e)
	}
	if err != nil {
		return Report(e.Stderr, cmd, err)
	}
	return 0
}

func (p Program) names() []string {
	var ns []string
	for n := range p.Commands {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func (p Program) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s COMMAND [flags] [args]\n\n%s\n\ncommands:\n", p.Name, p.Title)
	for _, n := range p.names() {
		fmt.Fprintf(w, "  %-9s %s\n", n, p.Commands[n].Summary)
	}
	fmt.Fprintf(w, "\n%s COMMAND --help (or %s help COMMAND): a command's flags and defaults.\n"+
		"Exit codes: 0 success, 1 I/O failure, 2 bad input.\n", p.Name, p.Name)
}
