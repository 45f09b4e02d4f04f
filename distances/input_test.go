package distances

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// noAttributes is an operator on no attribute: a caller's custom Operator can be one.
type noAttributes struct{ Operator }

func (noAttributes) Attributes() int { return 0 }

// TestSearchNotFinite: a NaN or ±Inf in either file is an error naming the side, the
// attribute and the record where the test put it, for every path of the core (embedded
// kernel, OWA blocks, pair by pair), instead of a nearest record that means nothing.
func TestSearchNotFinite(t *testing.T) {
	owa, err := NewOWA([]float64{0.5, 0.3, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	choquet, err := NewChoquet(SymmetricMeasure([]float64{0.5, 0.3, 0.2}), 3)
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() [][]float64 { return [][]float64{{0, 1, 2, 3}, {1, 0, 1, 0}, {2, 2, 0, 0}} }
	cases := []struct {
		name       string
		queries    bool // the bad value is in the queries, else in the references
		attr, rec  int
		value      float64
		wantInText string
	}{
		{"NaN query", true, 1, 2, math.NaN(), "queries: attribute 1 of record 2 (0-based) is NaN"},
		{"+Inf query", true, 0, 0, math.Inf(1), "queries: attribute 0 of record 0 (0-based) is +Inf"},
		{"-Inf reference", false, 2, 3, math.Inf(-1), "references: attribute 2 of record 3 (0-based) is -Inf"},
		{"NaN reference", false, 0, 1, math.NaN(), "references: attribute 0 of record 1 (0-based) is NaN"},
	}
	for _, op := range []Operator{NewEuclidean(3), owa, choquet} {
		for _, generic := range []bool{false, true} {
			for _, c := range cases {
				q, r := fresh(), fresh()
				if c.queries {
					q[c.attr][c.rec] = c.value
				} else {
					r[c.attr][c.rec] = c.value
				}
				res, err := Search(q, r, []int{0, 1, 2, 3}, op, Settings{Generic: generic})
				if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), c.wantInText) {
					t.Errorf("%s, %s, generic %v: error %v (results %v), want ErrNotFinite with %q", op.Name(), c.name, generic, err, res, c.wantInText)
				}
			}
		}
	}
}

// TestSearchNoAttributes: an operator on no attribute is a shape error, not an index out
// of range on the first attribute.
func TestSearchNoAttributes(t *testing.T) {
	_, err := Search([][]float64{}, [][]float64{}, nil, noAttributes{}, Settings{})
	if !errors.Is(err, ErrShape) {
		t.Errorf("error %v, want ErrShape", err)
	}
}

// TestTruePairCovarianceNoPartner: an original record without a partner (−1) is left
// out. By hand: the kept pairs' differences are a = (1, 2, 3) and b = (2, 4, 6), so with
// n − 1 = 2: var a = 1, cov(a, b) = 2, var b = 4. Without any pair the covariance is
// undefined (NaN).
func TestTruePairCovarianceNoPartner(t *testing.T) {
	original := [][]float64{{1, 9, 2, 4}, {2, 9, 4, 6}}
	masked := [][]float64{{0, 0, 1}, {0, 0, 0}}
	cases := []struct {
		name  string
		truth []int
		want  [3]float64 // var a, cov(a, b), var b
	}{
		{"one without partner", []int{0, -1, 1, 2}, [3]float64{1, 2, 4}},
		{"none with a partner", []int{-1, -1, -1, -1}, [3]float64{math.NaN(), math.NaN(), math.NaN()}},
	}
	for _, c := range cases {
		var got [3]float64
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v", c.name, p)
				}
			}()
			cov := TruePairCovariance(original, masked, c.truth)
			got = [3]float64{cov.At(0, 0), cov.At(0, 1), cov.At(1, 1)}
		}()
		for x := range got {
			if !(math.Abs(got[x]-c.want[x]) < 1e-12 || math.IsNaN(got[x]) && math.IsNaN(c.want[x])) {
				t.Errorf("%s: covariance (var a, cov, var b) = %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// TestMeasureLengthPanics: ShapleyValues and InteractionIndices need a measure of 2^m
// values; another length panics with a message that says so (it used to be an index out
// of range).
func TestMeasureLengthPanics(t *testing.T) {
	cases := []struct {
		name string
		mu   []float64
		m    int
	}{
		{"short", []float64{0, 0.5, 1}, 2},
		{"long", []float64{0, 0.2, 0.3, 0.5, 0.5, 0.7, 0.8, 1}, 2},
	}
	for _, c := range cases {
		for fn, f := range map[string]func(){
			"ShapleyValues":      func() { ShapleyValues(c.mu, c.m) },
			"InteractionIndices": func() { InteractionIndices(c.mu, c.m) },
		} {
			func() {
				defer func() {
					p := recover()
					if s, ok := p.(string); !ok || !strings.Contains(s, fn) || !strings.Contains(s, "want 2^m = 4") {
						t.Errorf("%s, %s: panic %v, want one naming %s and 2^m = 4", c.name, fn, p, fn)
					}
				}()
				f()
			}()
		}
	}
}
