package ad

import (
	"fmt"
	"testing"
)

func TestDumpZZ(t *testing.T) {
	p := newPINN([]int{2, 6, 1}, 100, 1)
	grads := Grad(p.loss, p.ps...)
	prog := p.g.Compile(append([]*Node{p.loss}, grads...)...)
	for _, n := range prog.order {
		s := fmt.Sprintf("%v f=%g i=%d <-", n, n.f, n.i)
		for _, in := range n.in {
			s += " " + in.String()
		}
		fmt.Println(s)
	}
	fmt.Println(prog.Histogram())
}
