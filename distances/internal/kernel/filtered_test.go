package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// runFiltered calls im's filtered kernel the way SquaredFiltered does (sizes checked,
// hits zeroed first) with the row limits of lim.
func runFiltered(im implementation, out []float64, outStride int, b *block, lim []float64, hits []uint64) {
	rlim := make([]float64, len(lim))
	for i, l := range lim {
		rlim[i] = RowLimit(b.qn[i], l)
	}
	if checkFiltered(out, outStride, b.q, b.qp, b.qn, b.nq, b.d, b.r, b.rn, b.stride, b.n, rlim, hits) {
		im.filtered(out, outStride, b.q, b.qp, b.qn, b.nq, b.d, b.r, b.rn, b.stride, b.n, rlim, hits)
	}
}

// filteredValues is what im's filtered kernel writes, bit for bit: qn + t, with t from
// the unfiltered kernel on norms of zero (which writes (0 + rn) − 2·dot = rn − 2·dot
// exactly), or for a packed implementation t = rn + Σ_k (−2q_k)·r_k accumulated from rn
// with one fused multiply-add per attribute in increasing k (computed here with math.FMA
// from the unpacked q, which also checks PackQueries' layout).
func filteredValues(im implementation, b *block, outStride int) []float64 {
	ref := make([]float64, (b.nq-1)*outStride+b.n)
	if im.packed {
		for i := range b.nq {
			for j := range b.n {
				t := b.rn[j]
				for k := range b.d {
					t = math.FMA(-2*b.q[i*b.d+k], b.r[k*b.stride+j], t)
				}
				ref[i*outStride+j] = b.qn[i] + t
			}
		}
		return ref
	}
	im.fn(ref, outStride, b.q, make([]float64, b.nq), b.nq, b.d, b.r, b.rn, b.stride, b.n)
	for i := range b.nq {
		for j := range b.n {
			ref[i*outStride+j] += b.qn[i]
		}
	}
	return ref
}

// checkFilteredBlock runs every implementation's filtered kernel on b with the limits lim
// (through RowLimit) and checks the contract against the values of filteredValues: a
// group's bit is set exactly when one of its entries is ≤ the limit, every entry of such
// a group is written with its value, any other entry is either that value or left alone,
// and nothing beyond n is touched. With exact (the exact distances, or nil) it also
// checks the values against ErrorBound.
func checkFilteredBlock(t *testing.T, b *block, outStride int, lim []float64, exact [][]float64, what string) {
	t.Helper()
	const sentinel = -12345.5
	for _, im := range implementations() {
		ref := filteredValues(im, b, outStride)
		for i := range exact {
			for j, want := range exact[i] {
				if got, bound := ref[i*outStride+j], ErrorBound(b.qn[i], b.rn[j], b.d); !(math.Abs(got-want) <= bound) {
					t.Fatalf("%s %s d=%d: entry [%d,%d] = %g, exact %g, error %g > bound %g", im.name, what, b.d, i, j, got, want, math.Abs(got-want), bound)
				}
			}
		}
		out := make([]float64, len(ref)+outStride) // room to detect writes beyond n
		for i := range out {
			out[i] = sentinel
		}
		hits := make([]uint64, b.nq+1)
		for i := range hits {
			hits[i] = 0xdeadbeef // must be overwritten (and hits[nq] left alone)
		}
		runFiltered(im, out, outStride, b, lim, hits)
		if hits[b.nq] != 0xdeadbeef {
			t.Fatalf("%s %s: hits[nq] overwritten", im.name, what)
		}
		for i := range b.nq {
			var want uint64
			for j := range b.n {
				if ref[i*outStride+j] <= lim[i] {
					want |= 1 << (j / Group)
				}
			}
			if hits[i] != want {
				t.Fatalf("%s %s nq=%d n=%d d=%d: hits[%d] = %#x, want %#x (limit %g)", im.name, what, b.nq, b.n, b.d, i, hits[i], want, lim[i])
			}
			for j := range outStride {
				got := out[i*outStride+j]
				switch {
				case j >= b.n:
					if got != sentinel && i*outStride+j < len(ref) {
						// Entries between n and outStride belong to no row.
						t.Fatalf("%s %s: wrote out[%d,%d] beyond n=%d", im.name, what, i, j, b.n)
					}
				case want&(1<<(j/Group)) != 0:
					if math.Float64bits(got) != math.Float64bits(ref[i*outStride+j]) {
						t.Fatalf("%s %s nq=%d n=%d d=%d: out[%d,%d] = %g, unfiltered %g", im.name, what, b.nq, b.n, b.d, i, j, got, ref[i*outStride+j])
					}
				case got != sentinel && math.Float64bits(got) != math.Float64bits(ref[i*outStride+j]):
					t.Fatalf("%s %s: out[%d,%d] = %g, neither left alone nor the unfiltered %g", im.name, what, i, j, got, ref[i*outStride+j])
				}
			}
		}
		if im.name == Implementation() {
			// The dispatched entry point runs this implementation.
			out2 := make([]float64, len(out))
			hits2 := make([]uint64, b.nq)
			rlim := make([]float64, b.nq)
			for i := range rlim {
				rlim[i] = RowLimit(b.qn[i], lim[i])
			}
			SquaredFiltered(out2, outStride, b.q, b.qp, b.qn, b.nq, b.d, b.r, b.rn, b.stride, b.n, rlim, hits2)
			for i := range b.nq {
				if hits2[i] != hits[i] {
					t.Fatalf("SquaredFiltered differs from %s: hits[%d] = %#x vs %#x", im.name, i, hits2[i], hits[i])
				}
			}
		}
	}
}

// TestFiltered covers limits that keep nothing, everything, exactly one value (equality
// counts), the row minimum, NaN and |q|² (the value of zero padding), on blocks around the tile and group sizes up to
// MaxFiltered, with garbage padding and every dataset (near-duplicates give exact ties).
func TestFiltered(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sizes := []int{1, 7, 8, 9, 23, 24, 25, 47, 48, 49, 71, 72, 73, 100, 511, 512, 513, MaxFiltered - 1, MaxFiltered}
	for _, ds := range datasets {
		for trial := range 120 {
			d := []int{0, 1, 5, 13, 20}[trial%5]
			n := sizes[trial%len(sizes)]
			if trial >= 2*len(sizes) {
				n = 1 + rng.IntN(200)
			}
			nq := 1 + rng.IntN(20)
			stride := Pad(n) + Lanes*rng.IntN(2)
			outStride := n + rng.IntN(9)
			qs, rs := ds.gen(rng, d, nq, n)
			// Garbage padding must not matter: NaN, or 0, which makes the padding lanes
			// of the last vector |q|² (a limit of |q|² then tests that they are ignored).
			pad := math.NaN()
			if trial%2 == 1 {
				pad = 0
			}
			b := newBlock(qs, rs, d, stride, pad)
			ref := make([]float64, (nq-1)*outStride+n)
			Generic(ref, outStride, b.q, b.qn, nq, d, b.r, b.rn, b.stride, n)
			lim := make([]float64, nq)
			for i := range lim {
				switch rng.IntN(7) {
				case 6:
					lim[i] = b.qn[i]
				case 0:
					lim[i] = math.Inf(-1)
				case 1:
					lim[i] = math.Inf(1)
				case 2:
					lim[i] = math.NaN()
				default:
					// A value of the row: equality must count. Near the minimum most of
					// the time, as in the scanner.
					row := ref[i*outStride : i*outStride+n]
					lim[i] = row[rng.IntN(n)]
					if rng.IntN(2) == 0 {
						lim[i] = row[0]
						for _, x := range row {
							lim[i] = math.Min(lim[i], x)
						}
					}
				}
			}
			var ex [][]float64
			if n <= 100 {
				ex = make([][]float64, nq)
				for i := range ex {
					ex[i] = make([]float64, n)
					for j := range ex[i] {
						ex[i][j] = exact(t, qs[i], rs[j])
					}
				}
			}
			checkFilteredBlock(t, b, outStride, lim, ex, ds.name)
		}
	}
}

// TestFilteredDuplicates: references that repeat the queries give distances of exactly
// or nearly zero; limits of 0 and of the smallest positive value select exactly those.
func TestFilteredDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const d, nq, n = 13, 11, 300
	qs := randRows(rng, nq, d, rng.NormFloat64)
	rs := randRows(rng, n, d, rng.NormFloat64)
	for j := 0; j < n; j += 37 {
		copy(rs[j], qs[j%nq])
	}
	b := newBlock(qs, rs, d, Stride(n), 0)
	for _, l := range []float64{0, 0x1p-1074, 1e-12, 1} {
		lim := make([]float64, nq)
		for i := range lim {
			lim[i] = l
		}
		checkFilteredBlock(t, b, n, lim, nil, "duplicates")
	}
}

func TestFilteredPanics(t *testing.T) {
	b := newBlock(randRows(rand.New(rand.NewPCG(1, 1)), 2, 3, rand.Float64), nil, 3, 8, 0)
	for name, f := range map[string]func(){
		"n": func() {
			SquaredFiltered(make([]float64, 2*2000), 2000, b.q, b.qp, b.qn, 2, 3, make([]float64, 3*2000), make([]float64, 2000), 2000, MaxFiltered+1, make([]float64, 2), make([]uint64, 2))
		},
		"lim": func() {
			SquaredFiltered(make([]float64, 16), 8, b.q, b.qp, b.qn, 2, 3, make([]float64, 24), make([]float64, 8), 8, 8, make([]float64, 1), make([]uint64, 2))
		},
		"qp": func() {
			SquaredFiltered(make([]float64, 16), 8, b.q, b.qp[:len(b.qp)-1], b.qn, 2, 3, make([]float64, 24), make([]float64, 8), 8, 8, make([]float64, 2), make([]uint64, 2))
		},
		"hits": func() {
			SquaredFiltered(make([]float64, 16), 8, b.q, b.qp, b.qn, 2, 3, make([]float64, 24), make([]float64, 8), 8, 8, make([]float64, 2), make([]uint64, 1))
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestRowLimit checks that RowLimit(qn, lim) is the largest t with fl(qn + t) ≤ lim, also
// where qn + t cancels (lim ≈ qn: the answer is then many units in the last place of t
// away from fl(lim − qn)), and its special values.
func TestRowLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	check := func(qn, lim float64) {
		r := RowLimit(qn, lim)
		if !(qn+r <= lim) || qn+math.Nextafter(r, math.Inf(1)) <= lim {
			t.Fatalf("RowLimit(%v, %v) = %v: fl(qn + r) = %v, fl(qn + next(r)) = %v", qn, lim, r, qn+r, qn+math.Nextafter(r, math.Inf(1)))
		}
	}
	for range 20000 {
		qn := math.Abs(rng.NormFloat64()) * math.Ldexp(1, rng.IntN(40)-20)
		var lim float64
		switch rng.IntN(5) {
		case 0:
			lim = qn // t = 0 region: the cancellation case
		case 1:
			lim = math.Nextafter(qn, math.Inf(int(rng.IntN(2))*2-1))
		case 2:
			lim = qn * (1 + 1e-12*rng.NormFloat64())
		case 3:
			lim = -rng.Float64() * 1e-10
		default:
			lim = rng.NormFloat64() * 3 * qn
		}
		check(qn, lim)
	}
	check(0, 0)
	check(0, -1)
	check(1e300, math.MaxFloat64)
	check(1, -math.MaxFloat64)
	check(1, math.Inf(-1))
	if r := RowLimit(1, math.Inf(1)); !math.IsInf(r, 1) {
		t.Errorf("RowLimit(1, +Inf) = %v", r)
	}
	for _, c := range [][2]float64{{1, math.NaN()}, {math.NaN(), 1}, {math.Inf(1), 1}} {
		if r := RowLimit(c[0], c[1]); !math.IsNaN(r) {
			t.Errorf("RowLimit(%v, %v) = %v, want NaN", c[0], c[1], r)
		}
	}
}
