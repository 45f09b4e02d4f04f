package uniqueness

import (
	"errors"
	"reflect"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func TestBinnedKeys(t *testing.T) {
	age := datasets.Column{Name: "age", Kind: datasets.Numeric,
		Values: []float64{5, 18, 29.9, 30, 49, 50, 80, 0},
		Valid:  []bool{true, true, true, true, true, true, true, false}}
	tab := &datasets.Table{Source: "s", Columns: []datasets.Column{age}}
	c, err := Count(tab, nil, []Key{{Name: "age", Cuts: []float64{18, 30, 50}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Left-closed bins: 5 <18; 18, 29.9 [18,30); 30, 49 [30,50); 50, 80 >=50; missing.
	var got [][]string
	for j := 0; j < c.Len(); j++ {
		got = append(got, c.Label(j))
	}
	want := [][]string{{"<18"}, {"[18,30)"}, {"[30,50)"}, {">=50"}, {MissingLabel}}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(c.Freq, []int{1, 2, 2, 2, 1}) {
		t.Errorf("labels %v freq %v", got, c.Freq)
	}
}

func TestQuantileCuts(t *testing.T) {
	tests := []struct {
		values []float64
		q      int
		want   []float64
	}{
		// Ranks ⌊i·n/q⌋ of the sorted values: n = 8, q = 4 → ranks 2, 4, 6.
		{[]float64{8, 7, 6, 5, 4, 3, 2, 1}, 4, []float64{3, 5, 7}},
		// Ties merge cut points; a cut at the minimum is dropped.
		{[]float64{1, 1, 1, 1, 1, 2, 2, 3}, 4, []float64{2}},
		{[]float64{1, 2}, 2, []float64{2}},
	}
	for _, tc := range tests {
		c := &datasets.Column{Kind: datasets.Numeric, Values: tc.values}
		if got := QuantileCuts(c, tc.q); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("QuantileCuts(%v, %d) = %v, want %v", tc.values, tc.q, got, tc.want)
		}
	}
}

// TestPopulationNumberLabels: a population label that is a number matches the sample
// label of the same value ("1.0" the sample's "1"), unless two sample labels have that
// value ("7" and "7.00", kept apart by the sample itself); other labels still match
// exactly.
func TestPopulationNumberLabels(t *testing.T) {
	s := &datasets.Table{Source: "s", Columns: []datasets.Column{{Name: "k", Kind: datasets.Categorical,
		Levels: []string{"1", "2", "7", "7.00", "x"}, Codes: []int32{0, 1, 2, 3, 4}}}}
	p := &datasets.Table{Source: "p", Columns: []datasets.Column{{Name: "k", Kind: datasets.Categorical,
		Levels: []string{"1.0", "2", "7.0", "7.00", "x", "3"}, Codes: []int32{0, 0, 1, 2, 3, 3, 4, 5}}}}
	c, err := Count(s, p, []Key{{Name: "k"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Sample classes 1, 2, 7, 7.00, x: population 1.0 ×2 → 1, 2 → 2, 7.0 → its own class
	// (ambiguous), 7.00 ×2 → 7.00, x → x, 3 → its own: F = 2, 1, 0, 2, 1; 6 population
	// classes, of which 7.0, 2, x and 3 are unique.
	if !reflect.DeepEqual(c.PopFreq, []int{2, 1, 0, 2, 1}) || c.PopulationClasses != 6 || c.PopulationUniques != 4 {
		t.Errorf("F %v, %d population classes, %d unique", c.PopFreq, c.PopulationClasses, c.PopulationUniques)
	}
}

// TestPopulationNumberLabelsApart: labels are merged by value only when each file has
// one label of the value and the labels are plain decimals of at most 15 significant
// digits without a leading zero; otherwise F_j would be raised (the risk lowered) by
// merging codes.
func TestPopulationNumberLabelsApart(t *testing.T) {
	for _, c := range []struct {
		name        string
		sample, pop []string
		popCodes    []int32
		wantF       []int // F of each sample label
	}{
		// The population keeps 007 and 7 apart itself: 7 is not merged into 007.
		{"population code with leading zeros", []string{"007", "x"}, []string{"007", "7", "x"}, []int32{0, 1, 1, 1, 2}, []int{1, 1}},
		// 16 digits: 9007199254740993 rounds to the float64 of …992.
		{"long codes", []string{"9007199254740992"}, []string{"9007199254740992", "9007199254740993"}, []int32{0, 1, 1}, []int{1}},
		{"hexadecimal", []string{"1"}, []string{"1", "0x1p0"}, []int32{0, 1}, []int{1}},
		// 7 and 007 in different files: a code with a leading zero is never merged (the
		// population lacks the sample's 7: Count gives F = 0, Measure refuses the pair).
		{"leading zero across files", []string{"7", "8"}, []string{"007", "8"}, []int32{0, 1}, []int{0, 1}},
		{"zero and decimals", []string{"0", "0.5"}, []string{"0.0", ".50"}, []int32{0, 1, 1}, []int{1, 2}},
		// Below the normal range the digits do not survive: 1e-400 reads as 0,
		// 4.9e-324 as 5e-324.
		{"underflow", []string{"0", "5e-324"}, []string{"1e-400", "4.9e-324"}, []int32{0, 1}, []int{0, 0}},
		{"exponent and sign", []string{"-1500", "2"}, []string{"-1.5e3", "+2.00"}, []int32{0, 1, 1}, []int{1, 2}},
	} {
		s := &datasets.Table{Source: "s", Columns: []datasets.Column{{Name: "k", Kind: datasets.Categorical,
			Levels: c.sample, Codes: identityCodes(len(c.sample))}}}
		p := &datasets.Table{Source: "p", Columns: []datasets.Column{{Name: "k", Kind: datasets.Categorical,
			Levels: c.pop, Codes: c.popCodes}}}
		cl, err := Count(s, p, []Key{{Name: "k"}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cl.PopFreq, c.wantF) {
			t.Errorf("%s: F %v, want %v", c.name, cl.PopFreq, c.wantF)
		}
	}
}

func identityCodes(n int) []int32 {
	c := make([]int32, n)
	for i := range c {
		c[i] = int32(i)
	}
	return c
}

func TestPopulationLabels(t *testing.T) {
	// Categories are matched by label, whatever their codes in each file; a
	// population-only label and missing values get codes of their own.
	s := &datasets.Table{Source: "s", Columns: []datasets.Column{{Name: "k", Kind: datasets.Categorical,
		Levels: []string{"a", "b"}, Codes: []int32{0, 1, 1, 0}, Valid: []bool{true, true, true, false}}}}
	p := &datasets.Table{Source: "p", Columns: []datasets.Column{{Name: "k", Kind: datasets.Categorical,
		Levels: []string{"c", "b", "a"}, Codes: []int32{0, 1, 2, 2, 1, 0, 0}, Valid: []bool{true, true, true, true, true, true, false}}}}
	c, err := Count(s, p, []Key{{Name: "k"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Sample classes a, b, missing; population a 2, b 2, missing 1, c 2.
	if !reflect.DeepEqual(c.Freq, []int{1, 2, 1}) || !reflect.DeepEqual(c.PopFreq, []int{2, 2, 1}) ||
		c.PopulationClasses != 4 || c.PopulationUniques != 1 || c.Label(2)[0] != MissingLabel {
		t.Errorf("f %v F %v classes %d uniques %d", c.Freq, c.PopFreq, c.PopulationClasses, c.PopulationUniques)
	}
	num := &datasets.Table{Source: "p", Columns: []datasets.Column{{Name: "k", Kind: datasets.Numeric, Values: []float64{1, 2}}}}
	if _, err := Count(s, num, []Key{{Name: "k"}}, 1); !errors.Is(err, ErrKindMismatch) {
		t.Errorf("kind mismatch: %v", err)
	}
}
