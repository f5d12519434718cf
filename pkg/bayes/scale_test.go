package bayes_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-pinn/bpinn/pkg/bayes"
	"github.com/evidence-pinn/bpinn/pkg/nn"
	"github.com/evidence-pinn/bpinn/pkg/pde"
	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// wideODE is u_x = 30 (pi/50) cos(pi x / 50) on x in [0, 100] with
// u(0) = 50: u = 50 + 30 sin(pi x / 50), two periods over a box 100 wide,
// values around 50. Written in physical units, as a user would.
func wideODE(t *testing.T) *pde.Problem {
	t.Helper()
	p := &pde.Problem{Name: "wide-ode", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{100},
		Terms: []pde.Term{
			pde.PDE("u_x = 30*(pi/50)*cos(pi*x/50)", 80),
			pde.InitialValue("x", 1, 50),
		},
		Exact: func(x []float64) float64 { return 50 + 30*math.Sin(math.Pi*x[0]/50) },
	}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// On a box 100 wide with values near 50 the unmapped network (inputs and
// outputs as the user wrote them) fails: its tanh units saturate across
// the box and its output must reach 50. The maps (the default for settings
// without a schedule, auto, maps this box and field: both are far from
// unit scale) make it the unit problem, and the fit meets it.
func TestScaleWideBox(t *testing.T) {
	t.Parallel()
	p := wideODE(t)
	rel := map[bayes.Scale]float64{}
	for _, sc := range []bayes.Scale{"", bayes.ScaleNone} {
		f, err := bayes.Train(context.Background(), p, bayes.Settings{Seed: 1, Hidden: []int{16}, Epochs: 3000, Scale: sc})
		if err != nil {
			t.Fatal(err)
		}
		e, err := f.GridErrors(200)
		if err != nil {
			t.Fatal(err)
		}
		rel[sc] = e.RelL2
		t.Logf("scale %q: status %s, rel L2 %.3g, betas %v", sc, f.Status, e.RelL2, f.Beta)
		if sc == "" && (f.Settings.Scale != bayes.ScaleAuto || !f.Model.Net.Mapped()) {
			t.Errorf("settings without a schedule resolve to scale %q, mapped %v; want auto, mapped", f.Settings.Scale, f.Model.Net.Mapped())
		}
	}
	if rel[""] > 1e-3 || rel[bayes.ScaleNone] < 0.3 {
		t.Errorf("rel L2 mapped %.3g (want below 1e-3), unmapped %.3g (want above 0.3: the failure the maps cure)", rel[""], rel[bayes.ScaleNone])
	}
}

// Resolve's default: auto without a schedule (a problem nobody measured),
// none under one (the paper's problems), an explicit choice kept, and an
// unknown one refused naming the setting.
func TestScaleResolve(t *testing.T) {
	t.Parallel()
	p := wideODE(t)
	for _, c := range []struct {
		s    bayes.Settings
		want bayes.Scale
	}{
		{bayes.Settings{Seed: 1, Hidden: []int{4}, Epochs: 10}, bayes.ScaleAuto},
		{bayes.Settings{Seed: 1, Schedule: schedule.Schedule{Hidden: []int{4}, Epochs: 10}}, bayes.ScaleNone},
		{bayes.Settings{Seed: 1, Schedule: schedule.Schedule{Hidden: []int{4}, Epochs: 10}, Scale: bayes.ScaleBox}, bayes.ScaleBox},
		{bayes.Settings{Seed: 1, Hidden: []int{4}, Epochs: 10, Scale: bayes.ScaleNone}, bayes.ScaleNone},
	} {
		r, err := c.s.Resolve(p)
		if err != nil || r.Scale != c.want {
			t.Errorf("%+v: scale %q, error %v; want %q", c.s, r.Scale, err, c.want)
		}
	}
	_, err := bayes.Settings{Seed: 1, Hidden: []int{4}, Epochs: 10, Scale: "unit"}.Resolve(p)
	if err == nil || !strings.Contains(err.Error(), "scale") {
		t.Errorf("scale unit: error %v, want one naming the scale", err)
	}
}

// ScaleMaps: the box to [-1, 1]; each field's shift and scale the mean and
// standard deviation of its stated values, the mean's magnitude when they
// are all equal, 0 and 1 when the field has none.
func TestScaleMaps(t *testing.T) {
	t.Parallel()
	p := &pde.Problem{Name: "maps", Inputs: []string{"x", "t"}, Outputs: []string{"u", "v", "w"},
		Lo: []float64{0, -4}, Hi: []float64{100, 0},
		Terms: []pde.Term{
			pde.PDE("u_t = v_xx + w", 5),
			pde.Dirichlet(pde.Boundary("t"), 4, 50),
			pde.Measurements(&pde.Data{Points: [][]float64{{1, -1}, {2, -1}}, U: []float64{-1, 3}}).For("v"),
		},
	}
	q, err := p.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	net := nn.Zero([]int{2, 3, 3}, nn.Tanh)
	bayes.ScaleMaps(net, q)
	for _, c := range []struct {
		name      string
		got, want []float64
	}{
		{"input shift", net.InShift, []float64{50, -2}},
		{"input scale", net.InScale, []float64{50, 2}},
		{"output shift", net.OutShift, []float64{50, 1, 0}},
		{"output scale", net.OutScale, []float64{50, 2, 1}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
}

// AutoMaps maps only what is far from unit scale: a unit box with values
// of order one gets no maps (the fit is ScaleNone's, bit for bit); a box
// 100 wide with a field near 50 gets both.
func TestAutoMaps(t *testing.T) {
	t.Parallel()
	unit := &pde.Problem{Name: "unit", Inputs: []string{"x"}, Lo: []float64{0}, Hi: []float64{1},
		Terms: []pde.Term{pde.PDE("u_x = cos(x)", 20), pde.InitialValue("x", 1, 0.5)}}
	q, err := unit.Sample(1)
	if err != nil {
		t.Fatal(err)
	}
	var fits []*bayes.Fit
	for _, sc := range []bayes.Scale{bayes.ScaleAuto, bayes.ScaleNone} {
		f, err := bayes.Train(context.Background(), q, bayes.Settings{Seed: 1, Hidden: []int{4}, Epochs: 200, Scale: sc})
		if err != nil {
			t.Fatal(err)
		}
		fits = append(fits, f)
	}
	if fits[0].Model.Net.Mapped() || !slices.Equal(fits[0].Model.Net.W, fits[1].Model.Net.W) {
		t.Errorf("unit problem under auto: mapped %v, weights equal to none's %v; want unmapped, equal", fits[0].Model.Net.Mapped(), slices.Equal(fits[0].Model.Net.W, fits[1].Model.Net.W))
	}
	net := nn.New([]int{1, 4, 1}, "", rand.New(rand.NewPCG(1, 1)))
	bayes.AutoMaps(net, wideODE(t))
	if !net.Mapped() || net.InScale[0] != 50 || net.OutShift[0] != 50 {
		t.Errorf("wide problem under auto: mapped %v, in scale %v, out shift %v; want mapped, 50, 50", net.Mapped(), net.InScale, net.OutShift)
	}
}
