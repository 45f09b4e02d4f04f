package datasets

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// The Arrow IPC reader trusts the lengths in a file's flatbuffer metadata: a schema whose
// field count or metadata count is corrupt, a batch whose custom metadata count or
// variadic buffer count is, makes it allocate that many entries before it reads any of
// them, and a bit flip can ask for a hundred gigabytes, which the Go runtime cannot
// recover from. checkIPCMetadata walks the flatbuffers of the schema and of every message
// first, checking every offset, table and vector against the bytes that hold it, so that
// such a file is an error. Layouts: Arrow's format/File.fbs, Message.fbs and Schema.fbs;
// the flatbuffer encoding (offsets, vtables, vectors): the FlatBuffers internals
// documentation.

// maxIPCMetadata bounds the flatbuffer metadata read for the check (a schema of a million
// columns takes well under this).
const maxIPCMetadata = 1 << 30

// maxSchemaDepth bounds the nesting of child fields (lists of structs of lists ...).
const maxSchemaDepth = 64

// errIPCMetadata is a flatbuffer whose offsets or lengths point outside its bytes.
var errIPCMetadata = errors.New("corrupt Arrow IPC metadata")

// checkIPCMetadata checks the metadata of the Arrow IPC file (footer, and the message of
// every block it lists) or stream (every message, in order) f of size bytes. It returns
// nil for a file that is neither, leaving that verdict to the reader. For the file
// format it also returns the number of rows its record batches' messages announce.
func checkIPCMetadata(f io.ReaderAt, size int64) (rows int, err error) {
	head := make([]byte, 8)
	if _, err := f.ReadAt(head, 0); err != nil {
		return 0, nil
	}
	if string(head[:6]) == "ARROW1" {
		return checkIPCFooter(f, size)
	}
	return 0, checkIPCStream(f, size)
}

// checkIPCStream checks the messages of a stream from its start until the end-of-stream
// marker, the end of the file, or a message the reader will find broken on its own (a
// length beyond the file).
func checkIPCStream(f io.ReaderAt, size int64) error {
	var views viewCounts
	for pos := int64(0); pos+4 <= size; {
		buf, next, err := readMessage(f, pos, size)
		if err != nil || buf == nil {
			return err
		}
		bodyLength, _, err := checkMessage(buf, &views)
		if err != nil {
			return err
		}
		if bodyLength < 0 || bodyLength > size-next {
			return nil // the reader reports the short body
		}
		pos = next + bodyLength
	}
	return nil
}

// readMessage reads the metadata of the message at pos: a 0xFFFFFFFF continuation
// marker and the length, or (before format 0.15) the length alone; nil at the
// end-of-stream marker. next is where the message's body starts.
func readMessage(f io.ReaderAt, pos, size int64) (buf []byte, next int64, err error) {
	prefix := make([]byte, 8)
	n, _ := f.ReadAt(prefix, pos)
	if n < 4 {
		return nil, 0, nil
	}
	offset, length := pos+4, int64(int32(binary.LittleEndian.Uint32(prefix)))
	if binary.LittleEndian.Uint32(prefix) == 0xFFFFFFFF {
		if n < 8 {
			return nil, 0, nil
		}
		offset, length = pos+8, int64(int32(binary.LittleEndian.Uint32(prefix[4:])))
	}
	if length == 0 {
		return nil, 0, nil
	}
	buf, err = readMetadata(f, offset, length, size)
	return buf, offset + length, err
}

// checkMessage checks a Message table (Message.fbs: version, header_type, header,
// bodyLength, custom_metadata): its custom metadata, and its header: the schema (the
// first only: views is filled from it) or a record batch or dictionary batch (their
// variadic counts against views). It returns the body's length and, for a record batch,
// its rows.
func checkMessage(buf []byte, views *viewCounts) (bodyLength int64, rows int, err error) {
	w := newFBWalk(buf)
	msg, err := w.root()
	if err != nil {
		return 0, 0, err
	}
	if err := w.keyValues(msg, 4); err != nil {
		return 0, 0, err
	}
	header, ok, err := w.table(msg, 2)
	if err != nil || !ok {
		return 0, 0, err
	}
	const schemaHeader, dictionaryHeader, recordBatchHeader = 1, 2, 3 // MessageHeader
	kind := msg.ubyte(1)
	switch {
	case kind == schemaHeader && views.dict == nil:
		if err = w.schema(header); err == nil {
			*views = w.views
		}
	case kind == dictionaryHeader:
		var data fbTable
		if data, ok, err = w.table(header, 1); err == nil && ok {
			err = w.recordBatch(data, views.dict[int64(header.scalar64(0))])
		}
	case kind == recordBatchHeader:
		if err = w.recordBatch(header, views.batch); err == nil {
			// A negative length is the reader's to refuse or mend; it counts as none.
			rows = int(min(max(int64(header.scalar64(0)), 0), math.MaxInt32))
		}
	}
	if err != nil {
		return 0, 0, err
	}
	return int64(msg.scalar64(3)), rows, nil
}

// checkIPCFooter checks the footer of the IPC file format (the file ends with the
// footer's flatbuffer, its length (int32) and "ARROW1") and the message of every
// dictionary and record-batch block it lists; it returns the record batches' rows.
func checkIPCFooter(f io.ReaderAt, size int64) (rows int, err error) {
	if size < 16 {
		return 0, nil
	}
	tail := make([]byte, 10)
	if _, err := f.ReadAt(tail, size-10); err != nil || string(tail[4:]) != "ARROW1" {
		return 0, nil
	}
	length := int64(int32(binary.LittleEndian.Uint32(tail)))
	buf, err := readMetadata(f, size-10-length, length, size)
	if err != nil {
		return 0, err
	}
	w := newFBWalk(buf)
	footer, err := w.root()
	if err != nil {
		return 0, err
	}
	schema, ok, err := w.table(footer, 1)
	if err != nil {
		return 0, err
	}
	if ok {
		if err := w.schema(schema); err != nil {
			return 0, err
		}
	}
	// The dictionary and record-batch blocks are 24-byte structs: offset (int64),
	// metadata length (int32, padded) and body length (int64).
	for _, field := range []int{2, 3} {
		start, n, err := footer.vector(field, 24)
		if err != nil {
			return 0, err
		}
		for k := 0; k < n; k++ {
			at := start + 24*k
			offset := int64(binary.LittleEndian.Uint64(buf[at:]))
			if offset < 0 || offset >= size {
				return 0, fmt.Errorf("%w: a block at offset %d in a file of %d bytes", errIPCMetadata, offset, size)
			}
			msg, _, err := readMessage(f, offset, size)
			if err != nil {
				return 0, err
			}
			if msg == nil {
				continue
			}
			_, batchRows, err := checkMessage(msg, &w.views)
			if err != nil {
				return 0, err
			}
			if field == 3 {
				rows = min(rows+batchRows, math.MaxInt32)
			}
		}
	}
	return rows, nil
}

// readMetadata reads length bytes of flatbuffer metadata at offset, checking that they
// lie inside the file.
func readMetadata(f io.ReaderAt, offset, length, size int64) ([]byte, error) {
	if length < 4 || length > maxIPCMetadata || offset < 0 || offset+length > size {
		return nil, fmt.Errorf("%w: metadata of %d bytes at offset %d in a file of %d bytes", errIPCMetadata, length, offset, size)
	}
	buf := make([]byte, length)
	if _, err := f.ReadAt(buf, offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf, nil
}

// viewCounts is what the messages' check needs from the schema: the number of view
// arrays (BinaryView, Utf8View) in a record batch and in each dictionary's batch, by
// dictionary id. The reader takes one variadic buffer count per view array from a batch,
// whatever the length of the batch's vector of counts.
type viewCounts struct {
	batch int
	dict  map[int64]int
}

// fbWalk checks the tables of one flatbuffer, counting them: a valid schema is a tree,
// each of whose tables takes a 4-byte offset of its own, so a walk that visits more
// tables than len(buf)/4 has met shared tables (a corrupt buffer can make a field its
// own descendant many times over, which the reader would expand exponentially).
type fbWalk struct {
	buf    fbBuf
	budget int
	views  viewCounts // counted by schema
}

func newFBWalk(buf []byte) *fbWalk { return &fbWalk{buf: buf, budget: len(buf) / 4} }

func (w *fbWalk) visit() error {
	if w.budget--; w.budget < 0 {
		return fmt.Errorf("%w: more tables than its %d bytes can hold", errIPCMetadata, len(w.buf))
	}
	return nil
}

func (w *fbWalk) root() (fbTable, error) {
	if err := w.visit(); err != nil {
		return fbTable{}, err
	}
	return w.buf.tableAt(0)
}

// table returns the table of field index of t, counted.
func (w *fbWalk) table(t fbTable, index int) (fbTable, bool, error) {
	sub, ok, err := t.table(index)
	if err == nil && ok {
		err = w.visit()
	}
	return sub, ok, err
}

// elem returns the table of entry k of a vector of tables starting at start, counted.
func (w *fbWalk) elem(start, k int) (fbTable, error) {
	if err := w.visit(); err != nil {
		return fbTable{}, err
	}
	return w.buf.tableAt(start + 4*k)
}

// schema checks a Schema table: its fields (recursively), custom metadata and
// features; it counts the view arrays into w.views.
func (w *fbWalk) schema(schema fbTable) error {
	w.views = viewCounts{dict: map[int64]int{}}
	views, err := w.fields(schema, 1, 0)
	if err != nil {
		return err
	}
	w.views.batch = views
	if err := w.keyValues(schema, 2); err != nil {
		return err
	}
	_, _, err = schema.vector(3, 8)
	return err
}

// fields checks the vector of Field tables at field index of t, and each field's name,
// type, dictionary encoding, children and custom metadata. It returns the number of
// view arrays the fields make in a record batch; a dictionary-encoded field's (its
// values, in its dictionary's batches) go to w.views.dict under its dictionary id.
func (w *fbWalk) fields(t fbTable, index, depth int) (views int, err error) {
	if depth > maxSchemaDepth {
		return 0, fmt.Errorf("%w: fields nested more than %d deep", errIPCMetadata, maxSchemaDepth)
	}
	start, n, err := t.vector(index, 4)
	if err != nil {
		return 0, err
	}
	for k := 0; k < n; k++ {
		field, err := w.elem(start, k)
		if err != nil {
			return 0, err
		}
		if _, _, err := field.vector(0, 1); err != nil { // name
			return 0, err
		}
		kind := field.ubyte(2) // type_type
		if err := w.fieldType(field, kind); err != nil {
			return 0, err
		}
		own := 0
		if kind == 23 || kind == 24 { // BinaryView, Utf8View
			own = 1
		}
		children, err := w.fields(field, 5, depth+1)
		if err != nil {
			return 0, err
		}
		own += children
		dict, ok, err := w.table(field, 4)
		if err != nil {
			return 0, err
		}
		if ok {
			if _, _, err := w.table(dict, 1); err != nil { // index type
				return 0, err
			}
			w.views.dict[int64(dict.scalar64(0))] = own // the indices in the batch make no views
		} else {
			views += own
		}
		if err := w.keyValues(field, 6); err != nil {
			return 0, err
		}
	}
	return views, nil
}

// fieldType checks a Field's type table and the vectors some types hold: a Timestamp's
// time zone (Type 10, field 1) and a Union's type ids (Type 14, field 1).
func (w *fbWalk) fieldType(field fbTable, kind byte) error {
	typ, ok, err := w.table(field, 3)
	if err != nil || !ok {
		return err
	}
	switch kind {
	case 10:
		_, _, err = typ.vector(1, 1)
	case 14:
		_, _, err = typ.vector(1, 4)
	}
	return err
}

// keyValues checks a vector of KeyValue tables (two strings each).
func (w *fbWalk) keyValues(t fbTable, index int) error {
	start, n, err := t.vector(index, 4)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		kv, err := w.elem(start, k)
		if err != nil {
			return err
		}
		for f := 0; f < 2; f++ {
			if _, _, err := kv.vector(f, 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordBatch checks a RecordBatch table (Message.fbs: length, nodes, buffers,
// compression, variadicBufferCounts): its vectors of 16-byte FieldNode and Buffer
// structs, its compression table, that it has a variadic buffer count for each of its
// views arrays and that each count (int64) is at most the number of buffers, which the
// reader allocates that many of.
func (w *fbWalk) recordBatch(rb fbTable, views int) error {
	if _, _, err := rb.vector(1, 16); err != nil {
		return err
	}
	_, buffers, err := rb.vector(2, 16)
	if err != nil {
		return err
	}
	if _, _, err := w.table(rb, 3); err != nil {
		return err
	}
	start, n, err := rb.vector(4, 8)
	if err != nil {
		return err
	}
	if n < views {
		return fmt.Errorf("%w: %d variadic buffer counts for %d view arrays", errIPCMetadata, n, views)
	}
	for k := 0; k < n; k++ {
		count := int64(binary.LittleEndian.Uint64(w.buf[start+8*k:]))
		if count < 0 || count > int64(buffers) {
			return fmt.Errorf("%w: %d variadic buffers in a batch of %d buffers", errIPCMetadata, count, buffers)
		}
	}
	return nil
}

// fbBuf is a flatbuffer's bytes, read with bounds checks.
type fbBuf []byte

// u32 returns the little-endian uint32 at pos, or false when it is not inside b.
func (b fbBuf) u32(pos int) (uint32, bool) {
	if pos < 0 || pos > len(b)-4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[pos:]), true
}

func (b fbBuf) u16(pos int) (uint16, bool) {
	if pos < 0 || pos > len(b)-2 {
		return 0, false
	}
	return binary.LittleEndian.Uint16(b[pos:]), true
}

// fbTable is a flatbuffer table: its position and its vtable's.
type fbTable struct {
	buf            fbBuf
	pos, vtable    int
	vsize, tblsize int
}

func (b fbBuf) corrupt(what string, pos int) error {
	return fmt.Errorf("%w: %s at byte %d of %d", errIPCMetadata, what, pos, len(b))
}

// tableAt follows the uoffset at pos to a table and checks its vtable and extent.
func (b fbBuf) tableAt(pos int) (fbTable, error) {
	off, ok := b.u32(pos)
	if !ok || int64(pos)+int64(off) > int64(len(b)) {
		return fbTable{}, b.corrupt("table offset", pos)
	}
	at := pos + int(off)
	soff, ok := b.u32(at)
	if !ok {
		return fbTable{}, b.corrupt("table", at)
	}
	vt := int64(at) - int64(int32(soff))
	if vt < 0 || vt > int64(len(b))-4 {
		return fbTable{}, b.corrupt("vtable", at)
	}
	vsize, _ := b.u16(int(vt))
	tsize, _ := b.u16(int(vt) + 2)
	if vsize < 4 || vsize%2 != 0 || int(vt)+int(vsize) > len(b) || tsize < 4 || at+int(tsize) > len(b) {
		return fbTable{}, b.corrupt("vtable", int(vt))
	}
	return fbTable{buf: b, pos: at, vtable: int(vt), vsize: int(vsize), tblsize: int(tsize)}, nil
}

// field returns the position of field index's value, or false when it is absent.
func (t fbTable) field(index int) (int, bool, error) {
	slot := 4 + 2*index
	if slot+2 > t.vsize {
		return 0, false, nil
	}
	off, _ := t.buf.u16(t.vtable + slot)
	if off == 0 {
		return 0, false, nil
	}
	if int(off)+1 > t.tblsize {
		return 0, false, t.buf.corrupt("field offset", t.vtable+slot)
	}
	return t.pos + int(off), true, nil
}

// ubyte returns the 1-byte scalar of field index, 0 when absent (the default of the
// enums read with it).
func (t fbTable) ubyte(index int) byte {
	pos, ok, err := t.field(index)
	if !ok || err != nil || pos >= len(t.buf) {
		return 0
	}
	return t.buf[pos]
}

// scalar64 returns the 8-byte scalar of field index, 0 when absent.
func (t fbTable) scalar64(index int) uint64 {
	pos, ok, err := t.field(index)
	if !ok || err != nil || pos+8 > len(t.buf) {
		return 0
	}
	return binary.LittleEndian.Uint64(t.buf[pos:])
}

// table returns the table referenced by field index, or false when the field is absent.
func (t fbTable) table(index int) (fbTable, bool, error) {
	pos, ok, err := t.field(index)
	if !ok || err != nil {
		return fbTable{}, false, err
	}
	sub, err := t.buf.tableAt(pos)
	return sub, err == nil, err
}

// vector returns the start and length of the vector (or string) referenced by field
// index, whose elements take elem bytes each, checking that it lies inside the buffer;
// (0, 0) when the field is absent.
func (t fbTable) vector(index, elem int) (start, n int, err error) {
	pos, ok, err := t.field(index)
	if !ok || err != nil {
		return 0, 0, err
	}
	off, ok := t.buf.u32(pos)
	if !ok {
		return 0, 0, t.buf.corrupt("vector offset", pos)
	}
	at := int64(pos) + int64(off)
	length, ok := t.buf.u32(int(min(at, int64(len(t.buf)))))
	if !ok || at+4+int64(length)*int64(elem) > int64(len(t.buf)) {
		return 0, 0, t.buf.corrupt("vector length", pos)
	}
	return int(at) + 4, int(length), nil
}

// ipcAllocLimit is the most memory the buffers of an Arrow IPC read may hold at once: the
// memory the process can hope to allocate where it is known (memoryLimit; a request
// beyond it can only end in the runtime's fatal out-of-memory), else a thousand times the
// file and at least 1 GiB. Uncompressed buffers are slices of the file; compressed ones
// (LZ4, ZSTD) are allocated at the size their first eight bytes announce, which a
// corrupt file can set to anything up to 2^63, while a real one can decompress to tens of
// thousands of times its size (ZSTD on a constant column).
func ipcAllocLimit(size int64) int64 {
	if limit := memoryLimit(); limit > 0 {
		return limit
	}
	return max(1<<30, 1024*size)
}

// cappedAllocator passes allocations to an Allocator while the bytes it has handed out
// and not taken back stay within limit, and panics with an error beyond it; the IPC
// reader's caller recovers the panic as a corrupt file.
type cappedAllocator struct {
	memory.Allocator
	limit int64
	live  *atomic.Int64
}

func newCappedAllocator(mem memory.Allocator, limit int64) cappedAllocator {
	return cappedAllocator{mem, limit, new(atomic.Int64)}
}

func (a cappedAllocator) grow(by int64) {
	if live := a.live.Add(by); live > a.limit {
		a.live.Add(-by)
		panic(fmt.Errorf("%w: buffers of %d bytes in all (more than %d)", errIPCMetadata, live, a.limit))
	}
}

func (a cappedAllocator) Allocate(size int) []byte {
	a.grow(int64(size))
	return a.Allocator.Allocate(size)
}

func (a cappedAllocator) Reallocate(size int, b []byte) []byte {
	a.grow(int64(size - len(b)))
	return a.Allocator.Reallocate(size, b)
}

func (a cappedAllocator) Free(b []byte) {
	a.live.Add(-int64(len(b)))
	a.Allocator.Free(b)
}

// checkStoredArrowSchema checks the Arrow schema a Parquet file may store (base64, key
// "ARROW:schema", as pqarrow writes it and reads it back through the IPC reader) as an
// IPC stream: a corrupt one is the same unbounded allocation as in an Arrow file. What
// does not decode is left to pqarrow, as its decoding is (standard, then raw base64).
func checkStoredArrowSchema(pf *file.Reader) error {
	kv := pf.MetaData().KeyValueMetadata()
	if kv == nil {
		return nil
	}
	stored := kv.FindValue("ARROW:schema")
	if stored == nil {
		return nil
	}
	var decoded []byte
	var err error
	if len(*stored)%4 == 0 {
		decoded, err = base64.StdEncoding.DecodeString(*stored)
	}
	if len(decoded) == 0 || err != nil {
		if decoded, err = base64.RawStdEncoding.DecodeString(*stored); err != nil {
			return nil
		}
	}
	return checkIPCStream(bytes.NewReader(decoded), int64(len(decoded)))
}
