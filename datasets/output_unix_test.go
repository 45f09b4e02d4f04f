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
