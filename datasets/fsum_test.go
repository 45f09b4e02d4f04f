package datasets

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestExactSum: the sum is the exact total (math/big, 2,000 bits) rounded to nearest,
// in any order, on values of widely different magnitudes and cancelling signs, and on
// hand cases where plain summation loses everything (1e16 + 1 − 1e16).
func TestExactSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Ldexp(rng.NormFloat64(), rng.IntN(120)-60)
		}
		exact := new(big.Float).SetPrec(2000)
		for _, x := range xs {
			exact.Add(exact, new(big.Float).SetPrec(2000).SetFloat64(x))
		}
		want, _ := exact.Float64() // nearest, ties to even
		for range 3 {
			rng.Shuffle(n, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
			var s exactSum
			for _, x := range xs {
				s.add(x)
			}
			if got := s.value(); got != want {
				t.Fatalf("trial %d: %v, want %v", trial, got, want)
			}
		}
	}
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1e16, 1, -1e16}, 1},
		{[]float64{1, 1e100, 1, -1e100}, 2},
		{[]float64{}, 0},
		// 2^53 + 1 + 2^-60: past the halfway point between 2^53 and 2^53 + 2.
		{[]float64{1 << 53, 1, math.Ldexp(1, -60)}, 1<<53 + 2},
		{[]float64{1 << 53, 1}, 1 << 53}, // exactly halfway: to even
	} {
		var s exactSum
		for _, x := range c.xs {
			s.add(x)
		}
		if got := s.value(); got != c.want {
			t.Errorf("sum of %v = %v, want %v", c.xs, got, c.want)
		}
	}
}

// TestStandardizePermutationSameBits: a column and a permutation of it (rank swapping
// permutes a column's values) get the same mean and sd to the bit, so equal values get
// equal z-scores: their difference is exactly 0, where plain summation in another order
// left a residue of about 1e-16 that broke exact ties of DBRL at random.
func TestStandardizePermutationSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 5000
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Round(rng.ExpFloat64()*30000) + 0.1*float64(rng.IntN(10))
	}
	w := append([]float64(nil), v...)
	a := meanSD(&Column{Kind: Numeric, Values: v})
	for range 20 {
		rng.Shuffle(n, func(i, j int) { w[i], w[j] = w[j], w[i] })
		if b := meanSD(&Column{Kind: Numeric, Values: w}); a != b {
			t.Fatalf("moments %+v and %+v of the same values in another order", a, b)
		}
	}
}
