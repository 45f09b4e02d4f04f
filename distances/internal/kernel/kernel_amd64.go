//go:build !purego

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:generate sh -c "cd sortnetgen && go run . > ../owa16_amd64.s && go run . -choquet > ../choquetreg_amd64.s && go run . -choquet-go > ../choquetreg_amd64.go"
//go:generate sh -c "cd asm && go run . -out ../kernel_amd64.s -stubs ../kernel_amd64_stub.go -pkg kernel"

// init selects the best assembly kernel the CPU and the OS support (x/sys/cpu checks
// both the CPUID bits and that the OS saves the ymm/zmm and opmask state). It is the
// only write to impl.
func init() {
	if c := accelerated(); len(c) > 0 {
		impl.name, impl.fn, impl.filtered, impl.packed = c[0].name, c[0].fn, c[0].filtered, c[0].packed
	}
	if cpu.X86.HasAVX512F {
		impl.first = firstAtMostAVX512
		impl.between = countBetweenAVX512
		impl.firstNotBetween = firstNotBetweenAVX512
	}
	if f := acceleratedOWA(); f != nil {
		impl.owa = f
	}
	if f := acceleratedChoquet(); f != nil {
		impl.choquet = f
	}
}

// accelerated lists the assembly kernels this CPU can run, best first.
func accelerated() []implementation {
	var list []implementation
	if cpu.X86.HasAVX512F {
		list = append(list, implementation{name: "avx512", fn: asmKernel(squaredAVX512), filtered: asmFiltered(squaredFilteredAVX512), packed: true})
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		fn := asmKernel(squaredAVX2)
		list = append(list, implementation{name: "avx2", fn: fn, filtered: filterAfter(fn)})
	}
	return list
}

// asmKernel adapts a generated kernel (kernel_amd64.s) to the slice signature. Sizes
// were checked by the caller, so the assembly may use full-vector loads of r (its rows
// are padded to a multiple of 8) and masked loads of rn and stores to out in the last
// partial vector. unsafe.SliceData is used because q and r may be empty when d = 0.
func asmKernel(f func(out *float64, outStride int, q, qn *float64, nq, d int, r, rn *float64, stride, n int)) kernelFunc {
	return func(out []float64, outStride int, q, qn []float64, nq, d int, r, rn []float64, stride, n int) {
		f(unsafe.SliceData(out), outStride, unsafe.SliceData(q), unsafe.SliceData(qn), nq, d,
			unsafe.SliceData(r), unsafe.SliceData(rn), stride, n)
	}
}

// asmFiltered adapts a generated filtered kernel, which reads the packed queries qp, to
// the slice signature (sizes checked and hits[:nq] zeroed by the caller).
func asmFiltered(f func(out *float64, outStride int, qp, qn *float64, nq, d int, r, rn *float64, stride, n int, rlim *float64, hits *uint64)) filteredFunc {
	return func(out []float64, outStride int, _, qp, qn []float64, nq, d int, r, rn []float64, stride, n int, rlim []float64, hits []uint64) {
		f(unsafe.SliceData(out), outStride, unsafe.SliceData(qp), unsafe.SliceData(qn), nq, d,
			unsafe.SliceData(r), unsafe.SliceData(rn), stride, n, unsafe.SliceData(rlim), unsafe.SliceData(hits))
	}
}
