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

// OptInt fills an optional integer setting: *dst stays nil until the flag
// is given (its default is then the setting owner's), and points at the
// value once it is. Numbers parse as the flag package's own (any sign;
// integers in any base); def is the default --help shows ("": none).
func OptInt(dst **int, def string) flag.Value {
	return &opt[int]{dst, def, func(s string) (int, error) {
		v, err := strconv.ParseInt(s, 0, strconv.IntSize)
		return int(v), numError(err)
	}}
}

// OptFloat is OptInt for a float64 setting.
func OptFloat(dst **float64, def string) flag.Value {
	return &opt[float64]{dst, def, func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		return v, numError(err)
	}}
}

// OptString is OptInt for a setting of a string type.
func OptString[T ~string](dst **T, def string) flag.Value {
	return &opt[T]{dst, def, func(s string) (T, error) { return T(s), nil }}
}

type opt[T any] struct {
	dst   **T
	def   string
	parse func(string) (T, error)
}

func (o *opt[T]) String() string {
	if o == nil || o.dst == nil || *o.dst == nil {
		return o.defValue()
	}
	return fmt.Sprint(**o.dst)
}

func (o *opt[T]) defValue() string {
	if o == nil {
		return ""
	}
	return o.def
}

func (o *opt[T]) Set(s string) error {
	v, err := o.parse(s)
	if err != nil {
		return err
	}
	*o.dst = &v
	return nil
}

// numError is a strconv error in the flag package's own words, which
// flagError rewrites.
func numError(err error) error {
	switch {
	case errors.Is(err, strconv.ErrRange):
		return errors.New("value out of range")
	case err != nil:
		return errors.New("parse error")
	}
	return nil
}
