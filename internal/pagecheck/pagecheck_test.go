package pagecheck

import "testing"

// Bad finds an undefined number in a cell or in chart data and anything
// fetched from the network, and not a chart id that happens to spell NaN.
func TestBad(t *testing.T) {
	for _, s := range []string{`<td class="num">NaN</td>`, `"data":[[0.1,NaN]]`, `x: +Inf`, `<script src="http://x">`,
		`<link rel="stylesheet" href="a.css">`, `TODO: fill in`} {
		if !Bad.MatchString(s) {
			t.Errorf("Bad misses %q", s)
		}
	}
	for _, s := range []string{`<div id="kGBNaNPrOWwx">`, `goecharts_aTODOzzNaNqq`, `isNaN(u.z)`, `<img src="data:image/png;base64,AA">`} {
		if Bad.MatchString(s) {
			t.Errorf("Bad flags %q", s)
		}
	}
}
