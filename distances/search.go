package distances

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/reid-sdc/reid/distances/internal/kernel"
	"github.com/reid-sdc/reid/internal/workers"
)

// TieTolerance is the relative tolerance under which two distances count as tied: d ties
// with the best distance b when d ≤ b + TieTolerance·b. Exact duplicates give bit-identical
// distances; the tolerance only absorbs rounding (the direct form of a squared distance
// has a relative error below (m+1)·2⁻⁵³, about 1e-15 for m = 13).
const TieTolerance = 1e-12

func tieSlack(d float64) float64 { return TieTolerance * math.Abs(d) }

// directSlack covers the rounding of the direct form itself (relative error below
// (d+1)·2⁻⁵³ < 1e-13 for d < 900) when a limit computed from direct-form values is compared
// with the kernel's error-bounded approximations: a candidate is skipped only when it is
// certainly beyond the limit.
func directSlack(limit float64) float64 { return limit + 1e-13*math.Abs(limit) }

// Neighbor is a candidate record and its distance.
type Neighbor struct {
	Index    int
	Distance float64
}

// QueryResult is what the core keeps for one query record.
type QueryResult struct {
	// Nearest is the candidate at the smallest distance (the lowest index among ties) and
	// NearestDistance the smallest distance, the ties' reference: Nearest's own distance
	// is within TieTolerance of it, not always equal.
	Nearest         int
	NearestDistance float64
	// Ties is the number of candidates tied at the best distance (≥ 1): the size of the
	// anonymity set of the query.
	Ties int
	// True is the true partner (−1 when the query has none); TrueDistance its distance and
	// TrueRank the number of candidates strictly closer (not tied) than it (both 0 when
	// there is no true partner).
	True         int
	TrueDistance float64
	TrueRank     int
	// TopK holds the Settings.TopK nearest candidates by (distance, index).
	TopK []Neighbor
	// Closer holds, when Settings.Closer is set, every candidate other than the true
	// partner whose distance d has d − TrueDistance < Settings.Margin, by index.
	Closer []Neighbor
	// CloserCount is the number of those candidates, counted when Settings.Closer or
	// Settings.CountCloser is set.
	CloserCount int
}

// TrueInTies reports whether the true partner is in the anonymity set of the query.
func (r *QueryResult) TrueInTies() bool {
	return r.True >= 0 && r.TrueDistance <= r.NearestDistance+tieSlack(r.NearestDistance)
}

// Settings tunes Search. The zero value uses every core, the fastest kernel, and keeps
// neither top-k lists nor closer candidates.
type Settings struct {
	// Threads is the number of goroutines; 0 means GOMAXPROCS. Results do not depend on it.
	Threads int
	// TopK keeps the k nearest candidates of each query.
	TopK int
	// Closer collects the candidates closer than the true partner plus Margin, d −
	// d_true < Margin (a separation oracle; the worst-case optimiser needs only their
	// number, CountCloser). The difference is taken, not d_true + Margin, so that a
	// Margin below the rounding of the distances still counts an exact tie as closer.
	Closer bool
	// CountCloser counts those candidates (QueryResult.CloserCount) without keeping them:
	// a caller that needs only whether a query is linked with margin Margin pays no
	// memory where thousands of candidates tie (files of a few discrete attributes).
	CountCloser bool
	Margin      float64
	// Generic forces the portable Go kernel (embedded operators) and the pair-by-pair
	// path (OWA, Choquet): the same results, for tests and benchmarks.
	Generic bool
	// Progress, when set, is called after each block of queries with the number of
	// queries it finished; calls may come from several goroutines at once.
	Progress func(queries int)
}

// Blocking: a block of queryBlock queries runs against reference blocks of refBlock
// references in one kernel call, which reads each reference tile once into L1 for all of
// its queries. With 8 queries per block, the references (2 MB at N = 20,000, d = 13)
// streamed from L3 once per 8 queries and bounded the speed; with 64, the traffic is 8×
// smaller. refBlock = 21 × 24 is a whole number of the filtered kernel's 8 × 24 register
// tiles (kernel.Group), so that only the last block of a file has a partial tile, and at
// most kernel.MaxFiltered; the 64 × 504 distances of a call (252 KiB) are only written
// where a query has a candidate (see block). Query blocks and the transform's chunks
// start at multiples of kernel.Lanes, so each is whole groups of the packed queries
// (kernel.PackQueries); the unsigned constants below do not compile otherwise.
const (
	queryBlock     = 64
	refBlock       = 504
	transformChunk = 1024
)

const (
	_ uint = -(queryBlock % kernel.Lanes)
	_ uint = -(transformChunk % kernel.Lanes)
)

// ErrShape reports inputs of inconsistent sizes.
var ErrShape = errors.New("distances: inconsistent input sizes")

// ErrNotFinite reports a NaN or ±Inf among the records, or a value beyond ±MaxMagnitude
// whose squared differences overflow: no distance to it orders the candidates (every
// comparison with NaN is false, and Inf − Inf or 0·Inf is NaN), so a search would return
// a link that means nothing, with no error.
var ErrNotFinite = errors.New("distances: value is not finite (NaN or ±Inf) or its squares overflow")

// MaxMagnitude is the largest |value| CheckFinite accepts: squares of differences up to
// twice it stay far from overflow (standardised data are within ±√n).
const MaxMagnitude = 1e150

// CheckFinite returns an error wrapping ErrNotFinite for the first NaN, ±Inf or value
// beyond ±MaxMagnitude of x (column-major, attribute by attribute), naming the file by
// side.
func CheckFinite(side string, x [][]float64) error {
	for k, col := range x {
		for i, v := range col {
			if !(math.Abs(v) <= MaxMagnitude) {
				return fmt.Errorf("%w: %s: attribute %d of record %d (0-based) is %v", ErrNotFinite, side, k, i, v)
			}
		}
	}
	return nil
}

// Search compares every query record with every reference record under op and returns one
// QueryResult per query. queries and refs are column-major standardised values (x[k][i] is
// attribute k of record i) with op.Attributes() attributes; truth[i] is the reference that
// is the true partner of query i, or −1 (truth may be nil).
//
// Embedder operators (Euclidean, WM, bilinear, Mahalanobis) run on one squared-Euclidean
// kernel after transforming both files once; a candidate that could matter (best, tie,
// rank of the true partner, top-k, closer list) is then re-evaluated in the direct form
// Σ_k (Tq − Tr)_k², so cancellation in the kernel's expanded form never flips a link
// (the kernel's error bound decides what to re-evaluate). OWA and Choquet (up to
// kernel.MaxSorted attributes) run on blocks of references with sorting-network kernels
// whose distances are bit-identical to their Distance; other operators are evaluated pair
// by pair with Operator.Distance. The N×M matrix is never stored, and the results are identical
// for every number of threads. Where many references are bit-identical copies (files of a
// few discrete attributes), one of each is scanned and weighed by its copies, with the
// same results.
//
// Errors wrap ErrShape (sizes that do not match, no attribute, no reference record, a
// true partner that is not a reference) or ErrNotFinite (a NaN or ±Inf in either file,
// named by side, attribute and record).
func Search(queries, refs [][]float64, truth []int, op Operator, s Settings) ([]QueryResult, error) {
	return SearchContext(context.Background(), queries, refs, truth, op, s)
}

// SearchContext is Search that stops when ctx is done, between two blocks of queries
// (about a millisecond of work each), returning ctx's error: on hundreds of thousands
// of records a search takes minutes, which an interrupted caller should not wait for.
func SearchContext(ctx context.Context, queries, refs [][]float64, truth []int, op Operator, s Settings) ([]QueryResult, error) {
	m := op.Attributes()
	if len(queries) != m || len(refs) != m {
		return nil, fmt.Errorf("%w: operator on %d attributes, queries have %d, references %d", ErrShape, m, len(queries), len(refs))
	}
	if m == 0 {
		return nil, fmt.Errorf("%w: no attribute", ErrShape)
	}
	nq, nr := len(queries[0]), len(refs[0])
	for k := 0; k < m; k++ {
		if len(queries[k]) != nq || len(refs[k]) != nr {
			return nil, fmt.Errorf("%w: attribute %d has %d queries and %d references, want %d and %d", ErrShape, k+1, len(queries[k]), len(refs[k]), nq, nr)
		}
	}
	if truth != nil && len(truth) != nq {
		return nil, fmt.Errorf("%w: %d truth entries for %d queries", ErrShape, len(truth), nq)
	}
	if nr == 0 {
		return nil, fmt.Errorf("%w: no reference records", ErrShape)
	}
	for i, t := range truth {
		if t >= nr {
			return nil, fmt.Errorf("%w: true partner %d of query %d is not a reference", ErrShape, t, i)
		}
	}
	if err := CheckFinite("queries", queries); err != nil {
		return nil, err
	}
	if err := CheckFinite("references", refs); err != nil {
		return nil, err
	}
	if math.IsNaN(s.Margin) || math.IsInf(s.Margin, 0) {
		// A NaN margin makes every threshold NaN, which prunes every candidate.
		return nil, fmt.Errorf("%w: margin %v", ErrNotFinite, s.Margin)
	}
	results := search(ctx, queries, refs, truth, op, s, findReferenceGroups(refs))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// search runs the scan on valid inputs; with groups (identical references), on one
// reference of each group, weighed by its copies.
func search(ctx context.Context, queries, refs [][]float64, truth []int, op Operator, s Settings, groups *referenceGroups) []QueryResult {
	var sc scanner
	sc.ctx = ctx
	sc.settings = s
	sc.truth = truth
	if groups != nil {
		refs = groups.distinct(refs)
		sc.truth = groups.groupTruth(truth)
		sc.weight = groups.weight
	}
	if e, ok := op.(Embedder); ok {
		sc.prepareEmbedded(queries, refs, e.Transform())
	} else {
		sc.preparePairwise(queries, refs, op)
	}
	results := sc.run(len(queries[0]), len(refs[0]))
	if groups != nil {
		for i := range results {
			t := -1
			if truth != nil {
				t = truth[i]
			}
			groups.expand(&results[i], t, s.TopK)
		}
	}
	return results
}

// scanner holds the prepared data of one Search.
type scanner struct {
	ctx      context.Context // done: the remaining blocks are skipped
	settings Settings
	truth    []int
	// weight is the number of copies of each reference (nil: one each); see
	// referenceGroups.
	weight   []int
	embedded bool
	d        int // attributes after the transform
	nr       int
	// Embedded: queries row-major (q[i*d+k]) and packed for the AVX-512 kernel (qp, see
	// kernel.PackQueries), with norms; references attribute-major with stride,
	// zero-padded, with norms.
	q, qp, qn  []float64
	r, rn      []float64
	rnMax      []float64 // largest reference norm of each reference block
	rnAll      float64   // largest reference norm
	rT         []float64 // transformed references row-major, for the direct re-check
	stride     int
	generic    bool
	op         Operator
	qRows      []float64 // pairwise: row-major raw records
	rRows      []float64
	attributes int
	// sorted (OWA and Choquet, on blocks) computes the exact distances of a query to n
	// references; the raw references are then also in r, attribute-major with stride.
	sorted func(out, q, r []float64, stride, n int)
}

func (sc *scanner) prepareEmbedded(queries, refs [][]float64, t *mat.Dense) {
	sc.embedded = true
	d, m := t.Dims()
	sc.d, sc.attributes = d, m
	nq, nr := len(queries[0]), len(refs[0])
	sc.nr = nr
	sc.generic = sc.settings.Generic
	// T's rows, read directly (At's bounds checks cost more than the products).
	tr := make([][]float64, d)
	for k := range tr {
		tr[k] = mat.Row(nil, k, t)
	}
	sc.q = make([]float64, nq*d)
	sc.qp = make([]float64, kernel.PackedLen(nq, d))
	sc.qn = make([]float64, nq)
	// Stride, not Pad: rows exactly a power of two apart would share L1 sets.
	sc.stride = kernel.Stride(nr)
	sc.r = make([]float64, d*sc.stride)
	sc.rn = make([]float64, sc.stride)
	// Row-major copy for the direct re-check: one or two cache lines per candidate
	// instead of d.
	sc.rT = make([]float64, nr*d)
	// Transforming both files is the only work of Search that is not per query block; it
	// is split over the threads too (every record on its own, so the result does not
	// depend on the split).
	sp := sparseRows(tr)
	sc.parallel(nq+nr, transformChunk, func() func(lo, hi int) {
		return func(lo, hi int) { sc.transform(queries, refs, tr, sp, lo, hi) }
	})
	sc.rnMax = make([]float64, (nr+refBlock-1)/refBlock)
	for j := 0; j < nr; j++ {
		b := j / refBlock
		sc.rnMax[b] = math.Max(sc.rnMax[b], sc.rn[j])
		if sc.rn[j] > sc.rnAll { // not math.Max: a NaN norm only disables its own block, as in scanBlock
			sc.rnAll = sc.rn[j]
		}
	}
}

// transform computes the transformed records lo ≤ x < hi of the queries (x < nq) and
// references (x − nq) into sc.q, sc.qn, sc.r, sc.rn and sc.rT. The reference norms are
// summed from the row-major copy in attribute order, the same sums as kernel.RefNorms
// would take down the columns, but on every thread instead of after the transform on one.
func (sc *scanner) transform(queries, refs, tr [][]float64, sp []sparseRow, lo, hi int) {
	d, nq := sc.d, len(sc.qn)
	if lo < nq {
		end := min(hi, nq)
		transformRows(sc.q, queries, tr, sp, lo, end)
		kernel.QueryNorms(sc.qn[lo:end], sc.q[lo*d:end*d], end-lo, d)
		// lo is a multiple of transformChunk, hence of kernel.Lanes: whole groups.
		kernel.PackQueries(sc.qp[lo*d:], sc.q[lo*d:end*d], end-lo, d)
		lo = end
	}
	if lo < hi {
		lo, hi = lo-nq, hi-nq
		transformRows(sc.rT, refs, tr, sp, lo, hi)
		kernel.QueryNorms(sc.rn[lo:hi], sc.rT[lo*d:hi*d], hi-lo, d)
		for k := range d {
			col := sc.r[k*sc.stride:]
			for j := lo; j < hi; j++ {
				col[j] = sc.rT[j*d+k]
			}
		}
	}
}

// sparseRow is the nonzero coefficients of one row of T, in attribute order.
type sparseRow struct {
	attr []int
	coef []float64
}

// sparseRows returns T's rows without their zeros, or nil when T has no zero: the
// transforms of Euclidean and weighted-mean distances are diagonal, so one product per
// attribute replaces d.
func sparseRows(tr [][]float64) []sparseRow {
	sp := make([]sparseRow, len(tr))
	zeros := false
	for k, row := range tr {
		for a, t := range row {
			if t == 0 {
				zeros = true
				continue
			}
			sp[k].attr = append(sp[k].attr, a)
			sp[k].coef = append(sp[k].coef, t)
		}
	}
	if !zeros {
		return nil
	}
	return sp
}

// transformRows sets dst[i*d+k] = Σ_a tr[k][a]·cols[a][i] for lo ≤ i < hi, each sum taken
// in attribute order from zero (a dot product of row k of T with the record). Four
// records go together, so that four sums advance at once instead of one chain of
// dependent additions.
//
// With sp (T's nonzeros, see sparseRows) the zero terms are skipped: adding 0·x = ±0 to a
// sum changes no bit of it (a sum that is +0 stays +0, any other is unchanged), so the
// result is the same, except for a record with an infinite or NaN value, where 0·x is
// NaN; such records take the full sum. The products are rounded before they are added
// (explicit conversions), so that a build with fused multiply-adds (GOAMD64=v3) gives the
// same bits as any other.
func transformRows(dst []float64, cols, tr [][]float64, sp []sparseRow, lo, hi int) {
	d := len(tr)
	if sp != nil {
		for i := lo; i < hi; i++ {
			finite := 0.0
			for _, c := range cols {
				finite += c[i] - c[i] // NaN exactly when some value is ±Inf or NaN
			}
			if finite != 0 {
				transformRows(dst, cols, tr, nil, i, i+1)
				continue
			}
			out := dst[i*d : i*d+d]
			for k, row := range sp {
				s := 0.0
				for x, a := range row.attr {
					s += float64(row.coef[x] * cols[a][i])
				}
				out[k] = s
			}
		}
		return
	}
	i := lo
	for ; i+4 <= hi; i += 4 {
		for k, row := range tr {
			var s0, s1, s2, s3 float64
			for a, t := range row {
				c := cols[a][i : i+4 : i+4]
				s0 += float64(t * c[0])
				s1 += float64(t * c[1])
				s2 += float64(t * c[2])
				s3 += float64(t * c[3])
			}
			dst[i*d+k], dst[(i+1)*d+k], dst[(i+2)*d+k], dst[(i+3)*d+k] = s0, s1, s2, s3
		}
	}
	for ; i < hi; i++ {
		for k, row := range tr {
			s := 0.0
			for a, t := range row {
				s += float64(t * cols[a][i])
			}
			dst[i*d+k] = s
		}
	}
}

func (sc *scanner) preparePairwise(queries, refs [][]float64, op Operator) {
	m := op.Attributes()
	sc.op, sc.attributes = op, m
	nq, nr := len(queries[0]), len(refs[0])
	sc.nr = nr
	sc.qRows = rowMajor(queries, nq, m)
	sc.rRows = rowMajor(refs, nr, m)
	if m > kernel.MaxSorted || sc.settings.Generic {
		return
	}
	// OWA and Choquet on blocks of references: the kernels sort eight pairs' diffs at
	// once with a sorting network, bit-identical to Distance (which still gives the true
	// partner's distance).
	net := kernel.SortingNetwork(m)
	switch o := op.(type) {
	case *OWA:
		sc.sorted = func(out, q, r []float64, stride, n int) {
			kernel.OWADistances(out, q, o.w, net, r, stride, n)
		}
	case *Choquet:
		sc.sorted = func(out, q, r []float64, stride, n int) {
			kernel.ChoquetDistances(out, q, o.mu, m, net, r, stride, n)
		}
	}
	if sc.sorted != nil {
		sc.stride = kernel.Stride(nr)
		sc.r = make([]float64, m*sc.stride)
		for k, col := range refs {
			copy(sc.r[k*sc.stride:], col)
		}
	}
}

func rowMajor(cols [][]float64, n, m int) []float64 {
	rows := make([]float64, n*m)
	for k := 0; k < m; k++ {
		for i, v := range cols[k] {
			rows[i*m+k] = v
		}
	}
	return rows
}

// run splits the queries into blocks taken by Threads goroutines in any order; each
// query's result depends only on that query, so the output is the same for any order.
func (sc *scanner) run(nq, nr int) []QueryResult {
	results := make([]QueryResult, nq)
	sc.parallel(nq, queryBlock, func() func(lo, hi int) {
		ws := newWorkspace(sc)
		return func(lo, hi int) {
			ws.block(results, lo, hi)
			if sc.settings.Progress != nil {
				sc.settings.Progress(hi - lo)
			}
		}
	})
	return results
}

// parallel splits [0, n) into chunks of the given size taken in any order by
// Settings.Threads goroutines, each of which calls worker once for its function of a chunk
// (so that it can own scratch memory).
func (sc *scanner) parallel(n, chunk int, worker func() func(lo, hi int)) {
	threads := sc.settings.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	chunks := (n + chunk - 1) / chunk
	threads = max(1, min(threads, chunks))
	var next atomic.Int64
	var g workers.Group
	for range threads {
		g.Go(func() {
			f := worker()
			for {
				c := int(next.Add(1)) - 1
				if c >= chunks || sc.ctx.Err() != nil || g.Failing() {
					return
				}
				f(c*chunk, min(c*chunk+chunk, n))
			}
		})
	}
	g.Wait()
}

// workspace is one goroutine's scratch memory; nothing is allocated per pair.
type workspace struct {
	sc    *scanner
	out   []float64
	state [queryBlock]queryState
	lim   [queryBlock]float64 // the kernel's row limit of each query of the block (see setLimit)
	hits  [queryBlock]uint64  // the kernel's hit masks of the current reference block
}

func newWorkspace(sc *scanner) *workspace {
	ws := &workspace{sc: sc}
	if sc.embedded {
		ws.out = make([]float64, queryBlock*refBlock)
	} else if sc.sorted != nil {
		ws.out = make([]float64, kernel.Pad(sortedBlock))
	}
	return ws
}

// queryState is the running result of one query.
type queryState struct {
	res       *QueryResult
	trueD     float64
	hasTrue   bool
	best      float64
	tied      []Neighbor // candidates within the tie tolerance of the current best
	top       neighborHeap
	k         int
	collect   bool // count the candidates closer than the true partner plus the margin
	keep      bool // and keep them in Closer
	margin    float64
	closerLim float64
	weight    []int // the scanner's copies of each reference (nil: one each)
}

// copies is the number of references candidate j stands for.
func (st *queryState) copies(j int) int {
	if st.weight == nil {
		return 1
	}
	return st.weight[j]
}

func (st *queryState) reset(res *QueryResult, truth int, trueD float64, s *Settings, weight []int) {
	*res = QueryResult{True: truth, Nearest: -1, NearestDistance: math.Inf(1)}
	st.res = res
	st.hasTrue = truth >= 0
	st.trueD = trueD
	if st.hasTrue {
		res.TrueDistance = trueD
	}
	st.best = math.Inf(1)
	st.tied = st.tied[:0]
	st.top = st.top[:0]
	st.k = s.TopK
	st.collect = (s.Closer || s.CountCloser) && st.hasTrue
	st.keep = s.Closer
	st.margin = s.Margin
	// The threshold's bound on every d with d − trueD < Margin (consider decides with the
	// difference): rounding is monotone, so d > fl(trueD + Margin) gives d ≥ trueD + Margin
	// exactly, then fl(d − trueD) ≥ Margin (Margin ≥ 0).
	st.closerLim = trueD + s.Margin
	st.weight = weight
}

// threshold is the largest exact distance that can still change the result, given an
// upper bound on the best distance.
func (st *queryState) threshold(bestUpper float64) float64 {
	t := bestUpper + tieSlack(bestUpper)
	if st.hasTrue {
		t = math.Max(t, st.trueD)
		if st.collect {
			t = math.Max(t, st.closerLim)
		}
	}
	if st.k > 0 {
		if len(st.top) < st.k {
			return math.Inf(1)
		}
		t = math.Max(t, st.top[0].Distance)
	}
	return t
}

// consider updates the state with candidate j at exact distance d.
func (st *queryState) consider(j int, d float64) {
	res := st.res
	switch {
	case d < st.best-tieSlack(st.best):
		st.best = d
		// Keep the previous tied candidates that are still within tolerance of the new best.
		kept := st.tied[:0]
		for _, c := range st.tied {
			if c.Distance <= d+tieSlack(d) {
				kept = append(kept, c)
			}
		}
		st.tied = append(kept, Neighbor{j, d})
	case d <= st.best+tieSlack(st.best):
		if d < st.best {
			st.best = d
		}
		st.tied = append(st.tied, Neighbor{j, d})
	}
	if st.hasTrue {
		n := st.copies(j)
		if j == res.True {
			n-- // the true partner's copies, but not the partner itself
		} else if d < st.trueD-tieSlack(st.trueD) {
			res.TrueRank += n
		}
		if st.collect && n > 0 && d-st.trueD < st.margin {
			res.CloserCount += n
			if st.keep {
				res.Closer = append(res.Closer, Neighbor{j, d})
			}
		}
	}
	if st.k > 0 {
		if len(st.top) < st.k {
			heap.Push(&st.top, Neighbor{j, d})
		} else if less(Neighbor{j, d}, st.top[0]) {
			st.top[0] = Neighbor{j, d}
			heap.Fix(&st.top, 0)
		}
	}
}

func (st *queryState) finish() {
	res := st.res
	// The tie set is relative to the final best; members were kept within tolerance of
	// every best seen, so filter once more against the final one.
	n, nearest := 0, -1
	for _, c := range st.tied {
		if c.Distance <= st.best+tieSlack(st.best) {
			n += st.copies(c.Index)
			if nearest < 0 || c.Index < nearest {
				nearest = c.Index
			}
		}
	}
	res.Nearest, res.NearestDistance, res.Ties = nearest, st.best, n
	if st.k > 0 {
		top := make([]Neighbor, len(st.top))
		for i := len(top) - 1; i >= 0; i-- {
			top[i] = heap.Pop(&st.top).(Neighbor)
		}
		res.TopK = top
	}
}

func (ws *workspace) block(results []QueryResult, lo, hi int) {
	sc := ws.sc
	s := &sc.settings
	for i := lo; i < hi; i++ {
		t := -1
		if sc.truth != nil {
			t = sc.truth[i]
		}
		trueD := math.NaN()
		if t >= 0 {
			trueD = sc.exact(i, t)
		}
		ws.state[i-lo].reset(&results[i], t, trueD, s, sc.weight)
	}
	if sc.sorted != nil {
		ws.sortedBlocks(lo, hi)
		return
	}
	if !sc.embedded {
		for i := lo; i < hi; i++ {
			st := &ws.state[i-lo]
			for j := 0; j < sc.nr; j++ {
				st.consider(j, sc.exact(i, j))
			}
			st.finish()
		}
		return
	}
	nq := hi - lo
	d := sc.d
	for qi := 0; qi < nq; qi++ {
		ws.setLimit(qi, lo+qi)
	}
	for j0 := 0; j0 < sc.nr; j0 += refBlock {
		n := min(refBlock, sc.nr-j0)
		stride := kernel.Pad(n)
		if sc.generic {
			kernel.GenericFiltered(ws.out, stride, sc.q[lo*d:hi*d], sc.qp[lo*d:], sc.qn[lo:hi], nq, d, sc.r[j0:], sc.rn[j0:], sc.stride, n, ws.lim[:nq], ws.hits[:nq])
		} else {
			kernel.SquaredFiltered(ws.out, stride, sc.q[lo*d:hi*d], sc.qp[lo*d:], sc.qn[lo:hi], nq, d, sc.r[j0:], sc.rn[j0:], sc.stride, n, ws.lim[:nq], ws.hits[:nq])
		}
		for qi, h := range ws.hits[:nq] {
			if h == 0 {
				continue // nothing in the block is at most the query's limit
			}
			st := &ws.state[qi]
			ws.scanBlock(st, lo+qi, ws.out[qi*stride:qi*stride+n], j0, h)
			ws.setLimit(qi, lo+qi)
		}
	}
	for qi := 0; qi < nq; qi++ {
		ws.state[qi].finish()
	}
}

// sortedBlock is the number of references whose distances to one query the OWA or
// Choquet kernel computes in a call: their attributes (40 KiB for 13) stay in L2 for the
// query block, and it is a multiple of the kernels' 32 references a step.
const sortedBlock = 384

// sortedBlocks runs queries lo ≤ i < hi against every reference with the OWA or Choquet
// kernel. Its distances are exact (the direct form), so a candidate farther than the
// query's threshold can change nothing in its state (see threshold) and is skipped in
// bulk.
func (ws *workspace) sortedBlocks(lo, hi int) {
	sc := ws.sc
	m := sc.attributes
	for j0 := 0; j0 < sc.nr; j0 += sortedBlock {
		n := min(sortedBlock, sc.nr-j0)
		out := ws.out[:kernel.Pad(n)]
		for i := lo; i < hi; i++ {
			st := &ws.state[i-lo]
			sc.sorted(out, sc.qRows[i*m:i*m+m], sc.r[j0:], sc.stride, n)
			seg := out[:n]
			limit := st.threshold(st.bestUpper())
			for j := 0; ; j++ {
				j += kernel.FirstAtMost(seg[j:], limit)
				if j >= n {
					break
				}
				st.consider(j0+j, seg[j])
				limit = st.threshold(st.bestUpper())
			}
		}
	}
	for i := lo; i < hi; i++ {
		ws.state[i-lo].finish()
	}
}

// bestUpper is an upper bound on the query's final best distance: its best so far, or
// its true partner's distance when smaller (the true partner is a candidate too).
func (st *queryState) bestUpper() float64 {
	if st.hasTrue && st.trueD < st.best {
		return st.trueD
	}
	return st.best
}

// setLimit sets the kernel's row limit of query i (the qi-th of the block) from its
// current state.
func (ws *workspace) setLimit(qi, i int) {
	ws.lim[qi] = kernel.RowLimit(ws.sc.qn[i], ws.filterLimit(&ws.state[qi], i))
}

// filterLimit is the limit the kernel filters query i's distances with: every
// approximate distance that scanBlock would visit (or count in the rank-only band) now or
// later is at most it. It is scanBlock's limit + slack with the error bound of the
// largest reference norm of all blocks; scanBlock's limit only decreases as the query's
// state improves (the best distance and the worst of the top k only decrease) and its
// band lies below its limit, so a block with nothing at most filterLimit needs no scan.
func (ws *workspace) filterLimit(st *queryState, i int) float64 {
	bestUpper := st.best
	if st.hasTrue && st.trueD < bestUpper {
		bestUpper = st.trueD
	}
	if math.IsInf(bestUpper, 1) {
		return math.Inf(1) // scanBlock takes the block minimum: the kernel must keep all
	}
	sc := ws.sc
	return directSlack(st.threshold(bestUpper)) + kernel.ErrorBound(sc.qn[i], sc.rnAll, sc.d)
}

// scanBlock re-evaluates exactly the candidates of one reference block whose approximate
// distance, less the error bound, does not exceed the query's threshold. The bound grows
// with the norms, so one bound per block (with its largest reference norm) is safe. A
// candidate that is certainly closer than the true partner and certainly not among the
// best, tied, top-k or closer candidates only counts towards the true partner's rank: its
// exact distance cannot change anything.
//
// Only the groups of references whose bit is set in hits (see kernel.SquaredFiltered)
// were written and are read: every entry of the other groups is above the query's
// filterLimit, hence above the limit and the band here.
func (ws *workspace) scanBlock(st *queryState, i int, approx []float64, j0 int, hits uint64) {
	sc := ws.sc
	slack := kernel.ErrorBound(sc.qn[i], sc.rnMax[j0/refBlock], sc.d)
	bestUpper := st.best // an upper bound on the final best distance
	if st.hasTrue && st.trueD < bestUpper {
		bestUpper = st.trueD // the true partner is a candidate too
	}
	if math.IsInf(bestUpper, 1) {
		minA := math.Inf(1)
		for h := hits; h != 0; h &= h - 1 {
			g := bits.TrailingZeros64(h) * kernel.Group
			for _, a := range approx[g:min(g+kernel.Group, len(approx))] {
				if a < minA {
					minA = a
				}
			}
		}
		bestUpper = minA + slack
	}
	limit := directSlack(st.threshold(bestUpper))
	below, above := st.rankOnlyBand(bestUpper, slack)
	for ; hits != 0; hits &= hits - 1 {
		g := bits.TrailingZeros64(hits) * kernel.Group
		seg := approx[g:min(g+kernel.Group, len(approx))]
		// Count the rank-only candidates in bulk. The band only widens as the best
		// distance improves, so what it holds now stays rank-only; visit everything else
		// one by one.
		bandLo, bandHi := above, below
		inBand := bandLo < bandHi // the usual case of a well-linked record has an empty band
		if inBand {
			if st.weight == nil {
				st.res.TrueRank += kernel.CountBetween(seg, bandLo, bandHi)
			} else {
				for x, a := range seg {
					if bandLo < a && a < bandHi {
						st.res.TrueRank += st.weight[j0+g+x]
					}
				}
			}
		}
		for j := 0; ; j++ {
			if inBand {
				j += kernel.FirstNotBetween(seg[j:], bandLo, bandHi, limit+slack)
			} else {
				j += kernel.FirstAtMost(seg[j:], limit+slack)
			}
			if j >= len(seg) {
				break
			}
			a := seg[j]
			if a < below && a > above { // in the band as it has widened since
				st.res.TrueRank += st.copies(j0 + g + j)
				continue
			}
			st.consider(j0+g+j, sc.exact(i, j0+g+j))
			bestUpper = math.Min(bestUpper, st.best)
			limit = directSlack(st.threshold(bestUpper))
			below, above = st.rankOnlyBand(bestUpper, slack)
		}
	}
}

// rankOnlyBand returns (below, above): an approximate distance a with above < a < below
// belongs to a candidate certainly strictly closer than the true partner (a + slack below
// trueD − tie tolerance, with room for the direct form's rounding) and certainly farther
// than every best, tie, top-k and closer bound, so it only counts towards TrueRank.
func (st *queryState) rankOnlyBand(bestUpper, slack float64) (below, above float64) {
	if !st.hasTrue || st.collect {
		return math.Inf(-1), math.Inf(1) // empty band
	}
	t := st.trueD - tieSlack(st.trueD)
	below = t - 1e-13*math.Abs(t) - slack
	above = directSlack(bestUpper+tieSlack(bestUpper)) + slack
	if st.k > 0 {
		if len(st.top) < st.k {
			return math.Inf(-1), math.Inf(1)
		}
		above = math.Max(above, directSlack(st.top[0].Distance)+slack)
	}
	return below, above
}

// exact returns the distance between query i and reference j in the direct form.
func (sc *scanner) exact(i, j int) float64 {
	if !sc.embedded {
		m := sc.attributes
		return sc.op.Distance(sc.qRows[i*m:i*m+m], sc.rRows[j*m:j*m+m])
	}
	q := sc.q[i*sc.d : i*sc.d+sc.d]
	r := sc.rT[j*sc.d : j*sc.d+sc.d]
	s := 0.0
	for k, v := range q {
		diff := v - r[k]
		s += diff * diff
	}
	return s
}

// neighborHeap is a max-heap by (distance, index): its root is the worst of the k kept.
type neighborHeap []Neighbor

func less(a, b Neighbor) bool {
	return a.Distance < b.Distance || (a.Distance == b.Distance && a.Index < b.Index)
}

func (h neighborHeap) Len() int           { return len(h) }
func (h neighborHeap) Less(i, j int) bool { return less(h[j], h[i]) }
func (h neighborHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *neighborHeap) Push(x any)        { *h = append(*h, x.(Neighbor)) }
func (h *neighborHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
