package distances_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/reid-sdc/reid/distances"
)

// opRelTol is the relative tolerance of two evaluations of the same distance in different
// orders of floating-point summation: every sum here has at most a few hundred terms of
// magnitude ≲ 100, so rounding stays many orders below 1e-12 of the result.
const opRelTol = 1e-12

func opRelClose(got, want, tol float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= tol*math.Max(math.Abs(got), math.Abs(want))
}

// opRecord is a random standardised record of m attributes.
func opRecord(rng *rand.Rand, m int) []float64 {
	r := make([]float64, m)
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	return r
}

// opSimplex is a random point of the simplex of dimension m.
func opSimplex(rng *rand.Rand, m int) []float64 {
	p := make([]float64, m)
	s := 0.0
	for i := range p {
		p[i] = rng.ExpFloat64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// opMeasure is a random fuzzy measure on m attributes: random values made monotone by
// μ(A) = max(g(A), max_{i∈A} μ(A∖{i})), then divided by μ(V).
func opMeasure(rng *rand.Rand, m int) []float64 {
	mu := make([]float64, 1<<m)
	for mask := 1; mask < len(mu); mask++ {
		v := rng.Float64()
		for rest := mask; rest != 0; rest &= rest - 1 {
			v = math.Max(v, mu[mask&^(rest&-rest)])
		}
		mu[mask] = v
	}
	top := mu[len(mu)-1]
	for mask := range mu {
		mu[mask] /= top
	}
	mu[len(mu)-1] = 1
	return mu
}

// opSPD is a random symmetric positive definite m×m matrix B Bᵀ + I/m.
func opSPD(rng *rand.Rand, m int) *mat.SymDense {
	b := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	s := mat.NewSymDense(m, nil)
	s.SymOuterK(1, b)
	for i := 0; i < m; i++ {
		s.SetSym(i, i, s.At(i, i)+1/float64(m))
	}
	return s
}

// opMust returns v, or panics (failing the test) with a constructor's error.
func opMust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// opOperators is one operator of every kind on m attributes with random parameters.
func opOperators(t testing.TB, rng *rand.Rand, m int) []distances.Operator {
	return []distances.Operator{
		distances.NewEuclidean(m),
		opMust(distances.NewWeightedMean(opSimplex(rng, m))),
		opMust(distances.NewOWA(opSimplex(rng, m))),
		opMust(distances.NewBilinear(opSPD(rng, m))),
		opMust(distances.NewMahalanobis(opSPD(rng, m))),
		opMust(distances.NewChoquet(opMeasure(rng, m), m)),
	}
}

func opDot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestParamsDotFeatures checks the linear form the optimiser relies on,
// Distance(a, b) = Params() · Features(a, b), for every operator on random records.
func TestParamsDotFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 3, 7} {
		for _, op := range opOperators(t, rng, m) {
			if op.Attributes() != m {
				t.Fatalf("%s: Attributes() = %d, want %d", op.Name(), op.Attributes(), m)
			}
			theta := op.Params()
			dst := make([]float64, len(theta)+3) // Features must cut dst to length
			for trial := 0; trial < 200; trial++ {
				a, b := opRecord(rng, m), opRecord(rng, m)
				phi := op.Features(dst, a, b)
				if len(phi) != len(theta) {
					t.Fatalf("%s m=%d: len(Features) = %d, len(Params) = %d", op.Name(), m, len(phi), len(theta))
				}
				want := op.Distance(a, b)
				if got := opDot(theta, phi); !opRelClose(got, want, opRelTol) {
					t.Fatalf("%s m=%d: Params·Features = %.17g, Distance = %.17g", op.Name(), m, got, want)
				}
			}
		}
	}
}

// TestEmbedderTransform checks d(a, b) = |T a − T b|² for the operators that embed.
func TestEmbedderTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const m = 6
	n := 0
	for _, op := range opOperators(t, rng, m) {
		e, ok := op.(distances.Embedder)
		switch op.Name() {
		case "euclidean", "wm", "bilinear", "mahalanobis":
			if !ok {
				t.Fatalf("%s is not an Embedder", op.Name())
			}
		default:
			continue
		}
		n++
		tr := e.Transform()
		if _, c := tr.Dims(); c != m {
			t.Fatalf("%s: Transform has %d columns, want %d", op.Name(), c, m)
		}
		for trial := 0; trial < 200; trial++ {
			a, b := opRecord(rng, m), opRecord(rng, m)
			var ta, tb mat.VecDense
			ta.MulVec(tr, mat.NewVecDense(m, a))
			tb.MulVec(tr, mat.NewVecDense(m, b))
			ta.SubVec(&ta, &tb)
			got := mat.Dot(&ta, &ta)
			if want := op.Distance(a, b); !opRelClose(got, want, opRelTol) {
				t.Fatalf("%s: |Ta − Tb|² = %.17g, Distance = %.17g", op.Name(), got, want)
			}
		}
	}
	if n != 4 {
		t.Fatalf("checked %d embedders, want 4", n)
	}
}

// TestHierarchy checks the nesting of the design note: each special case of a larger
// family gives the same distance as the smaller operator.
func TestHierarchy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m = 5
	p, w := opSimplex(rng, m), opSimplex(rng, m)
	equal := make([]float64, m)
	for i := range equal {
		equal[i] = 1 / float64(m)
	}
	diag := mat.NewSymDense(m, nil)
	for i, v := range p {
		diag.SetSym(i, i, v)
	}
	wm := opMust(distances.NewWeightedMean(p))
	owa := opMust(distances.NewOWA(w))
	tests := []struct {
		name        string
		big, little distances.Operator
	}{
		{"WM(1/m) = Euclidean", opMust(distances.NewWeightedMean(equal)), distances.NewEuclidean(m)},
		{"OWA(1/m) = Euclidean", opMust(distances.NewOWA(equal)), distances.NewEuclidean(m)},
		{"Bilinear(diag p) = WM(p)", opMust(distances.NewBilinear(diag)), wm},
		{"Choquet(additive p) = WM(p)", opMust(distances.NewChoquet(distances.AdditiveMeasure(p), m)), wm},
		{"Choquet(symmetric w) = OWA(w)", opMust(distances.NewChoquet(distances.SymmetricMeasure(w), m)), owa},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for trial := 0; trial < 500; trial++ {
				a, b := opRecord(rng, m), opRecord(rng, m)
				got, want := tc.big.Distance(a, b), tc.little.Distance(a, b)
				if !opRelClose(got, want, opRelTol) {
					t.Fatalf("a=%v b=%v: %.17g, want %.17g", a, b, got, want)
				}
			}
		})
	}
}

// TestMahalanobisDiagonal: for Σ = diag(s²) = diag(1, 2, 4), Σ⁻¹ = diag(1, 1/2, 1/4) with
// trace 7/4, so NewMahalanobis is the bilinear form of diag(4/7, 2/7, 1/7): the weighted
// mean with p_i ∝ 1/s_i², normalised to sum (trace) 1.
func TestMahalanobisDiagonal(t *testing.T) {
	cov := mat.NewSymDense(3, []float64{1, 0, 0, 0, 2, 0, 0, 0, 4})
	maha := opMust(distances.NewMahalanobis(cov))
	want := []float64{4.0 / 7, 2.0 / 7, 1.0 / 7}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			w := 0.0
			if i == j {
				w = want[i]
			}
			if got := maha.Matrix().At(i, j); math.Abs(got-w) > 1e-15 {
				t.Errorf("W[%d][%d] = %.17g, want %.17g", i, j, got, w)
			}
		}
	}
	wm := opMust(distances.NewWeightedMean(want))
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		a, b := opRecord(rng, 3), opRecord(rng, 3)
		if got, w := maha.Distance(a, b), wm.Distance(a, b); !opRelClose(got, w, opRelTol) {
			t.Fatalf("Mahalanobis %.17g, WM(4/7, 2/7, 1/7) %.17g", got, w)
		}
	}
}

// TestValidation checks the parameter errors of every constructor: each wraps
// ErrInvalidParams and says what is wrong.
func TestValidation(t *testing.T) {
	// μ on 3 attributes by bitmask (attribute 1 = bit 0), monotone except where changed.
	good := []float64{0, 0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 1}
	with := func(mask int, v float64) []float64 {
		mu := append([]float64(nil), good...)
		mu[mask] = v
		return mu
	}
	tests := []struct {
		name string
		err  func() error
		want []string // substrings of the message
	}{
		{"wm sum", func() error { _, err := distances.NewWeightedMean([]float64{0.5, 0.6}); return err }, []string{"sum to 1.1"}},
		{"wm negative", func() error { _, err := distances.NewWeightedMean([]float64{1.5, -0.5}); return err }, []string{"weight 2 is -0.5"}},
		{"wm empty", func() error { _, err := distances.NewWeightedMean(nil); return err }, []string{"no weights"}},
		{"owa sum", func() error { _, err := distances.NewOWA([]float64{0.2, 0.2}); return err }, []string{"owa", "sum to 0.4"}},
		{"owa negative", func() error { _, err := distances.NewOWA([]float64{-0.1, 1.1}); return err }, []string{"weight 1 is -0.1"}},
		{"owa NaN", func() error { _, err := distances.NewOWA([]float64{math.NaN(), 1}); return err }, []string{"NaN"}},
		{"owa empty", func() error { _, err := distances.NewOWA([]float64{}); return err }, []string{"no weights"}},
		{"wm sum off by 1e-4", func() error { _, err := distances.NewWeightedMean([]float64{0.3333, 0.3333, 0.3333}); return err }, []string{"sum to 0.9999"}},
		{"bilinear zero", func() error { _, err := distances.NewBilinear(mat.NewSymDense(2, nil)); return err }, []string{"bilinear", "W is zero"}},
		// [[1,2],[2,1]] has eigenvalues 1 ± 2 = 3 and −1.
		{"bilinear not PSD", func() error {
			_, err := distances.NewBilinear(mat.NewSymDense(2, []float64{1, 2, 2, 1}))
			return err
		}, []string{"positive semi-definite", "-1"}},
		{"mahalanobis singular", func() error {
			_, err := distances.NewMahalanobis(mat.NewSymDense(2, []float64{1, 1, 1, 1}))
			return err
		}, []string{"not positive definite"}},
		{"choquet not monotone", func() error { _, err := distances.NewChoquet(with(5, 0.25), 3); return err },
			[]string{"not monotone", "μ({3}) = 0.3 > μ({1,3}) = 0.25"}},
		{"choquet μ(V) ≠ 1", func() error { _, err := distances.NewChoquet(with(7, 0.9), 3); return err },
			[]string{"μ({1,2,3}) = 0.9", "want 1"}},
		{"choquet μ(∅) ≠ 0", func() error { _, err := distances.NewChoquet(with(0, 0.05), 3); return err },
			[]string{"μ(∅) = 0.05"}},
		{"choquet above 1", func() error { _, err := distances.NewChoquet(with(6, 1.5), 3); return err },
			[]string{"μ({2,3}) = 1.5", "[0, 1]"}},
		{"choquet negative", func() error { _, err := distances.NewChoquet(with(1, -0.1), 3); return err },
			[]string{"μ({1}) = -0.1"}},
		{"choquet NaN", func() error { _, err := distances.NewChoquet(with(2, math.NaN()), 3); return err },
			[]string{"μ({2}) = NaN"}},
		{"choquet length", func() error { _, err := distances.NewChoquet(good[:7], 3); return err },
			[]string{"7 measure values for 3 attributes", "8"}},
		{"choquet m = 0", func() error { _, err := distances.NewChoquet([]float64{0}, 0); return err },
			[]string{"0 attributes"}},
		{"choquet m = 21", func() error { _, err := distances.NewChoquet(nil, 21); return err },
			[]string{"21 attributes", "1 to 20"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, distances.ErrInvalidParams) {
				t.Errorf("%v does not wrap ErrInvalidParams", err)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

// Weights written by hand to six decimals are accepted: 0.333333 three times sums to
// 0.999999, within 1e-5 of 1.
func TestWeightsToSixDecimals(t *testing.T) {
	wm, err := distances.NewWeightedMean([]float64{0.333333, 0.333333, 0.333333})
	if err != nil {
		t.Fatal(err)
	}
	// Divided by their sum: the distance of (3, 0, 0) to 0 is 3² × 1/3 = 3, not 2.999997.
	if d := wm.Distance([]float64{3, 0, 0}, []float64{0, 0, 0}); math.Abs(d-3) > 1e-12 {
		t.Errorf("distance %v, want 3 (weights re-scaled to sum 1)", d)
	}
}
