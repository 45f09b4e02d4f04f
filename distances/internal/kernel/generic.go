package kernel

import "unsafe"

// generic is the portable implementation of SquaredExpanded (sizes already checked by
// check, nq ≥ 1, n ≥ 1).
//
// It register-blocks 2 queries × 2 references: per attribute 4 loads and 4 multiply-adds
// into 4 independent accumulators, which fit the 15 allocatable XMM registers of the
// amd64 register ABI without spills (4×2 and 2×4 tiles spill). The attribute loop walks
// raw pointers: with index expressions the compiler keeps a bounds check per row, and
// the panic path that comes with it makes it spill the loop counter to the stack on
// every iteration, which cost ~1.5× (measured: ~7.5 against ~5 ns/pair at d = 13 with
// GOAMD64=v1). The pointers never leave their slices: each is advanced only when
// another row follows, and check has verified every address read.
//
// An odd last query is paired with itself (computed twice, stored once). An odd last
// reference is paired with column n of r, which exists because the stride is padded to
// a multiple of 8; its value is never stored, so the padding may hold anything.
//
// Each entry is summed exactly as ErrorBound assumes: the dot product from zero in
// increasing k, then (qn + rn) − 2·dot.
func generic(out []float64, outStride int, q, qn []float64, nq, d int, r, rn []float64, stride, n int) {
	const size = unsafe.Sizeof(float64(0))
	if d == 0 {
		for i := range nq {
			o := out[i*outStride : i*outStride+n]
			for j := range o {
				o[j] = qn[i] + rn[j]
			}
		}
		return
	}
	rowStep := uintptr(stride) * size
	for i := 0; i < nq; i += 2 {
		i1 := min(i+1, nq-1)
		q0 := unsafe.Pointer(&q[i*d])
		q1off := uintptr(i1-i) * uintptr(d) * size // 0 for an odd last query
		n0, n1 := qn[i], qn[i1]
		o0 := out[i*outStride : i*outStride+n]
		o1 := out[i1*outStride : i1*outStride+n]
		for j := 0; j < n; j += 2 {
			var a00, a01, a10, a11 float64
			rp, qp := unsafe.Pointer(&r[j]), q0
			for k := d; ; {
				r0, r1 := *(*float64)(rp), *(*float64)(unsafe.Add(rp, size))
				x0, x1 := *(*float64)(qp), *(*float64)(unsafe.Add(qp, q1off))
				a00 += x0 * r0
				a01 += x0 * r1
				a10 += x1 * r0
				a11 += x1 * r1
				if k--; k == 0 {
					break
				}
				rp, qp = unsafe.Add(rp, rowStep), unsafe.Add(qp, size)
			}
			s0 := rn[j]
			o0[j] = n0 + s0 - 2*a00
			o1[j] = n1 + s0 - 2*a10
			if j+1 < n {
				s1 := rn[j+1]
				o0[j+1] = n0 + s1 - 2*a01
				o1[j+1] = n1 + s1 - 2*a11
			}
		}
	}
}
