// Command asm generates the assembly block kernels of package kernel with avo.
//
//	cd asm && go run . -out ../kernel_amd64.s -stubs ../kernel_amd64_stub.go -pkg kernel
//
// It is its own module so that avo never enters the main module's dependencies.
//
// Each kernel computes out[i,j] = (qn[i] + rn[j]) − 2·Σ_k q[i,k]·r[k,j] on register
// tiles of Q queries × V vectors of references: Q·V accumulators, and per attribute k
// V vector loads of r, Q broadcasts of q and Q·V VFMADD231PD. The loop over reference
// tiles is outside the loop over query blocks, so a tile of r (d·V vectors) is read from
// L2 once and from L1 for every further query block. References left over after the
// last full tile are done one masked vector at a time; queries left over after the last
// full block by tiles of Q/2, Q/4, … queries.
//
// Two instruction sets: AVX-512F (zmm, 8 doubles, 32 registers, opmask tail) with an
// 8×3 tile, and AVX2+FMA (ymm, 4 doubles, 16 registers, VMASKMOVPD tail) with a 4×2
// tile. The tile shapes were chosen by measurement (see the package documentation).
// For AVX-512 also the filtered kernel of SquaredFiltered (always 8×3: one tile row is
// one group of its hit masks), which compares each tile row with its query's limit in
// registers and stores only rows with a hit.
package main

import (
	"flag"
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var (
	qBlock = flag.Int("q", 8, "AVX-512: queries per register tile (1..8)")
	vBlock = flag.Int("v", 3, "AVX-512: 8-wide reference vectors per register tile (1..4, q·v ≤ 24)")
)

func main() {
	flag.Parse()
	if *qBlock < 1 || *qBlock > 8 || *vBlock < 1 || *vBlock > 4 || (*qBlock)*(*vBlock) > 24 {
		panic("tile does not fit the 32 zmm registers")
	}
	ConstraintExpr("amd64,!purego")
	m2 := GLOBL("minustwo", RODATA|NOPTR)
	DATA(0, U64(math.Float64bits(-2))) // (avo prints F64(-2) as the integer $(-2))
	// Eight quadwords, four of −1 then four of 0: the 4 quadwords at byte offset
	// 8·(4 − m) are the AVX2 lane mask selecting the first m lanes.
	tailMask := GLOBL("tailmask", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		v := uint64(0)
		if i < 4 {
			v = math.MaxUint64
		}
		DATA(8*i, U64(v))
	}
	generate(avx512, *qBlock, *vBlock, m2, tailMask, false)
	generate(avx512, 8, 3, m2, tailMask, true)
	generate(avx2, 4, 2, m2, tailMask, false)
	peak()
	Generate()
}

// isa describes one vector instruction set.
type isa struct {
	name, doc string
	lanes     int           // doubles per vector
	regs      []VecPhysical // the vector registers
	maxAcc    int           // accumulators that fit beside the other registers
}

var avx512 = isa{
	name:   "squaredAVX512",
	doc:    "AVX-512F",
	lanes:  8,
	regs:   []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31},
	maxAcc: 24,
}

var avx2 = isa{
	name:   "squaredAVX2",
	doc:    "AVX2 and FMA",
	lanes:  4,
	regs:   []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15},
	maxAcc: 8,
}

// fn holds the state of one kernel function being generated.
//
// Vector registers are assigned by hand (avo's greedy allocator fails on this many
// short-lived virtual registers). Of the register file regs: regs[0:maxAcc]
// accumulators, then V reference vectors, two broadcasts, the sum, −2 (last), and for
// AVX2 the lane mask (second to last).
//
// The filtered variant (AVX-512 only) also keeps the current group's bit (1 << (j/24))
// in a general register and each query's limit, broadcast, in the register before −2.
type fn struct {
	isa
	j, n, d8 GPVirtual // current reference index, n, 8·d
	m2, mask VecPhysical
	rv       []VecPhysical
	bc       [2]VecPhysical
	sum      VecPhysical
	labels   int
	filter   bool
	bit      GPVirtual
	lim      VecPhysical
}

func (f *fn) label(name string) string {
	f.labels++
	return fmt.Sprintf("%s_%s_%d", f.name, name, f.labels)
}

func (f *fn) k512() bool { return f.lanes == 8 }

// filterGroup is the number of references per bit of the filtered kernel's hit masks
// (kernel.Group): one full tile, so that a tile row is stored or skipped as a whole.
const filterGroup = 24

// generate emits the kernel of is with tiles of Q queries × V vectors; with filter, the
// filtered variant (SquaredFiltered's contract): each row of a full tile is compared with
// its query's limit while still in registers and finished and stored, with its group's
// bit set in hits, only when some entry is at most the limit; the remaining references
// (the tail, fewer than one group) are always stored.
func generate(is isa, Q, V int, m2, tailMask Mem, filter bool) {
	name, sig := is.name, "func(out *float64, outStride int, q, qn *float64, nq, d int, r, rn *float64, stride, n int)"
	doc := []string{
		is.name + " is SquaredExpanded for CPUs with " + is.doc + " (sizes already checked,",
		"nq ≥ 1, n ≥ 1). Generated by asm/main.go.",
	}
	if filter {
		if is.lanes != 8 || is.lanes*V != filterGroup {
			panic("the filtered kernel needs AVX-512 and tiles of one group")
		}
		name = "squaredFilteredAVX512"
		sig = "func(out *float64, outStride int, q, qn *float64, nq, d int, r, rn *float64, stride, n int, rlim *float64, hits *uint64)"
		doc = []string{
			name + " is SquaredFiltered for CPUs with " + is.doc + " (sizes already",
			"checked, nq ≥ 1, 1 ≤ n ≤ 64·Group, hits[:nq] zeroed). Generated by asm/main.go.",
		}
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc...)
	is.name = name
	nr := len(is.regs)
	f := &fn{isa: is, j: GP64(), n: GP64(), d8: GP64(), m2: is.regs[nr-1], filter: filter}
	if filter {
		f.bit = GP64()
		f.lim = is.regs[nr-2]
	}
	f.rv = is.regs[is.maxAcc : is.maxAcc+V]
	f.bc = [2]VecPhysical{is.regs[is.maxAcc+V], is.regs[is.maxAcc+V+1]}
	f.sum = is.regs[is.maxAcc+V+2]
	if !f.k512() {
		f.mask = is.regs[nr-2]
	}
	if Q*V > is.maxAcc || is.maxAcc+V+3 > nr-1 || (f.mask != nil && is.maxAcc+V+3 > nr-2) {
		panic("tile does not fit the register file")
	}
	L := f.lanes

	Comment("m2 = −2.0 in every lane; d8 = 8·d; j = 0")
	VBROADCASTSD(m2, f.m2)
	Load(Param("d"), f.d8)
	SHLQ(U8(3), f.d8)
	Load(Param("n"), f.n)
	XORQ(f.j, f.j)
	if f.filter {
		MOVQ(U32(1), f.bit)
	}

	full, tail, done := f.label("full"), f.label("tail"), f.label("done")
	Comment(fmt.Sprintf("Full tiles of %d references.", L*V))
	Label(full)
	rem := GP64()
	MOVQ(f.n, rem)
	SUBQ(f.j, rem)
	CMPQ(rem, U32(L*V))
	JL(LabelRef(tail))
	if f.filter {
		f.prefetchNextTile(V)
	}
	f.queries(Q, V, false)
	ADDQ(U32(L*V), f.j)
	if f.filter {
		SHLQ(U8(1), f.bit)
	}
	JMP(LabelRef(full))

	Comment(fmt.Sprintf("Remaining references, one vector at a time, under a mask of the first min(n − j, %d) lanes.", L))
	Label(tail)
	CMPQ(f.j, f.n)
	JGE(LabelRef(done))
	m := GP64()
	MOVQ(f.n, m)
	SUBQ(f.j, m)
	lanes := GP64()
	MOVQ(U32(L), lanes)
	CMPQ(m, lanes)
	CMOVQGT(lanes, m)
	if f.k512() {
		bits := GP64()
		XORQ(bits, bits)
		BTSQ(m, bits)
		DECQ(bits)
		KMOVW(bits.As32(), K1)
	} else {
		// mask = tailmask[4−m : 8−m]
		NEGQ(m)
		tm := GP64()
		LEAQ(tailMask, tm)
		VMOVDQU(Mem{Base: tm, Index: m, Scale: 8, Disp: 32}, f.mask)
	}
	f.queries(Q, 1, true)
	ADDQ(U32(L), f.j)
	JMP(LabelRef(tail))

	Label(done)
	VZEROUPPER()
	RET()
}

// queries runs the tile at references j … j+L·V−1 over all queries: blocks of Q, then
// the remainder by powers of two.
func (f *fn) queries(Q, V int, masked bool) {
	qp := ld("q")   // &q[i*d]
	qnp := ld("qn") // &qn[i]
	op := ld("out") // &out[i*outStride + j]
	LEAQ(Mem{Base: op, Index: f.j, Scale: 8}, op)
	left := ld("nq") // nq − i

	loop, rest := f.label("qblock"), f.label("qrest")
	Label(loop)
	CMPQ(left, U32(Q))
	JL(LabelRef(rest))
	f.tile(Q, V, masked, qp, qnp, op)
	f.advance(Q, qp, qnp, op)
	SUBQ(U32(Q), left)
	JMP(LabelRef(loop))
	Label(rest)
	for s := 1 << 3; s >= 1; s >>= 1 {
		if s >= Q {
			continue
		}
		skip := f.label("skip")
		TESTQ(U32(s), left)
		JZ(LabelRef(skip))
		f.tile(s, V, masked, qp, qnp, op)
		if s > 1 {
			f.advance(s, qp, qnp, op)
		}
		Label(skip)
	}
}

// prefetchNextTile asks for the d rows of the next reference tile (references j + L·V …,
// V vectors each) to be brought into L1 while this tile runs over the query blocks: the
// rows of a tile are d streams one reference stride apart, which the hardware prefetchers
// follow badly, and each tile is needed from L2 or L3 once per kernel call. Prefetches
// never fault, so reading past the end of r is harmless.
func (f *fn) prefetchNextTile(V int) {
	p := ld("r")
	LEAQ(Mem{Base: p, Index: f.j, Scale: 8, Disp: 8 * f.lanes * V}, p)
	stride8 := ld("stride")
	SHLQ(U8(3), stride8)
	cnt := ld("d")
	loop, done := f.label("prefetch"), f.label("prefetched")
	TESTQ(cnt, cnt)
	JZ(LabelRef(done))
	Label(loop)
	for v := 0; v < V; v++ {
		PREFETCHT0(Mem{Base: p, Disp: 8 * f.lanes * v})
	}
	ADDQ(stride8, p)
	DECQ(cnt)
	JNZ(LabelRef(loop))
	Label(done)
}

// advance moves the query pointers on by s queries.
func (f *fn) advance(s int, qp, qnp, op GPVirtual) {
	t := GP64()
	IMUL3Q(U32(s), f.d8, t)
	ADDQ(t, qp)
	ADDQ(U32(8*s), qnp)
	os := ld("outStride")
	IMUL3Q(U32(8*s), os, os)
	ADDQ(os, op)
}

// tile computes the Q×(L·V) block of out at queries qp… and references j…:
// acc = Σ_k q·r from zero, then out = (qn + rn) − 2·acc (VADDPD + VFMADD231PD per output
// vector).
func (f *fn) tile(Q, V int, masked bool, qp, qnp, op GPVirtual) {
	Comment(fmt.Sprintf("Tile of %d queries × %d references.", Q, f.lanes*V))
	vb := 8 * f.lanes // bytes per vector
	acc := make([][]VecPhysical, Q)
	for a := range acc {
		acc[a] = f.regs[a*V : (a+1)*V]
	}
	rv := f.rv[:V]

	rr := ld("r") // &r[k*stride + j]
	LEAQ(Mem{Base: rr, Index: f.j, Scale: 8}, rr)
	stride8 := ld("stride")
	SHLQ(U8(3), stride8)
	kq := GP64() // &q[i*d + k]
	MOVQ(qp, kq)
	var d24, kq4 GPVirtual
	if Q > 3 {
		d24 = GP64()
		LEAQ(Mem{Base: f.d8, Index: f.d8, Scale: 2}, d24)
	}
	if Q > 5 {
		kq4 = GP64() // &q[(i+4)*d + k]
		LEAQ(Mem{Base: kq, Index: f.d8, Scale: 4}, kq4)
	}
	qaddr := func(a int) Mem {
		switch a {
		case 0:
			return Mem{Base: kq}
		case 1:
			return Mem{Base: kq, Index: f.d8, Scale: 1}
		case 2:
			return Mem{Base: kq, Index: f.d8, Scale: 2}
		case 3:
			return Mem{Base: kq, Index: d24, Scale: 1}
		case 4:
			return Mem{Base: kq, Index: f.d8, Scale: 4}
		case 5:
			return Mem{Base: kq4, Index: f.d8, Scale: 1}
		case 6:
			return Mem{Base: kq, Index: d24, Scale: 2}
		default:
			return Mem{Base: kq4, Index: d24, Scale: 1}
		}
	}
	for a := range acc {
		for _, x := range acc[a] {
			if f.k512() {
				VPXORQ(x, x, x)
			} else {
				VXORPD(x, x, x)
			}
		}
	}
	cnt := ld("d")
	kloop, epi := f.label("k"), f.label("epilogue")
	TESTQ(cnt, cnt)
	JZ(LabelRef(epi))
	Label(kloop)
	for v := range rv {
		VMOVUPD(Mem{Base: rr, Disp: vb * v}, rv[v])
	}
	for a := 0; a < Q; a++ {
		b := f.bc[a%2]
		VBROADCASTSD(qaddr(a), b)
		for v := range rv {
			VFMADD231PD(rv[v], b, acc[a][v])
		}
	}
	ADDQ(stride8, rr)
	ADDQ(U8(8), kq)
	if Q > 5 {
		ADDQ(U8(8), kq4)
	}
	DECQ(cnt)
	JNZ(LabelRef(kloop))

	Label(epi)
	Comment("out = (qn + rn) − 2·acc")
	rnp := ld("rn")
	LEAQ(Mem{Base: rnp, Index: f.j, Scale: 8}, rnp)
	for v := range rv {
		src := Mem{Base: rnp, Disp: vb * v}
		switch {
		case !masked:
			VMOVUPD(src, rv[v])
		case f.k512():
			VMOVUPD_Z(src, K1, rv[v])
		default:
			VMASKMOVPD(src, f.mask, rv[v])
		}
	}
	os8 := ld("outStride")
	SHLQ(U8(3), os8)
	orow := GP64()
	MOVQ(op, orow)
	if f.filter {
		f.filteredEpilogue(Q, V, masked, acc, qnp, os8, orow)
		return
	}
	for a := 0; a < Q; a++ {
		b := f.bc[a%2]
		VBROADCASTSD(Mem{Base: qnp, Disp: 8 * a}, b)
		if a > 0 {
			ADDQ(os8, orow)
		}
		for v := range rv {
			VADDPD(rv[v], b, f.sum)
			VFMADD231PD(f.m2, acc[a][v], f.sum)
			dst := Mem{Base: orow, Disp: vb * v}
			switch {
			case !masked:
				VMOVUPD(f.sum, dst)
			case f.k512():
				VMOVUPD(f.sum, K1, dst)
			default:
				VMASKMOVPD(f.sum, f.mask, dst)
			}
		}
	}
}

// filteredEpilogue finishes the tile of the filtered kernel, row by row. The test value
// t = rn − 2·acc (one VFMADD213PD per vector, into the accumulator) is compared with the
// row's limit rlim (see kernel.RowLimit); qn is added, and the row stored, only when some
// entry of a full row has t ≤ rlim: K2 collects the lanes where every vector is above it
// (or NaN), so the row is skipped when K2 has all 8 bits. A masked (tail) row is always
// finished and stored and sets the bit when a valid lane has t ≤ rlim. So a row nothing
// of which is near the limit costs 2 vector operations per 8 pairs (an FMA and a
// compare) instead of the unfiltered kernel's add, FMA and store.
func (f *fn) filteredEpilogue(Q, V int, masked bool, acc [][]VecPhysical, qnp, os8, orow GPVirtual) {
	vb := 8 * f.lanes
	rv := f.rv[:V]
	// rlim and hits are indexed like qn: the same byte offset from their bases.
	off := ld("qn")
	NEGQ(off)
	ADDQ(qnp, off)
	limp, hitsp := ld("rlim"), ld("hits")
	ADDQ(off, limp)
	ADDQ(off, hitsp)
	for a := 0; a < Q; a++ {
		b := f.bc[a%2]
		VBROADCASTSD(Mem{Base: limp, Disp: 8 * a}, f.lim)
		if a > 0 {
			ADDQ(os8, orow)
		}
		for v := range rv {
			VFMADD213PD(rv[v], f.m2, acc[a][v]) // acc = −2·acc + rn
		}
		skip := f.label("skip")
		hit := Mem{Base: hitsp, Disp: 8 * a}
		if masked {
			VCMPPD(U8(2), f.lim, acc[a][0], K1, K2) // K2 = K1 & (t ≤ rlim), false for NaN
			VBROADCASTSD(Mem{Base: qnp, Disp: 8 * a}, b)
			VADDPD(acc[a][0], b, acc[a][0])
			VMOVUPD(acc[a][0], K1, Mem{Base: orow})
			KORTESTW(K2, K2)
			JZ(LabelRef(skip))
			ORQ(f.bit, hit)
			Label(skip)
			continue
		}
		VCMPPD(U8(6), f.lim, acc[a][0], K2) // K2 = !(t ≤ rlim): NLE_US, true for NaN
		for v := 1; v < V; v++ {
			VCMPPD(U8(6), f.lim, acc[a][v], K2, K2)
		}
		t := GP32()
		KMOVW(K2, t)
		CMPL(t, U32(0xff))
		JE(LabelRef(skip))
		VBROADCASTSD(Mem{Base: qnp, Disp: 8 * a}, b)
		for v := range rv {
			VADDPD(acc[a][v], b, acc[a][v])
			VMOVUPD(acc[a][v], Mem{Base: orow, Disp: vb * v})
		}
		ORQ(f.bit, hit)
		Label(skip)
	}
}

// ld loads the named integer or pointer argument into a fresh register.
func ld(name string) GPVirtual {
	r := GP64()
	Load(Param(name), r)
	return r
}

// peak generates fmaPeak, a calibration loop for the benchmarks: n iterations of 24
// independent VFMADD231PD on registers (no memory), i.e. the machine's FMA throughput
// at whatever clock it runs AVX-512 code.
func peak() {
	TEXT("fmaPeak", NOSPLIT, "func(n int)")
	Pragma("noescape")
	Doc("fmaPeak runs n iterations of 24 independent zmm fused multiply-adds (benchmarks only).")
	z := avx512.regs
	n := ld("n")
	for i := 0; i < 26; i++ {
		VPXORQ(z[i], z[i], z[i])
	}
	TESTQ(n, n)
	JZ(LabelRef("peakdone"))
	Label("peakloop")
	for i := 0; i < 24; i++ {
		VFMADD231PD(Z24, Z25, z[i])
	}
	DECQ(n)
	JNZ(LabelRef("peakloop"))
	Label("peakdone")
	VZEROUPPER()
	RET()
}
