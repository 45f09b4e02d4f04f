package distances_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/distances"
)

var opAttrs = []string{"AGI", "FICA", "PTOTVAL"}

// opHandMeasure is opHandMu keyed by the names of opAttrs (AGI = bit 0, FICA = bit 1,
// PTOTVAL = bit 2).
const opHandMeasure = `{"AGI": 0.1, "FICA": 0.2, "AGI,FICA": 0.4, "PTOTVAL": 0.3,
	"AGI,PTOTVAL": 0.5, "FICA,PTOTVAL": 0.6, "AGI,FICA,PTOTVAL": 1}`

// TestReadParamsFormats reads every form of the format documented at ReadParams.
func TestReadParamsFormats(t *testing.T) {
	third := 1.0 / 3
	tests := []struct {
		name, file, op string
		attrs          []string
		params         []float64
	}{
		{"euclidean", `{"operator": "euclidean"}`, "euclidean", opAttrs, []float64{third, third, third}},
		{"wm by name", `{"operator": "wm", "weights": {"PTOTVAL": 0.5, "AGI": 0.2, "FICA": 0.3}}`,
			"wm", opAttrs, []float64{0.2, 0.3, 0.5}},
		{"wm list", `{"operator": "wm", "weights": [0.2, 0.3, 0.5]}`, "wm", opAttrs, []float64{0.2, 0.3, 0.5}},
		{"wm list, file order", `{"operator": "wm", "attributes": ["PTOTVAL", "AGI", "FICA"], "weights": [0.5, 0.2, 0.3]}`,
			"wm", opAttrs, []float64{0.2, 0.3, 0.5}},
		{"owa", `{"operator": "owa", "weights": [0.5, 0.3, 0.2]}`, "owa", opAttrs, []float64{0.5, 0.3, 0.2}},
		{"owa without names", `{"operator": "owa", "weights": [0.5, 0.3, 0.2]}`, "owa", nil, []float64{0.5, 0.3, 0.2}},
		// Params of a bilinear form: the upper triangle row by row.
		{"bilinear", `{"operator": "bilinear", "matrix": [[0.5, 0.1, 0], [0.1, 0.3, 0], [0, 0, 0.2]]}`,
			"bilinear", opAttrs, []float64{0.5, 0.1, 0, 0.3, 0, 0.2}},
		// File order (FICA, AGI, PTOTVAL): W_FICA,FICA = 0.3, W_FICA,AGI = 0.1, W_AGI,AGI = 0.5.
		{"bilinear, file order", `{"operator": "bilinear", "attributes": ["FICA", "AGI", "PTOTVAL"],
			"matrix": [[0.3, 0.1, 0], [0.1, 0.5, 0], [0, 0, 0.2]]}`,
			"bilinear", opAttrs, []float64{0.5, 0.1, 0, 0.3, 0, 0.2}},
		{"choquet measure", `{"operator": "choquet", "measure": ` + opHandMeasure + `}`, "choquet", opAttrs, opHandMu[1:]},
		{"choquet measure, any key order", `{"operator": "choquet", "measure": {"AGI": 0.1, "FICA": 0.2,
			" FICA , AGI": 0.4, "PTOTVAL": 0.3, "PTOTVAL,AGI": 0.5, "FICA,PTOTVAL": 0.6, "PTOTVAL,FICA,AGI": 1}}`,
			"choquet", opAttrs, opHandMu[1:]},
		{"choquet mu", `{"operator": "choquet", "mu": [0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 1]}`, "choquet", opAttrs, opHandMu[1:]},
		{"choquet mu with ∅", `{"operator": "choquet", "mu": [0, 0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 1]}`, "choquet", nil, opHandMu[1:]},
		// File order (PTOTVAL, AGI, FICA): file mask 1 = {PTOTVAL}, 2 = {AGI}, 3 = {PTOTVAL,AGI},
		// 4 = {FICA}, 5 = {PTOTVAL,FICA}, 6 = {AGI,FICA}, 7 = all.
		{"choquet mu, file order", `{"operator": "choquet", "attributes": ["PTOTVAL", "AGI", "FICA"],
			"mu": [0.3, 0.1, 0.5, 0.2, 0.6, 0.4, 1]}`, "choquet", opAttrs, opHandMu[1:]},
		{"choquet mu, m = 1", `{"operator": "choquet", "mu": [1]}`, "choquet", nil, []float64{1}},
		{"names from the file", `{"operator": "choquet", "attributes": ["AGI", "FICA", "PTOTVAL"], "measure": ` + opHandMeasure + `}`,
			"choquet", nil, opHandMu[1:]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op, err := distances.ReadParams(strings.NewReader(tc.file), tc.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if op.Name() != tc.op {
				t.Errorf("Name = %q, want %q", op.Name(), tc.op)
			}
			if !slices.Equal(op.Params(), tc.params) {
				t.Errorf("Params = %v, want %v", op.Params(), tc.params)
			}
		})
	}
}

// TestParamsRoundTrip writes operators of every kind and reads them back: the same
// parameters exactly (numbers are written in their shortest exact form).
func TestParamsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	attrs := []string{"a", "b", "c", "d"}
	for _, op := range opOperators(t, rng, 4) {
		for _, names := range [][]string{attrs, nil} {
			var buf bytes.Buffer
			if err := distances.WriteParams(&buf, op, names); err != nil {
				t.Fatalf("%s: %v", op.Name(), err)
			}
			back, err := distances.ReadParams(bytes.NewReader(buf.Bytes()), attrs)
			if err != nil {
				t.Fatalf("%s (names %v): %v\n%s", op.Name(), names, err, buf.Bytes())
			}
			want := op.Name()
			if want == "mahalanobis" {
				want = "bilinear"
			}
			if back.Name() != want || !slices.Equal(back.Params(), op.Params()) {
				t.Errorf("%s (names %v): read back %s %v, want %s %v\n%s",
					op.Name(), names, back.Name(), back.Params(), want, op.Params(), buf.Bytes())
			}
		}
	}
}

// TestParamsMaskedScale: "masked_scale" is written when given, read back by ParamsScale,
// ignored by the operator, and refused when it is neither own nor original.
func TestParamsMaskedScale(t *testing.T) {
	op := distances.NewEuclidean(2)
	wm, err := distances.NewWeightedMean([]float64{0.25, 0.75})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []distances.Operator{op, wm} {
		for _, scale := range []string{"", "own", "original"} {
			var buf bytes.Buffer
			if err := distances.WriteParamsScale(&buf, o, []string{"a", "b"}, scale); err != nil {
				t.Fatal(err)
			}
			if got := distances.ParamsScale(buf.Bytes()); got != scale {
				t.Errorf("%s, scale %q: ParamsScale %q\n%s", o.Name(), scale, got, buf.Bytes())
			}
			back, err := distances.ReadParams(bytes.NewReader(buf.Bytes()), []string{"a", "b"})
			if err != nil || !slices.Equal(back.Params(), o.Params()) {
				t.Errorf("%s, scale %q: read back %v, %v", o.Name(), scale, back, err)
			}
		}
	}
	_, err = distances.ReadParams(strings.NewReader(`{"operator": "euclidean", "masked_scale": "z"}`), []string{"a"})
	if !errors.Is(err, distances.ErrInvalidParams) || !strings.Contains(err.Error(), `"masked_scale" is "z"`) {
		t.Errorf("masked_scale z: %v", err)
	}
}

// TestParamsAttributeOrder reads one file whose "attributes" are in another order than
// the data's: the operator must be the same function of the attributes, by name.
func TestParamsAttributeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	fileOrder := []string{"c", "a", "d", "b"}
	dataOrder := []string{"a", "b", "c", "d"}
	pos := make([]int, 4) // pos[k]: position in dataOrder of fileOrder[k]
	for k, name := range fileOrder {
		pos[k] = slices.Index(dataOrder, name)
	}
	for _, op := range opOperators(t, rng, 4) {
		var buf bytes.Buffer
		if err := distances.WriteParams(&buf, op, fileOrder); err != nil {
			t.Fatal(err)
		}
		back, err := distances.ReadParams(bytes.NewReader(buf.Bytes()), dataOrder)
		if err != nil {
			t.Fatalf("%s: %v", op.Name(), err)
		}
		for trial := 0; trial < 100; trial++ {
			a, b := opRecord(rng, 4), opRecord(rng, 4) // in file order
			da, db := make([]float64, 4), make([]float64, 4)
			for k := range a {
				da[pos[k]], db[pos[k]] = a[k], b[k]
			}
			if got, want := back.Distance(da, db), op.Distance(a, b); !opRelClose(got, want, opRelTol) {
				t.Fatalf("%s: %.17g after reordering, want %.17g", op.Name(), got, want)
			}
		}
	}
}

func TestWriteParamsUnusableNames(t *testing.T) {
	// A comma in a name cannot be part of a "measure" key: the measure is written as "mu".
	attrs := []string{"x,y", "z", " w"}
	c := opMust(distances.NewChoquet(opHandMu, 3))
	var buf bytes.Buffer
	if err := distances.WriteParams(&buf, c, attrs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"mu"`) {
		t.Errorf("want a mu list:\n%s", buf.Bytes())
	}
	back := opMust(distances.ReadParams(&buf, attrs))
	if !slices.Equal(back.Params(), c.Params()) {
		t.Errorf("Params = %v, want %v", back.Params(), c.Params())
	}
}

type opFake struct{ distances.Operator }

func (opFake) Name() string    { return "fake" }
func (opFake) Attributes() int { return 2 }

func TestWriteParamsErrors(t *testing.T) {
	owa := opMust(distances.NewOWA([]float64{0.5, 0.5}))
	var buf bytes.Buffer
	for _, tc := range []struct {
		name  string
		op    distances.Operator
		attrs []string
		want  string
	}{
		{"attribute count", owa, []string{"a"}, "1 attribute names for an operator on 2"},
		{"repeated name", owa, []string{"a", "a"}, `"a" appears twice`},
		{"unknown operator", opFake{}, nil, "cannot write the fake operator"},
	} {
		err := distances.WriteParams(&buf, tc.op, tc.attrs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q on error", buf.String())
	}
}

func TestReadParamsErrors(t *testing.T) {
	measureWithout := func(drop string) string { return strings.Replace(opHandMeasure, drop, "", 1) }
	tests := []struct {
		name, file string
		attrs      []string
		want       []string
	}{
		{"empty file", ``, opAttrs, []string{"empty file"}},
		{"syntax", "{\"operator\": \"owa\",\n\"weights\": [1,]}", opAttrs, []string{"line 2", "invalid character"}},
		{"not an object", `[1, 2]`, opAttrs, []string{"line 1: the file is a list (want an object)"}},
		{"field type", "{\n\"operator\": 5}", opAttrs, []string{`line 2: "operator" is a number (want a string)`}},
		{"trailing data", `{"operator": "euclidean"} {}`, opAttrs, []string{"data after the JSON object"}},
		{"unknown field", `{"operator": "owa", "weights": [0.5, 0.3, 0.2], "extra": 1}`, opAttrs, []string{`unknown field "extra"`}},
		{"missing operator", `{"weights": [0.5, 0.3, 0.2]}`, opAttrs, []string{`missing "operator"`}},
		{"unknown operator", `{"operator": "manhattan"}`, opAttrs, []string{`unknown operator "manhattan"`, "euclidean, wm, owa"}},
		{"mahalanobis", `{"operator": "mahalanobis"}`, opAttrs, []string{"computed from the data"}},
		{"field of another operator", `{"operator": "owa", "weights": [0.5, 0.3, 0.2], "matrix": [[1]]}`, opAttrs,
			[]string{`"matrix" does not belong`}},
		// A negative weight is named by its attribute where the file names it (checkSimplex
		// knows positions only), or by its place in a list.
		{"negative weight by name", `{"operator": "wm", "weights": {"AGI": 1.5, "FICA": -0.5, "PTOTVAL": 0}}`, opAttrs,
			[]string{`attribute "FICA" has weight -0.5 (want ≥ 0)`}},
		{"negative weight in a list", `{"operator": "wm", "attributes": ["PTOTVAL", "AGI", "FICA"], "weights": [0.5, 1, -0.5]}`, opAttrs,
			[]string{`weight 3 (attribute "FICA") is -0.5 (want ≥ 0)`}},
		{"negative owa weight", `{"operator": "owa", "weights": [1.5, -0.5, 0]}`, opAttrs, []string{`weight 2 is -0.5 (want ≥ 0)`}},
		{"euclidean with weights", `{"operator": "euclidean", "weights": [1, 0, 0]}`, opAttrs, []string{`"weights" does not belong`}},
		{"euclidean without attributes", `{"operator": "euclidean"}`, nil, []string{"number of attributes is unknown"}},
		{"attributes: unknown", `{"operator": "owa", "attributes": ["AGI", "FICA", "XYZ"], "weights": [1, 0, 0]}`, opAttrs,
			[]string{`unknown attribute "XYZ"`}},
		{"attributes: missing", `{"operator": "owa", "attributes": ["AGI", "FICA"], "weights": [1, 0, 0]}`, opAttrs,
			[]string{`"PTOTVAL" is missing`}},
		{"attributes: twice", `{"operator": "owa", "attributes": ["AGI", "AGI", "FICA"], "weights": [1, 0, 0]}`, opAttrs,
			[]string{`"AGI" appears twice`}},
		{"wm unknown name", `{"operator": "wm", "weights": {"AGI": 0.5, "XYZ": 0.5, "FICA": 0}}`, opAttrs,
			[]string{`unknown attribute "XYZ"`, "AGI, FICA, PTOTVAL"}},
		{"wm missing name", `{"operator": "wm", "weights": {"AGI": 0.5, "FICA": 0.5}}`, opAttrs,
			[]string{`no weight for attribute "PTOTVAL"`}},
		{"wm repeated name", `{"operator": "wm", "weights": {"AGI": 0.5, "AGI": 0.2, "FICA": 0.3}}`, opAttrs,
			[]string{`"AGI" is given twice`}},
		{"wm not a number", `{"operator": "wm", "weights": {"AGI": "x", "FICA": 0.5, "PTOTVAL": 0.5}}`, opAttrs,
			[]string{`"AGI": a string where a number is expected`}},
		{"wm out of range", `{"operator": "wm", "weights": [1e999, 0, 0]}`, opAttrs, []string{"1e999 is out of range"}},
		{"wm by name without names", `{"operator": "wm", "weights": {"AGI": 1}}`, nil, []string{"attribute names are unknown"}},
		{"wm not simplex", `{"operator": "wm", "weights": [0.5, 0.5, 0.5]}`, opAttrs, []string{"sum to 1.5"}},
		{"wm negative", `{"operator": "wm", "weights": [1.5, -0.5, 0]}`, opAttrs, []string{`weight 2 (attribute "FICA") is -0.5`}},
		{"wm length", `{"operator": "wm", "weights": [0.5, 0.5]}`, opAttrs, []string{"2 entries for 3 attributes"}},
		{"wm null", `{"operator": "wm", "weights": [0.5, null, 0.5]}`, opAttrs, []string{"null"}},
		{"wm string", `{"operator": "wm", "weights": "equal"}`, opAttrs, []string{"want a list or an object"}},
		{"owa by name", `{"operator": "owa", "weights": {"AGI": 1, "FICA": 0, "PTOTVAL": 0}}`, opAttrs, []string{"by rank"}},
		{"owa missing weights", `{"operator": "owa"}`, opAttrs, []string{`missing "weights"`}},
		{"owa length", `{"operator": "owa", "weights": [1]}`, opAttrs, []string{"1 entries for 3 attributes"}},
		{"bilinear not symmetric", `{"operator": "bilinear", "matrix": [[1, 0.3, 0], [0.2, 1, 0], [0, 0, 1]]}`, opAttrs,
			[]string{"not symmetric", "matrix[1][2] = 0.3 but matrix[2][1] = 0.2", "(AGI, FICA)"}},
		{"bilinear not PSD", `{"operator": "bilinear", "matrix": [[1, 2], [2, 1]]}`, nil, []string{"smallest eigenvalue -1"}},
		{"bilinear ragged", `{"operator": "bilinear", "matrix": [[1, 0, 0], [0, 1], [0, 0, 1]]}`, opAttrs,
			[]string{"row 2 has 2 entries (want 3)"}},
		{"bilinear size", `{"operator": "bilinear", "matrix": [[1, 0], [0, 1]]}`, opAttrs, []string{"2 entries for 3 attributes"}},
		{"bilinear missing", `{"operator": "bilinear"}`, opAttrs, []string{`missing "matrix"`}},
		{"bilinear not numbers", `{"operator": "bilinear", "matrix": [[1, "x"], [0, 1]]}`, nil,
			[]string{"bilinear: matrix: a string where a number is expected"}},
		{"bilinear not rows", `{"operator": "bilinear", "matrix": [1, 2]}`, nil,
			[]string{"bilinear: matrix: a number where a list is expected"}},
		{"choquet missing subset", `{"operator": "choquet", "measure": ` + measureWithout(`"FICA,PTOTVAL": 0.6, `) + `}`, opAttrs,
			[]string{`1 of the 7 non-empty subsets are missing, the first "FICA,PTOTVAL"`}},
		{"choquet same subset", `{"operator": "choquet", "measure": {"AGI,FICA": 0.4, "FICA,AGI": 0.4}}`, opAttrs,
			[]string{`"AGI,FICA" and "FICA,AGI" are the same subset`}},
		{"choquet unknown name", `{"operator": "choquet", "measure": {"AGI,XYZ": 0.4}}`, opAttrs,
			[]string{`"AGI,XYZ": unknown attribute "XYZ"`}},
		{"choquet name twice", `{"operator": "choquet", "measure": {"AGI,AGI": 0.4}}`, opAttrs, []string{`names "AGI" twice`}},
		{"choquet empty set", `{"operator": "choquet", "measure": {"": 0}}`, opAttrs, []string{"empty set is not a parameter"}},
		{"choquet not monotone", `{"operator": "choquet", "measure": ` + strings.Replace(opHandMeasure, `"AGI,PTOTVAL": 0.5`, `"AGI,PTOTVAL": 0.25`, 1) + `}`,
			opAttrs, []string{"not monotone", "μ({PTOTVAL}) = 0.3 > μ({AGI,PTOTVAL}) = 0.25"}},
		{"choquet μ(V)", `{"operator": "choquet", "mu": [0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 0.9]}`, opAttrs,
			[]string{"μ({AGI,FICA,PTOTVAL}) = 0.9", "want 1"}},
		{"choquet both", `{"operator": "choquet", "mu": [1], "measure": {"AGI": 1}}`, opAttrs, []string{`"measure" or "mu", not both`}},
		{"choquet mu length", `{"operator": "choquet", "mu": [0.1, 0.2, 1]}`, opAttrs, []string{"mu has 3 values for 3 attributes", "want 7"}},
		{"choquet mu length, no names", `{"operator": "choquet", "mu": [0.1, 0.2, 0.4, 1, 1]}`, nil, []string{"mu has 5 values"}},
		{"choquet missing", `{"operator": "choquet"}`, opAttrs, []string{`missing "measure"`}},
		{"choquet mu not a list", `{"operator": "choquet", "mu": {"AGI": 1}}`, opAttrs,
			[]string{"choquet: mu: an object where a list is expected"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := distances.ReadParams(strings.NewReader(tc.file), tc.attrs)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, distances.ErrInvalidParams) {
				t.Errorf("%v does not wrap ErrInvalidParams", err)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

// TestParseOperator covers the CLI's entry: reid link --operator NAME [--params FILE].
func TestParseOperator(t *testing.T) {
	owaFile := `{"operator": "owa", "weights": [0.5, 0.3, 0.2]}`
	tests := []struct {
		name, op, file string // file "-": no parameter file
		want           string // operator name, or an error substring
		ok             bool
	}{
		{"euclidean without a file", "euclidean", "-", "euclidean", true},
		{"owa with a file", "owa", owaFile, "owa", true},
		{"name from the file", "", owaFile, "owa", true},
		{"operator omitted in the file", "owa", `{"weights": [0.5, 0.3, 0.2]}`, "owa", true},
		{"euclidean with a file", "euclidean", `{"operator": "euclidean"}`, "euclidean", true},
		{"file for another operator", "wm", owaFile, "the file is for the owa operator, not wm", false},
		{"owa without a file", "owa", "-", "the owa operator needs a parameter file", false},
		{"choquet without a file", "choquet", "-", "the choquet operator needs a parameter file", false},
		{"mahalanobis", "mahalanobis", "-", "computed from the data", false},
		{"mahalanobis with a file", "mahalanobis", owaFile, "computed from the data", false},
		{"unknown", "cosine", "-", `unknown operator "cosine"`, false},
		{"nothing", "", "-", "no operator and no parameter file", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r *strings.Reader
			if tc.file != "-" {
				r = strings.NewReader(tc.file)
			}
			var op distances.Operator
			var err error
			if r == nil {
				op, err = distances.ParseOperator(tc.op, nil, opAttrs)
			} else {
				op, err = distances.ParseOperator(tc.op, r, opAttrs)
			}
			switch {
			case tc.ok && err != nil:
				t.Fatal(err)
			case tc.ok && (op.Name() != tc.want || op.Attributes() != 3):
				t.Errorf("got %s on %d attributes, want %s on 3", op.Name(), op.Attributes(), tc.want)
			case !tc.ok && err == nil:
				t.Errorf("got %s, want an error", op.Name())
			case !tc.ok && (!errors.Is(err, distances.ErrInvalidParams) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q wrapping ErrInvalidParams", err, tc.want)
			}
		})
	}
	if _, err := distances.ReadParams(nil, opAttrs); !errors.Is(err, distances.ErrInvalidParams) {
		t.Errorf("ReadParams(nil): %v", err)
	}
}
