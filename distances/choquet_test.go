package distances_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reid-sdc/reid/distances"
)

// opHandMu is a fuzzy measure on 3 attributes, by bitmask (attribute 1 = bit 0):
//
//	∅ 0, {1} 0.1, {2} 0.2, {1,2} 0.4, {3} 0.3, {1,3} 0.5, {2,3} 0.6, {1,2,3} 1
//
// monotone: each singleton ≤ both pairs containing it (0.1 ≤ 0.4, 0.5; 0.2 ≤ 0.4, 0.6;
// 0.3 ≤ 0.5, 0.6) and every pair ≤ 1.
var opHandMu = []float64{0, 0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 1}

// TestChoquetHand checks C_μ = Σ_k (x_(k) − x_(k−1)) μ(A_(k)) on 3 attributes by hand.
// a = (0, 0, 0), so x_i = b_i².
func TestChoquetHand(t *testing.T) {
	tests := []struct {
		name string
		b    []float64
		want float64
	}{
		// x = (1, 4, 9), ascending attributes 1, 2, 3: A_(1) = {1,2,3}, A_(2) = {2,3}, A_(3) = {3}
		// (1 − 0)·1 + (4 − 1)·0.6 + (9 − 4)·0.3 = 1 + 1.8 + 1.5 = 4.3
		{"ascending", []float64{1, 2, 3}, 4.3},
		// x = (9, 1, 4), ascending attributes 2, 3, 1: A = {1,2,3}, {1,3}, {1}
		// 1·1 + 3·0.5 + 5·0.1 = 1 + 1.5 + 0.5 = 3
		{"permuted", []float64{3, -1, 2}, 3},
		// x = (4, 4, 1), ascending attributes 3, then 1 and 2 tied: A = {1,2,3}, {1,2}, {1} or {2}
		// 1·1 + 3·0.4 + 0·μ(either) = 1 + 1.2 = 2.2
		{"tie", []float64{2, -2, 1}, 2.2},
		// x = (1, 1, 1): 1·μ(V) and zero increments, = 1
		{"all equal", []float64{1, 1, -1}, 1},
		// x = (0, 0, 4): 0·1 + 0·μ({2,3}) + 4·μ({3}) = 4·0.3 = 1.2
		{"zeros", []float64{0, 0, 2}, 1.2},
		{"equal records", []float64{0, 0, 0}, 0},
	}
	c := opMust(distances.NewChoquet(opHandMu, 3))
	a := []float64{0, 0, 0}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Distance(a, tc.b); math.Abs(got-tc.want) > 4e-15*math.Max(1, tc.want) {
				t.Errorf("Distance = %.17g, want %v", got, tc.want)
			}
		})
	}

	// Features of the first case: φ_A = 1, 3, 5 at A = {1,2,3}, {2,3}, {3} (masks 7, 6, 4,
	// Params positions mask − 1 = 6, 5, 3), 0 elsewhere.
	phi := c.Features(make([]float64, 7), a, []float64{1, 2, 3})
	if want := []float64{0, 0, 0, 5, 0, 3, 1}; !slices.Equal(phi, want) {
		t.Errorf("Features = %v, want %v", phi, want)
	}
	if got := c.Params(); !slices.Equal(got, opHandMu[1:]) {
		t.Errorf("Params = %v, want %v", got, opHandMu[1:])
	}
}

// TestSpecialMeasures checks the two constructors on 3 attributes by hand.
func TestSpecialMeasures(t *testing.T) {
	// p = (0.2, 0.3, 0.5): {1} .2, {2} .3, {1,2} .5, {3} .5, {1,3} .7, {2,3} .8, V 1.
	add := distances.AdditiveMeasure([]float64{0.2, 0.3, 0.5})
	// w = (0.5, 0.3, 0.2): |A| = 1 → 0.5, |A| = 2 → 0.8, |A| = 3 → 1.
	sym := distances.SymmetricMeasure([]float64{0.5, 0.3, 0.2})
	for _, tc := range []struct {
		name      string
		got, want []float64
	}{
		{"additive", add, []float64{0, 0.2, 0.3, 0.5, 0.5, 0.7, 0.8, 1}},
		{"symmetric", sym, []float64{0, 0.5, 0.5, 0.8, 0.5, 0.8, 0.8, 1}},
	} {
		if len(tc.got) != len(tc.want) {
			t.Fatalf("%s: len %d, want %d", tc.name, len(tc.got), len(tc.want))
		}
		for mask := range tc.want {
			if math.Abs(tc.got[mask]-tc.want[mask]) > 1e-15 {
				t.Errorf("%s: μ[%d] = %v, want %v", tc.name, mask, tc.got[mask], tc.want[mask])
			}
		}
	}
	// With the symmetric measure, x = (1, 4, 9) (b = (1, 2, 3)):
	// 1·μ(3 attrs) + 3·μ(2 attrs) + 5·μ(1 attr) = 1 + 2.4 + 2.5 = 5.9, which is OWA_w:
	// 0.5·9 + 0.3·4 + 0.2·1 = 5.9 (w_1 on the largest diff, as in NewOWA).
	c := opMust(distances.NewChoquet(sym, 3))
	if got := c.Distance([]float64{0, 0, 0}, []float64{1, 2, 3}); math.Abs(got-5.9) > 4e-15*5.9 {
		t.Errorf("Choquet(symmetric) = %.17g, want 5.9", got)
	}
}

// opChainFeatures is φ from an explicit ascending order of the attributes (an independent
// implementation of the definition): φ_{A_(k)} = x_(k) − x_(k−1), A_(k) = {order[k:]}.
func opChainFeatures(x []float64, order []int) []float64 {
	m := len(x)
	phi := make([]float64, 1<<m-1)
	mask := 1<<m - 1
	prev := 0.0
	for _, i := range order {
		phi[mask-1] = x[i] - prev
		prev = x[i]
		mask &^= 1 << i
	}
	return phi
}

func opPermutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range opPermutations(n - 1) {
		for pos := 0; pos <= len(p); pos++ {
			q := slices.Insert(slices.Clone(p), pos, n-1)
			out = append(out, q)
		}
	}
	return out
}

// TestChoquetTies verifies that with ties among the diffs every ascending order gives the
// same features (hence the same distance). Reason: an increment x_(k) − x_(k−1) is non-zero
// only where a new value t starts, and there A_(k) = {i : x_i ≥ t} whatever the order of
// the ties; inside a run of ties the increments are exactly 0.
func TestChoquetTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const m = 4
	mu := opMeasure(rng, m)
	c := opMust(distances.NewChoquet(mu, m))
	a := make([]float64, m)
	for _, b := range [][]float64{
		{1, 1, 2, 0},  // x = (1, 1, 4, 0): 2 orders
		{2, 0, -2, 0}, // x = (4, 0, 4, 0): 4 orders
		{1, -1, 1, 1}, // x all 1: 24 orders
		{0, 0, 0, 0},  // x all 0: 24 orders
		{3, 1, 2, 0},  // no tie: 1 order
	} {
		x := distances.Diffs(make([]float64, m), a, b)
		got := c.Features(make([]float64, 1<<m-1), a, b)
		d := c.Distance(a, b)
		orders := 0
		for _, order := range opPermutations(m) {
			ascending := true
			for k := 1; k < m; k++ {
				ascending = ascending && x[order[k-1]] <= x[order[k]]
			}
			if !ascending {
				continue
			}
			orders++
			want := opChainFeatures(x, order)
			if !slices.Equal(got, want) {
				t.Errorf("x=%v order %v: Features %v, want %v", x, order, got, want)
			}
			if s := opDot(c.Params(), want); !opRelClose(s, d, opRelTol) {
				t.Errorf("x=%v order %v: μ·φ = %v, Distance = %v", x, order, s, d)
			}
		}
		if orders == 0 {
			t.Fatalf("x=%v: no ascending order", x)
		}
	}
}

func TestChoquetAccessors(t *testing.T) {
	mu := append([]float64(nil), opHandMu...)
	mu[7] = 1 - 5e-10 // within 1e-9 of 1: accepted and stored as 1
	c := opMust(distances.NewChoquet(mu, 3))
	if c.Name() != "choquet" || c.Attributes() != 3 {
		t.Errorf("Name %q, Attributes %d", c.Name(), c.Attributes())
	}
	if p := c.Params(); len(p) != 7 || p[6] != 1 {
		t.Errorf("Params = %v: want 2^3 − 1 = 7 values ending with μ(V) = 1", p)
	}
	if got := c.Measure(); len(got) != 8 || got[0] != 0 || got[7] != 1 {
		t.Errorf("Measure = %v", got)
	}
	mu[1] = 0.05
	if c.Measure()[1] != 0.1 {
		t.Error("NewChoquet does not copy mu")
	}
	// m = 1: the only measure is μ({1}) = 1 and C = x_1.
	one := opMust(distances.NewChoquet([]float64{0, 1}, 1))
	if got := one.Distance([]float64{1}, []float64{-2}); got != 9 {
		t.Errorf("m = 1: Distance = %v, want 9", got)
	}
}

func TestChoquetNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, m := range []int{1, 3, 13, 20} {
		c := opMust(distances.NewChoquet(distances.AdditiveMeasure(opSimplex(rng, m)), m))
		a, b := opRecord(rng, m), opRecord(rng, m)
		var sink float64
		if n := testing.AllocsPerRun(100, func() { sink += c.Distance(a, b) }); n != 0 {
			t.Errorf("m=%d: Distance allocates %v times per call", m, n)
		}
		if m > 13 {
			continue // Features clears 2^m entries: fine, but slow to repeat
		}
		phi := make([]float64, 1<<m-1)
		if n := testing.AllocsPerRun(100, func() { c.Features(phi, a, b) }); n != 0 {
			t.Errorf("m=%d: Features allocates %v times per call", m, n)
		}
	}
}

func BenchmarkChoquetDistance(b *testing.B) {
	const m = 13
	rng := rand.New(rand.NewPCG(25, 26))
	benchmarkDistance(b, rng, opMust(distances.NewChoquet(opMeasure(rng, m), m)), m)
}

// Shapley values and interaction indices: the two-attribute case by hand, additive and
// symmetric measures, and a 2-additive measure whose Möbius masses give both in closed
// form (Grabisch 1997: φ_i = a_i + ½ Σ_j a_ij, I_ij = a_ij).
func TestShapleyAndInteraction(t *testing.T) {
	close := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	// m = 2, μ({1}) = 0.2, μ({2}) = 0.5: φ_1 = (1 + 0.2 − 0.5)/2, I_12 = 1 − 0.2 − 0.5.
	mu := []float64{0, 0.2, 0.5, 1}
	phi, in := distances.ShapleyValues(mu, 2), distances.InteractionIndices(mu, 2)
	if !close(phi[0], 0.35) || !close(phi[1], 0.65) || !close(in[0][1], 0.3) || in[0][0] != 0 {
		t.Errorf("m = 2: φ = %v, I = %v", phi, in)
	}
	p := []float64{0.1, 0.4, 0.2, 0.3}
	phi, in = distances.ShapleyValues(distances.AdditiveMeasure(p), 4), distances.InteractionIndices(distances.AdditiveMeasure(p), 4)
	for i := range p {
		if !close(phi[i], p[i]) {
			t.Errorf("additive: φ = %v, want %v", phi, p)
		}
		for j := range p {
			if !close(in[i][j], 0) {
				t.Errorf("additive: I = %v", in)
			}
		}
	}
	phi = distances.ShapleyValues(distances.SymmetricMeasure([]float64{0.5, 0.1, 0.3, 0.1}), 4)
	for i := range phi {
		if !close(phi[i], 0.25) {
			t.Errorf("symmetric: φ = %v", phi)
		}
	}
	// 2-additive on m = 4: singletons a_i, pairs a_ij (monotone: a_i + Σ_{j∈B} a_ij ≥ 0).
	a := []float64{0.1, 0.2, 0.3, 0.15}
	pair := [][]float64{{0, 0.1, -0.05, 0}, {0.1, 0, 0, 0.05}, {-0.05, 0, 0, 0.1}, {0, 0.05, 0.1, 0}}
	// Σ a_i + Σ_{i<j} a_ij = 0.75 + 0.2 = 0.95: add 0.05 to a_4 for μ(V) = 1.
	a[3] += 0.05
	mu = make([]float64, 16)
	for mask := range mu {
		for i := range 4 {
			if mask&(1<<i) != 0 {
				mu[mask] += a[i]
				for j := i + 1; j < 4; j++ {
					if mask&(1<<j) != 0 {
						mu[mask] += pair[i][j]
					}
				}
			}
		}
	}
	if _, err := distances.NewChoquet(mu, 4); err != nil {
		t.Fatal(err)
	}
	phi, in = distances.ShapleyValues(mu, 4), distances.InteractionIndices(mu, 4)
	sum := 0.0
	for i := range 4 {
		want := a[i]
		for j := range 4 {
			want += pair[i][j] / 2
			if !close(in[i][j], pair[i][j]) {
				t.Errorf("2-additive: I[%d][%d] = %v, want %v", i, j, in[i][j], pair[i][j])
			}
		}
		if !close(phi[i], want) {
			t.Errorf("2-additive: φ[%d] = %v, want %v", i, phi[i], want)
		}
		sum += phi[i]
	}
	if !close(sum, 1) {
		t.Errorf("Σ φ = %v", sum)
	}
}
