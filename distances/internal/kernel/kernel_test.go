package kernel

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// implementations lists Generic and every assembly kernel this CPU can run.
func implementations() []implementation {
	return append([]implementation{{name: "generic", fn: Generic, filtered: GenericFiltered}}, accelerated()...)
}

// block is one query block and one reference block in the kernel's layouts.
type block struct {
	nq, d, n, stride int
	q, qp, qn, r, rn []float64
}

// newBlock lays out queries rows[i] and references cols[j] (each of d attributes),
// filling the padding of r with pad.
func newBlock(qs, rs [][]float64, d, stride int, pad float64) *block {
	b := &block{nq: len(qs), d: d, n: len(rs), stride: stride}
	b.q = make([]float64, b.nq*d)
	for i, x := range qs {
		copy(b.q[i*d:], x)
	}
	b.r = make([]float64, d*stride)
	for k := 0; k < d; k++ {
		for j := range stride {
			if j < b.n {
				b.r[k*stride+j] = rs[j][k]
			} else {
				b.r[k*stride+j] = pad
			}
		}
	}
	b.qp = make([]float64, PackedLen(b.nq, d))
	PackQueries(b.qp, b.q, b.nq, d)
	b.qn = make([]float64, b.nq)
	b.rn = make([]float64, b.n)
	QueryNorms(b.qn, b.q, b.nq, d)
	RefNorms(b.rn, b.r, d, stride, b.n)
	return b
}

// exact returns Σ_k (a_k − b_k)² rounded once to float64, failing the test if math/big
// could not carry it out exactly.
func exact(t testing.TB, a, b []float64) float64 {
	const prec = 1200
	sum := new(big.Float).SetPrec(prec)
	var x, y, diff, sq big.Float
	for k := range a {
		x.SetPrec(prec).SetFloat64(a[k])
		y.SetPrec(prec).SetFloat64(b[k])
		diff.SetPrec(prec).Sub(&x, &y)
		sq.SetPrec(prec).Mul(&diff, &diff)
		sum.Add(sum, &sq)
		if diff.Acc() != big.Exact || sq.Acc() != big.Exact || sum.Acc() != big.Exact {
			t.Fatalf("math/big lost precision on %v, %v", a, b)
		}
	}
	f, _ := sum.Float64()
	return f
}

// dataset describes how test records are drawn.
type dataset struct {
	name string
	gen  func(rng *rand.Rand, d, nq, n int) (qs, rs [][]float64)
}

func randRows(rng *rand.Rand, m, d int, f func() float64) [][]float64 {
	rows := make([][]float64, m)
	for i := range rows {
		rows[i] = make([]float64, d)
		for k := range rows[i] {
			rows[i][k] = f()
		}
	}
	return rows
}

var datasets = []dataset{
	{"normal", func(rng *rand.Rand, d, nq, n int) ([][]float64, [][]float64) {
		return randRows(rng, nq, d, rng.NormFloat64), randRows(rng, n, d, rng.NormFloat64)
	}},
	{"offset1e6", func(rng *rand.Rand, d, nq, n int) ([][]float64, [][]float64) {
		f := func() float64 { return 1e6 + 1e-3*rng.NormFloat64() }
		return randRows(rng, nq, d, f), randRows(rng, n, d, f)
	}},
	{"near-duplicates", func(rng *rand.Rand, d, nq, n int) ([][]float64, [][]float64) {
		// References copy queries exactly, or up to one ulp, or are their negation.
		qs := randRows(rng, nq, d, func() float64 { return 100 + rng.NormFloat64() })
		rs := make([][]float64, n)
		for j := range rs {
			src := qs[rng.IntN(nq)]
			rs[j] = make([]float64, d)
			for k, x := range src {
				switch j % 4 {
				case 0, 3:
					rs[j][k] = x
				case 1:
					rs[j][k] = math.Nextafter(x, math.Inf(1))
				case 2:
					rs[j][k] = -x
				}
			}
		}
		return qs, rs
	}},
	{"mixed-scales", func(rng *rand.Rand, d, nq, n int) ([][]float64, [][]float64) {
		f := func() float64 {
			x := math.Ldexp(rng.Float64()+0.5, rng.IntN(60)-30)
			if rng.IntN(2) == 0 {
				x = -x
			}
			if rng.IntN(8) == 0 {
				x = 0
			}
			return x
		}
		return randRows(rng, nq, d, f), randRows(rng, n, d, f)
	}},
}

// checkBlock runs fn on b and compares every entry with the exact distance.
func checkBlock(t *testing.T, name string, fn kernelFunc, b *block, qs, rs [][]float64, outStride int) []float64 {
	t.Helper()
	out := make([]float64, (b.nq-1)*outStride+b.n) // shortest allowed output
	for i := range out {
		out[i] = math.NaN()
	}
	fn(out, outStride, b.q, b.qn, b.nq, b.d, b.r, b.rn, b.stride, b.n)
	for i := range b.nq {
		for j := range b.n {
			got := out[i*outStride+j]
			want := exact(t, qs[i], rs[j])
			bound := ErrorBound(b.qn[i], b.rn[j], b.d)
			if !(math.Abs(got-want) <= bound) {
				t.Fatalf("%s nq=%d n=%d d=%d stride=%d: out[%d,%d] = %g, exact %g, error %g > bound %g",
					name, b.nq, b.n, b.d, b.stride, i, j, got, want, math.Abs(got-want), bound)
			}
		}
		for j := b.n; j < outStride && i*outStride+j < len(out); j++ {
			if !math.IsNaN(out[i*outStride+j]) {
				t.Fatalf("%s wrote out[%d,%d] beyond n=%d", name, i, j, b.n)
			}
		}
	}
	return out
}

func TestAgainstExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	impls := implementations()
	t.Logf("implementation: %s", Implementation())
	for _, ds := range datasets {
		t.Run(ds.name, func(t *testing.T) {
			for trial := range 150 {
				d := 1 + trial%20
				nq := 1 + rng.IntN(9)
				n := 1 + rng.IntN(70)
				if trial < 20 {
					n = 64 + trial%8 // around the tile sizes
				}
				stride := Pad(n) + Lanes*rng.IntN(2)
				outStride := n + rng.IntN(9)
				qs, rs := ds.gen(rng, d, nq, n)
				// Garbage padding must not matter.
				b := newBlock(qs, rs, d, stride, math.NaN())
				var outs [][]float64
				for _, im := range impls {
					outs = append(outs, checkBlock(t, im.name, im.fn, b, qs, rs, outStride))
				}
				// Implementations agree within twice the bound.
				for i := range nq {
					for j := range n {
						bound := ErrorBound(b.qn[i], b.rn[j], d)
						for _, o := range outs[1:] {
							if diff := math.Abs(o[i*outStride+j] - outs[0][i*outStride+j]); !(diff <= 2*bound) {
								t.Fatalf("implementations differ by %g > 2·bound %g", diff, 2*bound)
							}
						}
					}
				}
			}
		})
	}
}

// TestExhaustiveSizes covers every nq ≤ 9 and n ≤ 70 for a few d, including d = 0.
func TestExhaustiveSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{0, 1, 5, 13, 20} {
		for nq := 1; nq <= 9; nq++ {
			qs, rsAll := datasets[0].gen(rng, d, nq, 70)
			want := make([][]float64, nq)
			for i := range want {
				want[i] = make([]float64, len(rsAll))
				for j := range rsAll {
					want[i][j] = exact(t, qs[i], rsAll[j])
				}
			}
			for n := 1; n <= 70; n++ {
				rs := rsAll[:n]
				b := newBlock(qs, rs, d, Pad(n), math.Inf(1))
				for _, im := range implementations() {
					out := make([]float64, (nq-1)*n+n)
					im.fn(out, n, b.q, b.qn, nq, d, b.r, b.rn, b.stride, n)
					for i := range nq {
						for j := range n {
							if got := out[i*n+j]; !(math.Abs(got-want[i][j]) <= ErrorBound(b.qn[i], b.rn[j], d)) {
								t.Fatalf("%s d=%d nq=%d n=%d: out[%d,%d] = %g, want %g", im.name, d, nq, n, i, j, got, want[i][j])
							}
						}
					}
				}
			}
		}
	}
}

func TestIdenticalRowsGiveZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{1, 7, 13, 20} {
		qs := randRows(rng, 5, d, rng.NormFloat64)
		rs := append(append([][]float64{}, qs...), qs...)
		b := newBlock(qs, rs, d, Stride(len(rs)), 0)
		for _, im := range implementations() {
			out := make([]float64, 5*16)
			im.fn(out, 16, b.q, b.qn, 5, d, b.r, b.rn, b.stride, b.n)
			for i := range 5 {
				for _, j := range []int{i, i + 5} {
					if got, bound := out[i*16+j], ErrorBound(b.qn[i], b.rn[j], d); math.Abs(got) > bound {
						t.Errorf("%s d=%d: identical rows give %g, bound %g", im.name, d, got, bound)
					}
				}
			}
		}
	}
}

// TestBoundTightness checks that the bound is not vacuous and reports how much of it
// the observed errors use.
func TestBoundTightness(t *testing.T) {
	for _, d := range []int{1, 5, 13, 20} {
		if b := ErrorBound(float64(d), float64(d), d); !(b < 1e-12*2*float64(d)) {
			t.Errorf("ErrorBound(%d, %d, %d) = %g: vacuous", d, d, d, b)
		}
		// The first-order bound 2(2d+3)u·S, nothing looser.
		if b, want := ErrorBound(1, 1, d), 2*float64(2*d+3)*0x1p-53*2; b > want*1.000001 {
			t.Errorf("ErrorBound(1, 1, %d) = %g > %g", d, b, want)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const d, nq, n = 13, 8, 64
	for _, ds := range datasets[:2] {
		qs, rs := ds.gen(rng, d, nq, n)
		b := newBlock(qs, rs, d, n, 0)
		for _, im := range implementations() {
			out := make([]float64, nq*n)
			im.fn(out, n, b.q, b.qn, nq, d, b.r, b.rn, n, n)
			worst := 0.0
			for i := range nq {
				for j := range n {
					e := math.Abs(out[i*n+j]-exact(t, qs[i], rs[j])) / ErrorBound(b.qn[i], b.rn[j], d)
					worst = max(worst, e)
				}
			}
			t.Logf("%s %s d=%d: largest error / bound = %.3f", ds.name, im.name, d, worst)
		}
	}
}

func TestNorms(t *testing.T) {
	q := []float64{1, 2, 3, 4, 5, 6}
	qn := make([]float64, 2)
	QueryNorms(qn, q, 2, 3)
	if qn[0] != 14 || qn[1] != 77 {
		t.Errorf("QueryNorms = %v", qn)
	}
	r := []float64{1, 2, 0, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0}
	rn := make([]float64, 2)
	RefNorms(rn, r, 2, 8, 2)
	if rn[0] != 10 || rn[1] != 20 {
		t.Errorf("RefNorms = %v", rn)
	}
	if Pad(0) != 0 || Pad(1) != 8 || Pad(8) != 8 || Pad(9) != 16 {
		t.Error("Pad")
	}
	if Stride(2048) != 2056 || Stride(2047) != 2056 || Stride(100) != 104 || Stride(1) != 8 || Stride(256) != 264 {
		t.Error("Stride")
	}
}

func TestPanicsOnBadSizes(t *testing.T) {
	good := func() (out []float64, os int, q, qn []float64, nq, d int, r, rn []float64, st, n int) {
		return make([]float64, 16), 8, make([]float64, 6), make([]float64, 2), 2, 3, make([]float64, 24), make([]float64, 5), 8, 5
	}
	cases := map[string]func(){
		"stride": func() {
			out, os, q, qn, nq, d, r, rn, _, n := good()
			SquaredExpanded(out, os, q, qn, nq, d, r, rn, 4, n)
		},
		"out": func() {
			_, os, q, qn, nq, d, r, rn, st, n := good()
			SquaredExpanded(make([]float64, 12), os, q, qn, nq, d, r, rn, st, n)
		},
		"r": func() {
			out, os, q, qn, nq, d, _, rn, st, n := good()
			SquaredExpanded(out, os, q, qn, nq, d, make([]float64, 20), rn, st, n)
		},
	}
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	out, os, q, qn, nq, d, r, rn, st, n := good()
	SquaredExpanded(out, os, q, qn, nq, d, r, rn, st, n) // must not panic
	SquaredExpanded(nil, 0, nil, nil, 0, 3, nil, nil, 8, 0)
	_ = fmt.Sprint()
}

// TestDispatch checks that SquaredExpanded runs the best kernel the CPU has.
func TestDispatch(t *testing.T) {
	want := "generic"
	if acc := accelerated(); len(acc) > 0 {
		want = acc[0].name
	}
	if Implementation() != want || Accelerated() != (want != "generic") {
		t.Fatalf("Implementation() = %q, Accelerated() = %v; want %q", Implementation(), Accelerated(), want)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	const d, nq, n = 11, 5, 37
	qs, rs := datasets[0].gen(rng, d, nq, n)
	b := newBlock(qs, rs, d, Stride(n), 0)
	got, ref := make([]float64, nq*n), make([]float64, nq*n)
	SquaredExpanded(got, n, b.q, b.qn, nq, d, b.r, b.rn, b.stride, n)
	fn := kernelFunc(Generic)
	for _, im := range implementations() {
		if im.name == want {
			fn = im.fn
		}
	}
	fn(ref, n, b.q, b.qn, nq, d, b.r, b.rn, b.stride, n)
	for i := range got {
		if got[i] != ref[i] {
			t.Fatalf("SquaredExpanded differs from %s at %d: %g vs %g", want, i, got[i], ref[i])
		}
	}
}
