package datasets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Format is a file format.
type Format uint8

const (
	// FormatAuto picks the format from the file name's extension.
	FormatAuto Format = iota
	FormatCSV
	FormatArrow // Arrow IPC file format (Feather v2); Load also reads a stream
	FormatParquet
	// FormatArrowStream is the Arrow IPC stream format (no footer), conventionally .arrows.
	// Load reads either IPC format whichever of the two is asked for; Write writes exactly
	// this one, so that a .arrows file is readable by any stream reader (pyarrow's
	// open_stream, arrow-go's ipc.NewReader).
	FormatArrowStream
)

func (f Format) String() string {
	switch f {
	case FormatCSV:
		return "csv"
	case FormatArrow:
		return "arrow"
	case FormatParquet:
		return "parquet"
	case FormatArrowStream:
		return "arrow stream"
	}
	return "auto"
}

// ErrFormatMismatch is a file whose content is not in the format its name says.
var ErrFormatMismatch = errors.New("the content is not in the format of the file's name")

// contentFormat is the format a file's first bytes announce: Parquet ("PAR1"), an Arrow
// IPC file ("ARROW1") or stream (a message's 0xFFFFFFFF continuation marker), or
// FormatAuto for anything else (text, such as CSV).
func contentFormat(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return FormatParquet
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return FormatArrow
	case bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}):
		return FormatArrowStream
	}
	return FormatAuto
}

// checkContent refuses a file whose first bytes contradict format: a CSV named .parquet
// made the Parquet reader say "file is smaller than indicated metadata size", a Parquet
// file named .csv was a "bare quote" on row 1. An Arrow file and an Arrow stream may
// stand for each other (the reader tries both).
func checkContent(f *os.File, format Format) error {
	head := make([]byte, 8)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if c := compression(head[:n]); c != "" {
		// Read as CSV, a gzip file was a "bare quote" on row 1 and a zip one "wrong number
		// of fields": the reader would need it unpacked.
		advice := "decompress it first"
		if c == "zip" {
			advice += " (an Excel .xlsx workbook is a zip file too: save it as CSV)"
		}
		return fmt.Errorf("%w: the name says %s, but it is a %s file: %s", ErrFormatMismatch, format, c, advice)
	}
	got := contentFormat(head[:n])
	if format == FormatCSV && looksText(head[:n]) {
		got = FormatAuto // a CSV header may begin "PAR1," (parent 1): binary files are not text
	}
	arrowish := func(f Format) bool { return f == FormatArrow || f == FormatArrowStream }
	switch {
	case got == format, got == FormatAuto && format == FormatCSV, arrowish(got) && arrowish(format):
		return nil
	case got == FormatAuto && arrowish(format) && !looksText(head[:n]):
		return nil // streams of Arrow before 0.15 start with the schema's length, no marker
	case got == FormatAuto && looksText(head[:n]):
		return fmt.Errorf("%w: the name says %s, but it does not start as %s files do (text such as CSV?)", ErrFormatMismatch, format, format)
	case got == FormatAuto:
		return fmt.Errorf("%w: the name says %s, but it does not start as %s files do", ErrFormatMismatch, format, format)
	case format == FormatCSV:
		return fmt.Errorf("%w: the name says CSV, but it is a binary %s file: name it %s", ErrFormatMismatch, got, extensionOf(got))
	}
	return fmt.Errorf("%w: the name says %s, but it is %s %s file: name it %s", ErrFormatMismatch, format, article(got.String()), got, extensionOf(got))
}

// compression names the compressed or archive format head starts with (its magic bytes:
// RFC 1952 for gzip, PKWARE's APPNOTE for zip, RFC 8878 for zstd, the xz and bzip2 file
// formats), or "" for none of them.
func compression(head []byte) string {
	for _, m := range []struct {
		magic []byte
		name  string
	}{
		{[]byte{0x1f, 0x8b}, "gzip-compressed"},
		{[]byte("PK\x03\x04"), "zip"},
		{[]byte{0x28, 0xb5, 0x2f, 0xfd}, "zstd-compressed"},
		{[]byte{0xfd, '7', 'z', 'X', 'Z', 0x00}, "xz-compressed"},
		// "BZh", the block size 1-9 and the first block's magic 0x314159265359.
		{[]byte("BZh"), "bzip2-compressed"},
	} {
		if bytes.HasPrefix(head, m.magic) {
			if m.name == "bzip2-compressed" && !(len(head) >= 8 && head[3] >= '1' && head[3] <= '9' && string(head[4:8]) == "1AY&") {
				continue // a CSV header may begin "BZh"
			}
			return m.name
		}
	}
	return ""
}

// article is "an" before a word that starts with a vowel ("an arrow file"), else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// looksText reports whether head has no control bytes but tab, CR and LF (UTF-8 text).
func looksText(head []byte) bool {
	for _, c := range head {
		if c < 0x20 && c != '\t' && c != '\r' && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

// extensionOf returns the conventional extension of format.
func extensionOf(format Format) string {
	for _, e := range formatExtensions() {
		if e.format == format {
			return e.ext
		}
	}
	return ""
}

// extFormat is an accepted file extension (lower case) and its format.
type extFormat struct {
	ext    string
	format Format
}

// formatExtensions lists every accepted extension with its format, grouped by format:
// FormatOf and its error message are both made from it, so they cannot disagree.
func formatExtensions() []extFormat {
	return []extFormat{
		{".csv", FormatCSV}, {".txt", FormatCSV},
		{".arrow", FormatArrow}, {".feather", FormatArrow}, {".ipc", FormatArrow},
		{".arrows", FormatArrowStream},
		{".parquet", FormatParquet}, {".pq", FormatParquet},
	}
}

// knownExtensions is the list for messages: ".csv/.txt, .arrow/.feather/.ipc, ...".
func knownExtensions() string {
	var b strings.Builder
	exts := formatExtensions()
	for i, e := range exts {
		switch {
		case i == 0:
		case exts[i-1].format == e.format:
			b.WriteString("/")
		default:
			b.WriteString(", ")
		}
		b.WriteString(e.ext)
	}
	return b.String()
}

// FormatOf returns the format implied by a file name's extension (case-insensitive): .csv
// and .txt are comma-separated text (.txt because exports often carry it; .tsv and other
// delimiters are not read), .arrow, .feather and .ipc the Arrow IPC file format, .arrows the
// IPC stream format, .parquet and .pq Parquet. Any other extension, or none, is an
// ErrUnknownFormat error listing these: a file is never read as CSV by default.
func FormatOf(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range formatExtensions() {
		if e.ext == ext {
			return e.format, nil
		}
	}
	return FormatAuto, &InputError{File: path, Err: ErrUnknownFormat,
		Detail: fmt.Sprintf("extension %q (want %s)", filepath.Ext(path), knownExtensions())}
}

// OutputFormatOf is FormatOf for a file to write: a path without an extension that names
// an existing device or named pipe (/dev/stdout, a FIFO), or a descriptor (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N, whatever the shell redirected it to), is CSV, the one text
// format, since such outputs have no extension to choose by.
func OutputFormatOf(path string) (Format, error) {
	f, err := FormatOf(path)
	if err != nil && filepath.Ext(path) == "" {
		_, descriptor := Descriptor(path)
		if fi, serr := os.Stat(path); serr == nil && (descriptor || fi.Mode()&(os.ModeDevice|os.ModeNamedPipe) != 0) {
			return FormatCSV, nil
		}
	}
	return f, err
}

// MissingPolicy says what to do with a missing value.
type MissingPolicy uint8

const (
	// MissingError rejects a file with a missing value, naming its column and row.
	MissingError MissingPolicy = iota
	// MissingKeep keeps missing values in the columns' Valid masks.
	MissingKeep
)

// LoadOptions tunes Load. The zero value reads every column, infers the types and rejects
// missing values.
type LoadOptions struct {
	// Format overrides the extension.
	Format Format
	// Columns selects and orders the columns to read; nil reads all.
	Columns []string
	// namesOnly, set by ColumnNames, receives the file's column names and stops the load.
	namesOnly *[]string
	// Types overrides the kind of the named columns. A name may be any column of the
	// file, read or not (the override of a column not in Columns is ignored); a name that
	// is no column of the file is an ErrNoSuchColumn error. Numeric on a text, dictionary
	// or boolean column parses its labels, failing on the row of one that is no number;
	// Categorical on a numeric column turns its values into labels.
	Types map[string]Kind
	// Missing is the missing-value policy.
	Missing MissingPolicy
	// MissingTokens are the CSV texts read as missing; nil means "" and "NA"
	// (defaultMissingTokens).
	MissingTokens []string
	// BatchRows is the number of rows per record batch for CSV (default 65536).
	BatchRows int
}

// Load reads a table from a CSV, Arrow IPC (file/Feather v2 or stream) or Parquet file, one
// record batch at a time, into float64 and dictionary-coded columns.
//
// The type of a column without an override comes from the file: Arrow and Parquet numeric
// types are numeric, strings, dictionaries and booleans categorical, whatever their labels
// look like ("08001" and "8001" are two categories). In a CSV file every
// column is read as text and a column is numeric when more than half of the non-missing
// values of its first batch parse as plain decimal numbers; any other value in it is then
// an error naming its row. NaN and ±Inf are always errors. Column names are trimmed of
// surrounding blanks, in every format; a leading byte-order mark is skipped; lines may end in LF, CRLF or
// CR alone (classic Mac OS).
//
// Integers that float64 cannot hold exactly (beyond ±2^53: a CSV value of digits alone, an
// Arrow or Parquet int64 or uint64) are identifiers, which as float64 would collide: a
// column (CSV, or of such an integer type) with one in its first batch is categorical,
// labelled by the exact integers, and one in a later batch of a column read as numbers is
// an ErrInexactInteger error naming its row. A type override decides instead (numeric
// rounds them).
func Load(path string, opts LoadOptions) (*Table, error) {
	// Arrow's buffers come from C malloc and are freed as each batch is released, so they
	// never pile up as garbage on the Go heap: with the columns (the live heap) already
	// allocated, Go's GC would otherwise let that much garbage accumulate before collecting,
	// and loading would peak above twice the size of the data.
	return load(path, opts, mallocator.NewMallocator())
}

// ColumnNames returns the names of the columns of the file at path, in file order,
// reading no more than its header or schema (a CSV's first record; the schema of an
// Arrow or Parquet file).
func ColumnNames(path string, opts LoadOptions) ([]string, error) {
	var names []string
	opts.namesOnly = &names
	opts.Types = nil // an override naming an absent column is Load's error, not this one's
	_, err := load(path, opts, mallocator.NewMallocator())
	if errors.Is(err, errNamesRead) {
		return names, nil
	}
	if err == nil {
		err = &InputError{File: path, Err: errors.New("no column names read")}
	}
	return nil, err
}

// errNamesRead stops a load once ColumnNames has its names.
var errNamesRead = errors.New("datasets: column names read")

// notRegular are the file modes of inputs that cannot be read twice (named pipes,
// devices, sockets); not every irregular file (Windows reports cloud placeholders so).
const notRegular = os.ModeNamedPipe | os.ModeDevice | os.ModeCharDevice | os.ModeSocket

// load is Load with Arrow's buffers taken from mem (tests measure them).
func load(path string, opts LoadOptions, mem memory.Allocator) (*Table, error) {
	// A directory first: its name has no extension ("data/"), which FormatOf would call an
	// unknown format. A named pipe or a device before opening: a pipe's open waits for a
	// writer.
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &InputError{File: path, Err: errors.New("is a directory")}
	} else if err == nil && st.Mode()&notRegular != 0 {
		return nil, &InputError{File: path, Err: ErrNotRegular}
	}
	format := opts.Format
	if format == FormatAuto {
		var err error
		if format, err = FormatOf(path); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &InputError{File: path, Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &InputError{File: path, Err: err}
	}
	if st.IsDir() {
		return nil, &InputError{File: path, Err: errors.New("is a directory")}
	}
	if st.Size() == 0 {
		return nil, &InputError{File: path, Err: ErrEmptyFile}
	}
	if err := checkContent(f, format); err != nil {
		return nil, &InputError{File: path, Err: err}
	}
	ld := &loader{path: path, opts: opts, mem: mem}
	switch format {
	case FormatCSV:
		err = ld.csv(f, st.Size())
	case FormatArrow, FormatArrowStream:
		err = ld.arrow(f)
	case FormatParquet:
		err = ld.parquet(f, st.Size())
	default:
		err = &InputError{File: path, Err: ErrUnknownFormat}
	}
	if err != nil {
		return nil, err
	}
	t, err := ld.table()
	if err != nil {
		return nil, err
	}
	switch t.Rows() {
	case 0:
		return nil, &InputError{File: path, Err: ErrNoRecords}
	case 1:
		return nil, &InputError{File: path, Err: ErrTooFewRecords}
	}
	return t, nil
}

// loader carries the state of one Load.
type loader struct {
	mem  memory.Allocator
	path string
	opts LoadOptions
	// inferText is set for CSV, whose columns all arrive as text: the kind of a column
	// without an override is inferred from its first batch's values. In Arrow and Parquet
	// files the column's type decides: text, dictionaries and booleans are categorical.
	inferText bool
	// paddedMissing (CSV) holds the missing-value tokens, which Arrow's reader matches
	// exactly: a cell that is one of them with blanks around (" NA ") is missing too, as
	// " 1 " is the number 1.
	paddedMissing map[string]bool
	cols          []*columnBuilder
	names         []string // selected column names, in output order
	rows          int      // rows appended so far
}

// plan matches the file's column names against the selection and creates the builders.
// It returns, for each output column, its index in the file.
func (ld *loader) plan(fileNames []string) ([]int, error) {
	if len(fileNames) == 0 {
		// An Arrow or Parquet schema of no fields (its rows were called "no records", or
		// the file corrupt).
		return nil, &InputError{File: ld.path, Err: ErrNoColumns}
	}
	names := make([]string, len(fileNames)) // as labels are: LabelText
	for i, n := range fileNames {
		if strings.TrimSpace(n) == "" {
			// No flag can name it, and CSV cannot write it back; Arrow and Parquet
			// allow it.
			return nil, &InputError{File: ld.path, Err: errors.New("empty column name in the header"), Detail: fmt.Sprintf("column %d", i+1)}
		}
		// Trimmed as CSV headers are: --attrs and the other flags name columns trimmed, so
		// an Arrow or Parquet column " a " could not be named at all.
		names[i] = LabelText(strings.TrimSpace(n))
	}
	fileNames = names
	if ld.opts.namesOnly != nil {
		*ld.opts.namesOnly = fileNames
		return nil, errNamesRead
	}
	seen := make(map[string]int, len(fileNames))
	for i, n := range fileNames {
		if _, dup := seen[n]; dup {
			return nil, &InputError{File: ld.path, Column: n, Err: ErrDuplicateColumn}
		}
		seen[n] = i
	}
	want := ld.opts.Columns
	if want == nil {
		want = fileNames
	}
	picked := make(map[string]bool, len(want))
	idx := make([]int, 0, len(want))
	var missing []string
	for _, n := range want {
		if picked[n] {
			return nil, &InputError{File: ld.path, Column: n, Err: ErrDuplicateColumn}
		}
		picked[n] = true
		i, ok := seen[n]
		if !ok {
			missing = append(missing, strconv.Quote(n))
			continue
		}
		idx = append(idx, i)
	}
	if len(missing) > 0 {
		return nil, &InputError{File: ld.path, Err: ErrNoSuchColumn,
			Detail: strings.Join(missing, ", ") + " (the file has " + QuoteList(fileNames) + ")"}
	}
	// A type override may name any column of the file, read or not (a caller sets the
	// types of a file once, whatever it selects); one naming no column of the file is a
	// mistake. The names are sorted so that the message does not depend on map order.
	var unknown []string
	for t := range ld.opts.Types {
		if _, ok := seen[t]; !ok {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		detail := "named in a type override"
		if len(unknown) > 1 {
			detail += " (also unknown: " + QuoteList(unknown[1:]) + ")"
		}
		return nil, &InputError{File: ld.path, Column: unknown[0], Err: ErrNoSuchColumn, Detail: detail}
	}
	ld.names = want
	ld.cols = make([]*columnBuilder, len(want))
	for j, n := range want {
		b := &columnBuilder{ld: ld, col: Column{Name: n}, levelCode: map[string]int32{}}
		if k, ok := ld.opts.Types[n]; ok {
			b.kind, b.decided, b.override = k, true, true
		}
		ld.cols[j] = b
	}
	return idx, nil
}

// QuoteList quotes names (strconv.Quote) and joins them with commas, as this package's
// errors list columns: "a", "b".
func QuoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func (ld *loader) table() (*Table, error) {
	t := &Table{Source: ld.path, Columns: make([]Column, len(ld.cols))}
	for j, b := range ld.cols {
		if !b.decided { // no non-missing value at all
			b.kind = Categorical
		}
		b.col.Kind = b.kind
		if b.kind == Numeric {
			b.col.Codes = nil
			if b.col.Values == nil {
				b.col.Values = make([]float64, ld.rows)
			}
		} else {
			if b.col.Codes == nil {
				b.col.Codes = make([]int32, ld.rows)
			}
			if b.col.Levels == nil {
				b.col.Levels = []string{}
			}
		}
		if !b.anyMissing {
			b.col.Valid = nil
		}
		t.Columns[j] = b.col
	}
	return t, nil
}

// batch appends one record batch; fileIdx maps output columns to the batch's columns.
// Of the errors of a batch's columns, the one of the earliest row is returned, so that
// every command names the file's first bad cell in reading order, whichever columns it
// loads (describe named a missing value of row 41 in one column where link, loading
// fewer, named row 4 of another).
func (ld *loader) batch(rec arrow.RecordBatch, fileIdx []int) error {
	n := int(rec.NumRows())
	var first error
	firstRow, firstCol := math.MaxInt, math.MaxInt
	for j, b := range ld.cols {
		err := b.append(rec.Column(fileIdx[j]), ld.rows)
		if err == nil {
			continue
		}
		row := 0 // an error of no row (a column's type) comes first
		var ie *InputError
		if errors.As(err, &ie) {
			row = ie.Row
		}
		// On one row, the file's leftmost column, whatever the selection's order.
		if row < firstRow || row == firstRow && fileIdx[j] < firstCol {
			first, firstRow, firstCol = err, row, fileIdx[j]
		}
	}
	if first != nil {
		return first
	}
	ld.rows += n
	return nil
}

// reserve preallocates every column for the given number of rows when it is known up
// front (Parquet, Arrow file), so that loading never holds more than one copy. The count
// comes from the file's metadata, which a corrupt file can set to 2^40 rows: beyond
// maxReserve rows the columns grow as they are read instead (a file that real rows fill
// that far is highly compressed).
func (ld *loader) reserve(rows int, size int64) {
	rows = int(min(int64(rows), maxReserve(size, len(ld.cols))))
	for _, b := range ld.cols {
		b.reserve = rows
	}
}

// maxReserve is the most rows reserve preallocates in each of cols columns of a file of
// size bytes: 64 per byte (a bit-packed or dictionary-encoded column takes at least an
// eighth of a byte a row before compression) and at least 2^20, or as many as a
// sixty-fourth of the memory the process can allocate holds as float64 across the
// columns if more (a column of a constant compressed by ZSTD can take next to nothing a
// row, and reserving is what keeps its load to one copy), but never more than an eighth
// of that memory.
func maxReserve(size int64, cols int) int64 {
	c := int64(max(cols, 1))
	rows := max(1<<20, 64*size)
	if limit := memoryLimit(); limit > 0 {
		rows = min(max(rows, limit/(8*8*c)), limit/(8*c))
	}
	return rows
}

// csv reads the header with encoding/csv (to learn the number of columns), then the body
// with Arrow's CSV reader as text columns.
func (ld *loader) csv(f *os.File, size int64) error {
	start, crOnly, err := csvPrologue(f)
	if err != nil {
		return &InputError{File: ld.path, Err: err}
	}
	body := func() (io.Reader, error) { return csvBody(ld.path, f, start, crOnly) }
	in, err := body()
	if err != nil {
		return err
	}
	header, err := csv.NewReader(bufio.NewReader(in)).Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return &InputError{File: ld.path, Err: ErrEmptyFile}
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return csvParseError(ld.path, 0, pe)
		}
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: err.Error()}
	}
	for i, h := range header {
		// Options name columns with surrounding spaces trimmed, so the header must be too
		// (an empty name is refused in plan, as in every format).
		header[i] = strings.TrimSpace(h)
	}
	if len(header) == 1 && !quotedHeader(body) {
		// A quoted name ("income; USD") is one column by the file's own say.
		for _, d := range []string{";", "\t"} {
			if strings.Contains(header[0], d) {
				// An audit of two such files ran PRL on one categorical column and exited 0.
				return &InputError{File: ld.path, Err: ErrNotCommaSeparated,
					Detail: fmt.Sprintf("the header is the one column %q, which looks %q-separated: reid reads comma-separated files (convert the file)", header[0], d)}
			}
		}
	}
	fileIdx, err := ld.plan(header)
	if err != nil {
		return err
	}
	ld.inferText = true
	if len(header) == 1 {
		if in, err = body(); err != nil {
			return err
		}
		if err := blankLineInside(ld.path, in); err != nil {
			return err
		}
	}
	if in, err = body(); err != nil {
		return err
	}
	fields := make([]arrow.Field, len(header))
	for i, h := range header {
		fields[i] = arrow.Field{Name: h, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	tokens := ld.opts.MissingTokens
	if tokens == nil {
		tokens = defaultMissingTokens()
	}
	ld.paddedMissing = tokenSet(tokens)
	batchRows := ld.opts.BatchRows
	if batchRows <= 0 {
		batchRows = 1 << 16
	}
	// Arrow reserves a whole batch in every column up front; a record takes at least one
	// byte per field (its commas and line end), so the file cannot hold more rows than
	// this and a wide, short file does not reserve 64Ki rows per column.
	batchRows = int(min(int64(batchRows), size/int64(len(header))+1))
	r := arrowcsv.NewReader(bufio.NewReaderSize(in, 1<<20), arrow.NewSchema(fields, nil),
		arrowcsv.WithHeader(true), arrowcsv.WithChunk(batchRows), arrowcsv.WithAllocator(ld.mem),
		arrowcsv.WithNullReader(true, tokens...))
	defer r.Release()
	for r.Next() {
		if err := ld.batch(r.RecordBatch(), fileIdx); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		// On a parse error the reader still hands over the records before the bad one as
		// a last batch, so ld.rows records precede it.
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if errors.Is(pe.Err, csv.ErrFieldCount) {
				// Counted on the stream the reader had (no byte-order mark, CRs made LFs),
				// whose lines the error numbers.
				if again, err := body(); err == nil {
					if n, ok := csvFieldsAt(again, pe.StartLine); ok {
						return csvRaggedRow(ld.path, ld.rows+1, pe.StartLine, n, len(header))
					}
				}
			}
			return csvParseError(ld.path, ld.rows+1, pe)
		}
		return &InputError{File: ld.path, Row: ld.rows + 1, Err: ErrCorrupt, Detail: err.Error()}
	}
	return nil
}

// blankLineInside reports a blank line in a one-column CSV file: encoding/csv skips
// blank lines, which in a file of several columns are no records, but in a one-column
// file are how some writers (pandas' to_csv) write a missing value, at the end too; read
// as nothing, it would shift every later record's pairing, or lose the last one,
// silently.
func blankLineInside(path string, in io.Reader) error {
	br := bufio.NewReaderSize(in, 1<<16)
	line := 1
	quoted, empty := false, true
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &InputError{File: path, Err: ErrCorrupt, Detail: err.Error()}
		}
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
			if c == '\n' {
				line++
			}
			continue
		case c == '\n':
			if empty && line > 1 {
				return &InputError{File: path, Line: line, Err: errors.New("blank line in a one-column file"),
					Detail: "a missing value? write it NA or \"\" (blank lines are skipped, which here would shift or drop records)"}
			}
			line++
			empty = true
			continue
		case c == '\r':
			continue
		}
		empty = false
	}
}

// csvParseError reports a syntax error of data row row (0: the header, named by its line).
// The file line is given too when it is not the one the row implies (blank lines, quoted
// fields spanning lines), and the error's own line and column when the record started
// earlier.
func csvParseError(path string, row int, pe *csv.ParseError) *InputError {
	e := &InputError{File: path, Row: row, Err: ErrCorrupt, Detail: pe.Err.Error()}
	if row == 0 || pe.StartLine != row+1 {
		e.Line = pe.StartLine
	}
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
	case pe.Line != pe.StartLine:
		e.Detail += fmt.Sprintf(" (line %d, byte %d)", pe.Line, pe.Column)
	default:
		// encoding/csv's Column is a byte of the line, not a field: "column 4" read as
		// the fourth field of a line of three.
		e.Detail += fmt.Sprintf(" (byte %d of the line)", pe.Column)
	}
	return e
}

// raggedRow is a CSV record with another number of fields than the header: a corrupt
// file (errors.Is matches ErrCorrupt), said as it is.
type raggedRow struct{ fields, want int }

func (e raggedRow) Error() string {
	fields := "fields"
	if e.fields == 1 {
		fields = "field"
	}
	return fmt.Sprintf("%d %s where the header has %d (a comma too many or too few, or a field with a comma not in double quotes)", e.fields, fields, e.want)
}
func (raggedRow) Unwrap() error { return ErrCorrupt }

// csvRaggedRow is csvParseError for a record of fields fields where the header has want.
func csvRaggedRow(path string, row, line, fields, want int) *InputError {
	e := &InputError{File: path, Row: row, Err: raggedRow{fields, want}}
	if line != row+1 {
		e.Line = line
	}
	return e
}

// csvFieldsAt returns the number of fields of the CSV record that starts on line line of
// in, read again for the error message (the Arrow reader says only that the count is
// wrong); false when it cannot be read.
func csvFieldsAt(in io.Reader, line int) (int, bool) {
	r := csv.NewReader(bufio.NewReaderSize(in, 1<<20))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	for {
		rec, err := r.Read()
		if err != nil {
			return 0, false
		}
		if at, _ := r.FieldPos(0); at == line {
			return len(rec), true
		} else if at > line {
			return 0, false
		}
	}
}

// csvPrologue looks at the start of a CSV file: the length of a UTF-8 byte-order mark, and
// whether the header line ends in a lone CR (classic Mac OS line ends). A CR or LF inside
// a quoted header name does not count.
func csvPrologue(f *os.File) (start int64, crOnly bool, err error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, false, err
	}
	br := bufio.NewReader(f)
	if b, _ := br.Peek(2); string(b) == "\xff\xfe" || string(b) == "\xfe\xff" {
		return 0, false, errors.New("UTF-16 text (its byte-order mark): save the file as UTF-8")
	}
	if b, _ := br.Peek(2); len(b) == 2 && (b[0] == 0) != (b[1] == 0) {
		// A header's first character with a NUL byte beside it: UTF-16 without its mark
		// read as UTF-8 gave names such as "\x00a\x00".
		return 0, false, errors.New("a NUL byte in the first character (UTF-16 text without a byte-order mark?): save the file as UTF-8")
	}
	if b, _ := br.Peek(3); string(b) == "\ufeff" {
		start = 3
		br.Discard(3)
	}
	quoted := false
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return start, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '\n':
			return start, false, nil
		case c == '\r':
			next, err := br.Peek(1)
			return start, err != nil || next[0] != '\n', nil
		}
	}
}

// csvBody positions f at start, after the byte-order mark (which is no part of the first
// name, and before a quoted name would make it a bare quote), and turns classic Mac line
// ends into LF, the only line end encoding/csv knows besides CRLF (start and crOnly from
// csvPrologue).
func csvBody(path string, f *os.File, start int64, crOnly bool) (io.Reader, error) {
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return nil, &InputError{File: path, Err: err}
	}
	if crOnly {
		return crToLF{f}, nil
	}
	return f, nil
}

// crToLF turns every CR into LF, for a file whose lines end in CR alone: encoding/csv would
// read it as one line. A CR inside a quoted field of such a file is a line break too.
type crToLF struct{ r io.Reader }

func (c crToLF) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\r' {
			p[i] = '\n'
		}
	}
	return n, err
}

// arrow reads an Arrow IPC file (Feather v2), or failing that an IPC stream.
func (ld *loader) arrow(f *os.File) (err error) {
	defer func() { // a corrupt file can make the IPC reader panic
		if p := recover(); p != nil {
			err = &InputError{File: ld.path, Err: ErrCorrupt, Detail: fmt.Sprint(p)}
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return &InputError{File: ld.path, Err: err}
	}
	rows, err := checkIPCMetadata(f, fi.Size())
	if err != nil {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: err.Error()}
	}
	// arrow-go refuses a batch of more than 256 MiB by default (and 64 MiB of metadata),
	// whatever the file: the file's own size is the bound that separates a corrupt length
	// from a large batch.
	mem := newCappedAllocator(ld.mem, ipcAllocLimit(fi.Size()))
	opts := []ipc.Option{ipc.WithAllocator(mem), ipc.WithEnsureNativeEndian(true),
		ipc.WithBodySizeLimit(max(1, fi.Size())), ipc.WithMetadataSizeLimit(max(1, fi.Size()))}
	fr, ferr := ipc.NewFileReader(f, opts...)
	if ferr == nil {
		defer fr.Close()
		fileIdx, err := ld.plan(fieldNames(fr.Schema()))
		if err != nil {
			return err
		}
		// The record batches' lengths in their metadata (read by the check) let the
		// columns be allocated once at their final size.
		ld.reserve(rows, fi.Size())
		for i := 0; i < fr.NumRecords(); i++ {
			rec, err := fr.RecordBatchAt(i) // owned by us, unlike RecordBatch's
			if err != nil {
				return &InputError{File: ld.path, Err: ErrCorrupt, Detail: err.Error()}
			}
			err = ld.batch(rec, fileIdx)
			rec.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	// A file that starts like the IPC file format is one, and the file reader's error is
	// the one to report; otherwise the content may be a stream.
	magic := make([]byte, 6)
	if _, err := f.ReadAt(magic, 0); err == nil && string(magic) == "ARROW1" {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: ferr.Error()}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return &InputError{File: ld.path, Err: err}
	}
	// ipc.NewReader would not pass the size limits on to its message reader.
	sr, err := ipc.NewReaderFromMessageReader(ipc.NewMessageReader(bufio.NewReaderSize(f, 1<<20), opts...), opts...)
	if err != nil {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: "not an Arrow IPC file or stream: " + err.Error()}
	}
	defer sr.Release()
	fileIdx, err := ld.plan(fieldNames(sr.Schema()))
	if err != nil {
		return err
	}
	for sr.Next() {
		if err := ld.batch(sr.RecordBatch(), fileIdx); err != nil {
			return err
		}
	}
	if err := sr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return &InputError{File: ld.path, Row: ld.rows + 1, Err: ErrCorrupt, Detail: err.Error()}
	}
	return nil
}

// parquet reads a Parquet file a record batch at a time, only the selected columns.
func (ld *loader) parquet(f *os.File, size int64) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &InputError{File: ld.path, Err: ErrCorrupt, Detail: fmt.Sprint(p)}
		}
	}()
	// A buffered stream reads pages through a small buffer instead of loading each column
	// chunk whole into a fresh Go slice (which is garbage as soon as the chunk is decoded).
	props := parquet.NewReaderProperties(ld.mem)
	props.BufferedStreamEnabled = true
	props.BufferSize = 1 << 16
	pf, err := file.NewParquetReader(f, file.WithReadProps(props))
	if err != nil {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: err.Error()}
	}
	defer pf.Close()
	if err := checkStoredArrowSchema(pf); err != nil {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: err.Error()}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, ld.mem)
	if err != nil {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: err.Error()}
	}
	schema, err := fr.Schema()
	if err != nil {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: err.Error()}
	}
	fileIdx, err := ld.plan(fieldNames(schema))
	if err != nil {
		return err
	}
	// The record reader takes leaf (column chunk) indices; reid reads flat files only,
	// where field i is leaf i.
	if pf.MetaData().Schema.NumColumns() != schema.NumFields() {
		return &InputError{File: ld.path, Err: ErrUnsupportedType, Detail: "nested Parquet columns"}
	}
	ld.reserve(int(pf.NumRows()), size)
	rr, err := fr.GetRecordReader(context.Background(), fileIdx, nil)
	if err != nil {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: err.Error()}
	}
	defer rr.Release()
	batchIdx := make([]int, len(fileIdx)) // the reader returns only the selected columns, in order
	for j := range batchIdx {
		batchIdx[j] = j
	}
	for rr.Next() {
		if err := ld.batch(rr.RecordBatch(), batchIdx); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return &InputError{File: ld.path, Row: ld.rows + 1, Err: ErrCorrupt, Detail: err.Error()}
	}
	if int64(ld.rows) != pf.NumRows() {
		return &InputError{File: ld.path, Err: ErrCorrupt, Detail: fmt.Sprintf("read %d of %d rows", ld.rows, pf.NumRows())}
	}
	return nil
}

func fieldNames(s *arrow.Schema) []string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return names
}

// columnBuilder accumulates one output column across batches.
type columnBuilder struct {
	ld         *loader
	col        Column
	kind       Kind
	decided    bool // kind known (override, Arrow/Parquet type, or first CSV batch)
	override   bool
	reserve    int
	anyMissing bool
	levelCode  map[string]int32
}

func (b *columnBuilder) fail(row int, err error, detail string) error {
	return &InputError{File: b.ld.path, Column: b.col.Name, Row: row, Err: err, Detail: detail}
}

// setMissing records row (0-based, absolute) as missing or fails under MissingError.
func (b *columnBuilder) setMissing(row int) error {
	if b.ld.opts.Missing == MissingError {
		return b.fail(row+1, ErrMissingValue, "")
	}
	b.grow(row + 1)
	if b.col.Valid == nil {
		b.col.Valid = make([]bool, row, max(b.reserve, row+1))
		for i := range b.col.Valid {
			b.col.Valid[i] = true
		}
	}
	b.col.Valid = append(b.col.Valid[:row], false)
	b.anyMissing = true
	return nil
}

// grow makes Values or Codes and Valid hold n rows, filling with zero / valid.
func (b *columnBuilder) grow(n int) {
	if b.kind == Numeric {
		if b.col.Values == nil {
			b.col.Values = make([]float64, 0, max(b.reserve, n))
		}
		for len(b.col.Values) < n {
			b.col.Values = append(b.col.Values, 0)
		}
	} else {
		if b.col.Codes == nil {
			b.col.Codes = make([]int32, 0, max(b.reserve, n))
		}
		for len(b.col.Codes) < n {
			b.col.Codes = append(b.col.Codes, 0)
		}
	}
	if b.col.Valid != nil {
		for len(b.col.Valid) < n {
			b.col.Valid = append(b.col.Valid, true)
		}
	}
}

func (b *columnBuilder) numeric(row int, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return b.fail(row+1, ErrNotFinite, formatFloat(v))
	}
	b.grow(row)
	b.col.Values = append(b.col.Values[:row], v)
	if b.col.Valid != nil {
		b.col.Valid = append(b.col.Valid[:row], true)
	}
	return nil
}

func (b *columnBuilder) category(row int, label string) {
	code, ok := b.levelCode[label]
	if !ok {
		// Arrow's string accessors return views into the batch's buffer, which is freed
		// when the batch is released: keep a copy.
		label = strings.Clone(label)
		code = int32(len(b.col.Levels))
		b.col.Levels = append(b.col.Levels, LabelText(label))
		b.levelCode[label] = code
	}
	b.grow(row)
	b.col.Codes = append(b.col.Codes[:row], code)
	if b.col.Valid != nil {
		b.col.Valid = append(b.col.Valid[:row], true)
	}
}

// quotedHeader says whether the CSV body's first line starts (after blanks) with a quote.
func quotedHeader(body func() (io.Reader, error)) bool {
	in, err := body()
	if err != nil {
		return false
	}
	line, _ := bufio.NewReader(in).ReadString('\n')
	return strings.HasPrefix(strings.TrimLeft(line, " \t"), `"`)
}

// LabelText is s when it is UTF-8, else s with each byte that begins no UTF-8 sequence
// written as \xNN (a Latin-1 "caf\xe9" reads caf\xe9). Names and labels go into JSON
// reports and Parquet strings, which are UTF-8: encoding/json wrote such bytes as U+FFFD,
// two labels as one. Escaped at load, they stay distinct, compare as before (both files,
// a population, are read alike) and show what the file holds; numbers are parsed from the
// bytes as read. Refusing such text at load refused columns a command never uses. A
// caller that compares text of its own with loaded labels (a list of ids) passes it
// through LabelText first.
func LabelText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// parseNumber accepts decimal numbers as written by CSV tools: an optional sign, digits
// with an optional decimal point, an optional exponent, and blanks around (no thousands
// separators). Go's own syntax beyond that (1_000, 0x1p4) is text, such as a period
// 2020_01. NaN, Inf and Infinity in any case, and numbers out of range, are accepted so
// that the caller reports them as not finite.
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if !IsDecimal(s) && !isNonFinite(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return v, true // ±Inf: reported as not finite by the caller
		}
		return 0, false
	}
	return v, true
}

// IsDecimal reports whether s is [+-] digits [. digits] [(e|E) [+-] digits], with at
// least one digit before the exponent (".5" and "5." are numbers, "." is not): the
// numbers a CSV cell holds, without Go's hexadecimal, underscores, Inf or NaN.
func IsDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// groupedNumber reports a number written with commas (see commaNumber) at row.
func (b *columnBuilder) groupedNumber(row int, text string) error {
	return b.fail(row+1, ErrGroupedNumber, strconv.Quote(strings.TrimSpace(text))+
		" (reid reads plain decimals such as 45554 or 45.554: rewrite the column, or read it as categorical with a type override)")
}

// commaNumber reports whether s is a number written with separators, as spreadsheets
// and locales print them: thousands by commas with a decimal point (45,554 or
// 1,234,567.5; Indian 12,34,567), thousands by points with a decimal comma (45.554,12 or
// 1.234.567), or one comma as the decimal mark (3,14). One comma between digits is
// ambiguous with a code such as 1,2 and is read as a number; lists of several commas
// whose groups are not thousands (1,2,3) are not numbers.
func commaNumber(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	digits := func(g string) bool {
		return g != "" && strings.Trim(g, "0123456789") == ""
	}
	// grouped: first group 1–3 digits, then groups of exactly 3 (2 allowed before the last
	// for Indian grouping when sep is a comma), at least two groups.
	grouped := func(whole string, sep string) bool {
		gs := strings.Split(whole, sep)
		if len(gs) < 2 || len(gs[0]) > 3 || !digits(gs[0]) {
			return false
		}
		for k, g := range gs[1:] {
			last := k == len(gs)-2
			if !digits(g) || len(g) != 3 && !(sep == "," && !last && len(g) == 2) {
				return false
			}
		}
		return true
	}
	if whole, frac, ok := strings.Cut(s, ","); ok && !strings.Contains(frac, ",") && !strings.Contains(frac, ".") {
		// One comma: the decimal mark (3,14; 45.554,12 with points grouping thousands),
		// or one thousands separator (45,554).
		return digits(frac) && (digits(whole) || grouped(whole, "."))
	}
	if whole, frac, ok := strings.Cut(s, "."); ok && strings.Contains(whole, ",") {
		return (frac == "" || digits(frac)) && grouped(whole, ",") // 1,234,567.5
	}
	if strings.Contains(s, ",") {
		return grouped(s, ",") // 1,234,567
	}
	return strings.Count(s, ".") >= 2 && grouped(s, ".") // 1.234.567
}

// isNonFinite reports whether s is NaN, Inf or Infinity (any case, optionally signed).
func isNonFinite(s string) bool {
	s = strings.ToLower(strings.TrimLeft(s, "+-"))
	return s == "nan" || s == "inf" || s == "infinity"
}

// inexactInteger reports whether s (a number by parseNumber) is an integer, written as
// digits alone, that float64 cannot hold exactly. Such long integers are identifiers: as
// float64, 90071992547409921 and 90071992547409922 would be one value. (In CSV a decimal
// point marks a measurement: 90071992547409921.0 is a number, rounded.)
func inexactInteger(s string) bool {
	s = strings.TrimSpace(s)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	s = strings.TrimLeft(s, "0")
	if len(s) <= 15 { // below 2^53 ≈ 9.007e15 every integer is exact
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	n, _ := new(big.Int).SetString(s, 10)
	_, acc := new(big.Float).SetInt(n).Float64() // SetInt keeps every bit of n
	return acc != big.Exact
}

// inexactDecimal reports whether s, the exact text of an Arrow or Parquet DECIMAL, is a
// value float64 cannot tell from its neighbours: an integer part float64 cannot hold, or,
// from 10^15 on, a fraction it does not hold exactly (its spacing there is 1/8, from 2^53
// on 2). A DECIMAL is exact by its type, so such values are identifiers (Spark's
// DECIMAL(20, 2) account numbers: as float64, 1000000000000000.01 and .02 would be one
// value); below 10^15 a fraction is a measurement's.
func inexactDecimal(s string) bool {
	whole, frac, _ := strings.Cut(strings.TrimLeft(s, "+-"), ".")
	if inexactInteger(whole) {
		return true
	}
	if strings.Trim(frac, "0") == "" || len(strings.TrimLeft(whole, "0")) < 16 {
		return false
	}
	exact, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	v, _ := exact.Float64()
	return new(big.Rat).SetFloat64(v).Cmp(exact) != 0
}

// exactInt64 and exactUint64 report whether float64 holds v exactly.
func exactInt64(v int64) bool {
	f := float64(v)
	return f < math.MaxInt64 && int64(f) == v // f == 2^63 is above every int64
}

func exactUint64(v uint64) bool {
	f := float64(v)
	return f < math.MaxUint64 && uint64(f) == v
}

// append adds one Arrow array whose first row is the absolute row `start`.
func (b *columnBuilder) append(arr arrow.Array, start int) error {
	n := arr.Len()
	if _, ok := arr.(*array.Null); ok {
		// Arrow's type of a column with no value at all (pandas' all-None column): every
		// row missing, the kind left open as for an all-missing CSV column.
		for i := 0; i < n; i++ {
			if err := b.setMissing(start + i); err != nil {
				return err
			}
		}
		return nil
	}
	switch arr.(type) {
	case *array.String, *array.LargeString, *array.StringView, *array.Dictionary, *array.Boolean,
		*array.Date32, *array.Date64, *array.Timestamp, *array.Time32, *array.Time64:
		// Declared as text by the file (unless it is CSV, where everything is text): a
		// category, even when its labels look like numbers ("08001" and "8001" differ).
		// An override to numeric still parses the labels, naming the row of a non-number.
		if !b.decided && !b.ld.inferText {
			b.kind, b.decided = Categorical, true
		}
	}
	switch a := arr.(type) {
	case *array.String:
		return b.appendText(n, start, a.IsNull, a.Value)
	case *array.LargeString:
		return b.appendText(n, start, a.IsNull, a.Value)
	case *array.StringView:
		return b.appendText(n, start, a.IsNull, a.Value)
	case *array.Dictionary:
		// A dictionary declares categories (pandas' Categorical), of text or of numbers
		// (labelled by their exact digits, as a CSV writes them). A null entry of the
		// dictionary is a missing value, as a null index is.
		dict := a.Dictionary()
		labels := make([]string, dict.Len())
		if text, ok := dict.(interface{ Value(int) string }); ok {
			for i := range labels {
				labels[i] = text.Value(i)
			}
		} else if num, ok := numericGetter(dict); ok {
			for i := range labels {
				if dict.IsNull(i) {
					continue
				}
				if num.text != nil {
					labels[i] = num.text(i)
				} else {
					labels[i] = formatFloat(num.get(i))
				}
			}
			// NaN and ±Inf are refused in a dictionary of numbers as in any column of
			// numbers (read as a label, NaN was a category, and a CSV copy of it refused).
			for i := 0; i < n; i++ {
				x := a.GetValueIndex(i)
				if a.IsNull(i) || dict.IsNull(x) {
					if b.ld.opts.Missing == MissingError {
						break // appendText names this row first, as the first bad cell
					}
					continue
				}
				if v := num.get(x); math.IsNaN(v) || math.IsInf(v, 0) {
					return b.fail(start+i+1, ErrNotFinite, formatFloat(v)+" in a dictionary of numbers (a missing value is a null)")
				}
			}
		} else {
			return b.fail(0, ErrUnsupportedType, "dictionary of "+dict.DataType().String())
		}
		isNull := func(i int) bool { return a.IsNull(i) || dict.IsNull(a.GetValueIndex(i)) }
		return b.appendText(n, start, isNull, func(i int) string { return labels[a.GetValueIndex(i)] })
	case *array.Boolean:
		return b.appendText(n, start, a.IsNull, func(i int) string { return strconv.FormatBool(a.Value(i)) })
	case *array.Date32, *array.Date64, *array.Timestamp, *array.Time32, *array.Time64:
		// Dates and times are labels, as the same column in a CSV file is (2024-03-01).
		return b.appendText(n, start, arr.IsNull, arr.ValueStr)
	}
	num, ok := numericGetter(arr)
	if !ok {
		return b.fail(0, ErrUnsupportedType, arr.DataType().String())
	}
	if !b.decided {
		b.kind, b.decided = Numeric, true
	}
	// An integer float64 cannot hold is an identifier (see inexactInteger): the column
	// is categorical, labelled by the exact integers, whichever batch holds it (the
	// batches' sizes are the writer's choice). The integers read before are exact.
	for i := 0; b.kind == Numeric && !b.override && num.inexact != nil && i < n; i++ {
		if !arr.IsNull(i) && num.inexact(i) {
			if num.fraction && start > 0 {
				// Decimals read before as float64s have lost digits: refused as in CSV,
				// whose first batch decides.
				return b.fail(start+i+1, ErrInexactDecimal, strconv.Quote(num.text(i))+
					" after the first batch made the column numeric (read it as categorical if it holds identifiers, or as numeric to round it)")
			}
			b.toLabels()
		}
	}
	if b.kind == Categorical { // numbers read as categories
		if num.text != nil {
			return b.appendText(n, start, arr.IsNull, num.text)
		}
		return b.appendText(n, start, arr.IsNull, func(i int) string { return formatFloat(num.get(i)) })
	}
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			if err := b.setMissing(start + i); err != nil {
				return err
			}
			continue
		}
		if err := b.numeric(start+i, num.get(i)); err != nil {
			return err
		}
	}
	return nil
}

// toLabels turns a numeric column of exact integers (an Arrow integer column whose later
// batch holds an identifier float64 cannot hold) into the categorical column of their
// digits it would have been had the first batch held it.
func (b *columnBuilder) toLabels() {
	values, valid := b.col.Values, b.col.Valid
	b.kind, b.col.Values, b.col.Valid = Categorical, nil, nil
	for row, v := range values {
		if valid != nil && !valid[row] {
			b.setMissing(row) // cannot fail: the policy let this row be missing
			continue
		}
		b.category(row, formatFloat(v))
	}
}

// inexact reports an integer float64 cannot hold in a CSV column whose first batch made
// it numeric: rounding it could merge two identifiers.
func (b *columnBuilder) inexact(row int, text string) error {
	return b.fail(row+1, ErrInexactInteger, strconv.Quote(text)+
		" (read the column as categorical if it holds identifiers, or as numeric to round it)")
}

// textCensus counts what a batch of text cells holds: present (non-missing) cells,
// parsed ones (numbers, also those written with grouping commas), whether one is an
// integer float64 cannot hold (ids), and the first number written with commas and the
// first NaN or ±Inf (-1 when none).
type textCensus struct {
	present, parsed    int
	ids                bool
	grouped, nonFinite int
}

func censusOf(n int, isNull func(int) bool, value func(int) string) textCensus {
	c := textCensus{grouped: -1, nonFinite: -1}
	for i := 0; i < n; i++ {
		if isNull(i) {
			continue
		}
		c.present++
		if v, ok := parseNumber(value(i)); ok {
			c.parsed++
			c.ids = c.ids || (math.Abs(v) >= 1<<53 && inexactInteger(value(i)))
			if c.nonFinite < 0 && (math.IsNaN(v) || math.IsInf(v, 0)) && isNonFinite(strings.TrimSpace(value(i))) {
				c.nonFinite = i
			}
		} else if commaNumber(value(i)) {
			c.parsed++
			if c.grouped < 0 {
				c.grouped = i
			}
		}
	}
	return c
}

// numbers reports whether the batch is mostly numbers: more than half its present cells.
func (c textCensus) numbers() bool { return 2*c.parsed > c.present }

// tokenSet is the set of missing-value tokens, trimmed, that readsAsMissing takes.
func tokenSet(tokens []string) map[string]bool {
	set := make(map[string]bool, len(tokens))
	for _, tok := range tokens {
		set[strings.TrimSpace(tok)] = true
	}
	return set
}

// readsAsMissing reports whether a CSV cell of text v is a missing value: one of tokens
// (trimmed), as it is or padded with blanks or tabs. The writer asks it too (csvMissingLabel).
func readsAsMissing(v string, tokens map[string]bool) bool {
	return tokens[v] || v != "" && (v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t') && tokens[strings.TrimSpace(v)]
}

// appendText adds text values, deciding the kind of an undecided (CSV) column from this
// batch: numeric when more than half of its non-missing values parse as numbers and none
// is an integer float64 cannot hold (an identifier, see inexactInteger).
func (b *columnBuilder) appendText(n, start int, isNull func(int) bool, value func(int) string) error {
	if padded := b.ld.paddedMissing; padded != nil {
		exact := isNull
		isNull = func(i int) bool { return exact(i) || readsAsMissing(value(i), padded) }
	}
	if !b.decided {
		c := censusOf(n, isNull, value)
		if c.grouped >= 0 && c.numbers() {
			// Read as labels, such numbers would never agree once masked: every distance
			// measure would be skipped and a gate would pass on an exposed file.
			return b.groupedNumber(start+c.grouped, value(c.grouped))
		}
		if c.present > 0 {
			b.decided = true
			b.kind = Categorical
			if c.numbers() && !c.ids {
				b.kind = Numeric
			}
		}
	} else if b.override && b.kind == Categorical {
		// NaN and ±Inf in a column of numbers declared categorical (--types, or
		// uniqueness's keys): read as numbers the file is refused (describe, mask and link
		// say "not finite"), and as a code NaN made a class of its own where it stands
		// for no value. A column of text keeps "NaN" as a label.
		if c := censusOf(n, isNull, value); c.nonFinite >= 0 && c.numbers() {
			return b.fail(start+c.nonFinite+1, ErrNotFinite, strconv.Quote(strings.TrimSpace(value(c.nonFinite)))+
				" in a column of numbers read as categories (write a missing value as NA or an empty cell)")
		}
	}
	for i := 0; i < n; i++ {
		if isNull(i) {
			if err := b.setMissing(start + i); err != nil {
				return err
			}
			continue
		}
		s := value(i)
		if b.kind == Categorical {
			b.category(start+i, s)
			continue
		}
		v, ok := parseNumber(s)
		if !ok && commaNumber(s) {
			return b.groupedNumber(start+i, s)
		}
		if !ok {
			return b.fail(start+i+1, ErrNotNumeric, strconv.Quote(s))
		}
		if !b.override && math.Abs(v) >= 1<<53 && inexactInteger(s) {
			return b.inexact(start+i, strings.TrimSpace(s))
		}
		if math.IsInf(v, 0) || math.IsNaN(v) {
			// Name the text, as for other bad values: 1e400 is beyond float64 (reported as
			// +Inf it was not found), and "inf" is what the file says.
			detail := strconv.Quote(strings.TrimSpace(s))
			if !isNonFinite(strings.TrimSpace(s)) {
				detail += " (beyond the range of a number, ±1.8e308)"
			}
			return b.fail(start+i+1, ErrNotFinite, detail)
		}
		if err := b.numeric(start+i, v); err != nil {
			return err
		}
	}
	return nil
}

// numericArray reads an Arrow numeric array: get as float64; for integer types text, the
// exact integer; for 64-bit integer types inexact, whether float64 rounds the value.
type numericArray struct {
	get     func(int) float64
	text    func(int) string
	inexact func(int) bool
	// fraction: values may have a fraction (DECIMAL with a scale), so the float64s read
	// before an identifier cannot be relabelled exactly (1234567890123456.78 is
	// 1234567890123456.8 as float64).
	fraction bool
}

// numericGetter returns the accessors of Arrow's numeric arrays.
func numericGetter(arr arrow.Array) (numericArray, bool) {
	switch a := arr.(type) {
	case *array.Float64:
		return numericArray{get: a.Value}, true
	case *array.Float32:
		return numericArray{get: func(i int) float64 { return float32Decimal(a.Value(i)) }}, true
	case *array.Float16:
		return numericArray{get: func(i int) float64 { return float16Decimal(a.Value(i)) }}, true
	case *array.Decimal32:
		return decimalArray(a.Value, a.DataType().(arrow.DecimalType)), true
	case *array.Decimal64:
		return decimalArray(a.Value, a.DataType().(arrow.DecimalType)), true
	case *array.Decimal128:
		return decimalArray(a.Value, a.DataType().(arrow.DecimalType)), true
	case *array.Decimal256:
		return decimalArray(a.Value, a.DataType().(arrow.DecimalType)), true
	case *array.Int8:
		return smallInt(a.Value), true
	case *array.Int16:
		return smallInt(a.Value), true
	case *array.Int32:
		return smallInt(a.Value), true
	case *array.Uint8:
		return smallInt(a.Value), true
	case *array.Uint16:
		return smallInt(a.Value), true
	case *array.Uint32:
		return smallInt(a.Value), true
	case *array.Int64:
		return numericArray{
			get:     func(i int) float64 { return float64(a.Value(i)) },
			text:    func(i int) string { return strconv.FormatInt(a.Value(i), 10) },
			inexact: func(i int) bool { return !exactInt64(a.Value(i)) },
		}, true
	case *array.Uint64:
		return numericArray{
			get:     func(i int) float64 { return float64(a.Value(i)) },
			text:    func(i int) string { return strconv.FormatUint(a.Value(i), 10) },
			inexact: func(i int) bool { return !exactUint64(a.Value(i)) },
		}, true
	}
	return numericArray{}, false
}

// decimalArray reads an Arrow DECIMAL column (money as databases and Spark write it) from
// each value's exact digits (ToString: never an exponent, where arrow-go's ValueStr
// writes 1.5e-10): get is that text read as a CSV cell is (correctly rounded), so the same
// column gives the same numbers; text the digits without the zeros the scale pads them
// with ("5.00" is 5, as formatFloat labels the number); inexact marks identifiers
// (inexactDecimal), labelled by their exact digits as int64's are.
func decimalArray[T interface{ ToString(int32) string }](value func(int) T, typ arrow.DecimalType) numericArray {
	scale := typ.GetScale()
	digits := func(i int) string { return value(i).ToString(scale) }
	get := func(i int) float64 {
		v, err := strconv.ParseFloat(digits(i), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return math.NaN() // not a decimal's text: reported as not finite
		}
		return v
	}
	return numericArray{
		get: get,
		text: func(i int) string {
			s := digits(i)
			if strings.Contains(s, ".") {
				s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
			}
			return s
		},
		// Below 10^15 no decimal is an identifier: the text is read once per cell there.
		inexact:  func(i int) bool { return math.Abs(get(i)) >= 1e15 && inexactDecimal(digits(i)) },
		fraction: scale > 0,
	}
}

// float32Decimal is v as the decimal it was written from: the shortest decimal that
// rounds to v at float32 precision, read as float64. A float32 column holding 0.1 holds
// 0.100000001490116…, which matched no 0.1 of a CSV population file and labelled its
// class "0.10000000149011612"; the float32's own digits are all a writer meant.
func float32Decimal(v float32) float64 {
	if w := float64(v); (w == math.Trunc(w) && math.Abs(w) <= 1<<24) || math.IsInf(w, 0) || math.IsNaN(w) {
		return w // small integers: their shortest decimal is themselves
	}
	w, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	return w
}

// float16Decimal is v as the decimal it was written from, as float32Decimal: the shortest
// decimal that rounds to v at half precision (0.1, not 0.0999755859375). (arrow-go's
// float16.New truncates, so the test is against the midpoints to v's neighbours.)
func float16Decimal(v float16.Num) float64 {
	bits := v.Uint16()
	sign, mag := bits&0x8000, bits&0x7fff
	w := halfValue(sign | mag)
	if w == math.Trunc(w) || math.IsInf(w, 0) || math.IsNaN(w) {
		return w // integers (every float16 from 2048 on): their shortest decimal is themselves
	}
	lo, hi := (w+halfValue(sign|(mag-1)))/2, (w+halfValue(sign|(mag+1)))/2 // mag > 0: w is no integer
	if lo > hi {
		lo, hi = hi, lo
	}
	for digits := 1; digits < 6; digits++ { // five significant digits tell every float16 apart
		d, _ := strconv.ParseFloat(strconv.FormatFloat(w, 'g', digits, 64), 64)
		if lo < d && d < hi {
			return d
		}
	}
	return w
}

// halfValue is the IEEE 754 binary16 number of bits h, exactly.
func halfValue(h uint16) float64 {
	exp, frac := int(h>>10)&0x1f, float64(h&0x3ff)
	var v float64
	switch exp {
	case 0x1f:
		v = math.Inf(1)
		if frac != 0 {
			v = math.NaN()
		}
	case 0:
		v = math.Ldexp(frac, -24) // subnormal
	default:
		v = math.Ldexp(1024+frac, exp-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// smallInt reads an integer array of at most 32 bits, which float64 always holds exactly.
func smallInt[T int8 | int16 | int32 | uint8 | uint16 | uint32](value func(int) T) numericArray {
	return numericArray{
		get:  func(i int) float64 { return float64(value(i)) },
		text: func(i int) string { return strconv.FormatInt(int64(value(i)), 10) },
	}
}

// defaultMissingTokens are the CSV texts read as missing unless LoadOptions says
// otherwise.
func defaultMissingTokens() []string { return []string{"", "NA"} }
