package optimize

import (
	"cmp"
	"slices"
	"time"
)

// Neighbourhood search: a large neighbourhood search on the incumbent (Shaw, CP 1998;
// as a MIP heuristic, Danna, Rothberg and Le Pape, Mathematical Programming 102, 2005).
// The records θ links stay linked except a few, which are released together with a few
// records it does not link; the search then finds, exactly, the best set of released
// records that can be linked while the kept ones stay linked. The kept records confine θ
// to a small polyhedron, so this search is a small tree where the file's is not. An
// unlinked record u is opened with the linked members of its covering cuts (the records
// that keep it out: an irreducible infeasible set with u minus one of them is feasible),
// so that the neighbourhood holds the exchanges the line search cannot make: giving up
// one or two linked records to link two or three others.

// nbhdShare is the share of the time left that the neighbourhood search gets under a
// time limit (after the blocks). A neighbourhood opens nbhdOpen unlinked records at first
// and releases at most nbhdRelease linked records per opened one; once every unlinked
// record was opened without a gain, the search goes on with twice as many at once, up to
// nbhdMaxOpen (neighbourhoods proven within a few milliseconds gain nothing; measured on
// CENSUS noise_additive_50 and noise_correlated_50, OWA); after a neighbourhood its time
// stopped, at half the size, which then is the largest (on mdav_k10 WM, going back up
// to the size that had failed took 140 of 600 s without a gain).
const (
	nbhdShare   = 0.25
	nbhdOpen    = 20
	nbhdMaxOpen = 320
	nbhdRelease = 3
)

// neighbourhoods runs the neighbourhood search from the incumbent on files where the
// blocks run (at least 2·blockLeaf records not ruled out), until the budget is spent or
// every unlinked record was opened without a gain in neighbourhoods of the largest size.
func (sv *solver) neighbourhoods(share float64) {
	n := len(sv.d.recs)
	if sv.noLocalSearch || len(sv.blockOrder()) < 2*sv.blockLeaf {
		return
	}
	b := sv.newBudget(share)
	opened := make([]bool, n) // opened at this size since the incumbent last improved
	size, largest := nbhdOpen, nbhdMaxOpen
	for !sv.timeUp() && sv.bestFail > sv.currentLB() {
		if !sv.affords(sv.workLinked+sv.workWorst, b.end) {
			return // under a work limit: the passes below would overrun the budget
		}
		linked, _ := sv.linkedSet(sv.bestTheta)
		worst := sv.worstMargins(sv.bestTheta)
		var closed []int
		for i := range n {
			if !linked[i] && !sv.fixed[i] && !opened[i] {
				closed = append(closed, i)
			}
		}
		if len(closed) == 0 {
			if size >= largest {
				return
			}
			size = min(2*size, largest)
			clear(opened)
			continue
		}
		// Closest to being linked first.
		slices.SortFunc(closed, func(a, c int) int {
			return cmp.Or(cmp.Compare(worst[c], worst[a]), cmp.Compare(a, c))
		})
		open := closed[:min(size, len(closed))]
		stop, ok := b.part(3)
		if !ok {
			return
		}
		before := sv.bestFail
		release := sv.blockers(linked, open, nbhdRelease*size)
		if sv.bestFail < before {
			clear(opened) // blockers found a θ that links more: start again from it
			continue
		}
		for _, u := range open {
			opened[u] = true
		}
		if len(release) == 0 {
			continue
		}
		proven, started := sv.solveNeighbourhood(linked, open, release, stop)
		if !started {
			return // under a work limit: its part (less next time) pays not even for its start
		}
		sv.stats.Neighbourhoods++
		switch {
		case sv.bestFail < before:
			clear(opened)
		case !proven && size > nbhdOpen:
			// Too large to prove in its time: go on at half the size, and never
			// double past it again.
			size /= 2
			largest = size
			clear(opened)
		}
	}
}

// blockers returns the linked records that keep the records of open unlinked: the other
// members of their covering cuts that lie in linked, most frequent first (ties: index),
// at most most. A record with no such cut gets one from the subproblem of linked
// with it; if that is feasible, its θ is considered instead (the caller sees the better
// incumbent).
func (sv *solver) blockers(linked []bool, open []int, most int) []int {
	count := map[int]int{}
	for _, u := range open {
		found := false
		for _, c := range sv.cutsOf[u] {
			S := sv.cutList[c]
			if !slices.ContainsFunc(S, func(j int) bool { return j != u && !linked[j] }) {
				found = true
				for _, j := range S {
					if j != u {
						count[j]++
					}
				}
			}
		}
		if found || sv.timeUp() {
			continue
		}
		L := slices.Clone(linked)
		L[u] = true
		sv.activate(L)
		switch sv.solveSub() {
		case feasible:
			if sv.consider(sv.theta) {
				return nil
			}
		case infeasible:
			if S := sv.iis(); S != nil {
				sv.addCut(S)
				for _, j := range S {
					if j != u {
						count[j]++
					}
				}
			}
		}
	}
	release := make([]int, 0, len(count))
	for j := range count {
		release = append(release, j)
	}
	slices.SortFunc(release, func(a, c int) int { return cmp.Or(cmp.Compare(count[c], count[a]), cmp.Compare(a, c)) })
	return release[:min(most, len(release))]
}

// solveNeighbourhood searches, until stop, the problem of the linked records and the open
// ones in which every linked record outside release must stay linked (K = 0 at the root
// of its tree); its cuts and fixings hold for the file and go into its pool, and its
// incumbent θ is considered for the file. It reports whether the search was finished, and
// whether it started (under a work limit, stop may leave no room for its first passes).
func (sv *solver) solveNeighbourhood(linked []bool, open, release []int, stop time.Duration) (proven, started bool) {
	var members []int
	for i, on := range linked {
		if on || slices.Contains(open, i) {
			members = append(members, i)
		}
	}
	// Under a work limit the sub-solver's first passes and the count of the incumbent on
	// the members below come out of the neighbourhood's part, which must pay for them.
	entry := sv.subEntryWork(members) * 3 / 2
	if !sv.affords(entry, stop) {
		return false, false
	}
	bs, local := sv.subSolver(members, sv.reserve(stop, entry))
	defer bs.close()
	bs.climb = nil // the line search would leave the neighbourhood (it ignores rootFix)
	// The search starts from the file's incumbent, not from whatever θ links as many of
	// the members (the Euclidean θ the sub-solver starts with): the neighbourhood is the
	// incumbent's, and a θ that links more members links more records of the file (the
	// members hold every record the incumbent links).
	copy(bs.bestTheta, sv.bestTheta)
	_, k := bs.linkedSet(sv.bestTheta)
	bs.bestFail = len(members) - k
	free := make([]bool, len(sv.d.recs))
	for _, i := range release {
		free[i] = true
	}
	for _, i := range members {
		if linked[i] && !free[i] {
			bs.rootFix = append(bs.rootFix, -(local[i] + 1))
		}
	}
	bs.run()
	sv.absorb(bs, members)
	return bs.status == Optimal, true
}
