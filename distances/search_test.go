package distances

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// searchData makes a reference file on a coarse grid (so that exact ties occur) and a
// query file = references + noise, with some queries duplicated.
func searchData(rng *rand.Rand, nq, nr, m int) (q, r [][]float64, truth []int) {
	q, r = make([][]float64, m), make([][]float64, m)
	for k := 0; k < m; k++ {
		r[k] = make([]float64, nr)
		q[k] = make([]float64, nq)
		for j := range r[k] {
			r[k][j] = math.Round(rng.NormFloat64()*3) / 3
		}
	}
	truth = make([]int, nq)
	for i := range truth {
		truth[i] = i % nr
		if i%17 == 5 {
			truth[i] = -1 // a query without a partner
		}
		for k := 0; k < m; k++ {
			q[k][i] = r[k][i%nr] + 0.2*rng.NormFloat64()
			if i%11 == 3 {
				q[k][i] = r[k][i%nr] // exactly on a reference: distance 0, maybe tied
			}
		}
	}
	return q, r, truth
}

func testOperators(t *testing.T, rng *rand.Rand, m int) []Operator {
	t.Helper()
	p := make([]float64, m)
	w := make([]float64, m)
	sp, sw := 0.0, 0.0
	for i := range p {
		p[i], w[i] = rng.Float64()+0.1, rng.Float64()
		sp += p[i]
		sw += w[i]
	}
	for i := range p {
		p[i] /= sp
		w[i] /= sw
	}
	wm, err := NewWeightedMean(p)
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var W mat.SymDense
	W.SymOuterK(1, a)
	bil, err := NewBilinear(&W)
	if err != nil {
		t.Fatal(err)
	}
	owa, err := NewOWA(w)
	if err != nil {
		t.Fatal(err)
	}
	// A non-additive, non-symmetric measure: the mean of an additive and a symmetric one.
	add, sym := AdditiveMeasure(p), SymmetricMeasure(w)
	mu := make([]float64, len(add))
	for i := range mu {
		mu[i] = (add[i] + sym[i]) / 2
	}
	ch, err := NewChoquet(mu, m)
	if err != nil {
		t.Fatal(err)
	}
	return []Operator{NewEuclidean(m), wm, bil, owa, ch}
}

// bruteForce evaluates every pair with Operator.Distance and applies the definitions.
func bruteForce(q, r [][]float64, truth []int, op Operator, topK int, margin float64) []QueryResult {
	m := len(q)
	nq, nr := len(q[0]), len(r[0])
	a, b := make([]float64, m), make([]float64, m)
	out := make([]QueryResult, nq)
	for i := 0; i < nq; i++ {
		for k := range a {
			a[k] = q[k][i]
		}
		d := make([]Neighbor, nr)
		for j := 0; j < nr; j++ {
			for k := range b {
				b[k] = r[k][j]
			}
			d[j] = Neighbor{j, op.Distance(a, b)}
		}
		res := QueryResult{True: truth[i]}
		best := math.Inf(1)
		for _, c := range d {
			best = math.Min(best, c.Distance)
		}
		res.NearestDistance, res.Nearest = best, -1
		for _, c := range d {
			if c.Distance <= best+TieTolerance*best {
				res.Ties++
				if res.Nearest < 0 {
					res.Nearest = c.Index
				}
			}
		}
		if t := truth[i]; t >= 0 {
			dt := d[t].Distance
			res.TrueDistance = dt
			for _, c := range d {
				if c.Index == t {
					continue
				}
				if c.Distance < dt-TieTolerance*dt {
					res.TrueRank++
				}
				if c.Distance-dt < margin {
					res.Closer = append(res.Closer, c)
				}
			}
			res.CloserCount = len(res.Closer)
		}
		sorted := append([]Neighbor(nil), d...)
		sort.Slice(sorted, func(x, y int) bool { return less(sorted[x], sorted[y]) })
		res.TopK = sorted[:min(topK, nr)]
		out[i] = res
	}
	return out
}

// TestSearchAgainstBruteForce: every field of every query result equals the brute-force
// evaluation (distances to a relative 1e-12: the core evaluates embedded operators in
// the transformed space), for every operator, both kernels and several thread counts.
func TestSearchAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 20))
	const m = 5
	// 2600 references: more than one reference block, with a ragged last block.
	q, r, truth := searchData(rng, 300, 2600, m)
	const topK, margin = 4, 0.05
	for _, op := range testOperators(t, rng, m) {
		want := bruteForce(q, r, truth, op, topK, margin)
		var first []QueryResult
		for _, s := range []Settings{{Threads: 1, Generic: true}, {Threads: 2}, {Threads: 5}} {
			s.TopK, s.Closer, s.Margin = topK, true, margin
			got, err := Search(q, r, truth, op, s)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got
			} else if !reflect.DeepEqual(first, got) {
				t.Errorf("%s: results with %+v differ from one thread with the portable kernel", op.Name(), s)
			}
			for i := range want {
				if msg := compareResult(&want[i], &got[i]); msg != "" {
					t.Errorf("%s %+v: query %d: %s", op.Name(), s, i, msg)
					break
				}
			}
		}
		// CountCloser counts the same candidates without keeping them.
		counted, err := Search(q, r, truth, op, Settings{CountCloser: true, Margin: margin})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if counted[i].CloserCount != len(want[i].Closer) || counted[i].Closer != nil {
				t.Errorf("%s CountCloser: query %d: count %d, kept %d; want %d, none kept", op.Name(), i, counted[i].CloserCount, len(counted[i].Closer), len(want[i].Closer))
				break
			}
		}
	}
}

// TestSearchSortedBlocks: the OWA and Choquet kernels' path (a sorting network on blocks
// of references, candidates above the query's threshold skipped in bulk) gives exactly
// the results of the pair-by-pair path (Settings.Generic) for every combination of the
// outputs that set the threshold, and the brute force's with every output on.
func TestSearchSortedBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 40))
	for _, m := range []int{2, 13} {
		// 1,100 references: blocks of 384 and a last one that is not a multiple of 32.
		q, r, truth := searchData(rng, 200, 1100, m)
		w := make([]float64, m)
		for k := range w {
			if k%3 != 1 { // zero weights leave some diffs out
				w[k] = rng.Float64()
			}
		}
		sum := 0.0
		for _, v := range w {
			sum += v
		}
		for k := range w {
			w[k] /= sum
		}
		owa, err := NewOWA(w)
		if err != nil {
			t.Fatal(err)
		}
		// A non-additive, non-symmetric measure, as in testOperators.
		add, sym := AdditiveMeasure(w), SymmetricMeasure(w)
		mu := make([]float64, len(add))
		for i := range mu {
			mu[i] = (add[i] + sym[i]) / 2
		}
		choquet, err := NewChoquet(mu, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []Operator{owa, choquet} {
			for _, c := range []struct {
				name  string
				s     Settings
				truth []int
			}{
				{"plain", Settings{}, truth},
				{"no truth", Settings{}, nil},
				{"top-k", Settings{TopK: 3}, truth},
				{"closer", Settings{Closer: true, Margin: 0.3}, truth},
				{"all", Settings{TopK: 4, Closer: true, Margin: 0.05}, truth},
			} {
				slow := c.s
				slow.Generic, slow.Threads = true, 1
				want, err := Search(q, r, c.truth, op, slow)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Search(q, r, c.truth, op, c.s)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(want, got) {
					for i := range want {
						if !reflect.DeepEqual(want[i], got[i]) {
							t.Errorf("%s m=%d %s: query %d: %+v, pair by pair %+v", op.Name(), m, c.name, i, got[i], want[i])
							break
						}
					}
				}
				if c.name == "all" {
					brute := bruteForce(q, r, truth, op, c.s.TopK, c.s.Margin)
					for i := range brute {
						if msg := compareResult(&brute[i], &got[i]); msg != "" {
							t.Errorf("%s m=%d: query %d: %s", op.Name(), m, i, msg)
							break
						}
					}
				}
			}
		}
	}
}

func close12(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) || (math.IsNaN(a) && math.IsNaN(b))
}

func compareResult(want, got *QueryResult) string {
	switch {
	case want.Nearest != got.Nearest || want.Ties != got.Ties:
		return "nearest/ties differ"
	case !close12(want.NearestDistance, got.NearestDistance):
		return "nearest distance differs"
	case want.True != got.True || want.TrueRank != got.TrueRank || !close12(want.TrueDistance, got.TrueDistance):
		return "true partner differs"
	case len(want.TopK) != len(got.TopK):
		return "top-k length differs"
	case len(want.Closer) != len(got.Closer):
		return "closer list differs"
	case want.CloserCount != got.CloserCount:
		return "closer count differs"
	}
	// The two evaluate the distance in different (equally exact) forms, so candidates tied
	// to rounding may swap places: indices must agree unless a neighbour ties.
	tied := func(a, b float64) bool { return math.Abs(a-b) <= TieTolerance*math.Max(a, b) }
	for k, w := range want.TopK {
		g := got.TopK[k]
		if !close12(w.Distance, g.Distance) {
			return "top-k distances differ"
		}
		if w.Index != g.Index && !(k > 0 && tied(w.Distance, want.TopK[k-1].Distance)) &&
			!(k+1 < len(want.TopK) && tied(w.Distance, want.TopK[k+1].Distance)) {
			return "top-k differs"
		}
	}
	for k := range want.Closer {
		if want.Closer[k].Index != got.Closer[k].Index {
			return "closer list differs"
		}
	}
	return ""
}

// TestSearchCancellation: with a large common offset the expanded form |q|²+|r|²−2q·r
// loses every digit of a small distance; the direct-form re-check must still find the
// true nearest neighbours that a naive loop finds.
func TestSearchCancellation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const m, n = 3, 500
	q, r := make([][]float64, m), make([][]float64, m)
	for k := 0; k < m; k++ {
		q[k], r[k] = make([]float64, n), make([]float64, n)
		for j := 0; j < n; j++ {
			r[k][j] = 1e4 + 1e-3*rng.NormFloat64()
			q[k][j] = r[k][j] + 1e-5*rng.NormFloat64()
		}
	}
	truth := make([]int, n)
	for i := range truth {
		truth[i] = i
	}
	op := NewEuclidean(m)
	want := bruteForce(q, r, truth, op, 0, 0)
	got, err := Search(q, r, truth, op, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if want[i].Nearest != got[i].Nearest || want[i].TrueRank != got[i].TrueRank {
			t.Fatalf("query %d: nearest %d rank %d, brute force %d %d", i, got[i].Nearest, got[i].TrueRank, want[i].Nearest, want[i].TrueRank)
		}
	}
}

func TestSearchShapeErrors(t *testing.T) {
	q := [][]float64{{1, 2}, {3, 4}}
	cases := []struct {
		q, r  [][]float64
		truth []int
	}{
		{q, [][]float64{{1}}, nil},
		{q, [][]float64{{1, 2}, {3}}, nil},
		{q, q, []int{0}},
		{q, q, []int{0, 5}},
		{q, [][]float64{{}, {}}, nil},
	}
	for i, c := range cases {
		if _, err := Search(c.q, c.r, c.truth, NewEuclidean(2), Settings{}); !errors.Is(err, ErrShape) {
			t.Errorf("case %d: err = %v, want ErrShape", i, err)
		}
	}
	// A margin that is not a number would prune every candidate, silently.
	for _, m := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := Search(q, q, []int{0, 1}, NewEuclidean(2), Settings{CountCloser: true, Margin: m}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("margin %v: err = %v, want ErrNotFinite", m, err)
		}
	}
}

func BenchmarkSearchEuclidean(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	q, r, truth := searchData(rng, 4000, 4000, 13)
	op := NewEuclidean(13)
	for _, generic := range []bool{false, true} {
		name := "accelerated"
		if generic {
			name = "generic"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Search(q, r, truth, op, Settings{Generic: generic}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(4000*4000), "ns/pair")
		})
	}
}

// TestSearchFilteredBlocks exercises the kernel's per-query filter across many reference
// blocks: without truth (the first block is kept whole, later ones only near the best),
// with a large common offset (the filter limit must leave room for the kernel's error),
// with duplicated references (exact ties spread over blocks), and checks every field
// against brute force and the portable kernel against the accelerated one.
func TestSearchFilteredBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 40))
	const m, nq, nr = 4, 150, 3*refBlock + 37
	q, r, truth := searchData(rng, nq, nr, m)
	// Copies of a few references in later blocks: ties across blocks.
	for j := 0; j < 40; j++ {
		src, dst := j, refBlock+5+j*25
		for k := range r {
			r[k][dst] = r[k][src]
		}
	}
	off := make([][]float64, m)
	offQ := make([][]float64, m)
	for k := range r {
		off[k] = make([]float64, nr)
		offQ[k] = make([]float64, nq)
		for j := range off[k] {
			off[k][j] = 1e5 + r[k][j]
		}
		for i := range offQ[k] {
			offQ[k][i] = 1e5 + q[k][i]
		}
	}
	op := NewEuclidean(m)
	for _, c := range []struct {
		name  string
		q, r  [][]float64
		truth []int
		s     Settings
	}{
		{"no truth", q, r, nil, Settings{}},
		{"no truth, top 3", q, r, nil, Settings{TopK: 3}},
		{"truth", q, r, truth, Settings{}},
		{"truth, closer", q, r, truth, Settings{Closer: true, Margin: 0.1}},
		{"offset, no truth", offQ, off, nil, Settings{}},
		{"offset, truth, top 2", offQ, off, truth, Settings{TopK: 2}},
	} {
		tr := c.truth
		if tr == nil {
			tr = make([]int, nq)
			for i := range tr {
				tr[i] = -1
			}
		}
		want := bruteForce(c.q, c.r, tr, op, c.s.TopK, c.s.Margin)
		if !c.s.Closer {
			for i := range want {
				want[i].Closer, want[i].CloserCount = nil, 0
			}
		}
		var first []QueryResult
		for _, generic := range []bool{true, false} {
			s := c.s
			s.Generic, s.Threads = generic, 3
			got, err := Search(c.q, c.r, c.truth, op, s)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got
			} else if !reflect.DeepEqual(first, got) {
				t.Errorf("%s: accelerated results differ from the portable kernel's", c.name)
			}
			for i := range want {
				if c.s.TopK == 0 {
					want[i].TopK = nil
				}
				if msg := compareResult(&want[i], &got[i]); msg != "" {
					t.Errorf("%s generic=%v: query %d: %s", c.name, generic, i, msg)
					break
				}
			}
		}
	}
}

// TestTransformSumOrder: the transformed records are, bit for bit, the dot products of
// T's rows with the record summed in attribute order from zero (the order the row-wise
// loop of earlier versions used), for both files and each embedded operator.
func TestTransformSumOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const m, nq, nr = 9, 3000, 2500 // more than one chunk of the parallel transform
	q, r, _ := searchData(rng, nq, nr, m)
	for _, op := range testOperators(t, rng, m)[:3] {
		T := op.(Embedder).Transform()
		sc := scanner{ctx: context.Background(), settings: Settings{Threads: 3}}
		sc.prepareEmbedded(q, r, T)
		d, _ := T.Dims()
		want := func(x [][]float64, i, k int) float64 {
			s := 0.0
			for a := range m {
				s += float64(T.At(k, a) * x[a][i]) // rounded: no fused multiply-add
			}
			return s
		}
		for k := range d {
			for i := range nq {
				if w := want(q, i, k); w != sc.q[i*d+k] {
					t.Fatalf("%s: query %d attribute %d: %v, want %v", op.Name(), i, k, sc.q[i*d+k], w)
				}
			}
			for j := range nr {
				if w := want(r, j, k); w != sc.r[k*sc.stride+j] || w != sc.rT[j*d+k] {
					t.Fatalf("%s: reference %d attribute %d: %v / %v, want %v", op.Name(), j, k, sc.r[k*sc.stride+j], sc.rT[j*d+k], w)
				}
			}
		}
	}
}

// TestTransformSparse checks that skipping T's zero coefficients changes no bit of the
// transformed records, for a diagonal T, a T with scattered zeros, and records holding
// ±Inf, NaN and signed zeros (which take the full sum).
func TestTransformSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const m, n = 6, 203
	cols := make([][]float64, m)
	for a := range cols {
		cols[a] = make([]float64, n)
		for i := range cols[a] {
			cols[a][i] = rng.NormFloat64()
			switch rng.IntN(40) {
			case 0:
				cols[a][i] = math.Inf(1 - 2*rng.IntN(2))
			case 1:
				cols[a][i] = math.NaN()
			case 2:
				cols[a][i] = math.Copysign(0, -1)
			case 3:
				cols[a][i] = 0
			}
		}
	}
	diag := make([][]float64, m)
	scattered := make([][]float64, m)
	for k := range diag {
		diag[k] = make([]float64, m)
		diag[k][k] = rng.Float64() + 0.1
		scattered[k] = make([]float64, m)
		for a := range scattered[k] {
			if rng.IntN(3) > 0 {
				scattered[k][a] = rng.NormFloat64()
			}
		}
	}
	for name, tr := range map[string][][]float64{"diagonal": diag, "scattered": scattered} {
		sp := sparseRows(tr)
		if sp == nil {
			t.Fatalf("%s: sparseRows found no zero", name)
		}
		dense := make([]float64, n*m)
		sparse := make([]float64, n*m)
		transformRows(dense, cols, tr, nil, 0, n)
		transformRows(sparse, cols, tr, sp, 0, n)
		for x := range dense {
			if math.Float64bits(dense[x]) != math.Float64bits(sparse[x]) && !(math.IsNaN(dense[x]) && math.IsNaN(sparse[x])) {
				t.Fatalf("%s: record %d, coordinate %d: sparse %v, dense %v", name, x/m, x%m, sparse[x], dense[x])
			}
		}
	}
	if sparseRows([][]float64{{1, 2}, {3, 4}}) != nil {
		t.Error("sparseRows of a matrix without zeros is not nil")
	}
}

// TestSearchHugeValues: finite values whose squared differences overflow made OWA's
// distances NaN (0·Inf) and the sorted path's threshold NaN, which skipped every later
// candidate (the reviewer's case: nearest 1 at 4 where 2 is at 1): refused like NaN.
func TestSearchHugeValues(t *testing.T) {
	owa, err := NewOWA([]float64{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	q := [][]float64{{0}, {0}}
	r := [][]float64{{1e200, 2, 1}, {0, 2, 1}}
	if _, err := Search(q, r, []int{0}, owa, Settings{}); !errors.Is(err, ErrNotFinite) {
		t.Errorf("references beyond MaxMagnitude: err %v, want ErrNotFinite", err)
	}
	r[0][0] = MaxMagnitude
	if _, err := Search(q, r, []int{0}, owa, Settings{}); err != nil {
		t.Errorf("references at MaxMagnitude: %v", err)
	}
}

// TestSearchContextStops: a search whose context is done returns the context's error
// and no results, at once when done before it starts, and part-way when cancelled by
// its own progress callback after the first block (it would run the file otherwise).
func TestSearchContextStops(t *testing.T) {
	const n, m = 4096, 3
	x := make([][]float64, m)
	for k := range x {
		x[k] = make([]float64, n)
		for i := range x[k] {
			x[k][i] = float64((i*(k+7))%101) / 10
		}
	}
	op := NewEuclidean(m)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := SearchContext(ctx, x, x, nil, op, Settings{}); !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("done before: %d results, err %v", len(res), err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var done atomic.Int64
	res, err := SearchContext(ctx, x, x, nil, op, Settings{Threads: 1, Progress: func(q int) {
		done.Add(int64(q))
		cancel()
	}})
	if !errors.Is(err, context.Canceled) || res != nil || done.Load() >= n {
		t.Errorf("cancelled after a block: %d results, err %v, %d of %d queries done", len(res), err, done.Load(), n)
	}
	if res, err := SearchContext(context.Background(), x, x, nil, op, Settings{}); err != nil || len(res) != n {
		t.Errorf("not cancelled: %d results, err %v", len(res), err)
	}
}
