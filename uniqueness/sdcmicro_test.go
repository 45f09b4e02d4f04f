package uniqueness

import (
	"math"
	"os"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

const testdataFile = "../../shared/datasets/testdata/original.csv"

// sdcMicro's own example key on its testdata set.
var testdataKeys = []string{"urbrur", "roof", "walls", "water", "electcon", "relat", "sex"}

func loadTestdata(t testing.TB) (*datasets.Table, []Key) {
	t.Helper()
	if _, err := os.Stat(testdataFile); err != nil {
		t.Skipf("sdcMicro testdata not available (%s): %v", testdataFile, err)
	}
	types := map[string]datasets.Kind{}
	var keys []Key
	for _, k := range testdataKeys {
		types[k] = datasets.Categorical // numeric codes, used as categories
		keys = append(keys, Key{Name: k})
	}
	tab, err := datasets.Load(testdataFile, datasets.LoadOptions{Types: types})
	if err != nil {
		t.Fatal(err)
	}
	return tab, keys
}

// Reference: sdcMicro's measure_risk(testdata, keyVars = the key above,
// w = "sampling_weight"), which uses indivRisk(method = "approx"): 412 key classes,
// 157 sample uniques, global risk 0.002353 (0.2353 %), 10.78 expected
// re-identifications, maximum individual risk 0.046517.
func TestSdcMicroTestdata(t *testing.T) {
	tab, keys := loadTestdata(t)
	for _, workers := range []int{1, 2, 4} {
		r, err := Measure(tab, Options{Keys: keys, Weights: "sampling_weight", Estimator: BFApprox, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		e := r.Primary
		if r.Classes.Len() != 412 || r.SampleUniques != 157 || e.Model != ModelBFApprox {
			t.Fatalf("%d classes, %d uniques, model %s", r.Classes.Len(), r.SampleUniques, e.Model)
		}
		if got := math.Round(e.ReidentificationRate*1e6) / 1e6; got != 0.002353 {
			t.Errorf("global risk %.7f, sdcMicro 0.002353", e.ReidentificationRate)
		}
		if got := math.Round(e.ExpectedReidentifications*100) / 100; got != 10.78 {
			t.Errorf("expected re-identifications %.4f, sdcMicro 10.78", e.ExpectedReidentifications)
		}
		if got := math.Round(e.MaxRisk*1e6) / 1e6; got != 0.046517 {
			t.Errorf("max risk %.7f, sdcMicro 0.046517", e.MaxRisk)
		}
		// Every weight is 100, so p = 0.01 and π = 0.01 exactly; a sample unique's
		// P(F=1|f=1) = p.
		if r.Pi != 0.01 || math.Abs(e.PPUgivenSU-0.01) > 1e-15 {
			t.Errorf("π %v, P(PU|SU) %v", r.Pi, e.PPUgivenSU)
		}
	}
	// The exact series differs from the approximation only for f ≥ 3, where the
	// approximation p/(f−1+p) is above the series: the exact total is a little lower.
	r, err := Measure(tab, Options{Keys: keys, Weights: "sampling_weight"})
	if err != nil {
		t.Fatal(err)
	}
	exact, approx := r.Estimates[0].ExpectedReidentifications, r.Estimates[1].ExpectedReidentifications
	if r.Primary.Model != ModelBF || !(exact < approx) || approx-exact > 0.01 {
		t.Errorf("exact %v, approximation %v", exact, approx)
	}
}
