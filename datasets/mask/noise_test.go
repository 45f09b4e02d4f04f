package mask

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// noiseData returns n records of three correlated attributes with different scales.
func noiseData(n int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	d := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := 0; i < n; i++ {
		a := 5 + 2*rng.NormFloat64()
		d[0][i] = a
		d[1][i] = 1000 + 600*a + 3000*rng.NormFloat64()
		d[2][i] = 100*rng.Float64() - 0.5*a
	}
	return d
}

// covariance is the sample covariance (divisor n−1) of two vectors, written out here
// independently of the package.
func covariance(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var s float64
	for i := range x {
		s += (x[i] - mx) * (y[i] - my)
	}
	return s / float64(len(x)-1)
}

func diff(a, b [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for j := range a {
		out[j] = make([]float64, len(a[j]))
		for i := range a[j] {
			out[j][i] = a[j][i] - b[j][i]
		}
	}
	return out
}

// Additive noise: e_j = x'_j − x_j should be N(0, (percent/100 · sd_j)²) independently.
// Tolerances (5 standard errors of the normal sampling distributions, n = 200 000):
// relative sd error 1/√(2(n−1)) ≈ 0.0016 → 0.0079; mean error sd_e/√n; correlation between two
// independent noise columns 1/√n ≈ 0.0022 → 0.011.
func TestAdditiveNoiseMoments(t *testing.T) {
	const n = 200_000
	data := noiseData(n, 1)
	for _, percent := range []float64{10, 50} {
		masked, err := AdditiveNoise(data, percent, rand.New(rand.NewPCG(2, uint64(percent))))
		if err != nil {
			t.Fatal(err)
		}
		e := diff(masked, data)
		for j := range data {
			sdx := math.Sqrt(covariance(data[j], data[j]))
			sde := math.Sqrt(covariance(e[j], e[j]))
			if rel := sde/(percent/100*sdx) - 1; math.Abs(rel) > 5/math.Sqrt(2*(n-1)) {
				t.Errorf("percent %v col %d: noise sd / sd(x) = %v, want %v (relative error %v)", percent, j, sde/sdx, percent/100, rel)
			}
			var m float64
			for _, v := range e[j] {
				m += v
			}
			m /= n
			if math.Abs(m) > 5*sde/math.Sqrt(n) {
				t.Errorf("percent %v col %d: noise mean %v", percent, j, m)
			}
		}
		for a := 0; a < 3; a++ {
			for b := a + 1; b < 3; b++ {
				r := covariance(e[a], e[b]) / math.Sqrt(covariance(e[a], e[a])*covariance(e[b], e[b]))
				if math.Abs(r) > 5/math.Sqrt(n) {
					t.Errorf("percent %v: noise correlation (%d, %d) = %v, want ≈ 0", percent, a, b, r)
				}
			}
		}
	}
}

// Correlated noise: Cov(e) should be c·Σ, c = percent/100. For normal data the sample
// covariance S_ab has variance (σ_aa σ_bb + σ_ab²)/(n−1) (Wishart moments), so each entry is
// allowed 5 such standard errors.
func TestCorrelatedNoiseCovariance(t *testing.T) {
	const n = 200_000
	data := noiseData(n, 3)
	for _, percent := range []float64{10, 50} {
		masked, err := CorrelatedNoise(data, percent, rand.New(rand.NewPCG(4, uint64(percent))))
		if err != nil {
			t.Fatal(err)
		}
		checkNoiseCov(t, data, diff(masked, data), percent/100, n)
	}
}

func checkNoiseCov(t *testing.T, data, e [][]float64, c float64, n int) {
	t.Helper()
	p := len(data)
	sig := make([][]float64, p)
	for a := range sig {
		sig[a] = make([]float64, p)
		for b := range sig[a] {
			sig[a][b] = c * covariance(data[a], data[b])
		}
	}
	for a := 0; a < p; a++ {
		for b := a; b < p; b++ {
			got := covariance(e[a], e[b])
			se := math.Sqrt((sig[a][a]*sig[b][b] + sig[a][b]*sig[a][b]) / float64(n-1))
			if math.Abs(got-sig[a][b]) > 5*se+1e-9*math.Max(1, math.Abs(sig[a][b])) {
				t.Errorf("c=%v: Cov(e)[%d][%d] = %v, want %v ± %v", c, a, b, got, sig[a][b], 5*se)
			}
		}
	}
}

// A singular covariance (a constant attribute and x2 = x0 + x1) is handled by the eigen
// factor: the constant attribute gets (numerically) no noise, the noise keeps the linear
// relation e2 = e0 + e1, and Cov(e) ≈ c·Σ as above.
func TestCorrelatedNoiseSingular(t *testing.T) {
	const n = 50_000
	base := noiseData(n, 5)
	data := [][]float64{base[0], base[2], make([]float64, n), slices.Repeat([]float64{42}, n)}
	for i := 0; i < n; i++ {
		data[2][i] = data[0][i] + data[1][i]
	}
	masked, err := CorrelatedNoise(data, 50, rand.New(rand.NewPCG(6, 7)))
	if err != nil {
		t.Fatal(err)
	}
	e := diff(masked, data)
	sd2 := math.Sqrt(covariance(data[2], data[2]))
	for i := 0; i < n; i++ {
		if math.Abs(e[3][i]) > 1e-6*sd2 {
			t.Fatalf("record %d: noise %v on the constant attribute", i, e[3][i])
		}
		if r := e[2][i] - e[0][i] - e[1][i]; math.Abs(r) > 1e-6*sd2 {
			t.Fatalf("record %d: e2 − e0 − e1 = %v", i, r)
		}
	}
	checkNoiseCov(t, data, e, 0.5, n)
}

// Same seed → same output; another seed → other output; percent 0 → an unchanged copy and
// no draws (the generator's next value is that of a fresh generator).
func TestNoiseDeterminism(t *testing.T) {
	data := noiseData(500, 8)
	for name, f := range map[string]func([][]float64, float64, *rand.Rand) ([][]float64, error){
		"additive": AdditiveNoise, "correlated": CorrelatedNoise,
	} {
		a, _ := f(data, 20, rand.New(rand.NewPCG(1, 1)))
		b, _ := f(data, 20, rand.New(rand.NewPCG(1, 1)))
		c, _ := f(data, 20, rand.New(rand.NewPCG(1, 2)))
		for j := range a {
			if !slices.Equal(a[j], b[j]) {
				t.Errorf("%s: same seed, different output", name)
			}
			if slices.Equal(a[j], c[j]) {
				t.Errorf("%s: different seeds, same output", name)
			}
		}
		rng := rand.New(rand.NewPCG(9, 9))
		z, err := f(data, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		for j := range z {
			if !slices.Equal(z[j], data[j]) {
				t.Errorf("%s: percent 0 changed the data", name)
			}
		}
		if rng.Uint64() != rand.New(rand.NewPCG(9, 9)).Uint64() {
			t.Errorf("%s: percent 0 consumed random numbers", name)
		}
	}
}
