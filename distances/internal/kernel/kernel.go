package kernel

import (
	"fmt"
	"math"
)

// Lanes is the granularity of the reference layout: strides are multiples of Lanes, so
// that a vector of Lanes float64 (one 512-bit register) can always be loaded from a
// reference row.
const Lanes = 8

// Pad rounds n up to a multiple of Lanes.
func Pad(n int) int { return (n + Lanes - 1) &^ (Lanes - 1) }

// Stride returns the recommended row stride of a reference block of n records: Pad(n),
// plus Lanes when Pad(n)/Lanes is even. Any multiple of Lanes that is ≥ n is a valid
// stride; this one makes consecutive rows start an odd number of 64-byte cache lines
// apart, so that the d rows of a kernel tile fall into d different L1 sets instead of
// piling into a few (rows 4 KiB apart share a set, and a set holds only 12 lines). It
// matters when a tile of references is reused by several query blocks from L1: 8% to
// 12% at nq = 32, n = 2048, d = 13 (stride 2056 against 2048), and costs at most 8
// columns.
func Stride(n int) int {
	s := Pad(n)
	if (s/Lanes)%2 == 0 {
		s += Lanes
	}
	return s
}

// QueryNorms sets qn[i] = Σ_k q[i*d+k]² for i < nq (row-major queries), summing k in
// increasing order as ErrorBound assumes.
func QueryNorms(qn, q []float64, nq, d int) {
	if nq < 0 || d < 0 || len(qn) < nq || len(q) < nq*d {
		panic(fmt.Sprintf("kernel: QueryNorms: bad sizes len(qn)=%d len(q)=%d nq=%d d=%d", len(qn), len(q), nq, d))
	}
	for i := range qn[:nq] {
		row := q[i*d : i*d+d]
		s := 0.0
		for _, x := range row {
			s += x * x
		}
		qn[i] = s
	}
}

// RefNorms sets rn[j] = Σ_k r[k*stride+j]² for j < n (attribute-major references),
// summing k in increasing order as ErrorBound assumes.
func RefNorms(rn, r []float64, d, stride, n int) {
	if n < 0 || d < 0 || stride < n || len(rn) < n || (d > 0 && len(r) < (d-1)*stride+n) {
		panic(fmt.Sprintf("kernel: RefNorms: bad sizes len(rn)=%d len(r)=%d d=%d stride=%d n=%d", len(rn), len(r), d, stride, n))
	}
	rn = rn[:n]
	clear(rn)
	for k := 0; k < d; k++ {
		row := r[k*stride : k*stride+n]
		row = row[:len(rn)]
		for j, x := range row {
			rn[j] += x * x
		}
	}
}

// SquaredExpanded writes, for i < nq and j < n,
//
//	out[i*outStride+j] = qn[i] + rn[j] − 2 Σ_k q[i*d+k]·r[k*stride+j]
//
// evaluated as (qn[i] + rn[j]) − 2·dot with the dot product accumulated over k in
// increasing order. q is row-major (q[i*d+k]), r attribute-major (r[k*stride+j]) with
// stride a multiple of Lanes, stride ≥ n and len(r) ≥ (d−1)·stride + Pad(n); the padding
// r[k*stride+j], n ≤ j < Pad(n), may hold any value (it is loaded but never affects
// an entry j < n). qn and rn come from QueryNorms and RefNorms. outStride ≥ n; entries of
// out other than the nq×n written ones are left untouched, so len(out) ≥
// (nq−1)·outStride + n suffices. |result − exact squared distance| ≤ ErrorBound.
//
// It runs the best implementation for this CPU (see Implementation) and panics on
// inconsistent sizes.
func SquaredExpanded(out []float64, outStride int, q, qn []float64, nq, d int, r, rn []float64, stride, n int) {
	if !check(out, outStride, q, qn, nq, d, r, rn, stride, n) {
		return
	}
	impl.fn(out, outStride, q, qn, nq, d, r, rn, stride, n)
}

// Generic is SquaredExpanded forced onto the portable pure-Go implementation (for tests,
// benchmarks and comparisons); it has the same contract and the same error bound.
func Generic(out []float64, outStride int, q, qn []float64, nq, d int, r, rn []float64, stride, n int) {
	if !check(out, outStride, q, qn, nq, d, r, rn, stride, n) {
		return
	}
	generic(out, outStride, q, qn, nq, d, r, rn, stride, n)
}

// Group is the number of references per bit of SquaredFiltered's hit masks: bit g of a
// mask stands for the references g·Group ≤ j < (g+1)·Group. It is the width of the
// AVX-512 register tile, so that the kernel finishes and stores or skips a tile row as a
// whole.
const Group = 24

// MaxFiltered is the largest reference block SquaredFiltered takes: one bit per group in
// a uint64.
const MaxFiltered = 64 * Group

// PackedLen is the length of PackQueries' output for nq queries of d attributes: Pad(nq)·d.
func PackedLen(nq, d int) int { return Pad(nq) * d }

// PackQueries writes the row-major queries q (nq of d attributes) into dst in the layout
// of SquaredFiltered's AVX-512 kernel: −2·q in groups of Lanes queries, attribute-major
// within a group,
//
//	dst[Lanes·d·g + Lanes·k + a] = −2·q[(Lanes·g + a)·d + k]
//
// with the missing queries of the last group zero. Scaling by −2 is exact, so the
// kernel's accumulators can start from the reference norms (t = rn + Σ_k (−2q_k)·r_k with
// one fused multiply-add per attribute) and read each query value as a broadcast at a
// fixed offset. A block of queries that starts at a multiple of Lanes is the slice of the
// packed whole at Lanes·d times its first group. len(dst) ≥ PackedLen(nq, d).
func PackQueries(dst, q []float64, nq, d int) {
	if nq < 0 || d < 0 || len(q) < nq*d || len(dst) < PackedLen(nq, d) {
		panic(fmt.Sprintf("kernel: PackQueries: bad sizes len(dst)=%d len(q)=%d nq=%d d=%d", len(dst), len(q), nq, d))
	}
	clear(dst[:PackedLen(nq, d)])
	for i := range nq {
		g, a := i/Lanes, i%Lanes
		base := Lanes*d*g + a
		for k, x := range q[i*d : i*d+d] {
			dst[base+Lanes*k] = -2 * x
		}
	}
}

// SquaredFiltered is SquaredExpanded for a caller that only wants the entries of each
// query below a limit. qp must hold PackQueries(q) (the AVX-512 implementation reads it,
// the others q). It evaluates t[i,j], an approximation of rn[j] − 2·Σ_k q[i*d+k]·r[k*stride+j]
// within ErrorBound (the AVX-512 implementation accumulates it from rn[j] with one fused
// multiply-add per attribute in increasing k; the others round once after a dot product
// accumulated as in SquaredExpanded), and
//
//	out[i*outStride+j] = qn[i] + t[i,j]
//
// (qn added last, which the error bound covers as well, see ErrorBound). For i < nq it
// sets hits[i] to the mask whose bit g is set exactly when some entry j of group g (see
// Group) has t[i,j] ≤ rlim[i] (never for NaN), and writes every entry of every group whose
// bit is set; the entries of the other groups may or may not be written. With rlim[i] =
// RowLimit(qn[i], lim), bit g is set exactly when some entry of group g has out ≤ lim.
// n ≤ MaxFiltered, len(qp) ≥ PackedLen(nq, d), len(rlim) ≥ nq and len(hits) ≥ nq; other
// sizes as for SquaredExpanded.
//
// The distances of a block of the scanner of package distances are mostly far above every
// query's limit: the AVX-512 implementation compares each tile row with the limit while
// it is still in registers and then neither finishes nor stores it, nor leaves the caller
// anything to scan. Other implementations write the whole block and compute the masks
// after.
func SquaredFiltered(out []float64, outStride int, q, qp, qn []float64, nq, d int, r, rn []float64, stride, n int, rlim []float64, hits []uint64) {
	if !checkFiltered(out, outStride, q, qp, qn, nq, d, r, rn, stride, n, rlim, hits) {
		return
	}
	impl.filtered(out, outStride, q, qp, qn, nq, d, r, rn, stride, n, rlim, hits)
}

// GenericFiltered is SquaredFiltered forced onto the portable implementation (which
// reads q, not qp).
func GenericFiltered(out []float64, outStride int, q, qp, qn []float64, nq, d int, r, rn []float64, stride, n int, rlim []float64, hits []uint64) {
	if !checkFiltered(out, outStride, q, qp, qn, nq, d, r, rn, stride, n, rlim, hits) {
		return
	}
	filterAfter(generic)(out, outStride, q, qp, qn, nq, d, r, rn, stride, n, rlim, hits)
}

// RowLimit returns the largest float64 t such that qn + t, rounded to float64, is ≤ lim:
// then qn + t ≤ lim exactly when t ≤ RowLimit(qn, lim), which lets SquaredFiltered test an
// entry before adding qn. It returns NaN when no t qualifies (lim or qn NaN, or qn = +Inf
// with a finite lim) and +Inf for lim = +Inf. qn is meant to be a norm (finite, ≥ 0).
func RowLimit(qn, lim float64) float64 {
	switch {
	case math.IsNaN(lim) || math.IsNaN(qn):
		return math.NaN()
	case math.IsInf(lim, 1):
		return lim
	case math.IsInf(qn, 0):
		return math.NaN()
	}
	// fl(qn + t) is non-decreasing in t, so the answer is where the predicate turns false
	// in the order of float64 values; fl(lim − qn) is usually it or next to it, but can be
	// many units in the last place away when qn + t cancels (|t| ≪ qn): search from it with
	// doubling steps, then bisect. t = −Inf always qualifies and +Inf never does.
	ok := func(k int64) bool { return qn+fromOrdered(k) <= lim }
	// gap is hi − lo for lo < hi; it can exceed math.MaxInt64 (from −Inf to +Inf).
	gap := func(lo, hi int64) uint64 { return uint64(hi) - uint64(lo) }
	lo, hi := toOrdered(math.Inf(-1)), toOrdered(math.Inf(1)) // ok(lo), !ok(hi)
	k := toOrdered(lim - qn)
	if ok(k) {
		lo = k
		for step := uint64(1); gap(lo, hi) > 1; step *= 2 {
			next := lo + int64(min(step, gap(lo, hi)-1))
			if !ok(next) {
				hi = next
				break
			}
			lo = next
		}
	} else {
		hi = k
		for step := uint64(1); gap(lo, hi) > 1; step *= 2 {
			next := hi - int64(min(step, gap(lo, hi)-1))
			if ok(next) {
				lo = next
				break
			}
			hi = next
		}
	}
	for gap(lo, hi) > 1 {
		mid := lo + int64(gap(lo, hi)/2)
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return fromOrdered(lo)
}

// toOrdered maps float64 values (not NaN) to integers in the same order (−0 and +0 to 0);
// fromOrdered is its inverse.
func toOrdered(x float64) int64 {
	b := int64(math.Float64bits(x))
	if b < 0 {
		b = math.MinInt64 - b
	}
	return b
}

func fromOrdered(k int64) float64 {
	if k < 0 {
		k = math.MinInt64 - k
	}
	return math.Float64frombits(uint64(k))
}

func checkFiltered(out []float64, outStride int, q, qp, qn []float64, nq, d int, r, rn []float64, stride, n int, rlim []float64, hits []uint64) bool {
	if n > MaxFiltered {
		panic(fmt.Sprintf("kernel: SquaredFiltered: n=%d > MaxFiltered=%d", n, MaxFiltered))
	}
	if nq > 0 && len(qp) < PackedLen(nq, d) {
		panic(fmt.Sprintf("kernel: SquaredFiltered: len(qp)=%d < PackedLen(nq=%d, d=%d)", len(qp), nq, d))
	}
	if nq > 0 && (len(rlim) < nq || len(hits) < nq) {
		panic(fmt.Sprintf("kernel: SquaredFiltered: len(rlim)=%d, len(hits)=%d < nq=%d", len(rlim), len(hits), nq))
	}
	if !check(out, outStride, q, qn, nq, d, r, rn, stride, n) {
		if nq > 0 {
			clear(hits[:nq])
		}
		return false
	}
	clear(hits[:nq])
	return true
}

// filterAfter makes a filtered kernel of an unfiltered one: run on norms qn of zero, an
// unfiltered kernel writes (0 + rn) − 2·dot = t exactly; the masks come from t, then qn is
// added. It reads q, not the packed qp. hits[:nq] is zero on entry.
func filterAfter(fn kernelFunc) filteredFunc {
	return func(out []float64, outStride int, q, _, qn []float64, nq, d int, r, rn []float64, stride, n int, rlim []float64, hits []uint64) {
		var zero [64]float64
		for c := 0; c < nq; c += len(zero) {
			m := min(len(zero), nq-c)
			fn(out[c*outStride:], outStride, q[c*d:], zero[:m], m, d, r, rn, stride, n)
		}
		for i := range nq {
			row, l, qi := out[i*outStride:i*outStride+n], rlim[i], qn[i]
			var mask uint64
			for j, t := range row {
				if t <= l {
					mask |= 1 << (j / Group)
				}
				row[j] = qi + t
			}
			hits[i] = mask
		}
	}
}

// Accelerated reports whether SquaredExpanded runs an assembly implementation.
func Accelerated() bool { return impl.name != "generic" }

// Implementation names the implementation SquaredExpanded runs: "avx512", "avx2" or
// "generic".
func Implementation() string { return impl.name }

type kernelFunc func(out []float64, outStride int, q, qn []float64, nq, d int, r, rn []float64, stride, n int)

// filteredFunc is SquaredFiltered's signature: q row-major, qp = PackQueries(q).
type filteredFunc func(out []float64, outStride int, q, qp, qn []float64, nq, d int, r, rn []float64, stride, n int, rlim []float64, hits []uint64)

type implementation struct {
	name     string
	fn       kernelFunc
	filtered filteredFunc
	// packed: filtered reads qp and accumulates t from rn (see PackQueries) instead of
	// running fn on zero norms.
	packed          bool
	first           func(x []float64, limit float64) int
	between         func(x []float64, lo, hi float64) int
	firstNotBetween func(x []float64, lo, hi, limit float64) int
	owa             owaFunc
	choquet         choquetFunc
}

// impl is the dispatch target of SquaredExpanded. It is the package's only package-level
// variable: set once by the architecture file's init from CPU feature detection (before
// any other code of the package can run) and never written again, so reading it needs no
// synchronisation.
var impl = implementation{"generic", generic, filterAfter(generic), false, firstAtMostGeneric, countBetweenGeneric, firstNotBetweenGeneric, owaGeneric, choquetGeneric}

// check validates the sizes (panicking on inconsistent ones) and reports whether there is
// anything to compute.
func check(out []float64, outStride int, q, qn []float64, nq, d int, r, rn []float64, stride, n int) bool {
	if nq < 0 || n < 0 || d < 0 {
		panic(fmt.Sprintf("kernel: negative size nq=%d n=%d d=%d", nq, n, d))
	}
	if nq == 0 || n == 0 {
		return false
	}
	switch {
	case stride < n || stride%Lanes != 0:
		panic(fmt.Sprintf("kernel: stride %d is not a multiple of %d that is ≥ n=%d", stride, Lanes, n))
	case outStride < n:
		panic(fmt.Sprintf("kernel: outStride %d < n=%d", outStride, n))
	case len(out) < (nq-1)*outStride+n:
		panic(fmt.Sprintf("kernel: len(out)=%d < (nq−1)·outStride+n = %d", len(out), (nq-1)*outStride+n))
	case len(q) < nq*d || len(qn) < nq:
		panic(fmt.Sprintf("kernel: len(q)=%d, len(qn)=%d too short for nq=%d d=%d", len(q), len(qn), nq, d))
	case len(rn) < n:
		panic(fmt.Sprintf("kernel: len(rn)=%d < n=%d", len(rn), n))
	case d > 0 && len(r) < (d-1)*stride+Pad(n):
		panic(fmt.Sprintf("kernel: len(r)=%d < (d−1)·stride+Pad(n) = %d", len(r), (d-1)*stride+Pad(n)))
	}
	return true
}
