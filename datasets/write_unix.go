//go:build unix

package datasets

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// writeDescriptor lets write fill descriptor fd through a duplicate, which shares its
// offset and flags (>> appends), and closes only the duplicate.
func writeDescriptor(fd int, path string, write func(*os.File) error) error {
	dup, err := syscall.Dup(fd)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeClose(os.NewFile(uintptr(dup), path), path, write)
}

// CheckDescriptor reports whether descriptor fd is open for writing: a command given
// /dev/stdout checks it before its work, not when it writes its results (a closed or
// read-only descriptor then ended as an internal error).
func CheckDescriptor(fd int) error {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("descriptor %d: %w", fd, err)
	}
	if flags&unix.O_ACCMODE == unix.O_RDONLY {
		return fmt.Errorf("descriptor %d is open for reading only", fd)
	}
	return nil
}
