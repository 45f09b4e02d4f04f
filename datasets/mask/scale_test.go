package mask

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Huge and tiny attributes: squares of values beyond about 1e154 overflow and below 1e-154
// underflow, yet MDAV and the noise methods are scale-equivariant. Each case multiplies
// attribute 0 of ordinary data (values ~100, clustered) by f; the result must be that of the
// ordinary data with the output multiplied by f: the same MDAV groups and group means × f,
// and noise × f from the same generator state.
var scaleCases = []struct {
	name string
	f    float64
}{
	{"1e160", 1e160},   // squares overflow (values ~1e162)
	{"1e-170", 1e-170}, // squares underflow to 0 (a "constant" attribute)
	{"1e306", 1e306},   // also the sum of two values overflows
}

func scaleData(n int) [][]float64 {
	rng := rand.New(rand.NewPCG(11, 12))
	d := [][]float64{make([]float64, n), make([]float64, n)}
	for i := 0; i < n; i++ {
		d[0][i] = 100 + 10*rng.NormFloat64() + 20*float64(i%3)
		d[1][i] = 5 + rng.NormFloat64() - float64(i%4)
	}
	return d
}

// scaled returns d with its first m attributes multiplied by f.
func scaled(d [][]float64, f float64, m int) [][]float64 {
	out := cloneData(d)
	for j := range m {
		for i := range out[j] {
			out[j][i] *= f
		}
	}
	return out
}

// closeScaled reports the first record where got[j] differs from want[j]·f (f for the first
// m attributes, 1 for the others) by more than tol relative to the largest |want[j]|.
func closeScaled(got, want [][]float64, f float64, m int, tol float64) error {
	for j := range want {
		fj := 1.0
		if j < m {
			fj = f
		}
		size := 0.0
		for _, v := range want[j] {
			size = max(size, math.Abs(v))
		}
		for i, w := range want[j] {
			if g := got[j][i]; math.IsNaN(g) || math.IsInf(g, 0) || math.Abs(g/fj-w) > tol*size {
				return fmt.Errorf("attribute %d record %d: got %v, want %v × %v", j, i, g, w, fj)
			}
		}
	}
	return nil
}

func TestMDAVHugeAndTinyValues(t *testing.T) {
	base := scaleData(60)
	opts := map[string]mdavOptions{"MDAV": {}, "lowest-index ties": {lowTies: true},
		"sdcMicro emulation": {float32Dist: true, popVarWeight: true}}
	for _, c := range scaleCases {
		for name, o := range opts {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				for _, k := range []int{2, 3, 5} {
					wantM, wantG, err := mdav("MDAV", base, k, o)
					if err != nil {
						t.Fatal(err)
					}
					gotM, gotG, err := mdav("MDAV", scaled(base, c.f, 1), k, o)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(gotG, wantG) {
						t.Fatalf("k=%d: groups %v, want %v (those of the data ÷ %v)", k, gotG, wantG, c.f)
					}
					if err := closeScaled(gotM, wantM, c.f, 1, 1e-13); err != nil {
						t.Fatalf("k=%d: %v", k, err)
					}
				}
			})
		}
	}
}

func TestNoiseHugeAndTinyValues(t *testing.T) {
	base := scaleData(200)
	methods := map[string]func([][]float64, float64, *rand.Rand) ([][]float64, error){
		"additive": AdditiveNoise, "correlated": CorrelatedNoise,
	}
	// A constant attribute sends CorrelatedNoise to its eigen factor, whose eigenvectors
	// change when a single attribute is rescaled (the noise distribution does not): that
	// case scales every attribute (m = 3).
	singular := append(cloneData(base), make([]float64, 200))
	data := []struct {
		name string
		d    [][]float64
		m    int
	}{{"regular", base, 1}, {"singular", singular, 3}}
	for _, c := range scaleCases {
		for name, method := range methods {
			for _, d := range data {
				t.Run(c.name+"/"+name+"/"+d.name, func(t *testing.T) {
					want, err := method(d.d, 10, rand.New(rand.NewPCG(1, 2)))
					if err != nil {
						t.Fatal(err)
					}
					big := scaled(d.d, c.f, d.m)
					got, err := method(big, 10, rand.New(rand.NewPCG(1, 2)))
					if err != nil {
						t.Fatal(err)
					}
					// Compare the noise, e = masked − data: its sd is 10 % (additive) or
					// √10 % (correlated) of the attribute's, so ~1e-15 relative errors in
					// the masked values are ~1e-13 of the noise.
					if err := closeScaled(diff(got, big), diff(want, d.d), c.f, d.m, 1e-9); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}
