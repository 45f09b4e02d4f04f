package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The Arrow IPC reader trusts the lengths in a file's flatbuffer metadata: a schema whose
// field count or metadata count is corrupt makes it allocate that many entries before it
// reads any of them, and a bit flip can ask for a hundred gigabytes, which the Go runtime
// cannot recover from. checkIPCSchema walks the schema's flatbuffer first, checking every
// offset, table and vector against the bytes that hold it, so that such a file is an
// error. Layouts: Arrow's format/File.fbs, Message.fbs and Schema.fbs; the flatbuffer
// encoding (offsets, vtables, vectors): the FlatBuffers internals documentation.

// maxIPCMetadata bounds the flatbuffer metadata read for the check (a schema of a million
// columns takes well under this).
const maxIPCMetadata = 1 << 30

// maxSchemaDepth bounds the nesting of child fields (lists of structs of lists ...).
const maxSchemaDepth = 64

// errIPCMetadata is a flatbuffer whose offsets or lengths point outside its bytes.
var errIPCMetadata = errors.New("corrupt Arrow IPC metadata")

// checkIPCSchema checks the schema of the Arrow IPC file (footer) or stream (first
// message) f of size bytes. It returns nil for a file that is neither, leaving that
// verdict to the reader.
func checkIPCSchema(f *os.File, size int64) error {
	head := make([]byte, 8)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil
	}
	if string(head[:6]) == "ARROW1" {
		return checkIPCFooter(f, size)
	}
	// A stream message: 0xFFFFFFFF then the metadata length, or (before format 0.15) the
	// length alone.
	offset, length := int64(8), int64(int32(binary.LittleEndian.Uint32(head[4:])))
	if binary.LittleEndian.Uint32(head) != 0xFFFFFFFF {
		offset, length = 4, int64(int32(binary.LittleEndian.Uint32(head)))
	}
	buf, err := readMetadata(f, offset, length, size)
	if err != nil {
		return err
	}
	msg, err := rootTable(buf)
	if err != nil {
		return err
	}
	const schemaHeader = 1 // MessageHeader.Schema
	if t, ok := msg.scalar(1, 1); !ok || t != schemaHeader {
		return nil // not a schema first: the reader says what is wrong
	}
	schema, ok, err := msg.table(2)
	if err != nil || !ok {
		return err
	}
	return checkSchema(schema)
}

// checkIPCFooter checks the footer of the IPC file format: the file ends with the
// footer's flatbuffer, its length (int32) and "ARROW1".
func checkIPCFooter(f *os.File, size int64) error {
	if size < 16 {
		return nil
	}
	tail := make([]byte, 10)
	if _, err := f.ReadAt(tail, size-10); err != nil || string(tail[4:]) != "ARROW1" {
		return nil
	}
	length := int64(int32(binary.LittleEndian.Uint32(tail)))
	buf, err := readMetadata(f, size-10-length, length, size)
	if err != nil {
		return err
	}
	footer, err := rootTable(buf)
	if err != nil {
		return err
	}
	schema, ok, err := footer.table(1)
	if err != nil || !ok {
		return err
	}
	if err := checkSchema(schema); err != nil {
		return err
	}
	// The dictionary and record-batch blocks are 24-byte structs.
	for _, field := range []int{2, 3} {
		if _, _, err := footer.vector(field, 24); err != nil {
			return err
		}
	}
	return nil
}

// readMetadata reads length bytes of flatbuffer metadata at offset, checking that they
// lie inside the file.
func readMetadata(f *os.File, offset, length, size int64) ([]byte, error) {
	if length < 4 || length > maxIPCMetadata || offset < 0 || offset+length > size {
		return nil, fmt.Errorf("%w: metadata of %d bytes at offset %d in a file of %d bytes", errIPCMetadata, length, offset, size)
	}
	buf := make([]byte, length)
	if _, err := f.ReadAt(buf, offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf, nil
}

// checkSchema checks a Schema table: its fields (recursively), custom metadata and
// features.
func checkSchema(schema fbTable) error {
	if err := checkFields(schema, 1, 0); err != nil {
		return err
	}
	if err := checkKeyValues(schema, 2); err != nil {
		return err
	}
	_, _, err := schema.vector(3, 8)
	return err
}

// checkFields checks the vector of Field tables at field index of t, and each field's
// name, type, dictionary encoding, children and custom metadata.
func checkFields(t fbTable, index, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("%w: fields nested more than %d deep", errIPCMetadata, maxSchemaDepth)
	}
	start, n, err := t.vector(index, 4)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		field, err := t.buf.tableAt(start + 4*k)
		if err != nil {
			return err
		}
		if _, _, err := field.vector(0, 1); err != nil { // name
			return err
		}
		if err := checkType(field); err != nil {
			return err
		}
		if dict, ok, err := field.table(4); err != nil {
			return err
		} else if ok {
			if _, _, err := dict.table(1); err != nil { // index type
				return err
			}
		}
		if err := checkFields(field, 5, depth+1); err != nil {
			return err
		}
		if err := checkKeyValues(field, 6); err != nil {
			return err
		}
	}
	return nil
}

// checkType checks a Field's type table and the vectors some types hold: a Timestamp's
// time zone (Type 10, field 1) and a Union's type ids (Type 14, field 1).
func checkType(field fbTable) error {
	typ, ok, err := field.table(3)
	if err != nil || !ok {
		return err
	}
	kind, _ := field.scalar(2, 1)
	switch kind {
	case 10:
		_, _, err = typ.vector(1, 1)
	case 14:
		_, _, err = typ.vector(1, 4)
	}
	return err
}

// checkKeyValues checks a vector of KeyValue tables (two strings each).
func checkKeyValues(t fbTable, index int) error {
	start, n, err := t.vector(index, 4)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		kv, err := t.buf.tableAt(start + 4*k)
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

// rootTable returns the root table of buf (its first uoffset).
func rootTable(buf []byte) (fbTable, error) {
	return fbBuf(buf).tableAt(0)
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

// scalar returns the unsigned scalar of width bytes (1, 2 or 4) of field index.
func (t fbTable) scalar(index, width int) (uint32, bool) {
	pos, ok, err := t.field(index)
	if !ok || err != nil || pos+width > len(t.buf) {
		return 0, false
	}
	switch width {
	case 1:
		return uint32(t.buf[pos]), true
	case 2:
		v, _ := t.buf.u16(pos)
		return uint32(v), true
	}
	return t.buf.u32(pos)
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

// ipcAllocLimit is the largest single buffer reading an Arrow IPC file of size bytes may
// allocate. Uncompressed buffers are slices of the file; only compressed ones (LZ4, ZSTD)
// are allocated, at the size their first eight bytes announce, so a corrupt size there
// asks for anything up to 2^63 bytes. A real buffer decompresses to at most about a
// thousand times its size (LZ4's ratio is below 255; ZSTD's on a constant column far
// higher, hence the 1 GiB floor).
func ipcAllocLimit(size int64) int64 { return max(1<<30, 1024*size) }

// cappedAllocator passes allocations to an Allocator up to a limit and panics with an
// error beyond it; the IPC reader's caller recovers the panic as a corrupt file.
type cappedAllocator struct {
	memory.Allocator
	limit int64
}

func (a cappedAllocator) check(size int) {
	if int64(size) > a.limit {
		panic(fmt.Errorf("%w: a buffer of %d bytes (more than %d)", errIPCMetadata, size, a.limit))
	}
}

func (a cappedAllocator) Allocate(size int) []byte {
	a.check(size)
	return a.Allocator.Allocate(size)
}

func (a cappedAllocator) Reallocate(size int, b []byte) []byte {
	a.check(size)
	return a.Allocator.Reallocate(size, b)
}
