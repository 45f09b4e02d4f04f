//go:build linux

package clp

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSilentByDefault checks that CLP writes nothing to standard output
// (file descriptor 1, which C code uses directly) at the default log level,
// including on errors.
func TestSilentByDefault(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := syscall.Dup(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup3(int(w.Fd()), 1, 0); err != nil {
		t.Fatal(err)
	}
	out := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		out <- b
	}()

	dir := t.TempDir()
	work := func() {
		m := lp1().model(t)
		m.Dual()
		m.Primal()
		m.InitialSolve()
		m.SetMaxIterations(1)
		m.SetColumnBounds(0, 0, 1)
		m.Dual()
		m.SetMaxIterations(-1)
		m.AddRow(5, inf, []int{0, 1}, []float64{1, 1})
		m.Dual()
		m.FarkasCertificate()
		path := filepath.Join(dir, "m.mps")
		m.WriteMPS(path)
		m.WriteMPS(filepath.Join(dir, "missing", "m.mps"))
		r := New()
		defer r.Close()
		r.ReadMPS(path)
		r.ReadMPS(filepath.Join(dir, "missing.mps"))
		bad := filepath.Join(dir, "bad.mps")
		os.WriteFile(bad, []byte("ROWS\n N obj\n L r0\nCOLUMNS\n x r0 1 r7 2\nENDATA\n"), 0o644)
		r.ReadMPS(bad)
		u := newLP([][]float64{{1, -1}}, nil, nil, []float64{-1, 0}, []float64{-inf}, []float64{1}).model(t)
		u.Dual()
		u.Primal()
		f := newLP([][]float64{{-1.1, 0, 0, 90}, {0, 0.09, 0.3, 2}},
			[]float64{-inf, 0, 0, -inf}, []float64{inf, inf, inf, inf}, nil,
			[]float64{0.13, -2}, []float64{2.51, -2}).model(t)
		f.Dual()
		f.FarkasCertificate()
	}
	work()

	flushCStdout()
	if err := syscall.Dup3(saved, 1, 0); err != nil {
		t.Fatal(err)
	}
	syscall.Close(saved)
	w.Close()
	if b := <-out; len(b) > 0 {
		t.Errorf("CLP printed to standard output:\n%s", b)
	}
}
