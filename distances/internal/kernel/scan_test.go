package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFirstAtMost compares the dispatched implementation with the plain loop on every
// length up to 40 (whole vectors and tails), limits at, between and beyond the values,
// NaN entries and a NaN limit.
func TestFirstAtMost(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 50; trial++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.Float64()
				if rng.IntN(9) == 0 {
					x[i] = math.NaN()
				}
			}
			limits := []float64{-1, 0.01, 0.5, 2, math.NaN()}
			if n > 0 {
				limits = append(limits, x[rng.IntN(n)]) // equality must count
			}
			for _, l := range limits {
				if got, want := FirstAtMost(x, l), firstAtMostGeneric(x, l); got != want {
					t.Fatalf("n=%d limit=%v: %d, want %d (%v)", n, l, got, want, x)
				}
			}
		}
	}
}

func BenchmarkFirstAtMost(b *testing.B) {
	x := make([]float64, 2048)
	for i := range x {
		x[i] = 1 + float64(i%7)
	}
	for b.Loop() {
		FirstAtMost(x, 0.5)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2048, "ns/elem")
}
