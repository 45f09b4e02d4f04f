package datasets

import "golang.org/x/sys/unix"

// memoryLimit is the memory the process can hope to allocate, in bytes (0 when unknown):
// the machine's physical memory, or half the address space a limit (ulimit -v) leaves,
// if less (the runtime, the heap and the mapped files take the rest). Beyond it an
// allocation can only end in the runtime's fatal out-of-memory.
func memoryLimit() int64 {
	var info unix.Sysinfo_t
	limit := int64(0)
	if unix.Sysinfo(&info) == nil {
		limit = int64(info.Totalram) * int64(info.Unit)
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &rl) == nil && rl.Cur != unix.RLIM_INFINITY {
		if half := int64(rl.Cur / 2); limit == 0 || half < limit {
			limit = half
		}
	}
	return limit
}
