//go:build amd64 && !purego

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// choquetAVX512 is ChoquetDistances on a multiple of 32 references with AVX-512F
// (choquet_amd64.s); y is scratch for 2·MaxSorted rows of 4·8.
//
//go:noescape
func choquetAVX512(out *float64, q *float64, mu *float64, m int, net *int32, ncmp int, r *float64, stride int, n int, y *float64)

// choquetAsm runs the assembly on whole groups of 32 references and the portable kernel
// on the rest (Search's blocks are multiples of 32 but for a file's last).
func choquetAsm(out []float64, q, mu []float64, m int, net []int32, r []float64, stride, n int) {
	if f := choquetReg(m); f != nil {
		f(unsafe.SliceData(out), unsafe.SliceData(q), unsafe.SliceData(mu), unsafe.SliceData(r), stride, n)
		return
	}
	var y [2 * MaxSorted * 4 * Lanes]float64
	whole := n &^ 31
	if m == 0 {
		whole = 0 // nothing to sort: r may be empty
	}
	if whole > 0 {
		choquetAVX512(unsafe.SliceData(out), unsafe.SliceData(q), unsafe.SliceData(mu), m,
			unsafe.SliceData(net), len(net)/2, unsafe.SliceData(r), stride, whole, &y[0])
	}
	if whole < n {
		choquetGeneric(out[whole:], q, mu, m, net, r[whole:], stride, n-whole)
	}
}

// acceleratedChoquet returns the assembly Choquet kernel this CPU can run, or nil.
func acceleratedChoquet() choquetFunc {
	if cpu.X86.HasAVX512F {
		return choquetAsm
	}
	return nil
}
