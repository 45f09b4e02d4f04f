package optimize

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/reid-sdc/reid/optimize/clp"
)

// solver is one run of the combinatorial Benders branch and cut.
type solver struct {
	d           *data
	eps, epsLP  float64
	threads     int
	initialRows int
	start       time.Time
	// clock measures the search's limit and the phases' shares of it (clock.go);
	// deadline is its reading at the limit (0: none).
	clock    clock
	deadline time.Duration
	// done, when closed, interrupts the search as its deadline would (LearnContext);
	// interrupted records that it did.
	done        <-chan struct{}
	interrupted bool
	progress    func(Report)
	lastReport  time.Time
	phase       string // Report.Phase
	// share is cpuShare's last estimate, taken at time at with the process's user time cpu.
	share struct {
		at    time.Time
		cpu   time.Duration
		value float64
	}

	// θ-subproblem (subproblem.go).
	sub     thetaLP
	recRows [][]int
	inLP    [][]bool
	rowRec  []int
	active  []bool
	theta   []float64
	ray     []float64
	// famCuts are the family cuts found (PSD, monotonicity), famCutKeys their keys;
	// margins is scratch for the evaluators.
	famCuts    []famRow
	famCutKeys map[string]bool
	margins    []float64

	// Master over K ∈ [0,1]^N: minimise Σ K subject to the covering cuts.
	master   masterLP
	fixed    []bool // K_i = 1 proven (dominance or a one-record cut)
	cutKeys  map[string]bool
	cutCount []int
	// cutList holds the multi-record cuts, cutsOf[i] the indices in cutList of those
	// containing record i: a set containing a known cut is known to be infeasible.
	cutList [][]int
	cutsOf  [][]int
	// The master holds the twin rows and a working set of the cuts: inMaster[c] marks
	// cut c of cutList as a row of the master (or implied by a twin row), masterCut[row]
	// the cut of each master row (−1: a twin row; −2 − k: clique row k). Cut and clique
	// rows that stop binding are dropped when the master grows past masterKeep, and come
	// back when violated (poolSeparate, cliqueSeparate).
	inMaster   []bool
	pool       poolScan
	masterCut  []int
	masterKeep int
	lastK      []float64 // the master's last solution
	// twinRows are the twin groups' clique rows (twinCuts): the bound before the master
	// is solved.
	twinRows []twinRow
	// blockRows are the rows of the blocks' own bounds (blocks.go), in the order found;
	// permRows every row of the master that is never dropped (twin and block rows), in
	// the order added, for switchMasterToCLP. blockSearch marks the search of a block or
	// of a neighbourhood (subSolver): it runs the tree only.
	blockRows []blockRow
	permRows  []twinRow
	// blockPos is each record's position in the blocks' order (blockOrder; −1: not in
	// it), nil before the blocks: every block is a run of consecutive positions.
	blockPos    []int
	blockSearch bool
	// rootFix holds the root's branching decisions (as in node.fix) of a neighbourhood's
	// search (neighbourhood.go).
	rootFix []int
	// The conflict graph: two records joined when {i, j} is an infeasible set (a cut of
	// two records, twins included); a clique of it has at most one linked record, and the
	// master gets Σ_{i∈C} K_i ≥ |C| − 1 for the cliques K violates (cliqueSeparate);
	// cliqueIn[k] marks clique k as a row of the master.
	conflict   map[uint64]bool
	neighbours [][]int
	cliqueRows [][]int
	cliqueIn   []bool
	cliqueKeys map[string]bool
	curLo      []float64
	curUp      []float64

	clpSubproblems bool
	clpMaster      bool
	noLocalSearch  bool
	noProbe        bool
	stallCheck     int // Settings.stallCheck
	checks         int // rounding checks of the tree so far
	masterWrap     func(masterLP) masterLP
	tailRounds     int
	blockLeaf      int

	bestTheta []float64
	bestFail  int
	// climb is the line search on the number of links (linesearch.go; WM, OWA and
	// bilinear, nil otherwise), rng its random source (from Settings.Seed). It counts
	// links at ε + lpSlack, above the margin the cuts are proofs for (ε), so that what it
	// maximises never exceeds the proven bound (consider re-counts at ε).
	climb lineFamily
	rng   *rand.Rand
	// euclideanLinks is the number of records the Euclidean distance links with margin ≥ ε.
	euclideanLinks int
	// workLinked and workWorst are the work of a linkedSet and of a worstMargins pass
	// (linkedWork, worstWork): what a step that needs one must have left (affords).
	workLinked, workWorst int64

	open nodeHeap
	cur  *node // the node being processed
	// lastGiveUp is why the last decision given up was (check resets it); givenUp counts
	// the tree's nodes given up by that cause, what Result.Note says of an unproven end.
	lastGiveUp giveUp
	givenUp    [numGiveUps]int
	// shortOfProof: the tree emptied without closing (finish), no limit reached.
	shortOfProof bool
	// unresolved is the least bound of nodes the search gave up on (CLP could neither
	// solve nor certify a subproblem): they keep the reported bound honest.
	unresolved int
	// treeStarted: the root is in the tree; closed: the tree is fully explored.
	treeStarted, closed bool
	// climbGap and nextClimb schedule the tree's line searches (tree).
	climbGap, nextClimb int
	seq                 int
	status              Status
	timedOut            bool
	stats               Stats
}

func newSolver(d *data, s Settings, start time.Time) *solver {
	n := len(d.recs)
	sv := &solver{d: d, eps: s.Epsilon, epsLP: s.Epsilon + lpSlack, threads: s.Threads, initialRows: s.InitialRows, clpSubproblems: s.clpSubproblems, clpMaster: s.clpMaster, masterWrap: s.masterWrap, tailRounds: cmp.Or(s.tailRounds, tailRounds), blockLeaf: cmp.Or(s.blockLeaf, blockLeaf), noLocalSearch: s.noLocalSearch, noProbe: s.noProbe, stallCheck: s.stallCheck,
		start: start, progress: s.Progress, lastReport: start,
		theta: make([]float64, d.sp.dim()), famCutKeys: map[string]bool{}, fixed: make([]bool, n), cutKeys: map[string]bool{}, cutCount: make([]int, n), cutsOf: make([][]int, n),
		bestFail: n + 1, unresolved: n + 1, masterKeep: masterKeepMin, climbGap: climbEvery, nextClimb: climbEvery,
		conflict: map[uint64]bool{}, neighbours: make([][]int, n), cliqueKeys: map[string]bool{}}
	if sv.threads <= 0 {
		sv.threads = runtime.GOMAXPROCS(0)
	}
	sv.clock = clock{start: start, counting: s.WorkLimit > 0}
	switch {
	case s.WorkLimit > 0:
		sv.deadline = max(time.Duration(s.WorkLimit*float64(time.Second)), 1)
	case s.TimeLimit > 0:
		sv.deadline = s.TimeLimit
	}
	sv.stats.Pairs = d.pairs
	for i := range d.recs {
		sv.stats.Candidates += d.recs[i].ncand()
	}
	sv.initSubproblem()
	sv.curLo, sv.curUp = make([]float64, n), make([]float64, n)
	for i := range n {
		sv.curUp[i] = 1
	}
	sv.master = sv.newMaster()
	for i := range d.recs {
		if d.recs[i].impossible {
			sv.fix(i)
		}
	}
	sv.workLinked, sv.workWorst = linkedWork(d), worstWork(d)
	// Euclidean θ: the incumbent every learned distance must match.
	copy(sv.theta, d.sp.euclidean())
	sv.bestTheta = append([]float64(nil), sv.theta...)
	_, linked := sv.linkedSet(sv.bestTheta)
	sv.bestFail = n - linked
	sv.euclideanLinks = linked
	switch sp := d.sp.(type) {
	case *simplexSpace:
		if !sv.noLocalSearch && sv.stats.Candidates*d.m <= simplexLinesMaxValues {
			sv.climb = newSimplexLines(d, sv.epsLP, sv.fixed)
		}
	case *bilinearSpace:
		if !sv.noLocalSearch && sv.stats.Candidates <= bilinearLinesMaxRows {
			sv.climb = newBilinearLines(d, sp, sv.epsLP, sv.fixed)
		}
	}
	sv.rng = rand.New(rand.NewPCG(uint64(s.Seed), climbStream))
	return sv
}

// climbStream is the PCG stream of the line search's random numbers.
const climbStream = 0x5eed

// climbShare and climbPatience bound the iterated line search at the start: at most
// climbShare of the time limit, and it stops after climbPatience kicks in a row that
// found nothing better (which also keeps it deterministic without a time limit).
// During the tree, the search resumes from the incumbent with climbTreePatience after
// climbEvery nodes, and after twice as many nodes as the last time each time it found
// nothing (back to climbEvery after a gain): 200 kicks there (about a second on the twin
// files) found mdav_k10 OWA's 98th link 15 s into a 120-s search with seed 1, where 10
// kicks kept 97 for 10 minutes (seed 3 stays at 97 either way; WM unchanged with seeds 1
// and 3), but on trees of thousands of nodes, where the incumbent stays, the searches
// every 100 nodes took 15 % of the time (noise_additive_50, 200 records, OWA). A block's
// search (blocks.go) is there for its bound and climbs only at its start: its line
// searches over every competitor of the file took 41 % of noise_correlated_10 WM's block
// phase (CPU profile, 330 s on one goroutine), and without them the same phase searched
// 35 % more block nodes and ended at a bound of 656 links instead of 660.
const (
	climbShare        = 0.1
	climbPatience     = 50
	climbEvery        = 100
	climbTreePatience = 200
)

// lineSearch runs the iterated line search from the incumbent (rounds kicks at most
// without improvement, 0: a plain climb) and makes its end point the incumbent if it
// links more; it reports an improvement.
func (sv *solver) lineSearch(rounds int, share float64) bool {
	lb := sv.currentLB()
	if sv.climb == nil || sv.bestFail <= lb {
		return false // nothing to search, or the incumbent is proven optimal
	}
	// Under a work limit the search leaves room for its end point's count (consider).
	stop := sv.reserve(sv.newBudget(share).end, sv.workLinked)
	th := slices.Clone(sv.bestTheta)
	search(sv.climb, th, sv.rng, sv.threads, rounds, len(sv.d.recs)-lb, sv.localLimit(stop))
	if slices.Equal(th, sv.bestTheta) {
		return false // the search did not move (or could not start): nothing to count
	}
	sv.d.sp.project(th) // the steps' rounding: θ stays a member of the family
	return sv.consider(th)
}

// reserve is the reading at, a step's stop (zero: none), less units of work kept for
// what must follow the step (the count of its end point), under a work limit; at itself
// otherwise (the time of what follows is not known). A reserve larger than what is left
// makes a stop already past: the step does nothing.
func (sv *solver) reserve(at time.Duration, units int64) time.Duration {
	if !sv.clock.counting || at == 0 {
		return at
	}
	return max(at-time.Duration(units), 1)
}

// affords reports whether a step of units of work, known before it runs, may start: it
// ends by at (a reading of the clock; zero: no stop of its own) and by the search's
// deadline. It is true unless the clock counts work (clock.fits).
func (sv *solver) affords(units int64, at time.Duration) bool {
	return sv.clock.fits(units, at) && sv.clock.fits(units, sv.deadline)
}

// softIters bounds the smooth ascent's gradient steps at the start (about 20 s for the
// bilinear form on 1,080 records); localShare bounds the time of bilinearSearch under a
// limit (its share of the time left).
const (
	softIters  = 400
	localShare = 0.5
)

// bilinearSearch is the bilinear form's local search: from each of several starts, the
// smooth ascent (soft.go) and then, on files with twin groups, the swap search (swap.go);
// an end point that links more than the incumbent replaces it. The starts are the
// incumbent, the Euclidean W and the two metric-learning starts (metricstart.go): the
// end point depends on the start more than on the time spent (on mdav_k3, 1,080 records,
// the ascent and swaps ended at 355 links from the Euclidean W and at 358 and 357 from
// the two metric starts, each in under a minute, where the swaps from the best of the
// first two had found no more after 1.7 minutes of a 30-minute run). Under a
// time limit each start gets an equal part of what remains of localShare of the time
// left, its ascent at most half of that part; under a work limit a start runs only if its
// part pays for counting its end point, which its ascent leaves room for.
func (sv *solver) bilinearSearch() {
	sp, ok := sv.d.sp.(*bilinearSpace)
	if !ok || sv.noLocalSearch || sv.bestFail <= sv.currentLB() {
		return
	}
	sv.enter("local search")
	starts := [][]float64{slices.Clone(sv.bestTheta)}
	for _, th := range append([][]float64{sp.euclidean()}, metricStarts(sv.d, sp)...) {
		starts = appendNew(starts, th)
	}
	sv.eachStart(starts, localShare, func(th []float64, stopSwap time.Duration) {
		if !sv.affords(sv.workLinked, stopSwap) {
			return
		}
		var stopAscent time.Duration
		if stopSwap != 0 {
			now := sv.clock.now()
			stopAscent = min(now+max((stopSwap-now)/2, 1), sv.reserve(stopSwap, sv.workLinked))
		}
		softAscent(sv.d, sp, th, sv.epsLP, sv.fixed, sv.threads, softIters, sv.localLimit(stopAscent))
		// The incumbent and the Euclidean W are counted already: left where they were by
		// the ascent, they need no count.
		if !slices.Equal(th, sv.bestTheta) && !slices.Equal(th, sp.euclidean()) {
			sv.d.sp.project(th)
			sv.consider(th)
		}
		sv.swap(th, stopSwap)
	})
}

// eachStart runs run on each of starts in turn until the time is up or the incumbent is
// proven; under a limit each start gets an equal part of what remains of share of
// the time left (run's stop, a reading of the search's clock; zero without a limit).
func (sv *solver) eachStart(starts [][]float64, share float64, run func(theta []float64, stop time.Duration)) {
	b := sv.newBudget(share)
	for x, th := range starts {
		if sv.timeUp() || sv.bestFail <= sv.currentLB() {
			return
		}
		stop, ok := b.part(len(starts) - x)
		if !ok {
			return
		}
		run(th, stop)
	}
}

// budget divides a share of the time left when it was made into equal parts for the
// steps still to come; end is the clock's reading when it is spent, zero without a limit
// (no limit then).
type budget struct {
	clock *clock
	end   time.Duration
}

// newBudget is the budget of share of the time left.
func (sv *solver) newBudget(share float64) budget {
	if sv.deadline == 0 {
		return budget{}
	}
	now := sv.clock.now()
	return budget{&sv.clock, now + max(time.Duration(share*float64(sv.deadline-now)), 1)}
}

// part returns when the next of left steps must stop (a reading of the clock, zero: no
// limit); ok is false once the budget is spent.
func (b budget) part(left int) (stop time.Duration, ok bool) {
	if b.end == 0 {
		return 0, true
	}
	now := b.clock.now()
	p := (b.end - now) / time.Duration(left)
	if p <= 0 {
		return 0, false
	}
	return now + p, true
}

// appendNew appends θ to list unless an equal θ is in it.
func appendNew(list [][]float64, theta []float64) [][]float64 {
	if slices.ContainsFunc(list, func(s []float64) bool { return slices.Equal(s, theta) }) {
		return list
	}
	return append(list, theta)
}

// newMaster returns the master LP over K ∈ [0, 1]^N (at the current bounds) with no
// rows: a packLP up to packMaxN records, where it re-solves faster than CLP, CLP above.
func (sv *solver) newMaster() masterLP {
	n := len(sv.d.recs)
	if n <= packMaxN && !sv.clpMaster {
		if sv.masterWrap != nil {
			return sv.masterWrap(newPackLP(n))
		}
		return newPackLP(n)
	}
	lp := clp.New()
	lp.SetScaling(0) // all coefficients are 1
	obj := make([]float64, n)
	for i := range n {
		obj[i] = 1
	}
	if err := lp.LoadProblem(0, make([]int, n+1), nil, nil, sv.curLo, sv.curUp, obj, nil, nil); err != nil {
		panic(err)
	}
	return lp
}

// switchMasterToCLP replaces the master by a CLP model with the same rows (twin and block
// rows, in the order added, and the cut and clique rows of masterCut, in its order)
// and column bounds.
func (sv *solver) switchMasterToCLP() {
	sv.master.Close()
	sv.clpMaster = true
	rows := sv.masterCut
	sv.masterCut = nil
	sv.master = sv.newMaster()
	perm := sv.permRows
	sv.permRows = nil
	for _, c := range rows {
		if c >= 0 {
			sv.addMasterRow(sv.cutList[c], 1, c)
			continue
		}
		if c <= -2 {
			sv.addCliqueRow(-2 - c)
			continue
		}
		sv.addMasterRow(perm[0].members, float64(perm[0].rhs), -1)
		perm = perm[1:]
	}
	for i := range sv.curLo {
		sv.master.SetColumnBounds(i, sv.curLo[i], sv.curUp[i])
	}
}

func (sv *solver) close() {
	sv.sub.Close()
	sv.master.Close()
}

// localLimit is the limit of a local search that must stop at at (a reading of the
// search's clock; zero: no limit) or when the search is interrupted.
func (sv *solver) localLimit(at time.Duration) limit { return limit{&sv.clock, at, sv.done} }

// readingAt converts stop, a reading of clock c (another search's; zero: none), to a
// reading of the search's own clock: the same time left, or the same work.
func (sv *solver) readingAt(c *clock, stop time.Duration) time.Duration {
	if stop == 0 {
		return 0
	}
	return sv.clock.now() + max(stop-c.now(), 1)
}

// setDeadline makes stop (a reading of the search's clock) the search's limit (zero:
// none), as Settings.TimeLimit would from its start.
func (sv *solver) setDeadline(stop time.Duration) {
	sv.deadline = stop
}

// workSpent reports whether a work limit is reached: under one, no LP solve starts past
// it (an irreducible set's filter then keeps the verified support, iis), so that a search
// ends past its limit by at most the solve in progress. Under a time limit the filter
// still ends its set after the limit, as it did.
func (sv *solver) workSpent() bool { return sv.clock.counting && sv.timeUp() }

func (sv *solver) timeUp() bool {
	if sv.timedOut {
		return true
	}
	select {
	case <-sv.done:
		sv.timedOut, sv.interrupted = true, true
		return true
	default:
	}
	if sv.deadline != 0 && sv.clock.now() > sv.deadline {
		sv.timedOut = true
	}
	return sv.timedOut
}

func (sv *solver) fix(i int) {
	if sv.fixed[i] {
		return
	}
	sv.fixed[i] = true
	sv.stats.Fixed++
}

// addCut records the covering cut Σ_{i∈S} K_i ≥ 1 (S sorted); a one-record cut fixes
// K_i = 1. It reports whether the cut is new.
func (sv *solver) addCut(S []int) bool {
	if !sv.registerCut(S) {
		return false
	}
	if len(S) > 1 {
		sv.addMasterRow(S, 1, len(sv.cutList)-1)
	}
	return true
}

// registerCut records the infeasible set S (sorted) for the combinatorial checks (a set
// containing it is known to be infeasible) without a master row; a one-record set fixes
// K_i = 1. It reports whether S is new.
func (sv *solver) registerCut(S []int) bool {
	key := setKey(S)
	if sv.cutKeys[key] {
		return false
	}
	sv.cutKeys[key] = true
	sv.stats.Cuts++
	for _, i := range S {
		sv.cutCount[i]++
	}
	if len(S) == 1 {
		sv.fix(S[0])
		return true
	}
	for _, i := range S {
		sv.cutsOf[i] = append(sv.cutsOf[i], len(sv.cutList))
	}
	if len(S) == 2 {
		sv.conflict[conflictKey(S[0], S[1])] = true
		sv.neighbours[S[0]] = append(sv.neighbours[S[0]], S[1])
		sv.neighbours[S[1]] = append(sv.neighbours[S[1]], S[0])
	}
	sv.cutList = append(sv.cutList, S)
	sv.inMaster = append(sv.inMaster, false)
	return true
}

// addMasterRow adds Σ_{i∈S} K_i ≥ rhs to the master, the row of cut c of cutList (−1: a
// twin or block row, −2 − k: clique row k).
func (sv *solver) addMasterRow(S []int, rhs float64, c int) {
	if c >= 0 {
		sv.inMaster[c] = true
	}
	if c == -1 {
		sv.permRows = append(sv.permRows, twinRow{S, int(rhs)})
	}
	sv.masterCut = append(sv.masterCut, c)
	ones := make([]float64, len(S))
	for x := range ones {
		ones[x] = 1
	}
	if err := sv.master.AddRow(rhs, math.Inf(1), S, ones); err != nil {
		panic(err)
	}
}

// twinRow is a twin group's clique row Σ_{i∈members} K_i ≥ rhs.
type twinRow struct {
	members []int
	rhs     int
}

// room is the number of the group's members that can be linked together.
func (r twinRow) room() int { return len(r.members) - r.rhs }

// twinCuts adds the conflicts of records whose standardised query records are identical:
// for each such group G, every pair of members with different true partners is an
// irreducible infeasible set (registered for the combinatorial checks), and the master
// gets the group's clique row Σ_{i∈G} K_i ≥ |G| − (the most members sharing one true
// partner).
//
// Why it holds for every family: identical queries have the same features φ(i, ·) =
// φ(i', ·), so two members with t(i) ≠ t(i') have the rows θ·(φ(i,t(i')) − φ(i,t(i))) ≥ ε
// and θ·(φ(i,t(i)) − φ(i,t(i'))) ≥ ε, whose sum reads 0 ≥ 2ε (with ε > 0); the rows
// dominance drops are implied by kept ones, so the pair is infeasible in the reduced model
// too. In words: identical records have one nearest reference, and only the members
// whose true partner it is can be linked. Microaggregation (MDAV with group size k)
// releases each group of k records as one value, so at most a k-th of such a file can be
// linked; without these rows the master learns that pair by pair through LPs, and its
// bound stays far above (CENSUS mdav_k3, 1,080 records, WM: 629 after 2 minutes where
// the file has 360 distinct masked records).
//
// Pairs with a record that can never be linked (fixed K_i = 1) say nothing and are not
// registered, nor are the pairs of a group of more than twinPairMax members, whose clique
// row holds what they say (the checks find a pair when they meet it): on files of a few
// discrete attributes groups of thousands made tens of millions of pairs (Adult's age
// alone: 10 million cuts, 3 GB).
func (sv *solver) twinCuts() {
	for _, row := range twinGroups(sv.d) {
		if len(row.members) <= twinPairMax {
			sv.twinPairs(row.members)
		}
		sv.addMasterRow(row.members, float64(row.rhs), -1)
		sv.twinRows = append(sv.twinRows, row)
		sv.stats.TwinGroups++
	}
}

// twinGroups returns the groups of records of d with identical query records and more
// than one true partner among them, each with its row's right-hand side (twinCuts).
func twinGroups(d *data) []twinRow {
	m := d.m
	groups := map[string][]int{}
	var order []string
	key := make([]byte, 0, 8*m)
	for i, r := range d.recs {
		key = key[:0]
		for _, v := range d.queries[r.q*m : r.q*m+m] {
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(v+0)) // −0 as +0
		}
		k := string(key)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var rows []twinRow
	for _, k := range order {
		G := groups[k]
		if len(G) < 2 {
			continue
		}
		share := map[int]int{}
		most := 0
		for _, i := range G {
			share[d.recs[i].t]++
			most = max(most, share[d.recs[i].t])
		}
		if most == len(G) {
			continue // one true partner for all: they are linked or not together
		}
		rows = append(rows, twinRow{G, len(G) - most})
	}
	return rows
}

// twinPairs registers the pairs of members of a twin group with different true partners
// that can each be linked alone.
func (sv *solver) twinPairs(G []int) {
	for x, i := range G {
		if sv.d.recs[i].impossible {
			continue
		}
		for _, j := range G[x+1:] {
			if sv.d.recs[i].t != sv.d.recs[j].t && !sv.d.recs[j].impossible && sv.registerCut([]int{i, j}) {
				sv.inMaster[len(sv.cutList)-1] = true // implied by the clique row
			}
		}
	}
}

// twinPairMax is the largest twin group whose pairs twinCuts registers one by one: at
// most twinPairMax/2 pairs per member (microaggregation's groups have at most 2k − 1).
const twinPairMax = 64

// consider makes θ the incumbent if it links more records; it reports an improvement.
func (sv *solver) consider(theta []float64) bool {
	_, better := sv.considerLinked(theta)
	return better
}

// considerLinked is consider that also returns the records theta links.
func (sv *solver) considerLinked(theta []float64) (linked []bool, better bool) {
	linked, n := sv.linkedSet(theta)
	return linked, sv.adopt(theta, n)
}

// adopt is consider of a θ whose links linkedSet has counted already (n): a second pass
// over the same θ would only count its work again.
func (sv *solver) adopt(theta []float64, n int) bool {
	fail := len(sv.d.recs) - n
	if fail >= sv.bestFail {
		return false
	}
	sv.bestFail = fail
	copy(sv.bestTheta, theta)
	sv.report(true)
	return true
}

func (sv *solver) report(force bool) {
	if sv.progress == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(sv.lastReport) < time.Second {
		return
	}
	sv.lastReport = now
	n := len(sv.d.recs)
	inc, bound := n-sv.bestFail, n-sv.currentLB()
	bound = max(bound, inc)
	gap := 0.0
	if bound > 0 {
		gap = float64(bound-inc) / float64(bound)
	}
	sv.progress(Report{Incumbent: inc, Bound: bound, N: n, Gap: gap, Nodes: sv.stats.Nodes, Elapsed: now.Sub(sv.start),
		Work: sv.clock.seconds(), Phase: sv.phase})
}

// enter starts the phase of the search named phase (Report.Phase) and reports it.
func (sv *solver) enter(phase string) {
	sv.phase = phase
	sv.report(true)
}

// polishShare and polishMin bound the time of one local search under a time limit.
const (
	polishShare = 0.1
	polishMin   = time.Second
)

// polish is the local search on θ: starting from the records θ links, it tries to link
// one more record at a time (closest to being linked first) by re-solving the subproblem;
// a success moves θ, a failure yields an irreducible infeasible set, i.e. a cut.
func (sv *solver) polish(theta []float64) {
	if sv.noLocalSearch {
		return
	}
	// Under a work limit: the passes below and the count of a θ found after them.
	if !sv.affords(2*sv.workLinked+sv.workWorst, 0) {
		return
	}
	linked, _ := sv.linkedSet(theta)
	th := append([]float64(nil), theta...)
	type cand struct {
		i int
		w float64
	}
	var cs []cand
	worst := sv.worstMargins(th)
	for i := range sv.d.recs {
		if !linked[i] && !sv.fixed[i] {
			cs = append(cs, cand{i, worst[i]})
		}
	}
	sort.Slice(cs, func(a, b int) bool { return cs[a].w > cs[b].w || cs[a].w == cs[b].w && cs[a].i < cs[b].i })
	// With a time limit, one local search gets at most polishShare of the remaining time
	// (at least polishMin), so that the bound keeps improving on large files.
	var stop time.Duration
	if sv.deadline != 0 {
		now := sv.clock.now()
		stop = now + max(polishMin, time.Duration(polishShare*float64(sv.deadline-now)))
	}
	for _, c := range cs {
		if sv.timeUp() || stop != 0 && sv.clock.now() > stop {
			return
		}
		if linked[c.i] || sv.fixed[c.i] || sv.knownInfeasible(linked, c.i) {
			continue
		}
		sv.report(false)
		L := append([]bool(nil), linked...)
		L[c.i] = true
		// Under a work limit: the check of θ on L and, if it links them, its count.
		if !sv.affords(sv.checkWork(L)+sv.workLinked, stop) {
			return
		}
		sv.activate(L)
		switch sv.solveSub() {
		case aborted:
			return
		case stalled:
			continue // undecided: try the next record
		case feasible:
			copy(th, sv.theta)
			var n int
			linked, n = sv.linkedSet(th)
			sv.adopt(th, n)
			linked[c.i] = true // linked at ε + lpSlack, hence at ε
		case infeasible:
			if S := sv.iis(); S != nil {
				sv.addCut(S)
			}
		}
	}
}

// extendBudget bounds the failed extensions tried per master solution.
const extendBudget = 20

// extend grows the linkable set L (its θ in sv.theta) by the records with the smallest
// K first, adding the cut of each failure; it reports whether a new cut is violated by K.
func (sv *solver) extend(L []bool, K []float64) bool {
	var order []int
	for i := range L {
		if !L[i] && !sv.fixed[i] && K[i] < 1-intTol {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return K[order[a]] < K[order[b]] })
	cur := append([]bool(nil), L...)
	violated, fails := false, 0
	for _, i := range order {
		if sv.timeUp() || fails >= extendBudget {
			break
		}
		if sv.knownInfeasible(cur, i) {
			continue
		}
		cur[i] = true
		// Under a work limit: the check of θ on cur and, if it links them, its count.
		if !sv.affords(sv.checkWork(cur)+sv.workLinked, 0) {
			break
		}
		sv.activate(cur)
		switch sv.solveSub() {
		case aborted:
			return violated
		case stalled:
			cur[i] = false // undecided: leave it out and go on
		case feasible:
			if sv.affords(sv.workLinked, 0) { // under a work limit, if the pass fits
				sv.consider(sv.theta)
			}
		case infeasible:
			cur[i] = false
			fails++
			if S := sv.iis(); S != nil {
				sv.addCut(S)
				violated = violated || coverage(S, K) < 1-intTol
			}
		}
	}
	return violated
}

// node is an open node of the master's branch and bound: the branching decisions from the
// root (+(i+1): K_i = 1, −(i+1): K_i = 0) and a lower bound on Σ K in its subtree.
type node struct {
	fix   []int
	lb    int
	depth int
	seq   int
}

type nodeHeap []*node

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(a, b int) bool {
	x, y := h[a], h[b]
	if x.lb != y.lb {
		return x.lb < y.lb
	}
	if x.depth != y.depth {
		return x.depth > y.depth
	}
	return x.seq < y.seq
}
func (h nodeHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *nodeHeap) Push(x any)   { *h = append(*h, x.(*node)) }
func (h *nodeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// currentLB is the proven lower bound on Σ K: the least bound of the open nodes (the
// whole tree is explored otherwise).
func (sv *solver) currentLB() int {
	if sv.closed {
		return sv.bestFail
	}
	if !sv.treeStarted {
		return min(sv.staticLB(), sv.bestFail) // before the tree: the records proven unlinkable
	}
	lb := sv.bestFail
	for _, nd := range sv.open {
		lb = min(lb, nd.lb)
	}
	if sv.cur != nil {
		lb = min(lb, sv.cur.lb)
	}
	// Rows found after a node was bounded (the blocks', after the probe of the tree) hold
	// for every node: the open nodes' bounds may be older than them.
	return min(max(min(lb, sv.unresolved), sv.staticLB()), sv.bestFail)
}

func (sv *solver) boundLinks() int { return len(sv.d.recs) - sv.currentLB() }

// staticLB is the lower bound on Σ K known without the master: the fixed records, and in
// each twin group at least its row's right-hand side of failures; or the block rows'.
func (sv *solver) staticLB() int {
	return max(sv.twinLB(), sv.blockLB())
}

// twinLB is the fixed records and in each twin group at least its row's right-hand side
// of failures.
func (sv *solver) twinLB() int {
	lb := sv.stats.Fixed
	for _, row := range sv.twinRows {
		lb += sv.twinRowLB(row)
	}
	return lb
}

// twinRowLB is the failures a twin group's row proves beyond its fixed members.
func (sv *solver) twinRowLB(row twinRow) int { return row.lb(sv.fixed) }

// lb is the failures the row proves beyond its members that fail already (fails[i]).
func (r twinRow) lb(fails []bool) int {
	n := 0
	for _, i := range r.members {
		if fails[i] {
			n++
		}
	}
	return max(0, r.rhs-n)
}

// twinGroupOf is the index in twinRows of each record's twin group (−1: none).
func (sv *solver) twinGroupOf() []int {
	group := make([]int, len(sv.d.recs))
	for i := range group {
		group[i] = -1
	}
	for g, row := range sv.twinRows {
		for _, i := range row.members {
			group[i] = g
		}
	}
	return group
}

// checkShare is the share of the time limit the one-record checks get (checkAlone).
const checkShare = 0.25

// checkAlone fixes K_i = 1 for the records that cannot be linked even alone. Under a
// time limit it gets at most a quarter of it: on a large file of a family without
// dominance (bilinear) it is hundreds of LPs that mostly prove records linkable alone,
// while the tree's covering cuts are what move the bound. Records left unchecked are only
// not fixed.
func (sv *solver) checkAlone() {
	n := len(sv.d.recs)
	stopChecks := sv.newBudget(checkShare).end
	// Under a work limit: the pass below, and one for each check that links its record.
	if !sv.affords(2*sv.workLinked, stopChecks) {
		return
	}
	linked, _ := sv.linkedSet(sv.bestTheta)
	for i := range sv.d.recs {
		if sv.timeUp() || stopChecks != 0 && sv.clock.now() > stopChecks || !sv.affords(sv.workLinked, stopChecks) {
			break
		}
		if linked[i] || sv.fixed[i] {
			continue
		}
		sv.report(false) // this loop can take minutes on a large file: keep reporting
		res := sv.checkOne(i)
		// CLP's trouble on the small LP: retry on the shared one (not after a stall of
		// the family's cuts, which the bigger LP would repeat, slower).
		if res == aborted && !sv.timeUp() {
			L := make([]bool, n)
			L[i] = true
			sv.activate(L)
			res = sv.solveSub()
		}
		switch res {
		case feasible:
			// A record that this θ links is linkable alone: it needs no check.
			links, _ := sv.considerLinked(sv.theta)
			for j, ok := range links {
				linked[j] = linked[j] || ok
			}
		case infeasible:
			sv.addCut([]int{i})
		}
	}
}

func (sv *solver) run() {
	sv.twinCuts()
	sv.report(true) // the Euclidean incumbent and the twins' bound, at once
	// The smooth ascent and the swap search serve the bilinear form only: on WM and OWA
	// the ascent found no more than the line search and its time cost the tree nodes, and
	// their trees reach their targets on the twin files without the swaps (bench/README).
	if !sv.blockSearch {
		sv.bilinearSearch()
		// The root first: where its cuts and rounding prove the optimum
		// (noise_additive_10: under a second), the local searches and blocks below, which
		// take shares of the time limit, would only delay the proof (by 58 s at 10 min).
		sv.enter("root")
		if !sv.noProbe && sv.probeTree() {
			sv.finish()
			return
		}
	}
	sv.enter("line search")
	sv.lineSearch(climbPatience, climbShare)
	if !sv.blockSearch {
		sv.enter("one-record checks")
		sv.checkAlone() // a block's or neighbourhood's records were checked as the file's
	}
	sv.enter("local search")
	sv.polish(sv.bestTheta)
	if !sv.blockSearch {
		sv.enter("blocks")
		sv.blockBounds()
		sv.enter("neighbourhoods")
		sv.neighbourhoods(nbhdShare)
	}
	sv.enter("tree")
	sv.startTree()
	sv.tree(0)
	sv.finish()
}

// startTree puts the root in the tree, once.
func (sv *solver) startTree() {
	if sv.treeStarted {
		return
	}
	heap.Push(&sv.open, &node{fix: sv.rootFix, lb: sv.staticLB(), seq: sv.seq})
	sv.treeStarted = true
	sv.seq++
}

// probeNodes and probeShare bound the short tree at the start of the file's search: the
// root alone, within probeShare of the time limit. The root's cuts and rounding prove
// the easy files; more nodes, branched with the Euclidean incumbent only, cost the hard
// ones (noise_additive_50, 200 records, OWA: 20 nodes left it unproven at 60 s).
const (
	probeNodes = 1
	probeShare = 0.03
)

// probeTree explores up to probeNodes nodes of the tree within probeShare of the time
// limit and reports whether the tree was closed with every node decided (or the search's
// own time is up); the open nodes stay for the tree after the local searches.
func (sv *solver) probeTree() bool {
	sv.startTree()
	deadline := sv.deadline
	if deadline != 0 {
		sv.setDeadline(sv.newBudget(probeShare).end)
	}
	sv.tree(sv.stats.Nodes + probeNodes)
	sv.setDeadline(deadline)
	if sv.timedOut && !sv.interrupted && (deadline == 0 || sv.clock.now() <= deadline) {
		sv.timedOut = false // the probe's limit, not the search's
	}
	if sv.timeUp() {
		return true
	}
	if sv.open.Len() == 0 && sv.unresolved < sv.bestFail {
		// The root was given up on (CLP's trouble, a stalled game): the tree is empty but
		// not closed. The root goes back in, with the bound its master gave (valid for
		// every node, so the reported bound does not move back), to be tried again after
		// the local searches, as without the probe.
		heap.Push(&sv.open, &node{fix: sv.rootFix, lb: sv.unresolved, seq: sv.seq})
		sv.seq++
		sv.unresolved = len(sv.d.recs) + 1
		sv.givenUp = [numGiveUps]int{} // the root is tried again
		return false
	}
	return sv.open.Len() == 0
}

// tree processes the open nodes, best bound first, until none is left, the time is up,
// or (maxNodes > 0) the node count reaches maxNodes. Every climbEvery nodes, then twice
// as many after each search that found nothing, the line search resumes from the
// incumbent.
func (sv *solver) tree(maxNodes int) {
	for sv.open.Len() > 0 {
		if sv.timeUp() || maxNodes > 0 && sv.stats.Nodes >= maxNodes {
			return
		}
		nd := heap.Pop(&sv.open).(*node)
		if nd.lb >= sv.bestFail {
			continue
		}
		sv.stats.Nodes++
		sv.cur = nd
		sv.processNode(nd)
		sv.cur = nil
		sv.report(false)
		if !sv.blockSearch && sv.stats.Nodes >= sv.nextClimb {
			sv.climbGap *= 2
			if sv.lineSearch(climbTreePatience, climbShare) {
				sv.polish(sv.bestTheta)
				sv.climbGap = climbEvery
			}
			sv.nextClimb = sv.stats.Nodes + sv.climbGap
		}
	}
}

// finish sets the status after the tree and makes the last report.
func (sv *solver) finish() {
	if sv.timeUp() {
		sv.status = TimeLimit
		if sv.clock.counting {
			sv.status = WorkLimit
		}
		if sv.interrupted {
			sv.status = Interrupted
		}
		if sv.currentLB() >= sv.bestFail {
			sv.status = Optimal // the tree was closed when the limit struck
		}
	} else {
		sv.open = nil
		sv.closed = sv.unresolved >= sv.bestFail
		sv.status = Optimal
		if !sv.closed {
			sv.status = TimeLimit // stopped short of a proof (numerical trouble), bound kept
			sv.shortOfProof = true
		}
	}
	sv.report(true)
}

// applyBounds sets the master's column bounds for a node; it reports false when the
// node's decisions contradict a fixing (the node is empty).
func (sv *solver) applyBounds(nd *node) bool {
	n := len(sv.d.recs)
	lo, up := make([]float64, n), make([]float64, n)
	for i := range n {
		up[i] = 1
		if sv.fixed[i] {
			lo[i] = 1
		}
	}
	for _, f := range nd.fix {
		if f > 0 {
			lo[f-1] = 1
		} else {
			if sv.fixed[-f-1] {
				return false
			}
			up[-f-1] = 0
		}
	}
	for i := range n {
		if lo[i] != sv.curLo[i] || up[i] != sv.curUp[i] {
			sv.master.SetColumnBounds(i, lo[i], up[i])
			sv.curLo[i], sv.curUp[i] = lo[i], up[i]
		}
	}
	return true
}

// masterState is the outcome of a master LP solve.
type masterState int

const (
	masterSolved masterState = iota
	masterInfeasible
	masterStopped // the time limit stopped CLP
)

// solveMaster solves the master LP at the current bounds; masterInfeasible is proven by a
// verified Farkas certificate.
func (sv *solver) solveMaster() (obj float64, K []float64, state masterState) {
	// purgeMaster drops rows slack at lastK: only the last solution's K will do.
	sv.lastK = sv.lastK[:0]
	sv.limit(sv.master)
	sv.stats.MasterSolves++
	st := sv.resume(sv.master, sv.master.Dual())
	if st == clp.PrimalInfeasible {
		if _, cert := sv.farkas(sv.master); cert {
			return 0, nil, masterInfeasible
		}
	}
	if st != clp.Optimal {
		if sv.timeUp() {
			return 0, nil, masterStopped
		}
		if _, ok := sv.master.(*clp.Model); !ok {
			// packLP rejected its own answer (numerical trouble): CLP takes over the
			// master with the same rows and bounds for the rest of the search.
			sv.switchMasterToCLP()
		}
		sv.limit(sv.master)
		st = sv.resume(sv.master, sv.master.Primal())
		if st == clp.PrimalInfeasible {
			if _, cert := sv.farkas(sv.master); cert {
				return 0, nil, masterInfeasible
			}
		}
		if st != clp.Optimal {
			if sv.timeUp() || st == clp.StoppedOnLimit {
				return 0, nil, masterStopped // the node goes back to the tree
			}
			panic("optimize: CLP failed on the master problem: " + st.String())
		}
	}
	sv.lastK = sv.master.Solution(sv.lastK)
	obj = sv.master.ObjectiveValue()
	if c, ok := sv.master.(*clp.Model); ok {
		// The node's bound is a proof: CLP's "optimal" holds up to its tolerances (and
		// its scaled simplex was seen to stop short of an optimum, canonical.go), so the
		// bound is the Lagrangian bound of its duals, valid for any duals (as packLP's).
		// Σ K ≥ 0 whatever they are.
		obj = max(0, min(obj, c.LagrangianBound(c.Duals(nil))))
	}
	return obj, append([]float64(nil), sv.lastK...), masterSolved
}

// maxResumes bounds the resumptions of one CLP solve stopped by its CPU-time cap.
const maxResumes = 10

// resume counts the iterations of the solve that returned st and, while CLP stopped on
// its cap with time or work left, resumes the solve (from its basis) under a new cap: the
// cap is CPU seconds estimated from the process's recent CPU share (limit), which can
// fall short when the machine frees up during the solve, or under a work limit the
// iterations the work left paid for when the solve began. Without this, a master solve
// stopped that way was taken for CLP's failure (a panic in a 120-s search on 1,080
// records beside three other searches).
func (sv *solver) resume(lp resumableLP, st clp.Status) clp.Status {
	sv.countSolve(lp)
	for range maxResumes {
		if st != clp.StoppedOnLimit || sv.timeUp() {
			break
		}
		sv.limit(lp)
		st = lp.Primal()
		sv.countSolve(lp)
	}
	return st
}

// countSolve counts the iterations of lp's last solve, in the statistics and as work
// (clock.go): the Go LPs' own operation counts, CLP's iterations by its model's size (a
// test's wrapper of the master, which tells neither, by its iterations).
func (sv *solver) countSolve(lp resumableLP) { sv.countIterations(lp, lp.Iterations()) }

// countIterations counts it iterations of lp (a solve's, or CLP's auxiliary Farkas LP's)
// as countSolve does.
func (sv *solver) countIterations(lp resumableLP, it int) {
	sv.stats.LPIterations += it
	work := int64(it) * workPerPivot
	switch lp := lp.(type) {
	case interface{ Ops() int64 }:
		work = lp.Ops() * workPerOp
	case *clp.Model:
		work = int64(it) * sv.clpIterationWork(lp)
	}
	sv.clock.add(workPerSolve + work)
}

// farkas is lp.FarkasCertificate under the time or work left (CLP's auxiliary elastic
// LP is a solve of its own, whose iterations are counted). false can also mean that the
// cap stopped the auxiliary LP: callers take it, conservatively, as no certificate.
func (sv *solver) farkas(lp limitedLP) ([]float64, bool) {
	sv.limit(lp)
	y, ok := lp.FarkasCertificate()
	if c, isCLP := lp.(*clp.Model); isCLP && c.FarkasIterations() > 0 {
		sv.countIterations(c, c.FarkasIterations())
	}
	return y, ok
}

// limit caps the next solve of lp at the time left. The Go LPs (gameLP, packLP) take it
// as wall time; CLP counts the process's CPU seconds, which a solve spends slower than
// wall time when the machine takes the CPU away (a 20-s search returned after 21.3 s
// with a quarter of the vCPUs' time stolen), so a CLP model's cap is the time left times
// the share of wall time the process has been getting.
//
// Under a work limit no cap is in seconds (where a solve stopped would depend on the
// machine): a CLP model's is the iterations the work left pays for, a Go LP's (gameLP,
// packLP, psdGame) the operations it pays for, one more than the work left so that a
// solve stopped by its cap leaves the search past its limit (timeUp) rather than taken
// for an undecided one; the work is counted when a solve returns (resume).
func (sv *solver) limit(lp limitedLP) {
	if sv.deadline == 0 {
		return
	}
	if sv.clock.counting {
		left := int64(sv.deadline - sv.clock.now())
		switch lp := lp.(type) {
		case *clp.Model:
			// One iteration at least. Uncapped, a Choquet θ-LP of 1,080 records ran on for
			// twice its operator's share of an audit's work limit.
			lp.SetMaxIterations(int(min(max(left/max(sv.clpIterationWork(lp), 1), 1), math.MaxInt32)))
		case interface{ SetMaxOps(int64) }:
			// Uncapped, one PSD game of the bilinear form's tree (CENSUS, 1,080 records)
			// counted 0.025 work seconds where 0.010 were left.
			lp.SetMaxOps(max((left-workPerSolve)/workPerOp, 0) + 1)
		}
		return
	}
	left := (sv.deadline - sv.clock.now()).Seconds()
	if _, cpuClock := lp.(*clp.Model); cpuClock {
		left *= sv.cpuShare()
	}
	lp.SetMaxSeconds(max(left, 1e-3))
}

// clpIterationWork is the work of one iteration of a CLP model of the search: by its
// non-zeros for the master, by its rows, columns and non-zeros for a θ-LP (clock.go).
func (sv *solver) clpIterationWork(c *clp.Model) int64 {
	if masterLP(c) == sv.master {
		return int64(c.NumElements()) * workPerMasterNonZero
	}
	return int64(c.NumElements())*workPerNonZero + int64(c.NumRows()+c.NumCols())*workPerPivot
}

// cpuShare estimates the CPU time the process gets per second of wall time, between 0.1
// and 1, from its user time (getrusage, what CLP's clock reads) over the last interval of
// at least 200 ms; 1 until the first interval ends or where getrusage fails.
func (sv *solver) cpuShare() float64 {
	now := time.Now()
	if !sv.share.at.IsZero() && now.Sub(sv.share.at) < 200*time.Millisecond {
		return sv.share.value
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 1
	}
	cpu := time.Duration(ru.Utime.Nano())
	if sv.share.at.IsZero() {
		sv.share.value = 1
	} else {
		sv.share.value = min(1, max(0.1, float64(cpu-sv.share.cpu)/float64(now.Sub(sv.share.at))))
	}
	sv.share.at, sv.share.cpu = now, cpu
	return sv.share.value
}

// limitedLP is what farkas and limit need of an LP.
type limitedLP interface {
	SetMaxSeconds(s float64)
	FarkasCertificate() ([]float64, bool)
}

// resumableLP is an LP whose stopped solve resume can continue.
type resumableLP interface {
	limitedLP
	Primal() clp.Status
	Iterations() int
}

const intTol = 1e-6

// masterKeepMin is the least number of cut rows the master keeps before dropping those
// that do not bind.
const masterKeepMin = 500

// A node's cut loop tails off when the master's objective gains less than tailGain in a
// round, tailRounds times in a row: the node then branches. Separation goes on in the
// children, where the bound moves again; letting the loop run to its end spent minutes
// at the root for a few hundredths of a failure (noise_additive_50, 100 records, WM, 60 s,
// θ-LPs on CLP: 3 nodes, bound 83; branching after one weak round: 54 nodes, bound 78).
const (
	tailGain   = 0.1
	tailRounds = 1
)

// noTailOff, as Settings.tailRounds, lets every node's cut loop run to its end (tests
// compare the two).
const noTailOff = math.MaxInt

func (sv *solver) processNode(nd *node) {
	n := len(sv.d.recs)
	prevObj, stall := math.Inf(-1), 0
	for {
		if sv.timeUp() {
			heap.Push(&sv.open, nd) // still open: its bound stays in the reported bound
			return
		}
		if !sv.applyBounds(nd) {
			return
		}
		sv.purgeMaster()
		obj, K, state := sv.solveMaster()
		for state == masterSolved && !sv.timeUp() && (sv.poolSeparate(K) || sv.cliqueSeparate(K)) {
			obj, K, state = sv.solveMaster()
		}
		if state == masterStopped {
			heap.Push(&sv.open, nd)
			return
		}
		if state == masterInfeasible {
			return
		}
		nd.lb = max(nd.lb, int(math.Ceil(obj-intTol)))
		if nd.lb >= sv.bestFail {
			return
		}
		if obj < prevObj+tailGain {
			stall++
		} else {
			stall = 0
		}
		prevObj = obj
		// Rounding: try to link every record with K_i < 1/2.
		L := make([]bool, n)
		for i := range n {
			L[i] = K[i] < 0.5 && !sv.fixed[i]
		}
		linkable, cuts, done := sv.check(L, K)
		if sv.checks++; sv.checks == sv.stallCheck { // a test's stand-in for CLP's trouble
			done = false
		}
		if !done {
			if sv.timeUp() {
				heap.Push(&sv.open, nd)
			} else {
				sv.givenUp[sv.lastGiveUp]++
				sv.unresolved = min(sv.unresolved, nd.lb)
			}
			return
		}
		// Under a work limit, θ is counted only if the pass fits before the limit.
		counted := sv.affords(sv.workLinked, 0)
		if counted && sv.consider(sv.theta) {
			sv.lineSearch(0, climbShare)
			sv.polish(sv.bestTheta)
		}
		violated := false
		// A cut K violates counts even when not new: the local search above may have
		// found it first, after the master was solved.
		for _, S := range cuts {
			sv.addCut(S)
			violated = violated || coverage(S, K) < 1-intTol
		}
		if !violated {
			// Cut separation by extension: from the linkable set, try the other records
			// in increasing K; each failure is an irreducible infeasible set containing
			// the record, usually violated by K.
			violated = sv.extend(linkable, K)
		}
		if violated && stall < sv.tailRounds {
			continue
		}
		// Branch on the most fractional K_i (ties: in more cuts, then lower index).
		br, best := -1, 0.0
		for i := range n {
			f := min(K[i], 1-K[i])
			if f <= intTol {
				continue
			}
			if br < 0 || f > best+1e-9 || math.Abs(f-best) <= 1e-9 && sv.cutCount[i] > sv.cutCount[br] {
				br, best = i, f
			}
		}
		if br < 0 {
			// K is integral. If its rounding was linkable, the node's optimum is the
			// incumbent (or worse). If not (a tailing-off round found violated cuts), the
			// master must be solved again with them; the node is not closed.
			allLinked := true
			for i := range n {
				allLinked = allLinked && (!L[i] || linkable[i])
			}
			switch {
			case allLinked && !counted:
				// θ links every record of L, but the work left could not pay for
				// counting its links: the incumbent does not have them, so the node is
				// not solved. It goes back to the tree with its bound, and the limit
				// (the search's, or the probe's share) is taken as reached. Closing it
				// here ended a bilinear search "optimal" at 395 of 400 records that one
				// W links together (CENSUS rankswap_p5, --work-limit 1).
				heap.Push(&sv.open, nd)
				sv.timedOut = true
				return
			case allLinked:
				return
			case violated:
				continue
			default: // no cut separates this K (not expected): keep the bound honest
				sv.givenUp[giveUpOther]++
				sv.unresolved = min(sv.unresolved, nd.lb)
				return
			}
		}
		for _, f := range []int{br + 1, -(br + 1)} {
			child := &node{fix: append(append([]int(nil), nd.fix...), f), lb: nd.lb, depth: nd.depth + 1, seq: sv.seq}
			sv.seq++
			heap.Push(&sv.open, child)
		}
		return
	}
}

// setKey is the map key of a sorted set of records.
func setKey(S []int) string {
	var b strings.Builder
	for _, i := range S {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
	}
	return b.String()
}

// conflictKey is the key of the pair {i, j} in the conflict graph.
func conflictKey(i, j int) uint64 {
	if i > j {
		i, j = j, i
	}
	return uint64(i)<<32 | uint64(j)
}

// cliqueSeeds bounds the records from which cliqueSeparate grows cliques per call.
const cliqueSeeds = 64

// cliqueSeparate adds to the master clique rows Σ_{i∈C} K_i ≥ |C| − 1 of the conflict
// graph that K violates (Σ_{i∈C} (1 − K_i) > 1), the dropped ones first: the covering rows
// of pairs alone let every member of a clique be half linked (the edge formulation of a
// stable-set problem, whose clique inequalities are the classic strengthening: Atamtürk,
// Nemhauser & Savelsbergh, "Conflict graphs in solving integer programming problems",
// EJOR 121, 2000). New cliques are grown greedily from the cliqueSeeds records with the
// largest 1 − K_i, by the largest 1 − K_j among the common neighbours, to maximal ones
// (fixed records left out); it reports whether it added a row.
//
// On microaggregated files the twin rows make each group a clique, and the pairs of
// records of two groups that cannot be linked together join them: CENSUS mdav_k10, OWA,
// 1,080 records, 120 s: bound 103 (gap 4.9 %) where it was 105 (104 after 10 minutes).
func (sv *solver) cliqueSeparate(K []float64) bool {
	added := false
	for c, C := range sv.cliqueRows {
		if !sv.cliqueIn[c] && float64(len(C))-coverage(C, K) > 1+1e-6 {
			sv.addCliqueRow(c)
			added = true
		}
	}
	if added {
		return true
	}
	y := func(i int) float64 { return 1 - K[i] }
	var seeds []int
	for i := range len(sv.d.recs) {
		if y(i) > intTol && len(sv.neighbours[i]) > 0 {
			seeds = append(seeds, i)
		}
	}
	slices.SortStableFunc(seeds, func(a, b int) int { return cmp.Compare(y(b), y(a)) })
	if len(seeds) > cliqueSeeds {
		seeds = seeds[:cliqueSeeds]
	}
	var cand []int
	for _, s := range seeds {
		C := []int{s}
		cand = append(cand[:0], sv.neighbours[s]...)
		slices.SortStableFunc(cand, func(a, b int) int {
			if c := cmp.Compare(y(b), y(a)); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		sum := y(s)
		for _, j := range cand {
			if sv.fixed[j] {
				continue
			}
			all := true
			for _, c := range C {
				if !sv.conflict[conflictKey(c, j)] {
					all = false
					break
				}
			}
			if all {
				C = append(C, j)
				sum += max(0, y(j))
			}
		}
		if sum <= 1+1e-6 || len(C) < 3 {
			continue
		}
		slices.Sort(C)
		key := setKey(C)
		if sv.cliqueKeys[key] {
			continue
		}
		sv.cliqueKeys[key] = true
		sv.cliqueRows = append(sv.cliqueRows, C)
		sv.cliqueIn = append(sv.cliqueIn, false)
		sv.addCliqueRow(len(sv.cliqueRows) - 1)
		sv.stats.CliqueRows++
		added = true
	}
	return added
}

// addCliqueRow adds clique k's row Σ_{i∈C} K_i ≥ |C| − 1 to the master.
func (sv *solver) addCliqueRow(k int) {
	C := sv.cliqueRows[k]
	sv.addMasterRow(C, float64(len(C)-1), -2-k)
	sv.cliqueIn[k] = true
}

// poolSeparate adds to the master the cuts of the pool that K violates (in the order of
// the pool); it reports whether there were any.
func (sv *solver) poolSeparate(K []float64) bool {
	added := false
	for _, c := range sv.pool.candidates(sv.cutList, sv.cutsOf, K) {
		if !sv.inMaster[c] && coverage(sv.cutList[c], K) < 1-intTol {
			sv.addMasterRow(sv.cutList[c], 1, c)
			added = true
		}
	}
	return added
}

// purgeMaster drops the cut rows that do not bind at the master's last solution once the
// master holds more than masterKeep of them: a covering LP with thousands of rows over a
// hundred columns costs CLP milliseconds per re-solve, while the binding rows are a few
// hundred. Dropped cuts stay in the pool and return when violated.
func (sv *solver) purgeMaster() {
	cutRows := 0
	for _, c := range sv.masterCut {
		if c != -1 {
			cutRows++
		}
	}
	if cutRows <= sv.masterKeep {
		return
	}
	if len(sv.lastK) == 0 {
		return // the last solve found no solution
	}
	var drop []int
	kept := sv.masterCut[:0:0]
	for row, c := range sv.masterCut {
		if c >= 0 && coverage(sv.cutList[c], sv.lastK) > 1+1e-6 {
			drop = append(drop, row)
			sv.inMaster[c] = false
			sv.pool.recheck = append(sv.pool.recheck, c)
		} else if C := -2 - c; C >= 0 && coverage(sv.cliqueRows[C], sv.lastK) > float64(len(sv.cliqueRows[C])-1)+1e-6 {
			drop = append(drop, row)
			sv.cliqueIn[C] = false
		} else {
			kept = append(kept, c)
		}
	}
	if len(drop) > 0 {
		sv.master.DeleteRows(drop)
		sv.masterCut = kept
	}
	sv.masterKeep = max(sv.masterKeep, 2*(len(kept)))
}

// coverage is Σ_{i∈S} K_i, a cut's activity at K.
func coverage(S []int, K []float64) float64 {
	s := 0.0
	for _, i := range S {
		s += K[i]
	}
	return s
}

// knownInfeasible reports whether set ∪ {i} contains a known cut through i.
func (sv *solver) knownInfeasible(set []bool, i int) bool {
	for _, c := range sv.cutsOf[i] {
		all := true
		for _, j := range sv.cutList[c] {
			if j != i && !set[j] {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
