package datasets

import (
	"fmt"
	"slices"
)

// Kind is the type of a column.
type Kind uint8

const (
	// Numeric columns hold float64 values.
	Numeric Kind = iota
	// Categorical columns hold codes into a dictionary of levels.
	Categorical
)

func (k Kind) String() string {
	switch k {
	case Numeric:
		return "numeric"
	case Categorical:
		return "categorical"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind reads "numeric" or "categorical".
func ParseKind(s string) (Kind, error) {
	switch s {
	case "numeric", "num", "float":
		return Numeric, nil
	case "categorical", "cat", "string":
		return Categorical, nil
	}
	return 0, fmt.Errorf("unknown column type %q (want numeric or categorical)", s)
}

// Column is one attribute of a Table.
//
// Exactly one of Values (Numeric) or Codes (Categorical) is set. Levels[c] is the label of
// code c; levels are numbered in order of first appearance so that the same data read from
// any format gives the same codes. Valid is nil when no value is missing; otherwise
// Valid[i] is false where row i is missing, and Values[i] / Codes[i] are then 0.
type Column struct {
	Name   string
	Kind   Kind
	Values []float64
	Codes  []int32
	Levels []string
	Valid  []bool
}

// Len returns the number of rows of the column.
func (c *Column) Len() int {
	if c.Kind == Numeric {
		return len(c.Values)
	}
	return len(c.Codes)
}

// Missing reports whether row i is missing.
func (c *Column) Missing(i int) bool { return c.Valid != nil && !c.Valid[i] }

// HasMissing reports whether any row is missing.
func (c *Column) HasMissing() bool {
	return c.Valid != nil && slices.Contains(c.Valid, false)
}

// String returns the value of row i as text ("" when missing).
func (c *Column) String(i int) string {
	if c.Missing(i) {
		return ""
	}
	if c.Kind == Numeric {
		return formatFloat(c.Values[i])
	}
	return c.Levels[c.Codes[i]]
}

// Table is a columnar microdata file. Source names the file it came from and is used in
// error messages.
type Table struct {
	Source  string
	Columns []Column
}

// Rows returns the number of records.
func (t *Table) Rows() int {
	if len(t.Columns) == 0 {
		return 0
	}
	return t.Columns[0].Len()
}

// Index returns the position of the column called name, or -1.
func (t *Table) Index(name string) int {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return i
		}
	}
	return -1
}

// Column returns the column called name, or nil.
func (t *Table) Column(name string) *Column {
	if i := t.Index(name); i >= 0 {
		return &t.Columns[i]
	}
	return nil
}

// Names returns the column names in order.
func (t *Table) Names() []string {
	names := make([]string, len(t.Columns))
	for i := range t.Columns {
		names[i] = t.Columns[i].Name
	}
	return names
}

// Select returns a table with the named columns in the given order. The column data are
// shared, not copied.
func (t *Table) Select(names []string) (*Table, error) {
	out := &Table{Source: t.Source, Columns: make([]Column, 0, len(names))}
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		if seen[name] {
			return nil, &InputError{File: t.Source, Column: name, Err: ErrDuplicateColumn}
		}
		seen[name] = true
		c := t.Column(name)
		if c == nil {
			return nil, &InputError{File: t.Source, Column: name, Err: ErrNoSuchColumn}
		}
		out.Columns = append(out.Columns, *c)
	}
	return out, nil
}

// Subset returns a table holding the given rows, in that order. Data are copied; the
// dictionary of each categorical column is shared.
func (t *Table) Subset(rows []int) *Table {
	out := &Table{Source: t.Source, Columns: make([]Column, len(t.Columns))}
	for j := range t.Columns {
		src := &t.Columns[j]
		dst := Column{Name: src.Name, Kind: src.Kind, Levels: src.Levels}
		if src.Kind == Numeric {
			dst.Values = make([]float64, len(rows))
			for i, r := range rows {
				dst.Values[i] = src.Values[r]
			}
		} else {
			dst.Codes = make([]int32, len(rows))
			for i, r := range rows {
				dst.Codes[i] = src.Codes[r]
			}
		}
		if src.Valid != nil {
			dst.Valid = make([]bool, len(rows))
			for i, r := range rows {
				dst.Valid[i] = src.Valid[r]
			}
		}
		out.Columns[j] = dst
	}
	return out
}

// NumericMatrix returns the numeric columns' values column-major (m[j][i] is attribute j
// of record i), sharing the underlying slices. It fails on a categorical column or a
// missing value, naming them.
func (t *Table) NumericMatrix() ([][]float64, error) {
	m := make([][]float64, len(t.Columns))
	for j := range t.Columns {
		c := &t.Columns[j]
		if c.Kind != Numeric {
			return nil, &InputError{File: t.Source, Column: c.Name, Err: ErrNotNumeric}
		}
		if c.Valid != nil {
			if i := slices.Index(c.Valid, false); i >= 0 {
				return nil, &InputError{File: t.Source, Column: c.Name, Row: i + 1, Err: ErrMissingValue}
			}
		}
		m[j] = c.Values
	}
	return m, nil
}

// Equal reports whether two tables hold the same columns, kinds, values, levels and
// missing masks (Source is ignored). NaN never occurs in a loaded Table.
func Equal(a, b *Table) bool {
	if len(a.Columns) != len(b.Columns) || a.Rows() != b.Rows() {
		return false
	}
	for j := range a.Columns {
		x, y := &a.Columns[j], &b.Columns[j]
		if x.Name != y.Name || x.Kind != y.Kind {
			return false
		}
		if x.HasMissing() != y.HasMissing() {
			return false
		}
		for i := 0; i < x.Len(); i++ {
			if x.Missing(i) != y.Missing(i) {
				return false
			}
			if x.Missing(i) {
				continue
			}
			if x.Kind == Numeric && x.Values[i] != y.Values[i] {
				return false
			}
			if x.Kind == Categorical && x.Levels[x.Codes[i]] != y.Levels[y.Codes[i]] {
				return false
			}
		}
	}
	return true
}
