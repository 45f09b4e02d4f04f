package linkage

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/distances"
)

// toyFiles are three records on two attributes, the masked file a small perturbation of
// the original (every record's nearest is its partner).
func toyFiles() (o, m [][]float64) {
	return [][]float64{{-1, 0, 1}, {1, -1, 0}}, [][]float64{{-1.1, 0.1, 0.9}, {1, -0.9, 0.1}}
}

// TestDBRLNotFinite: a NaN or ±Inf in either file is an error wrapping
// distances.ErrNotFinite that names the direction and what the core's "queries" and
// "references" are, instead of a record linked to nothing (Nearest −1, Ties 0).
func TestDBRLNotFinite(t *testing.T) {
	cases := []struct {
		name      string
		dir       Direction
		original  bool // the bad value is in the original file, else in the masked
		attr, rec int
		value     float64
		want      []string
	}{
		{"NaN masked query", MaskedToOriginal, false, 1, 2, math.NaN(),
			[]string{"masked-to-original (queries: masked, references: original)", "queries: attribute 1 of record 2 (0-based) is NaN"}},
		{"+Inf original reference", MaskedToOriginal, true, 0, 1, math.Inf(1),
			[]string{"references: attribute 0 of record 1 (0-based) is +Inf"}},
		{"-Inf original query", OriginalToMasked, true, 0, 0, math.Inf(-1),
			[]string{"original-to-masked (queries: original, references: masked)", "queries: attribute 0 of record 0 (0-based) is -Inf"}},
		{"NaN masked reference", OriginalToMasked, false, 1, 0, math.NaN(),
			[]string{"references: attribute 1 of record 0 (0-based) is NaN"}},
	}
	for _, c := range cases {
		o, m := toyFiles()
		if c.original {
			o[c.attr][c.rec] = c.value
		} else {
			m[c.attr][c.rec] = c.value
		}
		res, err := DBRL(Problem{Original: o, Masked: m, TrueMasked: identity(3), TrueOriginal: identity(3),
			Operator: distances.NewEuclidean(2), Direction: c.dir}, Settings{})
		if !errors.Is(err, distances.ErrNotFinite) || res != nil {
			t.Errorf("%s: result %v, error %v; want distances.ErrNotFinite", c.name, res, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}

// TestDBRLTruth: DBRL reads the truth of its query file only. Without it (nil or all −1)
// there is nothing to measure: ErrNoTruth, not N = 0 and Reid 0. With it, the other
// slice may be nil, and all 3 records of toyFiles are linked (N = 3, Reid 1).
func TestDBRLTruth(t *testing.T) {
	none := []int{-1, -1, -1}
	cases := []struct {
		name                     string
		dir                      Direction
		trueMasked, trueOriginal []int
		wantErr                  error
		wantN                    int
	}{
		{"masked-to-original, nil", MaskedToOriginal, identity(3), nil, ErrNoTruth, 0},
		{"masked-to-original, all −1", MaskedToOriginal, identity(3), none, ErrNoTruth, 0},
		{"original-to-masked, nil", OriginalToMasked, nil, identity(3), ErrNoTruth, 0},
		{"original-to-masked, all −1", OriginalToMasked, none, identity(3), ErrNoTruth, 0},
		{"masked-to-original, other nil", MaskedToOriginal, nil, identity(3), nil, 3},
		{"original-to-masked, other nil", OriginalToMasked, identity(3), nil, nil, 3},
	}
	for _, c := range cases {
		o, m := toyFiles()
		res, err := DBRL(Problem{Original: o, Masked: m, TrueMasked: c.trueMasked, TrueOriginal: c.trueOriginal,
			Operator: distances.NewEuclidean(2), Direction: c.dir}, Settings{})
		if c.wantErr != nil {
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%s: error %v, want %v", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if res.Measures.N != c.wantN || res.Measures.Reid != 1 {
			t.Errorf("%s: N %d, Reid %v; want %d, 1", c.name, res.Measures.N, res.Measures.Reid, c.wantN)
		}
	}
}

// TestDirectionUnknown: a Direction that is neither of the two prints as such and is
// refused by DBRL, PRL and CountPatterns (it used to run as masked-to-original).
func TestDirectionUnknown(t *testing.T) {
	o, m := toyFiles()
	prl := oneAttrProblem([]float64{0, 1, 2}, []float64{0, 1, 2}, identity(3), nil, nil)
	cases := []struct {
		name string
		run  func(d Direction) error
	}{
		{"DBRL", func(d Direction) error {
			_, err := DBRL(Problem{Original: o, Masked: m, TrueMasked: identity(3), TrueOriginal: identity(3),
				Operator: distances.NewEuclidean(2), Direction: d}, Settings{})
			return err
		}},
		{"PRL", func(d Direction) error {
			p := prl
			p.Direction = d
			_, err := PRL(p, PRLSettings{})
			return err
		}},
		{"CountPatterns", func(d Direction) error {
			p := prl
			p.Direction = d
			_, _, err := CountPatterns(p, 1)
			return err
		}},
		{"ParseDirection", func(Direction) error { _, err := ParseDirection("sideways"); return err }},
	}
	for _, d := range []Direction{7, -1} {
		if want := "Direction(" + map[Direction]string{7: "7", -1: "-1"}[d] + ")"; d.String() != want {
			t.Errorf("String() = %q, want %q", d.String(), want)
		}
		for _, c := range cases {
			if err := c.run(d); !errors.Is(err, ErrDirection) {
				t.Errorf("%s with %v: error %v, want ErrDirection", c.name, d, err)
			}
		}
	}
}

// TestPRLNotFinite: a NaN or ±Inf that is not flagged missing is refused in either file,
// whichever is the query file (only the query file's values were checked: a NaN
// reference gave level 0, full agreement, with |NaN − x| > t false). A NaN flagged
// missing is never read, so the result is the one with any other value there.
func TestPRLNotFinite(t *testing.T) {
	cases := []struct {
		name     string
		dir      Direction
		original bool
		value    float64
		flagged  bool
		want     string // in the error; "" for no error
	}{
		{"NaN original (reference)", MaskedToOriginal, true, math.NaN(), false, `attribute "x", original record 1 (0-based)`},
		{"+Inf masked (reference)", OriginalToMasked, false, math.Inf(1), false, `attribute "x", masked record 1 (0-based)`},
		{"NaN masked (query)", MaskedToOriginal, false, math.NaN(), false, `attribute "x", masked record 1 (0-based)`},
		{"NaN flagged missing, query", MaskedToOriginal, false, math.NaN(), true, ""},
		{"NaN flagged missing, reference", MaskedToOriginal, true, math.NaN(), true, ""},
	}
	for _, c := range cases {
		build := func(v float64) PRLProblem {
			orig, masked := []float64{0, 1, 2, 3}, []float64{0, 1.05, 2, 3}
			p := oneAttrProblem(orig, masked, identity(4), nil, nil)
			p.Direction = c.dir
			x := &p.Attributes[0]
			if c.original {
				orig[1] = v
			} else {
				masked[1] = v
			}
			if c.flagged {
				flags := []bool{false, true, false, false}
				if c.original {
					x.OriginalMissing = flags
				} else {
					x.MaskedMissing = flags
				}
			}
			return p
		}
		res, err := PRL(build(c.value), PRLSettings{Supervised: true, Threads: 1})
		if c.want != "" {
			if !errors.Is(err, distances.ErrNotFinite) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want distances.ErrNotFinite naming %s", c.name, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want, err := PRL(build(0), PRLSettings{Supervised: true, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Records, want.Records) || !reflect.DeepEqual(res.Patterns, want.Patterns) {
			t.Errorf("%s: records %+v, want those with 0 in the missing slot, %+v", c.name, res.Records, want.Records)
		}
	}
}

// TestPRLShapes: PatternWeights and FSThresholds refuse inputs of inconsistent sizes with
// ErrShapePRL, as EM does, instead of an index out of range.
func TestPRLShapes(t *testing.T) {
	tab := PatternTable{Levels: []int{2}, Pattern: []int8{0, 1}, Count: []float64{3, 7}}
	model := EMResult{M: [][]float64{{0.9, 0.1}}, U: [][]float64{{0.2, 0.8}}, P: 0.3}
	cases := []struct {
		name string
		run  func() error
	}{
		{"weights: m of another attribute count", func() error {
			r := model
			r.M = append(r.M, []float64{1})
			_, err := PatternWeights(tab, r)
			return err
		}},
		{"weights: u of fewer levels", func() error {
			r := model
			r.U = [][]float64{{1}}
			_, err := PatternWeights(tab, r)
			return err
		}},
		{"weights: pattern of another length", func() error {
			tb := tab
			tb.Pattern = []int8{0}
			_, err := PatternWeights(tb, model)
			return err
		}},
		{"thresholds: fewer m-masses", func() error {
			_, err := FSThresholds([]float64{1, -1}, []float64{1}, []float64{0.5, 0.5}, 0.01, 0.05)
			return err
		}},
		{"thresholds: more u-masses", func() error {
			_, err := FSThresholds([]float64{1, -1}, []float64{0.5, 0.5}, []float64{0.2, 0.3, 0.5}, 0.01, 0.05)
			return err
		}},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v, want ErrShapePRL", c.name, p)
				}
			}()
			if err := c.run(); !errors.Is(err, ErrShapePRL) {
				t.Errorf("%s: error %v, want ErrShapePRL", c.name, err)
			}
		}()
	}
	// The weights of consistent inputs, by hand: log2(0.9/0.2) and log2(0.1/0.8) = −3.
	w, err := PatternWeights(tab, model)
	if err != nil || len(w) != 2 || math.Abs(w[0]-math.Log2(4.5)) > 1e-12 || math.Abs(w[1]+3) > 1e-12 {
		t.Errorf("weights %v, error %v; want [log2 4.5, −3]", w, err)
	}
}
