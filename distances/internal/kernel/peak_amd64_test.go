//go:build amd64 && !purego

package kernel

import (
	"sync"
	"testing"
	"time"
)

// measuredPeak is the measured throughput of zmm fused multiply-adds per nanosecond
// (fastest of several runs of fmaPeak), or 0 without AVX-512.
var measuredPeak = sync.OnceValue(func() float64 {
	if Implementation() != "avx512" {
		return 0
	}
	const iters = 1 << 20
	best := time.Duration(1 << 62)
	for range 7 {
		t := time.Now()
		fmaPeak(iters)
		best = min(best, time.Since(t))
	}
	return 24 * iters / float64(best.Nanoseconds())
})

// BenchmarkFMAPeak measures the zmm FMA throughput (fmaPeak: 24 independent
// register-only VFMADD231PD per iteration) and reports it as the clock at which 2
// FMA/cycle would give it, and as the ns/pair it would allow at d = 13 (13/8 zmm FMA per
// pair).
func BenchmarkFMAPeak(b *testing.B) {
	if Implementation() != "avx512" {
		b.Skip("no AVX-512")
	}
	const iters = 1 << 16
	for b.Loop() {
		fmaPeak(iters)
	}
	p := 24 * iters * float64(b.N) / float64(b.Elapsed().Nanoseconds()) // zmm FMA per ns
	b.ReportMetric(p/2, "GHz-equivalent")
	b.ReportMetric(13.0/8/p, "ns/pair@d=13")
}
