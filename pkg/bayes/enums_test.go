package bayes

import (
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/curv"
	"github.com/evidence-pinn/bpinn/pkg/nn"
)

// TestParseChoices: every listed choice parses to itself, and a wrong
// name is a one-line error listing every choice.
func TestParseChoices(t *testing.T) {
	t.Parallel()
	check := func(what string, choices []string, parse func(string) (string, error), want string) {
		t.Helper()
		for _, c := range choices {
			if got, err := parse(c); err != nil || got != c {
				t.Errorf("%s %q parses to %q, %v", what, c, got, err)
			}
		}
		if _, err := parse("nonsense"); err == nil || err.Error() != want {
			t.Errorf("%s nonsense: error %v, want %q", what, err, want)
		}
	}
	check("recipe", names(Recipes), wrap(ParseRecipe), `unknown recipe "nonsense": use tuned or paper`)
	check("updater", names(Updaters), wrap(ParseUpdater), `unknown updater "nonsense": use adam or mackay`)
	check("polish method", names(PolishMethods), wrap(ParsePolishMethod), `unknown polish method "nonsense": use gauss-newton or lbfgs`)
	check("round betas", names(RoundBetasChoices), wrap(ParseRoundBetas), `unknown round betas "nonsense": use training or held-out`)
	check("beta mode", names(BetaModes), wrap(ParseBetaMode), `unknown beta mode "nonsense": use single or split`)
	check("alpha mode", names(nn.AlphaModes), wrap(nn.ParseAlphaMode), `unknown alpha mode "nonsense": use single or classes`)
	check("status", names(Statuses), wrap(ParseStatus),
		`unknown status "nonsense": use ok, diverged, not-positive-definite, occam-invalid, polish-failed, cancelled or no-laplace`)
	check("curvature", names(Curvatures()), wrap(ParseCurvature),
		`unknown curvature "nonsense": use one of dense, dual, diag, last-layer, layers, lowrank, stochastic (or auto)`)
	if got := Curvatures(); got[0] != CurvatureAuto || len(got) != len(curv.Kinds())+1 {
		t.Errorf("Curvatures() = %v: want auto, then every curv.Kind", got)
	}
}

func names[T ~string](v []T) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = string(x)
	}
	return s
}

func wrap[T ~string](parse func(string) (T, error)) func(string) (string, error) {
	return func(s string) (string, error) {
		v, err := parse(s)
		return string(v), err
	}
}
