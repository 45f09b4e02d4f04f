package optimize

import (
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/reid-sdc/reid/distances"
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
	candRef []int
}

func (r *rec) ncand() int { return len(r.candRef) }

// data is a prepared problem.
type data struct {
	m      int
	family Family
	recs   []rec
	pairs  int
}

// featureMap returns φ for the family: the attribute diffs, sorted decreasingly for OWA.
func featureMap(f Family, m int) func(dst, a, b []float64) []float64 {
	eq := make([]float64, m)
	for k := range eq {
		eq[k] = 1 / float64(m)
	}
	var op distances.Operator = distances.NewEuclidean(m)
	if f == OWA {
		op, _ = distances.NewOWA(eq)
	}
	return op.Features
}

// prepare computes, for every record with a true partner, the dominance reductions of
// the design note §4 (1): records that can never be linked, and the competitor rows that
// are neither never violated nor implied.
func prepare(p Problem, eps float64, threads int) *data {
	m := len(p.Queries)
	nr := len(p.Refs[0])
	d := &data{m: m, family: p.Family}
	for q, t := range p.Truth {
		if t >= 0 {
			d.recs = append(d.recs, rec{q: q, t: t})
		}
	}
	d.pairs = len(d.recs) * (nr - 1)
	refs := make([]float64, nr*m) // row-major
	for j := range nr {
		for k := range m {
			refs[j*m+k] = p.Refs[k][j]
		}
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newPrepWorker(p.Family, m)
			for i := range next {
				w.record(&d.recs[i], p.Queries, refs, nr, eps)
			}
		}()
	}
	for i := range d.recs {
		next <- i
	}
	close(next)
	wg.Wait()
	return d
}

type prepWorker struct {
	m     int
	phi   func(dst, a, b []float64) []float64
	q, ft []float64
	fj    []float64
	a     []float64 // candidates before the Pareto filter, row-major
	ref   []int
	sum   []float64
	order []int
}

func newPrepWorker(f Family, m int) *prepWorker {
	return &prepWorker{m: m, phi: featureMap(f, m), q: make([]float64, m), ft: make([]float64, m), fj: make([]float64, m)}
}

func (w *prepWorker) record(r *rec, queries [][]float64, refs []float64, nr int, eps float64) {
	m := w.m
	for k := range m {
		w.q[k] = queries[k][r.q]
	}
	w.phi(w.ft, w.q, refs[r.t*m:(r.t+1)*m])
	r.bigC = eps
	for _, v := range w.ft {
		r.bigC = max(r.bigC, v+eps)
	}
	w.a, w.ref, w.sum = w.a[:0], w.ref[:0], w.sum[:0]
	for j := range nr {
		if j == r.t {
			continue
		}
		w.phi(w.fj, w.q, refs[j*m:(j+1)*m])
		lo, hi, s := math.Inf(1), math.Inf(-1), 0.0
		for k := range m {
			v := w.fj[k] - w.ft[k]
			w.fj[k] = v
			lo, hi, s = min(lo, v), max(hi, v), s+v
		}
		if hi < eps {
			r.impossible = true
		}
		if lo >= eps+lpSlack {
			continue // θ·a ≥ min_k a_k for θ on the simplex: never violated
		}
		w.a = append(w.a, w.fj...)
		w.ref = append(w.ref, j)
		w.sum = append(w.sum, s)
	}
	if r.impossible {
		return
	}
	n := len(w.ref)
	w.order = w.order[:0]
	for c := range n {
		w.order = append(w.order, c)
	}
	sort.SliceStable(w.order, func(x, y int) bool {
		a, b := w.order[x], w.order[y]
		if w.sum[a] != w.sum[b] {
			return w.sum[a] < w.sum[b]
		}
		return w.ref[a] < w.ref[b]
	})
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
			r.candRef = append(r.candRef, w.ref[c])
		}
	}
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
