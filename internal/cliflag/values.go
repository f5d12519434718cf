package cliflag

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Positive is a number flag that must be positive (and finite) when
// given; Given says whether it was (zero means "the default" in the
// settings it fills).
type Positive[T int | float64] struct {
	V     T
	Given bool
}

type (
	PosInt   = Positive[int]
	PosFloat = Positive[float64]
)

func (p *Positive[T]) String() string {
	if p == nil || !p.Given {
		return ""
	}
	return fmt.Sprint(p.V) // the shortest form that reads back exactly
}

func (p *Positive[T]) Set(s string) error {
	var v T
	switch v := any(&v).(type) {
	case *int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return intError(err)
		}
		*v = n
	case *float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("not a finite number")
		}
		*v = x
	}
	if v <= 0 {
		return errors.New("must be positive")
	}
	p.V, p.Given = v, true
	return nil
}

// intError says why strconv.Atoi refused a flag's value.
func intError(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("out of range")
	}
	return errors.New("not an integer")
}

// placeholder is implemented by flag values that name their argument in
// --help themselves (instead of a `word` in the usage text).
type placeholder interface{ placeholder() string }

// Choice is a string flag limited to a list.
type Choice struct {
	V       string
	Choices []string
}

func (c *Choice) String() string {
	if c == nil {
		return ""
	}
	return c.V
}

func (c *Choice) placeholder() string { return strings.Join(c.Choices, "|") }

func (c *Choice) Set(s string) error {
	for _, x := range c.Choices {
		if s == x {
			c.V = s
			return nil
		}
	}
	return fmt.Errorf("use %s", strings.Join(c.Choices, " or "))
}

// Sizes is a comma-separated list of positive layer sizes.
type Sizes struct{ V []int }

func (h *Sizes) String() string {
	if h == nil || h.V == nil {
		return ""
	}
	s := make([]string, len(h.V))
	for i, x := range h.V {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func (h *Sizes) Set(s string) error {
	var v []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return errors.New("want positive layer sizes separated by commas, e.g. 8,8")
		}
		v = append(v, n)
	}
	if len(v) > 8 {
		return errors.New("at most 8 hidden layers")
	}
	h.V = v
	return nil
}

// Pairs is a flag's comma-separated KEY=VALUE list (parsePairs).
type Pairs struct{ V map[string]float64 }

func (n *Pairs) String() string {
	if n == nil || len(n.V) == 0 {
		return ""
	}
	var s []string
	for k, v := range n.V {
		s = append(s, k+"="+strconv.FormatFloat(v, 'g', -1, 64))
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}

// Noise is a comma-separated list of GROUP=STD: beta groups whose noise
// standard deviation is known.
type Noise struct{ Pairs }

func (n *Noise) Set(x string) error {
	if x == "none" { // every beta inferred, where the problem states a noise
		n.V = map[string]float64{}
		return nil
	}
	v, err := parsePairs(x, "GROUP", func(std float64) bool { return std > 0 && !math.IsInf(std, 0) },
		"GROUP=STD with a positive standard deviation, e.g. data=0.02")
	if err != nil {
		return err
	}
	n.V = v
	return nil
}

// Init holds NAME=VALUE starting values of a problem's unknowns.
type Init struct{ Pairs }

func (n *Init) Set(x string) error {
	v, err := parsePairs(x, "unknown", func(u float64) bool { return !math.IsNaN(u) && !math.IsInf(u, 0) },
		"NAME=VALUE with a finite value, e.g. nu=0.002")
	if err != nil {
		return err
	}
	n.V = v
	return nil
}

// parsePairs parses comma-separated KEY=VALUE pairs whose values pass ok;
// what names a key in errors, want says the form.
func parsePairs(x, what string, ok func(float64) bool, want string) (map[string]float64, error) {
	v := map[string]float64{}
	for _, f := range strings.Split(x, ",") {
		k, val, cut := strings.Cut(strings.TrimSpace(f), "=")
		u, err := strconv.ParseFloat(val, 64)
		if !cut || k == "" || err != nil || !ok(u) {
			return nil, errors.New("want " + want)
		}
		if _, dup := v[k]; dup {
			return nil, fmt.Errorf("%s %s given twice", what, k)
		}
		v[k] = u
	}
	return v, nil
}

// Seed is a positive uint64 (seed 0 would silently mean seed 1).
type Seed struct{ V uint64 }

func (s *Seed) String() string {
	if s == nil {
		return ""
	}
	return strconv.FormatUint(s.V, 10)
}

func (s *Seed) Set(x string) error {
	v, err := strconv.ParseUint(x, 10, 64)
	if err != nil && errors.Is(err, strconv.ErrRange) {
		return errors.New("out of range: seeds are 1 to 18446744073709551615")
	}
	if err != nil || v == 0 {
		return errors.New("not a positive integer: seeds start at 1")
	}
	s.V = v
	return nil
}

// Shard is the I/N of one shard of a job array.
type Shard struct{ I, N int }

func (s *Shard) String() string {
	if s == nil || s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

func (s *Shard) placeholder() string { return "I/N" }

func (s *Shard) Set(v string) error {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return errors.New("want I/N with 0 <= I < N, e.g. 0/4")
	}
	s.I, s.N = i, n
	return nil
}
