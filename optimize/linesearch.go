package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// climber is the exact line search on the number of linked records: along a line θ + t·δ
// every margin θ·a + t·δ·a is linear in t, so the t for which a record is linked (all its
// rows ≥ ε) is an interval, and the t that links the most records is found by sorting the
// intervals' ends. Moving along the best of the edge directions e_k − e_l of the simplex
// (weight from attribute l to attribute k) until none links more is a local search that,
// unlike the LP-based one (polish), may give up linked records to link more.
type climber struct {
	d       *data
	eps     float64
	threads int
	// skip marks records left out of the count (proven unlinkable).
	skip []bool
	// off[i] is the offset of record i's rows; col holds each record's rows
	// attribute-major (record i's attribute k at col[off[i]·m + k·n_i :][:n_i]), so that
	// a line along e_k − e_l reads two contiguous columns; v holds θ·a per row.
	off []int
	col []float64
	v   []float64
	// ev holds one events buffer per worker.
	ev [][]event
}

// event is an end of a record's interval of t: +1 where it starts, −1 where it ends.
type event struct {
	t float64
	d int
}

// edgeBatch is the number of edge lines evaluated together (by up to that many workers);
// the first improving one in a batch is taken, so the result does not depend on threads.
const edgeBatch = 4

func newClimber(d *data, eps float64, skip []bool, threads int) *climber {
	m := d.m
	c := &climber{d: d, eps: eps, skip: skip, threads: max(1, min(threads, edgeBatch)), off: make([]int, len(d.recs)+1)}
	for i := range d.recs {
		c.off[i+1] = c.off[i] + d.recs[i].ncand()
	}
	c.v = make([]float64, c.off[len(d.recs)])
	c.col = make([]float64, c.off[len(d.recs)]*m)
	for i := range d.recs {
		r := &d.recs[i]
		nc, base := r.ncand(), c.off[i]*m
		for j := range nc {
			for k, x := range r.cand[j*m : (j+1)*m] {
				c.col[base+k*nc+j] = x
			}
		}
	}
	c.ev = make([][]event, edgeBatch)
	return c
}

// margins fills v with θ·a for every candidate row and returns the number of records θ
// links.
func (c *climber) margins(theta []float64) int {
	m, n := c.d.m, 0
	for i := range c.d.recs {
		r := &c.d.recs[i]
		if r.impossible || c.skip[i] {
			continue
		}
		v, nc, base := c.v[c.off[i]:c.off[i+1]], r.ncand(), c.off[i]*m
		clear(v)
		for k, w := range theta {
			if w == 0 {
				continue
			}
			for j, x := range c.col[base+k*nc : base+(k+1)*nc] {
				v[j] += w * x
			}
		}
		ok := true
		for _, x := range v {
			ok = ok && x >= c.eps
		}
		if ok {
			n++
		}
	}
	return n
}

// move adds dk·a_k + dl·a_l to the margins in v (θ moved by dk along attribute k and dl
// along l) and returns the number of records linked.
func (c *climber) move(k, l int, dk, dl float64) int {
	m, n := c.d.m, 0
	for i := range c.d.recs {
		r := &c.d.recs[i]
		if r.impossible || c.skip[i] {
			continue
		}
		nc, base := r.ncand(), c.off[i]*m
		v := c.v[c.off[i]:c.off[i+1]]
		ak, al := c.col[base+k*nc:base+(k+1)*nc], c.col[base+l*nc:base+(l+1)*nc]
		ok := true
		for j := range v {
			v[j] += dk*ak[j] + dl*al[j]
			ok = ok && v[j] >= c.eps
		}
		if ok {
			n++
		}
	}
	return n
}

// edge returns, for the line θ + t·(e_k − e_l) (margins of θ in v), the most records
// linked at some t in [−θ_k, θ_l] (the line's part on the simplex) and the middle of the
// first widest interval of t where that many are linked; w is the events buffer to use.
func (c *climber) edge(theta []float64, k, l, w int) (best int, at float64) {
	m := c.d.m
	ev := c.ev[w][:0]
	lo0, hi0 := -theta[k], theta[l]
	for i := range c.d.recs {
		r := &c.d.recs[i]
		if r.impossible || c.skip[i] {
			continue
		}
		lo, hi := lo0, hi0
		nc, base := r.ncand(), c.off[i]*m
		v := c.v[c.off[i]:c.off[i+1]]
		ak, al := c.col[base+k*nc:base+(k+1)*nc], c.col[base+l*nc:base+(l+1)*nc]
	rows:
		for j, x := range v {
			s := ak[j] - al[j]
			// (ε − x)/s > lo ⇔ ε − x > lo·s for s > 0; (ε − x)/s < hi ⇔ ε − x > hi·s
			// for s < 0: divide only when the bound moves.
			switch g := c.eps - x; {
			case s > 0:
				if g > lo*s {
					lo = g / s
				}
			case s < 0:
				if g > hi*s {
					hi = g / s
				}
			case g > 0:
				hi = math.Inf(-1)
			}
			if lo > hi {
				break rows
			}
		}
		if lo <= hi {
			ev = append(ev, event{lo, 1}, event{hi, -1})
		}
	}
	c.ev[w] = ev
	// Starts before ends at the same t: the intervals are closed.
	slices.SortFunc(ev, func(a, b event) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return b.d - a.d
	})
	n, width := 0, -1.0
	for x, e := range ev {
		n += e.d
		if e.d < 0 || x+1 == len(ev) {
			continue
		}
		w := ev[x+1].t - e.t
		if n > best || n == best && w > width {
			best, width, at = n, w, e.t+w/2
		}
	}
	return best, at
}

// climb moves θ (in place, on the simplex) along edge directions while one links more
// records, until stop; it returns the number θ links. With rng nil it takes the best edge
// each step; otherwise the first improving edge in a random order (cheaper per step).
func (c *climber) climb(theta []float64, rng *rand.Rand, stop time.Time) int {
	m := c.d.m
	cur := c.margins(theta)
	var edges [][2]int
	for k := range m {
		for l := k + 1; l < m; l++ {
			edges = append(edges, [2]int{k, l})
		}
	}
	next := make([]float64, m)
	for {
		if rng != nil {
			rng.Shuffle(len(edges), func(a, b int) { edges[a], edges[b] = edges[b], edges[a] })
		}
		bestN, bk, bl, bt := cur, -1, -1, 0.0
		var res [edgeBatch]struct {
			n int
			t float64
		}
		for b := 0; b < len(edges); b += edgeBatch {
			batch := edges[b:min(b+edgeBatch, len(edges))]
			c.batch(theta, batch, res[:len(batch)])
			for x, e := range batch {
				if res[x].n > bestN {
					bestN, bk, bl, bt = res[x].n, e[0], e[1], res[x].t
				}
			}
			if rng != nil && bk >= 0 || !stop.IsZero() && time.Now().After(stop) {
				break
			}
		}
		if !stop.IsZero() && time.Now().After(stop) {
			return cur
		}
		if bk < 0 {
			return cur
		}
		copy(next, theta)
		next[bk] = max(next[bk]+bt, 0)
		next[bl] = max(next[bl]-bt, 0)
		n := c.move(bk, bl, next[bk]-theta[bk], next[bl]-theta[bl])
		if n <= cur {
			c.margins(theta) // rounding undid the predicted gain: keep θ
			return cur
		}
		copy(theta, next)
		cur = n
	}
}

// batch evaluates the edge lines of batch into res, on up to c.threads workers.
func (c *climber) batch(theta []float64, batch [][2]int, res []struct {
	n int
	t float64
}) {
	var wg sync.WaitGroup
	for w := range min(c.threads, len(batch)) {
		wg.Go(func() {
			for x := w; x < len(batch); x += c.threads {
				k, l := batch[x][0], batch[x][1]
				if theta[k] == 0 && theta[l] == 0 {
					res[x].n = -1
					continue
				}
				res[x].n, res[x].t = c.edge(theta, k, l, x)
			}
		})
	}
	wg.Wait()
}

// kickScale shrinks a kick's step: on the microaggregated CENSUS files, kicks to 0.3 of
// the way to a random point of the edge found one link more than kicks all the way
// (mdav_k10, WM, 25 s, two seeds each: 102 against 101).
const kickScale = 0.3

// kick moves θ (in place) by a random step along a random edge line: the perturbation of
// the iterated local search.
func (c *climber) kick(theta []float64, rng *rand.Rand) {
	m := c.d.m
	for {
		k, l := rng.IntN(m), rng.IntN(m)
		if k == l || theta[k]+theta[l] == 0 {
			continue
		}
		t := (-theta[k] + rng.Float64()*(theta[k]+theta[l])) * kickScale
		theta[k] = max(theta[k]+t, 0)
		theta[l] = max(theta[l]-t, 0)
		return
	}
}

// search is an iterated local search: climb from θ, then kick the best θ found (one to
// three random edge moves) and climb again, until patience kicks in a row found nothing
// better or stop; θ ends as the best found, and the number it links is returned.
func (c *climber) search(theta []float64, rng *rand.Rand, patience int, stop time.Time) int {
	best := c.climb(theta, rng, stop)
	try := make([]float64, len(theta))
	for fails := 0; fails < patience; fails++ {
		if !stop.IsZero() && time.Now().After(stop) {
			break
		}
		copy(try, theta)
		for range 1 + rng.IntN(3) {
			c.kick(try, rng)
		}
		if n := c.climb(try, rng, stop); n > best {
			best, fails = n, -1
			copy(theta, try)
		}
	}
	return best
}
