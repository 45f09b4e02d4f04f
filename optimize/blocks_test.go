package optimize

import (
	"slices"
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
			res := againstCBCWith(t, p, Settings{blockLeaf: 8, noProbe: true})
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

// span is the records lo, lo+1, …, hi−1.
func span(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// blockLB by hand: a block whose two halves are searched counts the larger of its row and
// their sum; a block with one half searched counts its own row; fixed records count once.
func TestBlockLB(t *testing.T) {
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

// With the blocks' order known, blockLB packs disjoint rows of any passes: a second pass
// whose first block has ended counts with the first pass's rows after it, and a searched
// half counts on its own when it proves more than its block.
func TestBlockLBPacking(t *testing.T) {
	const n = 40
	sv := &solver{d: &data{recs: make([]rec, n)}, fixed: make([]bool, n)}
	// The order: records 0 … 35 in reverse (blocks are runs of it, not of the indices);
	// 36 … 39 are outside it (fixed before the blocks).
	sv.blockPos = slices.Repeat([]int{-1}, n)
	for p := range 36 {
		sv.blockPos[35-p] = p
	}
	sv.fixed[36], sv.fixed[37], sv.fixed[4] = true, true, true
	sv.stats.Fixed = 3
	sv.blockRows = []blockRow{
		{span(24, 36), 3, -1, 0}, // positions 0 … 11
		{span(12, 24), 4, -1, 0}, // positions 12 … 23
		{span(0, 12), 2, -1, 0},  // positions 24 … 35, holds fixed record 4
		{span(6, 12), 1, 2, 0},   // a half, positions 24 … 29; its sibling not searched
	}
	// Pass 0: 3 + 4 + 2 + the two fixed records outside = 11; the half with the fixed
	// record 4 beside it counts as much as its block.
	if got, want := sv.blockLB(), 3+4+2+2; got != want {
		t.Errorf("first pass: blockLB = %d, want %d", got, want)
	}
	// The half proves 3 on its own: with record 4 (fixed, outside it) 4 > 2.
	sv.blockRows[3].rhs = 3
	if got, want := sv.blockLB(), 3+4+3+1+2; got != want {
		t.Errorf("a half stronger than its block: blockLB = %d, want %d", got, want)
	}
	// A second pass's first block over positions 0 … 23 (records 12 … 35) proves 9; its
	// second block has not ended. The per-pass sums are 13 and 9 + 3 (fixed) = 12; the
	// packing takes the new block with the first pass's rows after it: 9 + 3 + 1 + 2.
	sv.blockRows = append(sv.blockRows, blockRow{span(12, 36), 9, -1, 1})
	if got, want := sv.blockLB(), 9+3+1+2; got != want {
		t.Errorf("second pass under way: blockLB = %d, want %d", got, want)
	}
	// Without the order, the per-pass sums alone: the second pass's block and the three
	// fixed records (the first pass's sum is 11: the half does not count on its own).
	sv.blockPos = nil
	if got, want := sv.blockLB(), 9+3; got != want {
		t.Errorf("without the order: blockLB = %d, want %d", got, want)
	}
	// A twin group held by a row counts once: in the row's bound, not beside it.
	sv.blockPos = slices.Repeat([]int{-1}, n)
	for p := range 36 {
		sv.blockPos[35-p] = p
	}
	sv.twinRows = []twinRow{{[]int{30, 31, 38}, 2}, {[]int{39, 37}, 2}}
	// Group 0 (in the second pass's block; 38 unfixed outside the order) adds 2 outside
	// the rows, group 1 (37 fixed) adds 1; inside the block of 9 they are its own.
	if got, want := sv.blockLB(), 9+3+1+2+1; got != want {
		t.Errorf("with twin groups: blockLB = %d, want %d", got, want)
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

// TestStalledRootGoesOn: a root whose rounding check the search gives up on (CLP's
// trouble, simulated) left the tree empty after the probe of the tree, and the search
// ended at once with the Euclidean answer; the local searches and blocks must still run,
// and the root is tried again after them, its bound kept meanwhile (restarting the tree
// instead let the reported bound go back from 175 to 200).
func TestStalledRootGoesOn(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10-s search")
	}
	p := census(t, "noise_additive_50", 200)
	var reports []Report
	res, err := Learn(p, Settings{TimeLimit: 10 * time.Second, stallCheck: 6, Progress: func(r Report) { reports = append(reports, r) }})
	if err != nil {
		t.Fatal(err)
	}
	// The root given up on keeps its bound: the reported bound never goes back up (the
	// sixth check is one of the root's cut rounds, after its master has given a bound).
	for k := 1; k < len(reports); k++ {
		if reports[k].Bound > reports[k-1].Bound || reports[k].Incumbent < reports[k-1].Incumbent {
			t.Errorf("report %d: %d / %d after %d / %d", k, reports[k].Incumbent, reports[k].Bound, reports[k-1].Incumbent, reports[k-1].Bound)
			break
		}
	}
	if res.CorrectLinks <= res.EuclideanLinks || res.Stats.Blocks == 0 || res.Stats.Nodes < 2 {
		t.Errorf("%v: %d links (Euclidean %d), %d blocks, %d nodes: the search stopped after the root",
			res.Status, res.CorrectLinks, res.EuclideanLinks, res.Stats.Blocks, res.Stats.Nodes)
	}
	if res.Bound < res.CorrectLinks || res.Bound >= len(p.Queries[0]) {
		t.Errorf("bound %d with %d links", res.Bound, res.CorrectLinks)
	}
	// The reports name the phases in the order the search takes them (Report.Phase; the
	// bilinear form's local search does not run on WM), the blocks among them, and end
	// with the final count.
	order := []string{"", "root", "line search", "one-record checks", "local search", "blocks", "neighbourhoods", "tree", "final count"}
	var seen []string
	for _, r := range reports {
		if len(seen) == 0 || seen[len(seen)-1] != r.Phase {
			seen = append(seen, r.Phase)
		}
	}
	at := 0
	for _, ph := range seen {
		k := slices.Index(order, ph)
		if k < at {
			t.Fatalf("phases %q: %q out of order (want a subsequence of %q)", seen, ph, order)
		}
		at = k
	}
	if !slices.Contains(seen, "blocks") || seen[len(seen)-1] != "final count" {
		t.Errorf("phases %q: want blocks among them and the final count last", seen)
	}
}

// Under a work limit the blocks of a batch get equal parts of the budget whatever the
// workers, also when the budget left is smaller than the number of blocks: its parts
// round to zero and no block runs, on one goroutine as on two (a zero part once fell back
// to the wall-time parts, which depend on the workers).
func TestWorkPartsIgnoreWorkers(t *testing.T) {
	p := census(t, "rankswap_p15", 40)
	p.Family = WM
	for _, left := range []time.Duration{3, 10 * time.Millisecond} {
		var ran []int
		for _, threads := range []int{1, 2} {
			sv := testSolver(t, p, DefaultEpsilon, 3)
			sv.threads = threads
			sv.clock.counting = true
			sv.deadline = sv.clock.now() + 10*time.Second
			sv.blockPos = make([]int, len(sv.d.recs))
			var batch []block
			for k := range 4 {
				batch = append(batch, block{identity(40)[10*k : 10*k+10], -1, 0})
			}
			ran = append(ran, len(sv.solveBlocks(batch, budget{&sv.clock, sv.clock.now() + left}, 0)))
			sv.close()
		}
		want := 4
		if left < 4 {
			want = 0
		}
		if ran[0] != want || ran[1] != want {
			t.Errorf("%v of work left for 4 blocks: %v blocks ran on one and two goroutines, want %d", left, ran, want)
		}
	}
}
