package datasets

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadCSVTypesAndValues(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "x.csv", "age,sex,income,region\n30,F,1000.5,north\n41,M,-20,south\n52,F,3e3,north\n")
	tab, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows() != 3 || len(tab.Columns) != 4 {
		t.Fatalf("got %d rows, %d columns; want 3, 4", tab.Rows(), len(tab.Columns))
	}
	income := tab.Column("income")
	if income.Kind != Numeric {
		t.Fatalf("income kind %v", income.Kind)
	}
	for i, want := range []float64{1000.5, -20, 3000} {
		if income.Values[i] != want {
			t.Errorf("income[%d] = %v, want %v", i, income.Values[i], want)
		}
	}
	sex := tab.Column("sex")
	// Levels are numbered by first appearance: F=0, M=1.
	if sex.Kind != Categorical || strings.Join(sex.Levels, ",") != "F,M" || sex.Codes[0] != 0 || sex.Codes[1] != 1 || sex.Codes[2] != 0 {
		t.Fatalf("sex = %+v", sex)
	}
	if tab.Column("age").Valid != nil {
		t.Error("Valid mask allocated for a column without missing values")
	}
}

func TestLoadSelectionAndOverride(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "x.csv", "a,b,c\n1,2,3\n4,5,6\n")
	tab, err := Load(p, LoadOptions{Columns: []string{"c", "a"}, Types: map[string]Kind{"a": Categorical}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Names(), ","); got != "c,a" {
		t.Fatalf("names %s, want c,a", got)
	}
	a := tab.Column("a")
	if a.Kind != Categorical || a.String(1) != "4" {
		t.Fatalf("a = %+v", a)
	}
}

func TestLoadMissingKeep(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "x.csv", "a,b\n1,x\n,NA\n3,y\n")
	tab, err := Load(p, LoadOptions{Missing: MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		c := tab.Column(name)
		if c.Missing(0) || !c.Missing(1) || c.Missing(2) {
			t.Errorf("%s: missing mask %v, want [false true false]", name, c.Valid)
		}
	}
	if tab.Column("a").Kind != Numeric || tab.Column("a").Values[2] != 3 {
		t.Errorf("a = %+v", tab.Column("a"))
	}
}

// sampleTable has every feature a Table can carry: numeric, categorical, missing values,
// negative and non-integer numbers, and more rows than one write batch.
func sampleTable(rows int) *Table {
	num := Column{Name: "income", Kind: Numeric, Values: make([]float64, rows), Valid: make([]bool, rows)}
	cat := Column{Name: "region", Kind: Categorical, Codes: make([]int32, rows), Levels: []string{"north", "south, east", "wést"}, Valid: make([]bool, rows)}
	exact := Column{Name: "age", Kind: Numeric, Values: make([]float64, rows)}
	for i := 0; i < rows; i++ {
		num.Values[i] = float64(i)*1.25 - 1000 + 1/3.0
		num.Valid[i] = i%7 != 3
		if !num.Valid[i] {
			num.Values[i] = 0
		}
		cat.Codes[i] = int32(i % 3)
		cat.Valid[i] = i%11 != 5
		if !cat.Valid[i] {
			cat.Codes[i] = 0
		}
		exact.Values[i] = float64(18 + i%70)
	}
	return &Table{Source: "sample", Columns: []Column{exact, num, cat}}
}

func TestRoundTripAllFormats(t *testing.T) {
	want := sampleTable(70000) // crosses the 65536-row batch boundary
	dir := t.TempDir()
	var loaded []*Table
	for _, name := range []string{"t.csv", "t.arrow", "t.arrows", "t.parquet"} {
		p := filepath.Join(dir, name)
		if err := Write(p, want, FormatAuto); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := Load(p, LoadOptions{Missing: MissingKeep})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !Equal(want, got) {
			t.Errorf("%s: loaded table differs from the one written", name)
		}
		loaded = append(loaded, got)
	}
	// Codes (not only labels) agree across formats: levels are numbered by first appearance.
	for _, got := range loaded[1:] {
		if strings.Join(got.Column("region").Levels, "|") != strings.Join(loaded[0].Column("region").Levels, "|") {
			t.Errorf("levels differ between formats")
		}
	}
}

// TestArrowDictionaryBatches writes an IPC stream whose dictionary is replaced between
// batches (the case that failed in arrow/go v17) and checks the labels.
func TestArrowDictionaryBatches(t *testing.T) {
	mem := memory.NewGoAllocator()
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: typ}}, nil)
	p := filepath.Join(t.TempDir(), "d.arrows")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := ipc.NewWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	batches := [][]string{{"b", "a", "b"}, {"c", "a"}}
	for _, labels := range batches {
		b := array.NewDictionaryBuilder(mem, typ).(*array.BinaryDictionaryBuilder)
		for _, l := range labels {
			if err := b.AppendString(l); err != nil {
				t.Fatal(err)
			}
		}
		arr := b.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		arr.Release()
		b.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tab, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := tab.Column("k")
	var got []string
	for i := 0; i < c.Len(); i++ {
		got = append(got, c.String(i))
	}
	if strings.Join(got, ",") != "b,a,b,c,a" || strings.Join(c.Levels, ",") != "b,a,c" {
		t.Errorf("labels %v levels %v; want b,a,b,c,a and b,a,c", got, c.Levels)
	}
}

func TestArrowNumericTypes(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint8},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{-5, 7}, []bool{true, false})
	b.Field(1).(*array.Float32Builder).AppendValues([]float32{0.5, 2}, nil)
	b.Field(2).(*array.Uint8Builder).AppendValues([]uint8{200, 3}, nil)
	rec := b.NewRecordBatch()
	p := filepath.Join(t.TempDir(), "n.feather")
	writeIPCFile(t, p, rec)
	if _, err := Load(p, LoadOptions{}); !errors.Is(err, ErrMissingValue) {
		t.Fatalf("null without policy: err = %v, want ErrMissingValue", err)
	}
	tab, err := Load(p, LoadOptions{Missing: MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Column("i"); c.Values[0] != -5 || !c.Missing(1) {
		t.Errorf("i = %+v", c)
	}
	if c := tab.Column("f"); c.Values[0] != 0.5 || c.Values[1] != 2 {
		t.Errorf("f = %+v", c)
	}
	if c := tab.Column("u"); c.Kind != Numeric || c.Values[0] != 200 {
		t.Errorf("u = %+v", c)
	}
}

// A float32 column reads as the decimals it was written from (the shortest that round
// to each float32), as a CSV export of it does: 0.1, not 0.100000001490116; as labels of
// a categorical column too.
func TestArrowFloat32Decimals(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float32}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	b.Field(0).(*array.Float32Builder).AppendValues([]float32{0.1, 2.3, -7, 16777216, 3e38, 1.5e-5}, nil)
	rec := b.NewRecordBatch()
	p := filepath.Join(t.TempDir(), "f32.arrow")
	writeIPCFile(t, p, rec)
	want := []float64{0.1, 2.3, -7, 16777216, 3e38, 1.5e-5}
	tab, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Column("f").Values; !slices.Equal(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
	tab, err = Load(p, LoadOptions{Types: map[string]Kind{"f": Categorical}})
	if err != nil {
		t.Fatal(err)
	}
	c := tab.Column("f")
	var labels []string
	for i := range c.Len() {
		labels = append(labels, c.String(i))
	}
	if got := strings.Join(labels, ","); got != "0.1,2.3,-7,16777216,3e+38,0.000015" {
		t.Errorf("labels %s", got)
	}
}

// NaN and ±Inf are refused in a column of numbers declared categorical, as they are when
// it is read as numbers (they made a class "NaN" of uniqueness keys); in a column of
// text, "NaN" stays a label. Rows counted by hand.
func TestNonFiniteCodes(t *testing.T) {
	dir := t.TempDir()
	cat := LoadOptions{Types: map[string]Kind{"a": Categorical}}
	for _, c := range []struct {
		content string
		row     int // 0: loads
	}{
		{"a\n1\nNaN\n2\n", 2},
		{"a\n1\n2\n-inf\n", 3},
		{"a\nNaN\nfoo\nbar\n", 0},
		{"a\n1\nNA\n2\n", 0}, // missing (kept below), not a number
	} {
		p := writeFile(t, dir, "c.csv", c.content)
		_, err := Load(p, LoadOptions{Types: cat.Types, Missing: MissingKeep})
		var ie *InputError
		switch {
		case c.row == 0 && err != nil:
			t.Errorf("%q: %v", c.content, err)
		case c.row > 0 && (!errors.Is(err, ErrNotFinite) || !errors.As(err, &ie) || ie.Row != c.row || ie.Column != "a"):
			t.Errorf("%q: err = %v, want not finite at row %d", c.content, err, c.row)
		}
	}
	// A float column of Arrow read as categories.
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{1, 2, math.NaN()}, nil)
	p := filepath.Join(dir, "nan.arrow")
	writeIPCFile(t, p, b.NewRecordBatch())
	var ie *InputError
	if _, err := Load(p, cat); !errors.Is(err, ErrNotFinite) || !errors.As(err, &ie) || ie.Row != 3 {
		t.Errorf("Arrow NaN read as a category: err = %v, want not finite at row 3", err)
	}
}

// TestBadInput: every malformed input gets an error that names the file and, where it
// applies, the column and the row. Expected rows are counted by hand in the literals.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := sampleTable(10)
	for _, name := range []string{"good.parquet", "good.arrow", "good.arrows"} {
		if err := Write(filepath.Join(dir, name), good, FormatAuto); err != nil {
			t.Fatal(err)
		}
	}
	truncate := func(src, dst string, keep func(int) int) string {
		b, err := os.ReadFile(filepath.Join(dir, src))
		if err != nil {
			t.Fatal(err)
		}
		return writeFile(t, dir, dst, string(b[:keep(len(b))]))
	}
	corrupt := func(src, dst string) string {
		b, _ := os.ReadFile(filepath.Join(dir, src))
		for i := len(b) / 3; i < 2*len(b)/3; i++ {
			b[i] ^= 0x5a
		}
		return writeFile(t, dir, dst, string(b))
	}
	cases := []struct {
		name    string
		path    string
		opts    LoadOptions
		err     error
		mention []string // substrings the message must contain
	}{
		{"missing file", filepath.Join(dir, "nope.csv"), LoadOptions{}, os.ErrNotExist, []string{"nope.csv"}},
		{"empty file", writeFile(t, dir, "empty.csv", ""), LoadOptions{}, ErrEmptyFile, []string{"empty.csv"}},
		{"header only", writeFile(t, dir, "header.csv", "a,b\n"), LoadOptions{}, ErrNoRecords, []string{"header.csv"}},
		{"one record", writeFile(t, dir, "one.csv", "a,b\n1,2\n"), LoadOptions{}, ErrTooFewRecords, []string{"one.csv"}},
		{"semicolons", writeFile(t, dir, "semi.csv", "a;b;c\n1;2;3\n4;5;6\n"), LoadOptions{}, ErrNotCommaSeparated, []string{"semi.csv", `"a;b;c"`, `";"-separated`}},
		{"tabs", writeFile(t, dir, "tabs.csv", "a\tb\n1\t2\n4\t5\n"), LoadOptions{}, ErrNotCommaSeparated, []string{"tabs.csv", `"\t"-separated`}},
		{"text in numeric", writeFile(t, dir, "text.csv", "a,b\n1,2\n3,4\nabc,5\n"), LoadOptions{}, ErrNotNumeric, []string{"text.csv", `column "a"`, "row 3", `"abc"`}},
		{"text in numeric override", writeFile(t, dir, "text2.csv", "a,b\nx,2\ny,4\n"), LoadOptions{Types: map[string]Kind{"a": Numeric}}, ErrNotNumeric, []string{`column "a"`, "row 1"}},
		{"NaN", writeFile(t, dir, "nan.csv", "a,b\n1,2\n3,NaN\n"), LoadOptions{}, ErrNotFinite, []string{`column "b"`, "row 2"}},
		{"Inf", writeFile(t, dir, "inf.csv", "a,b\n1,-Inf\n3,4\n"), LoadOptions{}, ErrNotFinite, []string{`column "b"`, "row 1"}},
		{"overflow", writeFile(t, dir, "big.csv", "a,b\n1,1e999\n3,4\n"), LoadOptions{}, ErrNotFinite, []string{`column "b"`, "row 1"}},
		{"missing value", writeFile(t, dir, "miss.csv", "a,b\n1,2\n3,\n5,6\n"), LoadOptions{}, ErrMissingValue, []string{`column "b"`, "row 2"}},
		{"ragged row", writeFile(t, dir, "ragged.csv", "a,b\n1,2\n3,4,5\n"), LoadOptions{}, ErrCorrupt, []string{"ragged.csv", "row 2"}},
		{"duplicate header", writeFile(t, dir, "dup.csv", "a,b,a\n1,2,3\n4,5,6\n"), LoadOptions{}, ErrDuplicateColumn, []string{`column "a"`}},
		{"selected twice", writeFile(t, dir, "sel.csv", "a,b\n1,2\n3,4\n"), LoadOptions{Columns: []string{"a", "a"}}, ErrDuplicateColumn, []string{`column "a"`}},
		{"unknown column", filepath.Join(dir, "sel.csv"), LoadOptions{Columns: []string{"zz"}}, ErrNoSuchColumn, []string{`"zz"`}},
		{"unknown extension", writeFile(t, dir, "data.xlsx", "a\n1\n"), LoadOptions{}, ErrUnknownFormat, []string{"data.xlsx"}},
		{"truncated parquet", truncate("good.parquet", "trunc.parquet", func(n int) int { return n / 2 }), LoadOptions{}, ErrCorrupt, []string{"trunc.parquet"}},
		{"corrupt parquet", corrupt("good.parquet", "bad.parquet"), LoadOptions{Missing: MissingKeep}, ErrCorrupt, []string{"bad.parquet"}},
		{"truncated arrow", truncate("good.arrow", "trunc.arrow", func(n int) int { return n - 40 }), LoadOptions{Missing: MissingKeep}, ErrCorrupt, []string{"trunc.arrow"}},
		{"truncated arrows", truncate("good.arrows", "trunc.arrows", func(n int) int { return n - 40 }), LoadOptions{Missing: MissingKeep}, ErrCorrupt, []string{"trunc.arrows"}},
		{"not arrow", writeFile(t, dir, "text.arrow", "a,b\n1,2\n"), LoadOptions{}, ErrFormatMismatch, []string{"text.arrow", "text such as CSV"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.path, tc.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("error %q is not %v", err, tc.err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans lines: %q", msg)
			}
			for _, m := range tc.mention {
				if !strings.Contains(msg, m) {
					t.Errorf("message %q does not mention %s", msg, m)
				}
			}
		})
	}
}

// TestFormatOfExtensions: every accepted extension is named in the unknown-format message,
// and every extension the message names is accepted (the reviewer found .arrows and .pq
// accepted but not listed).
func TestFormatOfExtensions(t *testing.T) {
	accepted := map[string]Format{
		".csv": FormatCSV, ".txt": FormatCSV, ".arrow": FormatArrow, ".feather": FormatArrow,
		".ipc": FormatArrow, ".arrows": FormatArrowStream, ".parquet": FormatParquet, ".pq": FormatParquet,
	}
	_, err := FormatOf("data.xlsx")
	if !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("data.xlsx: %v", err)
	}
	msg := err.Error()
	for ext, want := range accepted {
		for _, name := range []string{"f" + ext, "F" + strings.ToUpper(ext)} {
			if got, err := FormatOf(name); err != nil || got != want {
				t.Errorf("FormatOf(%q) = %v, %v; want %v", name, got, err, want)
			}
		}
		if !strings.Contains(msg, ext+"/") && !strings.Contains(msg, ext+",") && !strings.HasSuffix(msg, ext+")") {
			t.Errorf("message %q does not list %s", msg, ext)
		}
	}
	_, list, _ := strings.Cut(msg, "(want ")
	for _, f := range strings.FieldsFunc(strings.TrimSuffix(list, ")"), func(r rune) bool { return r == '/' || r == ',' || r == ' ' }) {
		if _, ok := accepted[f]; !ok {
			t.Errorf("message %q names %q, which is not accepted", msg, f)
		}
	}
	for _, name := range []string{"data.tsv", "data", "data.csv.gz", "data.json"} {
		if _, err := FormatOf(name); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("FormatOf(%q): %v, want an unknown-format error", name, err)
		}
	}
}

func TestWriteLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	err := WriteAtomic(p, func(f *os.File) error {
		f.WriteString("partial")
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestCSVNumbersArePlainDecimals(t *testing.T) {
	tab := &Table{Columns: []Column{{Name: "v", Kind: Numeric, Values: []float64{1e6, 0.1, -2.5e-7}}}}
	p := filepath.Join(t.TempDir(), "v.csv")
	if err := Write(p, tab, FormatAuto); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if got := string(b); got != "v\n1000000\n0.1\n-0.00000025\n" {
		t.Errorf("file = %q", got)
	}
	back, err := Load(p, LoadOptions{})
	if err != nil || !Equal(tab, back) {
		t.Errorf("round trip: %v", err)
	}
}

func TestNumericMatrix(t *testing.T) {
	tab := sampleTable(5)
	ageRegion, _ := tab.Select([]string{"age", "region"})
	if _, err := ageRegion.NumericMatrix(); !errors.Is(err, ErrNotNumeric) {
		t.Errorf("categorical column: err = %v", err)
	}
	num, _ := tab.Select([]string{"income"})
	if _, err := num.NumericMatrix(); !errors.Is(err, ErrMissingValue) || !strings.Contains(err.Error(), "row 4") {
		t.Errorf("missing value: err = %v (row 4 is missing: i%%7 == 3)", err)
	}
	age, _ := tab.Select([]string{"age"})
	m, err := age.NumericMatrix()
	if err != nil || len(m) != 1 || m[0][2] != 20 {
		t.Errorf("m = %v, %v", m, err)
	}
}

// TestLoadNotUTF8: names and labels that are not UTF-8 (Latin-1 é, è) load with their
// stray bytes written \xNN, so two such labels stay two and JSON shows them; UTF-8 text
// is unchanged, and ColumnNames gives the names as Load does.
func TestLoadNotUTF8(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "latin1.csv", "k\xe9,x,u\ncaf\xe9,1,caf\xc3\xa9\ncaf\xe8,2,th\xc3\xa9\ncaf\xe9,3,caf\xc3\xa9\n")
	tab, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k := tab.Column(`k\xe9`)
	if k == nil || !slices.Equal(k.Levels, []string{`caf\xe9`, `caf\xe8`}) || !slices.Equal(k.Codes, []int32{0, 1, 0}) {
		t.Fatalf("column k\\xe9: %+v", k)
	}
	if u := tab.Column("u"); u == nil || !slices.Equal(u.Levels, []string{"café", "thé"}) {
		t.Errorf("UTF-8 column: %+v", u)
	}
	names, err := ColumnNames(path, LoadOptions{})
	if err != nil || !slices.Equal(names, []string{`k\xe9`, "x", "u"}) {
		t.Errorf("ColumnNames: %q, %v", names, err)
	}
}

// A one-column file whose quoted header holds a semicolon is that column, not a
// semicolon-separated export.
func TestLoadQuotedSemicolonHeader(t *testing.T) {
	tab, err := Load(writeFile(t, t.TempDir(), "q.csv", "\"income; USD\"\n1\n2\n"), LoadOptions{})
	if err != nil || tab.Column("income; USD") == nil || tab.Rows() != 2 {
		t.Fatalf("quoted header: %v", err)
	}
}

// rawText undoes LabelText on any bytes (CSV outputs write labels back as read), and
// leaves escapes LabelText never makes (below 0x80, upper-case hex) as they are.
func TestRawTextUndoesLabelText(t *testing.T) {
	for _, s := range []string{"", "café", "caf\xe9", "\xff\xfe\x80a\xc3", "a\xe9b\xe9", "\xc3\xa9\xe9", "日本\x90"} {
		if got := rawText(LabelText(s)); got != s {
			t.Errorf("rawText(LabelText(%q)) = %q", s, got)
		}
	}
	for _, s := range []string{`\x41`, `\xE9`, `\x`, `a\x8`, `\\xg0`} {
		if got := rawText(s); got != s {
			t.Errorf("rawText(%q) = %q, want it unchanged", s, got)
		}
	}
}
