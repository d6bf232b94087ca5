package snapshot

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPermute checks that permute puts notices in the order given, for
// orders made of one cycle, of many, and of none, and that it leaves the
// order as it found it.
func TestPermute(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{0, 1, 2, 3, 10, 1000} {
		for trial := range 5 {
			order := make([]int32, n)
			for i := range order {
				order[i] = int32(i)
			}
			if trial > 0 {
				rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			notices := make([]Notice, n)
			for i := range notices {
				notices[i].ID = int64(100 + i)
			}
			want := make([]int64, n)
			for i, from := range order {
				want[i] = int64(100 + from)
			}
			given := slices.Clone(order)
			permute(notices, order)
			got := make([]int64, n)
			for i := range notices {
				got[i] = notices[i].ID
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%d notices, order %v: got ids %v, want %v", n, given, got, want)
			}
			if !slices.Equal(order, given) {
				t.Fatalf("%d notices: order changed from %v to %v", n, given, order)
			}
		}
	}
}
