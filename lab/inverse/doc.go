// Package inverse holds the studies behind docs/inverse.md's explanations,
// each a test that runs only with its variable set (minutes of CPU):
// TestHeatInverseMorePoints (BPINN_GEOMETRY), heat-inverse's betas at the
// clamp with 50 to 200 equation points, and TestBurgersWideNuProfile
// (BPINN_NUPROFILE), the evidence of burgers-wide fits with nu held at
// multiples of its truth:
//
//	BPINN_GEOMETRY=1 go test -run TestHeatInverseMorePoints -v ./lab/inverse/
//	BPINN_NUPROFILE=1 go test -run TestBurgersWideNuProfile -v ./lab/inverse/
package inverse
