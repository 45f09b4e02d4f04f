package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// runFiltered calls im's filtered kernel the way SquaredFiltered does (sizes checked,
// hits zeroed first).
func runFiltered(im implementation, out []float64, outStride int, b *block, lim []float64, hits []uint64) {
	if checkFiltered(out, outStride, b.q, b.qn, b.nq, b.d, b.r, b.rn, b.stride, b.n, lim, hits) {
		im.filtered(out, outStride, b.q, b.qn, b.nq, b.d, b.r, b.rn, b.stride, b.n, lim, hits)
	}
}

// checkFilteredBlock runs every implementation's filtered kernel on b with the limits lim
// and checks the contract against the same implementation's unfiltered output: a group's
// bit is set exactly when one of its entries is ≤ the limit, every entry of such a group
// is written with the unfiltered value, any other entry is either that value or left
// alone, and nothing beyond n is touched.
func checkFilteredBlock(t *testing.T, b *block, outStride int, lim []float64, what string) {
	t.Helper()
	const sentinel = -12345.5
	for _, im := range implementations() {
		ref := make([]float64, (b.nq-1)*outStride+b.n)
		im.fn(ref, outStride, b.q, b.qn, b.nq, b.d, b.r, b.rn, b.stride, b.n)
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
			SquaredFiltered(out2, outStride, b.q, b.qn, b.nq, b.d, b.r, b.rn, b.stride, b.n, lim, hits2)
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
			checkFilteredBlock(t, b, outStride, lim, ds.name)
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
		checkFilteredBlock(t, b, n, lim, "duplicates")
	}
}

func TestFilteredPanics(t *testing.T) {
	b := newBlock(randRows(rand.New(rand.NewPCG(1, 1)), 2, 3, rand.Float64), nil, 3, 8, 0)
	for name, f := range map[string]func(){
		"n": func() {
			SquaredFiltered(make([]float64, 2*2000), 2000, b.q, b.qn, 2, 3, make([]float64, 3*2000), make([]float64, 2000), 2000, MaxFiltered+1, make([]float64, 2), make([]uint64, 2))
		},
		"lim": func() {
			SquaredFiltered(make([]float64, 16), 8, b.q, b.qn, 2, 3, make([]float64, 24), make([]float64, 8), 8, 8, make([]float64, 1), make([]uint64, 2))
		},
		"hits": func() {
			SquaredFiltered(make([]float64, 16), 8, b.q, b.qn, 2, 3, make([]float64, 24), make([]float64, 8), 8, 8, make([]float64, 2), make([]uint64, 1))
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
