//go:build unix

package datasets

import (
	"fmt"
	"os"
	"syscall"
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
