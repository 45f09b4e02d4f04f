package datasets

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestParseNumberPlainDecimal: only plain decimals (and the non-finite words the caller
// reports) are numbers; Go's underscores and hex floats are text. Values by hand.
func TestParseNumberPlainDecimal(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"12", 12, true},
		{" -3.5 ", -3.5, true},
		{"+.5", 0.5, true},
		{"5.", 5, true},
		{"1E+3", 1000, true},
		{"2.5e-2", 0.025, true},
		{"08001", 8001, true},
		{"2020_01", 0, false},
		{"1_2.5", 0, false},
		{"1e5_0", 0, false},
		{"0x_1p4", 0, false},
		{"0x1p4", 0, false},
		{"0x10", 0, false},
		{".", 0, false},
		{"-", 0, false},
		{"1e", 0, false},
		{"e5", 0, false},
		{"1.2.3", 0, false},
		{"1,5", 0, false},
		{"", 0, false},
		// Accepted so that the loader reports them as not finite.
		{"NaN", math.NaN(), true},
		{"-inf", math.Inf(-1), true},
		{"Infinity", math.Inf(1), true},
		{"1e999", math.Inf(1), true},
	}
	for _, tc := range cases {
		got, ok := parseNumber(tc.in)
		same := got == tc.want || (math.IsNaN(got) && math.IsNaN(tc.want))
		if ok != tc.ok || (ok && !same) {
			t.Errorf("parseNumber(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestLoadCSVInference: the kind a CSV column gets, and its labels or values, for the
// reviewer's cases: Go number syntax is text, and integers float64 cannot hold exactly
// (beyond 2^53) are identifiers.
func TestLoadCSVInference(t *testing.T) {
	cases := []struct {
		name    string
		column  []string // values of column "v"; column "x" is 1, 2, ...
		opts    LoadOptions
		kind    Kind
		labels  []string  // categorical: the labels row by row
		numbers []float64 // numeric: the values row by row
	}{
		{"underscore periods", []string{"2020_01", "2020_02"}, LoadOptions{}, Categorical, []string{"2020_01", "2020_02"}, nil},
		{"underscore decimals", []string{"1_2.5", "3_4.5", "7"}, LoadOptions{}, Categorical, []string{"1_2.5", "3_4.5", "7"}, nil},
		{"hex floats", []string{"0x_1p4", "0x1p1"}, LoadOptions{}, Categorical, []string{"0x_1p4", "0x1p1"}, nil},
		{"plain decimals", []string{"1", "-2.5", "3e2"}, LoadOptions{}, Numeric, nil, []float64{1, -2.5, 300}},
		// 2^53+1 = 9007199254740993 and 90071992547409921 are no float64.
		{"ids beyond 2^53", []string{"90071992547409920", "90071992547409921", "90071992547409922"}, LoadOptions{}, Categorical,
			[]string{"90071992547409920", "90071992547409921", "90071992547409922"}, nil},
		{"one id beyond 2^53", []string{"1", "2", "-9007199254740993"}, LoadOptions{}, Categorical, []string{"1", "2", "-9007199254740993"}, nil},
		// 2^60 and 10^19 = 2^19·5^19 (5^19 < 2^53) are float64s exactly: numbers.
		{"exact large integers", []string{"1152921504606846976", "10000000000000000000", "3"}, LoadOptions{}, Numeric, nil,
			[]float64{1 << 60, 1e19, 3}},
		{"long decimal is a number", []string{"90071992547409921.0", "1"}, LoadOptions{}, Numeric, nil, []float64{90071992547409920, 1}},
		{"numeric override rounds", []string{"9007199254740993", "2"}, LoadOptions{Types: map[string]Kind{"v": Numeric}}, Numeric, nil,
			[]float64{9007199254740992, 2}},
	}
	dir := t.TempDir()
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("x,v\n")
			for i, v := range tc.column {
				fmt.Fprintf(&b, "%d,%s\n", i+1, v)
			}
			tab, err := Load(writeFile(t, dir, fmt.Sprintf("c%d.csv", k), b.String()), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			c := tab.Column("v")
			if c.Kind != tc.kind {
				t.Fatalf("kind %v, want %v", c.Kind, tc.kind)
			}
			for i := range tc.column {
				if tc.kind == Categorical && c.String(i) != tc.labels[i] {
					t.Errorf("row %d: %q, want %q", i+1, c.String(i), tc.labels[i])
				}
				if tc.kind == Numeric && c.Values[i] != tc.numbers[i] {
					t.Errorf("row %d: %v, want %v", i+1, c.Values[i], tc.numbers[i])
				}
			}
		})
	}
}

// TestLoadCSVHeaderTrimmed: header names lose their surrounding blanks, as the names
// callers select with do; " b" and "b" are then one name twice.
func TestLoadCSVHeaderTrimmed(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "sp.csv", "a, b,c \n1,2,5\n3,5,1\n")
	tab, err := Load(p, LoadOptions{Columns: []string{"b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Names(), "|"); got != "b|c" {
		t.Errorf("names %q, want b|c", got)
	}
	if b := tab.Column("b"); b == nil || b.Values[1] != 5 {
		t.Errorf("b = %+v, want 2, 5", b)
	}
	_, err = Load(writeFile(t, dir, "dup.csv", "b, b\n1,2\n3,4\n"), LoadOptions{})
	if !errors.Is(err, ErrDuplicateColumn) || !strings.Contains(err.Error(), `column "b"`) {
		t.Errorf("b and \" b\": err = %v, want a duplicate column \"b\"", err)
	}
	_, err = Load(writeFile(t, dir, "blank.csv", "a,  ,c\n1,2,3\n4,5,6\n"), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "empty column name in the header: column 2") {
		t.Errorf("blank name: err = %v", err)
	}
	// Arrow and Parquet allow an empty name, which CSV refuses: refused in every format
	// (describe printed a blank name, no flag could choose the column).
	blank := &Table{Columns: []Column{{Name: "a", Kind: Numeric, Values: []float64{1, 2}}, {Name: "", Kind: Numeric, Values: []float64{3, 4}}}}
	for _, name := range []string{"blank.arrow", "blank.parquet"} {
		p := filepath.Join(dir, name)
		if err := Write(p, blank, FormatAuto); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "empty column name in the header: column 2") {
			t.Errorf("%s: err = %v", name, err)
		}
		if _, err := ColumnNames(p, LoadOptions{}); err == nil {
			t.Errorf("%s: ColumnNames took the empty name", name)
		}
	}
}

// TestCSVParseErrorRows: a syntax error names the data row (records before it + 1) and,
// where blank lines or quoted line breaks move it, the file line; both counted by hand. A
// record of too many or too few fields says how many against the header (it said "corrupt
// or truncated file: wrong number of fields").
func TestCSVParseErrorRows(t *testing.T) {
	const ragged = " (a comma too many or too few, or a field with a comma not in double quotes)"
	cases := []struct {
		name, content, want string
	}{
		// Record 1 spans lines 2-4, record 2 is line 5, the short record 3 is line 6.
		{"quoted field over lines", "a,b,c\n1,2,\"x\ny\nz\"\n3,5,y\n4,1\n6,2,z\n",
			"row 3 (line 6): 2 fields where the header has 3" + ragged},
		// Lines 2 and 3 are blank: records 1-3 are lines 4-6.
		{"blank lines", "a,b,c\n\n\n1,2,x\n3,5,y\n4,1\n",
			"row 3 (line 6): 2 fields where the header has 3" + ragged},
		{"no shift", "a,b\n1,2\n3,4,5\n", "row 2: 3 fields where the header has 2" + ragged},
		{"one field", "a,b\n1,2\n3\n", "row 2: 1 field where the header has 2" + ragged},
		// Counted on the stream the reader has (a reviewer's: the raw file gave the old
		// message, or 6 fields for 2): lines ending in CR alone, a byte-order mark before
		// a quoted name, a header ending in CR before rows in CRLF (every CR a line end:
		// the rows fall on even lines).
		{"CR line ends", "a,b,c\r1,2,3\r4,5\r", "row 2: 2 fields where the header has 3" + ragged},
		{"BOM and quoted name", "\ufeff\"a\",b,c\n1,2,3\n4,5\n", "row 2: 2 fields where the header has 3" + ragged},
		{"CR then CRLF", "a,b,c\r1,2,3\r\n4,5\r\n6,7,8,9,1,2,3\r\n", "row 2 (line 4): 2 fields where the header has 3" + ragged},
		// The bare quote is in record 2 (line 4), the line's fourth byte.
		{"bare quote after a multi-line field", "a,b\n\"p\nq\",1\nx,y\"z\n", `row 2 (line 4): corrupt or truncated file: bare " in non-quoted-field (byte 4 of the line)`},
		// Record 2 starts on line 3; its quote is never closed: the error is at the end of
		// the file, after the 4 bytes "5,6\n" of line 4.
		{"unterminated quote", "a,b\n1,2\n3,\"4\n5,6\n", `row 2: corrupt or truncated file: extraneous or missing " in quoted-field (line 4, byte 5)`},
		{"header", "a,b\"\n1,2\n3,4\n", `line 1: corrupt or truncated file: bare " in non-quoted-field (byte 4 of the line)`},
	}
	dir := t.TempDir()
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, fmt.Sprintf("e%d.csv", k), tc.content)
			for _, batch := range []int{0, 1, 2} { // the row must not depend on the batches
				_, err := Load(p, LoadOptions{BatchRows: batch})
				if want := p + ", " + tc.want; err == nil || err.Error() != want || !errors.Is(err, ErrCorrupt) {
					t.Errorf("batch %d: err = %v\nwant %s", batch, err, want)
				}
			}
		})
	}
}

// TestLoadCSVByteOrderMarkAndLineEnds: a byte-order mark (before a quoted or unquoted
// header) and CR, CRLF or LF line ends all give the table of the plain file.
func TestLoadCSVByteOrderMarkAndLineEnds(t *testing.T) {
	dir := t.TempDir()
	want, err := Load(writeFile(t, dir, "plain.csv", "a,b\n1,x\n3,y\n"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	quotedNL, err := Load(writeFile(t, dir, "qnl.csv", "a,b\n1,\"x\ny\"\n3,y\n"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, content string
		want          *Table
	}{
		{"BOM, quoted header", "\ufeff\"a\",b\n1,x\n3,y\n", want},
		{"BOM, quoted header, both quoted", "\ufeff\"a\",\"b\"\n1,x\n3,y\n", want},
		{"BOM, unquoted header", "\ufeffa,b\n1,x\n3,y\n", want},
		{"CR only", "a,b\r1,x\r3,y\r", want},
		{"CR only, no final line end", "a,b\r1,x\r3,y", want},
		{"CR only with BOM and quotes", "\ufeff\"a\",\"b\"\r1,\"x\"\r3,y\r", want},
		{"CR only, line break in a quoted field", "a,b\r1,\"x\ry\"\r3,y\r", quotedNL},
		{"CRLF", "a,b\r\n1,x\r\n3,y\r\n", want},
		{"quoted header, LF", "\"a\",b\n1,x\n3,y\n", want},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Load(writeFile(t, dir, fmt.Sprintf("f%d.csv", k), tc.content), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(got, tc.want) {
				t.Errorf("got %+v, want %+v", got.Columns, tc.want.Columns)
			}
		})
	}
	// A CR inside a quoted header name is no line end: the file's lines end in LF.
	got, err := Load(writeFile(t, dir, "crname.csv", "\"a\rz\",b\n1,x\n3,y\n"), LoadOptions{})
	if err != nil || got.Names()[0] != "a\rz" || got.Rows() != 2 {
		t.Errorf("CR in a quoted name: %v, %v", got, err)
	}
}

// TestStandardizeHugeAndTinyValues: values whose squares overflow or underflow float64
// are standardised like 1..5: mean 3, deviations −2..2, s² = 10/4, z = (k−3)/√2.5.
func TestStandardizeHugeAndTinyValues(t *testing.T) {
	for _, unit := range []float64{1e160, 1e300, 1e-170, 1e-300} {
		v := []float64{1 * unit, 2 * unit, 3 * unit, 4 * unit, 5 * unit}
		s, err := Standardize(numTable("x", map[string][]float64{"v": v}, "v"), StandardizeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.Mean[0]/(3*unit)-1) > 1e-15 || math.Abs(s.SD[0]/(math.Sqrt(2.5)*unit)-1) > 1e-15 {
			t.Errorf("unit %g: mean %v sd %v, want %v %v", unit, s.Mean[0], s.SD[0], 3*unit, math.Sqrt(2.5)*unit)
		}
		for k, z := range s.Table.Columns[0].Values {
			if want := float64(k+1-3) / math.Sqrt(2.5); math.Abs(z-want) > 1e-15 {
				t.Errorf("unit %g: z[%d] = %v, want %v", unit, k, z, want)
			}
		}
	}
	// The extremes of float64: ±1e308 have mean 0, but v − mean and sd = √2·1e308 overflow
	// unscaled; the z-scores are still ±1/√2.
	s, err := Standardize(numTable("x", map[string][]float64{"v": {1e308, -1e308}}, "v"), StandardizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if z := s.Table.Columns[0].Values; math.Abs(z[0]-math.Sqrt2/2) > 1e-15 || math.Abs(z[1]+math.Sqrt2/2) > 1e-15 {
		t.Errorf("±1e308: z = %v, want ±%v", z, math.Sqrt2/2)
	}
	// Subnormal values (exponents below −1022) made the scale 2^1074 = +Inf and every
	// z-score NaN: 1, 2, 3 times 1e-309 standardise as 1, 2, 3 do.
	s, err = Standardize(numTable("x", map[string][]float64{"v": {1e-309, 2e-309, 3e-309}}, "v"), StandardizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, z := range s.Table.Columns[0].Values {
		if want := float64(k - 1); math.Abs(z-want) > 1e-6 { // subnormals carry fewer digits
			t.Errorf("subnormal: z[%d] = %v, want %v", k, z, want)
		}
	}
}

// int64Record makes a batch with an int64 (or uint64) column "id" and a float64 column "x".
func int64Record(t *testing.T, ids []int64, unsigned bool) arrow.RecordBatch {
	t.Helper()
	mem := memory.NewGoAllocator()
	typ := arrow.DataType(arrow.PrimitiveTypes.Int64)
	if unsigned {
		typ = arrow.PrimitiveTypes.Uint64
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: typ}, {Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, id := range ids {
		switch ib := b.Field(0).(type) {
		case *array.Int64Builder:
			ib.Append(id)
		case *array.Uint64Builder:
			ib.Append(uint64(id))
		}
		b.Field(1).(*array.Float64Builder).Append(float64(i))
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

// TestLargeIntegerIDs: ids beyond 2^53 keep their exact integers, in CSV and in Arrow and
// Parquet int64/uint64 columns, so pairing by id finds each record's partner instead of
// reporting false duplicates. The masked file lists the ids in reverse: TrueMasked is
// n−1−i by construction.
func TestLargeIntegerIDs(t *testing.T) {
	const base = 90071992547409920 // 10·2^53: its neighbours are no float64
	n := 6
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = base + int64(i)
	}
	reversed := slices.Clone(ids)
	slices.Reverse(reversed)
	dir := t.TempDir()
	type pair struct{ name, original, masked string }
	var pairs []pair
	csvOf := func(ids []int64) string {
		var b strings.Builder
		b.WriteString("id,x\n")
		for i, id := range ids {
			fmt.Fprintf(&b, "%d,%d\n", id, i)
		}
		return b.String()
	}
	pairs = append(pairs, pair{"csv", writeFile(t, dir, "o.csv", csvOf(ids)), writeFile(t, dir, "m.csv", csvOf(reversed))})
	for _, c := range containers() {
		for _, unsigned := range []bool{false, true} {
			name := fmt.Sprintf("%s unsigned=%v", c.name, unsigned)
			o := filepath.Join(dir, fmt.Sprintf("o%v%s", unsigned, c.ext))
			m := filepath.Join(dir, fmt.Sprintf("m%v%s", unsigned, c.ext))
			c.write(t, o, int64Record(t, ids, unsigned))
			c.write(t, m, int64Record(t, reversed, unsigned))
			pairs = append(pairs, pair{name, o, m})
		}
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			o, err := Load(p.original, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := Load(p.masked, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			id := o.Column("id")
			if id.Kind != Categorical {
				t.Fatalf("id is %v, want categorical", id.Kind)
			}
			for i := range ids {
				if want := fmt.Sprint(ids[i]); id.String(i) != want {
					t.Errorf("row %d: id %q, want %q", i+1, id.String(i), want)
				}
			}
			pr, err := Pair(o, m, PairOptions{ID: "id"})
			if err != nil {
				t.Fatal(err)
			}
			for i, j := range pr.TrueMasked {
				if j != n-1-i {
					t.Errorf("TrueMasked[%d] = %d, want %d", i, j, n-1-i)
				}
			}
			// Written back, the ids are the same text.
			out := filepath.Join(t.TempDir(), "out.csv")
			if err := Write(out, o, FormatAuto); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(out); !strings.Contains(string(b), fmt.Sprintf("\n%d,", base+1)) {
				t.Errorf("written file lacks id %d:\n%s", base+1, b)
			}
		})
	}
}

// TestLargeIntegerLaterBatch: a column whose first batch made it numeric and a later batch
// holds an integer float64 cannot hold is an error naming that row (no silent merge of
// ids); a numeric override rounds it; an int64 column read as categorical by override is
// labelled by its exact integers (not via float64).
func TestLargeIntegerLaterBatch(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "late.csv", "id,x\n1,1\n2,2\n3,3\n9007199254740993,4\n")
	_, err := Load(p, LoadOptions{BatchRows: 2})
	want := p + `: column "id", row 4: integer beyond the exact range of a number (±2^53): "9007199254740993"`
	if !errors.Is(err, ErrInexactInteger) || !strings.HasPrefix(fmt.Sprint(err), want) {
		t.Errorf("err = %v\nwant %s ...", err, want)
	}
	tab, err := Load(p, LoadOptions{BatchRows: 2, Types: map[string]Kind{"id": Numeric}})
	if err != nil || tab.Column("id").Values[3] != 9007199254740992 {
		t.Errorf("numeric override: %v", err)
	}
	for _, c := range containers() {
		q := filepath.Join(dir, "small"+c.ext)
		c.write(t, q, int64Record(t, []int64{1, 9007199254740993, -9007199254740993}, false))
		tab, err := Load(q, LoadOptions{Types: map[string]Kind{"id": Categorical}})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(tab.Column("id").Levels, ","); got != "1,9007199254740993,-9007199254740993" {
			t.Errorf("%s: levels %s", c.name, got)
		}
	}
}

// TestFormatFloatIntegers: integers between 2^53 and 2^64 are written with their digits,
// not the shortest decimal padded with zeros; other numbers are unchanged.
func TestFormatFloatIntegers(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{1 << 60, "1152921504606846976"},
		{-(1 << 60), "-1152921504606846976"},
		{1 << 53, "9007199254740992"},
		{1e20, "100000000000000000000"},
		{1e21, "1000000000000000000000"},                 // beyond 2^64: shortest form, exact
		{30201997898857263104, "3.0201997898857263e+19"}, // its shortest digits are not its value
		{1 << 64, "1.8446744073709552e+19"},
		{0.1, "0.1"},
		{12.5, "12.5"},
	}
	for _, tc := range cases {
		if got := formatFloat(tc.v); got != tc.want {
			t.Errorf("formatFloat(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

// peakAllocator counts the bytes Arrow holds at once.
type peakAllocator struct {
	mu        sync.Mutex
	mem       memory.Allocator
	now, peak int
}

func (a *peakAllocator) add(d int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.now += d
	a.peak = max(a.peak, a.now)
}

func (a *peakAllocator) Allocate(n int) []byte { a.add(n); return a.mem.Allocate(n) }

func (a *peakAllocator) Reallocate(n int, b []byte) []byte {
	a.add(n - len(b))
	return a.mem.Reallocate(n, b)
}

func (a *peakAllocator) Free(b []byte) { a.add(-len(b)); a.mem.Free(b) }

// TestLoadCSVWideFileMemory: a wide file of two records must not reserve a full batch
// (64Ki rows, about half a megabyte) in every column. 300 columns of 3 rows hold ~2 KB of
// text; the bound, 4 KB per column, leaves room for Arrow's 64-byte buffer granularity.
func TestLoadCSVWideFileMemory(t *testing.T) {
	const cols = 300
	var b strings.Builder
	for r := 0; r < 3; r++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			if r == 0 {
				fmt.Fprintf(&b, "c%d", j)
			} else {
				fmt.Fprintf(&b, "%d", (j+r)%7)
			}
		}
		b.WriteByte('\n')
	}
	p := writeFile(t, t.TempDir(), "wide.csv", b.String())
	mem := &peakAllocator{mem: memory.NewGoAllocator()}
	tab, err := load(p, LoadOptions{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows() != 2 || len(tab.Columns) != cols || tab.Columns[5].Values[1] != 0 { // (5+2)%7
		t.Fatalf("loaded %d rows, %d columns", tab.Rows(), len(tab.Columns))
	}
	if mem.peak > cols*4096 {
		t.Errorf("Arrow held %d bytes at once for %d columns of 2 rows, want at most %d", mem.peak, cols, cols*4096)
	}
}

// TestContentMatchesName: a file whose first bytes contradict its extension is one clear
// error naming what it is (the readers said "file is smaller than indicated metadata size"
// or "bare quote"); an Arrow file and an Arrow stream read under each other's names.
func TestContentMatchesName(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(csvPath, []byte("a,b\n1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := Load(csvPath, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := Write(p, tab, FormatAuto); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pq, arrowFile, stream := write("t.parquet"), write("t.arrow"), write("t.arrows")
	writeBytes := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(src string) []byte {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	writeText := func(name, content string) string { return writeBytes(name, []byte(content)) }
	copyAs := func(src, name string) string { return writeBytes(name, read(src)) }
	gzipped := func(src string) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		if _, err := w.Write(read(src)); err != nil || w.Close() != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	zipped := func(src string) []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		f, err := w.Create("data.csv")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(read(src)); err != nil || w.Close() != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, c := range []struct {
		path string
		want []string // in the error; nil: loads
	}{
		{copyAs(csvPath, "csv.parquet"), []string{"csv.parquet", "name says parquet", "text such as CSV"}},
		{copyAs(csvPath, "csv.arrow"), []string{"csv.arrow", "name says arrow"}},
		{copyAs(pq, "pq.csv"), []string{"pq.csv", "binary parquet file", "name it .parquet"}},
		{copyAs(arrowFile, "arrow.parquet"), []string{"name says parquet", "but it is an arrow file", "name it .arrow"}},
		{copyAs(stream, "stream.csv"), []string{"binary arrow stream file", ".arrows"}},
		{copyAs(stream, "stream.arrow"), nil},
		// A CSV header may begin like a magic number: text is text.
		{writeText("par1.csv", "PAR1,ARROW1,x\n1,2,3\n4,5,6\n"), nil},
		{copyAs(arrowFile, "file.arrows"), nil},
		// A compressed file named .csv was read as CSV: "bare \" in non-quoted-field".
		{writeBytes("gz.csv", gzipped(csvPath)), []string{"gz.csv", "name says csv", "gzip-compressed file: decompress it first"}},
		{writeBytes("zip.csv", zipped(csvPath)), []string{"zip.csv", "a zip file: decompress it first (an Excel .xlsx workbook is a zip file too: save it as CSV)"}},
		{writeBytes("gz.parquet", gzipped(pq)), []string{"gz.parquet", "gzip-compressed"}},
		{writeText("bzh.csv", "BZh,x\n1,2\n3,4\n"), nil},
	} {
		got, err := Load(c.path, LoadOptions{})
		if c.want == nil {
			if err != nil || got.Rows() != 2 {
				t.Errorf("%s: %v", c.path, err)
			}
			continue
		}
		if !errors.Is(err, ErrFormatMismatch) {
			t.Errorf("%s: err %v, want ErrFormatMismatch", c.path, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.path, err, w)
			}
		}
	}
}

// TestWriteAtomicSpecialPaths: a rename into place replaced /dev/full by a regular file
// and reported success, and replaced a symbolic link by a file: a device is written
// directly (so /dev/full's "no space" is an error), a link's target is replaced.
func TestWriteAtomicSpecialPaths(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	write := func(content string) func(*os.File) error {
		return func(f *os.File) error { _, err := f.WriteString(content); return err }
	}
	if err := WriteAtomic(link, write("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced (%v, %v)", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want the new content", b)
	}
	// A dangling link (relative, as ln -s writes them): its target is made, the link kept.
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink("made.json", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(dangling, write("made")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced (%v, %v)", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.json")); string(b) != "made" {
		t.Errorf("the dangling link's target holds %q, want the new content", b)
	}
	// A named pipe stands for the devices (a test must not risk replacing /dev/null).
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo) // opens the reading end, which the write waits for
		got <- string(b)
	}()
	if err := WriteAtomic(fifo, write("piped")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "piped" {
			t.Errorf("the pipe's reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Error("nothing was written to the pipe")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced (%v, %v)", fi, err)
	}
}

// TestStandardizedScore: Score gives a column's own values their z-scores bit for bit,
// another file's values the same formula (±1e308 put on the scale of ±1e308 do not
// overflow), and Select keeps each column's statistics with it.
func TestStandardizedScore(t *testing.T) {
	tab := numTable("x", map[string][]float64{"a": {1, 2, 4, 9}, "b": {1e308, -1e308, 0, 5e307}}, "a", "b")
	s, err := Standardize(tab, StandardizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range s.Table.Columns {
		for i, z := range c.Values {
			if got := s.Score(j, tab.Columns[j].Values[i]); math.Float64bits(got) != math.Float64bits(z) {
				t.Errorf("column %d row %d: score %v, z %v", j, i, got, z)
			}
		}
	}
	// a: mean 4, sd √(38/3) (deviations −3, −2, 0, 5).
	if got, want := s.Score(0, 14), 10/math.Sqrt(38.0/3); math.Abs(got-want) > 1e-15 {
		t.Errorf("score of 14: %v, want %v", got, want)
	}
	if got := s.Score(1, -1e308); math.IsInf(got, 0) || math.IsNaN(got) {
		t.Errorf("score of −1e308 on b's scale: %v", got)
	}
	sel, err := s.Select([]string{"b"})
	if err != nil {
		t.Fatal(err)
	}
	if sel.Score(0, 5e307) != s.Score(1, 5e307) || sel.Mean[0] != s.Mean[1] || sel.SD[0] != s.SD[1] {
		t.Errorf("Select lost b's statistics")
	}
	// Built by hand, with Mean and SD only: the plain formula.
	hand := &Standardized{Table: tab, Mean: []float64{4}, SD: []float64{2}}
	if got := hand.Score(0, 10); got != 3 {
		t.Errorf("hand-built: score of 10 with mean 4 and sd 2 is %v, want 3", got)
	}
}

// TestLoadCSVCommaNumbers: a column of numbers written with thousands separators or
// decimal commas ("45,554", "3,14") is an error naming its first such row, not a column
// of labels (which no masked value would equal: every distance measure skipped, a gate
// passed); a type override to categorical reads the labels; text that merely holds
// commas stays categorical; a column made numeric by a plain first batch says the same.
func TestLoadCSVCommaNumbers(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		row        int // 0: loads, column a categorical
	}{
		{"thousands", "a,b\n12,1\n\"45,554\",2\n\"1,234.5\",3\n", 2},
		{"negative thousands", "a,b\n\"-1,000\",1\n\"2,000,000\",2\n", 1},
		{"decimal comma", "a,b\nNA,1\n\"3,14\",2\n\"2,5\",3\n", 2},
		{"labels with commas", "a,b\n\"Smith, J\",1\n\"Doe, A\",2\n", 0},
		{"comma numbers a minority", "a,b\nx,1\ny,2\n\"1,000\",3\n", 0},
		{"not grouped digits", "a,b\n\"1,,2\",1\n\",12\",2\n\"12,\",3\n", 0},
		{"points for thousands, comma for decimals", "a,b\n\"45.554,12\",1\n\"1.234,5\",2\n", 1},
		{"points for thousands", "a,b\n1.234.567,1\n2.000.000,2\n", 1},
		{"Indian grouping", "a,b\n\"12,34,567\",1\n\"1,00,000.5\",2\n", 1},
		{"lists of codes", "a,b\n\"1,2,3\",1\n\"2,3,4\",2\n\"5,17,2\",3\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "_")+".csv", tc.body)
			tab, err := Load(p, LoadOptions{Missing: MissingKeep})
			if tc.row == 0 {
				if err != nil || tab.Column("a").Kind != Categorical {
					t.Fatalf("err %v, want column a categorical", err)
				}
				return
			}
			want := fmt.Sprintf(`%s: column "a", row %d: number written with a comma`, p, tc.row)
			if !errors.Is(err, ErrGroupedNumber) || !strings.HasPrefix(fmt.Sprint(err), want) {
				t.Fatalf("err = %v\nwant %s ...", err, want)
			}
			tab, err = Load(p, LoadOptions{Missing: MissingKeep, Types: map[string]Kind{"a": Categorical}})
			if err != nil || tab.Column("a").Kind != Categorical {
				t.Errorf("categorical override: %v", err)
			}
		})
	}
	// In a column a plain first batch made numeric, the same words at the row.
	p := writeFile(t, dir, "late.csv", "a,b\n1,1\n2,2\n\"1,008\",3\n")
	want := p + `: column "a", row 3: number written with a comma`
	if _, err := Load(p, LoadOptions{BatchRows: 2}); !errors.Is(err, ErrGroupedNumber) || !strings.HasPrefix(fmt.Sprint(err), want) {
		t.Errorf("a comma number in a later batch: err %v\nwant %s ...", err, want)
	}
}

// TestOneColumnBlankLine: in a one-column CSV file a blank line (pandas' to_csv writes a
// missing value so, the last one too) is an error naming its line, not a record skipped
// that would shift the pairing or lose the last record; quoted line breaks and "" (a
// missing value, as reid writes it) are fine; a file of two columns skips blank lines.
func TestOneColumnBlankLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		line       int // 0: loads with rows records
		rows       int
	}{
		{"blank inside", "a\n1\n\n3\n4\n", 3, 0},
		{"blank first", "a\n\n1\n2\n", 2, 0},
		{"CRLF", "a\r\n1\r\n\r\n3\r\n", 3, 0},
		{"lone CR", "a\r1\r\r3\r", 3, 0},
		{"after a quoted line break", "a\n\"x\ny\"\nz\n\nw\n", 5, 0},
		{"blank at the end", "a\n1\n2\n\n", 4, 0},
		{"no line end at the end", "a\n1\n2", 0, 2},
		{"quoted empty", "a\n1\n\"\"\n3\n", 0, 3},
		{"blank inside quotes", "a\n\"1\n\n2\"\n3\n", 0, 2},
		{"two columns", "a,b\n1,2\n\n3,4\n", 0, 2},
	} {
		p := writeFile(t, dir, "f.csv", tc.body)
		tab, err := Load(p, LoadOptions{Missing: MissingKeep})
		if tc.line == 0 {
			if err != nil || tab.Rows() != tc.rows {
				t.Errorf("%s: err %v, want %d records", tc.name, err, tc.rows)
			}
			continue
		}
		want := fmt.Sprintf("%s, line %d: blank line in a one-column file", p, tc.line)
		if !strings.HasPrefix(fmt.Sprint(err), want) {
			t.Errorf("%s: err %v\nwant %s ...", tc.name, err, want)
		}
	}
}

// TestMissingFileNamedOnce: a file that is not there is named once, with the system's
// reason ("x.csv: no such file or directory", not "x.csv: open x.csv: …").
func TestMissingFileNamedOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.csv")
	_, err := Load(p, LoadOptions{})
	if !errors.Is(err, os.ErrNotExist) || err.Error() != p+": no such file or directory" {
		t.Errorf("err = %v", err)
	}
}

// TestPaddedMissingTokens: a CSV cell that is a missing-value token with blanks around
// (" NA ", or blanks alone for the token "") is missing, as " 1 " is the number 1; a
// label that merely contains NA is not; with tokens of the caller's only those count.
func TestPaddedMissingTokens(t *testing.T) {
	p := writeFile(t, t.TempDir(), "na.csv", "a,b,c\n1, NA ,x\n2,3,\tNA\n  ,4,NAB\n5,6,y\n")
	tab, err := Load(p, LoadOptions{Missing: MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		col     string
		missing []int
	}{{"a", []int{2}}, {"b", []int{0}}, {"c", []int{1}}} {
		c := tab.Column(tc.col)
		var got []int
		for i := 0; i < c.Len(); i++ {
			if c.Missing(i) {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, tc.missing) {
			t.Errorf("column %s: missing rows %v, want %v", tc.col, got, tc.missing)
		}
	}
	if _, err := Load(p, LoadOptions{}); !errors.Is(err, ErrMissingValue) {
		t.Errorf("without a policy: err %v, want a missing value", err)
	}
	if _, err := Load(p, LoadOptions{Missing: MissingKeep, MissingTokens: []string{"NA"}}); !errors.Is(err, ErrNotNumeric) {
		t.Errorf("tokens NA only: blanks in column a are %v, want not a number", err)
	}
}

// TestNamedTextErrors: a number beyond float64 is named by its text (it was reported as
// +Inf, which the file does not hold), and a UTF-16 file is said to be one (it was
// "wrong number of fields").
func TestNamedTextErrors(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "inf.csv", "a,b\n1,2\n-1e400,3\n")
	want := p + `: column "a", row 2: value is not finite (NaN or ±Inf): "-1e400"`
	if _, err := Load(p, LoadOptions{}); !errors.Is(err, ErrNotFinite) || !strings.HasPrefix(fmt.Sprint(err), want) {
		t.Errorf("err = %v\nwant %s ...", err, want)
	}
	for _, bom := range []string{"\xff\xfe", "\xfe\xff"} {
		p := writeFile(t, dir, "u16.csv", bom+"a\x00,\x00b\x00\n\x00")
		if _, err := Load(p, LoadOptions{}); !strings.Contains(fmt.Sprint(err), "UTF-16 text") {
			t.Errorf("% x: err = %v", bom, err)
		}
	}
	// Without the mark (a tester's UTF-16BE file read with names "\x00a\x00"), little-
	// and big-endian: the NUL byte beside the first character says it.
	for _, text := range []string{"\x00a\x00,\x00b\x00\n\x001\x00,\x002\x00\n", "a\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00"} {
		p := writeFile(t, dir, "u16.csv", text)
		if _, err := Load(p, LoadOptions{}); !strings.HasSuffix(fmt.Sprint(err), "UTF-16 text without a byte-order mark?): save the file as UTF-8") {
			t.Errorf("%q: err = %v", text[:4], err)
		}
	}
	// A CSV's own text names what it holds: "inf" is said as the file says it.
	q := writeFile(t, dir, "inftext.csv", "a,b\n1,2\ninf,3\n")
	if _, err := Load(q, LoadOptions{}); !strings.HasSuffix(fmt.Sprint(err), `row 2: value is not finite (NaN or ±Inf): "inf"`) {
		t.Errorf("inf: err = %v", err)
	}
}

// TestFirstBadCellInReadingOrder: of several bad cells in a batch, the error names the
// earliest row, whichever column holds it, so loading all columns or a few names the
// same cell when both hold it.
func TestFirstBadCellInReadingOrder(t *testing.T) {
	p := writeFile(t, t.TempDir(), "m.csv", "a,b,c\n1,2,3\n4,5,6\n,8,9\n10,11,\n13,,15\n")
	want := p + `: column "a", row 3: missing value`
	for _, cols := range [][]string{nil, {"c", "b", "a"}, {"b", "a"}} {
		if _, err := Load(p, LoadOptions{Columns: cols}); !strings.HasPrefix(fmt.Sprint(err), want) {
			t.Errorf("columns %v: err %v\nwant %s ...", cols, err, want)
		}
	}
	// Two bad cells on one row: the file's leftmost column, whatever the selection's order.
	q := writeFile(t, t.TempDir(), "two.csv", "a,b\n1,2\n,\n")
	for _, cols := range [][]string{nil, {"b", "a"}} {
		if _, err := Load(q, LoadOptions{Columns: cols}); !strings.HasPrefix(fmt.Sprint(err), q+`: column "a", row 2: missing value`) {
			t.Errorf("columns %v: err %v, want column a's", cols, err)
		}
	}
	want = p + `: column "c", row 4: missing value`
	if _, err := Load(p, LoadOptions{Columns: []string{"b", "c"}}); !strings.HasPrefix(fmt.Sprint(err), want) {
		t.Errorf("columns b, c: err %v\nwant %s ...", err, want)
	}
}
