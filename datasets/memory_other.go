//go:build !linux

package datasets

// physicalMemory is the machine's physical memory in bytes (0: unknown on this system).
func physicalMemory() int64 { return 0 }
