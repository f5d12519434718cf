package schedule_test

import (
	"fmt"

	"github.com/evidence-pinn/bpinn/pkg/schedule"
)

// A problem's measured schedule, and the same schedule for a user's own
// measurements: their stated noise is not the problem's.
func ExampleSchedule_ForData() {
	s := schedule.Schedule{Hidden: []int{8, 8}, Epochs: 15000, HyperStart: 5000, HyperEvery: 25,
		KnownNoise: map[string]float64{"data": 0.02}}
	d := s.ForData()
	fmt.Println(s.Hidden, s.Epochs, s.KnownNoise)
	fmt.Println(d.Hidden, d.Epochs, d.KnownNoise)
	// Output:
	// [8 8] 15000 map[data:0.02]
	// [8 8] 15000 map[]
}
