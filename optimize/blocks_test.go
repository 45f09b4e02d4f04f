package optimize

import (
	"testing"
	"time"
)

// With blocks of a few records (several levels of them), the search proves the optimum
// CBC finds on the exported full model.
func TestBlocksAgainstCBC(t *testing.T) {
	requireCBC(t)
	for _, c := range []struct {
		file   string
		n      int
		family Family
	}{
		{"rankswap_p15", 50, WM},
		{"noise_additive_50", 40, OWA},
		{"noise_correlated_10", 40, WM},
	} {
		t.Run(c.file, func(t *testing.T) {
			p := census(t, c.file, c.n)
			p.Family = c.family
			res := againstCBCWith(t, p, Settings{blockLeaf: 8})
			if res.Stats.Blocks < 3 {
				t.Errorf("%d blocks, want at least 3", res.Stats.Blocks)
			}
		})
	}
}

// Each block row Σ_{i∈B} K_i ≥ |B| − U_B states that no θ links more than U_B records of
// B. Solved without a time limit, U_B is the block's optimum: Learn on a problem made of
// B's queries alone (every reference kept) must prove the same number; and the file's
// optimum is the one found without blocks.
func TestBlockRows(t *testing.T) {
	p := census(t, "noise_additive_50", 120)
	p.Family = OWA
	sp, err := newSpace(p.Family, len(p.Queries))
	if err != nil {
		t.Fatal(err)
	}
	d := prepare(p, sp, DefaultEpsilon, 0)
	sv := newSolver(d, Settings{Epsilon: DefaultEpsilon, InitialRows: 3, blockLeaf: 25}, time.Now())
	defer sv.close()
	sv.run()
	if sv.status != Optimal || len(sv.blockRows) < 3 {
		t.Fatalf("status %v with %d block rows, want optimal with at least 3", sv.status, len(sv.blockRows))
	}
	plain, err := Learn(p, Settings{blockLeaf: noBlocks})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Status != Optimal || plain.Failures != sv.bestFail || plain.Stats.Blocks != 0 {
		t.Errorf("without blocks: %v, %d failures, %d blocks; with: %d failures", plain.Status, plain.Failures, plain.Stats.Blocks, sv.bestFail)
	}
	for _, row := range sv.blockRows {
		sub := Problem{Refs: p.Refs, Family: p.Family, Queries: make([][]float64, len(p.Queries))}
		for _, i := range row.members {
			r := d.recs[i]
			for k := range p.Queries {
				sub.Queries[k] = append(sub.Queries[k], p.Queries[k][r.q])
			}
			sub.Truth = append(sub.Truth, r.t)
		}
		res, err := Learn(sub, Settings{blockLeaf: noBlocks})
		if err != nil {
			t.Fatal(err)
		}
		if bound := len(row.members) - row.rhs; res.Status != Optimal || res.CorrectLinks != bound {
			t.Errorf("block of %d records: row bound %d links, Learn on the block alone: %v, %d links", len(row.members), bound, res.Status, res.CorrectLinks)
		}
	}
	t.Logf("%d block rows; optimum %d links of %d", len(sv.blockRows), len(d.recs)-sv.bestFail, len(d.recs))
}

// blockLB by hand: a block whose two halves are searched counts the larger of its row and
// their sum; a block with one half searched counts its own row; fixed records count once.
func TestBlockLB(t *testing.T) {
	span := func(lo, hi int) []int {
		var s []int
		for i := lo; i < hi; i++ {
			s = append(s, i)
		}
		return s
	}
	sv := &solver{d: &data{recs: make([]rec, 30)}, fixed: make([]bool, 30)}
	sv.blockRows = []blockRow{
		{span(0, 10), 3, -1, 0},
		{span(0, 5), 2, 0, 0},
		{span(5, 10), 2, 0, 0}, // with its sibling: 4 > 3
		{span(10, 20), 3, -1, 0},
		{span(10, 15), 4, 3, 0}, // its sibling not searched: the block's 3 stands
		{span(20, 24), 0, -1, 0},
	}
	sv.fixed[3], sv.fixed[25], sv.fixed[26] = true, true, true // 3 is in a block's count
	if got, want := sv.blockLB(), 4+3+0+2; got != want {
		t.Errorf("blockLB = %d, want %d", got, want)
	}
	sv.blockRows[0].rhs = 6 // now the block's own row is the larger
	if got, want := sv.blockLB(), 6+3+0+2; got != want {
		t.Errorf("blockLB = %d, want %d", got, want)
	}
	// A twin group outside the blocks adds its row less its fixed members (counted
	// already); one with a member in a block is the block's.
	sv.twinRows = []twinRow{{[]int{25, 27, 28}, 2}, {[]int{5, 29}, 1}}
	if got, want := sv.blockLB(), 6+3+0+2+(2-1); got != want {
		t.Errorf("blockLB with twin groups = %d, want %d", got, want)
	}
	// A second pass's block over records 0 … 23: the larger of the passes' sums counts.
	sv.blockRows = append(sv.blockRows, blockRow{span(0, 24), 8, -1, 1})
	if got, want := sv.blockLB(), 6+3+0+2+(2-1); got != want { // pass 1: 8 + 2 + 1
		t.Errorf("blockLB with a weaker second pass = %d, want %d", got, want)
	}
	sv.blockRows[len(sv.blockRows)-1].rhs = 11
	if got, want := sv.blockLB(), 11+2+(2-1); got != want {
		t.Errorf("blockLB with a stronger second pass = %d, want %d", got, want)
	}
}

// climbFrom climbs from the given starts, not from the incumbent: on swapProblem, from
// w = 0.9 (one link) the line along w reaches w < 0.5 (two links, the most).
func TestClimbFrom(t *testing.T) {
	sv := testSolver(t, swapProblem(), 1e-4, 5)
	start := []float64{0.9, 0.1}
	if _, n := sv.linkedSet(start); n != 1 {
		t.Fatalf("w = 0.9 links %d records, want 1", n)
	}
	copy(sv.bestTheta, start)
	sv.bestFail = 4
	sv.climbFrom(nil, 1)
	if sv.bestFail != 4 {
		t.Fatalf("no starts: %d failures, want the incumbent's 4", sv.bestFail)
	}
	sv.climbFrom([][]float64{{0.9, 0.1}}, 1)
	if _, n := sv.linkedSet(sv.bestTheta); sv.bestFail != 3 || n != 2 {
		t.Errorf("from w = 0.9: %d failures, θ %v links %d; want 3 failures, 2 links", sv.bestFail, sv.bestTheta, n)
	}
}
