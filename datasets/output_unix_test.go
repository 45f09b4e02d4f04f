//go:build unix

package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestOutputFormatOf: an output without an extension is CSV when it is a device or a named
// pipe (/dev/null here, a FIFO), an error otherwise (a regular file, a missing one); an
// extension decides as for FormatOf, whatever the file is.
func TestOutputFormatOf(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	regular := filepath.Join(dir, "plain")
	if err := os.WriteFile(regular, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A descriptor redirected to a regular file (reid mask --out /dev/stdout > x.csv).
	f, err := os.Create(filepath.Join(dir, "redirected"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	descriptor := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if _, err := os.Stat(descriptor); err != nil {
		descriptor = "/dev/null" // no /proc here: the case is the device's
	}
	for _, c := range []struct {
		path string
		want Format
		ok   bool
	}{
		{descriptor, FormatCSV, true},
		{"/dev/null", FormatCSV, true},
		{fifo, FormatCSV, true},
		{regular, FormatAuto, false},
		{filepath.Join(dir, "missing"), FormatAuto, false},
		{filepath.Join(dir, "x.parquet"), FormatParquet, true},
	} {
		got, err := OutputFormatOf(c.path)
		if (err == nil) != c.ok || got != c.want || (err != nil && !errors.Is(err, ErrUnknownFormat)) {
			t.Errorf("OutputFormatOf(%q) = %v, %v; want %v (ok %v)", c.path, got, err, c.want, c.ok)
		}
	}
}

// TestWriteAtomicDescriptor: a path that names a descriptor (/proc/self/fd/N, as
// /dev/stdout under "cmd >> log") is written through it, after what the file held: it was
// replaced through a temporary file, which erased the log.
func TestWriteAtomicDescriptor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("PREVIOUS\n"); err != nil {
		t.Fatal(err)
	}
	desc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if _, err := os.Stat(desc); err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if fd, ok := Descriptor(desc); !ok || fd != int(f.Fd()) {
		t.Fatalf("Descriptor(%q) = %d, %v", desc, fd, ok)
	}
	before, _ := os.Stat(path)
	if err := WriteAtomic(desc, func(w *os.File) error { _, err := w.WriteString("written\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("after\n"); err != nil { // the descriptor still works
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	after, _ := os.Stat(path)
	if err != nil || string(got) != "PREVIOUS\nwritten\nafter\n" || !os.SameFile(before, after) {
		t.Errorf("log holds %q (same file: %v), want PREVIOUS, written, after in the same file", got, os.SameFile(before, after))
	}
	for _, p := range []string{"/dev/stdout", "/dev/stderr", "/dev/fd/7"} {
		if _, ok := Descriptor(p); !ok {
			t.Errorf("Descriptor(%q): not a descriptor", p)
		}
	}
	for _, p := range []string{"/dev/null", "/dev/fd/x", "out.csv", "/proc/self/fd/"} {
		if _, ok := Descriptor(p); ok {
			t.Errorf("Descriptor(%q): a descriptor", p)
		}
	}
}
