//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// lockOutDir takes an exclusive lock on the audit's --out directory for the run, so that
// two audits writing there at once are refused instead of leaving a report.json of one
// file beside a report.html of the other. flock on the directory itself leaves no file
// behind and is released by the system if the process dies.
func lockOutDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, usagef("--out %s: another reid audit is writing there: give each run its own --out", dir)
		}
		return func() {}, nil // a file system without locks: run unguarded, as before
	}
	return func() { f.Close() }, nil // closing releases the lock
}
