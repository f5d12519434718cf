// Package choice parses a setting that takes one of a list of names (a
// typed string of pkg/bayes or pkg/nn): the name to its value, or a
// one-line error that names the setting and lists every choice.
package choice

import (
	"fmt"
	"strings"
)

// Parse returns the choice named s, or an error naming what and listing
// the choices: `unknown recipe "x": use tuned or paper`.
func Parse[T ~string](what, s string, choices []T) (T, error) {
	for _, c := range choices {
		if string(c) == s {
			return c, nil
		}
	}
	return "", Unknown(what, s, choices)
}

// Unknown is Parse's error for s, a name none of the choices has.
func Unknown[T ~string](what, s string, choices []T) error {
	return fmt.Errorf("unknown %s %q: use %s", what, s, OrList(choices))
}

// OrList is "a, b or c".
func OrList[T ~string](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = string(x)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
