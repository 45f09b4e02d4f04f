package datasets

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
// slots 6 and 6 in Arrow's File.fbs and Schema.fbs), independently of checkIPCMetadata.
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
				_, checkErr := checkIPCMetadata(f, int64(len(b)))
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

// batchMessage returns the flatbuffer of the first record batch's message of the IPC
// file b (a slice of b), found through the footer's first record-batch block with the
// FlatBuffers library (Footer.recordBatches is field 3; a Block is offset int64,
// metadata length int32, body length int64; the metadata starts after the 8-byte
// continuation marker and length).
func batchMessage(t *testing.T, b []byte) []byte {
	t.Helper()
	footerLen := int(binary.LittleEndian.Uint32(b[len(b)-10:]))
	footer := b[len(b)-10-footerLen : len(b)-10]
	root := &flatbuffers.Table{Bytes: footer, Pos: flatbuffers.GetUOffsetT(footer)}
	o := root.Offset(10)
	if o == 0 || root.VectorLen(flatbuffers.UOffsetT(o)) == 0 {
		t.Fatal("no record batch block")
	}
	blk := footer[root.Vector(flatbuffers.UOffsetT(o)):]
	offset := int64(binary.LittleEndian.Uint64(blk))
	metaLen := int64(int32(binary.LittleEndian.Uint32(blk[8:])))
	return b[offset+8 : offset+metaLen]
}

// slot returns the position in t's bytes of the value of field index (vtable slot
// 4 + 2·index), failing the test when the field is absent.
func slot(t *testing.T, tab *flatbuffers.Table, index int) flatbuffers.UOffsetT {
	t.Helper()
	o := tab.Offset(flatbuffers.VOffsetT(4 + 2*index))
	if o == 0 {
		t.Fatalf("field %d absent", index)
	}
	return tab.Pos + flatbuffers.UOffsetT(o)
}

// TestIPCCorruptBatches: lengths in a record batch's message that arrow-go allocates by
// before reading (its custom metadata count, a string-view column's variadic buffer
// count) or that reid reserved rows by (the batch's length), set to huge values in an
// otherwise valid file: each was a fatal out-of-memory; each is a corrupt-file error.
// Message.fbs: Message{version, header_type, header, bodyLength, custom_metadata},
// RecordBatch{length, nodes, buffers, compression, variadicBufferCounts}.
func TestIPCCorruptBatches(t *testing.T) {
	float64Batch := func() arrow.RecordBatch {
		bld := array.NewFloat64Builder(memory.DefaultAllocator)
		bld.AppendValues([]float64{1, 2, 3}, nil)
		schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
		return array.NewRecordBatchWithMetadata(schema, []arrow.Array{bld.NewArray()}, 3, arrow.NewMetadata([]string{"k"}, []string{"v"}))
	}
	viewBatch := func() arrow.RecordBatch {
		bld := array.NewStringViewBuilder(memory.DefaultAllocator)
		for i := range 4 {
			bld.Append(strings.Repeat("a label longer than twelve bytes ", i+1))
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.StringView}}, nil)
		return array.NewRecordBatch(schema, []arrow.Array{bld.NewArray()}, 4)
	}
	cases := []struct {
		name    string
		batch   func() arrow.RecordBatch
		corrupt func(t *testing.T, msg []byte)
	}{
		{"custom metadata count", float64Batch, func(t *testing.T, msg []byte) {
			root := &flatbuffers.Table{Bytes: msg, Pos: flatbuffers.GetUOffsetT(msg)}
			at := slot(t, root, 4)
			at += flatbuffers.GetUOffsetT(msg[at:])
			binary.LittleEndian.PutUint32(msg[at:], 0x7ffffff0)
		}},
		{"variadic buffer count", viewBatch, func(t *testing.T, msg []byte) {
			root := &flatbuffers.Table{Bytes: msg, Pos: flatbuffers.GetUOffsetT(msg)}
			rb := &flatbuffers.Table{Bytes: msg, Pos: root.Indirect(slot(t, root, 2))}
			at := slot(t, rb, 4)
			at += flatbuffers.GetUOffsetT(msg[at:])
			binary.LittleEndian.PutUint64(msg[at+4:], 1<<40)
		}},
		{"variadic counts fewer than the view arrays", viewBatch, func(t *testing.T, msg []byte) {
			// The reader takes one count per view array whatever the vector's length: an
			// empty vector followed by 2^40 asks for 2^40 buffers.
			root := &flatbuffers.Table{Bytes: msg, Pos: flatbuffers.GetUOffsetT(msg)}
			rb := &flatbuffers.Table{Bytes: msg, Pos: root.Indirect(slot(t, root, 2))}
			at := slot(t, rb, 4)
			at += flatbuffers.GetUOffsetT(msg[at:])
			binary.LittleEndian.PutUint32(msg[at:], 0)
			binary.LittleEndian.PutUint64(msg[at+4:], 1<<40)
		}},
		{"batch length", func() arrow.RecordBatch {
			bld := array.NewBooleanBuilder(memory.DefaultAllocator)
			for i := range 64 {
				bld.Append(i%3 == 0)
			}
			schema := arrow.NewSchema([]arrow.Field{{Name: "flag", Type: arrow.FixedWidthTypes.Boolean}}, nil)
			return array.NewRecordBatch(schema, []arrow.Array{bld.NewArray()}, 64)
		}, func(t *testing.T, msg []byte) {
			root := &flatbuffers.Table{Bytes: msg, Pos: flatbuffers.GetUOffsetT(msg)}
			rb := &flatbuffers.Table{Bytes: msg, Pos: root.Indirect(slot(t, root, 2))}
			binary.LittleEndian.PutUint64(msg[slot(t, rb, 0):], 1<<40) // the batch's length
			at := slot(t, rb, 1)
			at += flatbuffers.GetUOffsetT(msg[at:])
			binary.LittleEndian.PutUint64(msg[at+4:], 1<<40) // the column's node length
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.arrow")
			writeIPCFile(t, p, tc.batch())
			if _, err := Load(p, LoadOptions{}); err != nil {
				t.Fatalf("the valid file: %v", err)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			tc.corrupt(t, batchMessage(t, b))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(p, LoadOptions{}); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Load: %v, want ErrCorrupt", err)
			}
		})
	}
}

// sharedFieldStream is an IPC stream whose schema has one field, a struct of depth
// levels, each level's two children one and the same Field table: 2^depth fields for a
// reader that expands them, in a few hundred bytes. Built with the FlatBuffers builder
// (Schema.fbs: Field{name, nullable, type_type, type, dictionary, children}, Type Int = 2,
// Struct_ = 13; Message.fbs: header type Schema = 1, version V5 = 4).
func sharedFieldStream(depth int) []byte {
	b := flatbuffers.NewBuilder(1024)
	field := func(name string, typeType byte, typ, children flatbuffers.UOffsetT) flatbuffers.UOffsetT {
		nm := b.CreateString(name)
		b.StartObject(7)
		b.PrependUOffsetTSlot(0, nm, 0)
		b.PrependBoolSlot(1, true, false)
		b.PrependByteSlot(2, typeType, 0)
		b.PrependUOffsetTSlot(3, typ, 0)
		if children != 0 {
			b.PrependUOffsetTSlot(5, children, 0)
		}
		return b.EndObject()
	}
	vector := func(elems ...flatbuffers.UOffsetT) flatbuffers.UOffsetT {
		b.StartVector(4, len(elems), 4)
		for _, e := range elems {
			b.PrependUOffsetT(e)
		}
		return b.EndVector(len(elems))
	}
	b.StartObject(2) // Int{bitWidth 32, is_signed}
	b.PrependInt32Slot(0, 32, 0)
	b.PrependBoolSlot(1, true, false)
	f := field("x", 2, b.EndObject(), 0)
	for range depth {
		b.StartObject(0)
		f = field("s", 13, b.EndObject(), vector(f, f))
	}
	fields := vector(f)
	b.StartObject(4)
	b.PrependUOffsetTSlot(1, fields, 0)
	schema := b.EndObject()
	b.StartObject(5)
	b.PrependInt16Slot(0, 4, 0)
	b.PrependByteSlot(1, 1, 0)
	b.PrependUOffsetTSlot(2, schema, 0)
	b.Finish(b.EndObject())
	meta := b.FinishedBytes()
	for len(meta)%8 != 0 {
		meta = append(meta, 0)
	}
	out := binary.LittleEndian.AppendUint32(nil, 0xFFFFFFFF)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(meta)))
	out = append(out, meta...)
	return binary.LittleEndian.AppendUint64(out, 0xFFFFFFFF) // end of stream
}

// TestIPCSharedFields: a schema of shared Field tables took the check exponential time
// (depth 40: minutes) and arrow-go exponential memory (depth 24: 2^24 fields, a fatal
// out-of-memory); the check counts the tables it visits against the bytes that could
// hold them. At depth 3 the schema is one a tree could spell out: it reads.
func TestIPCSharedFields(t *testing.T) {
	dir := t.TempDir()
	for _, depth := range []int{3, 24, 40} {
		p := filepath.Join(dir, fmt.Sprintf("dag%d.arrows", depth))
		if err := os.WriteFile(p, sharedFieldStream(depth), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p, LoadOptions{})
		if depth == 3 && errors.Is(err, ErrCorrupt) && strings.Contains(err.Error(), "tables") {
			t.Errorf("depth 3: the check refuses it: %v", err)
		}
		if depth > 3 && !errors.Is(err, ErrCorrupt) {
			t.Errorf("depth %d: %v, want ErrCorrupt", depth, err)
		}
	}
}

// TestParquetCorruptStoredSchema: a Parquet file keeps its Arrow schema as a base64 IPC
// message under "ARROW:schema", which pqarrow reads through the IPC reader: a corrupt
// field count there was the same fatal out-of-memory as in an Arrow file (random
// mutations of a 5 KB Parquet file: 4 of 1,500). The message is found by decoding the
// value in the file's bytes; its field vector (Message.header is field 2, Schema.fields
// field 1) is located with the FlatBuffers library and re-encoded at the same length.
func TestParquetCorruptStoredSchema(t *testing.T) {
	dir := t.TempDir()
	tab := &Table{Source: "t", Columns: []Column{{Name: "x", Kind: Numeric, Values: []float64{1, 2, 3}}}}
	p := filepath.Join(dir, "t.parquet")
	if err := Write(p, tab, FormatAuto); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("ARROW:schema")
	k := bytes.Index(b, key)
	if k < 0 {
		t.Fatal("no stored Arrow schema")
	}
	// Thrift: the value follows as a binary field (its length as a varint after a field
	// header); take the longest run of base64 characters after the key.
	start := k + len(key)
	for start < len(b) && !isBase64(b[start]) {
		start++
	}
	end := start
	for end < len(b) && isBase64(b[end]) {
		end++
	}
	msg, err := base64.StdEncoding.DecodeString(string(b[start:end]))
	if err != nil {
		t.Fatalf("decoding the stored schema: %v", err)
	}
	fb := msg[8:] // after the continuation marker and the length
	root := &flatbuffers.Table{Bytes: fb, Pos: flatbuffers.GetUOffsetT(fb)}
	schema := &flatbuffers.Table{Bytes: fb, Pos: root.Indirect(slot(t, root, 2))}
	at := slot(t, schema, 1)
	at += flatbuffers.GetUOffsetT(fb[at:])
	if n := binary.LittleEndian.Uint32(fb[at:]); n != 1 {
		t.Fatalf("stored schema has %d fields, want 1", n)
	}
	binary.LittleEndian.PutUint32(fb[at:], 0x7ffffff0)
	copy(b[start:end], base64.StdEncoding.EncodeToString(msg))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, LoadOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load: %v, want ErrCorrupt", err)
	}
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
