package distances_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reid-sdc/reid/distances"
)

// TestOWAHand checks OWA on 3 attributes against sums done by hand. a = (0, 0, 0) in every
// case, so diff_i = b_i².
func TestOWAHand(t *testing.T) {
	tests := []struct {
		name string
		w, b []float64
		want float64
	}{
		// diffs (1, 4, 9), decreasing (9, 4, 1): 0.5·9 + 0.3·4 + 0.2·1 = 4.5 + 1.2 + 0.2 = 5.9
		{"ascending", []float64{0.5, 0.3, 0.2}, []float64{1, 2, 3}, 5.9},
		// diffs (9, 1, 4): the same multiset, so the same 5.9 (OWA ignores which attribute)
		{"permuted", []float64{0.5, 0.3, 0.2}, []float64{3, -1, 2}, 5.9},
		// diffs (4, 4, 1), decreasing (4, 4, 1): 0.5·4 + 0.3·4 + 0.2·1 = 2 + 1.2 + 0.2 = 3.4
		{"tie", []float64{0.5, 0.3, 0.2}, []float64{2, -2, 1}, 3.4},
		// w_1 weighs the largest: (1, 0, 0) is the max, 9
		{"max", []float64{1, 0, 0}, []float64{1, 2, 3}, 9},
		// (0, 0, 1) is the min, 1
		{"min", []float64{0, 0, 1}, []float64{1, 2, 3}, 1},
		// (0, 1, 0) is the median of (1, 4, 9), 4
		{"median", []float64{0, 1, 0}, []float64{3, 1, 2}, 4},
		// diffs (0.25, 0, 2.25), decreasing (2.25, 0.25, 0): 0.2·2.25 + 0.3·0.25 + 0.5·0
		// = 0.45 + 0.075 = 0.525
		{"halves", []float64{0.2, 0.3, 0.5}, []float64{0.5, 0, -1.5}, 0.525},
		{"equal records", []float64{0.5, 0.3, 0.2}, []float64{0, 0, 0}, 0},
	}
	a := []float64{0, 0, 0}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := opMust(distances.NewOWA(tc.w))
			if got := o.Distance(a, tc.b); math.Abs(got-tc.want) > 1e-15*math.Max(1, tc.want)*4 {
				t.Errorf("Distance = %.17g, want %v", got, tc.want)
			}
		})
	}
}

func TestOWAFeatures(t *testing.T) {
	o := opMust(distances.NewOWA([]float64{0.5, 0.3, 0.2}))
	// diffs of (0,0,0) and (3,-1,2) are (9, 1, 4); sorted decreasingly (9, 4, 1).
	got := o.Features(make([]float64, 3), []float64{0, 0, 0}, []float64{3, -1, 2})
	if want := []float64{9, 4, 1}; !slices.Equal(got, want) {
		t.Errorf("Features = %v, want %v", got, want)
	}
	if o.Name() != "owa" || o.Attributes() != 3 || !slices.Equal(o.Params(), []float64{0.5, 0.3, 0.2}) {
		t.Errorf("Name %q, Attributes %d, Params %v", o.Name(), o.Attributes(), o.Params())
	}
	// NewOWA copies w.
	w := []float64{0.5, 0.5}
	o2 := opMust(distances.NewOWA(w))
	w[0] = 7
	if o2.Params()[0] != 0.5 {
		t.Error("NewOWA does not copy w")
	}
}

// TestOWAManyAttributes covers m above the stack buffer (the O(m²) ranking path) against
// Features, which sorts in the caller's buffer, and against a sort of the diffs.
func TestOWAManyAttributes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, m := range []int{31, 32, 33, 50} {
		o := opMust(distances.NewOWA(opSimplex(rng, m)))
		phi := make([]float64, m)
		for trial := 0; trial < 50; trial++ {
			a, b := opRecord(rng, m), opRecord(rng, m)
			if trial == 0 { // ties: equal diffs at several places
				copy(b[m/2:], a[m/2:])
			}
			d := distances.Diffs(make([]float64, m), a, b)
			slices.Sort(d)
			slices.Reverse(d)
			want := opDot(o.Params(), d)
			if got := o.Distance(a, b); !opRelClose(got, want, opRelTol) {
				t.Fatalf("m=%d: Distance = %.17g, want %.17g", m, got, want)
			}
			if got := opDot(o.Params(), o.Features(phi, a, b)); !opRelClose(got, want, opRelTol) {
				t.Fatalf("m=%d: Params·Features = %.17g, want %.17g", m, got, want)
			}
		}
	}
}

func TestOWANoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, m := range []int{3, 13, 20, 32, 40} {
		o := opMust(distances.NewOWA(opSimplex(rng, m)))
		a, b := opRecord(rng, m), opRecord(rng, m)
		var sink float64
		if n := testing.AllocsPerRun(100, func() { sink += o.Distance(a, b) }); n != 0 {
			t.Errorf("m=%d: Distance allocates %v times per call", m, n)
		}
		phi := make([]float64, m)
		if n := testing.AllocsPerRun(100, func() { o.Features(phi, a, b) }); n != 0 {
			t.Errorf("m=%d: Features allocates %v times per call", m, n)
		}
	}
}

func BenchmarkOWADistance(b *testing.B) {
	const m = 13
	rng := rand.New(rand.NewPCG(15, 16))
	benchmarkDistance(b, rng, opMust(distances.NewOWA(opSimplex(rng, m))), m)
}

// benchmarkDistance times op.Distance over pairs of 64 random records of m attributes.
func benchmarkDistance(b *testing.B, rng *rand.Rand, op distances.Operator, m int) {
	const n = 64
	recs := make([][]float64, n)
	for i := range recs {
		recs[i] = opRecord(rng, m)
	}
	b.ReportAllocs()
	sink := 0.0
	i := 0
	for b.Loop() {
		sink += op.Distance(recs[i%n], recs[(i+1)%n])
		i++
	}
	_ = sink
}
