package linkage

import (
	"encoding/binary"
	"math"
)

// prlGroups are the classes of identical references: the same block and, on every
// compared attribute, the same value (and highest rank) or both missing. Every query
// has the same agreement pattern, hence weight, with each member of a class, so the
// one-to-one assignment sees one column per class with the class's size as its
// capacity: on files of a few categorical attributes a class holds thousands of
// references, all tied, and top-k lists of single references never certified.
type prlGroups struct {
	of            []int32 // class of each reference, classes numbered by first member
	start, member []int32 // members of class g: member[start[g]:start[g+1]], ascending
}

func (g *prlGroups) size(x int) int        { return int(g.start[x+1] - g.start[x]) }
func (g *prlGroups) members(x int) []int32 { return g.member[g.start[x]:g.start[x+1]] }
func (g *prlGroups) first(j int) bool      { return g.member[g.start[g.of[j]]] == int32(j) }
func (g *prlGroups) classes() int          { return len(g.start) - 1 }

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
	blockOf := make([]int, c.nr)
	for key, tiles := range c.byBlock {
		for _, ti := range tiles {
			for _, j := range c.tiles[ti].refs {
				blockOf[j] = key
			}
		}
	}
	g := &prlGroups{of: make([]int32, c.nr)}
	class := map[string]int32{}
	var key []byte
	var sizes []int32
	for j := range c.nr {
		key = binary.LittleEndian.AppendUint64(key[:0], uint64(blockOf[j]))
		for k := range c.attrs {
			a := &c.attrs[k]
			if missing(a.rmiss, j) {
				key = append(key, 1)
				continue
			}
			key = append(key, 0)
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(a.r[j]))
			if a.rhi != nil {
				key = binary.LittleEndian.AppendUint64(key, math.Float64bits(a.rhi[j]))
			}
		}
		x, ok := class[string(key)]
		if !ok {
			x = int32(len(sizes))
			class[string(key)] = x
			sizes = append(sizes, 0)
		}
		g.of[j] = x
		sizes[x]++
	}
	if len(sizes) == c.nr {
		return nil
	}
	g.start = make([]int32, len(sizes)+1)
	for x, n := range sizes {
		g.start[x+1] = g.start[x] + n
	}
	g.member = make([]int32, c.nr)
	next := append([]int32(nil), g.start[:len(sizes)]...)
	for j, x := range g.of {
		g.member[next[x]] = int32(j)
		next[x]++
	}
	return g
}

// spread gives the rows the assignment put on class x distinct members of it, so that
// as few rows as possible get their true reference: a tie is not a re-identification
// unless it cannot be avoided (with distinct true references, only a class of one whose
// member is the row's true partner forces it). rows are ascending; each takes the lowest
// free member that is not its true reference, and a row left with only its own takes
// the member of the row before it, which gets the other's true reference instead.
func (g *prlGroups) spread(x int, rows []int, truth []int, assigned []int) {
	members := g.members(x)
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
