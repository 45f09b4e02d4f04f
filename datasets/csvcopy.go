package datasets

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// ReplaceCSVColumns writes the CSV file input to output with the fields of the named
// columns replaced by t's values (as Column.String writes them: plain decimals, labels,
// "" where missing, but a cell missing in the input too keeps its token, so that a file
// writing NA for missing values still does in every column) and every other field, the
// header included, as read: a copy of the file in which only those columns changed
// ("007" stays 007, "NA" stays NA). t must hold
// input's rows in order, as Load read them, and the named columns; the input is read a
// record at a time, so the copy takes no more memory than t.
//
// The file is written as Write writes, to a temporary file renamed into place. A byte
// order mark is not copied, and lines end in LF.
func ReplaceCSVColumns(output, input string, t *Table, columns []string) error {
	f, err := os.Open(input)
	if err != nil {
		return err
	}
	defer f.Close()
	start, crOnly, err := csvPrologue(f)
	if err != nil {
		return &InputError{File: input, Err: err}
	}
	in, err := csvBody(input, f, start, crOnly)
	if err != nil {
		return err
	}
	r := csv.NewReader(bufio.NewReaderSize(in, 1<<20))
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return &InputError{File: input, Err: ErrCorrupt, Detail: err.Error()}
	}
	header = slices.Clone(header)
	// The loader names columns with surrounding blanks trimmed.
	field := make([]int, len(columns))
	cols := make([]*Column, len(columns))
	for k, name := range columns {
		field[k] = slices.IndexFunc(header, func(h string) bool { return LabelText(strings.TrimSpace(h)) == name })
		cols[k] = t.Column(name)
		if field[k] < 0 || cols[k] == nil {
			return &InputError{File: input, Column: name, Err: errors.New("no such column")}
		}
	}
	return WriteAtomic(output, func(out *os.File) error {
		bw := bufio.NewWriterSize(out, 1<<20)
		w := csv.NewWriter(bw)
		if err := writeCSVHeader(bw, w, header); err != nil {
			return fmt.Errorf("%s: %w", output, err)
		}
		row := 0
		for ; ; row++ {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return &InputError{File: input, Row: row + 1, Err: ErrCorrupt, Detail: err.Error()}
			}
			if row >= t.Rows() {
				return &InputError{File: input, Row: row + 1, Err: fmt.Errorf("more rows than the %d of the table to write", t.Rows())}
			}
			for k, j := range field {
				if cols[k].Missing(row) && slices.Contains(defaultMissingTokens(), strings.TrimSpace(rec[j])) {
					continue // missing in the input too: its own token (NA stays NA)
				}
				rec[j] = csvText(cols[k], row)
			}
			if err := writeCSVRecord(bw, w, rec); err != nil {
				return fmt.Errorf("%s: %w", output, err)
			}
		}
		if row != t.Rows() {
			return &InputError{File: input, Err: fmt.Errorf("%d rows, but the table to write has %d", row, t.Rows())}
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return fmt.Errorf("%s: %w", output, err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("%s: %w", output, err)
		}
		return nil
	})
}
