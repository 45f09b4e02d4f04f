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

// Groups are the classes of records identical on every column as float64 bits (so that
// every operator gives them bit-identical distances), numbered by their first record.
// PRL's assignment uses them too, for references identical on its comparison columns.
type Groups struct {
	// Of[j] is the class of record j; class order is the order of the lowest records.
	Of []int32
	// members of class x are member[start[x]:start[x+1]], ascending.
	start, member []int32
}

// Len is the number of classes.
func (g *Groups) Len() int { return len(g.start) - 1 }

// Members returns the records of class x, ascending.
func (g *Groups) Members(x int) []int32 { return g.member[g.start[x]:g.start[x+1]] }

// Size is the number of records of class x.
func (g *Groups) Size(x int) int { return int(g.start[x+1] - g.start[x]) }

// IdenticalRecords groups the records of the column-major x (x[k][j] is column k of
// record j; at least one column, fewer than 2^31 records).
func IdenticalRecords(x [][]float64) *Groups {
	n := len(x[0])
	// Sort the records by a hash of their bits, then split each run of equal hashes
	// into classes of equal records (a run of unequal records is a rare hash collision).
	hash := make([]uint64, n)
	for j := range hash {
		h := uint64(14695981039346656037) // FNV-1a's basis and prime, on whole 64-bit words, with a shift to mix the high bits down
		for _, col := range x {
			h ^= math.Float64bits(col[j])
			h *= 1099511628211
			h ^= h >> 29
		}
		hash[j] = h
	}
	order := make([]int32, n)
	for j := range order {
		order[j] = int32(j)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if hash[a] != hash[b] {
			return cmp.Compare(hash[a], hash[b])
		}
		return cmp.Compare(a, b)
	})
	same := func(a, b int32) bool {
		for _, col := range x {
			if math.Float64bits(col[a]) != math.Float64bits(col[b]) {
				return false
			}
		}
		return true
	}
	// first[j] is the lowest index of j's record.
	first := make([]int32, n)
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && hash[order[hi]] == hash[order[lo]] {
			hi++
		}
		run := order[lo:hi] // ascending indices
		for y, j := range run {
			first[j] = j
			for _, k := range run[:y] {
				if first[k] == k && same(j, k) {
					first[j] = k
					break
				}
			}
		}
		lo = hi
	}
	g := &Groups{Of: make([]int32, n)}
	var size []int32
	for j, f := range first {
		if int(f) == j {
			g.Of[j] = int32(len(size))
			size = append(size, 0)
		} else {
			g.Of[j] = g.Of[f]
		}
		size[g.Of[j]]++
	}
	g.start = make([]int32, len(size)+1)
	for c, w := range size {
		g.start[c+1] = g.start[c] + w
	}
	g.member = make([]int32, n)
	next := slices.Clone(g.start[:len(size)])
	for j, c := range g.Of {
		g.member[next[c]] = int32(j)
		next[c]++
	}
	return g
}

// referenceGroups are the classes of identical references with their sizes, the weights
// of the scan.
type referenceGroups struct {
	*Groups
	weight []int
}

// findReferenceGroups returns the classes of identical references, or nil when fewer
// than minDuplicateShare of them are copies.
func findReferenceGroups(refs [][]float64) *referenceGroups {
	nr := len(refs[0])
	if nr < 2 || nr > math.MaxInt32 {
		return nil
	}
	g := IdenticalRecords(refs)
	if float64(nr-g.Len()) < minDuplicateShare*float64(nr) {
		return nil
	}
	rg := &referenceGroups{Groups: g, weight: make([]int, g.Len())}
	for x := range rg.weight {
		rg.weight[x] = g.Size(x)
	}
	return rg
}

// distinct returns the first reference of each group, column-major.
func (g *referenceGroups) distinct(refs [][]float64) [][]float64 {
	out := make([][]float64, len(refs))
	for k, col := range refs {
		out[k] = make([]float64, len(g.weight))
		for x := range g.weight {
			out[k][x] = col[g.Members(x)[0]]
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
			out[i] = int(g.Of[t])
		}
	}
	return out
}

// expand turns a result over the groups into the result over the references: the
// counts were already weighed by the scan (see queryState.consider); the indices and
// lists are mapped to the references.
func (g *referenceGroups) expand(res *QueryResult, truth int, k int) {
	if res.Nearest >= 0 {
		res.Nearest = int(g.Members(res.Nearest)[0])
	}
	res.True = truth
	if res.TopK != nil {
		var all []Neighbor
		for _, c := range res.TopK {
			// Members ascend, at one distance: only a group's first k can be among the
			// first k copies.
			members := g.Members(c.Index)
			for _, j := range members[:min(k, len(members))] {
				all = append(all, Neighbor{int(j), c.Distance})
			}
		}
		// Every copy in the first k by (distance, index) belongs to one of the first k
		// groups by (distance, lowest index): each group before its own has a copy
		// before it.
		slices.SortFunc(all, func(a, b Neighbor) int {
			return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.Index, b.Index)) // as less
		})
		res.TopK = all[:min(k, len(all))]
	}
	if res.Closer != nil {
		var all []Neighbor
		for _, c := range res.Closer {
			for _, j := range g.Members(c.Index) {
				if int(j) != truth {
					all = append(all, Neighbor{int(j), c.Distance})
				}
			}
		}
		slices.SortFunc(all, func(a, b Neighbor) int { return cmp.Compare(a.Index, b.Index) })
		res.Closer = all
	}
}
