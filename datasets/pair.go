package datasets

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// PairOptions says how an original and a masked file correspond.
type PairOptions struct {
	// Attributes are the columns to link on; nil means every column of the original
	// except the id column. Both files must have them all.
	Attributes []string
	// ID names a column present in both files whose values identify records. When it is
	// empty the true link is the row order and the files must have as many records.
	ID string
	// IntruderIDs, with ID, keeps only the original records with these ids, in this
	// order: the intruder knows a subset of the population. Each id must be an original
	// record's and be listed once (an *IntruderIDError otherwise): a repeated id would
	// give the intruder two copies of one record, which then compete for its link.
	IntruderIDs []string
	// SampleFraction in (0,1) keeps a random subset of that share of the original records
	// (seeded by Seed); 0 or 1 keeps all. It is the other way of choosing the intruder's
	// records and cannot be given with IntruderIDs (ErrIntruderIDsAndSample).
	SampleFraction float64
	Seed           uint64
}

// Errors of PairOptions' choice of the intruder's records.
var (
	// ErrNotInOriginal is an intruder id that no original record has.
	ErrNotInOriginal = errors.New("intruder id is not in the original")
	// ErrIntruderIDsAndSample: the ids name the intruder's records, a sample fraction
	// draws them at random; the two contradict each other.
	ErrIntruderIDsAndSample = errors.New("give intruder ids or a sample fraction, not both")
)

// IntruderIDError is a bad entry of PairOptions.IntruderIDs: an id listed twice (Err is
// ErrDuplicateID) or not in the original (ErrNotInOriginal). Index, and for a duplicate
// First, the entry listing it earlier, are 0-based positions in the list, so that a
// caller that read the ids from a file can name its lines.
type IntruderIDError struct {
	ID           string
	Index, First int
	// FirstID is the earlier entry as listed: another text of the same id where ids
	// match by value (01 and 1).
	FirstID string
	// Original and Column are the original file (Table.Source) and the id column.
	Original, Column string
	Err              error
}

func (e *IntruderIDError) Error() string {
	if errors.Is(e.Err, ErrDuplicateID) {
		if e.FirstID != "" && e.FirstID != e.ID {
			return fmt.Sprintf("intruder id %s is listed more than once (as %s: ids of a numeric column match by value)", strconv.Quote(e.ID), strconv.Quote(e.FirstID))
		}
		return fmt.Sprintf("intruder id %s is listed more than once", strconv.Quote(e.ID))
	}
	return fmt.Sprintf("intruder id %s is not in the original file %s (column %s)",
		strconv.Quote(e.ID), e.Original, strconv.Quote(e.Column))
}

func (e *IntruderIDError) Unwrap() error { return e.Err }

// Pairing is an original file and its masked version restricted to the same attributes,
// in the same column order, with the true link between their records.
type Pairing struct {
	Original, Masked *Table
	Attributes       []string
	// TrueMasked[i] is the row of Masked that is the masked version of Original row i,
	// or -1 when the masked file lacks that record (LeftOut).
	TrueMasked []int
	// TrueOriginal[j] is the row of Original that masked row j comes from, or -1 when
	// that record is not in the (possibly subsetted) original.
	TrueOriginal []int
	// LeftOut counts the records of the whole original file whose id the masked file
	// lacks: the release is a sample of the original's records (0 when linked by row
	// order, or when the masked file has every original id).
	LeftOut int
	// MaskedOnly counts the masked file's records whose id the whole original lacks
	// (records added, or ids written differently in the two files).
	MaskedOnly int
	// OriginalRows[i] is the 0-based row in the original file of Original's row i when
	// Original is not the file's records in file order (intruder ids, a sample), nil
	// otherwise: errors about Original's values name the file's rows with it.
	OriginalRows []int
}

// Pair aligns an original and a masked table.
//
// Attributes are matched by name; an error lists the attributes missing from either file.
// With an id column the ids must be unique in each file (an error names the duplicated
// value and both rows). An original id missing from the masked file (a record the release
// left out) has no true partner: TrueMasked −1; no original id in the masked file at all
// is ErrNoCommonID.
func Pair(original, masked *Table, opts PairOptions) (*Pairing, error) {
	if opts.IntruderIDs != nil && opts.SampleFraction != 0 {
		return nil, ErrIntruderIDsAndSample
	}
	attrs := opts.Attributes
	if attrs == nil {
		for _, n := range original.Names() {
			if n != opts.ID {
				attrs = append(attrs, n)
			}
		}
	}
	if len(attrs) == 0 {
		return nil, &InputError{File: original.Source, Err: errors.New("no attributes to link on")}
	}
	if err := checkAttributes(original, masked, attrs, opts.ID); err != nil {
		return nil, err
	}
	o, err := original.Select(attrs)
	if err != nil {
		return nil, err
	}
	m, err := masked.Select(attrs)
	if err != nil {
		return nil, err
	}
	for j := range o.Columns {
		if o.Columns[j].Kind != m.Columns[j].Kind {
			return nil, &InputError{File: masked.Source, Column: attrs[j], Err: ErrSchemaMismatch,
				Detail: fmt.Sprintf("%s in %s, %s here", o.Columns[j].Kind, original.Source, m.Columns[j].Kind)}
		}
	}
	p := &Pairing{Original: o, Masked: m, Attributes: attrs}
	if opts.ID == "" {
		if original.Rows() != masked.Rows() {
			return nil, &InputError{File: masked.Source, Err: ErrRowMismatch,
				Detail: fmt.Sprintf("%d records here, %d in %s (link by row order needs equal counts; give an id column)",
					masked.Rows(), original.Rows(), original.Source)}
		}
		p.TrueMasked = identity(original.Rows())
		p.TrueOriginal = identity(original.Rows())
	} else if err := p.linkByID(original, masked, opts); err != nil {
		return nil, err
	}
	if opts.SampleFraction < 0 || opts.SampleFraction > 1 || math.IsNaN(opts.SampleFraction) {
		return nil, fmt.Errorf("sample fraction %v is not in (0, 1]", opts.SampleFraction)
	}
	if opts.SampleFraction > 0 && opts.SampleFraction < 1 {
		p.sample(opts.SampleFraction, opts.Seed)
		if !slices.ContainsFunc(p.TrueMasked, func(j int) bool { return j >= 0 }) {
			// Every record drawn is one the release left out: nothing to link.
			return nil, &InputError{File: masked.Source, Column: opts.ID, Err: ErrNoCommonID,
				Detail: fmt.Sprintf("the sample fraction %g (seed %d) drew %d of the records of %s, and this file has none of them; draw more, or with another seed",
					opts.SampleFraction, opts.Seed, len(p.TrueMasked), original.Source)}
		}
	}
	return p, nil
}

func identity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func checkAttributes(original, masked *Table, attrs []string, id string) error {
	seen := map[string]bool{}
	for _, a := range attrs {
		if seen[a] {
			return &InputError{File: original.Source, Column: a, Err: ErrDuplicateColumn, Detail: "in the attribute list"}
		}
		seen[a] = true
		if a == id {
			return &InputError{File: original.Source, Column: a, Err: errors.New("the id column cannot be an attribute")}
		}
	}
	var notInOriginal, notInMasked []string
	for _, a := range attrs {
		if original.Index(a) < 0 {
			notInOriginal = append(notInOriginal, a)
		}
		if masked.Index(a) < 0 {
			notInMasked = append(notInMasked, a)
		}
	}
	var extra []string // columns of the masked file that the original lacks: informative only
	for _, n := range masked.Names() {
		if original.Index(n) < 0 {
			extra = append(extra, n)
		}
	}
	if len(notInOriginal)+len(notInMasked) == 0 {
		return nil
	}
	var parts []string
	if len(notInOriginal) > 0 {
		parts = append(parts, "missing from the original: "+QuoteList(notInOriginal))
	}
	if len(notInMasked) > 0 {
		parts = append(parts, "missing from the masked file: "+QuoteList(notInMasked))
	}
	if len(extra) > 0 {
		parts = append(parts, "only in the masked file: "+QuoteList(extra))
	}
	return &InputError{File: masked.Source, Err: ErrSchemaMismatch, Detail: strings.Join(parts, "; ")}
}

// idIndex maps each id of t's column to its row (by idKey), failing on a duplicate or a
// missing id; peerNumeric says whether the other file's id column is numeric.
func idIndex(t *Table, id string, peerNumeric bool) (map[string]int, error) {
	c := t.Column(id)
	if c == nil {
		return nil, &InputError{File: t.Source, Column: id, Err: ErrNoSuchColumn, Detail: "id column"}
	}
	idx := make(map[string]int, c.Len())
	for i := 0; i < c.Len(); i++ {
		if c.Missing(i) {
			return nil, &InputError{File: t.Source, Column: id, Row: i + 1, Err: ErrMissingValue, Detail: "missing id"}
		}
		v := idKey(c, i, peerNumeric)
		if first, dup := idx[v]; dup {
			// Ids compared by value: a numeric cell may have read 01 or 1e2 (its text is
			// gone), a label 1.0 facing a numeric id column is 1.
			var d string
			switch {
			case c.Kind == Numeric:
				d = fmt.Sprintf("value %s also in row %d (ids of a numeric column match by value: 01 and 1.0 are 1)", v, first+1)
			case v != c.String(i):
				d = fmt.Sprintf("%s, value %s, also in row %d (ids match by value where the other file's id column is numeric)", strconv.Quote(c.String(i)), v, first+1)
			default:
				d = fmt.Sprintf("%s also in row %d", strconv.Quote(c.String(i)), first+1)
			}
			return nil, &InputError{File: t.Source, Column: id, Row: i + 1, Err: ErrDuplicateID, Detail: d}
		}
		idx[v] = i
	}
	return idx, nil
}

// idKey is the key by which row i's id is matched with the other file's: c.String(i)
// (a numeric column's value as a number, so 1.0 and 001 are 1), except that the label
// of a categorical id column that reads as a number is that number when the other
// file's id column is numeric (a column read as text in one file only, for a
// non-numeric id somewhere in it, still matches 1.0 there with 1 here).
func idKey(c *Column, i int, peerNumeric bool) string {
	v := c.String(i)
	if c.Kind != Numeric && peerNumeric {
		if x, ok := parseNumber(v); ok {
			return formatFloat(x)
		}
	}
	return v
}

// firstID is the quoted id of t's first row, or "no row" for an empty table: an example
// for ErrNoCommonID's message.
func firstID(t *Table, id string) string {
	if t.Rows() == 0 {
		return "no row"
	}
	return strconv.Quote(t.Column(id).String(0))
}

func (p *Pairing) linkByID(original, masked *Table, opts PairOptions) error {
	numericID := func(t *Table) bool { c := t.Column(opts.ID); return c != nil && c.Kind == Numeric }
	originalNumeric, maskedNumeric := numericID(original), numericID(masked)
	oIdx, err := idIndex(original, opts.ID, maskedNumeric)
	if err != nil {
		return err
	}
	mIdx, err := idIndex(masked, opts.ID, originalNumeric)
	if err != nil {
		return err
	}
	keep := identity(original.Rows())
	if opts.IntruderIDs != nil {
		keep = keep[:0]
		listed := make(map[int]int, len(opts.IntruderIDs)) // original row → its entry
		// Keys are numbers where either file's id column is numeric (idKey).
		numeric := originalNumeric || maskedNumeric
		for k, v := range opts.IntruderIDs {
			r, ok := oIdx[v]
			if x, isNumber := parseNumber(v); !ok && numeric && isNumber {
				r, ok = oIdx[formatFloat(x)] // a numeric id matches by value: 7.0 and 007 are 7
			}
			if !ok {
				return &IntruderIDError{ID: v, Index: k, First: -1, Original: original.Source, Column: opts.ID,
					Err: ErrNotInOriginal}
			}
			if first, dup := listed[r]; dup {
				return &IntruderIDError{ID: v, Index: k, First: first, FirstID: opts.IntruderIDs[first], Original: original.Source, Column: opts.ID,
					Err: ErrDuplicateID}
			}
			listed[r] = k
			keep = append(keep, r)
		}
	}
	// An original id absent from the masked file is a record the release left out
	// (record suppression, a released sample): it has no true partner (−1), and linkage
	// counts it in neither direction's Reid. No id in common is the wrong column.
	ids := original.Column(opts.ID)
	p.TrueMasked = make([]int, len(keep))
	partners := 0
	for i, r := range keep {
		j, ok := mIdx[idKey(ids, r, maskedNumeric)]
		if !ok {
			j = -1
		} else {
			partners++
		}
		p.TrueMasked[i] = j
	}
	if partners == 0 && len(keep) > 0 {
		whose := "ids of " + original.Source
		if opts.IntruderIDs != nil {
			whose = "intruder ids in " + original.Source
		}
		return &InputError{File: masked.Source, Column: opts.ID, Err: ErrNoCommonID,
			Detail: fmt.Sprintf("none of the %d %s occurs here (its row %d reads %s, this file's row 1 %s)",
				len(keep), whose, keep[0]+1, strconv.Quote(ids.String(keep[0])), firstID(masked, opts.ID))}
	}
	for r := 0; r < original.Rows(); r++ {
		if _, ok := mIdx[idKey(ids, r, maskedNumeric)]; !ok {
			p.LeftOut++
		}
	}
	mids := masked.Column(opts.ID)
	for j := 0; j < masked.Rows(); j++ {
		if _, ok := oIdx[idKey(mids, j, originalNumeric)]; !ok {
			p.MaskedOnly++
		}
	}
	// The intruder's records in the list's order: a list of every id in another order
	// reorders the original too (TrueMasked follows keep).
	if !slices.Equal(keep, identity(original.Rows())) {
		p.Original = p.Original.Subset(keep)
		p.OriginalRows = keep
	}
	p.TrueOriginal = make([]int, masked.Rows())
	for j := range p.TrueOriginal {
		p.TrueOriginal[j] = -1
	}
	for i, j := range p.TrueMasked {
		if j >= 0 {
			p.TrueOriginal[j] = i
		}
	}
	return nil
}

// sample keeps a seeded random subset of round(fraction·n) original records (at least
// one), in their original order.
func (p *Pairing) sample(fraction float64, seed uint64) {
	n := p.Original.Rows()
	k := max(1, int(math.Round(fraction*float64(n))))
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	keep := rng.Perm(n)[:k]
	slices.Sort(keep)
	p.Original = p.Original.Subset(keep)
	p.OriginalRows = keep
	trueMasked := make([]int, k)
	for i := range p.TrueOriginal {
		p.TrueOriginal[i] = -1
	}
	for i, r := range keep {
		trueMasked[i] = p.TrueMasked[r]
		if trueMasked[i] >= 0 {
			p.TrueOriginal[trueMasked[i]] = i
		}
	}
	p.TrueMasked = trueMasked
}

// Standardized is a table whose numeric columns were z-scored, with the statistics used.
type Standardized struct {
	Table   *Table
	Mean    []float64 // per column; 0 for categorical columns
	SD      []float64 // per column; 0 for categorical columns
	Dropped []string  // constant columns removed (StandardizeOptions.DropConstant)
	// moments per column (zero for categorical columns), for Score.
	moments []moments
}

// Score returns v on the scale of numeric column j, z = (v − mean)/sd computed as
// Standardize computed the column (on scaled values, so that no v − mean overflows):
// the bits of the column's own z for its own values, so that another file put on this
// scale gives an equal value an equal score.
func (s *Standardized) Score(j int, v float64) float64 {
	if j >= len(s.moments) || s.moments[j].scaledSD == 0 {
		// Built by hand rather than by Standardize or Select: the plain formula.
		return (v - s.Mean[j]) / s.SD[j]
	}
	return s.moments[j].z(v)
}

// Scaled returns v times the power of two by which Standardize scaled numeric column j
// (an exact product), and ScaledSD the column's sd on that scale: the difference of two
// scaled values over ScaledSD is their |Δz| with the rounding of one subtraction, where
// the difference of two scores carries each score's own rounding, so that equal raw
// differences of integers (ages, amounts) give equal results.
func (s *Standardized) Scaled(j int, v float64) float64 {
	if j >= len(s.moments) || s.moments[j].scaledSD == 0 {
		return v // built by hand: the scale is 1
	}
	return v * s.moments[j].scale
}

// ScaledSD is column j's sd on the scale of Scaled.
func (s *Standardized) ScaledSD(j int) float64 {
	if j >= len(s.moments) || s.moments[j].scaledSD == 0 {
		return s.SD[j]
	}
	return s.moments[j].scaledSD
}

// Select returns the named columns, in this order, with their statistics.
func (s *Standardized) Select(names []string) (*Standardized, error) {
	t, err := s.Table.Select(names)
	if err != nil {
		return nil, err
	}
	out := &Standardized{Table: t, Dropped: s.Dropped}
	for _, name := range names {
		j := s.Table.Index(name)
		out.Mean = append(out.Mean, s.Mean[j])
		out.SD = append(out.SD, s.SD[j])
		if j < len(s.moments) { // built by hand: Score's plain formula
			out.moments = append(out.moments, s.moments[j])
		}
	}
	return out, nil
}

// StandardizeLike puts t's numeric columns on the scales of s's columns of the same
// names (Score: the bits s gives its own values), where Standardize would use t's own
// means and sds. It is for a file that is a sample of the records s was standardised
// over: a sample's own moments differ from the whole's by chance, and z-scores on them
// would move a record that is unchanged away from itself. A column that s lacks (dropped
// there as constant) is dropped here too; categorical columns pass through.
func StandardizeLike(t *Table, s *Standardized) (*Standardized, error) {
	out := &Standardized{Table: &Table{Source: t.Source}}
	for _, c := range t.Columns {
		j := s.Table.Index(c.Name)
		if j < 0 {
			out.Dropped = append(out.Dropped, c.Name)
			continue
		}
		if c.Kind != Numeric {
			out.add(c, 0, 0, moments{})
			continue
		}
		if s.Table.Columns[j].Kind != Numeric {
			return nil, &InputError{File: t.Source, Column: c.Name, Err: ErrSchemaMismatch,
				Detail: fmt.Sprintf("numeric here, categorical in %s", s.Table.Source)}
		}
		z := make([]float64, len(c.Values))
		for i, v := range c.Values {
			if !c.Missing(i) {
				z[i] = s.Score(j, v)
			}
		}
		c.Values = z
		st := moments{}
		if j < len(s.moments) {
			st = s.moments[j]
		}
		out.add(c, s.Mean[j], s.SD[j], st)
	}
	return out, nil
}

// add appends column c with its statistics.
func (s *Standardized) add(c Column, mean, sd float64, st moments) {
	s.Table.Columns = append(s.Table.Columns, c)
	s.Mean = append(s.Mean, mean)
	s.SD = append(s.SD, sd)
	s.moments = append(s.moments, st)
}

// StandardizeOptions tunes Standardize.
type StandardizeOptions struct {
	// DropConstant removes constant numeric columns instead of failing.
	DropConstant bool
}

// Standardize z-scores every numeric column of t within t:
//
//	z_i = (v_i − v̄) / s,  s² = Σ (v_i − v̄)² / (n − 1)
//
// over the non-missing values (the sample standard deviation; Domingo-Ferrer & Torra 2001,
// "A quantitative comparison of disclosure control methods for microdata", §4). A constant
// column (all non-missing values equal) has no scale: it is an error naming the column
// unless opts.DropConstant is set. Categorical columns are passed through unchanged.
func Standardize(t *Table, opts StandardizeOptions) (*Standardized, error) {
	out := &Standardized{Table: &Table{Source: t.Source}}
	for j := range t.Columns {
		c := t.Columns[j]
		if c.Kind != Numeric {
			out.add(c, 0, 0, moments{})
			continue
		}
		st := meanSD(&c)
		if st.n < 2 {
			return nil, &InputError{File: t.Source, Column: c.Name, Err: ErrTooFewRecords, Detail: "non-missing values"}
		}
		if st.scaledSD == 0 {
			if opts.DropConstant {
				out.Dropped = append(out.Dropped, c.Name)
				continue
			}
			return nil, &InputError{File: t.Source, Column: c.Name, Err: ErrConstantColumn,
				Detail: "every value is " + formatFloat(firstValid(&c))}
		}
		z := make([]float64, len(c.Values))
		for i, v := range c.Values {
			if !c.Missing(i) {
				z[i] = st.z(v)
			}
		}
		c.Values = z
		out.add(c, st.mean, st.sd, st)
	}
	if len(out.Table.Columns) == 0 {
		return nil, &InputError{File: t.Source, Err: errors.New("no attributes left after dropping constant columns")}
	}
	return out, nil
}

func firstValid(c *Column) float64 {
	for i, v := range c.Values {
		if !c.Missing(i) {
			return v
		}
	}
	return 0
}

// moments are the mean and sample standard deviation of a column's non-missing values and
// their count, with the same statistics of the values times scale, a power of two that
// brings the largest |value| into [1/2, 1): squares of values beyond about 1e154 overflow
// (and below 1e-154 underflow) where the scaled ones do not. Scaling by a power of two is
// exact, so for ordinary data the z-scores are those of the unscaled formula, bit for bit.
type moments struct {
	mean, sd             float64
	scale                float64
	scaledMean, scaledSD float64
	n                    int
}

// z is v's score, computed on the scaled values: v − mean and sd may overflow where
// these do not.
func (st moments) z(v float64) float64 { return (v*st.scale - st.scaledMean) / st.scaledSD }

// meanSD returns the moments of c; sd is exactly 0 when all values are equal (a two-pass
// mean of equal values need not reproduce them exactly, so equality is tested directly).
func meanSD(c *Column) moments {
	lo, hi := math.Inf(1), math.Inf(-1)
	n := 0
	for i, v := range c.Values {
		if c.Missing(i) {
			continue
		}
		n++
		lo, hi = min(lo, v), max(hi, v)
	}
	if n == 0 {
		return moments{scale: 1}
	}
	if lo == hi {
		return moments{mean: lo, scale: 1, scaledMean: lo, n: n}
	}
	_, e := math.Frexp(max(math.Abs(lo), math.Abs(hi)))
	// Subnormal values have exponents below −1022: 2^1022 is the largest finite scale, and
	// it lifts them into the normal range all the same.
	scale := math.Ldexp(1, -max(e, -1022))
	// Sums correctly rounded (exactSum): the moments depend on the values, not on their
	// order, so a permutation of a column (rank swapping) has the original's to the bit.
	var sum exactSum
	for i, v := range c.Values {
		if !c.Missing(i) {
			sum.add(v * scale)
		}
	}
	mean := sum.value() / float64(n)
	// Second pass with the compensated (corrected two-pass) formula of Chan, Golub &
	// LeVeque (1983), the one gonum's stat.Variance uses.
	var squares, deviations exactSum
	for i, v := range c.Values {
		if c.Missing(i) {
			continue
		}
		d := v*scale - mean
		squares.add(d * d)
		deviations.add(d)
	}
	comp := deviations.value()
	ss := squares.value() - comp*comp/float64(n)
	// comp/n is the rounding error of the first-pass mean; folding it back makes the
	// z-scores average to zero to within rounding even with a large offset.
	m := moments{scale: scale, scaledMean: mean + comp/float64(n), scaledSD: math.Sqrt(ss / float64(n-1)), n: n}
	// The unscaled sd overflows only for values near the largest float64 (two values
	// ±1.3e308 are 2.6e308 apart).
	m.mean, m.sd = m.scaledMean/scale, m.scaledSD/scale
	return m
}

// Identifiers returns the attributes that the masking left unchanged (every masked record
// holds its true original's value, numbers up to float32's rounding, 1e-7 relative: a
// Parquet copy in float32 changes nothing an intruder cannot undo; or is missing where
// its original is) and whose values present differ in every record of both files: each
// of them alone re-identifies every record with a true partner and a value there, in
// both directions (an identifier left in the release, or an attribute the masking did
// not reach). A cell missing in one file of a true pair only is a change. With first > 0
// only the first first records of each file count, as linkage on them (--records) sees
// them. The check of the true pairs comes first and stops at the first change, so a
// masked attribute costs a few comparisons; an unchanged one, a sort of each file's
// values.
func (p *Pairing) Identifiers(first int) []string {
	rows := func(t *Table) int {
		if first > 0 {
			return min(first, t.Rows())
		}
		return t.Rows()
	}
	no, nm := rows(p.Original), rows(p.Masked)
	var names []string
	for j, name := range p.Attributes {
		o, m := &p.Original.Columns[j], &p.Masked.Columns[j]
		if o.Kind != m.Kind || no < 2 || nm < 2 {
			continue
		}
		// same: the pair's values agree (present); both missing: pair stays unchanged
		// without counting.
		same := func(r, i int) (same, present bool) {
			if o.Missing(i) || m.Missing(r) {
				return o.Missing(i) && m.Missing(r), false
			}
			if o.Kind == Numeric {
				return closeFloat32(o.Values[i], m.Values[r]), true
			}
			return o.Levels[o.Codes[i]] == m.Levels[m.Codes[r]], true
		}
		pairs, unchanged := 0, true
		for r, i := range p.TrueOriginal[:nm] {
			if i < 0 || i >= no {
				continue
			}
			s, present := same(r, i)
			if !s {
				unchanged = false
				break
			}
			if present {
				pairs++
			}
		}
		if unchanged && pairs >= 2 && distinctValues(o, no) && distinctValues(m, nm) {
			names = append(names, name)
		}
	}
	return names
}

// closeFloat32 reports whether a and b are equal up to float32's rounding (1e-7 of the
// larger magnitude).
func closeFloat32(a, b float64) bool {
	return math.Abs(a-b) <= 1e-7*max(math.Abs(a), math.Abs(b))
}

// distinctValues reports whether the values present among the first n of c are pairwise
// different (numbers by more than float32's rounding).
func distinctValues(c *Column, n int) bool {
	if c.Kind == Numeric {
		v := make([]float64, 0, n)
		for i := range n {
			if !c.Missing(i) {
				v = append(v, c.Values[i])
			}
		}
		slices.Sort(v)
		for i := 1; i < len(v); i++ {
			if closeFloat32(v[i-1], v[i]) {
				return false
			}
		}
		return true
	}
	seen := make([]bool, len(c.Levels))
	for i := range n {
		if c.Missing(i) {
			continue
		}
		if seen[c.Codes[i]] {
			return false
		}
		seen[c.Codes[i]] = true
	}
	return true
}

// DisjointCategories returns the categorical attributes on which no value of the masked
// file equals a value of the original (among the values present): the same data written
// two ways (TRUE and true, 39.0 and 39), or a recoding of every label (global recoding
// into new labels, pseudonyms), where masking by perturbation keeps most labels (PRAM
// changes some). Exact-agreement comparisons on such an attribute never agree. The cost
// is a pass over each file's codes and one over the levels used.
func (p *Pairing) DisjointCategories() []string {
	used := func(c *Column) []string {
		seen := make([]bool, len(c.Levels))
		for i, code := range c.Codes {
			if !c.Missing(i) {
				seen[code] = true
			}
		}
		var labels []string
		for code, ok := range seen {
			if ok {
				labels = append(labels, c.Levels[code])
			}
		}
		return labels
	}
	var names []string
	for j, name := range p.Attributes {
		o, m := &p.Original.Columns[j], &p.Masked.Columns[j]
		if o.Kind != Categorical {
			continue
		}
		inMasked := map[string]bool{}
		for _, l := range used(m) {
			inMasked[l] = true
		}
		inOriginal := used(o)
		if len(inOriginal) > 0 && len(inMasked) > 0 && !slices.ContainsFunc(inOriginal, func(l string) bool { return inMasked[l] }) {
			names = append(names, name)
		}
	}
	return names
}
