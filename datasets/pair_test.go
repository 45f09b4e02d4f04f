package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func numTable(source string, cols map[string][]float64, order ...string) *Table {
	t := &Table{Source: source}
	for _, n := range order {
		t.Columns = append(t.Columns, Column{Name: n, Kind: Numeric, Values: cols[n]})
	}
	return t
}

func catColumn(name string, labels ...string) Column {
	c := Column{Name: name, Kind: Categorical}
	idx := map[string]int32{}
	for _, l := range labels {
		code, ok := idx[l]
		if !ok {
			code = int32(len(c.Levels))
			idx[l] = code
			c.Levels = append(c.Levels, l)
		}
		c.Codes = append(c.Codes, code)
	}
	return c
}

func TestStandardizeHandCases(t *testing.T) {
	cases := []struct {
		values []float64
		mean   float64
		sd     float64 // sample sd, n−1, computed by hand
	}{
		{[]float64{1, 2, 3}, 2, 1},
		// Σ(v−5)² = 9+1+1+1+0+0+4+16 = 32, s² = 32/7.
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
		// The authors' toy example (Abril, Navarro-Arribas & Torra), attribute 2:
		// mean 35, deviations −5, 15, −10: s² = (25+225+100)/2 = 175.
		{[]float64{30, 50, 25}, 35, math.Sqrt(175)},
	}
	for _, tc := range cases {
		tab := numTable("x", map[string][]float64{"v": tc.values}, "v")
		s, err := Standardize(tab, StandardizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.Mean[0]-tc.mean) > 1e-12 || math.Abs(s.SD[0]-tc.sd) > 1e-12 {
			t.Errorf("%v: mean %v sd %v, want %v %v", tc.values, s.Mean[0], s.SD[0], tc.mean, tc.sd)
		}
		for i, v := range tc.values {
			want := (v - tc.mean) / tc.sd
			if got := s.Table.Columns[0].Values[i]; math.Abs(got-want) > 1e-12 {
				t.Errorf("z[%d] = %v, want %v", i, got, want)
			}
		}
		if tab.Columns[0].Values[0] != tc.values[0] {
			t.Error("input modified")
		}
	}
}

// TestStandardizeAgainstGonum compares with gonum's stat.MeanStdDev (an independent
// implementation of the same n−1 formula) on skewed data with a large offset, where a
// naive one-pass formula would lose digits.
func TestStandardizeAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float64, 5000)
	for i := range v {
		v[i] = 1e9 + math.Exp(rng.NormFloat64()*2)
	}
	s, err := Standardize(numTable("x", map[string][]float64{"v": v}, "v"), StandardizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mean, sd := stat.MeanStdDev(v, nil)
	// Values near 1e9 are spaced 1.2e-7 apart (one ulp), so the two means may differ by a
	// few ulps; sd ≈ 39, so a z-score carries about ulp/sd ≈ 3e-9 of rounding.
	ulp := math.Nextafter(1e9, 2e9) - 1e9
	if math.Abs(s.Mean[0]-mean) > 4*ulp || math.Abs(s.SD[0]/sd-1) > 1e-9 {
		t.Errorf("mean %v sd %v; gonum %v %v", s.Mean[0], s.SD[0], mean, sd)
	}
	z := s.Table.Columns[0].Values
	zm, zsd := stat.MeanStdDev(z, nil)
	if math.Abs(zm) > ulp/s.SD[0] || math.Abs(zsd-1) > 1e-9 {
		t.Errorf("z has mean %v sd %v, want 0 and 1", zm, zsd)
	}
}

func TestStandardizeMissingAndConstant(t *testing.T) {
	c := Column{Name: "v", Kind: Numeric, Values: []float64{1, 0, 3}, Valid: []bool{true, false, true}}
	s, err := Standardize(&Table{Source: "m", Columns: []Column{c}}, StandardizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Non-missing values 1, 3: mean 2, s² = (1+1)/1 = 2.
	if s.Mean[0] != 2 || math.Abs(s.SD[0]-math.Sqrt2) > 1e-15 {
		t.Errorf("mean %v sd %v, want 2 √2", s.Mean[0], s.SD[0])
	}
	constant := numTable("k.csv", map[string][]float64{"a": {1, 2, 3}, "flat": {0.1, 0.1, 0.1}}, "a", "flat")
	_, err = Standardize(constant, StandardizeOptions{})
	if !errors.Is(err, ErrConstantColumn) || !strings.Contains(err.Error(), `k.csv: column "flat"`) {
		t.Errorf("err = %v", err)
	}
	s, err = Standardize(constant, StandardizeOptions{DropConstant: true})
	if err != nil || len(s.Table.Columns) != 1 || strings.Join(s.Dropped, ",") != "flat" {
		t.Errorf("drop: %+v, %v", s, err)
	}
}

func TestPairByRowOrder(t *testing.T) {
	o := numTable("o.csv", map[string][]float64{"a": {1, 2}, "b": {3, 4}, "c": {5, 6}}, "a", "b", "c")
	m := numTable("m.csv", map[string][]float64{"c": {5, 6}, "a": {1, 2}, "b": {0, 0}}, "c", "a", "b")
	p, err := Pair(o, m, PairOptions{Attributes: []string{"b", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Masked.Names(), ",") != "b,a" || strings.Join(p.Original.Names(), ",") != "b,a" {
		t.Errorf("columns %v %v", p.Original.Names(), p.Masked.Names())
	}
	if p.TrueMasked[1] != 1 || p.TrueOriginal[0] != 0 {
		t.Errorf("truth %v %v", p.TrueMasked, p.TrueOriginal)
	}
}

func TestPairErrors(t *testing.T) {
	o := numTable("o.csv", map[string][]float64{"a": {1, 2, 3}, "b": {3, 4, 5}}, "a", "b")
	cases := []struct {
		name    string
		masked  *Table
		opts    PairOptions
		err     error
		mention []string
	}{
		{"attribute sets differ", numTable("m.csv", map[string][]float64{"a": {1, 2, 3}, "z": {1, 1, 1}}, "a", "z"), PairOptions{},
			ErrSchemaMismatch, []string{`missing from the masked file: "b"`, `only in the masked file: "z"`}},
		{"row counts differ", numTable("m.csv", map[string][]float64{"a": {1, 2}, "b": {3, 4}}, "a", "b"), PairOptions{},
			ErrRowMismatch, []string{"2 records here, 3 in o.csv"}},
		{"attribute twice", numTable("m.csv", map[string][]float64{"a": {1, 2, 3}, "b": {3, 4, 5}}, "a", "b"), PairOptions{Attributes: []string{"a", "a"}},
			ErrDuplicateColumn, []string{`column "a"`}},
		{"kind differs", &Table{Source: "m.csv", Columns: []Column{{Name: "a", Kind: Numeric, Values: []float64{1, 2, 3}}, catColumn("b", "x", "y", "z")}}, PairOptions{},
			ErrSchemaMismatch, []string{`column "b"`, "numeric in o.csv, categorical here"}},
	}
	for _, tc := range cases {
		_, err := Pair(o, tc.masked, tc.opts)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.err)
			continue
		}
		for _, m := range tc.mention {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, m)
			}
		}
	}
}

func TestPairByID(t *testing.T) {
	o := &Table{Source: "o.csv", Columns: []Column{catColumn("id", "p", "q", "r"), {Name: "a", Kind: Numeric, Values: []float64{10, 20, 30}}}}
	// The masked file is in another order and has one extra record.
	m := &Table{Source: "m.csv", Columns: []Column{catColumn("id", "r", "s", "p", "q"), {Name: "a", Kind: Numeric, Values: []float64{31, 99, 11, 21}}}}
	p, err := Pair(o, m, PairOptions{ID: "id"})
	if err != nil {
		t.Fatal(err)
	}
	// p→2, q→3, r→0 by hand; masked row 1 ("s") has no original.
	if want := []int{2, 3, 0}; !equalInts(p.TrueMasked, want) {
		t.Errorf("TrueMasked %v, want %v", p.TrueMasked, want)
	}
	if want := []int{2, -1, 0, 1}; !equalInts(p.TrueOriginal, want) {
		t.Errorf("TrueOriginal %v, want %v", p.TrueOriginal, want)
	}
	if p.OriginalRows != nil {
		t.Errorf("OriginalRows %v for the whole original in file order, want nil", p.OriginalRows)
	}
	if strings.Join(p.Attributes, ",") != "a" {
		t.Errorf("attributes %v: the id column must not be an attribute", p.Attributes)
	}
	// Intruder subset by id.
	p, err = Pair(o, m, PairOptions{ID: "id", IntruderIDs: []string{"r", "p"}})
	if err != nil {
		t.Fatal(err)
	}
	if !equalInts(p.TrueMasked, []int{0, 2}) || p.Original.Columns[0].Values[0] != 30 {
		t.Errorf("subset: TrueMasked %v original %v", p.TrueMasked, p.Original.Columns[0].Values)
	}
	// Every id, in another order: the original follows the list (values 30, 10, 20).
	p, err = Pair(o, m, PairOptions{ID: "id", IntruderIDs: []string{"r", "p", "q"}})
	if err != nil {
		t.Fatal(err)
	}
	// r, p, q are the file's rows 2, 0, 1.
	if !equalInts(p.OriginalRows, []int{2, 0, 1}) {
		t.Errorf("every id reordered: OriginalRows %v, want [2 0 1]", p.OriginalRows)
	}
	if !equalInts(p.TrueMasked, []int{0, 2, 3}) || !slices.Equal(p.Original.Columns[0].Values, []float64{30, 10, 20}) {
		t.Errorf("every id reordered: TrueMasked %v original %v", p.TrueMasked, p.Original.Columns[0].Values)
	}
	dup := &Table{Source: "d.csv", Columns: []Column{catColumn("id", "p", "q", "p"), {Name: "a", Kind: Numeric, Values: []float64{1, 2, 3}}}}
	_, err = Pair(o, dup, PairOptions{ID: "id"})
	if !errors.Is(err, ErrDuplicateID) || !strings.Contains(err.Error(), `d.csv: column "id", row 3: duplicate id: "p" also in row 1`) {
		t.Errorf("duplicate id: %v", err)
	}
}

// TestPairReleasedSample: a masked file that lacks some original ids (records the release
// left out) pairs, those originals having no partner (−1); a listed intruder id the
// release left out, and a sample drawn over such an original, keep −1; no id in common
// is an error naming both files' first ids.
func TestPairReleasedSample(t *testing.T) {
	o := &Table{Source: "o.csv", Columns: []Column{catColumn("id", "p", "q", "r", "s"), {Name: "a", Kind: Numeric, Values: []float64{10, 20, 30, 40}}}}
	// q and s were left out; the rest in another order.
	m := &Table{Source: "m.csv", Columns: []Column{catColumn("id", "r", "p"), {Name: "a", Kind: Numeric, Values: []float64{31, 11}}}}
	p, err := Pair(o, m, PairOptions{ID: "id"})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: p→1, q none, r→0, s none; masked r←2, p←0.
	if want := []int{1, -1, 0, -1}; !equalInts(p.TrueMasked, want) {
		t.Errorf("TrueMasked %v, want %v", p.TrueMasked, want)
	}
	if want := []int{2, 0}; !equalInts(p.TrueOriginal, want) {
		t.Errorf("TrueOriginal %v, want %v", p.TrueOriginal, want)
	}
	p, err = Pair(o, m, PairOptions{ID: "id", IntruderIDs: []string{"s", "r"}})
	if err != nil {
		t.Fatal(err)
	}
	if !equalInts(p.TrueMasked, []int{-1, 0}) || !equalInts(p.TrueOriginal, []int{1, -1}) {
		t.Errorf("intruder ids s, r: TrueMasked %v TrueOriginal %v, want [-1 0] [1 -1]", p.TrueMasked, p.TrueOriginal)
	}
	// Every sample of 2 of the 4 keeps the truth consistent: a kept original's partner
	// points back to it, and no masked record points to an original not kept (a sample of
	// q and s, both left out, is refused: see below).
	for seed := uint64(0); seed < 20; seed++ {
		p, err = Pair(o, m, PairOptions{ID: "id", SampleFraction: 0.5, Seed: seed})
		if errors.Is(err, ErrNoCommonID) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		back := 0
		for i, j := range p.TrueMasked {
			if j >= 0 {
				back++
				if p.TrueOriginal[j] != i {
					t.Fatalf("seed %d: original %d → masked %d → original %d", seed, i, j, p.TrueOriginal[j])
				}
			}
		}
		for _, i := range p.TrueOriginal {
			if i >= 0 {
				back--
			}
		}
		if back != 0 {
			t.Fatalf("seed %d: TrueMasked %v and TrueOriginal %v disagree", seed, p.TrueMasked, p.TrueOriginal)
		}
	}
	// A sample that draws only records the release left out has nothing to link: which
	// record a seed draws is read from the same draw against a file with every id.
	full := &Table{Source: "f.csv", Columns: []Column{catColumn("id", "s", "r", "q", "p"), {Name: "a", Kind: Numeric, Values: []float64{1, 2, 3, 4}}}}
	onlyP := &Table{Source: "m1.csv", Columns: []Column{catColumn("id", "p"), {Name: "a", Kind: Numeric, Values: []float64{1}}}}
	drewP, drewOther := false, false
	for seed := uint64(0); seed < 20; seed++ {
		ref, err := Pair(o, full, PairOptions{ID: "id", SampleFraction: 0.25, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Pair(o, onlyP, PairOptions{ID: "id", SampleFraction: 0.25, Seed: seed})
		if isP := ref.OriginalRows[0] == 0; isP != (err == nil) || !isP && !errors.Is(err, ErrNoCommonID) {
			t.Errorf("seed %d drew original row %d: err %v", seed, ref.OriginalRows[0], err)
		} else {
			drewP, drewOther = drewP || isP, drewOther || !isP
		}
	}
	if !drewP || !drewOther {
		t.Errorf("20 seeds drew p: %v, another: %v; the case is not exercised", drewP, drewOther)
	}
	other := &Table{Source: "x.csv", Columns: []Column{catColumn("id", "u", "v"), {Name: "a", Kind: Numeric, Values: []float64{1, 2}}}}
	_, err = Pair(o, other, PairOptions{ID: "id"})
	if !errors.Is(err, ErrNoCommonID) || err.Error() != `x.csv: column "id": no id in common with the original: none of the 4 ids of o.csv occurs here (its row 1 reads "p", this file's row 1 "u")` {
		t.Errorf("no id in common: %v", err)
	}
}

// TestPairIDsOfDifferentKinds: an id column read as numbers in one file and as text in
// the other (a non-numeric id there) matches by value where a label reads as a number
// (1.0 and 003 there are 1 and 3 here); two text columns match by label only.
func TestPairIDsOfDifferentKinds(t *testing.T) {
	num := func(src string, ids ...float64) *Table {
		a := make([]float64, len(ids))
		return &Table{Source: src, Columns: []Column{{Name: "id", Kind: Numeric, Values: ids}, {Name: "a", Kind: Numeric, Values: a}}}
	}
	text := func(src string, ids ...string) *Table {
		return &Table{Source: src, Columns: []Column{catColumn("id", ids...), {Name: "a", Kind: Numeric, Values: make([]float64, len(ids))}}}
	}
	cases := []struct {
		name             string
		original, masked *Table
		intruder         []string
		trueMasked       []int
	}{
		{"numeric original, text masked", num("o", 1, 2, 3, 4), text("m", "1.0", "x", "003"), nil, []int{0, -1, 2, -1}},
		{"text original, numeric masked", text("o", "x", "3.0", "1"), num("m", 1, 3), nil, []int{-1, 1, 0}},
		{"text both: labels", text("o", "1", "003"), text("m", "1.0", "003"), nil, []int{-1, 1}},
		{"intruder ids by value", text("o", "x", "3.0", "1"), num("m", 1, 3), []string{"003", "1"}, []int{1, 0}},
	}
	for _, tc := range cases {
		p, err := Pair(tc.original, tc.masked, PairOptions{ID: "id", IntruderIDs: tc.intruder})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !equalInts(p.TrueMasked, tc.trueMasked) {
			t.Errorf("%s: TrueMasked %v, want %v", tc.name, p.TrueMasked, tc.trueMasked)
		}
	}
	// By value, 1 and 1.0 in a text column facing a numeric one are one id twice.
	_, err := Pair(num("o", 1, 2), text("m", "1", "1.0"), PairOptions{ID: "id"})
	if !errors.Is(err, ErrDuplicateID) || !strings.Contains(err.Error(), `"1.0", value 1, also in row 1`) {
		t.Errorf("1 and 1.0: %v", err)
	}
}

// Bad intruder id lists: the first bad entry is reported with its position, a repeated
// id with the position of its first listing; sampling the ids is refused.
func TestPairIntruderIDErrors(t *testing.T) {
	o := &Table{Source: "o.csv", Columns: []Column{catColumn("id", "p", "q", "r"), {Name: "a", Kind: Numeric, Values: []float64{10, 20, 30}}}}
	m := &Table{Source: "m.csv", Columns: []Column{catColumn("id", "r", "p", "q"), {Name: "a", Kind: Numeric, Values: []float64{31, 11, 21}}}}
	cases := []struct {
		name     string
		ids      []string
		fraction float64
		want     *IntruderIDError // nil with err: not an IntruderIDError
		err      error
		message  string
	}{
		{"repeated id", []string{"q", "p", "q", "r"}, 0,
			&IntruderIDError{ID: "q", Index: 2, First: 0, FirstID: "q", Original: "o.csv", Column: "id", Err: ErrDuplicateID}, ErrDuplicateID,
			`intruder id "q" is listed more than once`},
		{"id not in the original", []string{"p", "zz", "q"}, 0,
			&IntruderIDError{ID: "zz", Index: 1, First: -1, Original: "o.csv", Column: "id", Err: ErrNotInOriginal}, ErrNotInOriginal,
			`intruder id "zz" is not in the original file o.csv (column "id")`},
		{"unknown before repeated", []string{"zz", "p", "p"}, 0,
			&IntruderIDError{ID: "zz", Index: 0, First: -1, Original: "o.csv", Column: "id", Err: ErrNotInOriginal}, ErrNotInOriginal,
			`intruder id "zz" is not in the original file o.csv (column "id")`},
		{"ids and a sample fraction", []string{"p", "q"}, 0.5, nil, ErrIntruderIDsAndSample,
			"give intruder ids or a sample fraction, not both"},
	}
	for _, tc := range cases {
		_, err := Pair(o, m, PairOptions{ID: "id", IntruderIDs: tc.ids, SampleFraction: tc.fraction})
		if !errors.Is(err, tc.err) || err.Error() != tc.message {
			t.Errorf("%s: err = %v, want %q (%v)", tc.name, err, tc.message, tc.err)
			continue
		}
		var ie *IntruderIDError
		if errors.As(err, &ie) != (tc.want != nil) || (tc.want != nil && *ie != *tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, ie, tc.want)
		}
	}
}

func TestPairSample(t *testing.T) {
	n := 1000
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	o := numTable("o", map[string][]float64{"a": v}, "a")
	m := numTable("m", map[string][]float64{"a": v}, "a")
	p1, err := Pair(o, m, PairOptions{SampleFraction: 0.1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := Pair(o, m, PairOptions{SampleFraction: 0.1, Seed: 7})
	if p1.Original.Rows() != 100 || !equalInts(p1.TrueMasked, p2.TrueMasked) {
		t.Fatalf("rows %d; same seed same sample: %v", p1.Original.Rows(), equalInts(p1.TrueMasked, p2.TrueMasked))
	}
	// Since a == row index in both files, the truth is consistent iff the kept original
	// value equals its true masked row.
	kept := 0
	for i, j := range p1.TrueMasked {
		if p1.Original.Columns[0].Values[i] != float64(j) || p1.TrueOriginal[j] != i {
			t.Fatalf("record %d: value %v, true masked row %d", i, p1.Original.Columns[0].Values[i], j)
		}
	}
	for _, i := range p1.TrueOriginal {
		if i >= 0 {
			kept++
		}
	}
	if kept != 100 {
		t.Errorf("%d masked records have an original, want 100", kept)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDisjointCategories: an attribute whose labels the two files spell differently
// (TRUE/true) shares no value; one whose labels a masking changed in part (PRAM) shares
// some; numeric attributes and all-missing columns are not judged.
func TestDisjointCategories(t *testing.T) {
	dir := t.TempDir()
	o := writeFile(t, dir, "o.csv", "flag,colour,x,gone\nTRUE,red,1,\nFALSE,blue,2,\nTRUE,red,3,\n")
	m := writeFile(t, dir, "m.csv", "flag,colour,x,gone\ntrue,red,1.5,\nfalse,green,2.5,\ntrue,green,3.5,\n")
	p := loadPair(t, o, m, PairOptions{})
	if got := p.DisjointCategories(); !slices.Equal(got, []string{"flag"}) {
		t.Errorf("DisjointCategories = %q, want [flag]", got)
	}
}

// loadPair loads two CSV files, missing values kept, and pairs them.
func loadPair(t *testing.T, original, masked string, opts PairOptions) *Pairing {
	t.Helper()
	ot, err := Load(original, LoadOptions{Missing: MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	mt, err := Load(masked, LoadOptions{Missing: MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Pair(ot, mt, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIdentifiers: an attribute the masking left unchanged in every true pair that differs
// in every record of both files re-identifies every record alone; one change, one
// repeated value (in either file, also in a masked record without a partner) or one
// value missing in one file of a pair makes it no such attribute, float32's rounding does
// not, nor a value missing in both records of a pair (the others still re-identify
// their records: the warning was silent on such a column). Linked by id,
// the masked file in another order and with a record the original lacks (no true pair).
func TestIdentifiers(t *testing.T) {
	dir := t.TempDir()
	// key: unchanged and distinct (reported); code: unchanged, distinct labels (reported);
	// f32: 100043.963 read back from float32 as 100043.96 (reported); dup: unchanged with
	// a value twice; x: one value changed; gap: one value missing; rep: unchanged and
	// distinct in the original, but the masked record without a partner repeats 10; hole:
	// missing in one file of a pair only.
	o := writeFile(t, dir, "o.csv", "id,key,code,f32,dup,x,gap,rep,hole\n1,10,a,100043.963,5,1,1,10,1\n2,20,b,100045.337,5,2,2,20,2\n3,30,c,100041.2,6,3,,30,3\n")
	m := writeFile(t, dir, "m.csv", "id,key,code,f32,dup,x,gap,rep,hole\n3,30,c,100041.2,6,3,,30,\n9,99,z,7,7,9,9,10,9\n1,10,a,100043.96,5,1,1,10,1\n2,20,b,100045.34,5,2.5,2,20,2\n")
	p := loadPair(t, o, m, PairOptions{ID: "id"})
	if got := p.Identifiers(0); !slices.Equal(got, []string{"key", "code", "f32", "gap"}) {
		t.Errorf("Identifiers = %q, want [key code f32 gap]", got)
	}
	// The first two records of each file (--records 2): masked ids 3 and 9 against
	// original ids 1 and 2 hold no true pair, so nothing is shown to re-identify.
	if got := p.Identifiers(2); len(got) != 0 {
		t.Errorf("Identifiers(2) = %q, want none", got)
	}
}

// TestStandardizeLike: a sample's values put on the whole file's scale get the bits the
// whole file's own z-scores give the same values, and its mean and sd; a column the
// whole dropped as constant is dropped, a categorical one passes through, a missing value
// stays missing; the hand case: 2 and 5 of 1…5 (mean 3, sd √2.5) are −1/√2.5 and 2/√2.5.
func TestStandardizeLike(t *testing.T) {
	whole := &Table{Source: "o.csv", Columns: []Column{
		{Name: "a", Kind: Numeric, Values: []float64{1, 2, 3, 4, 5}},
		{Name: "k", Kind: Numeric, Values: []float64{7, 7, 7, 7, 7}},
		catColumn("c", "x", "y", "x", "y", "z"),
	}}
	zw, err := Standardize(whole, StandardizeOptions{DropConstant: true})
	if err != nil {
		t.Fatal(err)
	}
	sample := &Table{Source: "m.csv", Columns: []Column{
		{Name: "a", Kind: Numeric, Values: []float64{5, 0, 2}, Valid: []bool{true, false, true}},
		{Name: "k", Kind: Numeric, Values: []float64{7, 8, 9}},
		catColumn("c", "z", "x", "w"),
	}}
	zs, err := StandardizeLike(sample, zw)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(zs.Dropped, []string{"k"}) || zs.Table.Index("k") >= 0 {
		t.Errorf("dropped %v, columns %v: k was dropped by the whole", zs.Dropped, zs.Table.Names())
	}
	a := zs.Table.Column("a")
	if a.Values[0] != zw.Table.Column("a").Values[4] || a.Values[2] != zw.Table.Column("a").Values[1] {
		t.Errorf("a: %v, the whole's z of 5 and 2: %v, %v", a.Values, zw.Table.Column("a").Values[4], zw.Table.Column("a").Values[1])
	}
	sd := math.Sqrt(2.5)
	if math.Abs(a.Values[0]-2/sd) > 1e-15 || math.Abs(a.Values[2]+1/sd) > 1e-15 || !a.Missing(1) {
		t.Errorf("a: %v (missing %v), want 2/√2.5, missing, −1/√2.5", a.Values, a.Missing(1))
	}
	if j := zs.Table.Index("a"); zs.Mean[j] != 3 || math.Abs(zs.SD[j]-sd) > 1e-15 {
		t.Errorf("mean %v sd %v, want the whole's 3 and √2.5", zs.Mean[j], zs.SD[j])
	}
	if c := zs.Table.Column("c"); c.Kind != Categorical || c.Levels[c.Codes[2]] != "w" {
		t.Errorf("c: %+v", c)
	}
	if got := zs.Score(zs.Table.Index("a"), 4); got != zw.Table.Column("a").Values[3] {
		t.Errorf("Score(4) = %v, the whole's z of 4 is %v", got, zw.Table.Column("a").Values[3])
	}
}
