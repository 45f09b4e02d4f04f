package uniqueness

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// handTable is a table built in code, as a library user would: key A (categorical, levels
// x and y), sensitive S (categorical, levels a and b), numeric N. Four records.
func handTable() *datasets.Table {
	return &datasets.Table{Source: "hand", Columns: []datasets.Column{
		{Name: "A", Kind: datasets.Categorical, Codes: []int32{0, 1, 0, 1}, Levels: []string{"x", "y"}},
		{Name: "S", Kind: datasets.Categorical, Codes: []int32{0, 1, 1, 0}, Levels: []string{"a", "b"}},
		{Name: "N", Kind: datasets.Numeric, Values: []float64{1, 2, 3, 4}},
	}}
}

// TestCountBadColumns: a hand-built table whose codes are outside its levels, whose
// columns are shorter than the table or whose numeric key is NaN is an error naming the
// file, column and row, from Count and Measure, instead of a panic in Classes.Label (or
// classes that collide with others).
func TestCountBadColumns(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(sample, pop *datasets.Table)
		keys    []Key
		want    error
		wantIn  string // in the message
		withPop bool
	}{
		{"code beyond the levels", func(s, _ *datasets.Table) { s.Columns[0].Codes[3] = 2 }, []Key{{Name: "A"}},
			ErrBadCode, `hand: column "A", row 4: category code outside the column's levels: code 2, 2 levels`, false},
		{"negative code", func(s, _ *datasets.Table) { s.Columns[0].Codes[1] = -1 }, []Key{{Name: "A"}},
			ErrBadCode, `row 2`, false},
		{"short key column", func(s, _ *datasets.Table) { s.Columns[2].Values = s.Columns[2].Values[:3] },
			[]Key{{Name: "N", Cuts: []float64{2.5}}}, ErrColumnLength, `column "N"`, false},
		{"short missing mask", func(s, _ *datasets.Table) { s.Columns[0].Valid = []bool{true} }, []Key{{Name: "A"}},
			ErrColumnLength, `column "A"`, false},
		{"NaN numeric key", func(s, _ *datasets.Table) { s.Columns[2].Values[2] = math.NaN() },
			[]Key{{Name: "N", Cuts: []float64{2.5}}}, datasets.ErrNotFinite, `column "N", row 3`, false},
		{"population code beyond the levels", func(_, p *datasets.Table) { p.Columns[0].Codes[0] = 5 }, []Key{{Name: "A"}},
			ErrBadCode, `pop: column "A", row 1`, true},
	}
	for _, c := range cases {
		for _, measure := range []bool{false, true} {
			sample, pop := handTable(), handTable()
			pop.Source = "pop"
			c.edit(sample, pop)
			if !c.withPop {
				pop = nil
			}
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = errors.New("panic")
					}
				}()
				if measure {
					_, err = Measure(sample, Options{Keys: c.keys, Population: pop})
				} else {
					_, err = Count(sample, pop, c.keys, 1)
				}
			}()
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.wantIn) {
				t.Errorf("%s (Measure %v): error %v, want %v with %q", c.name, measure, err, c.want, c.wantIn)
			}
		}
	}
	// A code outside the levels where the value is missing is never read: no error.
	s := handTable()
	s.Columns[0].Codes[3], s.Columns[0].Valid = 9, []bool{true, true, true, false}
	if _, err := Measure(s, Options{Keys: []Key{{Name: "A"}}}); err != nil {
		t.Errorf("missing value with a stray code: %v", err)
	}
}

// TestMeasureBadThresholds: negative or non-finite thresholds are refused (K −1 and T −1
// used to become the defaults, L NaN to pass every class); 0 still means the default.
func TestMeasureBadThresholds(t *testing.T) {
	cases := []struct {
		name    string
		k       int
		l, tt   float64
		wantErr bool
	}{
		{"k −1", -1, 0, 0, true},
		{"l NaN", 0, math.NaN(), 0, true},
		{"l −1", 0, -1, 0, true},
		{"l +Inf", 0, math.Inf(1), 0, true},
		{"t −1", 0, 0, -1, true},
		{"t NaN", 0, 0, math.NaN(), true},
		{"zeros are the defaults", 0, 0, 0, false},
	}
	for _, c := range cases {
		res, err := Measure(handTable(), Options{Keys: []Key{{Name: "A"}}, Sensitive: []string{"S"}, K: c.k, L: c.l, T: c.tt})
		if c.wantErr {
			if !errors.Is(err, ErrBadThreshold) {
				t.Errorf("%s: error %v, want ErrBadThreshold", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.KAnonymity.K != DefaultK || res.LDiversity[0].L != DefaultL || res.TCloseness[0].T != DefaultT {
			t.Errorf("%s: k %d, l %v, t %v; want the defaults", c.name, res.KAnonymity.K, res.LDiversity[0].L, res.TCloseness[0].T)
		}
	}
}

// TestCheckSensitiveBadInput: CheckSensitive, called directly, refuses a NaN threshold
// and codes outside the sensitive column's levels (code 2 of 2 levels used to count as
// the missing value, code 3 to panic).
func TestCheckSensitiveBadInput(t *testing.T) {
	classes, err := Count(handTable(), nil, []Key{{Name: "A"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		code int32
		l    float64
		want error
	}{
		{"l NaN", 0, math.NaN(), ErrBadThreshold},
		{"code = levels", 2, 2, ErrBadCode},
		{"code beyond", 3, 2, ErrBadCode},
	}
	for _, c := range cases {
		col := handTable().Columns[1]
		col.Codes[0] = c.code
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v", c.name, p)
				}
			}()
			if _, _, err := classes.CheckSensitive(&col, c.l, 0.2, -1); !errors.Is(err, c.want) {
				t.Errorf("%s: error %v, want %v", c.name, err, c.want)
			}
		}()
	}
}
