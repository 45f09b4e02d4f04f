//go:build !linux

package datasets

// memoryLimit is the memory the process can hope to allocate (0: unknown on this system).
func memoryLimit() int64 { return 0 }
