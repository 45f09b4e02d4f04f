package linkage

import (
	"math"
	"slices"
)

// arc is a candidate pair of the assignment: reference j with integer weight w.
type arc struct {
	j int32
	w int64
}

// assignMax finds a maximum-weight matching that assigns every row to a distinct column,
// using only the given arcs (rows ≤ columns). It is the successive-shortest-path
// (Hungarian) method with Dijkstra on reduced costs (Kuhn 1955; Jonker & Volgenant 1987
// in its sparse form): rows are added one at a time, each by a shortest augmenting path.
//
// With capacity (nil: 1 each), column j takes up to capacity[j] rows: the transportation
// problem of identical columns merged into one (PRL's identical references), solved as
// the matching on their copies would be, without the copies. A column reached by a path
// ends it while it has room; a full one passes the path on to each of its rows.
//
// It also returns an optimal dual: u_i + v_j ≥ w_ij on every arc, v_j ≥ 0, with equality on
// the matched arcs and v_j = 0 on columns with room (a column's v only grows once it is
// full, and a full column stays full). By LP duality the matching is optimal for the arcs
// given, and for a larger arc set as soon as the new arcs satisfy u_i + v_j ≥ w_ij (PRL
// checks u_i ≥ the largest weight left out of row i's candidates). ok is false when no
// matching assigns every row.
func assignMax(rows, cols int, arcs [][]arc, capacity []int) (match []int, u, v []int64, ok bool) {
	const inf = math.MaxInt64
	match = make([]int, rows)
	// rowsOf[j] are the rows assigned to column j; slot[i] is row i's place in its list.
	rowsOf := make([][]int32, cols)
	slot := make([]int, rows)
	room := func(j int) bool {
		if capacity == nil {
			return len(rowsOf[j]) == 0
		}
		return len(rowsOf[j]) < capacity[j]
	}
	u, v = make([]int64, rows), make([]int64, cols)
	for i := range rows {
		match[i] = -1
		if len(arcs[i]) == 0 {
			return nil, nil, nil, false
		}
		best := int64(math.MinInt64)
		for _, a := range arcs[i] {
			best = max(best, a.w)
		}
		u[i] = best
	}
	dist := make([]int64, cols)
	rowDist := make([]int64, rows)
	prev := make([]int, cols)
	done := make([]bool, cols)
	for j := range dist {
		dist[j] = inf
	}
	var touched, finalized []int
	var reached []int
	var h distHeap
	for s := range rows {
		touched, finalized, reached = touched[:0], finalized[:0], reached[:0]
		h = h[:0]
		relax := func(i int, d int64) {
			for _, a := range arcs[i] {
				j := int(a.j)
				if done[j] {
					continue
				}
				nd := d + u[i] + v[j] - a.w
				if nd < dist[j] {
					if dist[j] == inf {
						touched = append(touched, j)
					}
					dist[j], prev[j] = nd, i
					h.push(heapItem{nd, j})
				}
			}
		}
		rowDist[s] = 0
		reached = append(reached, s)
		relax(s, 0)
		sink := -1
		var D int64
		for len(h) > 0 {
			it := h.pop()
			j := it.j
			if done[j] || it.d != dist[j] {
				continue
			}
			done[j] = true
			finalized = append(finalized, j)
			if room(j) {
				sink, D = j, it.d
				break
			}
			// Each row of a full column is reached through its matched arc, of reduced
			// cost 0, at the column's distance.
			for _, i := range rowsOf[j] {
				rowDist[i] = it.d
				reached = append(reached, int(i))
				relax(int(i), it.d)
			}
		}
		if sink < 0 {
			return nil, nil, nil, false
		}
		for _, j := range finalized {
			v[j] += D - dist[j]
		}
		for _, i := range reached {
			u[i] -= D - rowDist[i]
		}
		// Augment along the path back to s: each row on it moves to the column after it.
		for j := sink; ; {
			i := prev[j]
			next := match[i]
			if next >= 0 {
				list := rowsOf[next]
				last := list[len(list)-1]
				list[slot[i]], slot[last] = last, slot[i]
				rowsOf[next] = list[:len(list)-1]
			}
			match[i], slot[i] = j, len(rowsOf[j])
			rowsOf[j] = append(rowsOf[j], int32(i))
			if i == s {
				break
			}
			j = next
		}
		for _, j := range touched {
			dist[j], done[j] = inf, false
		}
	}
	return match, u, v, true
}

// assignLimit bounds rows·max|w| in assignPartial, so that its big M and the potentials
// and path lengths of assignMax (a few times the big M) stay far inside int64.
const assignLimit = math.MaxInt64 / 64

// assignPartial finds a one-to-one assignment over the given arcs that leaves as few rows
// as possible unassigned and, among those, has the largest total weight; match[i] = −1
// when row i is unassigned. It is the linear sum assignment of record linkage (Jaro 1989,
// "Advances in record-linkage methodology as applied to matching the 1985 Census of
// Tampa, Florida", JASA 84:414–420: maximise Σ w_ij x_ij with Σ_j x_ij ≤ 1 and
// Σ_i x_ij ≤ 1, a record without a partner being a non-link), with the number of links
// maximised first so that, like the best-weight mode, a record is linked whenever it can
// be, whatever the sign of its weight.
//
// Reduction to assignMax (the usual one of a rectangular, incomplete assignment to a
// complete one; Burkard, Dell'Amico & Martello, Assignment Problems, SIAM 2009): each row
// i gets a private column cols+i of weight −M, M = 2·rows·wMax + 1, where |w| ≤ wMax on
// every arc. Every row then has a partner. Of two assignments with c+1 and c real arcs,
// the totals differ by W₁ − W₂ + M > 0, as |W₁ − W₂| ≤ 2·rows·wMax, so the optimum has
// the most real arcs and, among those, the largest real weight. The returned dual u, v
// (v restricted to the real columns) is that of the extended problem: u_i + v_j ≥ w_ij on
// every arc, v_j ≥ 0, so the certificate of assignMax applies unchanged. The caller keeps
// rows·wMax ≤ assignLimit.
func assignPartial(rows, cols int, arcs [][]arc, capacity []int, wMax int64) (match []int, u, v []int64) {
	bigM := 2*int64(rows)*wMax + 1
	ext := make([][]arc, rows)
	for i := range rows {
		ext[i] = append(slices.Clip(arcs[i]), arc{int32(cols + i), -bigM})
	}
	var extCap []int
	if capacity != nil {
		extCap = append(slices.Clone(capacity), slices.Repeat([]int{1}, rows)...)
	}
	match, u, v, _ = assignMax(rows, cols+rows, ext, extCap) // always complete: every row has its own column
	for i, j := range match {
		if j >= cols {
			match[i] = -1
		}
	}
	return match, u, v[:cols]
}

type heapItem struct {
	d int64
	j int
}

// distHeap is a binary min-heap by (distance, column): deterministic order.
type distHeap []heapItem

func (h heapItem) less(o heapItem) bool { return h.d < o.d || (h.d == o.d && h.j < o.j) }

func (h *distHeap) push(x heapItem) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a[i].less(a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *distHeap) pop() heapItem {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && a[l].less(a[m]) {
			m = l
		}
		if r < n && a[r].less(a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}
