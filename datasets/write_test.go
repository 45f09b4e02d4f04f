package datasets

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// smallTable has a numeric column with a missing value and values that are not exact in
// binary, and a categorical column with a missing value and a label needing CSV quoting.
func smallTable() *Table {
	return &Table{Source: "small", Columns: []Column{
		{Name: "x", Kind: Numeric, Values: []float64{0.1, -2.5e-300, 0, 1e21}, Valid: []bool{true, true, false, true}},
		{Name: "k", Kind: Categorical, Codes: []int32{1, 0, 1, 0}, Levels: []string{"a, b", "wést"}, Valid: []bool{true, true, true, false}},
	}}
}

// TestWriteRoundTripEachExtension writes the same table under every accepted extension,
// checks the file's leading bytes are those of the format other tools expect for that
// extension, and reads it back.
func TestWriteRoundTripEachExtension(t *testing.T) {
	want := smallTable()
	cases := []struct {
		ext   string
		magic []byte // the format's signature at offset 0
	}{
		{".csv", []byte("x,k\n")},
		{".txt", []byte("x,k\n")},
		{".arrow", []byte("ARROW1")},
		{".feather", []byte("ARROW1")},
		{".ipc", []byte("ARROW1")},
		// A stream starts with a message: the continuation marker 0xFFFFFFFF.
		{".arrows", []byte{0xff, 0xff, 0xff, 0xff}},
		{".parquet", []byte("PAR1")},
		{".pq", []byte("PAR1")},
		{".ARROWS", []byte{0xff, 0xff, 0xff, 0xff}},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.ext, func(t *testing.T) {
			p := filepath.Join(dir, "t"+tc.ext)
			if err := Write(p, want, FormatAuto); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, tc.magic) {
				t.Errorf("file starts with %q, want %q", b[:min(len(b), 8)], tc.magic)
			}
			got, err := Load(p, LoadOptions{Missing: MissingKeep})
			if err != nil {
				t.Fatal(err)
			}
			x, k := got.Column("x"), got.Column("k")
			if x == nil || k == nil || x.Kind != Numeric || k.Kind != Categorical || got.Rows() != 4 {
				t.Fatalf("read back %+v", got.Columns)
			}
			for i, v := range []float64{0.1, -2.5e-300, 0, 1e21} {
				if miss := i == 2; x.Missing(i) != miss || (!miss && x.Values[i] != v) {
					t.Errorf("x row %d: %v (missing %v), want %v", i+1, x.Values[i], x.Missing(i), v)
				}
			}
			for i, s := range []string{"wést", "a, b", "wést", ""} {
				if miss := i == 3; k.Missing(i) != miss || k.String(i) != s {
					t.Errorf("k row %d: %q (missing %v), want %q", i+1, k.String(i), k.Missing(i), s)
				}
			}
		})
	}
}

// TestWriteArrowsIsStream: a .arrows file is read by a plain IPC stream reader (which
// rejects the file format's "ARROW1" magic) and is not a valid IPC file.
func TestWriteArrowsIsStream(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.arrows")
	if err := Write(p, smallTable(), FormatAuto); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := ipc.NewFileReader(f); err == nil {
		t.Error("a .arrows file opens as an IPC file; want the stream format")
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewReader(f, ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		t.Fatalf("not an IPC stream: %v", err)
	}
	defer r.Release()
	rows := 0
	for r.Next() {
		rows += int(r.RecordBatch().NumRows())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != 4 || r.Schema().NumFields() != 2 {
		t.Errorf("stream holds %d rows, %d fields; want 4, 2", rows, r.Schema().NumFields())
	}
}

// TestWriteCSVHugeNumbersReadBackAsNumbers: a CSV that reid writes reads back with the
// same values and types. Integers of digits alone that float64 cannot hold exactly are
// labels to the reader (ids), and the shortest decimal of a float64 from 2^64 on is such
// an integer (30201997898857263104 as 30201997898857263000): reid mask's CSV output of
// noise on values near 1e19 read back categorical.
func TestWriteCSVHugeNumbersReadBackAsNumbers(t *testing.T) {
	values := []float64{30201997898857263104, -1e308, 1 << 64, -(1 << 63), 1e21, 1.5e300, 9007199254740993e3}
	want := &Table{Source: "huge", Columns: []Column{
		{Name: "x", Kind: Numeric, Values: values},
		{Name: "y", Kind: Numeric, Values: make([]float64, len(values))},
	}}
	p := filepath.Join(t.TempDir(), "huge.csv")
	if err := Write(p, want, FormatAuto); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := got.Column("x")
	if x == nil || x.Kind != Numeric {
		b, _ := os.ReadFile(p)
		t.Fatalf("x read back as %+v from\n%s", x, b)
	}
	for i, v := range values {
		if x.Values[i] != v {
			t.Errorf("row %d: %v, want %v", i+1, x.Values[i], v)
		}
	}
}

// TestWriteCSVRefusesMissingTokens: categories that CSV reads back as missing values (""
// and NA, blanks around them allowed) are refused for a CSV output, naming the first row
// that holds one, and no file is left; Arrow keeps them, and a missing row (written as an
// empty cell) or a level no row uses is no reason to refuse.
func TestWriteCSVRefusesMissingTokens(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		levels []string
		codes  []int32
		valid  []bool
		want   string // the error's end, "" for none
	}{
		{[]string{"x", "NA", ""}, []int32{0, 0, 1, 2}, nil, `column "s", row 3: a category that CSV reads back as a missing value: "NA" (write Arrow or Parquet, .arrow or .parquet, which keep it)`},
		{[]string{"x", " ", "y"}, []int32{0, 2, 1, 0}, nil, `column "s", row 3: a category that CSV reads back as a missing value: " " (write Arrow or Parquet, .arrow or .parquet, which keep it)`},
		{[]string{"x", "NA"}, []int32{0, 1, 0, 0}, []bool{true, false, true, true}, ""},
		{[]string{"x", "y", "NA"}, []int32{0, 1, 0, 1}, nil, ""},
		{[]string{"x", "n/a"}, []int32{0, 1, 0, 1}, nil, ""},
		// Other white space is no padding to the loader: a quoted cell of it is a category.
		{[]string{"x", "\u00a0", "NA\u00a0", "\n", "\u3000NA"}, []int32{1, 2, 3, 4}, nil, ""},
		{[]string{"x", "\tNA"}, []int32{0, 0, 0, 1}, nil, `column "s", row 4: a category that CSV reads back as a missing value: "\tNA" (write Arrow or Parquet, .arrow or .parquet, which keep it)`},
	} {
		tab := &Table{Source: "t", Columns: []Column{
			{Name: "a", Kind: Numeric, Values: []float64{1, 2, 3, 4}},
			{Name: "s", Kind: Categorical, Levels: tc.levels, Codes: tc.codes, Valid: tc.valid},
		}}
		p := filepath.Join(dir, "out.csv")
		err := Write(p, tab, FormatAuto)
		_, statErr := os.Stat(p)
		if tc.want == "" {
			// Written, and read back as the same categories and missing values.
			back, lerr := Load(p, LoadOptions{Missing: MissingKeep})
			if err != nil || lerr != nil || labelsOf(back.Column("s")) != labelsOf(&tab.Columns[1]) {
				t.Errorf("%q: %v, read back %v", tc.levels, err, lerr)
			}
			os.Remove(p)
		} else if !errors.Is(err, ErrMissingLabel) || !strings.HasSuffix(err.Error(), tc.want) || !os.IsNotExist(statErr) {
			t.Errorf("%q: err %v (file left: %v)\nwant ...%s", tc.levels, err, statErr == nil, tc.want)
		}
		if tc.want != "" {
			q := filepath.Join(dir, "out.arrow")
			if err := Write(q, tab, FormatAuto); err != nil {
				t.Fatal(err)
			}
			got, err := Load(q, LoadOptions{})
			if err != nil || labelsOf(got.Column("s")) != labelsOf(&tab.Columns[1]) {
				t.Errorf("%q: arrow read back %v", tc.levels, err)
			}
		}
	}
}
