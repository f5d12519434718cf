package cliflag

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
)

// Parse takes flags and positional arguments in any order and words a bad
// flag as the help does; PrintUsage leaves out test-only flags; Words
// gives back the flags as typed.
func TestParse(t *testing.T) {
	fs := NewFlagSet("x")
	var n PosInt
	var seed Seed
	var c = Choice{V: "a", Choices: []string{"a", "b"}}
	fs.Var(&n, "epochs", "`N` epochs")
	fs.Var(&seed, "seed", "the `seed`")
	fs.Var(&c, "mode", "a mode")
	on := fs.Bool("on", false, "switch")
	fs.Int("nan-at", 0, TestOnly+"hidden")
	pos, err := Parse(fs, []string{"heat", "--epochs", "10", "--on", "wave", "--", "--mode"})
	if err != nil || !slices.Equal(pos, []string{"heat", "wave", "--mode"}) || n.V != 10 || !n.Given || !*on {
		t.Fatalf("positional %q, epochs %d (given %v), on %v, error %v", pos, n.V, n.Given, *on, err)
	}
	if w := Words(fs, []string{"heat", "--epochs", "10", "--on", "--mode=b"}, "on"); !slices.Equal(w, []string{"--epochs", "10", "--mode=b"}) {
		t.Errorf("Words: %q", w)
	}
	for args, want := range map[string]string{
		"--epochs 0":   "--epochs 0: must be positive",
		"--epochs x":   "--epochs x: not an integer",
		"--seed 0":     "--seed 0: not a positive integer: seeds start at 1",
		"--mode c":     "--mode c: use a or b",
		"--frob":       "unknown flag --frob",
		"--epochs":     "--epochs needs a value",
		"--on=maybe":   "--on maybe: not a valid value",
		"---x":         "---x is not a flag: write --name or --name=value",
		"--seed 1e100": "--seed 1e100: not a positive integer: seeds start at 1",
	} {
		_, err := Parse(newFlagSetLike(fs), strings.Fields(args))
		var u UsageError
		if !errors.As(err, &u) || u.Msg != want {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
	if _, err := Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
	var b bytes.Buffer
	PrintUsage(&b, fs, "x [flags]", "Does x.", "")
	if s := b.String(); !strings.Contains(s, "--epochs N") || !strings.Contains(s, "--mode a|b") || strings.Contains(s, "nan-at") {
		t.Errorf("usage:\n%s", s)
	}
}

// newFlagSetLike is a fresh FlagSet with the flags of fs.
func newFlagSetLike(fs *flag.FlagSet) *flag.FlagSet {
	out := NewFlagSet(fs.Name())
	fs.VisitAll(func(f *flag.Flag) { out.Var(f.Value, f.Name, f.Usage) })
	return out
}

func TestWrap(t *testing.T) {
	if got := wrap("one two three four", 9); !slices.Equal(got, []string{"one two", "three", "four"}) {
		t.Errorf("wrap: %q", got)
	}
	if got := wrap("averyveryverylongword x", 5); !slices.Equal(got, []string{"averyveryverylongword", "x"}) {
		t.Errorf("wrap of a long word: %q", got)
	}
}
