package ad_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/ad"
)

// A residual built from input derivatives, and its gradient with respect to
// a parameter: the second-order computation a PINN's loss needs, built once
// and run on fed values.
func Example() {
	g := ad.NewGraph()
	x := g.Input("x", 3, 1) // three points, one input
	w := g.Param("w", 1, 1)
	u := ad.Tanh(ad.MatMul(x, w)) // u(x) = tanh(w x)

	jet := ad.NewJet(u, x)
	r := ad.Add(jet.D2(0, 0), u)                // residual u_xx + u at each point
	loss := ad.Scale(ad.Sum(ad.Square(r)), 0.5) // 1/2 Σ r²
	dw := ad.Grad(loss, w)[0]

	prog := g.Compile(loss, jet.D(0), dw)
	prog.Set(x, []float64{-1, 0, 1})
	prog.Set(w, []float64{0.5})
	prog.Run()
	fmt.Printf("u_x  = %.4f\n", prog.Value(jet.D(0)))
	fmt.Printf("loss = %.4f, dloss/dw = %.4f\n", prog.Scalar(loss), prog.Scalar(dw))
	// Output:
	// u_x  = [0.3932 0.5000 0.3932]
	// loss = 0.0786, dloss/dw = -0.0458
}
