package optimize

import (
	"cmp"
	"slices"
	"time"
)

// swapTries is the number of members of a group tried as the record to link,
// swapBlockers the number of records of each certificate tried as the one to give up.
const (
	swapTries    = 2
	swapBlockers = 6
)

// swap is a local search for files with twin groups (microaggregation), where at most
// |G| − rhs records of a group G can be linked and polish, which only adds records, stops
// at a set that no single record extends. It starts from θ (which need not be the
// incumbent) and makes 2-for-1 moves: for a record a of a group with room, when the set θ
// links plus a is infeasible, each linked record b with the most weight in the Farkas
// certificate is given up in turn and another member b′ of b's group linked in its place;
// the θ-LP decides each move, and a success links one record more (b's group keeps its
// count, a's gains one) and moves θ there. Passes over the groups with room, closest to
// being linked first, repeat while one finds a better θ, until stop (zero: no limit); a θ
// that links more than the incumbent replaces it. A failed move's certificate is not
// shrunk to a cut: the deletion filter would cost more than the move.
func (sv *solver) swap(theta []float64, stop time.Duration) {
	if len(sv.twinRows) == 0 || sv.bestFail <= sv.currentLB() {
		return
	}
	// Under a work limit the search starts only if it can pay for moving to its start
	// and to one better θ (moveTo: its count and its margins), and each try only if it
	// can pay for its check and that move.
	passes := sv.workLinked + sv.workWorst
	if !sv.affords(2*passes, stop) {
		return
	}
	group := sv.twinGroupOf()
	// (try checks that the work left pays for its check and a move.)
	over := func() bool { return sv.timeUp() || stop != 0 && sv.clock.now() > stop }

	cur := slices.Clone(theta)
	var linked []bool
	var links int
	var worst []float64
	count := make([]int, len(sv.twinRows))
	// moveTo makes cur, whose linked set linkedSet gave (lk, n records), current.
	moveTo := func(lk []bool, n int) {
		linked, links = lk, n
		worst = sv.worstMargins(cur)
		clear(count)
		for i, ok := range linked {
			if ok && group[i] >= 0 {
				count[group[i]]++
			}
		}
	}
	closest := func(x, z int) int { return cmp.Or(cmp.Compare(worst[z], worst[x]), cmp.Compare(x, z)) }
	// candidates are the unlinked, unfixed members of group g other than skip, closest to
	// being linked first.
	candidates := func(g, skip int) []int {
		var cs []int
		for _, i := range sv.twinRows[g].members {
			if i != skip && !linked[i] && !sv.fixed[i] {
				cs = append(cs, i)
			}
		}
		slices.SortFunc(cs, closest)
		return cs[:min(len(cs), swapTries)]
	}
	// try decides whether the linked set with out given up and in added can be linked
	// (at ε + lpSlack, so at ε); on success the search moves to its θ.
	try := func(in []int, out int) outcome {
		L := slices.Clone(linked)
		if out >= 0 {
			L[out] = false
		}
		for _, i := range in {
			L[i] = true
		}
		if !sv.affords(sv.checkWork(L)+passes, stop) {
			return aborted
		}
		sv.report(false)
		sv.activate(L)
		res := sv.solveSub()
		if res == feasible {
			if lk, n := sv.linkedSet(sv.theta); n > links {
				copy(cur, sv.theta)
				sv.stats.Swaps++
				sv.adopt(cur, n)
				moveTo(lk, n)
			}
		}
		return res
	}
	// move tries to link a, alone or by a swap; it reports false when time is up.
	move := func(a int) (ok, linkedOne bool) {
		switch try([]int{a}, -1) {
		case aborted:
			return false, false
		case feasible:
			return true, true
		case stalled:
			return true, false
		}
		// The certificate's records, most weight first: the likeliest blockers.
		support := sv.raySupport()
		slices.Reverse(support)
		tried := 0
		for _, b := range support {
			if b == a || group[b] < 0 || !linked[b] {
				continue
			}
			if tried++; tried > swapBlockers {
				break
			}
			for _, alt := range candidates(group[b], b) {
				if over() {
					return false, false
				}
				switch try([]int{a, alt}, b) {
				case aborted:
					return false, false
				case feasible:
					return true, true
				}
			}
		}
		return true, false
	}

	moveTo(sv.linkedSet(cur))
	for improved := true; improved; {
		improved = false
		before := links
		// The groups with room, ordered by their closest member.
		var open [][]int
		for g, row := range sv.twinRows {
			if count[g] < row.room() {
				if cs := candidates(g, -1); len(cs) > 0 {
					open = append(open, cs)
				}
			}
		}
		slices.SortFunc(open, func(x, z []int) int { return closest(x[0], z[0]) })
		for _, cs := range open {
			g := group[cs[0]]
			for _, a := range cs {
				if over() {
					return
				}
				if linked[a] || count[g] >= sv.twinRows[g].room() {
					break // an earlier move of this pass linked it
				}
				ok, done := move(a)
				if !ok {
					return
				}
				if done {
					break
				}
			}
		}
		improved = links > before && !over()
	}
}
