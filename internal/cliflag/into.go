package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
)

// The flags below write into a field of a settings struct, so that a table
// of flags fills the struct without a copy of its fields; a field no flag
// gives stays zero (the default the struct's owner fills in).

// Into is a flag that must be positive (and finite), parsed by Positive,
// written into *dst.
func Into[T int | float64](dst *T) flag.Value { return &positiveInto[T]{dst: dst} }

type positiveInto[T int | float64] struct{ dst *T }

func (p *positiveInto[T]) String() string {
	if p == nil || p.dst == nil || *p.dst == 0 {
		return ""
	}
	return fmt.Sprint(*p.dst)
}

func (p *positiveInto[T]) Set(s string) error {
	var v Positive[T]
	if err := v.Set(s); err != nil {
		return err
	}
	*p.dst = v.V
	return nil
}

// OneOf is a flag limited to choices, written into *dst; def is what
// --help shows as the default when the flag is not given (dst then stays
// as it was).
func OneOf[T ~string](dst *T, def T, choices []T) flag.Value {
	return &choiceInto[T]{Choice{string(def), Names(choices)}, dst}
}

// Names are the strings of choices.
func Names[T ~string](choices []T) []string {
	s := make([]string, len(choices))
	for i, c := range choices {
		s[i] = string(c)
	}
	return s
}

type choiceInto[T ~string] struct {
	Choice
	dst *T
}

func (c *choiceInto[T]) Set(s string) error {
	if err := c.Choice.Set(s); err != nil {
		return err
	}
	*c.dst = T(s)
	return nil
}

// Bool is a boolean flag written into *dst.
func Bool(dst *bool) flag.Value { return &boolInto{dst} }

type boolInto struct{ dst *bool }

func (b *boolInto) IsBoolFlag() bool { return true }

func (b *boolInto) String() string {
	if b == nil || b.dst == nil {
		return "false"
	}
	return strconv.FormatBool(*b.dst)
}

func (b *boolInto) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("parse error") // the flag package's own word, which flagError rewrites
	}
	*b.dst = v
	return nil
}

// Int is an integer flag of any sign written into *dst.
func Int(dst *int) flag.Value { return &intInto{dst} }

type intInto struct{ dst *int }

func (n *intInto) String() string {
	if n == nil || n.dst == nil || *n.dst == 0 {
		return ""
	}
	return strconv.Itoa(*n.dst)
}

func (n *intInto) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return intError(err)
	}
	*n.dst = v
	return nil
}

// SizesInto is a Sizes flag written into *dst.
func SizesInto(dst *[]int) flag.Value { return &sizesInto{dst} }

type sizesInto struct{ dst *[]int }

func (h *sizesInto) String() string {
	if h == nil || h.dst == nil {
		return ""
	}
	return (&Sizes{*h.dst}).String()
}

func (h *sizesInto) Set(s string) error {
	var v Sizes
	if err := v.Set(s); err != nil {
		return err
	}
	*h.dst = v.V
	return nil
}

// NoiseInto is a Noise flag written into *dst.
func NoiseInto(dst *map[string]float64) flag.Value { return &noiseInto{dst: dst} }

type noiseInto struct {
	Noise
	dst *map[string]float64
}

func (n *noiseInto) Set(s string) error {
	if err := n.Noise.Set(s); err != nil {
		return err
	}
	*n.dst = n.V
	return nil
}

// OptInt and OptFloat are number flags parsed as the flag package's own
// (any sign; integers in any base), written into *dst; --help shows no
// default for zero, the "not given" of options whose default depends on
// others.
func OptInt(dst *int) flag.Value { return &optNum[int]{dst} }

// OptFloat: see OptInt.
func OptFloat(dst *float64) flag.Value { return &optNum[float64]{dst} }

type optNum[T int | float64] struct{ dst *T }

func (n *optNum[T]) String() string {
	if n == nil || n.dst == nil || *n.dst == 0 {
		return ""
	}
	return fmt.Sprint(*n.dst)
}

func (n *optNum[T]) Set(s string) error {
	var err error
	switch d := any(n.dst).(type) {
	case *int:
		var v int64
		v, err = strconv.ParseInt(s, 0, strconv.IntSize)
		if err == nil {
			*d = int(v)
		}
	case *float64:
		var v float64
		v, err = strconv.ParseFloat(s, 64)
		if err == nil {
			*d = v
		}
	}
	switch { // the flag package's own words, which flagError rewrites
	case errors.Is(err, strconv.ErrRange):
		return errors.New("value out of range")
	case err != nil:
		return errors.New("parse error")
	}
	return nil
}
