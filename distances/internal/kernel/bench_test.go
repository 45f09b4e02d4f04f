package kernel

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// clockGHz is the clock assumed for the fraction of the FMA limit: the first "cpu MHz"
// of /proc/cpuinfo (2.0 GHz on the reference machine, which may turbo above it), or
// 2.0 GHz when that cannot be read.
var clockGHz = sync.OnceValue(func() float64 {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return 2.0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, val, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(name) == "cpu MHz" {
			if mhz, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil && mhz > 0 {
				return mhz / 1000
			}
		}
	}
	return 2.0
})

// BenchmarkSquaredExpanded reports ns/pair and the fraction of the FMA limit: d fused
// multiply-adds per pair at 2 FMA/cycle × 8 doubles, i.e. d/16 cycles per pair at
// clockGHz.
func BenchmarkSquaredExpanded(b *testing.B) {
	impls := implementations()
	type size struct{ d, nq, n, stride int }
	l2 := size{13, 8, 2048, 2056} // the realistic block: 13×2056×8 B = 214 KB of references (L2)
	sizes := []size{
		l2,
		{13, 8, 256, 264},    // 27 KB of references: L1
		{13, 8, 2048, 2048},  // rows exactly 16 KiB apart (see Stride)
		{13, 32, 2048, 2056}, // more query blocks per reference tile
		{13, 32, 2048, 2048},
		{13, 4, 2048, 2056}, // a single small query block
		{5, 8, 2048, 2056},
		{20, 8, 2048, 2056},
	}
	for _, im := range impls {
		for _, sz := range sizes {
			d := sz.d
			name := fmt.Sprintf("%s/d=%d/nq=%d/n=%d/stride=%d", im.name, d, sz.nq, sz.n, sz.stride)
			if im.name == "generic" && sz != l2 && sz != sizes[1] {
				continue // slow; the other shapes tell nothing new about it
			}
			b.Run(name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				qs, rs := datasets[0].gen(rng, d, sz.nq, sz.n)
				blk := newBlock(qs, rs, d, sz.stride, 0)
				out := make([]float64, sz.nq*sz.stride)
				for b.Loop() {
					im.fn(out, sz.stride, blk.q, blk.qn, sz.nq, d, blk.r, blk.rn, sz.stride, sz.n)
				}
				nsPair := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(sz.nq*sz.n)
				limit := float64(d) / 16 / clockGHz()
				b.ReportMetric(nsPair, "ns/pair")
				b.ReportMetric(100*limit/nsPair, "%FMA@"+strconv.FormatFloat(clockGHz(), 'f', 1, 64)+"GHz")
				if p := measuredPeak(); p > 0 {
					// d FMAs per pair, 8 pairs per zmm FMA, p zmm FMA per ns.
					b.ReportMetric(100*float64(d)/8/p/nsPair, "%measured-peak")
				}
			})
		}
	}
}

// BenchmarkSearchPattern runs the kernels the way the scanner of package distances does:
// one block of nq queries against all of n references (column-major with a Stride), in
// reference blocks of blk, the filtered kernel with limits that keep nothing (the usual
// case once a query's nearest neighbour has been seen).
func BenchmarkSearchPattern(b *testing.B) {
	const d, n = 13, 20000
	rng := rand.New(rand.NewPCG(2, 2))
	for _, sz := range []struct{ nq, blk int }{{64, 504}, {128, 504}, {64, 1008}, {64, 1536}} {
		qs, rs := datasets[0].gen(rng, d, sz.nq, n)
		all := newBlock(qs, rs, d, Stride(n), 0)
		out := make([]float64, sz.nq*Pad(sz.blk))
		lim := make([]float64, sz.nq)
		for i := range lim {
			lim[i] = RowLimit(all.qn[i], -1)
		}
		for _, filtered := range []bool{false, true} {
			name := fmt.Sprintf("%s/filtered=%v/nq=%d/blk=%d", Implementation(), filtered, sz.nq, sz.blk)
			pass := func(out []float64, hits []uint64) {
				for j0 := 0; j0 < n; j0 += sz.blk {
					m := min(sz.blk, n-j0)
					if filtered {
						SquaredFiltered(out, Pad(m), all.q, all.qp, all.qn, sz.nq, d, all.r[j0:], all.rn[j0:], all.stride, m, lim, hits)
					} else {
						SquaredExpanded(out, Pad(m), all.q, all.qn, sz.nq, d, all.r[j0:], all.rn[j0:], all.stride, m)
					}
				}
			}
			b.Run(name, func(b *testing.B) {
				hits := make([]uint64, sz.nq)
				for b.Loop() {
					pass(out, hits)
				}
				nsPair := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(sz.nq*n)
				b.ReportMetric(nsPair, "ns/pair")
				if p := measuredPeak(); p > 0 {
					b.ReportMetric(100*float64(d)/8/p/nsPair, "%measured-peak")
				}
			})
			// The same on every core at once, each with its own output (as the scanner's
			// threads): ns per pair and thread, to compare with one thread.
			b.Run(name+"/all-cores", func(b *testing.B) {
				threads := runtime.GOMAXPROCS(0)
				for b.Loop() {
					var wg sync.WaitGroup
					for range threads {
						wg.Add(1)
						go func() {
							defer wg.Done()
							pass(make([]float64, len(out)), make([]uint64, sz.nq))
						}()
					}
					wg.Wait()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sz.nq*n), "ns/pair/thread")
			})
		}
	}
}
