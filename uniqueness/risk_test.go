package uniqueness

import (
	"math"
	"testing"
)

// nbSeries sums the negative binomial series of Benedetti and Franconi term by term,
// Σ_h 1/(f+h) · C(f+h−1, h) p^f (1−p)^h, with the probabilities in log space: an
// implementation independent of BenedettiFranconi's recurrence.
func nbSeries(f int, p float64) float64 {
	lf, _ := math.Lgamma(float64(f))
	sum := 0.0
	for h := 0; ; h++ {
		lc, _ := math.Lgamma(float64(f + h))
		lh, _ := math.Lgamma(float64(h + 1))
		t := math.Exp(lc-lh-lf+float64(f)*math.Log(p)+float64(h)*math.Log1p(-p)) / float64(f+h)
		sum += t
		if float64(h) > float64(f)/p && t < 1e-18*sum {
			return sum
		}
	}
}

func TestBenedettiFranconiHand(t *testing.T) {
	// Reference values: the f = 3, p = 0.3 figures (series 0.125386, approximation
	// 0.3/(3−0.7) = 0.130435), and the closed forms for f = 1, 2 evaluated by hand.
	tests := []struct {
		f        int
		p        float64
		exact    float64
		approx   float64
		exactTol float64
	}{
		{3, 0.3, 0.125386, 0.130435, 5e-7},
		{1, 0.2, 0.2 * math.Log(5) / 0.8, 0.2 * math.Log(5) / 0.8, 1e-15}, // −p log p/(1−p)
		{2, 0.3, 0.3/0.7 - (0.3/0.7)*(0.3/0.7)*math.Log(1/0.3), 0, 1e-15}, // p/q − (p/q)² log(1/p)
		{1, 1, 1, 1, 0},              // the class is its population
		{4, 1, 0.25, 0.25, 0},        // idem
		{3, 0.01, 0, 0.01 / 2.01, 0}, // sdcMicro's approximation
	}
	for _, tc := range tests {
		if tc.exact != 0 {
			if got := BenedettiFranconi(tc.f, tc.p); math.Abs(got-tc.exact) > tc.exactTol {
				t.Errorf("BenedettiFranconi(%d, %v) = %.9f, want %.9f", tc.f, tc.p, got, tc.exact)
			}
		}
		if tc.approx != 0 {
			if got := BenedettiFranconiApprox(tc.f, tc.p); math.Abs(got-tc.approx) > 5e-7 {
				t.Errorf("BenedettiFranconiApprox(%d, %v) = %.9f, want %.9f", tc.f, tc.p, got, tc.approx)
			}
		}
	}
	if a, e := BenedettiFranconiApprox(2, 0.3), BenedettiFranconi(2, 0.3); a != e {
		t.Errorf("approximation differs from the closed form at f = 2: %v, %v", a, e)
	}
}

// The recurrence equals the summed series for every f and p: closed forms for f = 1, 2
// included, both regimes (p ≤ ½ forward, p > ½ backward) and the switch near p = ½.
func TestBenedettiFranconiSeries(t *testing.T) {
	for _, p := range []float64{0.005, 0.01, 0.05, 0.2, 0.3, 0.45, 0.5, 0.52, 0.6, 0.9, 0.99} {
		for _, f := range []int{1, 2, 3, 4, 7, 15, 40} {
			want := nbSeries(f, p)
			got := BenedettiFranconi(f, p)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("f=%d p=%v: %.15g, series %.15g", f, p, got, want)
			}
		}
	}
	// Closed forms of f = 1 and f = 2.
	for _, p := range []float64{0.01, 0.3, 0.8} {
		q := 1 - p
		if got, want := nbSeries(1, p), -p*math.Log(p)/q; math.Abs(got-want) > 1e-12 {
			t.Errorf("f=1 p=%v: series %v, closed form %v", p, got, want)
		}
		if got, want := nbSeries(2, p), p/q-(p/q)*(p/q)*math.Log(1/p); math.Abs(got-want) > 1e-12 {
			t.Errorf("f=2 p=%v: series %v, closed form %v", p, got, want)
		}
	}
	// Limits: E[1/F] → 1/f as p → 1 and ≈ p/(f−1) as p → 0 (f ≥ 2).
	if got := BenedettiFranconi(5, 1-1e-12); math.Abs(got-0.2) > 1e-9 {
		t.Errorf("p → 1: %v", got)
	}
	if got := BenedettiFranconi(5, 1e-9); math.Abs(got-1e-9/4)/(1e-9/4) > 1e-6 {
		t.Errorf("p → 0: %v", got)
	}
}

func TestPoisson(t *testing.T) {
	// E[1/(f+G)], G ~ Poisson(6): f = 1 closed form (1−e^{−6})/6; f = 3 by direct
	// summation of the first 200 terms (0.120347418961, computed independently).
	tests := []struct {
		f    int
		nu   float64
		want float64
	}{
		{1, 6, (1 - math.Exp(-6)) / 6},
		{3, 6, 0.120347418961},
		{2, 0, 0.5},
		{1, 1e-12, 1},
	}
	for _, tc := range tests {
		if got := PoissonInverseMoment(tc.f, tc.nu); math.Abs(got-tc.want) > 1e-11 {
			t.Errorf("PoissonInverseMoment(%d, %v) = %.12f, want %.12f", tc.f, tc.nu, got, tc.want)
		}
	}
	// Large ν, where e^{−ν} underflows: E[1/(f+G)] ≈ 1/(f+ν) (1 + ν/(f+ν)²).
	nu := 2000.0
	want := 1 / (3 + nu) * (1 + nu/((3+nu)*(3+nu)))
	if got := PoissonInverseMoment(3, nu); math.Abs(got-want)/want > 1e-6 {
		t.Errorf("ν = 2000: %v, want ≈ %v", got, want)
	}
	// The expansion used above ν = 10^5 agrees with the summed series at the switch.
	series := PoissonInverseMoment(4, 1e5)
	m := 4 + 1e5 + 1e-9
	expansion := 1/m + 1e5/(m*m*m) - 1e5/(m*m*m*m) + (3e10+1e5)/(m*m*m*m*m)
	if got := PoissonInverseMoment(4, 1e5+1e-9); math.Abs(got-series)/series > 1e-13 || math.Abs(got-expansion)/expansion > 1e-15 {
		t.Errorf("ν = 1e5: expansion %v, series %v", got, series)
	}
	// Past ν ≈ 1e102, m³ and 3ν² overflow: the expansion made Inf/Inf = NaN (a sampling
	// fraction of 1e-200). E[1/(f+G)] ≈ 1/(f+ν) there, and 0 in the limit ν = +Inf.
	for _, nu := range []float64{1e102, 1e200, math.MaxFloat64} {
		want := 1 / (2 + nu)
		if got := PoissonInverseMoment(2, nu); !(math.Abs(got-want) <= 1e-12*want) {
			t.Errorf("ν = %g: %v, want ≈ %v", nu, got, want)
		}
	}
	if got := PoissonInverseMoment(2, math.Inf(1)); got != 0 {
		t.Errorf("ν = +Inf: %v, want 0", got)
	}
	if got := PoissonUniqueProbability(6); got != math.Exp(-6) {
		t.Errorf("P(F=1|f=1) = %v", got)
	}
}

func TestSkinnerElliot(t *testing.T) {
	// By hand: π n1 / (π n1 + 2(1−π) n2).
	tests := []struct {
		n1, n2 int
		pi     float64
		want   float64
	}{
		{10, 5, 0.1, 1.0 / 10}, // 1 / (1 + 9)
		{4, 0, 0.3, 1},         // no pairs: every unique match is correct
		{6, 3, 1, 1},           // census
		{2, 2, 0.5, 1.0 / 3},   // 1 / (1 + 2)
	}
	for _, tc := range tests {
		if got := SkinnerElliot(tc.n1, tc.n2, tc.pi); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("SkinnerElliot(%d, %d, %v) = %v, want %v", tc.n1, tc.n2, tc.pi, got, tc.want)
		}
	}
	if !math.IsNaN(SkinnerElliot(0, 3, 0.5)) {
		t.Error("no sample unique: want NaN")
	}
}
