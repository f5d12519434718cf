// Package pagecheck holds the check the tests of pkg/report and cmd/bpinn
// run on a finished report.html.
package pagecheck

import "regexp"

// Bad matches what a finished page must not hold: an undefined number, a
// placeholder, anything loaded from the network. The word boundaries keep
// go-echarts' random 12-letter chart ids, which can spell "NaN", and
// JavaScript's isNaN out of it.
var Bad = regexp.MustCompile(`\bNaN\b|\bTODO\b|\+Inf|src="http|href="http|//cdn|<link|<img src="/`)
