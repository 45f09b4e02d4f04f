package optimize

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/internal/workers"
)

// paretoWindow bounds the number of kept competitors a candidate is compared with in the
// dominance filter: the kept set is then a superset of the Pareto-minimal competitors
// (dropping only implied rows is all validity needs), at a cost linear in the candidates.
const paretoWindow = 256

// rec is one record of the model: a query with a true partner.
type rec struct {
	q, t int // query index and its true reference
	// bigC is C_i = max_k φ_k(i, t(i)) + ε, the per-record big-C of the exported model.
	bigC float64
	// impossible: some competitor has max_k a_k < ε, so θ·a < ε for every θ on the
	// simplex (a competitor at least as close as the true partner in every feature).
	impossible bool
	// cand holds the competitor rows a = φ(i, j) − φ(i, t(i)) that can be violated
	// (min_k a_k < ε + lpSlack) and are not implied by another kept row (componentwise
	// ≥), row-major, ordered by Σ_k a_k (their Euclidean margin) ascending; candRef the
	// competitors' reference indices.
	cand    []float64
	candRef []int32 // int32: at tens of millions of rows the indices are much of the memory
	// tphi, for a record whose rows are not stored (cand nil while candRef is not: the
	// prepared rows passed storedRowsBytes), is φ(i, t(i)), from which data.candRow
	// recomputes each row exactly as diffRows made it.
	tphi []float64
	// chain and inc (Choquet): for each candidate, the m sets A_(k) of its diffs' chain
	// (bitmasks, A_(1) = all attributes first) and the increments x_(k) − x_(k−1), so that
	// C_μ = Σ_k μ(A_(k))·inc_k; tchain and tinc are the true partner's.
	chain  []uint16
	inc    []float64
	tchain []uint16
	tinc   []float64
}

func (r *rec) ncand() int { return len(r.candRef) }

// data is a prepared problem.
type data struct {
	m     int
	sp    space
	recs  []rec
	pairs int
	nr    int
	// queries and refs are the standardised records, row-major (x[i*m+k]).
	queries, refs []float64
	// phi is the feature map of the rows of the families whose rows are differences of
	// diff vectors (WM: the diffs, OWA: sorted), which candRow can recompute; nil for the
	// others, whose rows are always stored.
	phi func(dst, a, b []float64) []float64
}

// candRow returns candidate c's row of r: the stored one, or recomputed into buf (grown
// to m when short) for a record whose rows were not stored, with the operations of
// diffRows, so that it is the same row to the bit.
func (d *data) candRow(r *rec, c int, buf []float64) []float64 {
	if r.cand != nil { // small enough to inline: the solver's scans of stored rows pay a branch
		return r.cand[c*d.m:][:d.m]
	}
	return d.recomputeRow(r, c, buf)
}

// recomputeRow is candRow for a record whose rows were not stored.
func (d *data) recomputeRow(r *rec, c int, buf []float64) []float64 {
	if cap(buf) < d.m {
		buf = make([]float64, d.m)
	}
	buf = d.phi(buf[:d.m], d.query(r.q), d.ref(int(r.candRef[c])))
	for k := range buf {
		buf[k] -= r.tphi[k]
	}
	return buf
}

// prepare computes, for every record with a true partner, the family's reductions (design
// note §4 (1) for the monotone families): records that can never be linked, and the
// competitor rows that are neither never violated nor implied.
func prepare(p Problem, sp space, eps float64, threads int) *data {
	d, _, _ := prepareUntil(p, sp, eps, threads, func() bool { return false }, rowBudget{math.MaxInt64, storedRowsBytes})
	return d
}

// storedRowsBytes is the memory of prepared rows beyond which the rows of WM and OWA are
// no longer stored but recomputed where read (data.candRow): a few times slower to scan,
// 1/m of the memory (only the competitor's index stays). On CENSUS every row is stored.
const storedRowsBytes = 256 << 20

// rowBudget bounds the prepared rows' memory: max in all (ErrTooLarge beyond), stored
// for rows kept as numbers (then recomputed, where the family allows).
type rowBudget struct{ max, stored int64 }

// maxPreparedBytes bounds the memory of the prepared competitor rows. They are not the
// N×M matrix (the dominance filter keeps few rows per record on most files) but can
// approach it where many competitors tie the true partner on some attribute (noise on
// coded categorical attributes: 2.8 million rows of 14 values for 4,580 records,
// 45 million for 18,320); past storedRowsBytes WM and OWA keep only the competitors'
// indices, and where even those pass this bound a clear error is better than a process
// the system kills.
const maxPreparedBytes = 2 << 30

// prepareUntil is prepare stopped once stop reports true (checked before each record):
// complete is false when records were left unprepared; then their rec has no rows and
// impossible is false for them (unknown), which keeps a bound computed from the flags
// valid. It returns ErrTooLarge when the rows outgrow budget.max (maxPreparedBytes but in
// tests); past budget.stored the rows of WM and OWA records prepared next are dropped
// after their filter and recomputed where read.
func prepareUntil(p Problem, sp space, eps float64, threads int, stop func() bool, budget rowBudget) (d *data, complete bool, err error) {
	m := len(p.Queries)
	nr := len(p.Refs[0])
	maxBytes := budget.max
	d = &data{m: m, sp: sp, nr: nr, queries: rowMajor(p.Queries), refs: rowMajor(p.Refs)}
	if s, ok := sp.(*simplexSpace); ok {
		d.phi = distances.Diffs
		if s.family == OWA {
			d.phi = newPrepWorker(m, eps).owa.Features // sorts the diffs; the weights are unused
		}
	}
	for q, t := range p.Truth {
		if t >= 0 {
			d.recs = append(d.recs, rec{q: q, t: t})
		}
	}
	d.pairs = len(d.recs) * (nr - 1)
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var pool workers.Group
	var bytes atomic.Int64
	next := make(chan int)
	for range threads {
		pool.Go(func() {
			w := newPrepWorker(m, eps)
			for i := range next {
				r := &d.recs[i]
				sp.prepare(d, r, w)
				if d.phi != nil && r.cand != nil && bytes.Load() > budget.stored {
					r.tphi = d.phi(make([]float64, m), d.query(r.q), d.ref(r.t))
					r.cand = nil
				}
				// The filter appended them: up to half their capacity is spare.
				r.cand, r.candRef = slices.Clone(r.cand), slices.Clone(r.candRef)
				bytes.Add(int64(8*(len(r.cand)+len(r.tphi)+len(r.inc)+len(r.tinc)) + 4*len(r.candRef) + 2*(len(r.chain)+len(r.tchain))))
			}
		})
	}
	fed := 0
feed:
	for i := range d.recs {
		if stop() || bytes.Load() > maxBytes {
			break
		}
		select {
		case next <- i:
			fed++
		case <-pool.Failed(): // a worker panicked: Wait raises it; the others may be gone
			break feed
		}
	}
	close(next)
	pool.Wait()
	if b := bytes.Load(); b > maxBytes {
		return d, false, fmt.Errorf("%w: the competitor rows of %d of the %d records already take %d MiB (at most %d MiB): learn on fewer records or attributes", ErrTooLarge, fed, len(d.recs), b>>20, maxBytes>>20)
	}
	return d, fed == len(d.recs), nil
}

// rowMajor returns the column-major matrix x (x[k][i]) row-major.
func rowMajor(x [][]float64) []float64 {
	m, n := len(x), len(x[0])
	out := make([]float64, n*m)
	for i := range n {
		for k := range m {
			out[i*m+k] = x[k][i]
		}
	}
	return out
}

func (d *data) query(i int) []float64 { return d.queries[i*d.m : (i+1)*d.m] }
func (d *data) ref(j int) []float64   { return d.refs[j*d.m : (j+1)*d.m] }

type prepWorker struct {
	m     int
	eps   float64
	owa   distances.Operator // OWA with equal weights: its Features sort the diffs
	ft    []float64
	fj    []float64
	a     []float64 // candidates before the Pareto filter, row-major
	ref   []int
	sum   []float64
	order []int
}

func newPrepWorker(m int, eps float64) *prepWorker {
	eq := make([]float64, m)
	for k := range eq {
		eq[k] = 1 / float64(m)
	}
	owa, err := distances.NewOWA(eq)
	if err != nil {
		panic(err) // equal weights are on the simplex
	}
	return &prepWorker{m: m, eps: eps, owa: owa, ft: make([]float64, m), fj: make([]float64, m)}
}

// diffRows is the reduction of the families monotone in the diffs (WM, OWA, Choquet): it
// stores the rows a = φ(i, j) − φ(i, t(i)) of φ the diffs (sorted decreasingly when
// sorted is set, for OWA). Each of these distances lies between the min and the max of
// its inputs and is translation-equivariant (d(x + c·1) = d(x) + c), so with a the
// difference of the diff vectors, min_k a_k ≤ d(j) − d(t) ≤ max_k a_k: a row with
// max_k a_k < ε can never be satisfied (the record is impossible) and one with min_k a_k ≥
// ε + lpSlack never binds. For WM and OWA θ·a is linear in a, and a row componentwise ≥
// another is implied; for Choquet, a competitor whose diffs are componentwise ≥ another's
// is at least as far by monotonicity, which is the same test on these rows (the true
// partner's diffs cancel).
func (w *prepWorker) diffRows(d *data, r *rec, sorted bool) {
	m, eps := w.m, w.eps
	q := d.query(r.q)
	phi := distances.Diffs
	if sorted {
		phi = w.owa.Features
	}
	phi(w.ft, q, d.ref(r.t))
	r.bigC = eps
	for _, v := range w.ft {
		r.bigC = max(r.bigC, v+eps)
	}
	w.a, w.ref, w.sum = w.a[:0], w.ref[:0], w.sum[:0]
	for j := range d.nr {
		if j == r.t {
			continue
		}
		phi(w.fj, q, d.ref(j))
		lo, hi, s := math.Inf(1), math.Inf(-1), 0.0
		for k := range m {
			v := w.fj[k] - w.ft[k]
			w.fj[k] = v
			lo, hi, s = min(lo, v), max(hi, v), s+v
		}
		if hi < eps {
			// No θ links the record: no row of it is needed (on files of a few discrete
			// attributes nearly every record ends here, after its first tied competitor).
			r.impossible = true
			return
		}
		if lo >= eps+lpSlack {
			continue // θ·a ≥ min_k a_k for θ on the simplex: never violated
		}
		w.a = append(w.a, w.fj...)
		w.ref = append(w.ref, j)
		w.sum = append(w.sum, s)
	}
	w.sortBySum()
	// A dominated row has a Σ at least its dominator's, so it comes later in this order.
	for _, c := range w.order {
		row := w.a[c*m : (c+1)*m]
		kept := len(r.candRef)
		implied := false
		for x := 0; x < min(kept, paretoWindow) && !implied; x++ {
			implied = dominates(r.cand[x*m:(x+1)*m], row)
		}
		if !implied {
			r.cand = append(r.cand, row...)
			r.candRef = append(r.candRef, int32(w.ref[c]))
		}
	}
}

// sortBySum sets w.order to the candidates by their Euclidean margin w.sum ascending,
// ties by reference index.
func (w *prepWorker) sortBySum() {
	w.order = w.order[:0]
	for c := range w.ref {
		w.order = append(w.order, c)
	}
	sort.SliceStable(w.order, func(x, y int) bool {
		a, b := w.order[x], w.order[y]
		if w.sum[a] != w.sum[b] {
			return w.sum[a] < w.sum[b]
		}
		return w.ref[a] < w.ref[b]
	})
}

// dominates reports whether a ≤ b componentwise: then θ·b ≥ θ·a for θ ≥ 0, and b's row
// is implied by a's.
func dominates(a, b []float64) bool {
	for k := range a {
		if a[k] > b[k] {
			return false
		}
	}
	return true
}
