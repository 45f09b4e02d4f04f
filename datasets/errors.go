package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
)

// Sentinel errors a caller may branch on with errors.Is.
var (
	ErrEmptyFile = errors.New("empty file")
	ErrNoRecords = errors.New("no records (header only)")
	ErrNoColumns = errors.New("no columns")
	// ErrMissingLabel: a category a CSV output cannot hold, since CSV reads it back as a
	// missing value ("" or NA); Arrow and Parquet keep it.
	ErrMissingLabel = errors.New("a category that CSV reads back as a missing value")
	// ErrNotRegular: a named pipe or a device given as an input; the loader reads a file
	// more than once (its first bytes for the format, then its records).
	ErrNotRegular      = errors.New("not a regular file (a named pipe or a device): save the data to a file first")
	ErrTooFewRecords   = errors.New("fewer than two records")
	ErrNotNumeric      = errors.New("not a number")
	ErrNotFinite       = errors.New("value is not finite (NaN or ±Inf)")
	ErrMissingValue    = errors.New("missing value (choose a missing-value policy)")
	ErrConstantColumn  = errors.New("constant column (drop it)")
	ErrDuplicateColumn = errors.New("column named more than once")
	ErrNoSuchColumn    = errors.New("no such column")
	ErrDuplicateID     = errors.New("duplicate id")
	// ErrNoCommonID: no id of the original occurs in the masked file (the wrong id
	// column, or ids written differently in the two files).
	ErrNoCommonID      = errors.New("no id in common with the original")
	ErrUnknownFormat   = errors.New("unknown file format")
	ErrCorrupt         = errors.New("corrupt or truncated file")
	ErrSchemaMismatch  = errors.New("the files have different attributes")
	ErrRowMismatch     = errors.New("the files have different numbers of records")
	ErrUnsupportedType = errors.New("unsupported column type")
	ErrInexactInteger  = errors.New("integer beyond the exact range of a number (±2^53)")
	// ErrInexactDecimal: a DECIMAL identifier (a fraction float64 does not hold, from
	// 10^15 on) in a later batch than the first, which made the column numeric.
	ErrInexactDecimal = errors.New("decimal beyond the exact range of a number (a fraction float64 does not hold)")
	ErrGroupedNumber  = errors.New("number written with a comma (thousands separator or decimal comma)")
	// ErrNotCommaSeparated: a CSV header that is one column holding ';' or a tab, the
	// delimiters of other exports (Excel's in many European locales): read as commas, every
	// record would be one label.
	ErrNotCommaSeparated = errors.New("not comma-separated")
)

// MissingNotAllowed is a missing value in a column that no missing-value policy can take
// (an id, a sampling weight): errors.Is matches ErrMissingValue, but its text says why,
// instead of ErrMissingValue's "choose a missing-value policy". It is comparable, so a
// package's sentinel of this type matches with errors.Is too.
type MissingNotAllowed struct{ Why string }

func (e MissingNotAllowed) Error() string { return e.Why }
func (MissingNotAllowed) Unwrap() error   { return ErrMissingValue }

// InputError is a problem with an input file. Column and Row (1-based data row, header not
// counted) are set where they apply; Line (1-based line of a text file) where the row does
// not locate it, such as after blank lines or quoted fields spanning lines. Its message is
// one line:
//
//	census.csv: column "AGI", row 17: not a number: "abc"
//	census.csv, row 3 (line 6): 14 fields where the header has 13 (a comma too many ...)
type InputError struct {
	File   string
	Column string
	Row    int
	Line   int
	Detail string // extra words after the error, such as the offending value
	Err    error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Column != "" {
		b.WriteString(": column ")
		b.WriteString(strconv.Quote(e.Column))
	}
	if e.Row > 0 {
		b.WriteString(", row ")
		b.WriteString(strconv.Itoa(e.Row))
		if e.Line > 0 {
			b.WriteString(" (line ")
			b.WriteString(strconv.Itoa(e.Line))
			b.WriteString(")")
		}
	} else if e.Line > 0 {
		b.WriteString(", line ")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	err := e.Err
	if pe, ok := err.(*fs.PathError); ok && pe.Path == e.File {
		err = pe.Err // "x.csv: no such file or directory", not "x.csv: open x.csv: …"
	}
	b.WriteString(oneLine(err.Error()))
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(oneLine(e.Detail))
	}
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// oneLine keeps messages from third-party readers on a single line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// formatFloat writes v as a decimal that reads back as v, and as a number. From 2^53 on
// every float64 is an integer; up to 2^64 (the ids of int64/uint64 columns) it is written
// with all its digits: the shortest decimal would end in made-up zeros (2^60 as
// 1152921504606847000), which an integer reader takes for another id. From 2^64 on it is
// written in the shortest form, with an exponent (3.0201997898857263e+19) where the
// shortest digits alone are not its value (30201997898857263000): such digits read back
// as a label, an integer float64 cannot hold.
func formatFloat(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1<<64:
		if s := strconv.FormatFloat(v, 'f', -1, 64); s == strconv.FormatFloat(v, 'f', 0, 64) {
			return s // exact (1e21)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case a >= 1<<53:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// errorf builds an InputError with a formatted detail.
func errorf(file, column string, row int, err error, format string, args ...any) *InputError {
	return &InputError{File: file, Column: column, Row: row, Err: err, Detail: fmt.Sprintf(format, args...)}
}
