//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestAuditOutDirLocked: while another process holds the --out directory (an audit
// writing there), an audit into it is refused before any work and leaves the directory
// as it was; once released, it runs.
func TestAuditOutDirLocked(t *testing.T) {
	orig, _, swap := fixture(t)
	out := t.TempDir()
	marker := filepath.Join(out, "report.json")
	if err := os.WriteFile(marker, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	// A second open file description, as another process has: flock locks conflict
	// between descriptions, even in one process.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Skipf("no flock here: %v", err)
	}
	args := []string{"audit", "--records", "40", "--work-limit", "0.1", "--out", out, orig, swap}
	code, _, stderr := runReid(t, args...)
	expectInputError(t, code, stderr, "another reid audit is writing there")
	if b, err := os.ReadFile(marker); err != nil || string(b) != "{}" {
		t.Errorf("the locked directory's report.json was touched: %v", err)
	}
	f.Close()
	if code, _, stderr := runReid(t, args...); code != exitOK {
		t.Errorf("after the lock: exit %d: %s", code, stderr)
	}
}
