package nn

import (
	"fmt"
	"math"
)

// AdamSettings configures Adam (Kingma & Ba). The zero value gives the
// defaults written on each field.
type AdamSettings struct {
	LR    float64 // learning rate; 0 means 1e-3
	Beta1 float64 // first-moment decay; 0 means 0.9
	Beta2 float64 // second-moment decay; 0 means 0.999
	Eps   float64 // denominator guard; 0 means 1e-8
}

func (s *AdamSettings) withDefaults() AdamSettings {
	var d AdamSettings
	if s != nil {
		d = *s
	}
	if d.LR == 0 {
		d.LR = 1e-3
	}
	if d.Beta1 == 0 {
		d.Beta1 = 0.9
	}
	if d.Beta2 == 0 {
		d.Beta2 = 0.999
	}
	if d.Eps == 0 {
		d.Eps = 1e-8
	}
	return d
}

// Adam holds the moments of one parameter vector.
type Adam struct {
	S      AdamSettings
	m, v   []float64
	t      int
	b1, b2 float64 // beta1^t, beta2^t
}

// NewAdam returns an optimizer for n parameters; nil settings mean defaults.
// It panics if a setting is out of range.
func NewAdam(n int, s *AdamSettings) *Adam {
	d := s.withDefaults()
	if d.LR < 0 || d.Beta1 < 0 || d.Beta1 >= 1 || d.Beta2 < 0 || d.Beta2 >= 1 || d.Eps < 0 {
		panic(fmt.Sprintf("nn: Adam settings %+v out of range", d))
	}
	return &Adam{S: d, m: make([]float64, n), v: make([]float64, n), b1: 1, b2: 1}
}

// Step moves w against grad: w -= lr mhat/(sqrt(vhat)+eps).
func (a *Adam) Step(w, grad []float64) {
	if len(w) != len(a.m) || len(grad) != len(a.m) {
		panic(fmt.Sprintf("nn: Adam.Step: %d weights and %d gradients for %d", len(w), len(grad), len(a.m)))
	}
	a.t++
	a.b1 *= a.S.Beta1
	a.b2 *= a.S.Beta2
	c1, c2 := 1/(1-a.b1), 1/(1-a.b2)
	b1, b2, lr, eps := a.S.Beta1, a.S.Beta2, a.S.LR, a.S.Eps
	m, v := a.m[:len(w)], a.v[:len(w)]
	grad = grad[:len(w)]
	for i, g := range grad {
		m[i] = b1*m[i] + (1-b1)*g
		v[i] = b2*v[i] + (1-b2)*g*g
		w[i] -= lr * (m[i] * c1) / (math.Sqrt(v[i]*c2) + eps)
	}
}

// Steps is the number of steps taken.
func (a *Adam) Steps() int { return a.t }
