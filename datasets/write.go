package datasets

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeBatchRows is the number of rows per record batch (and Parquet row group) written.
const writeBatchRows = 1 << 16

// Write saves t to path in the given format (FormatAuto: from the extension, see FormatOf)
// through Arrow: .arrow/.feather/.ipc get the IPC file format and .arrows the IPC stream
// format, each what other Arrow tools expect of that extension. Numeric columns are
// float64 (in CSV, plain decimals that read back exactly), categorical columns
// dictionary-encoded strings, missing values nulls (empty fields in CSV).
//
// The file is written to a temporary file in the same directory and renamed into place,
// so a failed write never leaves a half-written file behind.
func Write(path string, t *Table, format Format) error {
	return WriteAtomic(path, func(f *os.File) error { return Encode(f, t, format, path) })
}

// WriteAtomic creates a temporary file beside path, lets write fill it, and renames it to
// path only when write and the file's sync and close all succeed. A symbolic link is
// followed (its target is replaced, or made when the link dangles; the link is kept); a path that exists and is no regular
// file (a device such as /dev/stdout or /dev/full, a named pipe) is written directly, since
// renaming over it would replace the device, and a write error is then an error.
func WriteAtomic(path string, write func(*os.File) error) (err error) {
	if fd, ok := Descriptor(path); ok {
		return writeDescriptor(fd, path, write)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return writeDirect(path, write)
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if dest, lerr := os.Readlink(path); lerr == nil {
		// A dangling link: its target is made, as an existing one's is replaced (renaming
		// over the link replaced the link with a file).
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Descriptor returns the standard output or error descriptor (1 or 2) that a path names
// by itself: /dev/stdout, /dev/stderr, /dev/fd/1 and /dev/fd/2, /proc/self/fd/1 and 2
// (any spelling filepath.Clean makes one of these). Such a path is the descriptor the
// command was given, whatever the shell made of it: redirected to a regular file (> log,
// >> log), replacing that file through a temporary one erased what the log held and what
// the command printed after. Other numbers are not taken: a descriptor the caller did not
// open could be one of the command's own files by the time it writes.
func Descriptor(path string) (int, bool) {
	switch filepath.Clean(path) {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/proc/thread-self/fd/1":
		return 1, true
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2", "/proc/thread-self/fd/2":
		return 2, true
	}
	return 0, false
}

// writeDirect lets write fill the existing non-regular file path (opened for writing, not
// created or truncated: a device or a pipe).
func writeDirect(path string, write func(*os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeClose(f, path, write)
}

// writeClose lets write fill f, then closes it: a close error is the write's error.
func writeClose(f *os.File, path string, write func(*os.File) error) error {
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Encode writes t to f in format; name picks the format when it is FormatAuto
// (OutputFormatOf) and names the output in errors. f is any writer (a file, a buffer, a
// network stream): the formats are written front to back.
func Encode(f io.Writer, t *Table, format Format, name string) error {
	if format == FormatAuto {
		var err error
		if format, err = OutputFormatOf(name); err != nil {
			return err
		}
	}
	if len(t.Columns) == 0 {
		return fmt.Errorf("%s: no columns to write", name)
	}
	asText := format == FormatCSV
	if asText {
		if err := CheckCSVLabels(t, name); err != nil {
			return err
		}
	}
	schema := writeSchema(t, asText)
	w := bufio.NewWriterSize(f, 1<<20)
	var err error
	switch format {
	case FormatCSV:
		if len(t.Columns) == 1 {
			err = writeOneColumnCSV(w, &t.Columns[0])
			break
		}
		cw := arrowcsv.NewWriter(w, schema, arrowcsv.WithHeader(true), arrowcsv.WithNullWriter(""))
		err = eachBatch(t, schema, asText, cw.Write)
		if err == nil {
			err = cw.Flush()
		}
	case FormatArrow:
		var fw *ipc.FileWriter
		fw, err = ipc.NewFileWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
		if err == nil {
			err = eachBatch(t, schema, asText, fw.Write)
			if cerr := fw.Close(); err == nil {
				err = cerr
			}
		}
	case FormatArrowStream:
		sw := ipc.NewWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
		err = eachBatch(t, schema, asText, sw.Write)
		if cerr := sw.Close(); err == nil { // Close writes the end-of-stream marker
			err = cerr
		}
	case FormatParquet:
		// Dictionary encoding only for categorical columns: continuous values are nearly
		// all distinct, so a float dictionary only costs space and, in arrow-go's reader,
		// garbage while it is decoded.
		opts := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithMaxRowGroupLength(writeBatchRows), parquet.WithDictionaryDefault(false)}
		for j := range t.Columns {
			if t.Columns[j].Kind == Categorical {
				opts = append(opts, parquet.WithDictionaryFor(t.Columns[j].Name, true))
			}
		}
		props := parquet.NewWriterProperties(opts...)
		var pw *pqarrow.FileWriter
		pw, err = pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err == nil {
			err = eachBatch(t, schema, asText, pw.WriteBuffered)
			if cerr := pw.Close(); err == nil {
				err = cerr
			}
		}
	default:
		err = ErrUnknownFormat
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("%s: writing %s: %w", name, format, err)
	}
	return nil
}

// writeSchema: numeric columns are float64 (utf8 for CSV so that they are written as plain
// decimals rather than Arrow's %g), categorical columns dictionary<int32, utf8> (utf8 for CSV).
func writeSchema(t *Table, asText bool) *arrow.Schema {
	fields := make([]arrow.Field, len(t.Columns))
	for j := range t.Columns {
		c := &t.Columns[j]
		var typ arrow.DataType = arrow.BinaryTypes.String
		switch {
		case asText:
		case c.Kind == Numeric:
			typ = arrow.PrimitiveTypes.Float64
		default:
			typ = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
		}
		name := c.Name
		if asText {
			name = rawText(name) // CSV: the bytes the name was read from
		}
		fields[j] = arrow.Field{Name: name, Type: typ, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// eachBatch builds record batches of writeBatchRows rows and hands them to write.
func eachBatch(t *Table, schema *arrow.Schema, asText bool, write func(arrow.RecordBatch) error) error {
	mem := memory.DefaultAllocator
	rows := t.Rows()
	for lo := 0; lo < rows || (rows == 0 && lo == 0); lo += writeBatchRows {
		hi := min(lo+writeBatchRows, rows)
		cols := make([]arrow.Array, len(t.Columns))
		for j := range t.Columns {
			cols[j] = buildArray(mem, &t.Columns[j], lo, hi, asText)
		}
		rec := array.NewRecordBatch(schema, cols, int64(hi-lo))
		for _, c := range cols {
			c.Release()
		}
		err := write(rec)
		rec.Release()
		if err != nil {
			return err
		}
		if rows == 0 {
			break
		}
	}
	return nil
}

func buildArray(mem memory.Allocator, c *Column, lo, hi int, asText bool) arrow.Array {
	switch {
	case asText:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for i := lo; i < hi; i++ {
			if c.Missing(i) {
				b.AppendNull()
			} else {
				b.Append(csvText(c, i))
			}
		}
		return b.NewArray()
	case c.Kind == Numeric:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Reserve(hi - lo)
		for i := lo; i < hi; i++ {
			if c.Missing(i) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.Values[i])
			}
		}
		return b.NewArray()
	default:
		dict := array.NewStringBuilder(mem)
		defer dict.Release()
		dict.AppendValues(c.Levels, nil)
		dictArr := dict.NewArray()
		defer dictArr.Release()
		idx := array.NewInt32Builder(mem)
		defer idx.Release()
		for i := lo; i < hi; i++ {
			if c.Missing(i) {
				idx.AppendNull()
			} else {
				idx.Append(c.Codes[i])
			}
		}
		idxArr := idx.NewArray()
		defer idxArr.Release()
		typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
		return array.NewDictionaryArray(typ, idxArr, dictArr)
	}
}

// writeOneColumnCSV writes a table of one column, whose empty values (missing, or an
// empty label) must be written as "" (a quoted empty field): an empty line is no record
// to CSV readers (encoding/csv, Arrow's, pandas skip it), so the rows after it would
// shift. CSV cannot tell an empty label from a missing value: both read back missing.
func writeOneColumnCSV(w *bufio.Writer, c *Column) error {
	cw := csv.NewWriter(w)
	if err := writeCSVHeader(w, cw, []string{rawText(c.Name)}); err != nil {
		return err
	}
	for i := 0; i < c.Len(); i++ {
		if err := writeCSVRecord(w, cw, []string{csvText(c, i)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeCSVHeader writes a CSV header with cw, except one column whose name holds ';' or
// a tab, which it quotes itself (encoding/csv would not): unquoted, the loader refuses
// it as another delimiter's export (ErrNotCommaSeparated).
func writeCSVHeader(w *bufio.Writer, cw *csv.Writer, header []string) error {
	if len(header) != 1 || !strings.ContainsAny(header[0], ";\t") {
		return writeCSVRecord(w, cw, header)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := w.WriteString(`"` + strings.ReplaceAll(header[0], `"`, `""`) + "\"\n")
	return err
}

// CheckCSVLabels returns an error wrapping ErrMissingLabel, naming name (the CSV output),
// the column and the row, when a categorical column of t holds a label a CSV reader takes
// for a missing value; Encode refuses such a table for CSV. A command can call it before
// its work, on the table it will write.
func CheckCSVLabels(t *Table, name string) error {
	tokens := tokenSet(defaultMissingTokens())
	for j := range t.Columns {
		if row, label := csvMissingLabel(&t.Columns[j], tokens); row >= 0 {
			return &InputError{File: name, Column: t.Columns[j].Name, Row: row + 1, Err: ErrMissingLabel,
				Detail: strconv.Quote(label) + " (write Arrow or Parquet, .arrow or .parquet, which keep it)"}
		}
	}
	return nil
}

// csvMissingLabel returns the first row of a categorical column whose label a CSV reader
// takes for a missing value (one of tokens, blanks or tabs around it allowed: the loader's
// readsAsMissing), and the label; −1 when none. Arrow and Parquet hold such categories (an
// empty string is one there); a CSV copy would turn them into missing values without a
// word.
func csvMissingLabel(c *Column, tokens map[string]bool) (int, string) {
	if c.Kind != Categorical {
		return -1, ""
	}
	missing := make([]bool, len(c.Levels)) // per level: the rows need no text compared
	for x, l := range c.Levels {
		missing[x] = readsAsMissing(l, tokens)
	}
	if !slices.Contains(missing, true) {
		return -1, ""
	}
	for i, code := range c.Codes {
		if missing[code] && !c.Missing(i) {
			return i, c.Levels[code]
		}
	}
	return -1, ""
}

// csvText is the text of row i of c in a CSV output: a label read from bytes that are not
// UTF-8 goes back to those bytes (see rawText), as CSV-to-CSV copies keep them.
func csvText(c *Column, i int) string {
	if c.Kind == Categorical {
		return rawText(c.String(i))
	}
	return c.String(i)
}

// rawText undoes LabelText: each \xNN with NN in 80–ff becomes that byte. Only such
// escapes are made by LabelText (a byte beginning no UTF-8 sequence is 0x80 or above), so
// the names and labels of a UTF-8 file are unchanged unless they hold that text literally.
func rawText(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i+3 < len(s) && s[i] == '\\' && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil && v >= 0x80 && isLowerHex(s[i+2]) && isLowerHex(s[i+3]) {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isLowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

// writeCSVRecord writes rec with cw, except a record of one empty field, which it writes
// as "" (see writeOneColumnCSV) after flushing cw to w.
func writeCSVRecord(w *bufio.Writer, cw *csv.Writer, rec []string) error {
	if len(rec) == 1 && rec[0] == "" {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		_, err := w.WriteString("\"\"\n")
		return err
	}
	return cw.Write(rec)
}
