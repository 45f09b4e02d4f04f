package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// container is a way of storing an Arrow record batch in a file, written here with
// arrow-go's own writers (not Write) so that the test does not depend on reid's writer.
type container struct {
	name  string
	ext   string
	write func(t *testing.T, path string, rec arrow.RecordBatch)
}

func containers() []container {
	return []container{
		{"parquet with arrow schema", ".parquet", func(t *testing.T, p string, rec arrow.RecordBatch) {
			writeParquetRec(t, p, rec, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		}},
		{"parquet", ".pq", func(t *testing.T, p string, rec arrow.RecordBatch) {
			writeParquetRec(t, p, rec, pqarrow.DefaultWriterProps())
		}},
		{"arrow file", ".arrow", func(t *testing.T, p string, rec arrow.RecordBatch) {
			writeIPCFile(t, p, rec)
		}},
		{"arrow stream", ".arrows", func(t *testing.T, p string, rec arrow.RecordBatch) {
			f := create(t, p)
			w := ipc.NewWriter(f, ipc.WithSchema(rec.Schema()))
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}},
	}
}

// writeIPCFile writes rec as an Arrow IPC file with the writer's options (compression).
func writeIPCFile(t *testing.T, p string, rec arrow.RecordBatch, opts ...ipc.Option) {
	t.Helper()
	f := create(t, p)
	w, err := ipc.NewFileWriter(f, append([]ipc.Option{ipc.WithSchema(rec.Schema())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func create(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func writeParquetRec(t *testing.T, p string, rec arrow.RecordBatch, ap pqarrow.ArrowWriterProperties) {
	t.Helper()
	f := create(t, p)
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(), ap)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // closes f
		t.Fatal(err)
	}
}

// textRecord makes a batch with a float64 column "x" (1, 2, 3, ...) and a column "code"
// of the given type holding labels.
func textRecord(t *testing.T, typ arrow.DataType, labels []string) arrow.RecordBatch {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}, {Name: "code", Type: typ}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, l := range labels {
		b.Field(0).(*array.Float64Builder).Append(float64(i + 1))
		switch cb := b.Field(1).(type) {
		case *array.StringBuilder:
			cb.Append(l)
		case *array.LargeStringBuilder:
			cb.Append(l)
		case *array.StringViewBuilder:
			cb.Append(l)
		case *array.BinaryDictionaryBuilder:
			if err := cb.AppendString(l); err != nil {
				t.Fatal(err)
			}
		case *array.BooleanBuilder:
			cb.Append(l == "true")
		default:
			t.Fatalf("no builder for %s", typ)
		}
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

// TestLoadTypesDeclaredByFile: in Arrow and Parquet files a text, dictionary or boolean
// column is categorical whatever its labels look like, so "08001" and "8001" stay two
// categories; only CSV infers the kind from the values. The expected levels are the labels
// in order of first appearance, written out by hand.
func TestLoadTypesDeclaredByFile(t *testing.T) {
	codes := []string{"08001", "8001", "08001", "8001.0"}
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	types := []struct {
		name   string
		typ    arrow.DataType
		labels []string
		levels []string
		codes  []int32
		ipc    bool // Parquet has no such type
	}{
		{"utf8", arrow.BinaryTypes.String, codes, []string{"08001", "8001", "8001.0"}, []int32{0, 1, 0, 2}, false},
		{"large_utf8", arrow.BinaryTypes.LargeString, codes, []string{"08001", "8001", "8001.0"}, []int32{0, 1, 0, 2}, false},
		{"utf8_view", arrow.BinaryTypes.StringView, codes, []string{"08001", "8001", "8001.0"}, []int32{0, 1, 0, 2}, true},
		{"dictionary", dict, codes, []string{"08001", "8001", "8001.0"}, []int32{0, 1, 0, 2}, false},
		{"bool", arrow.FixedWidthTypes.Boolean, []string{"true", "false", "false", "true"}, []string{"true", "false"}, []int32{0, 1, 1, 0}, false},
	}
	dir := t.TempDir()
	for _, ty := range types {
		for _, c := range containers() {
			if ty.ipc && !strings.HasPrefix(c.name, "arrow") {
				continue
			}
			t.Run(ty.name+"/"+c.name, func(t *testing.T) {
				p := filepath.Join(dir, ty.name+c.ext)
				c.write(t, p, textRecord(t, ty.typ, ty.labels))
				tab, err := Load(p, LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if x := tab.Column("x"); x.Kind != Numeric {
					t.Errorf("x is %v, want numeric", x.Kind)
				}
				code := tab.Column("code")
				if code.Kind != Categorical {
					t.Fatalf("code is %v, want categorical", code.Kind)
				}
				if strings.Join(code.Levels, "|") != strings.Join(ty.levels, "|") {
					t.Errorf("levels %q, want %q", code.Levels, ty.levels)
				}
				for i, want := range ty.codes {
					if code.Codes[i] != want {
						t.Errorf("row %d: code %d (%q), want %d", i+1, code.Codes[i], code.String(i), want)
					}
				}
			})
		}
	}
	// The same labels in CSV: more than half parse as numbers, so the column is numeric.
	p := writeFile(t, dir, "codes.csv", "x,code\n1,08001\n2,8001\n3,08001\n4,8001.0\n")
	tab, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if code := tab.Column("code"); code.Kind != Numeric || code.Values[0] != 8001 || code.Values[3] != 8001 {
		t.Errorf("CSV code = %+v, want numeric 8001s", code)
	}
}

// TestLoadTypesNumericOverrideOfText: a numeric override turns a text column of an Arrow
// or Parquet file into numbers; a label that is not a number is an error naming the file,
// column, row and value.
func TestLoadTypesNumericOverrideOfText(t *testing.T) {
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	dir := t.TempDir()
	for _, typ := range []arrow.DataType{arrow.BinaryTypes.String, dict} {
		for _, c := range containers() {
			t.Run(typ.String()+"/"+c.name, func(t *testing.T) {
				good := filepath.Join(dir, "good"+c.ext)
				c.write(t, good, textRecord(t, typ, []string{"08001", " 2.5", "-1e3"}))
				tab, err := Load(good, LoadOptions{Types: map[string]Kind{"code": Numeric}})
				if err != nil {
					t.Fatal(err)
				}
				code := tab.Column("code")
				if code.Kind != Numeric {
					t.Fatalf("code is %v, want numeric", code.Kind)
				}
				for i, want := range []float64{8001, 2.5, -1000} {
					if code.Values[i] != want {
						t.Errorf("row %d: %v, want %v", i+1, code.Values[i], want)
					}
				}
				bad := filepath.Join(dir, "bad"+c.ext)
				c.write(t, bad, textRecord(t, typ, []string{"1", "2", "x7"}))
				_, err = Load(bad, LoadOptions{Types: map[string]Kind{"code": Numeric}})
				want := bad + `: column "code", row 3: not a number: "x7"`
				if !errors.Is(err, ErrNotNumeric) || err.Error() != want {
					t.Errorf("err = %v, want %s", err, want)
				}
			})
		}
	}
}

// TestLoadTypesOfUnreadColumns: a type override may name any column of the file, read or
// not (it is ignored for a column not read); one naming no column of the file is an error
// naming the file and the column, the same whatever the map's order.
func TestLoadTypesOfUnreadColumns(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "t.csv", "x,code\n1,a\n2,b\n")
	paths := []string{csvPath}
	for _, c := range containers() {
		p := filepath.Join(dir, "t"+c.ext)
		c.write(t, p, textRecord(t, arrow.BinaryTypes.String, []string{"a", "b"}))
		paths = append(paths, p)
	}
	cases := []struct {
		name    string
		opts    LoadOptions
		names   string // of the loaded table
		message string // after "<file>: "; empty when Load succeeds
	}{
		{"override of a column not read", LoadOptions{Columns: []string{"x"}, Types: map[string]Kind{"code": Categorical}}, "x", ""},
		// code holds letters: read as numbers it would fail, so it is not read.
		{"numeric override of a text column not read", LoadOptions{Columns: []string{"x"}, Types: map[string]Kind{"code": Numeric}}, "x", ""},
		{"override of a column read", LoadOptions{Columns: []string{"x"}, Types: map[string]Kind{"x": Categorical}}, "x", ""},
		{"unknown column, all read", LoadOptions{Types: map[string]Kind{"zz": Categorical}}, "",
			`column "zz": no such column: named in a type override`},
		{"unknown column, some read", LoadOptions{Columns: []string{"x"}, Types: map[string]Kind{"code": Numeric, "zz": Numeric}}, "",
			`column "zz": no such column: named in a type override`},
		{"several unknown columns", LoadOptions{Types: map[string]Kind{"zz": Numeric, "yy": Numeric, "code": Numeric, "ww": Categorical}}, "",
			`column "ww": no such column: named in a type override (also unknown: "yy", "zz")`},
	}
	for _, p := range paths {
		for _, tc := range cases {
			t.Run(filepath.Ext(p)+"/"+tc.name, func(t *testing.T) {
				for range 5 { // map order varies between runs; the message must not
					tab, err := Load(p, tc.opts)
					if tc.message == "" {
						if err != nil {
							t.Fatal(err)
						}
						if got := strings.Join(tab.Names(), ","); got != tc.names {
							t.Fatalf("columns %s, want %s", got, tc.names)
						}
						continue
					}
					if !errors.Is(err, ErrNoSuchColumn) || err.Error() != p+": "+tc.message {
						t.Fatalf("err = %v, want %s: %s", err, p, tc.message)
					}
				}
			})
		}
	}
}

// TestArrowNamesTrimmed: an Arrow column named " a " could not be named by any flag
// (flags' names are trimmed, as CSV headers are); its name is now read trimmed, and two
// names that trim to one are a duplicate.
func TestArrowNamesTrimmed(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, fields ...string) string {
		mem := memory.NewGoAllocator()
		var fs []arrow.Field
		for _, f := range fields {
			fs = append(fs, arrow.Field{Name: f, Type: arrow.PrimitiveTypes.Float64})
		}
		b := array.NewRecordBuilder(mem, arrow.NewSchema(fs, nil))
		defer b.Release()
		for j := range fields {
			b.Field(j).(*array.Float64Builder).AppendValues([]float64{1, 2, 3}, nil)
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		p := filepath.Join(dir, name)
		writeIPCFile(t, p, rec)
		return p
	}
	tab, err := Load(write("padded.arrow", " a ", "b\t"), LoadOptions{Columns: []string{"a", "b"}})
	if err != nil || tab.Column("a") == nil || tab.Column("b") == nil {
		t.Fatalf("columns a and b of \" a \" and \"b\\t\": %v", err)
	}
	if _, err := Load(write("twice.arrow", " a", "a "), LoadOptions{}); !errors.Is(err, ErrDuplicateColumn) {
		t.Errorf("\" a\" and \"a \": %v, want ErrDuplicateColumn", err)
	}
}
