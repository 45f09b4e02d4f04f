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

// TestBandScans compares CountBetween and FirstNotBetween with their plain loops, with
// bounds equal to elements (the band is open), NaN entries and empty bands.
func TestBandScans(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 60; trial++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(rng.IntN(10)) / 10 // repeated values: equality at the bounds
				if rng.IntN(11) == 0 {
					x[i] = math.NaN()
				}
			}
			lo, hi := float64(rng.IntN(12))/10-0.1, float64(rng.IntN(12))/10-0.1
			limit := float64(rng.IntN(12))/10 - 0.1
			if got, want := CountBetween(x, lo, hi), countBetweenGeneric(x, lo, hi); got != want {
				t.Fatalf("CountBetween(%v, %v, %v) = %d, want %d", x, lo, hi, got, want)
			}
			if got, want := FirstNotBetween(x, lo, hi, limit), firstNotBetweenGeneric(x, lo, hi, limit); got != want {
				t.Fatalf("FirstNotBetween(%v, %v, %v, %v) = %d, want %d", x, lo, hi, limit, got, want)
			}
		}
	}
}
