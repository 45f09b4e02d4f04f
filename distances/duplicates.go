package distances

import (
	"cmp"
	"math"
	"slices"
)

// Files of a few discrete attributes (codes, ages, counts) hold the same reference record
// thousands of times. Every copy is at the same distance from every query, so Search
// scans each distinct reference once and weighs it by its number of copies: a query's
// ties, the rank of its true partner and its closer candidates are sums of copies, and
// the lists (top k, closer) are expanded to the copies afterwards. Where everything
// ties, this turns the N×M scan of the whole file into N × (distinct references) — 60,000
// records of two small-range attributes have 7 distinct records.

// minDuplicateShare: Search scans the distinct references only when at least this share
// of the references are copies of an earlier one; below it the scan saves little and the
// expansion of the results would cost more than it saves.
const minDuplicateShare = 1.0 / 8

// referenceGroups groups bit-identical reference records (all attributes equal as
// float64 bits, so that every operator gives them bit-identical distances).
type referenceGroups struct {
	// group[j] is the group of reference j; groups are numbered by their first
	// reference, so group order is the order of their lowest indices.
	group []int32
	// members of group g are member[start[g]:start[g+1]], ascending.
	start, member []int32
	weight        []int // number of references in each group
}

// findReferenceGroups returns the groups of identical references, or nil when fewer
// than minDuplicateShare of them are copies.
func findReferenceGroups(refs [][]float64) *referenceGroups {
	nr := len(refs[0])
	if nr < 2 || nr > math.MaxInt32 {
		return nil
	}
	// Sort the references by a hash of their bits, then split each run of equal hashes
	// into groups of equal records (a run of unequal records is a rare hash collision).
	hash := make([]uint64, nr)
	for j := range hash {
		h := uint64(14695981039346656037) // FNV-1a's basis and prime, on whole 64-bit words, with a shift to mix the high bits down
		for _, col := range refs {
			h ^= math.Float64bits(col[j])
			h *= 1099511628211
			h ^= h >> 29
		}
		hash[j] = h
	}
	order := make([]int32, nr)
	for j := range order {
		order[j] = int32(j)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if hash[a] != hash[b] {
			if hash[a] < hash[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	same := func(a, b int32) bool {
		for _, col := range refs {
			if math.Float64bits(col[a]) != math.Float64bits(col[b]) {
				return false
			}
		}
		return true
	}
	// first[j] is the lowest index of j's record.
	first := make([]int32, nr)
	for lo := 0; lo < nr; {
		hi := lo + 1
		for hi < nr && hash[order[hi]] == hash[order[lo]] {
			hi++
		}
		run := order[lo:hi] // ascending indices
		for x, j := range run {
			first[j] = j
			for _, k := range run[:x] {
				if first[k] == k && same(j, k) {
					first[j] = k
					break
				}
			}
		}
		lo = hi
	}
	g := &referenceGroups{group: make([]int32, nr)}
	groups := 0
	for j, f := range first {
		if int(f) == j {
			g.group[j] = int32(groups)
			groups++
		} else {
			g.group[j] = g.group[f]
		}
	}
	if float64(nr-groups) < minDuplicateShare*float64(nr) {
		return nil
	}
	g.weight = make([]int, groups)
	for _, x := range g.group {
		g.weight[x]++
	}
	g.start = make([]int32, groups+1)
	for x, w := range g.weight {
		g.start[x+1] = g.start[x] + int32(w)
	}
	g.member = make([]int32, nr)
	next := slices.Clone(g.start[:groups])
	for j, x := range g.group {
		g.member[next[x]] = int32(j)
		next[x]++
	}
	return g
}

// distinct returns the first reference of each group, column-major.
func (g *referenceGroups) distinct(refs [][]float64) [][]float64 {
	out := make([][]float64, len(refs))
	for k, col := range refs {
		out[k] = make([]float64, len(g.weight))
		for x := range g.weight {
			out[k][x] = col[g.member[g.start[x]]]
		}
	}
	return out
}

// groupTruth maps true partners to their groups.
func (g *referenceGroups) groupTruth(truth []int) []int {
	if truth == nil {
		return nil
	}
	out := make([]int, len(truth))
	for i, t := range truth {
		out[i] = -1
		if t >= 0 {
			out[i] = int(g.group[t])
		}
	}
	return out
}

// expand turns a result over the groups into the result over the references: the
// counts were already weighed by the scan (see queryState.consider); the indices and
// lists are mapped to the references.
func (g *referenceGroups) expand(res *QueryResult, truth int, k int) {
	if res.Nearest >= 0 {
		res.Nearest = int(g.member[g.start[res.Nearest]])
	}
	res.True = truth
	if res.TopK != nil {
		var all []Neighbor
		for _, c := range res.TopK {
			// Members ascend, at one distance: only a group's first k can be among the
			// first k copies.
			members := g.member[g.start[c.Index]:g.start[c.Index+1]]
			for _, j := range members[:min(k, len(members))] {
				all = append(all, Neighbor{int(j), c.Distance})
			}
		}
		// Every copy in the first k by (distance, index) belongs to one of the first k
		// groups by (distance, lowest index): each group before its own has a copy
		// before it.
		slices.SortFunc(all, func(a, b Neighbor) int {
			if less(a, b) {
				return -1
			}
			if less(b, a) {
				return 1
			}
			return 0
		})
		res.TopK = all[:min(k, len(all))]
	}
	if res.Closer != nil {
		var all []Neighbor
		for _, c := range res.Closer {
			for _, j := range g.member[g.start[c.Index]:g.start[c.Index+1]] {
				if int(j) != truth {
					all = append(all, Neighbor{int(j), c.Distance})
				}
			}
		}
		slices.SortFunc(all, func(a, b Neighbor) int { return cmp.Compare(a.Index, b.Index) })
		res.Closer = all
	}
}
