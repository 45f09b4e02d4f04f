package uniqueness

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// The hand-computed example. Classes by first appearance:
//
//	0 (x,1): rows 1,2,8  f=3  Σw=10  S a,a,c  N 10,20,20
//	1 (x,2): row 3       f=1  Σw=5   S b      N 30
//	2 (y,1): row 4       f=1  Σw=10  S a      N 10
//	3 (y,2): rows 5,6,7  f=3  Σw=8   S b,c,b  N 40,10,30
const handSample = `A,B,w,S,N
x,1,2,a,10
x,1,4,a,20
x,2,5,b,30
y,1,10,a,10
y,2,3,b,40
y,2,3,c,10
y,2,2,b,30
x,1,4,c,20
`

// Population counts: (x,1) 5, (x,2) 1, (y,1) 3, (y,2) 4, and (z,1) 1, (z,2) 2 that are
// not in the sample. Population uniques: (x,2) and (z,1).
const handPopulation = `A,B
z,1
x,1
x,1
y,2
x,1
x,2
y,1
z,2
y,2
x,1
y,1
y,2
z,2
y,1
x,1
y,2
`

func loadCSV(t *testing.T, name, content string) *datasets.Table {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := datasets.Load(p, datasets.LoadOptions{Types: map[string]datasets.Kind{"B": datasets.Categorical}})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

var handKeys = []Key{{Name: "A"}, {Name: "B"}}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestCountHand(t *testing.T) {
	s := loadCSV(t, "s.csv", handSample)
	p := loadCSV(t, "p.csv", handPopulation)
	for _, workers := range []int{1, 2, 7} {
		c, err := Count(s, p, handKeys, workers)
		if err != nil {
			t.Fatal(err)
		}
		if want := []int32{0, 0, 1, 2, 3, 3, 3, 0}; !reflect.DeepEqual(c.Of, want) {
			t.Errorf("workers %d: classes %v, want %v", workers, c.Of, want)
		}
		if want := []int{3, 1, 1, 3}; !reflect.DeepEqual(c.Freq, want) {
			t.Errorf("f = %v, want %v", c.Freq, want)
		}
		if want := []int{5, 1, 3, 4}; !reflect.DeepEqual(c.PopFreq, want) {
			t.Errorf("F = %v, want %v", c.PopFreq, want)
		}
		if c.PopulationClasses != 6 || c.PopulationUniques != 2 || c.Uniques() != 2 {
			t.Errorf("population classes %d, uniques %d; sample uniques %d", c.PopulationClasses, c.PopulationUniques, c.Uniques())
		}
		if got := c.Label(3); !reflect.DeepEqual(got, []string{"y", "2"}) {
			t.Errorf("label of class 3: %v", got)
		}
	}
}

func TestMeasurePopulation(t *testing.T) {
	s := loadCSV(t, "s.csv", handSample)
	p := loadCSV(t, "p.csv", handPopulation)
	r, err := Measure(s, Options{Keys: handKeys, Population: p})
	if err != nil {
		t.Fatal(err)
	}
	e := r.Primary
	// r_i = 1/F_j: 3·(1/5) + 1 + 1/3 + 3·(1/4).
	sum := 3.0/5 + 1 + 1.0/3 + 3.0/4
	if e.Model != ModelPopulation || r.SampleUniques != 2 || r.PopulationUniques != 2 || e.SUandPU != 1 ||
		e.PPUgivenSU != 0.5 || !near(e.ExpectedReidentifications, sum, 1e-12) ||
		!near(e.ReidentificationRate, sum/8, 1e-12) || e.MaxRisk != 1 {
		t.Errorf("got %+v, uniques %d/%d", e, r.SampleUniques, r.PopulationUniques)
	}
	want := []float64{0.2, 0.2, 1, 1.0 / 3, 0.25, 0.25, 0.25, 0.2}
	for i := range want {
		if !near(e.Risk[i], want[i], 1e-15) {
			t.Errorf("r_%d = %v, want %v", i+1, e.Risk[i], want[i])
		}
	}
	if len(r.Estimates) != 1 || !math.IsNaN(r.SkinnerElliot) {
		t.Errorf("no weights: want only the count, got %d estimates", len(r.Estimates))
	}
}

func TestMeasureWeights(t *testing.T) {
	s := loadCSV(t, "s.csv", handSample)
	// p_j = f_j / Σw: 3/10, 1/5, 1/10, 3/8. Exact values: the 0.125386 for
	// (3, 0.3); −p log p/(1−p) for f = 1; 0.151859118651 for (3, 0.375) from the summed
	// series (risk_test.go's nbSeries). Approximation: p/(f−(1−p)).
	exact := []float64{0.125385614335, 0.2 * math.Log(5) / 0.8, 0.1 * math.Log(10) / 0.9, 0.151859118651}
	approx := []float64{0.3 / 2.3, exact[1], exact[2], 0.375 / 2.375}
	for _, tc := range []struct {
		est   Estimator
		model string
		class []float64
	}{{BFExact, ModelBF, exact}, {BFApprox, ModelBFApprox, approx}} {
		r, err := Measure(s, Options{Keys: handKeys, Weights: "w", Estimator: tc.est})
		if err != nil {
			t.Fatal(err)
		}
		e := r.Primary
		sum := 3*tc.class[0] + tc.class[1] + tc.class[2] + 3*tc.class[3]
		if e.Model != tc.model || !near(e.ExpectedReidentifications, sum, 1e-9) || !near(e.ReidentificationRate, sum/8, 1e-9) ||
			!near(e.MaxRisk, tc.class[1], 1e-12) {
			t.Errorf("%s: %+v, want Σ r = %v", tc.model, e, sum)
		}
		// P(F=1|f=1) = p for the uniques: (1/5 + 1/10) / 2.
		if !near(e.SUandPU, 0.3, 1e-15) || !near(e.PPUgivenSU, 0.15, 1e-15) || !near(e.SUMatches, exact[1]+exact[2], 1e-12) {
			t.Errorf("%s: SU∧PU %v, P(PU|SU) %v, SU matches %v", tc.model, e.SUandPU, e.PPUgivenSU, e.SUMatches)
		}
		// π = n / Σw = 8/33; Skinner–Elliot with n1 = 2, n2 = 0 is 1.
		if !near(r.Pi, 8.0/33, 1e-15) || r.SkinnerElliot != 1 || len(r.Estimates) != 3 {
			t.Errorf("π %v, θ %v, %d estimates", r.Pi, r.SkinnerElliot, len(r.Estimates))
		}
	}
}

func TestMeasureFractionPoisson(t *testing.T) {
	s := loadCSV(t, "s.csv", handSample)
	r, err := Measure(s, Options{Keys: handKeys, Fraction: 0.25, Estimator: Poisson})
	if err != nil {
		t.Fatal(err)
	}
	// Main effects: margins A x 4, y 4 and B 1 4, 2 4, so μ_j = 8 · ½ · ½ = 2 for every
	// cell and ν = μ(1−π)/π = 6. Sample uniques: P(F=1|f=1) = e^{−6} and
	// E[1/F|f=1] = (1−e^{−6})/6; f = 3: E[1/(3+G)] = 0.120347418961 (risk_test.go).
	mu := r.Classes.MainEffects()
	for j, m := range mu {
		if !near(m, 2, 1e-12) {
			t.Errorf("μ_%d = %v, want 2", j, m)
		}
	}
	e := r.Primary
	u := (1 - math.Exp(-6)) / 6
	sum := 6*0.120347418961 + 2*u
	if e.Model != ModelPoisson || !near(e.SUandPU, 2*math.Exp(-6), 1e-15) || !near(e.PPUgivenSU, math.Exp(-6), 1e-15) ||
		!near(e.SUMatches, 2*u, 1e-12) || !near(e.ExpectedReidentifications, sum, 1e-10) || !near(e.MaxRisk, u, 1e-12) {
		t.Errorf("%+v, want Σ r = %v", e, sum)
	}
	// The BF estimates use p = π = 0.25: f = 3 gives the series 0.106899791153.
	bf := r.Estimates[1]
	if bf.Model != ModelBF || !near(bf.Risk[0], 0.106899791153, 1e-11) {
		t.Errorf("BF with a fraction: %s r_1 = %v", bf.Model, bf.Risk[0])
	}
	if r.Pi != 0.25 || r.SkinnerElliot != 1 {
		t.Errorf("π %v θ %v", r.Pi, r.SkinnerElliot)
	}
}

func TestMeasureSampleOnly(t *testing.T) {
	s := loadCSV(t, "s.csv", handSample)
	r, err := Measure(s, Options{Keys: handKeys})
	if err != nil {
		t.Fatal(err)
	}
	// r_i = 1/f_j: 6·(1/3) + 2·1.
	if e := r.Primary; e.Model != ModelSample || e.ExpectedReidentifications != 4 || e.SUandPU != 2 || r.PopulationUniques != -1 {
		t.Errorf("%+v", e)
	}
}

// TestMeasureSampleOnlyExact: without a population, Σ_i 1/f_j is the number of classes
// exactly, also where f·(1/f) rounds below 1 (49·(1/49) = 1 − 2⁻⁵³ in float64): a file
// of 47 classes said 46.99999999999995.
func TestMeasureSampleOnlyExact(t *testing.T) {
	var b strings.Builder
	b.WriteString("k,B\n") // B: loadCSV reads a column B as categories
	sizes := []int{49, 98, 3, 7, 1, 196, 11, 13, 49, 55, 37, 41}
	for j, n := range sizes {
		for range n {
			fmt.Fprintf(&b, "c%d,x\n", j)
		}
	}
	r, err := Measure(loadCSV(t, "s.csv", b.String()), Options{Keys: []Key{{Name: "k"}}})
	if err != nil {
		t.Fatal(err)
	}
	if e := r.Primary; e.ExpectedReidentifications != float64(len(sizes)) {
		t.Errorf("expected re-identifications %v, want %d", e.ExpectedReidentifications, len(sizes))
	}
}

func TestPrivacyChecks(t *testing.T) {
	s := loadCSV(t, "s.csv", handSample)
	r, err := Measure(s, Options{Keys: handKeys, Sensitive: []string{"S", "N"}, K: 3, L: 2, T: 0.2, List: -1})
	if err != nil {
		t.Fatal(err)
	}
	k := r.KAnonymity
	if k.KMin != 1 || k.ClassesBelow != 2 || k.RecordsBelow != 2 || len(k.Failing) != 2 ||
		k.Failing[0].Class != 1 || k.Failing[1].Class != 2 || !reflect.DeepEqual(k.Failing[0].Key, []string{"x", "2"}) {
		t.Errorf("k-anonymity %+v", k)
	}

	// S: classes 0 {a,a,c} and 3 {b,c,b} have distinct l 2 and entropy l
	// exp(−(⅔ ln ⅔ + ⅓ ln ⅓)) = 1.889882; classes 1 and 2 one value.
	h := math.Exp(-(2.0/3*math.Log(2.0/3) + 1.0/3*math.Log(1.0/3)))
	ld := r.LDiversity[0]
	if ld.MinDistinct != 1 || ld.MinEntropy != 1 || ld.FailingDistinct != 2 || ld.FailingEntropy != 4 {
		t.Errorf("l-diversity S %+v", ld)
	}
	gotOrder := []int{}
	for _, f := range ld.Failing {
		gotOrder = append(gotOrder, f.Class)
	}
	if !reflect.DeepEqual(gotOrder, []int{1, 2, 0, 3}) || !near(ld.Failing[2].Entropy, h, 1e-12) {
		t.Errorf("l-diversity failing %v (entropy %v, want %v)", gotOrder, ld.Failing[2].Entropy, h)
	}
	// N: class 3 {40,10,30} has three distinct values (entropy l 3).
	if ld := r.LDiversity[1]; ld.FailingDistinct != 2 || ld.FailingEntropy != 3 {
		t.Errorf("l-diversity N %+v", ld)
	}

	// t-closeness S (equal distance), sample distribution a ⅜, b ⅜, c ¼: classes 0 and 3
	// at ½(|⅔−⅜| + ⅜ + |⅓−¼|) = 0.375, classes 1 and 2 at ½(⅜ + ⅝ + ¼) = 0.625.
	tc := r.TCloseness[0]
	want := map[int]float64{1: 0.625, 2: 0.625, 0: 0.375, 3: 0.375}
	if tc.Distance != "equal" || !near(tc.MaxDistance, 0.625, 1e-15) || tc.ClassesAbove != 4 || tc.Failing[0].Class != 1 || tc.Failing[2].Class != 0 {
		t.Errorf("t-closeness S %+v", tc)
	}
	for _, f := range tc.Failing {
		if !near(f.Distance, want[f.Class], 1e-15) {
			t.Errorf("class %d: EMD %v, want %v", f.Class, f.Distance, want[f.Class])
		}
	}
	// t-closeness N (ordered, values 10 20 30 40, Q = ⅜ ⅝ ⅞ 1): class 0 P = ⅓ 1 1 gives
	// (1/24 + 9/24 + 3/24)/3 = 13/72; class 1 (30) P = 0 0 1 gives (3+5+1)/8/3 = 0.375;
	// class 2 (10) P = 1 1 1 gives (5+3+1)/8/3 = 0.375; class 3 P = ⅓ ⅓ ⅔ gives 13/72.
	tc = r.TCloseness[1]
	if tc.Distance != "ordered" || !near(tc.MaxDistance, 0.375, 1e-15) || tc.ClassesAbove != 2 {
		t.Errorf("t-closeness N %+v", tc)
	}
	r2, _ := Measure(s, Options{Keys: handKeys, Sensitive: []string{"N"}, T: 0.1})
	for _, f := range r2.TCloseness[0].Failing {
		w := map[int]float64{0: 13.0 / 72, 1: 0.375, 2: 0.375, 3: 13.0 / 72}[f.Class]
		if !near(f.Distance, w, 1e-15) {
			t.Errorf("N class %d: EMD %v, want %v", f.Class, f.Distance, w)
		}
	}
	if len(r2.TCloseness[0].Failing) != 4 {
		t.Errorf("t = 0.1: %d failing, want 4", len(r2.TCloseness[0].Failing))
	}
}

// orderedEMDNaive is the definition: (1/(m−1)) Σ_i |P_i − Q_i| over all m values.
func orderedEMDNaive(class, all []float64, values []float64) float64 {
	var s, P, Q float64
	for i, v := range values[:len(values)-1] {
		for _, x := range class {
			if x == v {
				P += 1 / float64(len(class))
			}
		}
		for _, x := range all {
			if x == v {
				Q += 1 / float64(len(all))
			}
		}
		_ = i
		s += math.Abs(P - Q)
	}
	return s / float64(len(values)-1)
}

// The O(log m) stretches of orderedEMD agree with the definition on a larger example.
func TestOrderedEMD(t *testing.T) {
	n := 400
	cols := []datasets.Column{
		{Name: "k", Kind: datasets.Categorical, Levels: []string{"a", "b", "c", "d", "e"}, Codes: make([]int32, n)},
		{Name: "v", Kind: datasets.Numeric, Values: make([]float64, n)},
	}
	x := uint64(7)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		cols[0].Codes[i] = int32(x >> 61 % 5)
		cols[1].Values[i] = float64((x >> 20) % 37)
	}
	tab := &datasets.Table{Source: "gen", Columns: cols}
	c, err := Count(tab, nil, []Key{{Name: "k"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, tc, err := c.CheckSensitive(&cols[1], 2, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	var values []float64
	seen := map[float64]bool{}
	for _, v := range cols[1].Values {
		if !seen[v] {
			seen[v] = true
			values = append(values, v)
		}
	}
	sortFloats(values)
	for _, f := range tc.Failing {
		var class []float64
		for i, j := range c.Of {
			if int(j) == f.Class {
				class = append(class, cols[1].Values[i])
			}
		}
		if want := orderedEMDNaive(class, cols[1].Values, values); !near(f.Distance, want, 1e-12) {
			t.Errorf("class %d: %v, definition %v", f.Class, f.Distance, want)
		}
	}
	if len(tc.Failing) != c.Len() {
		t.Errorf("t = 0: %d of %d classes listed", len(tc.Failing), c.Len())
	}
}

func sortFloats(v []float64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

func TestMeasureErrors(t *testing.T) {
	s := loadCSV(t, "s.csv", handSample)
	bad := loadCSV(t, "bad.csv", "A,B,w\nx,1,1\nx,2,0\n")
	tests := []struct {
		name string
		tab  *datasets.Table
		opts Options
		want error
	}{
		{"no keys", s, Options{}, ErrNoKeys},
		{"numeric key", s, Options{Keys: []Key{{Name: "N"}}}, ErrNumericKey},
		{"binned categorical", s, Options{Keys: []Key{{Name: "A", Cuts: []float64{1}}}}, ErrBinnedKey},
		{"bad cuts", s, Options{Keys: []Key{{Name: "N", Cuts: []float64{2, 1}}}}, ErrBadCuts},
		{"both", s, Options{Keys: handKeys, Weights: "w", Fraction: 0.1}, ErrWeightsAndPi},
		{"fraction", s, Options{Keys: handKeys, Fraction: 1.5}, ErrBadFraction},
		{"zero weight", bad, Options{Keys: handKeys, Weights: "w"}, ErrBadWeight},
		{"missing column", s, Options{Keys: []Key{{Name: "Z"}}}, datasets.ErrNoSuchColumn},
		{"key as sensitive", s, Options{Keys: handKeys, Sensitive: []string{"A"}}, ErrKeyNotAllowed},
	}
	for _, tc := range tests {
		_, err := Measure(tc.tab, tc.opts)
		if !errorsIs(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	// The zero weight is reported with its file, column and row.
	_, err := Measure(bad, Options{Keys: handKeys, Weights: "w"})
	if err == nil || err.Error() != bad.Source+`: column "w", row 2: sampling weight must be finite and positive: 0` {
		t.Errorf("message %v", err)
	}
}

// The population must contain the sample: a class of handSample (x,1) f=3, (x,2) f=1,
// (y,1) f=1, (y,2) f=3 with fewer population records is reported, the first in class
// order, with its key values and both counts.
func TestMeasurePopulationMustContainSample(t *testing.T) {
	s := loadCSV(t, "s.csv", handSample)
	// pop writes a population with n records of each "A,B" combination.
	pop := func(counts map[string]int) *datasets.Table {
		var b strings.Builder
		b.WriteString("A,B\n")
		for _, key := range []string{"x,1", "x,2", "y,1", "y,2", "z,1"} {
			b.WriteString(strings.Repeat(key+"\n", counts[key]))
		}
		return loadCSV(t, "p.csv", b.String())
	}
	tests := []struct {
		name   string
		counts map[string]int
		want   *PopulationError // nil: accepted
		// sum is Σ 1/F_j over the sample records when accepted.
		sum float64
	}{
		{"absent class", map[string]int{"x,1": 3, "x,2": 1, "y,2": 3, "z,1": 5},
			&PopulationError{Keys: []string{"A", "B"}, Key: []string{"y", "1"}, Missing: []bool{false, false}, Class: 2, Sample: 1, Population: 0}, 0},
		{"smaller class", map[string]int{"x,1": 2, "x,2": 1, "y,1": 1, "y,2": 3},
			&PopulationError{Keys: []string{"A", "B"}, Key: []string{"x", "1"}, Missing: []bool{false, false}, Class: 0, Sample: 3, Population: 2}, 0},
		{"first in class order", map[string]int{"x,1": 3, "y,1": 1, "y,2": 2},
			&PopulationError{Keys: []string{"A", "B"}, Key: []string{"x", "2"}, Missing: []bool{false, false}, Class: 1, Sample: 1, Population: 0}, 0},
		// F_j = f_j: every class is its own population, Σ 1/F_j = number of classes.
		{"population is the sample", map[string]int{"x,1": 3, "x,2": 1, "y,1": 1, "y,2": 3}, nil, 4},
		// 3·(1/4) + 1/2 + 1/1 + 3·(1/6), with a population-only class.
		{"population larger", map[string]int{"x,1": 4, "x,2": 2, "y,1": 1, "y,2": 6, "z,1": 1}, nil, 2.75},
	}
	for _, tc := range tests {
		p := pop(tc.counts)
		r, err := Measure(s, Options{Keys: handKeys, Population: p})
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if !near(r.Primary.ExpectedReidentifications, tc.sum, 1e-12) {
				t.Errorf("%s: expected re-identifications %v, want %v", tc.name, r.Primary.ExpectedReidentifications, tc.sum)
			}
			continue
		}
		var pe *PopulationError
		var ie *datasets.InputError
		if !errors.As(err, &pe) || !errors.Is(err, ErrPopulationTooSmall) || !errors.As(err, &ie) {
			t.Errorf("%s: error %v, want a PopulationError in an InputError", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(pe, tc.want) || ie.File != p.Source {
			t.Errorf("%s: got %+v in %q, want %+v in %q", tc.name, pe, ie.File, tc.want, p.Source)
		}
		// Count alone accepts the population; CheckPopulation finds the same class.
		c, err := Count(s, p, handKeys, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.CheckPopulation(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: CheckPopulation %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPopulationErrorMessage(t *testing.T) {
	tests := []struct {
		err  PopulationError
		want string
	}{
		{PopulationError{Keys: []string{"urbrur", "sex"}, Key: []string{"2", "1"}, Sample: 12},
			"key urbrur=2, sex=1: 12 sample records but 0 in the population (the population must contain the sample)"},
		{PopulationError{Keys: []string{"age", "region"}, Key: []string{"[18,30)", "North East"}, Sample: 1, Population: 0},
			`key age="[18,30)", region="North East": 1 sample record but 0 in the population (the population must contain the sample)`},
		{PopulationError{Keys: []string{"A"}, Key: []string{MissingLabel}, Missing: []bool{true}, Sample: 3, Population: 2},
			"key A=(missing): 3 sample records but 2 in the population (the population must contain the sample)"},
		// A label that reads as the missing category is quoted.
		{PopulationError{Keys: []string{"A"}, Key: []string{MissingLabel}, Missing: []bool{false}, Sample: 3, Population: 2},
			`key A="(missing)": 3 sample records but 2 in the population (the population must contain the sample)`},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// A missing sensitive value is not a value: l-diversity counts the class's present values
// and t-closeness compares the distribution of the class's present values with that of
// the file's, numeric (ordered EMD) and categorical (equal EMD) alike.
//
// The tester's file has classes a = {(5, x), (NA, NA)} and b = {(1, y), (2, z)}.
//
// l (Machanavajjhala et al. 2007): class a has one present value of v and of s, so
// distinct l 1 and entropy l exp(−1·ln 1) = 1; class b two values of one record each,
// distinct l 2 and entropy l exp(ln 2) = 2. A class with no present value (c below) has
// l = 0 for both.
//
// t (Li, Li and Venkatasubramanian 2007): the file's present values of v are 1, 2, 5,
// Q = (⅓, ⅓, ⅓), cumulative ⅓, ⅔, 1. Class a, P = (0, 0, 1), cumulative 0, 0, 1:
// EMD = (1/(m−1)) Σ_{i<m} |ΣP − ΣQ| = ½(⅓ + ⅔) = ½. Class b, P = (½, ½, 0), cumulative
// ½, 1, 1: ½(|½−⅓| + |1−⅔|) = ½(⅙ + ⅓) = ¼. The file's present values of s are x, y, z,
// each ⅓. Class a, P = (1, 0, 0): ½ Σ|p − q| = ½(⅔ + ⅓ + ⅓) = ⅔. Class b, P = (0, ½, ½):
// ½(⅓ + ⅙ + ⅙) = ⅓. (With missing as a category of s, as before, both were ½.) A class
// with no present value discloses none: distance 0. Adding class c leaves the file's
// present values, and so a's and b's distances, unchanged.
func TestSensitiveMissingIsNotAValue(t *testing.T) {
	const two = "k,v,s\na,5,x\na,NA,\nb,1,y\nb,2,z\n"
	type class struct {
		distinct int
		entropy  float64
		distance [2]float64 // of v (ordered) and s (equal)
	}
	tests := []struct {
		name    string
		csv     string
		classes []class // by class number: a, b, c
	}{
		{"one missing in a", two, []class{{1, 1, [2]float64{0.5, 2.0 / 3}}, {2, 2, [2]float64{0.25, 1.0 / 3}}}},
		{"class c all missing", two + "c,NA,\nc,,NA\n",
			[]class{{1, 1, [2]float64{0.5, 2.0 / 3}}, {2, 2, [2]float64{0.25, 1.0 / 3}}, {0, 0, [2]float64{0, 0}}}},
	}
	for _, tc := range tests {
		p := filepath.Join(t.TempDir(), "s.csv")
		if err := os.WriteFile(p, []byte(tc.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := datasets.Load(p, datasets.LoadOptions{Missing: datasets.MissingKeep,
			Types: map[string]datasets.Kind{"v": datasets.Numeric, "s": datasets.Categorical}})
		if err != nil {
			t.Fatal(err)
		}
		// l = 2 fails a (and c); a tiny t (0 is the default) lists every class at a
		// positive distance.
		r, err := Measure(tab, Options{Keys: []Key{{Name: "k"}}, Sensitive: []string{"v", "s"}, L: 2, T: 1e-300, List: -1})
		if err != nil {
			t.Fatal(err)
		}
		for a, name := range []string{"v", "s"} {
			ld, tcl := r.LDiversity[a], r.TCloseness[a]
			lGot := map[int]FailingClass{}
			for _, f := range ld.Failing {
				lGot[f.Class] = f
			}
			tGot := map[int]float64{}
			for _, f := range tcl.Failing {
				tGot[f.Class] = f.Distance
			}
			wantFail := 0
			for j, want := range tc.classes {
				if float64(want.distinct) < 2 {
					wantFail++
					if f, ok := lGot[j]; !ok || f.Distinct != want.distinct || !near(f.Entropy, want.entropy, 1e-15) {
						t.Errorf("%s, %s, class %d: l-diversity %+v (listed %v), want distinct %d entropy %v",
							tc.name, name, j, f, ok, want.distinct, want.entropy)
					}
				} else if _, ok := lGot[j]; ok {
					t.Errorf("%s, %s, class %d: fails l = 2 with %+v, want distinct %d", tc.name, name, j, lGot[j], want.distinct)
				}
				if !near(tGot[j], want.distance[a], 1e-15) {
					t.Errorf("%s, %s, class %d: distance %v, want %v", tc.name, name, j, tGot[j], want.distance[a])
				}
			}
			minL := tc.classes[0].distinct // distinct and entropy l agree on these classes
			for _, want := range tc.classes {
				minL = min(minL, want.distinct)
			}
			if ld.ClassesFailing != wantFail || ld.MinDistinct != minL || !near(ld.MinEntropy, float64(minL), 1e-15) {
				t.Errorf("%s, %s: %d classes fail, smallest l %d / %v; want %d, %d", tc.name, name,
					ld.ClassesFailing, ld.MinDistinct, ld.MinEntropy, wantFail, minL)
			}
		}
	}
}

// A sampling weight is the number of population records a sample record stands for, so
// it is at least 1: below, π = n/Σw and p_j = f_j/Σ_{i∈j} w_i would exceed 1 (the
// tester's x 0.5, x 0.5, y 1 gives π = 3/2 and p_x = 2/1 = 2) and were clamped to 1. The
// first weight below 1 is an error naming its row; weights of 1 or more are accepted
// with π = n/Σw.
func TestSampleWeightsAtLeastOne(t *testing.T) {
	tests := []struct {
		name, csv string
		wantPi    float64 // 0: an error
		wantMsg   string
	}{
		{"tester's file", "A,B,w\nx,1,0.5\nx,1,0.5\ny,1,1\n", 0,
			`: column "w", row 1: sampling weight below 1 (a sampled record stands for at least itself): 0.5`},
		{"just below 1, second row", "A,B,w\nx,1,3\ny,1,0.999\n", 0,
			`: column "w", row 2: sampling weight below 1 (a sampled record stands for at least itself): 0.999`},
		// n/Σw = 2/2.
		{"all 1: the sample is the population", "A,B,w\nx,1,1\ny,1,1\n", 1, ""},
		// n/Σw = 2/(1 + 1.5) = 0.8.
		{"1 and 1.5", "A,B,w\nx,1,1\ny,1,1.5\n", 0.8, ""},
	}
	for _, tc := range tests {
		tab := loadCSV(t, "w.csv", tc.csv)
		r, err := Measure(tab, Options{Keys: handKeys, Weights: "w"})
		if tc.wantPi == 0 {
			if !errors.Is(err, ErrWeightBelowOne) || err.Error() != tab.Source+tc.wantMsg {
				t.Errorf("%s: error %v, want ErrWeightBelowOne %q", tc.name, err, tab.Source+tc.wantMsg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		} else if !near(r.Pi, tc.wantPi, 1e-15) {
			t.Errorf("%s: π = %v, want %v", tc.name, r.Pi, tc.wantPi)
		}
	}
}

// Weights of 1e308 each pass float64's range in their sum: n/Σw was 0, and the weighted
// estimators were skipped as if no weights were given (the report named the weights and
// printed the sample-frequency model; its text form crashed). An error naming the row
// where the sum overflows. A sampling fraction of 1e-200 is fine: every estimate finite.
func TestSampleWeightsSumOverflow(t *testing.T) {
	tab := loadCSV(t, "w.csv", "A,B,w\nx,1,1e308\nx,1,1e308\ny,1,5\n")
	_, err := Measure(tab, Options{Keys: handKeys, Weights: "w"})
	want := tab.Source + `: column "w", row 2: the sampling weights' sum passes 1.8e308 here: 1e+308`
	if !errors.Is(err, ErrWeightSum) || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	tab = loadCSV(t, "f.csv", "A,B\nx,1\nx,2\ny,1\ny,1\nz,3\n")
	r, err := Measure(tab, Options{Keys: handKeys, Fraction: 1e-200})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Estimates {
		if math.IsNaN(e.ExpectedReidentifications) || math.IsNaN(e.MaxRisk) {
			t.Errorf("%s: expected %v, max risk %v, want numbers", e.Model, e.ExpectedReidentifications, e.MaxRisk)
		}
	}
}

// A missing sampling weight is an error whatever the missing-value policy: the table is
// loaded under MissingKeep, so the message must not send the user to choose one. It is
// still a datasets.ErrMissingValue for errors.Is.
func TestMissingWeight(t *testing.T) {
	p := filepath.Join(t.TempDir(), "wna.csv")
	if err := os.WriteFile(p, []byte("a,w\ny,1\nx,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := datasets.Load(p, datasets.LoadOptions{Missing: datasets.MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Measure(tab, Options{Keys: []Key{{Name: "a"}}, Weights: "w"})
	want := p + `: column "w", row 2: missing sampling weight (a weight cannot be missing under any missing-value policy)`
	if !errors.Is(err, ErrMissingWeight) || !errors.Is(err, datasets.ErrMissingValue) || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestVerdictsAtTheThreshold: a class of m equally frequent values has entropy l = m
// exactly (exp(log m)), and must pass l = m, which the rounded exp(−Σ p log p) failed for
// m = 3, 6, 7, 8, 10; two classes at earth mover's distance exactly 0.2 (by hand: the
// file has x 6/10, y 4/10; class a x,x,x,x,y: ½(|0.8−0.6| + |0.2−0.4|); class b
// x,x,y,y,y: ½(|0.4−0.6| + |0.6−0.4|)) are both within t = 0.2, and both above 0.1999.
func TestVerdictsAtTheThreshold(t *testing.T) {
	// The sensitive attribute is B (loadCSV makes it categorical), the key k.
	load := func(csv string) *datasets.Table { return loadCSV(t, "s.csv", strings.Replace(csv, "k,s", "k,B", 1)) }
	for _, m := range []int{2, 3, 4, 5, 6, 7, 8, 10} {
		var b strings.Builder
		b.WriteString("k,s\n")
		for v := range m {
			fmt.Fprintf(&b, "a,v%d\n", v)
		}
		r, err := Measure(load(b.String()), Options{Keys: []Key{{Name: "k"}}, Sensitive: []string{"B"}, L: float64(m), List: -1})
		if err != nil {
			t.Fatal(err)
		}
		if ld := r.LDiversity[0]; ld.FailingEntropy != 0 || ld.ClassesFailing != 0 {
			t.Errorf("m = %d equally frequent values: entropy l %v fails l = %d", m, ld.MinEntropy, m)
		}
	}
	tc := load("k,s\na,x\na,x\na,x\na,x\na,y\nb,x\nb,x\nb,y\nb,y\nb,y\n")
	for _, c := range []struct {
		t     float64
		above int
	}{{0.2, 0}, {0.1999, 2}} {
		r, err := Measure(tc, Options{Keys: []Key{{Name: "k"}}, Sensitive: []string{"B"}, T: c.t, List: -1})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.TCloseness[0].ClassesAbove; got != c.above {
			t.Errorf("t = %v: %d classes above, want %d (distances %v)", c.t, got, c.above, r.TCloseness[0].Failing)
		}
	}
}
