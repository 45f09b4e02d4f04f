//go:build unix

package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
	// A numbered descriptor of the process's own (a regular file here) is no output a
	// caller gave: it keeps FormatOf's verdict.
	f, err := os.Create(filepath.Join(dir, "own"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	own := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	for _, c := range []struct {
		path string
		want Format
		ok   bool
	}{
		{"/dev/stdout", FormatCSV, true},
		{own, FormatAuto, false},
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

// TestWriteAtomicDescriptor: /dev/stdout redirected to a regular file (cmd >> log) is
// written through the descriptor, after what the file held: it was replaced through a
// temporary file, which erased the log. Descriptors other than 1 and 2 are not taken.
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
	before, _ := os.Stat(path)
	// fd 1 becomes the log for the write (nothing is printed meanwhile), then is restored.
	saved, err := unix.Dup(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(int(f.Fd()), 1); err != nil {
		t.Fatal(err)
	}
	werr := WriteAtomic("/dev//stdout", func(w *os.File) error { _, err := w.WriteString("written\n"); return err })
	_, aerr := f.WriteString("after\n") // the descriptor still works
	if err := unix.Dup2(saved, 1); err != nil {
		t.Fatal(err)
	}
	unix.Close(saved)
	if werr != nil || aerr != nil {
		t.Fatal(werr, aerr)
	}
	got, err := os.ReadFile(path)
	after, _ := os.Stat(path)
	if err != nil || string(got) != "PREVIOUS\nwritten\nafter\n" || !os.SameFile(before, after) {
		t.Errorf("log holds %q (same file: %v), want PREVIOUS, written, after in the same file", got, os.SameFile(before, after))
	}
	for _, p := range []string{"/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/2", "/dev/./stdout"} {
		if _, ok := Descriptor(p); !ok {
			t.Errorf("Descriptor(%q): not a descriptor", p)
		}
	}
	for _, p := range []string{"/dev/null", "/dev/fd/5", "/proc/self/fd/3", "/dev/stdin", "/dev/fd/0", "out.csv"} {
		if _, ok := Descriptor(p); ok {
			t.Errorf("Descriptor(%q): a descriptor", p)
		}
	}
}

// TestLoadNamedPipe: a named pipe as an input is refused as no regular file, at once
// whether or not a writer has opened it (a pipe's open waits for one); it was called an
// empty file and its writer got SIGPIPE.
func TestLoadNamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe.csv")
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Load(p, LoadOptions{})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		// Opened before the check: the open waits for a writer. Be one, so the test ends.
		if w, werr := os.OpenFile(p, os.O_WRONLY, 0); werr == nil {
			w.Close()
		}
		err = <-done
		t.Errorf("Load waited for a writer on the pipe (then: %v)", err)
	}
	if !errors.Is(err, ErrNotRegular) || err.Error() != p+": "+ErrNotRegular.Error() {
		t.Errorf("err = %v, want %s: %v", err, p, ErrNotRegular)
	}
}
