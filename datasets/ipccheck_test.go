package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
)

// ipcFile writes a small table (a numeric and a categorical column) as an Arrow IPC file
// and returns its bytes.
func ipcFile(t *testing.T, dir string) []byte {
	t.Helper()
	tab := &Table{Source: "t", Columns: []Column{
		{Name: "x", Kind: Numeric, Values: []float64{1, 2, 3}},
		{Name: "city", Kind: Categorical, Codes: []int32{0, 1, 0}, Levels: []string{"Lyon", "Nice"}},
	}}
	p := filepath.Join(dir, "t.arrow")
	if err := Write(p, tab, FormatAuto); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestIPCSchemaCorruptLength: a footer whose schema claims two billion fields was read by
// arrow-go as an allocation of that many fields, a Go "fatal error: out of memory" that
// kills the process. It is now a corrupt-file error. The field vector is located with the
// FlatBuffers library's own reader (Footer.schema is field 1, Schema.fields field 1: vtable
// slots 6 and 6 in Arrow's File.fbs and Schema.fbs), independently of checkIPCSchema.
func TestIPCSchemaCorruptLength(t *testing.T) {
	dir := t.TempDir()
	b := ipcFile(t, dir)
	footerLen := int(binary.LittleEndian.Uint32(b[len(b)-10:]))
	footerAt := len(b) - 10 - footerLen
	footer := b[footerAt : len(b)-10]
	root := &flatbuffers.Table{Bytes: footer, Pos: flatbuffers.GetUOffsetT(footer)}
	o := root.Offset(6)
	if o == 0 {
		t.Fatal("footer has no schema")
	}
	schema := &flatbuffers.Table{Bytes: footer, Pos: root.Indirect(root.Pos + flatbuffers.UOffsetT(o))}
	if o = schema.Offset(6); o == 0 {
		t.Fatal("schema has no fields")
	}
	if n := schema.VectorLen(flatbuffers.UOffsetT(o)); n != 2 {
		t.Fatalf("schema has %d fields, want 2", n)
	}
	at := schema.Pos + flatbuffers.UOffsetT(o)
	at += flatbuffers.GetUOffsetT(footer[at:]) // the vector's length word
	binary.LittleEndian.PutUint32(footer[at:], 0x7ffffff0)
	p := filepath.Join(dir, "corrupt.arrow")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p, LoadOptions{})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load: %v, want ErrCorrupt", err)
	}
	t.Log(err)
}

// TestIPCBitFlips: single-bit flips of a small IPC file, in either IPC format, gives
// a table or an error; none crashes the process or is refused by the check while arrow-go
// reads it (the check passes every file the reader can read).
func TestIPCBitFlips(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"t.arrow", "t.arrows"} {
		src := ipcFile(t, dir)
		if name == "t.arrows" {
			tab, err := Load(filepath.Join(dir, "t.arrow"), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, name)
			if err := Write(p, tab, FormatAuto); err != nil {
				t.Fatal(err)
			}
			if src, err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, "flip_"+name)
		for i := range src {
			// One bit of each byte, a different one from byte to byte, keeps the test
			// short; the corrupt lengths are tested directly above and below.
			for bit := i % 8; bit == i%8; bit++ {
				b := append([]byte(nil), src...)
				b[i] ^= 1 << bit
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				checkErr := checkIPCSchema(f, int64(len(b)))
				f.Close()
				_, loadErr := Load(p, LoadOptions{Missing: MissingKeep})
				if checkErr != nil && loadErr == nil {
					t.Errorf("%s byte %d bit %d: the check refuses a readable file: %v", name, i, bit, checkErr)
				}
			}
		}
	}
}

// TestIPCCompressedCorruptSize: a compressed buffer announces its uncompressed size in its
// first eight bytes, and arrow-go allocates that much before decompressing: a corrupt
// size of 2^62 bytes was a fatal "C malloc failed". The buffer of x = 1, 2, 3 (24 bytes)
// is found as the little-endian 24 right before ZSTD's frame magic.
func TestIPCCompressedCorruptSize(t *testing.T) {
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
	bld := array.NewFloat64Builder(memory.DefaultAllocator)
	bld.AppendValues([]float64{1, 2, 3}, nil)
	col := bld.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	p := filepath.Join(dir, "z.arrow")
	writeIPCFile(t, p, rec, ipc.WithZstd())
	if tab, err := Load(p, LoadOptions{}); err != nil || !slices.Equal(tab.Column("x").Values, []float64{1, 2, 3}) {
		t.Fatalf("the compressed file reads as %v, %v", tab, err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	marker := binary.LittleEndian.AppendUint64(nil, 24)
	marker = append(marker, 0x28, 0xb5, 0x2f, 0xfd)
	i := bytes.Index(b, marker)
	if i < 0 {
		t.Fatal("no ZSTD buffer of 24 bytes in the file")
	}
	binary.LittleEndian.PutUint64(b[i:], 1<<62)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, LoadOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load: %v, want ErrCorrupt", err)
	}
}

// TestIPCLargeBatch: arrow-go refuses a record batch whose body is over 256 MiB unless
// told otherwise, so an Arrow file of one batch of 33.6 million values (as pyarrow writes
// a table without chunking) read as "corrupt"; the bound is now the file's own size.
func TestIPCLargeBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 256 MiB file")
	}
	const n = 256<<20/8 + 1
	values := make([]float64, n)
	for i := range values {
		values[i] = float64(i % 1000)
	}
	data := array.NewData(arrow.PrimitiveTypes.Float64, n,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(values))}, nil, 0, 0)
	col := array.NewFloat64Data(data)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, n)
	p := filepath.Join(t.TempDir(), "big.arrow")
	writeIPCFile(t, p, rec)
	tab, err := Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := tab.Column("x").Values
	if len(got) != n || got[n-1] != float64((n-1)%1000) || got[999] != 999 {
		t.Fatalf("%d values, last %v, want %d values", len(got), got[len(got)-1], n)
	}
}
