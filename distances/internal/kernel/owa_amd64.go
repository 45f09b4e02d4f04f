//go:build amd64 && !purego

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// owaAVX512 is OWADistances with the eight references of a group in the lanes of a zmm
// register (owa_amd64.s); y is scratch for m rows of 4·8.
//
//go:noescape
func owaAVX512(out *float64, q *float64, w *float64, m int, net *int32, ncmp int, r *float64, stride int, n int, y *float64)

func owaAsm(out []float64, q, w []float64, net []int32, r []float64, stride, n int) {
	var y [MaxSorted * 4 * Lanes]float64 // four groups of 8 per attribute
	owaAVX512(unsafe.SliceData(out), unsafe.SliceData(q), unsafe.SliceData(w), len(w),
		unsafe.SliceData(net), len(net)/2, unsafe.SliceData(r), stride, n, &y[0])
}

// acceleratedOWA returns the assembly OWA kernel this CPU can run, or nil.
func acceleratedOWA() owaFunc {
	if cpu.X86.HasAVX512F {
		return owaAsm
	}
	return nil
}

// minMaxPeak runs n iterations of 24 independent register-only zmm VMAXPD/VMINPD
// (benchmarks only; owa_amd64.s).
//
//go:noescape
func minMaxPeak(n int)
