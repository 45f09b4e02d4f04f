package mask

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestErrors runs every numeric method on invalid inputs and checks the sentinel.
func TestErrors(t *testing.T) {
	good := [][]float64{{1, 2, 3}, {4, 5, 7}}
	methods := map[string]func(data [][]float64, k int, percent float64, rng *rand.Rand) error{
		"MDAV": func(d [][]float64, k int, _ float64, _ *rand.Rand) error {
			_, _, err := MDAV(d, k)
			return err
		},
		"IndividualRanking": func(d [][]float64, k int, _ float64, _ *rand.Rand) error {
			_, err := IndividualRanking(d, k)
			return err
		},
		"AdditiveNoise": func(d [][]float64, _ int, p float64, r *rand.Rand) error {
			_, err := AdditiveNoise(d, p, r)
			return err
		},
		"CorrelatedNoise": func(d [][]float64, _ int, p float64, r *rand.Rand) error {
			_, err := CorrelatedNoise(d, p, r)
			return err
		},
		"RankSwap": func(d [][]float64, _ int, p float64, r *rand.Rand) error {
			_, err := RankSwap(d, p, r)
			return err
		},
	}
	usesK := map[string]bool{"MDAV": true, "IndividualRanking": true}
	type tc struct {
		name    string
		data    [][]float64
		k       int
		percent float64
		nilRNG  bool
		want    error
		only    func(method string) bool // nil: every method
	}
	kOnly := func(m string) bool { return usesK[m] }
	randOnly := func(m string) bool { return !usesK[m] }
	cases := []tc{
		{name: "no columns", data: nil, k: 1, percent: 1, want: ErrNoAttributes},
		{name: "no records", data: [][]float64{{}, {}}, k: 1, percent: 1, want: ErrNoRecords},
		{name: "ragged", data: [][]float64{{1, 2, 3}, {1, 2}}, k: 1, percent: 1, want: ErrRagged},
		{name: "NaN", data: [][]float64{{1, math.NaN(), 3}, {1, 2, 3}}, k: 1, percent: 1, want: ErrNotFinite},
		{name: "+Inf", data: [][]float64{{1, 2, 3}, {1, math.Inf(1), 3}}, k: 1, percent: 1, want: ErrNotFinite},
		{name: "k = 0", data: good, k: 0, want: ErrInvalidK, only: kOnly},
		{name: "k < 0", data: good, k: -2, want: ErrInvalidK, only: kOnly},
		{name: "k > n", data: good, k: 4, want: ErrKTooLarge, only: kOnly},
		{name: "percent < 0", data: good, percent: -1, want: ErrInvalidPercent, only: randOnly},
		{name: "percent NaN", data: good, percent: math.NaN(), want: ErrInvalidPercent, only: randOnly},
		{name: "percent > 100", data: good, percent: 101, want: ErrInvalidPercent,
			only: func(m string) bool { return m == "RankSwap" }},
		{name: "nil rng", data: good, percent: 10, nilRNG: true, want: ErrNilRNG, only: randOnly},
		{name: "one record", data: [][]float64{{1}, {2}}, percent: 10, want: ErrTooFewRecords,
			only: func(m string) bool { return m == "AdditiveNoise" || m == "CorrelatedNoise" }},
	}
	for _, c := range cases {
		for name, f := range methods {
			if c.only != nil && !c.only(name) {
				continue
			}
			var rng *rand.Rand
			if !c.nilRNG {
				rng = rand.New(rand.NewPCG(1, 1))
			}
			err := f(c.data, c.k, c.percent, rng)
			if !errors.Is(err, c.want) {
				t.Errorf("%s / %s: error %v, want %v", name, c.name, err, c.want)
				continue
			}
			var me *Error
			if !errors.As(err, &me) || me.Op != name {
				t.Errorf("%s / %s: error %v does not name the function", name, c.name, err)
			}
		}
	}
	// The exact message for the most common mistake.
	_, _, err := MDAV([][]float64{{1, 2, 3}}, 5)
	if got, want := err.Error(), "mask: MDAV: k (5) is larger than the number of records (3)"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	// Valid edge cases are accepted: k = n, a constant column, percent > 100 for noise.
	if _, _, err := MDAV([][]float64{{1, 2, 3}, {5, 5, 5}}, 3); err != nil {
		t.Errorf("MDAV k = n with a constant column: %v", err)
	}
	if _, err := AdditiveNoise(good, 150, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Errorf("AdditiveNoise 150 %%: %v", err)
	}
}
