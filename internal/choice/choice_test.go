package choice

import "testing"

func TestParse(t *testing.T) {
	t.Parallel()
	type color string
	colors := []color{"red", "green", "blue"}
	if c, err := Parse("color", "green", colors); err != nil || c != "green" {
		t.Errorf("green: %q, %v", c, err)
	}
	if _, err := Parse("color", "Green", colors); err == nil || err.Error() != `unknown color "Green": use red, green or blue` {
		t.Errorf("Green: %v", err)
	}
	for _, c := range []struct {
		v    []color
		want string
	}{{nil, ""}, {colors[:1], "red"}, {colors[:2], "red or green"}} {
		if got := OrList(c.v); got != c.want {
			t.Errorf("OrList(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
