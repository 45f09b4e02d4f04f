package linkage

import "github.com/reid-sdc/reid/distances"

// prlGroups are the classes of identical references: the same block and, on every
// compared attribute, the same value (and highest rank) or both missing. Every query
// has the same agreement pattern, hence weight, with each member of a class, so the
// one-to-one assignment sees one column per class with the class's size as its
// capacity: on files of a few categorical attributes a class holds thousands of
// references, all tied, and top-k lists of single references never certified.
type prlGroups struct {
	*distances.Groups
	isFirst []bool // each class's first member (first, read for every compared pair)
}

// first reports whether reference j is the first of its class.
func (g prlGroups) first(j int) bool { return g.isFirst[j] }

// identicalReferences returns the classes of identical references, or nil when every
// class has one member, or when two queries share a true reference (the assignment's
// tie-break against true links, below, needs distinct true references).
func (c *comparator) identicalReferences() *prlGroups {
	targeted := make([]bool, c.nr)
	for _, t := range c.truth {
		if t >= 0 {
			if targeted[t] {
				return nil
			}
			targeted[t] = true
		}
	}
	// The columns that decide a reference's patterns: its block, and per attribute a
	// missing flag, the value (0 when missing) and the highest rank (rank rule).
	cols := [][]float64{make([]float64, c.nr)}
	for key, tiles := range c.byBlock {
		for _, ti := range tiles {
			for _, j := range c.tiles[ti].refs {
				cols[0][j] = float64(key)
			}
		}
	}
	for k := range c.attrs {
		a := &c.attrs[k]
		miss, val := make([]float64, c.nr), make([]float64, c.nr)
		for j := range c.nr {
			if missing(a.rmiss, j) {
				miss[j] = 1
			} else {
				val[j] = a.r[j]
			}
		}
		cols = append(cols, miss, val)
		if a.rhi != nil {
			hi := make([]float64, c.nr)
			for j := range c.nr {
				if !missing(a.rmiss, j) {
					hi[j] = a.rhi[j]
				}
			}
			cols = append(cols, hi)
		}
	}
	g := distances.IdenticalRecords(cols)
	if g.Len() == c.nr {
		return nil
	}
	isFirst := make([]bool, c.nr)
	for x := range g.Len() {
		isFirst[g.Members(x)[0]] = true
	}
	return &prlGroups{g, isFirst}
}

// spread gives the rows the assignment put on class x distinct members of it, so that
// as few rows as possible get their true reference: a tie is not a re-identification
// unless it cannot be avoided (with distinct true references, only a class of one whose
// member is the row's true partner forces it). rows are ascending; each takes the lowest
// free member that is not its true reference, and a row left with only its own takes
// the member of the row before it, which gets the other's true reference instead.
func (g *prlGroups) spread(x int, rows []int, truth []int, assigned []int) {
	members := g.Members(x)
	used := make([]bool, len(members))
	for n, i := range rows {
		pick := -1
		for l, j := range members {
			if !used[l] && int(j) != truth[i] {
				pick = l
				break
			}
		}
		if pick < 0 {
			// Only i's true reference is free (it is a member, so it is the last one).
			for l := range members {
				if !used[l] {
					pick = l
					break
				}
			}
			if n > 0 {
				prev := rows[n-1]
				assigned[i], assigned[prev] = assigned[prev], int(members[pick])
				used[pick] = true
				continue
			}
		}
		used[pick] = true
		assigned[i] = int(members[pick])
	}
}
