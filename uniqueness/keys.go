package uniqueness

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/reid-sdc/reid/datasets"
)

// Sentinel errors a caller may branch on with errors.Is.
var (
	ErrNoKeys       = errors.New("no key attributes")
	ErrNumericKey   = errors.New("numeric key attribute: give cut points or quantile bins, or read it as categorical")
	ErrBinnedKey    = errors.New("cut points or quantile bins given for a categorical attribute")
	ErrBadCuts      = errors.New("cut points must be finite and strictly increasing")
	ErrKindMismatch = errors.New("the attribute has a different type in the population file")
	ErrBadWeight    = errors.New("sampling weight must be finite and positive")
	// ErrWeightBelowOne is a sampling weight below 1: a weight is the number of
	// population records a sample record stands for, itself included.
	ErrWeightBelowOne = errors.New("sampling weight below 1 (a sampled record stands for at least itself)")
	ErrBadFraction    = errors.New("sampling fraction must be in (0, 1]")
	ErrWeightsAndPi   = errors.New("give sampling weights or a sampling fraction, not both")
	// ErrWeightSum is a set of sampling weights whose sum, the population size they
	// estimate, passes the largest float64 (about 1.8e308).
	ErrWeightSum     = errors.New("the sampling weights' sum passes 1.8e308 here")
	ErrTooManyRows   = errors.New("more than 2^31-1 records in the sample and population together")
	ErrKeyNotAllowed = errors.New("a key attribute cannot also be sensitive or the weight")
	// ErrPopulationTooSmall is wrapped by PopulationError.
	ErrPopulationTooSmall = errors.New("the population must contain the sample")
	// ErrBadCode is a category code outside a categorical column's levels (a table built
	// by hand rather than loaded): its class would have no label and collide with others.
	ErrBadCode = errors.New("category code outside the column's levels")
	// ErrColumnLength is a column, or its missing mask, whose length is not the table's
	// number of records.
	ErrColumnLength = errors.New("column length differs from the number of records")
	// ErrMissingWeight is a missing sampling weight. It wraps datasets.ErrMissingValue,
	// but no missing-value policy helps: every sample record stands for some population
	// records.
	ErrMissingWeight error = datasets.MissingNotAllowed{Why: "missing sampling weight (a weight cannot be missing under any missing-value policy)"}
	// ErrBadThreshold is a k-anonymity, l-diversity or t-closeness threshold that is
	// negative or not finite: it would quietly pass or fail every class.
	ErrBadThreshold = errors.New("threshold must be finite and not negative")
)

// columnProblem checks that c is a column of rows records whose non-missing values can be
// classed: codes within the levels, numbers not NaN (±Inf has a bin and a rank, NaN
// neither). It returns the 0-based row (−1 for the column as a whole), a detail for the
// error message and the sentinel (nil when c is fine).
func columnProblem(c *datasets.Column, rows int) (row int, detail string, err error) {
	if c.Len() != rows || (c.Valid != nil && len(c.Valid) != rows) {
		return -1, fmt.Sprintf("%d values, %d missing flags for %d records", c.Len(), len(c.Valid), rows), ErrColumnLength
	}
	for i := range rows {
		if c.Missing(i) {
			continue
		}
		if c.Kind == datasets.Categorical {
			if code := c.Codes[i]; code < 0 || int(code) >= len(c.Levels) {
				return i, fmt.Sprintf("code %d, %d levels", code, len(c.Levels)), ErrBadCode
			}
		} else if math.IsNaN(c.Values[i]) {
			return i, "NaN", datasets.ErrNotFinite
		}
	}
	return -1, "", nil
}

// MissingLabel is the label of the category that holds a key's missing values: a missing
// value is a category of its own, equal only to other missing values of that attribute.
const MissingLabel = "(missing)"

// Key is one key attribute (quasi-identifier).
//
// A categorical attribute is used as it is: its categories are matched between the sample
// and the population by label (a label that is a number by value, see encodeCategorical).
// A numeric attribute must be discretised, by Cuts or by
// Quantiles, into left-closed bins: with cut points c1 < … < ck the bins are (-∞, c1),
// [c1, c2), …, [ck, +∞), labelled "<c1", "[c1,c2)", …, ">=ck".
type Key struct {
	Name string
	// Cuts are the cut points of a numeric attribute.
	Cuts []float64
	// Quantiles > 1 cuts a numeric attribute into that many bins of about equal sample
	// counts: the cut points are the values of rank ⌊i·n/q⌋ (0-based) of the sorted
	// non-missing sample values, i = 1, …, q−1, without duplicates and above the minimum,
	// so tied values may leave fewer bins. The same cut points are used for the population.
	Quantiles int
}

func (k Key) binned() bool { return len(k.Cuts) > 0 || k.Quantiles > 0 }

// keyColumn is one key attribute coded for counting: codes in [0, len(labels)).
type keyColumn struct {
	name   string
	labels []string
	// missing is the code of the missing category (labelled MissingLabel), -1 if none.
	missing int32
	cuts    []float64 // the cut points used, for a binned attribute
	sample  []int32
	pop     []int32
}

// addMissing adds the missing category (MissingLabel) after the labels when the sample or
// the population has a missing value, sets kc.missing, and returns the category's code,
// which only missing cells take.
func (kc *keyColumn) addMissing(sc, pc *datasets.Column) int32 {
	code := int32(len(kc.labels))
	kc.missing = -1
	if sc.HasMissing() || (pc != nil && pc.HasMissing()) {
		kc.labels = append(kc.labels, MissingLabel)
		kc.missing = code
	}
	return code
}

// encodeKeys codes the key attributes of the sample and, when pop is not nil, of the
// population on shared code spaces.
func encodeKeys(sample, pop *datasets.Table, keys []Key) ([]keyColumn, error) {
	if len(keys) == 0 {
		return nil, ErrNoKeys
	}
	out := make([]keyColumn, len(keys))
	seen := map[string]bool{}
	for k, key := range keys {
		if seen[key.Name] {
			return nil, &datasets.InputError{File: sample.Source, Column: key.Name, Err: datasets.ErrDuplicateColumn}
		}
		seen[key.Name] = true
		sc := sample.Column(key.Name)
		if sc == nil {
			return nil, &datasets.InputError{File: sample.Source, Column: key.Name, Err: datasets.ErrNoSuchColumn}
		}
		if row, detail, err := columnProblem(sc, sample.Rows()); err != nil {
			return nil, &datasets.InputError{File: sample.Source, Column: key.Name, Row: row + 1, Err: err, Detail: detail}
		}
		var pc *datasets.Column
		if pop != nil {
			if pc = pop.Column(key.Name); pc == nil {
				return nil, &datasets.InputError{File: pop.Source, Column: key.Name, Err: datasets.ErrNoSuchColumn}
			}
			if row, detail, err := columnProblem(pc, pop.Rows()); err != nil {
				return nil, &datasets.InputError{File: pop.Source, Column: key.Name, Row: row + 1, Err: err, Detail: detail}
			}
			if pc.Kind != sc.Kind {
				return nil, &datasets.InputError{File: pop.Source, Column: key.Name, Err: ErrKindMismatch,
					Detail: fmt.Sprintf("%s here, %s in the sample", pc.Kind, sc.Kind)}
			}
		}
		var err error
		switch {
		case sc.Kind == datasets.Categorical && key.binned():
			err = &datasets.InputError{File: sample.Source, Column: key.Name, Err: ErrBinnedKey}
		case sc.Kind == datasets.Categorical:
			out[k] = encodeCategorical(sc, pc)
		case !key.binned():
			err = &datasets.InputError{File: sample.Source, Column: key.Name, Err: ErrNumericKey}
		default:
			out[k], err = encodeBinned(sample.Source, key, sc, pc)
		}
		if err != nil {
			return nil, err
		}
		out[k].name = key.Name
	}
	return out, nil
}

// encodeCategorical keeps the sample's codes and maps the population's labels onto them;
// population-only labels get new codes, and missing values the last code. A population
// label that is a decimal number (see numberLabel) matches the sample label of the same value when each
// file has exactly one label of that value: a key read as categories (age, a code)
// written "1" by one program and "1.0" by another is one category, while labels a file
// itself keeps apart ("7" and "7.0" in one file) and codes with a leading zero ("007")
// are never merged, as merging would raise F_j and lower the risk.
func encodeCategorical(sc, pc *datasets.Column) keyColumn {
	kc := keyColumn{labels: slices.Clone(sc.Levels)}
	var popMap []int32
	if pc != nil {
		index := make(map[string]int32, len(sc.Levels))
		for c, l := range sc.Levels {
			index[l] = int32(c)
		}
		byValue := uniqueNumberLabels(sc.Levels)
		popValues := uniqueNumberLabels(pc.Levels)
		popMap = make([]int32, len(pc.Levels))
		for c, l := range pc.Levels {
			code, ok := index[l]
			if !ok {
				if v, isNumber := numberLabel(l); isNumber && popValues[v] >= 0 {
					code, ok = byValue[v]
					ok = ok && code >= 0
				}
			}
			if !ok {
				code = int32(len(kc.labels))
				index[l] = code
				kc.labels = append(kc.labels, l)
			}
			popMap[c] = code
		}
	}
	missing := kc.addMissing(sc, pc)
	kc.sample = sc.Codes
	if sc.Valid != nil {
		kc.sample = slices.Clone(sc.Codes)
		for i, ok := range sc.Valid {
			if !ok {
				kc.sample[i] = missing
			}
		}
	}
	if pc != nil {
		kc.pop = make([]int32, len(pc.Codes))
		for i, c := range pc.Codes {
			if pc.Valid != nil && !pc.Valid[i] {
				kc.pop[i] = missing
			} else {
				kc.pop[i] = popMap[c]
			}
		}
	}
	return kc
}

// uniqueNumberLabels maps each value held by a decimal-number label to that label's
// index, or to −1 when two labels hold it.
func uniqueNumberLabels(labels []string) map[float64]int32 {
	byValue := map[float64]int32{}
	for c, l := range labels {
		if v, ok := numberLabel(l); ok {
			if _, dup := byValue[v]; dup {
				byValue[v] = -1
			} else {
				byValue[v] = int32(c)
			}
		}
	}
	return byValue
}

// numberLabel parses a category label written as a decimal number (sign, digits, a point,
// an exponent: no hexadecimal, underscores, Inf, NaN or leading zero) of at most 15
// significant digits,
// so that distinct numbers are distinct float64 values (DBL_DIG): longer codes that round
// to one float64 stay apart.
func numberLabel(l string) (float64, bool) {
	l = strings.TrimSpace(l)
	if !datasets.IsDecimal(l) {
		return 0, false
	}
	mantissa := l
	if e := strings.IndexAny(l, "eE"); e >= 0 {
		mantissa = l[:e]
	}
	if unsigned := strings.TrimLeft(mantissa, "+-"); len(unsigned) > 1 && unsigned[0] == '0' && unsigned[1] >= '0' && unsigned[1] <= '9' {
		return 0, false // a leading zero: a code (007), never merged with 7
	}
	significant := strings.Trim(strings.NewReplacer(".", "", "+", "", "-", "").Replace(mantissa), "0")
	if len(significant) > 15 {
		return 0, false
	}
	v, err := strconv.ParseFloat(l, 64)
	if err != nil || math.IsInf(v, 0) || (significant != "" && !(math.Abs(v) >= 0x1p-1022)) {
		return 0, false // too large, or too small for its digits to survive (1e-400 reads as 0)
	}
	return v + 0, true // −0 as 0
}

func encodeBinned(file string, key Key, sc, pc *datasets.Column) (keyColumn, error) {
	cuts := key.Cuts
	if len(cuts) == 0 {
		if key.Quantiles < 2 {
			return keyColumn{}, &datasets.InputError{File: file, Column: key.Name, Err: ErrBadCuts,
				Detail: fmt.Sprintf("%d quantile bins (want at least 2)", key.Quantiles)}
		}
		cuts = QuantileCuts(sc, key.Quantiles)
	}
	for i, c := range cuts {
		if math.IsNaN(c) || math.IsInf(c, 0) || (i > 0 && c <= cuts[i-1]) {
			return keyColumn{}, &datasets.InputError{File: file, Column: key.Name, Err: ErrBadCuts,
				Detail: fmt.Sprint(cuts)}
		}
	}
	kc := keyColumn{labels: BinLabels(cuts), cuts: slices.Clone(cuts)}
	missing := kc.addMissing(sc, pc)
	bin := func(c *datasets.Column) []int32 {
		codes := make([]int32, len(c.Values))
		for i, v := range c.Values {
			if c.Missing(i) {
				codes[i] = missing
				continue
			}
			// Number of cut points ≤ v: bins are left-closed.
			lo, hi := 0, len(cuts)
			for lo < hi {
				m := (lo + hi) / 2
				if cuts[m] <= v {
					lo = m + 1
				} else {
					hi = m
				}
			}
			codes[i] = int32(lo)
		}
		return codes
	}
	kc.sample = bin(sc)
	if pc != nil {
		kc.pop = bin(pc)
	}
	return kc, nil
}

// QuantileCuts returns the cut points of q quantile bins of a numeric column (see
// Key.Quantiles).
func QuantileCuts(c *datasets.Column, q int) []float64 {
	vals := make([]float64, 0, len(c.Values))
	for i, v := range c.Values {
		if !c.Missing(i) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	slices.Sort(vals)
	var cuts []float64
	for i := 1; i < q; i++ {
		v := vals[i*len(vals)/q]
		if v > vals[0] && (len(cuts) == 0 || v > cuts[len(cuts)-1]) {
			cuts = append(cuts, v)
		}
	}
	return cuts
}

// BinLabels returns the labels of the left-closed bins cut at cuts.
func BinLabels(cuts []float64) []string {
	if len(cuts) == 0 {
		return []string{"all"}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	labels := make([]string, 0, len(cuts)+1)
	labels = append(labels, "<"+f(cuts[0]))
	for i := 1; i < len(cuts); i++ {
		labels = append(labels, "["+f(cuts[i-1])+","+f(cuts[i])+")")
	}
	return append(labels, ">="+f(cuts[len(cuts)-1]))
}
