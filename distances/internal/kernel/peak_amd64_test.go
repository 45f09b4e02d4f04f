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

// BenchmarkOWAPeak runs the OWA kernel at d = 13 on one core and minMaxPeak in turn, and
// reports the kernel's ns/pair, the ceiling the measured zmm rate allows and their ratio.
// Per 8 pairs the kernel issues 13 subtractions, 13 squares, 2·48 comparators (Batcher's
// network on 13 inputs), 13 products and 13 additions: 148 zmm operations, taken as
// costing what the register-only VMAXPD/VMINPD cost (the loads and stores to L1 it also
// does are not counted, so the ceiling is optimistic).
func BenchmarkOWAPeak(b *testing.B) {
	f := acceleratedOWA()
	if f == nil {
		b.Skip("no AVX-512")
	}
	const m, n, iters = 13, 1024, 1 << 14
	q, w, r := make([]float64, m), make([]float64, m), make([]float64, m*n)
	for k := range m {
		q[k], w[k] = float64(k%5)/3, 1.0/m
		for j := range n {
			r[k*n+j] = float64((j*7+k*3)%11) / 5
		}
	}
	net := SortingNetwork(m)
	ops := float64(4*m + len(net)) // len(net) = 2 × comparators
	out := make([]float64, n)
	var kernel, peak time.Duration
	for b.Loop() {
		t := time.Now()
		for range 16 {
			f(out, q, w, net, r, n, n)
		}
		kernel += time.Since(t)
		t = time.Now()
		minMaxPeak(iters)
		peak += time.Since(t)
	}
	perPair := float64(kernel.Nanoseconds()) / float64(16*n*b.N)
	rate := 24 * iters * float64(b.N) / float64(peak.Nanoseconds()) // zmm max/min per ns
	ceiling := ops / 8 / rate
	b.ReportMetric(perPair, "ns/pair")
	b.ReportMetric(ceiling, "ceiling-ns/pair")
	b.ReportMetric(ceiling/perPair, "of-ceiling")
}
