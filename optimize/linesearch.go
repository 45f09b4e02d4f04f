package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/reid-sdc/reid/internal/workers"
)

// The exact line search on the number of linked records: along a line θ + t·D every
// margin θ·a + t·D·a is linear in t, so the t for which a record is linked (all its rows
// ≥ ε) is an interval, and the t that links the most records is found by sorting the
// intervals' ends (sweep). Moving along such lines while one links more is a local search
// that, unlike the LP-based one (polish), may give up linked records to link more; kicks
// make it an iterated local search (search). A family provides its lines (lineFamily).

// lineFamily is a family's side of the line search: a fixed set of lines through θ, and
// the margins of every candidate row at θ.
type lineFamily interface {
	lines() int
	// span returns the t for which θ + t·D_x stays in the family: an interval that
	// contains 0.
	span(theta []float64, x int) (lo, hi float64)
	// step moves θ to θ + t·D_x, in place.
	step(theta []float64, x int, t float64)
	// margins stores θ·a for every row and returns the number of records θ links.
	margins(theta []float64) int
	// moved updates the stored margins after step(θ, x, t) and returns the links.
	moved(theta []float64, x int, t float64) int
	// line returns the most records linked at some t in [lo, hi] on line x (margins of θ
	// stored) and the middle of the first widest interval of t where that many are;
	// w selects the events buffer (one per concurrent call).
	line(theta []float64, x int, lo, hi float64, w int) (best int, at float64)
	// size is the number of rows whose margins are stored, dim θ's: what a step's work
	// is counted in (clock.go).
	size() int
	dim() int
}

// limit is when a local search must stop: when clock reads at (zero: no limit) or when
// done is closed (the search's interruption, LearnContext), whichever comes first. The
// search counts its work on clock.
type limit struct {
	clock *clock
	at    time.Duration
	done  <-chan struct{}
}

// over reports whether the limit is reached.
func (l limit) over() bool {
	select {
	case <-l.done:
		return true
	default:
	}
	return l.at != 0 && l.clock.now() > l.at
}

// affords reports whether a step of units of work, known before it runs, ends by the
// limit (clock.fits: always unless the clock counts work).
func (l limit) affords(units int64) bool { return l.clock == nil || l.clock.fits(units, l.at) }

// add counts units of work on the limit's clock (none without one: a test's limit).
func (l limit) add(units int64) {
	if l.clock != nil {
		l.clock.add(units)
	}
}

// event is an end of a record's interval of t: +1 where it starts, −1 where it ends.
type event struct {
	t float64
	d int
}

// clip narrows [lo, hi] to the t with g ≤ t·s, g = ε − θ·a and s = D·a the row's slope.
// (g/s > lo ⇔ g > lo·s for s > 0, g/s < hi ⇔ g > hi·s for s < 0: it divides only when
// a bound moves.)
func clip(lo, hi, g, s float64) (float64, float64) {
	switch {
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
	return lo, hi
}

// sweep sorts the intervals' ends and returns the most intervals that share a point and
// the middle of the first widest stretch where that many do.
func sweep(ev []event) (best int, at float64) {
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

// lineRows is what every line family keeps: the margins θ·a of each record's candidate
// rows at the current θ, and one events buffer per concurrent line.
type lineRows struct {
	d   *data
	eps float64
	// skip marks records left out of the count (proven unlinkable).
	skip []bool
	// off[i] is the offset of record i's rows in v.
	off []int
	v   []float64
	ev  [][]event
}

func newLineRows(d *data, eps float64, skip []bool) lineRows {
	c := lineRows{d: d, eps: eps, skip: skip, off: make([]int, len(d.recs)+1), ev: make([][]event, edgeBatch)}
	for i := range d.recs {
		c.off[i+1] = c.off[i] + d.recs[i].ncand()
	}
	c.v = make([]float64, c.off[len(d.recs)])
	return c
}

func (c *lineRows) size() int { return len(c.v) }
func (c *lineRows) dim() int  { return c.d.sp.dim() }

// counted reports whether record i is in the count.
func (c *lineRows) counted(i int) bool { return !c.d.recs[i].impossible && !c.skip[i] }

// rows returns record i's margins.
func (c *lineRows) rows(i int) []float64 { return c.v[c.off[i]:c.off[i+1]] }

// margins stores θ·a for every row (by the family's evaluator) and returns the number of
// records θ links.
func (c *lineRows) margins(theta []float64) int {
	ev, n := c.d.sp.evaluator(c.d, theta), 0
	var buf []float64
	for i := range c.d.recs {
		if !c.counted(i) {
			continue
		}
		buf = ev.margins(&c.d.recs[i], buf)
		copy(c.rows(i), buf)
		if allAtLeast(buf, c.eps) {
			n++
		}
	}
	return n
}

// simplexLines is the line family of WM and OWA: the edge directions e_k − e_l of the
// simplex (weight from attribute l to attribute k).
type simplexLines struct {
	lineRows
	edges [][2]int
	// col holds each record's rows attribute-major (record i's attribute k at
	// col[off[i]·m + k·n_i :][:n_i]), so that a line along e_k − e_l reads two
	// contiguous columns.
	col []float64
}

// simplexLinesMaxValues bounds the copy of the candidate rows that simplexLines keeps
// attribute-major (8 bytes a value, 256 MiB): past it the search runs without the line
// search rather than double the rows' memory.
const simplexLinesMaxValues = 1 << 25

func newSimplexLines(d *data, eps float64, skip []bool) *simplexLines {
	m := d.m
	c := &simplexLines{lineRows: newLineRows(d, eps, skip)}
	for k := range m {
		for l := k + 1; l < m; l++ {
			c.edges = append(c.edges, [2]int{k, l})
		}
	}
	c.col = make([]float64, c.off[len(d.recs)]*m)
	buf := make([]float64, m)
	for i := range d.recs {
		r := &d.recs[i]
		nc, base := r.ncand(), c.off[i]*m
		for j := range nc {
			for k, x := range d.candRow(r, j, buf) {
				c.col[base+k*nc+j] = x
			}
		}
	}
	return c
}

func (c *simplexLines) lines() int { return len(c.edges) }

func (c *simplexLines) span(theta []float64, x int) (lo, hi float64) {
	return -theta[c.edges[x][0]], theta[c.edges[x][1]]
}

func (c *simplexLines) step(theta []float64, x int, t float64) {
	k, l := c.edges[x][0], c.edges[x][1]
	theta[k] = max(theta[k]+t, 0)
	theta[l] = max(theta[l]-t, 0)
}

// allAtLeast reports whether every margin is at least eps: the record is linked.
func allAtLeast(v []float64, eps float64) bool {
	for _, x := range v {
		if x < eps {
			return false
		}
	}
	return true
}

// moved adds t·(a_k − a_l) to the margins (rounding of θ to the simplex aside, which
// margins redoes when it matters: climb re-counts a step that gains nothing).
func (c *simplexLines) moved(theta []float64, x int, t float64) int {
	m, n := c.d.m, 0
	k, l := c.edges[x][0], c.edges[x][1]
	for i := range c.d.recs {
		if !c.counted(i) {
			continue
		}
		nc, base := c.d.recs[i].ncand(), c.off[i]*m
		v := c.rows(i)
		ak, al := c.col[base+k*nc:base+(k+1)*nc], c.col[base+l*nc:base+(l+1)*nc]
		ok := true
		for j := range v {
			v[j] += t * (ak[j] - al[j])
			ok = ok && v[j] >= c.eps
		}
		if ok {
			n++
		}
	}
	return n
}

func (c *simplexLines) line(theta []float64, x int, lo0, hi0 float64, w int) (best int, at float64) {
	m := c.d.m
	k, l := c.edges[x][0], c.edges[x][1]
	ev := c.ev[w][:0]
	for i := range c.d.recs {
		if !c.counted(i) {
			continue
		}
		lo, hi := lo0, hi0
		nc, base := c.d.recs[i].ncand(), c.off[i]*m
		v := c.rows(i)
		ak, al := c.col[base+k*nc:base+(k+1)*nc], c.col[base+l*nc:base+(l+1)*nc]
		for j, x := range v {
			if lo, hi = clip(lo, hi, c.eps-x, ak[j]-al[j]); lo > hi {
				break
			}
		}
		if lo <= hi {
			ev = append(ev, event{lo, 1}, event{hi, -1})
		}
	}
	c.ev[w] = ev
	return sweep(ev)
}

// edgeBatch is the number of lines evaluated together (by up to that many workers); a
// batch is judged as a whole, so the result does not depend on threads.
const edgeBatch = 4

// climb moves θ (in place) along f's lines while one links more records, until stop; it
// returns the number θ links (−1 when stop, a work limit, leaves no room for θ's
// margins: θ is then left as it is). With rng nil it takes the best line each step;
// otherwise it goes through the lines in a random order, edgeBatch at a time, and takes
// the best line of the first batch that improves (cheaper per step). Under a work limit
// each batch and move starts only if its work fits before stop.
func climb(f lineFamily, theta []float64, rng *rand.Rand, threads int, stop limit) int {
	threads = max(1, min(threads, edgeBatch))
	// The work counted (clock.go): margins over every stored row and θ's dimensions, a
	// line's or a move's clip of every row.
	rows := int64(f.size())
	marginsWork, lineWork := rows*int64(f.dim())*workPerValue, 3*rows*workPerValue
	if !stop.affords(marginsWork) {
		return -1
	}
	stop.add(marginsWork)
	cur := f.margins(theta)
	order := make([]int, f.lines())
	for x := range order {
		order[x] = x
	}
	type result struct {
		n int
		t float64
	}
	var res [edgeBatch]result
	for {
		if rng != nil {
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		}
		bestN, bx, bt := cur, -1, 0.0
		for b := 0; b < len(order); b += edgeBatch {
			batch := order[b:min(b+edgeBatch, len(order))]
			if !stop.affords(int64(len(batch)) * lineWork) {
				break
			}
			var g workers.Group
			for w := range min(threads, len(batch)) {
				g.Go(func() {
					for y := w; y < len(batch); y += threads {
						res[y] = result{-1, 0}
						if lo, hi := f.span(theta, batch[y]); lo < hi {
							res[y].n, res[y].t = f.line(theta, batch[y], lo, hi, y)
						}
					}
				})
			}
			g.Wait()
			stop.add(int64(len(batch)) * lineWork)
			for y, x := range batch {
				if res[y].n > bestN {
					bestN, bx, bt = res[y].n, x, res[y].t
				}
			}
			if rng != nil && bx >= 0 || stop.over() {
				break
			}
		}
		if bx < 0 || stop.over() || !stop.affords(lineWork) {
			return cur
		}
		before := slices.Clone(theta)
		f.step(theta, bx, bt)
		stop.add(lineWork)
		if n := f.moved(theta, bx, bt); n > cur {
			cur = n
			continue
		}
		copy(theta, before) // rounding undid the predicted gain: keep θ
		if !stop.affords(marginsWork) {
			// θ's links are cur; its stored margins are left stale, which the next climb,
			// starting with margins, does not read.
			return cur
		}
		stop.add(marginsWork)
		return f.margins(theta)
	}
}

// kickScale shrinks a kick's step: on the microaggregated CENSUS files, kicks to 0.3 of
// the way to a random point of the edge found one link more than kicks all the way
// (mdav_k10, WM, 25 s, two seeds each: 102 against 101).
const kickScale = 0.3

// kick moves θ (in place) by a random step along a random line: the perturbation of the
// iterated local search.
func kick(f lineFamily, theta []float64, rng *rand.Rand) {
	if f.lines() == 0 {
		return // one attribute: θ = (1), nowhere to move
	}
	for range 100 {
		x := rng.IntN(f.lines())
		if lo, hi := f.span(theta, x); lo < hi {
			f.step(theta, x, (lo+rng.Float64()*(hi-lo))*kickScale)
			return
		}
	}
}

// search is an iterated local search: climb from θ, then kick the best θ found (one to
// three random line moves) and climb again, until patience kicks in a row found nothing
// better, θ links ceiling records (a proven bound), or stop; θ ends as the best found,
// and the number it links is returned (−1 when stop leaves no room for the first climb).
func search(f lineFamily, theta []float64, rng *rand.Rand, threads, patience, ceiling int, stop limit) int {
	best := climb(f, theta, rng, threads, stop)
	if best < 0 {
		return best // no room to start (climb)
	}
	try := make([]float64, len(theta))
	for fails := 0; fails < patience && best < ceiling; fails++ {
		if stop.over() {
			break
		}
		copy(try, theta)
		for range 1 + rng.IntN(3) {
			kick(f, try, rng)
		}
		n := climb(f, try, rng, threads, stop)
		if n < 0 {
			break // no room for another climb
		}
		if n > best {
			best, fails = n, -1
			copy(theta, try)
		}
	}
	return best
}
