package optimize

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/reid-sdc/reid/internal/workers"
)

// Block bounds: the records split into disjoint blocks, each block's own problem (its
// records, every competitor) solved by a search of its own; a θ links at most as many
// records of a block as the block's best θ does, so Σ_{i∈B} K_i ≥ |B| − U_B holds for
// the block's proven bound U_B, and the blocks' rows add up to a bound on the file.
// It is the Lagrangian decomposition of the model with one copy of θ per block and zero
// multipliers on their equality (Guignard and Kim, Mathematical Programming 39, 1987):
// the copies may disagree, so the bound is weaker than the file's optimum, but each
// block's proof is a tree over a hundred records instead of a thousand. On CENSUS
// noise_additive_50 (1,080 records) the eleven blocks of about 100 records summed to 468
// for OWA within 25 s, where the file's own tree had reached 574 after 120 s (bench/
// README). The blocks' covering cuts hold for the file too and go into its pool.
//
// A block whose search stops at its time limit far from a proof (a gap of more than 2
// links and 5 % of the block) is split in two halves, searched next (after the block's
// batch, blockBatch) with the cuts found so far, and the blocks after it are split to the
// halves' size before their search: on WM, blocks of 107 records ended 28 s at a bound of 59–61 against 42 links,
// while blocks of 54 are proven in 5–20 s each and their rows add up to less. Merging
// proven blocks pairwise was tried and dropped: a block of two proven halves never ended
// below their sum within its time (OWA, blocks of 214 and 429 records, 22–25 s each).

// blockLeaf is the number of records of the first blocks (files of fewer than
// 2·blockLeaf records are not split; noBlocks: never), blockMin the least a split leaves
// (blocks of fewer than 2·blockMin records are not split). blockShare is the share of the
// time left that the blocks get under a time limit, blockPassShare the share of the time
// left that a later pass gets when it starts (the last pass proved every block and raised
// the bound): on noise_additive_50 OWA the second pass's four blocks of about 210
// records, none proven, lowered the bound from 454 to 448 with 0.75 of a 10-minute
// limit, not at all with what was left of 0.5.
const (
	blockLeaf      = 100
	blockMin       = 25
	noBlocks       = math.MaxInt / 4
	blockShare     = 0.5
	blockPassShare = 0.75
)

// blockClimbShare bounds the line searches on the file from the blocks' θs (climbFrom),
// as a share of the time left after the blocks.
const blockClimbShare = 0.1

// climbFrom runs the iterated line search on the file from each of starts (θs of the
// family, moved in place) and makes an end point the incumbent if it links more; under a
// time limit the starts share the given share of the time left equally.
func (sv *solver) climbFrom(starts [][]float64, share float64) {
	if sv.climb == nil {
		return
	}
	sv.eachStart(starts, share, func(th []float64, stop time.Duration) {
		// Under a work limit: the end point's count must fit, and the search leaves room
		// for it.
		if !sv.affords(sv.workLinked, stop) {
			return
		}
		search(sv.climb, th, sv.rng, sv.threads, climbPatience, len(sv.d.recs)-sv.currentLB(), sv.localLimit(sv.reserve(stop, sv.workLinked)))
		sv.d.sp.project(th)
		sv.consider(th)
	})
}

// blockRow is a block's row Σ_{i∈members} K_i ≥ rhs, rhs = |B| − the block's proven
// bound on its links; parent is the index in blockRows of the block it is a half of (−1:
// none), pass the pass of blockBounds that found it (the blocks of a pass are disjoint).
type blockRow struct {
	members []int
	rhs     int
	parent  int
	pass    int
}

// blockBatch is the number of blocks searched together: each from the same state of the
// file's search (its cuts, fixings and incumbent before the batch), on up to as many
// goroutines as Settings.Threads allows, and absorbed in order. It is a constant, not the
// number of threads, so that the result does not depend on the threads.
const blockBatch = 4

// blockBounds searches the blocks, blockBatch at a time, and adds their rows to the
// master. The first pass has blocks of about blockLeaf records; while a pass proves every
// block and raises the bound, the next one has half as many blocks (each starting from
// the rows of the last pass's blocks inside it), until one block would be the file.
func (sv *solver) blockBounds() {
	leaf := sv.blockLeaf
	order := sv.blockOrder()
	if len(order) < 2*leaf || sv.bestFail <= sv.currentLB() {
		return
	}
	sv.blockPos = slices.Repeat([]int{-1}, len(sv.d.recs))
	for p, i := range order {
		sv.blockPos[i] = p
	}
	var starts [][]float64
	defer func() { sv.climbFrom(starts, blockClimbShare) }()
	for pass, parts := 0, len(order)/leaf; parts >= 2; pass, parts = pass+1, (parts+1)/2 {
		share := blockShare
		if pass > 0 {
			share = blockPassShare
		}
		b := sv.newBudget(share)
		before := sv.staticLB()
		var queue []block
		for k := range parts {
			lo, hi := sv.cutPoint(order, k*len(order)/parts), sv.cutPoint(order, (k+1)*len(order)/parts)
			if lo < hi {
				queue = append(queue, block{order[lo:hi], -1, pass})
			}
		}
		size := leaf // blocks larger than 3/2 of it are split before their search
		proven := true
		for len(queue) > 0 {
			if sv.timeUp() || sv.bestFail <= sv.currentLB() {
				return
			}
			var batch []block
			for len(queue) > 0 && len(batch) < blockBatch {
				B := queue[0]
				queue = queue[1:]
				if pass == 0 && 2*len(B.members) > 3*size && len(B.members) >= 2*blockMin {
					if mid := sv.cutPoint(B.members, len(B.members)/2); 0 < mid && mid < len(B.members) {
						queue = append([]block{{B.members[:mid], B.parent, pass}, {B.members[mid:], B.parent, pass}}, queue...)
						continue
					}
				}
				batch = append(batch, B)
			}
			var halves []block
			results := sv.solveBlocks(batch, b, len(queue))
			proven = proven && len(results) == len(batch)
			for _, res := range results {
				B := res.block
				if !slices.Equal(res.theta, sv.bestTheta) {
					starts = appendNew(starts, res.theta)
				}
				proven = proven && res.slack == 0
				// A later pass's block is not split: the last pass's blocks inside it
				// are its halves.
				if pass == 0 && res.slack > max(2, len(B.members)/20) && len(B.members) >= 2*blockMin {
					mid := sv.cutPoint(B.members, len(B.members)/2)
					if 0 < mid && mid < len(B.members) {
						// The halves next, so that the block's bound is replaced by
						// theirs before the next blocks take the time; the blocks not
						// yet searched are split like it.
						size = min(size, mid)
						halves = append(halves, block{B.members[:mid], res.row, pass}, block{B.members[mid:], res.row, pass})
					}
				}
			}
			queue = append(halves, queue...)
		}
		// The blocks' own bound, not currentLB: that one also holds the root's bound from
		// the probe (solver.run), which a pass can raise the blocks' bound under.
		if !proven || sv.staticLB() <= before {
			return // larger blocks would not be proven, or blocks do not help here
		}
	}
}

// block is a block of records (indices of the file's records) to search; parent is the
// index in blockRows of the block it is a half of (−1: none), pass the pass of
// blockBounds that searches it.
type block struct {
	members []int
	parent  int
	pass    int
}

// blockResult is what solveBlocks hands back for one block: the index of its row in
// blockRows, the gap its search left (its bound minus its incumbent's links) and its
// incumbent θ.
type blockResult struct {
	block
	row, slack int
	theta      []float64
}

// solveBlocks searches the blocks of batch, each from the file's search's state before
// the batch (subSolver), on min(threads, len(batch)) goroutines, and absorbs them in
// order, adding their rows, each once the blocks before it have ended. Under a time
// limit each block gets, when it starts, an equal part of the budget b among the blocks
// not started (later more come after the batch), run as many at a time as there are
// goroutines. A block whose budget was spent before its search is left out.
func (sv *solver) solveBlocks(batch []block, b budget, later int) []blockResult {
	byWork := sv.clock.counting && b.end != 0
	// Under a work limit the blocks' own first passes (subSolver) come out of the budget
	// first: the batch runs only if they fit.
	var entry int64
	if byWork {
		for _, B := range batch {
			entry += sv.subEntryWork(B.members)
		}
		if !sv.affords(entry, b.end) {
			return nil
		}
	}
	subs := make([]*solver, len(batch))
	best := sv.blockBest()
	for k, B := range batch {
		var local map[int]int
		subs[k], local = sv.subSolver(B.members, 0)
		// The last pass's blocks inside B (disjoint): their bounds hold in B's search.
		for r, row := range sv.blockRows {
			if B.pass == 0 || row.pass != B.pass-1 || row.parent >= 0 {
				continue
			}
			if T, ok := inside(row.members, local); ok {
				subs[k].addBlockRow(T, best[r], -1, 0)
			}
		}
	}
	defer func() {
		for _, bs := range subs {
			bs.close()
		}
	}()
	nWorkers := min(max(sv.threads, 1), len(batch))
	ran := make([]bool, len(batch))
	// mu guards started, ran, absorbed and out, the file's search while a block is
	// absorbed, and the searches' progress calls (the file's report).
	var mu sync.Mutex
	for _, bs := range subs {
		bs.threads = max(1, sv.threads/nWorkers)
		bs.progress = func(Report) {
			mu.Lock()
			defer mu.Unlock()
			sv.report(false)
		}
	}
	// The blocks are absorbed in order, each as soon as it and the blocks before it have
	// ended, so that the file's bound moves while the batch runs (a batch of four blocks
	// of 200 records took seven minutes); the searches running meanwhile read nothing of
	// the file's search but its report.
	var out []blockResult
	absorbed := 0
	absorbEnded := func() {
		for ; absorbed < len(subs) && ran[absorbed]; absorbed++ {
			out = append(out, sv.absorbBlock(subs[absorbed], batch[absorbed]))
		}
	}
	// Each block takes its stop when it starts: its part of the budget among the blocks
	// not started yet, run workers at a time (one worker: each block its part in turn).
	// Under a work limit the parts are fixed at the batch's start, an equal part of the
	// budget for each block of the batch and each block after it, whatever the workers:
	// the blocks' own clocks count their work, which the file's clock takes when it
	// absorbs them (a block that ends early leaves its work to the next batches).
	var workPart time.Duration // may round to 0: then every block's budget is spent
	if byWork {
		workPart = (b.end - sv.clock.now() - time.Duration(entry)) / time.Duration(later+len(subs))
	}
	started := 0
	var pool workers.Group
	// take returns the next block to run and its stop, ok false when none is left, the
	// budget is spent or a block's search panicked (Wait raises it). It and finish unlock
	// mu by defer: a panic in one worker must not leave the others blocked on mu.
	take := func() (k int, stop time.Duration, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		k = started
		if k == len(subs) {
			return k, 0, false
		}
		select {
		case <-pool.Failed():
			return k, 0, false
		default:
		}
		if !byWork {
			stop, ok = b.part((later + len(subs) - k + nWorkers - 1) / nWorkers)
			stop = subs[k].readingAt(&sv.clock, stop)
		} else if ok = workPart > 0; ok {
			stop = subs[k].clock.now() + workPart
		}
		if ok {
			started++
		}
		return k, stop, ok
	}
	finish := func(k int) {
		mu.Lock()
		defer mu.Unlock()
		ran[k] = true
		absorbEnded()
	}
	for range nWorkers {
		pool.Go(func() {
			for {
				k, stop, ok := take()
				if !ok {
					return
				}
				subs[k].setDeadline(stop)
				subs[k].run()
				finish(k)
			}
		})
	}
	// The blocks start in order and a spent budget stays spent, so the blocks that ran are
	// the first ones, every one of them absorbed by now.
	pool.Wait()
	return out
}

// absorbBlock takes a block's search into the file's (absorb), adds the block's row and
// returns what blockBounds needs of it.
func (sv *solver) absorbBlock(bs *solver, B block) blockResult {
	sv.absorb(bs, B.members)
	row := sv.addBlockRow(slices.Sorted(slices.Values(B.members)), len(B.members)-bs.boundLinks(), B.parent, B.pass)
	sv.stats.Blocks++
	sv.stats.BlockNodes += bs.stats.Nodes
	sv.report(false)
	return blockResult{B, row, bs.boundLinks() - (len(B.members) - bs.bestFail), slices.Clone(bs.bestTheta)}
}

// blockOrder lists the records not known to fail, the members of a twin group next to
// each other (a block then holds whole groups: the group's row is the block's too).
func (sv *solver) blockOrder() []int {
	n := len(sv.d.recs)
	group := sv.twinGroupOf()
	seen := make([]bool, n)
	var order []int
	for i := range n {
		if seen[i] {
			continue
		}
		members := []int{i}
		if g := group[i]; g >= 0 {
			members = sv.twinRows[g].members
		}
		for _, j := range members {
			seen[j] = true
			if !sv.fixed[j] {
				order = append(order, j)
			}
		}
	}
	return order
}

// cutPoint is the index at or after at where B can be cut without splitting a twin
// group (B lists groups contiguously).
func (sv *solver) cutPoint(B []int, at int) int {
	for at < len(B) && at > 0 && sv.sameTwinGroup(B[at-1], B[at]) {
		at++
	}
	return at
}

// sameTwinGroup reports whether records i and j have identical query records.
func (sv *solver) sameTwinGroup(i, j int) bool {
	m := sv.d.m
	qi, qj := sv.d.recs[i].q, sv.d.recs[j].q
	return slices.Equal(sv.d.queries[qi*m:qi*m+m], sv.d.queries[qj*m:qj*m+m])
}

// subEntryWork is the work of the passes a subSolver of the records B makes before its
// search, on its own clock: the Euclidean W's links and the file's incumbent's (consider),
// a linkedSet over B each.
func (sv *solver) subEntryWork(B []int) int64 {
	var w int64
	for _, i := range B {
		if r := &sv.d.recs[i]; !r.impossible {
			w += linkWork(sv.d, r)
		}
	}
	return 2 * w
}

// subSolver is a solver, in tree-only mode (blockSearch), for the problem of the records
// B (indices of the file's records; every competitor stays) that stops at stop and knows
// what the file's search knows about B: the fixed records, the cuts inside B and the
// incumbent θ. local maps a record of the file to its index in the sub-problem.
func (sv *solver) subSolver(B []int, stop time.Duration) (bs *solver, local map[int]int) {
	local = make(map[int]int, len(B))
	sub := &data{m: sv.d.m, sp: sv.d.sp, nr: sv.d.nr, queries: sv.d.queries, refs: sv.d.refs, phi: sv.d.phi, recs: make([]rec, len(B))}
	for x, i := range B {
		local[i] = x
		sub.recs[x] = sv.d.recs[i]
	}
	sub.pairs = len(B) * (sv.d.nr - 1)
	s := Settings{Epsilon: sv.eps, Threads: sv.threads, InitialRows: sv.initialRows, Seed: int64(sv.rng.Uint64() >> 1),
		clpSubproblems: sv.clpSubproblems, clpMaster: sv.clpMaster, masterWrap: sv.masterWrap, tailRounds: sv.tailRounds, noLocalSearch: sv.noLocalSearch}
	bs = newSolver(sub, s, time.Now())
	bs.clock.counting = sv.clock.counting
	bs.setDeadline(bs.readingAt(&sv.clock, stop))
	bs.done = sv.done
	bs.blockSearch = true
	bs.progress = func(Report) { sv.report(false) }
	for x, i := range B {
		if sv.fixed[i] {
			bs.fix(x)
		}
	}
	for _, S := range sv.cutList {
		if T, ok := inside(S, local); ok {
			bs.registerCut(T)
		}
	}
	bs.consider(sv.bestTheta)
	return bs, local
}

// inside returns the set S of the file's records in a sub-problem's indices (local, as
// subSolver makes it), sorted, and whether every record of S is in the sub-problem.
func inside(S []int, local map[int]int) ([]int, bool) {
	T := make([]int, 0, len(S))
	for _, i := range S {
		x, ok := local[i]
		if !ok {
			return nil, false
		}
		T = append(T, x)
	}
	slices.Sort(T)
	return T, true
}

// absorb takes from the finished search bs of the records B (as made by subSolver) what
// holds for the file: its cuts and fixings, its incumbent θ (considered) and its work.
func (sv *solver) absorb(bs *solver, B []int) {
	for _, S := range bs.cutList {
		T := make([]int, len(S))
		for a, x := range S {
			T[a] = B[x]
		}
		slices.Sort(T)
		sv.registerCut(T)
	}
	for x, i := range B {
		if bs.fixed[x] {
			sv.fix(i)
		}
	}
	sv.clock.add(bs.clock.units)
	// Its incumbent, unless it is the file's (the search started there and found no
	// better) or, under a work limit, its count on the file would overrun the limit
	// (blockBounds tries a block's θ again, in climbFrom, if the work is left).
	if !slices.Equal(bs.bestTheta, sv.bestTheta) && sv.affords(sv.workLinked, 0) {
		sv.consider(bs.bestTheta)
	}
	sv.stats.LPIterations += bs.stats.LPIterations
	sv.stats.SubproblemSolves += bs.stats.SubproblemSolves
	sv.stats.MasterSolves += bs.stats.MasterSolves
	sv.stats.RowsGenerated += bs.stats.RowsGenerated
	sv.stats.FamilyCuts += bs.stats.FamilyCuts
	sv.stats.PSDStrategies += bs.stats.PSDStrategies
}

// addBlockRow records block B's row Σ_{i∈B} K_i ≥ rhs (B sorted; parent and pass as in
// blockRow) and adds it to the master unless it says nothing; it returns its index in
// blockRows.
func (sv *solver) addBlockRow(B []int, rhs, parent, pass int) int {
	sv.blockRows = append(sv.blockRows, blockRow{B, rhs, parent, pass})
	if rhs > 0 {
		sv.addMasterRow(B, float64(rhs), -1)
	}
	return len(sv.blockRows) - 1
}

// blockBest is each block row's bound on Σ K over its members: its rhs or, once both its
// halves are searched, their sum if larger. A half comes after its block in blockRows.
func (sv *solver) blockBest() []int {
	best := make([]int, len(sv.blockRows))
	halves := make([]int, len(sv.blockRows))
	halvesSum := make([]int, len(sv.blockRows))
	for r := len(sv.blockRows) - 1; r >= 0; r-- {
		row := sv.blockRows[r]
		best[r] = max(0, row.rhs)
		if halves[r] == 2 {
			best[r] = max(best[r], halvesSum[r])
		}
		if row.parent >= 0 {
			halves[row.parent]++
			halvesSum[row.parent] += best[r]
		}
	}
	return best
}

// blockLB is the lower bound on Σ K from the block rows: where the blocks' order is known
// (the file's search), the best packing of disjoint rows of any passes (blockPackLB),
// which counts a later pass's blocks as they end; otherwise (a block's search, with the
// rows of the last pass's blocks inside it) the largest over the passes of the sum of its
// blocks' bounds (blockBest) and, outside its blocks, the fixed records and the twin
// groups' rows as in twinLB (a block holds the unfixed members of a group whole).
func (sv *solver) blockLB() int {
	if len(sv.blockRows) == 0 {
		return 0
	}
	best := sv.blockBest()
	if sv.blockPos != nil {
		return sv.blockPackLB(best) // every pass's sum is one of its packings
	}
	lb := 0
	passes := 0
	for _, row := range sv.blockRows {
		passes = max(passes, row.pass+1)
	}
	for pass := range passes {
		sum := 0
		covered := make([]bool, len(sv.d.recs))
		for r, row := range sv.blockRows {
			if row.pass != pass || row.parent >= 0 {
				continue
			}
			sum += best[r]
			for _, i := range row.members {
				covered[i] = true
			}
		}
		for i, f := range sv.fixed {
			if f && !covered[i] {
				sum++
			}
		}
		for _, row := range sv.twinRows {
			if slices.ContainsFunc(row.members, func(i int) bool { return covered[i] }) {
				continue // the block's search had the group's row
			}
			sum += sv.twinRowLB(row)
		}
		lb = max(lb, sum)
	}
	return lb
}

// blockPackLB is the largest bound on Σ K from block rows of disjoint members, each row
// counting its bound (best, as blockBest) less what the records outside the rows count
// anyway: its fixed members and the twin groups it holds (their rows' twinRowLB). Every
// block is a run of consecutive positions of the blocks' order (blockPos), so the best
// packing is a weighted interval scheduling, solved by dynamic programming over the
// positions (Kleinberg and Tardos, Algorithm Design, 2006, §6.1). A pass's blocks are one
// such packing, so this is at least the best pass's sum; while a later pass runs, its
// ended blocks replace the earlier pass's rows inside them instead of counting only when
// the whole pass has ended.
func (sv *solver) blockPackLB(best []int) int {
	group := sv.twinGroupOf()
	base := sv.twinLB() // what the records outside every row count
	type interval struct{ lo, value int }
	ending := make([][]interval, len(sv.d.recs)) // by last position
	for r, row := range sv.blockRows {
		lo, hi := len(sv.d.recs), -1
		value := best[r]
		held := map[int]bool{}
		for _, i := range row.members {
			p := sv.blockPos[i]
			if p < 0 {
				hi = -1
				break
			}
			lo, hi = min(lo, p), max(hi, p)
			if sv.fixed[i] {
				value--
			}
			if g := group[i]; g >= 0 && !held[g] {
				held[g] = true
				value -= sv.twinRowLB(sv.twinRows[g])
			}
		}
		if hi < 0 || hi-lo+1 != len(row.members) || value <= 0 {
			continue // not a run of the order (not expected), or no gain
		}
		ending[hi] = append(ending[hi], interval{lo, value})
	}
	// packed[p] is the best packing of rows within the first p positions.
	packed := make([]int, len(sv.d.recs)+1)
	for p := range len(sv.d.recs) {
		packed[p+1] = packed[p]
		for _, iv := range ending[p] {
			packed[p+1] = max(packed[p+1], packed[iv.lo]+iv.value)
		}
	}
	return base + packed[len(sv.d.recs)]
}
