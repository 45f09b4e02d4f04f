package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the calling process's peak resident set in bytes (VmHWM of
// /proc/self/status), or −1 where that file does not exist.
func PeakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return -1
}
