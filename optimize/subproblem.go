package optimize

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/reid-sdc/reid/optimize/clp"
)

// maxAddPerRecord is the number of most violated rows row generation adds per record and
// round.
const maxAddPerRecord = 5

type outcome int

const (
	feasible outcome = iota
	infeasible
	aborted // time limit, or CLP failed
	// stalled: the family's cuts did not settle the LP (PSD or monotonicity cut rounds
	// exhausted); the set is undecided, and another LP would most likely stall too.
	stalled
)

// The θ-subproblem: columns θ (the family's parameters, with its bounds), the family's
// rows (normalisation first, then the cuts found: rowRec −1), and every generated
// competitor row θ·a ≥ ε + lpSlack of every record. A record's rows are switched on
// (lower bound ε + lpSlack) when the record must be linked and off (free row) otherwise, so
// one model with one warm basis serves every subset of records.

func (sv *solver) initSubproblem() {
	sp := sv.d.sp
	sv.sub = sv.newThetaLP()
	n := len(sv.d.recs)
	sv.recRows = make([][]int, n)
	sv.inLP = make([][]bool, n)
	sv.active = make([]bool, n)
	sv.addFamilyRows(sv.sub, sp.rows())
	sv.rowRec = make([]int, sv.sub.NumRows())
	for x := range sv.rowRec {
		sv.rowRec[x] = -1
	}
	var add []rowRef
	for i := range sv.d.recs {
		r := &sv.d.recs[i]
		sv.inLP[i] = make([]bool, r.ncand())
		if r.impossible {
			continue
		}
		for c := range min(sv.initialRows, r.ncand()) {
			add = append(add, rowRef{i, c})
		}
	}
	sv.addRows(add)
}

// thetaLP is the θ-LP interface of the search: a CLP model, gameLP for the simplex
// families, psdGame for the bilinear form.
type thetaLP interface {
	NumRows() int
	AddRows(lo, up []float64, start, idx []int, val []float64) error
	SetRowBounds(row int, lo, up float64)
	Dual() clp.Status
	Primal() clp.Status
	Solution(dst []float64) []float64
	FarkasCertificate() ([]float64, bool)
	Iterations() int
	SetMaxSeconds(s float64)
	Close()
}

// newThetaLP returns an empty θ-LP with the family's columns: a gameLP for the simplex
// families, a psdGame for the bilinear form (starting from the strategies the shared
// subproblem has learned, when it is one), a CLP model otherwise (Choquet, or all families
// with clpSubproblems).
func (sv *solver) newThetaLP() thetaLP {
	if !sv.clpSubproblems {
		switch s := sv.d.sp.(type) {
		case *simplexSpace:
			return newGameLP(s.m)
		case *bilinearSpace:
			shared, _ := sv.sub.(*psdGame)
			return newPSDGame(s, shared)
		}
	}
	lp := clp.New()
	lp.SetPrimalTolerance(lpPrimalTol)
	loadColumns(lp, sv.d.sp)
	return lp
}

// loadColumns loads an LP with the family's columns and bounds and no rows.
func loadColumns(lp *clp.Model, sp space) {
	lo, up := sp.bounds()
	if err := lp.LoadProblem(len(lo), make([]int, len(lo)+1), nil, nil, lo, up, sp.objective(), nil, nil); err != nil {
		panic(err)
	}
}

// addFamilyRows adds rows of the family to an LP.
func (sv *solver) addFamilyRows(lp thetaLP, rows []famRow) {
	if len(rows) == 0 {
		return
	}
	lo, up := make([]float64, len(rows)), make([]float64, len(rows))
	start := make([]int, len(rows)+1)
	var idx []int
	var val []float64
	for x, r := range rows {
		lo[x], up[x] = r.lo, r.up
		idx = append(idx, r.idx...)
		val = append(val, r.val...)
		start[x+1] = len(idx)
	}
	if err := lp.AddRows(lo, up, start, idx, val); err != nil {
		panic(err)
	}
}

// newCuts keeps the family cuts not yet found, records them (sv.famCuts, for the small
// LPs and the export) and adds them to the shared subproblem.
func (sv *solver) newCuts(cuts []famRow) []famRow {
	var fresh []famRow
	for _, r := range cuts {
		if k := cutKey(r); !sv.famCutKeys[k] {
			sv.famCutKeys[k] = true
			fresh = append(fresh, r)
		}
	}
	if len(fresh) > 0 {
		sv.famCuts = append(sv.famCuts, fresh...)
		sv.addFamilyRows(sv.sub, fresh)
		for range fresh {
			sv.rowRec = append(sv.rowRec, -1)
		}
		sv.stats.FamilyCuts += len(fresh)
	}
	return fresh
}

// cutKey identifies a family row by its exact coefficients.
func cutKey(r famRow) string {
	var b strings.Builder
	for x, c := range r.idx {
		b.WriteString(strconv.Itoa(c))
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(math.Float64bits(r.val[x]), 16))
		b.WriteByte(',')
	}
	return b.String()
}

type rowRef struct{ rec, cand int }

func (sv *solver) addRows(rows []rowRef) {
	if len(rows) == 0 {
		return
	}
	lo := make([]float64, len(rows))
	up := make([]float64, len(rows))
	start := make([]int, len(rows)+1)
	var idx []int
	var val []float64
	base := sv.sub.NumRows()
	for x, rr := range rows {
		r := &sv.d.recs[rr.rec]
		lo[x], up[x] = math.Inf(-1), math.Inf(1)
		if sv.active[rr.rec] {
			lo[x] = sv.epsLP
		}
		idx, val = sv.d.sp.row(sv.d, r, rr.cand, idx, val)
		start[x+1] = len(idx)
		sv.inLP[rr.rec][rr.cand] = true
		sv.recRows[rr.rec] = append(sv.recRows[rr.rec], base+x)
		sv.rowRec = append(sv.rowRec, rr.rec)
	}
	if err := sv.sub.AddRows(lo, up, start, idx, val); err != nil {
		panic(err) // finite coefficients and valid indices by construction
	}
	sv.stats.RowsGenerated += len(rows)
}

func (sv *solver) setActive(i int, on bool) {
	if sv.active[i] == on {
		return
	}
	sv.active[i] = on
	lo := math.Inf(-1)
	if on {
		lo = sv.epsLP
	}
	for _, row := range sv.recRows[i] {
		sv.sub.SetRowBounds(row, lo, math.Inf(1))
	}
}

// setThreshold sets the lower bound of the active rows to v.
func (sv *solver) setThreshold(v float64) {
	if sv.epsLP == v {
		return
	}
	sv.epsLP = v
	for i, on := range sv.active {
		if on {
			for _, row := range sv.recRows[i] {
				sv.sub.SetRowBounds(row, v, math.Inf(1))
			}
		}
	}
}

func (sv *solver) activate(set []bool) {
	for i, on := range set {
		sv.setActive(i, on)
	}
}

// activateOnly makes exactly the records recs active.
func (sv *solver) activateOnly(recs []int) {
	on := make([]bool, len(sv.d.recs))
	for _, i := range recs {
		on[i] = true
	}
	sv.activate(on)
}

// dualLP is a θ-LP as solveThetaLP needs it.
type dualLP interface {
	resumableLP
	Dual() clp.Status
}

// solveThetaLP runs the dual simplex on a θ-LP under the time left, the primal when the
// dual neither solves nor proves infeasibility, and counts the work.
func (sv *solver) solveThetaLP(lp dualLP) clp.Status {
	pg, _ := lp.(*psdGame)
	if pg != nil {
		defer func(before int) { sv.stats.PSDStrategies += pg.columns - before }(pg.columns)
	}
	sv.limit(lp)
	st := sv.resume(lp, lp.Dual())
	sv.stats.SubproblemSolves++
	if st != clp.Optimal && st != clp.PrimalInfeasible && !sv.timeUp() && pg == nil {
		sv.limit(lp) // the cap of what is left after the dual's iterations
		st = sv.resume(lp, lp.Primal())
	}
	return st
}

// knifeEdgeStep is the least distance above ε at which solveSub imposes the rows of a
// knife edge: a θ found there has margins ≥ ε + knifeEdgeStep up to the LPs' tolerances
// (lpPrimalTol = 1e-10 for CLP, 1e-11 relative for the games), so above ε.
const knifeEdgeStep = 1e-9

// maxCutRounds bounds the LP solves of one subproblem decision that add family cuts (PSD,
// monotonicity) without settling: beyond it the decision is given up (stalled), which
// keeps the bound honest.
const maxCutRounds = 100

// solveSub decides whether the active records can all be linked with margin ≥ ε, with their
// rows imposed at ε + lpSlack (closer to ε on a knife edge), generating rows until the
// pairwise check of the current θ finds no violated competitor.
// On feasible, sv.theta holds θ (a member of the family); on infeasible, sv.ray holds a
// verified Farkas certificate of the rows at ε itself, so that the cuts made from it are
// proofs at the margin the result is counted at. Where the rows are infeasible at
// ε + lpSlack but not provably at ε (a knife edge: the best θ's margin lies in between),
// the rows are tried at thresholds closer to ε, and the decision is given up (stalled) if
// none settles it: a θ found there still links at ε, and the bound stays honest.
func (sv *solver) solveSub() outcome {
	defer sv.setThreshold(sv.eps + lpSlack)
	rounds := 0
	// unscaled is a solution of the rows without CLP's scaling to go on from in place of
	// the next solve; unscaledTried, that the family's stall has had one.
	var unscaled []float64
	unscaledTried := false
	for {
		if sv.timeUp() {
			return aborted
		}
		var sol []float64 // the LP's solution, when not sv.sub's own
		st := clp.Optimal
		if unscaled != nil {
			sol, unscaled = unscaled, nil
		} else {
			st = sv.solveThetaLP(sv.sub)
		}
		if st == clp.PrimalInfeasible {
			if y, ok := sv.farkas(sv.sub); ok {
				if sv.epsLP == sv.eps {
					sv.ray = y
					return infeasible
				}
				// The same rows at ε: a certificate there is the proof.
				above := sv.epsLP
				if o, decided := sv.decideAtEpsilon(); decided {
					return o
				}
				next := sv.eps + (above-sv.eps)/4
				if next-sv.eps < knifeEdgeStep {
					sv.lastGiveUp = giveUpKnifeEdge
					return stalled
				}
				sv.setThreshold(next)
				continue
			}
			st = sv.resume(sv.sub, sv.sub.Primal()) // CLP's status was wrong
			if st == clp.PrimalInfeasible {
				if x, ok := sv.unscaledSolution(); ok {
					sol, st = x, clp.Optimal
				}
			}
		}
		if st != clp.Optimal {
			if sv.epsLP == sv.eps+lpSlack {
				// A knife edge: CLP calls the rows infeasible but no certificate exists
				// (feasible within its tolerance). Lower the threshold to ε + lpSlack/2: a
				// θ found there still has every margin above ε, and a certificate found
				// there is taken again at ε above.
				sv.setThreshold(sv.eps + lpSlack/2)
				continue
			}
			if st == clp.PrimalInfeasible && !sv.timeUp() {
				// Still infeasible without a certificate that verifies (CLP's ray and the
				// elastic problem's duals failed, in floating point and exactly: large
				// features, a Choquet measure's, and the best margin near ε): the rows at ε themselves may decide it; else the
				// decision is given up, its node's bound kept.
				if o, decided := sv.decideAtEpsilon(); decided {
					return o
				}
				if sv.timeUp() {
					return aborted
				}
				sv.lastGiveUp = giveUpUnverified
				return stalled
			}
			return sv.notDecided(sv.sub)
		}
		if sol == nil {
			sol = sv.sub.Solution(nil)
		}
		cuts := sv.settle(sol)
		// Under a work limit the pairwise check of θ runs only if its work (violations)
		// fits before the limit; otherwise the search stops here, as at its limit (on the
		// bilinear form, with every competitor a row, the check of a whole file's records
		// is half a margins pass).
		if !sv.checkFits() {
			return aborted
		}
		ev := sv.d.sp.evaluator(sv.d, sv.theta)
		var add []rowRef
		bad := false
		for i := range sv.d.recs {
			if sv.active[i] {
				cs, b := sv.violations(ev, i, sv.inLP[i], sv.epsLP)
				bad = bad || b
				for _, c := range cs {
					add = append(add, rowRef{i, c})
				}
			}
		}
		if len(add) == 0 && !bad {
			return feasible
		}
		fresh := 0
		if bad {
			fresh = len(sv.newCuts(cuts))
			if rounds++; fresh == 0 && len(add) == 0 || rounds > maxCutRounds {
				// The projection onto the family broke rows of the LP by more than half
				// the slack above ε, and no cut fixes it (yet): a tolerance-sized step
				// of θ times large features (a Choquet measure repaired to be monotone,
				// squared z-scores in the hundreds). The projected θ may still link every
				// active record at ε, which settles it; else the decision is given up.
				if !sv.checkFits() {
					return aborted // the limit, not the family, stopped it
				}
				if sv.linksActive() {
					return feasible
				}
				// Scaled, CLP holds the rows to its tolerance in scaled units, which on
				// heavy-tailed features (a Choquet measure's) can leave them broken by
				// more than the slack: once, go on from a solution without scaling.
				if !unscaledTried {
					unscaledTried = true
					if x, ok := sv.unscaledSolution(); ok {
						unscaled, rounds = x, 0
						continue
					}
				}
				sv.lastGiveUp = giveUpFamily
				return stalled
			}
		}
		sv.addRows(add)
	}
}

// unscaledSolution solves a copy of the subproblem (a CLP model) without CLP's scaling of
// the matrix and returns its solution if that solve ends optimal. Scaled, CLP can call the
// rows of heavy-tailed features (a Choquet measure's, in the hundreds) infeasible where
// they are not: on a choquet2 search of 50 CENSUS records, rows whose scaled elastic
// problem claimed an infeasibility of 7.7 solved unscaled with none. The copy is solved
// from scratch and closed: the shared subproblem keeps its scaling and basis, whose
// re-solves stay fast where scaling serves.
func (sv *solver) unscaledSolution() ([]float64, bool) {
	c, isCLP := sv.sub.(*clp.Model)
	if !isCLP || sv.timeUp() {
		return nil, false
	}
	u := c.Copy()
	defer u.Close()
	u.SetScaling(0)
	u.SetPrimalTolerance(lpPrimalTol)
	sv.limit(u)
	if sv.resume(u, u.Primal()) != clp.Optimal {
		return nil, false
	}
	return u.Solution(nil), true
}

// decideAtEpsilon solves the subproblem with its rows at ε itself: infeasible with a
// verified certificate there (sv.ray, the proof), feasible when its θ links every active
// record at ε (every competitor, as linkedSet counts: a margin equal to ε), aborted at the
// limit (under a work limit the pass runs only if its work fits, as solveSub's check);
// decided is false otherwise. The threshold stays at ε: solveSub, its caller,
// restores ε + lpSlack when it returns (a θ of the main loop at ε would not be above it).
func (sv *solver) decideAtEpsilon() (o outcome, decided bool) {
	sv.setThreshold(sv.eps)
	if sv.timeUp() {
		return aborted, true
	}
	switch sv.solveThetaLP(sv.sub) {
	case clp.PrimalInfeasible:
		if y, ok := sv.farkas(sv.sub); ok {
			sv.ray = y
			return infeasible, true
		}
	case clp.Optimal:
		if !sv.checkFits() {
			return aborted, true
		}
		if sv.settle(sv.sub.Solution(nil)) == nil && sv.linksActive() {
			return feasible, true
		}
	}
	return stalled, false
}

// checkFits reports whether the pairwise check of θ on the active records (violations,
// linksActive) fits before the deadline; when it does not, the search is marked timed
// out, as at its limit.
func (sv *solver) checkFits() bool {
	if sv.clock.fits(sv.checkWork(sv.active), sv.deadline) {
		return true
	}
	sv.timedOut = true
	return false
}

// linksActive reports whether sv.theta links every active record with margin ≥ ε.
func (sv *solver) linksActive() bool {
	ev := sv.d.sp.evaluator(sv.d, sv.theta)
	for i := range sv.d.recs {
		if sv.active[i] {
			sv.clock.add(linkWork(sv.d, &sv.d.recs[i]))
			if !linksRecord(ev, &sv.d.recs[i], sv.eps, &sv.margins) {
				return false
			}
		}
	}
	return true
}

// notDecided is the outcome of a θ-LP solve that ended neither feasible nor infeasible:
// stalled for a PSD game that did not decide before the time limit (its value within
// rounding of 0, its column generation at its round limit, or numerical trouble of its
// simplex or eigensolver: another solve, of this LP or of a bigger one, would most likely
// not decide either), aborted otherwise (the time limit, or CLP's trouble).
func (sv *solver) notDecided(lp thetaLP) outcome {
	if _, ok := lp.(*psdGame); ok && !sv.timeUp() {
		sv.lastGiveUp = giveUpPSD
		return stalled
	}
	return aborted
}

// giveUp is why a decision of the θ-subproblem was given up, its node's bound kept.
type giveUp int

const (
	// giveUpOther: an LP ended neither solved nor proven infeasible (CLP's trouble), or
	// no cut separated the master's point.
	giveUpOther giveUp = iota
	// giveUpKnifeEdge: the best margin lies within knifeEdgeStep of ε.
	giveUpKnifeEdge
	// giveUpUnverified: CLP calls the rows infeasible, above ε and at ε, but no
	// certificate verifies (neither CLP's ray nor the elastic problem's duals, in
	// floating point or exactly) and an unscaled copy finds no θ.
	giveUpUnverified
	// giveUpNoCut: the set's certificate gave no cut that verifies (iis).
	giveUpNoCut
	// giveUpFamily: the LP's θ, moved into the family, broke its rows and no family cut
	// mended it.
	giveUpFamily
	// giveUpPSD: a PSD game did not decide (its value within rounding of 0).
	giveUpPSD
	numGiveUps
)

// settle copies the θ of an LP solution x into sv.theta, projected onto the family, and
// returns the family's cuts that x violates (nil when it is in the family up to rounding).
func (sv *solver) settle(x []float64) []famRow {
	copy(sv.theta, x[:len(sv.theta)])
	cuts := sv.d.sp.cuts(sv.theta)
	sv.d.sp.project(sv.theta)
	return cuts
}

// checkWork is the work of the pairwise check (violations) of θ on the records of set: a
// round of solveSub with them active, besides its LP. 0 when the clock reads time, whose
// fits ignores it (solveSub asks every round).
func (sv *solver) checkWork(set []bool) int64 {
	if !sv.clock.counting {
		return 0
	}
	var w int64
	for i, on := range set {
		if on {
			w += scanWork(sv.d, &sv.d.recs[i])
		}
	}
	return w
}

// violations is the separation oracle for record i under sv.theta (its evaluator ev), in
// an LP whose rows are imposed at lo: the candidates not in the LP (inLP) that θ violates
// (θ·a < lo), at most maxAddPerRecord, most violated first; bad reports a candidate in the
// LP below (ε + lo)/2, which only the projection onto the family can cause (the LP holds
// its rows to CLP's tolerance).
func (sv *solver) violations(ev evaluator, i int, inLP []bool, lo float64) (add []int, bad bool) {
	sv.clock.add(scanWork(sv.d, &sv.d.recs[i]))
	sv.margins = ev.margins(&sv.d.recs[i], sv.margins)
	type viol struct {
		c int
		v float64
	}
	var vs []viol
	half := (sv.eps + lo) / 2
	for c, v := range sv.margins {
		if inLP[c] {
			bad = bad || v < half
		} else if v < lo {
			vs = append(vs, viol{c, v})
		}
	}
	sort.Slice(vs, func(x, y int) bool { return vs[x].v < vs[y].v || vs[x].v == vs[y].v && vs[x].c < vs[y].c })
	for _, v := range vs[:min(len(vs), maxAddPerRecord)] {
		add = append(add, v.c)
	}
	return add, bad
}

// iis shrinks the infeasible active set, whose certificate is sv.ray, to an irreducible
// infeasible set of records: first the records in the certificate's support, then a
// deletion filter (switch a record off; keep it off if the rest stays infeasible). The
// filter runs in a separate small LP holding only the support's rows (iisSmall), each
// step certified; only if that fails does it run on the shared subproblem, whose final
// set is verified by a Farkas certificate, the records of sv.ray being returned
// otherwise (rayRecords). The activation of the shared subproblem is left arbitrary: callers set it.
func (sv *solver) iis() []int {
	support := sv.raySupport()
	if len(support) == 0 {
		return nil
	}
	// Under a work limit no LP starts once the limit is reached (workSpent): the records
	// of sv.ray, a certificate at ε (solveSub), are the set.
	if !sv.workSpent() {
		if set := sv.iisSmall(support); set != nil {
			return set
		}
	}
	if sv.workSpent() {
		return sv.rayRecords()
	}
	// The filter's certificates are the cut's proof: at ε (sv.ray's is, see solveSub).
	sv.setThreshold(sv.eps)
	defer sv.setThreshold(sv.eps + lpSlack)
	sv.activateOnly(support)
	if len(support) > 1 {
		for _, i := range support {
			if sv.timeUp() {
				break
			}
			sv.setActive(i, false)
			if sv.solveThetaLP(sv.sub) != clp.PrimalInfeasible {
				sv.setActive(i, true)
			}
		}
	}
	var set []int
	for _, i := range support {
		if sv.active[i] {
			set = append(set, i)
		}
	}
	if sv.solveThetaLP(sv.sub) == clp.PrimalInfeasible {
		if _, ok := sv.farkas(sv.sub); ok {
			sort.Ints(set)
			return set
		}
	}
	// The filter's set not verified: the records of sv.ray, verified once more (a set returned
	// as a cut is proven infeasible at ε, whatever sv.ray held).
	set = sv.rayRecords()
	sv.activateOnly(set)
	if sv.solveThetaLP(sv.sub) == clp.PrimalInfeasible {
		if _, ok := sv.farkas(sv.sub); ok {
			return set
		}
	}
	return nil
}

// raySupport returns the records whose rows carry the certificate sv.ray (entries above
// 1e-9 of its largest), in increasing total |y| over their rows (ties: index): the order
// in which the deletion filter tries to drop them.
func (sv *solver) raySupport() []int { return sv.rayAbove(1e-9) }

// rayRecords returns, sorted, every record with a row of non-zero weight in sv.ray: the
// set sv.ray itself proves infeasible. raySupport leaves out weights below 1e-9 of the
// largest, which a certificate accepted within 1e-12 of its scale may need: a set
// returned as a cut without a certificate of its own is this one.
func (sv *solver) rayRecords() []int {
	set := sv.rayAbove(0)
	sort.Ints(set)
	return set
}

// rayAbove returns the records with a row whose weight in sv.ray is above rel times the
// largest, in increasing total |y| over their rows (ties: index).
func (sv *solver) rayAbove(rel float64) []int {
	y := sv.ray
	mass := make(map[int]float64)
	big := 0.0
	for _, v := range y {
		big = max(big, math.Abs(v))
	}
	for row, v := range y {
		if sv.rowRec[row] < 0 || math.Abs(v) <= rel*big {
			continue
		}
		mass[sv.rowRec[row]] += math.Abs(v)
	}
	support := make([]int, 0, len(mass))
	for i := range mass {
		support = append(support, i)
	}
	sort.Slice(support, func(a, b int) bool {
		x, z := support[a], support[b]
		if mass[x] != mass[z] {
			return mass[x] < mass[z]
		}
		return x < z
	})
	return support
}

// check tries to link every record of L: it solves the subproblem, and while it is
// infeasible derives an irreducible infeasible set S (a covering cut Σ_{i∈S} K_i ≥ 1) and
// drops from L the record of S with the largest weight. It returns the linkable subset,
// its θ (in sv.theta), the cuts, and false when the time limit interrupted it.
func (sv *solver) check(L []bool, weight []float64) ([]bool, [][]int, bool) {
	cur := append([]bool(nil), L...)
	var cuts [][]int
	sv.lastGiveUp = giveUpOther // until a decision says why it gives up
	dropFrom := func(S []int) {
		drop := S[0]
		for _, i := range S[1:] {
			if w, wd := weight[i], weight[drop]; w > wd || w == wd && (sv.cutCount[i] > sv.cutCount[drop] || sv.cutCount[i] == sv.cutCount[drop] && i > drop) {
				drop = i
			}
		}
		cur[drop] = false
	}
	// The set only shrinks, so a cut with a member outside it stays so: each round scans
	// only the cuts registered since the last (the first scan of every cut was most of
	// this function's time on whole files, repeated each round).
	scanned := 0
	for {
		// Known cuts inside the set are infeasible without an LP: drop one of their records.
		for _, S := range sv.cutList[scanned:] {
			in := true
			for _, i := range S {
				if !cur[i] {
					in = false
					break
				}
			}
			if in {
				dropFrom(S)
			}
		}
		scanned = len(sv.cutList)
		sv.activate(cur)
		switch sv.solveSub() {
		case aborted, stalled:
			return nil, cuts, false
		case feasible:
			return cur, cuts, true
		}
		S := sv.iis()
		if S == nil {
			sv.lastGiveUp = giveUpNoCut
			return nil, cuts, false
		}
		cuts = append(cuts, S)
		dropFrom(S)
		sv.report(false) // a long check (large files) still reports every second
	}
}

// linkedSet marks the records that θ links with margin ≥ ε (every competitor row
// θ·a ≥ ε; the rows dropped by dominance are implied or never violated).
func (sv *solver) linkedSet(theta []float64) ([]bool, int) {
	ev := sv.d.sp.evaluator(sv.d, theta)
	linked := make([]bool, len(sv.d.recs))
	n := 0
	for i := range sv.d.recs {
		r := &sv.d.recs[i]
		if r.impossible {
			continue
		}
		sv.clock.add(linkWork(sv.d, r))
		if linksRecord(ev, r, sv.eps, &sv.margins) {
			linked[i] = true
			n++
		}
	}
	return linked, n
}

// linker is an evaluator that decides whether θ links a record without computing every
// margin: it stops at the first row below ε. The candidates are ordered by their
// Euclidean margin, so a record θ does not link usually fails within its first rows.
type linker interface {
	links(r *rec, eps float64) bool
}

// linksRecord reports whether every row of r has θ·a ≥ eps (margins is scratch).
func linksRecord(ev evaluator, r *rec, eps float64, margins *[]float64) bool {
	if l, ok := ev.(linker); ok {
		return l.links(r, eps)
	}
	*margins = ev.margins(r, *margins)
	for _, v := range *margins {
		if v < eps {
			return false
		}
	}
	return true
}

// worstMargins is, for each record, min over its rows of θ·a.
func (sv *solver) worstMargins(theta []float64) []float64 {
	ev := sv.d.sp.evaluator(sv.d, theta)
	w := make([]float64, len(sv.d.recs))
	for i := range sv.d.recs {
		w[i] = math.Inf(1)
		sv.clock.add(scanWork(sv.d, &sv.d.recs[i]))
		sv.margins = ev.margins(&sv.d.recs[i], sv.margins)
		for _, v := range sv.margins {
			w[i] = min(w[i], v)
		}
	}
	return w
}
