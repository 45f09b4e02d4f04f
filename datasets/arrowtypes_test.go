package datasets

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// writeIPCBatches writes each batch as a record batch of one Arrow IPC stream.
func writeIPCBatches(t *testing.T, p string, batches []arrow.RecordBatch) {
	t.Helper()
	f := create(t, p)
	w := ipc.NewWriter(f, ipc.WithSchema(batches[0].Schema()))
	for _, rec := range batches {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// column makes a one-column batch named name from arr.
func column(t *testing.T, name string, arr arrow.Array) arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: arr.DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
	arr.Release()
	t.Cleanup(rec.Release)
	return rec
}

// labelsOf is a column's values as text, "NA" for a missing one.
func labelsOf(c *Column) string {
	var s []string
	for i := 0; i < c.Len(); i++ {
		if c.Missing(i) {
			s = append(s, "NA")
		} else {
			s = append(s, c.String(i))
		}
	}
	return strings.Join(s, ",")
}

// TestArrowIntegerIDInLaterBatch: an int64 column whose identifier beyond 2^53 comes in
// a later record batch is categorical with exact labels, as when the first batch holds
// it (the batch size is the writer's choice); a missing value read before stays missing.
func TestArrowIntegerIDInLaterBatch(t *testing.T) {
	mem := memory.NewGoAllocator()
	batch := func(vals []int64, valid []bool) arrow.RecordBatch {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(vals, valid)
		return column(t, "id", b.NewArray())
	}
	const big = 9007199254740993 // 2^53 + 1: no float64
	dir := t.TempDir()
	for _, split := range []int{1, 3} { // the big id in the second batch or in the first
		all := []int64{7, 0, 12, big, 5}
		valid := []bool{true, false, true, true, true}
		p := filepath.Join(dir, fmt.Sprintf("ids%d.arrows", split))
		writeIPCBatches(t, p, []arrow.RecordBatch{batch(all[:split], valid[:split]), batch(all[split:], valid[split:])})
		for _, missing := range []MissingPolicy{MissingKeep, MissingError} {
			tab, err := Load(p, LoadOptions{Missing: missing})
			if missing == MissingError {
				if err == nil {
					t.Errorf("split %d: the missing id loaded without a policy", split)
				}
				continue
			}
			if err != nil {
				t.Fatalf("split %d: %v", split, err)
			}
			c := tab.Column("id")
			if want := "7,NA,12,9007199254740993,5"; c.Kind != Categorical || labelsOf(c) != want {
				t.Errorf("split %d: %v %s, want categorical %s", split, c.Kind, labelsOf(c), want)
			}
		}
	}
}

// TestArrowMoreTypes: Arrow's other column types read as the same data written in CSV
// reads (the CSV text written out by hand beside each): decimals and half floats are
// numbers, dates are labels, a dictionary of integers is categorical labelled by its
// digits, a dictionary's null entry is a missing value, and a column of Arrow's null
// type is all missing.
func TestArrowMoreTypes(t *testing.T) {
	mem := memory.NewGoAllocator()
	dir := t.TempDir()
	dec := func() arrow.Array {
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 9, Scale: 2})
		defer b.Release()
		for _, v := range []int64{4555412, -10, 33} { // 45554.12, -0.10, 0.33
			b.Append(decimal128.FromI64(v))
		}
		return b.NewArray()
	}
	decID := func() arrow.Array {
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 20, Scale: 0})
		defer b.Release()
		for _, v := range []int64{7, 9007199254740993} { // 2^53 + 1: no float64
			b.Append(decimal128.FromI64(v))
		}
		return b.NewArray()
	}
	decKeys := func() arrow.Array {
		// DECIMAL(20, 2) account numbers beyond 2^53: float64 would make the first two one.
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 20, Scale: 2})
		defer b.Release()
		for _, v := range []int64{900719925474099301, 900719925474099302, 700} {
			b.Append(decimal128.FromI64(v))
		}
		return b.NewArray()
	}
	half := func() arrow.Array {
		b := array.NewFloat16Builder(mem)
		defer b.Release()
		for _, v := range []float32{1.5, -2, 0.25} {
			b.Append(float16.New(v))
		}
		return b.NewArray()
	}
	date := func() arrow.Array {
		b := array.NewDate32Builder(mem)
		defer b.Release()
		for _, d := range []string{"2024-03-01", "1999-12-31", "2024-03-01"} {
			tm, err := time.Parse(time.DateOnly, d)
			if err != nil {
				t.Fatal(err)
			}
			b.Append(arrow.Date32FromTime(tm))
		}
		return b.NewArray()
	}
	intDict := func() arrow.Array {
		typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.PrimitiveTypes.Int64}
		b := array.NewDictionaryBuilder(mem, typ).(*array.Int64DictionaryBuilder)
		defer b.Release()
		for _, v := range []int64{8001, 8001, 42} {
			if err := b.Append(v); err != nil {
				t.Fatal(err)
			}
		}
		return b.NewArray()
	}
	nullDict := func() arrow.Array {
		// Indices into a dictionary whose second entry is null.
		idx := array.NewInt8Builder(mem)
		defer idx.Release()
		idx.AppendValues([]int8{0, 1, 2}, nil)
		vals := array.NewStringBuilder(mem)
		defer vals.Release()
		vals.AppendValues([]string{"a", "", "c"}, []bool{true, false, true})
		ia, va := idx.NewArray(), vals.NewArray()
		defer ia.Release()
		defer va.Release()
		return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}, ia, va)
	}
	for _, tc := range []struct {
		name  string
		arr   func() arrow.Array
		csv   string // the same column in CSV
		kind  Kind
		label string
	}{
		{"decimal128", dec, "45554.12\n-0.10\n0.33\n", Numeric, "45554.12,-0.1,0.33"},
		{"decimal identifiers", decID, "7\n9007199254740993\n", Categorical, "7,9007199254740993"},
		// (In CSV a decimal point marks a measurement: these would be numbers, rounded.)
		{"decimal identifiers with cents", decKeys, "", Categorical, "9007199254740993.01,9007199254740993.02,7"},
		{"float16", half, "1.5\n-2\n0.25\n", Numeric, "1.5,-2,0.25"},
		{"date32", date, "2024-03-01\n1999-12-31\n2024-03-01\n", Categorical, "2024-03-01,1999-12-31,2024-03-01"},
		{"dictionary of int64", intDict, "", Categorical, "8001,8001,42"},
		{"dictionary with a null entry", nullDict, "a\nNA\nc\n", Categorical, "a,NA,c"},
		{"null type", func() arrow.Array { return array.NewNull(3) }, "NA\nNA\nNA\n", Categorical, "NA,NA,NA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".arrows")
			writeIPCBatches(t, p, []arrow.RecordBatch{column(t, "v", tc.arr())})
			tab, err := Load(p, LoadOptions{Missing: MissingKeep})
			if err != nil {
				t.Fatal(err)
			}
			c := tab.Column("v")
			if c.Kind != tc.kind || labelsOf(c) != tc.label {
				t.Errorf("%v %s, want %v %s", c.Kind, labelsOf(c), tc.kind, tc.label)
			}
			if tc.csv == "" {
				return
			}
			q := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "_")+".csv", "v\n"+tc.csv)
			want, err := Load(q, LoadOptions{Missing: MissingKeep})
			if err != nil {
				t.Fatal(err)
			}
			w := want.Column("v")
			if w.Kind != c.Kind || labelsOf(w) != labelsOf(c) || !slices.Equal(w.Values, c.Values) {
				t.Errorf("arrow %v %s %v; csv %v %s %v", c.Kind, labelsOf(c), c.Values, w.Kind, labelsOf(w), w.Values)
			}
		})
	}
}

// TestArrowDictionaryNotFinite: a dictionary of numbers whose entry NaN or +Inf a row
// uses is refused naming that row, as a column of numbers is (read as a label, NaN was a
// category that a CSV copy of the file then refused); an entry no row uses is harmless.
func TestArrowDictionaryNotFinite(t *testing.T) {
	mem := memory.NewGoAllocator()
	dir := t.TempDir()
	dict := func(indices []int8, valid []bool) arrow.Array {
		idx := array.NewInt8Builder(mem)
		defer idx.Release()
		idx.AppendValues(indices, valid)
		vals := array.NewFloat64Builder(mem)
		defer vals.Release()
		vals.AppendValues([]float64{1.5, math.NaN(), math.Inf(1)}, nil)
		ia, va := idx.NewArray(), vals.NewArray()
		defer ia.Release()
		defer va.Release()
		return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.PrimitiveTypes.Float64}, ia, va)
	}
	for _, tc := range []struct {
		indices []int8
		valid   []bool
		want    string // the error's end, "" for none
	}{
		{[]int8{0, 0, 1}, nil, `column "d", row 3: value is not finite (NaN or ±Inf): NaN in a dictionary of numbers (a missing value is a null)`},
		{[]int8{0, 2, 1}, nil, `column "d", row 2: value is not finite (NaN or ±Inf): +Inf in a dictionary of numbers (a missing value is a null)`},
		{[]int8{0, 0, 0}, nil, ""},
		// The first bad cell in reading order: a missing value before the NaN.
		{[]int8{0, 0, 1}, []bool{true, false, true}, `column "d", row 2: missing value (choose a missing-value policy)`},
	} {
		p := filepath.Join(dir, fmt.Sprintf("dict%v%v.arrows", tc.indices, tc.valid))
		writeIPCBatches(t, p, []arrow.RecordBatch{column(t, "d", dict(tc.indices, tc.valid))})
		tab, err := Load(p, LoadOptions{})
		switch {
		case tc.want == "" && (err != nil || labelsOf(tab.Column("d")) != "1.5,1.5,1.5"):
			t.Errorf("%v: %v", tc.indices, err)
		case tc.want != "" && !strings.HasSuffix(fmt.Sprint(err), tc.want):
			t.Errorf("%v: err %v\nwant ...%s", tc.indices, err, tc.want)
		}
	}
}

// TestInexactDecimal: the DECIMAL values float64 cannot tell apart are identifiers:
// integer parts beyond 2^53 it does not hold, and from 10^15 on fractions it does not
// hold exactly (its spacing is 1/8 there, 2 from 2^53); below 10^15 a fraction is a
// measurement's.
func TestInexactDecimal(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"9007199254740993", true},
		{"-9007199254740993.00", true},
		{"9007199254740992", false}, // 2^53 itself
		{"9007199254740992.00", false},
		{"9007199254740992.5", true},
		{"-9007199254740992.5", true},
		{"9007199254740991.5", true},  // spacing 1 from 2^52
		{"1000000000000000.5", false}, // 10^15 + 1/2: float64 holds it
		{"1000000000000000.01", true},
		{"999999999999999.01", false}, // below 10^15: a measurement
		{"123.456", false},
		{"0009007199254740993.10", true},
	} {
		if got := inexactDecimal(tc.s); got != tc.want {
			t.Errorf("inexactDecimal(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestDecimalLabels: decimals read as categories are labelled by their exact digits,
// never an exponent (arrow-go's ValueStr writes 1.5e-10, whose zeros were once trimmed
// to 1.5e-1), a negative scale's value by its digits; an identifier beyond 10^15 in a
// later batch than the first, whose decimals were read as float64s, is refused naming its
// row (relabelled from float64s, 1234567890123456.78 and .77 would be one label), and in
// the first batch makes the column categorical with every label exact.
func TestDecimalLabels(t *testing.T) {
	mem := memory.NewGoAllocator()
	dir := t.TempDir()
	dec := func(precision, scale int32, vals ...int64) arrow.Array {
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: precision, Scale: scale})
		defer b.Release()
		for _, v := range vals {
			b.Append(decimal128.FromI64(v))
		}
		return b.NewArray()
	}
	for _, tc := range []struct {
		name   string
		arr    arrow.Array
		labels string
	}{
		{"tiny", dec(38, 18, 150000000, 150000000000000000, 1000000000000), "0.00000000015,0.15,0.000001"},
		{"negative scale", dec(10, -2, 12, -3), "1200,-300"},
	} {
		p := filepath.Join(dir, tc.name+".arrows")
		writeIPCBatches(t, p, []arrow.RecordBatch{column(t, "v", tc.arr)})
		tab, err := Load(p, LoadOptions{Types: map[string]Kind{"v": Categorical}})
		if err != nil {
			t.Fatal(err)
		}
		if got := labelsOf(tab.Column("v")); got != tc.labels {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.labels)
		}
	}
	first := []int64{1234567, 1, 2}
	later := []int64{900719925474099301, 123456789012345678}
	p := filepath.Join(dir, "later.arrows")
	writeIPCBatches(t, p, []arrow.RecordBatch{column(t, "v", dec(20, 2, first...)), column(t, "v", dec(20, 2, later...))})
	want := p + `: column "v", row 4: decimal beyond the exact range of a number (a fraction float64 does not hold): "9007199254740993.01" after the first batch`
	if _, err := Load(p, LoadOptions{}); !errors.Is(err, ErrInexactDecimal) || !strings.HasPrefix(fmt.Sprint(err), want) {
		t.Errorf("later batch: err = %v\nwant %s ...", err, want)
	}
	q := filepath.Join(dir, "one.arrows")
	writeIPCBatches(t, q, []arrow.RecordBatch{column(t, "v", dec(20, 2, append(first, later...)...))})
	tab, err := Load(q, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := labelsOf(tab.Column("v")), "12345.67,0.01,0.02,9007199254740993.01,1234567890123456.78"; got != want {
		t.Errorf("one batch: %s, want %s", got, want)
	}
}

// TestLoadNoColumns: an Arrow or Parquet file of rows but no columns says so, in every
// container (Arrow called it "no records (header only)", Parquet a corrupt file).
func TestLoadNoColumns(t *testing.T) {
	dir := t.TempDir()
	rec := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 5)
	defer rec.Release()
	for _, c := range containers() {
		p := filepath.Join(dir, "none"+c.ext)
		c.write(t, p, rec)
		_, err := Load(p, LoadOptions{})
		if !errors.Is(err, ErrNoColumns) || err.Error() != p+": no columns" {
			t.Errorf("%s: err = %v, want %s: no columns", c.name, err, p)
		}
	}
}

// TestFloat16Decimal: a half float reads as the shortest decimal that rounds back to it
// (0x2e66 is 0.0999755859375, written from 0.1), for every finite bit pattern (the
// nearest half float to the decimal, among its neighbours by bits, is the one read), and
// subnormals keep their value (arrow-go's Float32 of 0x0001 is 1.1e-41, not 2^-24).
func TestFloat16Decimal(t *testing.T) {
	for _, tc := range []struct {
		bits uint16
		want float64
	}{{0x2e66, 0.1}, {0xae66, -0.1}, {0x3c00, 1}, {0x3555, 0.3333}, {0x0001, 6e-08}, {0x7bff, 65504}} {
		if got := float16Decimal(float16.FromBits(tc.bits)); got != tc.want {
			t.Errorf("%#04x: %v, want %v", tc.bits, got, tc.want)
		}
	}
	if v := halfValue(0x0001); v != math.Ldexp(1, -24) {
		t.Errorf("smallest subnormal %v, want 2^-24", v)
	}
	for _, sign := range []uint16{0, 0x8000} {
		for b := 0; b < 0x7c00; b++ {
			// halfValue, the oracle of the neighbours below, against arrow-go's decoding
			// where that is right (normal numbers; its subnormals are not).
			if h := sign | uint16(b); b >= 0x400 && halfValue(h) != float64(float16.FromBits(h).Float32()) {
				t.Fatalf("%#04x: halfValue %v, arrow-go %v", h, halfValue(h), float16.FromBits(h).Float32())
			}
			d := float16Decimal(float16.FromBits(sign | uint16(b)))
			nearest, gap := -1, math.Inf(1)
			for c := max(0, b-3); c < min(0x7c00, b+4); c++ {
				if e := math.Abs(halfValue(sign|uint16(c)) - d); e < gap {
					nearest, gap = c, e
				}
			}
			if nearest != b {
				t.Fatalf("%#04x (%v) reads as %v, nearest to %#04x", sign|uint16(b), halfValue(sign|uint16(b)), d, sign|uint16(nearest))
			}
		}
	}
}
