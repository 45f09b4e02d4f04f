package distances

// Parameter files: one JSON object per operator, read by ReadParams / ParseOperator and
// written by WriteParams (the format is documented at ReadParams).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// symmetryTolerance: a parameter file's matrix is symmetric when |W_ij − W_ji| ≤
// symmetryTolerance·max(1, |W_ij|, |W_ji|); W is then replaced by (W + Wᵀ)/2.
const symmetryTolerance = 1e-12

const mahalanobisFromData = "the mahalanobis operator is computed from the data, not read from a parameter file (a saved one is a bilinear file)"

// operatorNames are the operators a parameter file may name.
const operatorNames = "euclidean, wm, owa, bilinear, choquet"

// ReadParams reads the parameter file of an operator on the attributes attrs (the names of
// the data's columns, in the order the records will hold them) and returns the operator.
// A parameter file is one JSON object:
//
//	{"operator": "euclidean"}
//	{"operator": "wm",       "weights": {"AGI": 0.2, "FICA": 0.3, "PTOTVAL": 0.5}}
//	{"operator": "wm",       "weights": [0.2, 0.3, 0.5]}
//	{"operator": "owa",      "weights": [0.5, 0.3, 0.2]}
//	{"operator": "bilinear", "matrix": [[0.5, 0.1, 0], [0.1, 0.3, 0], [0, 0, 0.2]]}
//	{"operator": "choquet",  "measure": {"AGI": 0.1, "FICA": 0.2, "AGI,FICA": 0.4,
//	                                     "PTOTVAL": 0.3, "AGI,PTOTVAL": 0.5,
//	                                     "FICA,PTOTVAL": 0.6, "AGI,FICA,PTOTVAL": 1}}
//	{"operator": "choquet",  "mu": [0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 1]}
//
// Fields:
//
//   - "operator" (required): euclidean, wm, owa, bilinear or choquet. A Mahalanobis
//     distance is computed from the data, not read from a file (save one as bilinear).
//   - "attributes" (optional): the attribute names, in the order the lists of the file
//     follow. When given, they must be the same set as attrs, in any order: list-valued
//     parameters are then permuted to attrs's order. Without it, lists follow attrs.
//   - "weights": for wm, p on the simplex, either an object by attribute name (every
//     attribute once) or a list in attribute order; for owa, w on the simplex, a list of m
//     weights by rank (w_1 weighs the largest diff).
//   - "matrix": for bilinear, W as m rows of m numbers in attribute order; symmetric
//     within 1e-12 (relative to max(1, |W_ij|)) and positive semi-definite.
//   - "measure": for choquet, μ(A) for every non-empty subset A of the attributes, keyed by
//     the names of A's attributes joined by commas (any order, spaces around names
//     ignored); μ(all attributes) must be 1 and μ monotone (NewChoquet).
//   - "mu": for choquet, instead of "measure": μ by bitmask in attribute order (attribute
//     i is bit i−1), either the 2^m − 1 non-empty subsets (masks 1 … 2^m − 1, the order
//     of Choquet.Params) or all 2^m with μ(∅) = 0 first.
//   - "masked_scale" (optional): "own" or "original", the scale of the masked file's
//     z-scores the parameters were learned on (reid's --masked-scale); the operator does
//     not use it, ParamsScale reads it so that a caller can compare it with its own.
//
// Any other field, a field that does not belong to the operator, an unknown or repeated
// attribute or subset, a missing one, or a violated constraint is an error wrapping
// ErrInvalidParams that says what to fix. attrs may be nil: names then come from the
// file's "attributes", and m from it or from the length of the lists.
func ReadParams(r io.Reader, attrs []string) (Operator, error) {
	if r == nil {
		return nil, invalidf("params: no parameter file")
	}
	return ParseOperator("", r, attrs)
}

// ParseOperator returns the operator called name (as given to reid link --operator) on the
// attributes attrs, with its parameters read from params (the format of ReadParams). name
// "" takes the operator from the file; otherwise a file that names another operator is an
// error, and a file without "operator" is read as name. params nil is allowed only for
// euclidean, which has no parameters; mahalanobis is an error here, as its matrix is
// computed from the data by the caller (NewMahalanobis, TruePairCovariance).
func ParseOperator(name string, params io.Reader, attrs []string) (Operator, error) {
	if name == "mahalanobis" {
		return nil, invalidf("params: %s", mahalanobisFromData)
	}
	if params == nil {
		switch name {
		case "euclidean":
			if len(attrs) == 0 {
				return nil, invalidf("params: euclidean: no attributes")
			}
			return NewEuclidean(len(attrs)), nil
		case "wm", "owa", "bilinear", "choquet":
			return nil, invalidf("params: the %s operator needs a parameter file", name)
		case "":
			return nil, invalidf("params: no operator and no parameter file")
		default:
			return nil, invalidf("params: unknown operator %q (want one of %s, mahalanobis)", name, operatorNames)
		}
	}
	data, err := io.ReadAll(params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	f, err := decodeParams(data)
	if err != nil {
		return nil, err
	}
	if f.MaskedScale != "" && f.MaskedScale != "own" && f.MaskedScale != "original" {
		return nil, invalidf(`params: "masked_scale" is %q (want own or original)`, f.MaskedScale)
	}
	switch {
	case f.Operator == "" && name == "":
		return nil, invalidf(`params: missing "operator" (want one of %s)`, operatorNames)
	case f.Operator == "":
		f.Operator = name
	case name != "" && f.Operator != name:
		return nil, invalidf("params: the file is for the %s operator, not %s", f.Operator, name)
	}
	return f.build(attrs)
}

// paramsFile is the JSON object of a parameter file.
type paramsFile struct {
	Operator   string          `json:"operator"`
	Attributes []string        `json:"attributes"`
	Weights    json.RawMessage `json:"weights"`
	Matrix     json.RawMessage `json:"matrix"`
	Measure    json.RawMessage `json:"measure"`
	Mu         json.RawMessage `json:"mu"`
	// MaskedScale is "masked_scale": "own", "original" or absent.
	MaskedScale string `json:"masked_scale"`
}

// present reports whether a field was given (and not null).
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// decodeValue decodes a field's value into v, naming the field in the error.
func decodeValue(what string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidf("params: %s: %s", what, nestedError(err))
	}
	return nil
}

// number is a float64 that refuses JSON null (encoding/json would leave a zero).
type number float64

func (n *number) UnmarshalJSON(b []byte) error {
	// The decoder has checked the JSON syntax: a number starts with '-' or a digit, and its
	// syntax is a subset of ParseFloat's.
	if len(b) > 0 && (b[0] == '-' || '0' <= b[0] && b[0] <= '9') {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("the number %s is out of range", b)
		}
		*n = number(f)
		return nil
	}
	return fmt.Errorf("%s where a number is expected", jsonKind(b))
}

// jsonKind names the kind of a JSON value from its first byte.
func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func floats(ns []number) []float64 {
	out := make([]float64, len(ns))
	for i, v := range ns {
		out[i] = float64(v)
	}
	return out
}

func decodeParams(data []byte) (*paramsFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f paramsFile
	if err := dec.Decode(&f); err != nil {
		return nil, invalidf("params: %s", jsonError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, invalidf("params: line %d: data after the JSON object", lineOf(data, dec.InputOffset()))
	}
	return &f, nil
}

// jsonError says what is wrong in data, with the line for a syntax or type error.
func jsonError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("line %d: %s", lineOf(data, syn.Offset), strings.TrimPrefix(err.Error(), "json: "))
	case errors.As(err, &typ):
		what := "the file"
		if typ.Field != "" {
			what = strconv.Quote(typ.Field)
		}
		return fmt.Sprintf("line %d: %s is %s (want %s)", lineOf(data, typ.Offset), what, articled(typ.Value), goKind(typ.Type.Kind()))
	case err == io.EOF:
		return "empty file"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func articled(jsonType string) string {
	switch jsonType {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	}
	if strings.HasPrefix(jsonType, "number") {
		return "a number"
	}
	return jsonType
}

func goKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a number"
}

// nestedError is the message of an error in a value the file's decoder has already
// checked for syntax: its offsets would be relative to the value, so none is given.
func nestedError(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Sprintf("%s where %s is expected", articled(typ.Value), goKind(typ.Type.Kind()))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func lineOf(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}

// attrMap relates the caller's attributes to the file's.
type attrMap struct {
	names []string       // caller order; nil when unknown
	index map[string]int // name → caller position
	perm  []int          // file list position → caller position; nil: identity
	m     int            // 0 when unknown
}

func newAttrMap(attrs, fileAttrs []string) (*attrMap, error) {
	if len(attrs) == 0 {
		attrs = nil
	}
	if attrs == nil && fileAttrs != nil {
		attrs, fileAttrs = fileAttrs, nil
		if len(attrs) == 0 {
			return nil, invalidf(`params: "attributes" is empty`)
		}
	}
	am := &attrMap{names: attrs, m: len(attrs)}
	if attrs == nil {
		return am, nil
	}
	am.index = make(map[string]int, len(attrs))
	for i, a := range attrs {
		if _, dup := am.index[a]; dup {
			return nil, invalidf("params: attribute %q appears twice", a)
		}
		am.index[a] = i
	}
	if fileAttrs == nil {
		return am, nil
	}
	am.perm = make([]int, len(fileAttrs))
	seen := make([]bool, len(attrs))
	for k, a := range fileAttrs {
		i, ok := am.index[a]
		if !ok {
			return nil, invalidf(`params: "attributes": unknown attribute %q (the data has %s)`, a, strings.Join(attrs, ", "))
		}
		if seen[i] {
			return nil, invalidf(`params: "attributes": %q appears twice`, a)
		}
		seen[i] = true
		am.perm[k] = i
	}
	for i, ok := range seen {
		if !ok {
			return nil, invalidf(`params: "attributes": %q is missing`, attrs[i])
		}
	}
	return am, nil
}

// pos is the caller position of the k-th entry of a list of the file.
func (am *attrMap) pos(k int) int {
	if am.perm == nil {
		return k
	}
	return am.perm[k]
}

// setM fixes m from a list length when the attributes are unknown, or checks it.
func (am *attrMap) setM(what string, n int) error {
	if am.m == 0 {
		if n == 0 {
			return invalidf("params: %s is empty", what)
		}
		am.m = n
		return nil
	}
	if n != am.m {
		return invalidf("params: %s has %d entries for %d attributes", what, n, am.m)
	}
	return nil
}

// needNames reports an error when the attribute names are unknown.
func (am *attrMap) needNames(what string) error {
	if am.names == nil {
		return invalidf(`params: %s is keyed by attribute names, but the attribute names are unknown (give "attributes")`, what)
	}
	return nil
}

func (f *paramsFile) build(attrs []string) (Operator, error) {
	am, err := newAttrMap(attrs, f.Attributes)
	if err != nil {
		return nil, err
	}
	has := map[string]bool{
		"weights": present(f.Weights),
		"matrix":  present(f.Matrix),
		"measure": present(f.Measure),
		"mu":      present(f.Mu),
	}
	allowed := map[string][]string{
		"euclidean": nil,
		"wm":        {"weights"},
		"owa":       {"weights"},
		"bilinear":  {"matrix"},
		"choquet":   {"measure", "mu"},
	}
	fields, ok := allowed[f.Operator]
	if !ok {
		if f.Operator == "mahalanobis" {
			return nil, invalidf("params: %s", mahalanobisFromData)
		}
		return nil, invalidf("params: unknown operator %q (want one of %s)", f.Operator, operatorNames)
	}
	for _, field := range []string{"weights", "matrix", "measure", "mu"} {
		if has[field] && !contains(fields, field) {
			return nil, invalidf("params: %s: the field %q does not belong to this operator", f.Operator, field)
		}
	}
	switch f.Operator {
	case "euclidean":
		if am.m == 0 {
			return nil, invalidf(`params: euclidean: the number of attributes is unknown (give "attributes")`)
		}
		return NewEuclidean(am.m), nil
	case "wm":
		p, err := f.weights(am, true)
		if err != nil {
			return nil, err
		}
		return NewWeightedMean(p)
	case "owa":
		w, err := f.weights(am, false)
		if err != nil {
			return nil, err
		}
		return NewOWA(w)
	case "bilinear":
		return f.bilinear(am)
	default: // choquet
		return f.choquet(am)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// weights reads "weights": by attribute (wm: an object by name or a list in attribute
// order) or by rank (owa: a list).
func (f *paramsFile) weights(am *attrMap, byAttribute bool) ([]float64, error) {
	what := f.Operator + ": weights"
	raw := bytes.TrimSpace(f.Weights)
	if !present(raw) {
		return nil, invalidf(`params: %s: missing "weights"`, f.Operator)
	}
	switch raw[0] {
	case '{':
		if !byAttribute {
			return nil, invalidf("params: %s are by rank (w_1 weighs the largest diff): give a list, not an object", what)
		}
		if err := am.needNames(what); err != nil {
			return nil, err
		}
		keys, vals, err := decodeObject(raw, what)
		if err != nil {
			return nil, err
		}
		p := make([]float64, am.m)
		seen := make([]bool, am.m)
		for k, key := range keys {
			i, ok := am.index[key]
			if !ok {
				return nil, invalidf("params: %s: unknown attribute %q (the data has %s)", what, key, strings.Join(am.names, ", "))
			}
			if v := vals[k]; !validWeight(v) {
				// Named here: checkSimplex, later, knows positions only.
				return nil, invalidf("params: %s: attribute %q has weight %v (want ≥ 0)", what, key, v)
			}
			seen[i] = true
			p[i] = vals[k]
		}
		for i, ok := range seen {
			if !ok {
				return nil, invalidf("params: %s: no weight for attribute %q", what, am.names[i])
			}
		}
		return p, nil
	case '[':
		var list []number
		if err := decodeValue(what, raw, &list); err != nil {
			return nil, err
		}
		if err := am.setM(what, len(list)); err != nil {
			return nil, err
		}
		w := make([]float64, am.m)
		for k, v := range list {
			if x := float64(v); !validWeight(x) {
				at := fmt.Sprintf("weight %d", k+1) // by rank, or attributes unnamed
				if byAttribute && am.names != nil {
					at += fmt.Sprintf(" (attribute %q)", am.names[am.pos(k)])
				}
				return nil, invalidf("params: %s: %s is %v (want ≥ 0)", what, at, x)
			}
			if byAttribute {
				w[am.pos(k)] = float64(v)
			} else {
				w[k] = float64(v)
			}
		}
		return w, nil
	}
	return nil, invalidf("params: %s: want a list or an object of numbers", what)
}

// decodeObject reads a JSON object of numbers, keeping the order of its keys and refusing
// a key given twice (encoding/json would keep the last silently).
func decodeObject(raw []byte, what string) ([]string, []float64, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	bad := func(err error) error {
		return invalidf("params: %s: %s", what, nestedError(err))
	}
	if _, err := dec.Token(); err != nil { // '{'
		return nil, nil, bad(err)
	}
	var keys []string
	var vals []float64
	seen := make(map[string]bool)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, bad(err)
		}
		key := t.(string) // object keys are strings
		if seen[key] {
			return nil, nil, invalidf("params: %s: %q is given twice", what, key)
		}
		seen[key] = true
		var v number
		if err := dec.Decode(&v); err != nil {
			return nil, nil, invalidf("params: %s: %q: %s", what, key, nestedError(err))
		}
		keys = append(keys, key)
		vals = append(vals, float64(v))
	}
	return keys, vals, nil
}

func (f *paramsFile) bilinear(am *attrMap) (Operator, error) {
	if !present(f.Matrix) {
		return nil, invalidf(`params: bilinear: missing "matrix"`)
	}
	var rows [][]number
	if err := decodeValue("bilinear: matrix", f.Matrix, &rows); err != nil {
		return nil, err
	}
	if err := am.setM("bilinear: matrix", len(rows)); err != nil {
		return nil, err
	}
	m := am.m
	for i, row := range rows {
		if len(row) != m {
			return nil, invalidf("params: bilinear: matrix row %d has %d entries (want %d)", i+1, len(row), m)
		}
	}
	name := func(k int) string {
		if am.names == nil {
			return ""
		}
		return fmt.Sprintf(" (%s, %s)", am.names[am.pos(k/m)], am.names[am.pos(k%m)])
	}
	w := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			u, l := float64(rows[i][j]), float64(rows[j][i])
			if math.Abs(u-l) > symmetryTolerance*math.Max(1, math.Max(math.Abs(u), math.Abs(l))) {
				return nil, invalidf("params: bilinear: the matrix is not symmetric: matrix[%d][%d] = %v but matrix[%d][%d] = %v%s",
					i+1, j+1, u, j+1, i+1, l, name(i*m+j))
			}
			w.SetSym(am.pos(i), am.pos(j), (u+l)/2)
		}
	}
	return NewBilinear(w)
}

func (f *paramsFile) choquet(am *attrMap) (Operator, error) {
	switch {
	case present(f.Measure) && present(f.Mu):
		return nil, invalidf(`params: choquet: give "measure" or "mu", not both`)
	case present(f.Mu):
		return f.choquetMu(am)
	case present(f.Measure):
		return f.choquetMeasure(am)
	}
	return nil, invalidf(`params: choquet: missing "measure" (or "mu")`)
}

// choquetMu reads "mu": 2^m − 1 values for masks 1 … 2^m − 1, or 2^m with μ(∅) first.
func (f *paramsFile) choquetMu(am *attrMap) (Operator, error) {
	var list []number
	if err := decodeValue("choquet: mu", f.Mu, &list); err != nil {
		return nil, err
	}
	n := len(list)
	m := am.m
	if m == 0 {
		switch {
		case n > 0 && bits.OnesCount(uint(n+1)) == 1:
			m = bits.TrailingZeros(uint(n + 1))
		case n > 1 && bits.OnesCount(uint(n)) == 1:
			m = bits.TrailingZeros(uint(n))
		default:
			return nil, invalidf("params: choquet: mu has %d values (want 2^m − 1, or 2^m with μ(∅) first)", n)
		}
	}
	if m > MaxChoquetAttributes {
		return nil, invalidf("choquet: %d attributes (want 1 to %d)", m, MaxChoquetAttributes)
	}
	size := 1 << m
	var given []float64 // indexed by file mask
	switch n {
	case size - 1:
		given = append([]float64{0}, floats(list)...)
	case size:
		given = floats(list)
	default:
		return nil, invalidf("params: choquet: mu has %d values for %d attributes (want %d, or %d with μ(∅) first)", n, m, size-1, size)
	}
	mu := given
	if am.perm != nil {
		mu = make([]float64, size)
		for fm, v := range given {
			cm := 0
			for rest := fm; rest != 0; rest &= rest - 1 {
				cm |= 1 << am.pos(bits.TrailingZeros(uint(rest)))
			}
			mu[cm] = v
		}
	}
	return newChoquet(mu, m, am.names)
}

// choquetMeasure reads "measure": μ by subset, keyed by comma-separated attribute names.
func (f *paramsFile) choquetMeasure(am *attrMap) (Operator, error) {
	const what = "choquet: measure"
	if err := am.needNames(what); err != nil {
		return nil, err
	}
	m := am.m
	if m > MaxChoquetAttributes {
		return nil, invalidf("choquet: %d attributes (want 1 to %d)", m, MaxChoquetAttributes)
	}
	keys, vals, err := decodeObject(f.Measure, what)
	if err != nil {
		return nil, err
	}
	size := 1 << m
	mu := make([]float64, size)
	keyOf := make([]string, size)
	for k, key := range keys {
		mask := 0
		for _, a := range strings.Split(key, ",") {
			a = strings.TrimSpace(a)
			i, ok := am.index[a]
			switch {
			case a == "":
				return nil, invalidf("params: %s: %q: empty attribute name (the empty set is not a parameter: μ(∅) = 0)", what, key)
			case !ok:
				return nil, invalidf("params: %s: %q: unknown attribute %q (the data has %s)", what, key, a, strings.Join(am.names, ", "))
			case mask&(1<<i) != 0:
				return nil, invalidf("params: %s: %q names %q twice", what, key, a)
			}
			mask |= 1 << i
		}
		if keyOf[mask] != "" {
			return nil, invalidf("params: %s: %q and %q are the same subset", what, keyOf[mask], key)
		}
		keyOf[mask] = key
		mu[mask] = vals[k]
	}
	missing := 0
	first := 0
	for mask := size - 1; mask >= 1; mask-- {
		if keyOf[mask] == "" {
			missing++
			first = mask
		}
	}
	if missing > 0 {
		return nil, invalidf("params: %s: %d of the %d non-empty subsets are missing, the first %q (every non-empty subset needs its value)",
			what, missing, size-1, subsetKey(first, am.names))
	}
	return newChoquet(mu, m, am.names)
}

// subsetKey is the "measure" key of a subset: its attribute names joined by commas.
func subsetKey(mask int, names []string) string {
	s := subsetString(mask, names)
	return s[1 : len(s)-1]
}

// WriteParams writes op as a parameter file (the format of ReadParams) on the attributes
// attrs, which must have op.Attributes() names, or be nil for a file of plain lists without
// names. A weighted mean is written by attribute name, a Choquet measure by subset name
// (or as "mu" when a name is unusable as part of a key: empty, with a comma or surrounding
// spaces), and a Mahalanobis distance as the bilinear form it is. Numbers are written in
// the shortest form that reads back to the same float64, so ReadParams(WriteParams(op))
// gives the same operator. Operators of other types are an error.
func WriteParams(w io.Writer, op Operator, attrs []string) error {
	return WriteParamsScale(w, op, attrs, "")
}

// ParamsScale returns a parameter file's "masked_scale" ("" when absent); the file is
// not otherwise checked (ReadParams does that).
func ParamsScale(data []byte) string {
	f, err := decodeParams(data)
	if err != nil {
		return ""
	}
	return f.MaskedScale
}

// WriteParamsScale is WriteParams with the file's "masked_scale" (omitted when "").
func WriteParamsScale(w io.Writer, op Operator, attrs []string, maskedScale string) error {
	m := op.Attributes()
	if len(attrs) == 0 {
		attrs = nil
	}
	if attrs != nil {
		if len(attrs) != m {
			return fmt.Errorf("params: %d attribute names for an operator on %d attributes", len(attrs), m)
		}
		seen := make(map[string]bool, m)
		for _, a := range attrs {
			if seen[a] {
				return fmt.Errorf("params: attribute %q appears twice", a)
			}
			seen[a] = true
		}
	}
	var b bytes.Buffer
	field := func(name string) {
		b.WriteString(",\n  ")
		b.Write(jsonString(name))
		b.WriteString(": ")
	}
	b.WriteString("{\n  \"operator\": ")
	start := func(name string) {
		b.Write(jsonString(name))
		if attrs != nil {
			field("attributes")
			b.WriteByte('[')
			for i, a := range attrs {
				if i > 0 {
					b.WriteString(", ")
				}
				b.Write(jsonString(a))
			}
			b.WriteByte(']')
		}
	}
	switch o := op.(type) {
	case *WeightedMean:
		start(o.Name())
		if o.Name() != "euclidean" {
			field("weights")
			if attrs == nil {
				writeList(&b, o.Params())
			} else {
				writeObject(&b, attrs, o.Params())
			}
		}
	case *OWA:
		start("owa")
		field("weights")
		writeList(&b, o.Params())
	case *Bilinear:
		start("bilinear")
		field("matrix")
		b.WriteString("[\n")
		row := make([]float64, m)
		for i := 0; i < m; i++ {
			mat.Row(row, i, o.Matrix())
			b.WriteString("    ")
			writeList(&b, row)
			if i < m-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("  ]")
	case *Choquet:
		start("choquet")
		if attrs == nil || !keyNames(attrs) {
			field("mu")
			writeList(&b, o.Params())
		} else {
			field("measure")
			keys := make([]string, len(o.Params()))
			for k := range keys {
				keys[k] = subsetKey(k+1, attrs)
			}
			writeObject(&b, keys, o.Params())
		}
	default:
		return fmt.Errorf("params: cannot write the %s operator (%T)", op.Name(), op)
	}
	if maskedScale != "" {
		field("masked_scale")
		b.Write(jsonString(maskedScale))
	}
	b.WriteString("\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// keyNames reports whether every name can be part of a "measure" key.
func keyNames(names []string) bool {
	for _, a := range names {
		if a == "" || strings.Contains(a, ",") || strings.TrimSpace(a) != a {
			return false
		}
	}
	return true
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

func writeNumber(b *bytes.Buffer, v float64) {
	b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
}

func writeList(b *bytes.Buffer, vs []float64) {
	b.WriteByte('[')
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		writeNumber(b, v)
	}
	b.WriteByte(']')
}

func writeObject(b *bytes.Buffer, keys []string, vs []float64) {
	b.WriteString("{\n")
	for i, k := range keys {
		b.WriteString("    ")
		b.Write(jsonString(k))
		b.WriteString(": ")
		writeNumber(b, vs[i])
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  }")
}
