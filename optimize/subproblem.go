package optimize

import (
	"math"
	"sort"

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
)

// The θ-subproblem: columns θ_1..θ_m in [0, 1], row 0 is Σ θ = 1, and every generated
// competitor row θ·a ≥ ε + lpSlack of every record. A record's rows are switched on
// (lower bound ε + lpSlack) when the record must be linked and off (free row) otherwise, so
// one model with one warm basis serves every subset of records.

func (sv *solver) initSubproblem() {
	m := sv.d.m
	sv.sub = clp.New()
	sv.sub.SetPrimalTolerance(lpPrimalTol)
	colStart := make([]int, m+1)
	rowIndex := make([]int, m)
	value := make([]float64, m)
	for k := range m {
		colStart[k+1] = k + 1
		value[k] = 1
	}
	up := make([]float64, m)
	for k := range up {
		up[k] = 1
	}
	if err := sv.sub.LoadProblem(1, colStart, rowIndex, value, nil, up, nil, []float64{1}, []float64{1}); err != nil {
		panic(err)
	}
	n := len(sv.d.recs)
	sv.recRows = make([][]int, n)
	sv.inLP = make([][]bool, n)
	sv.active = make([]bool, n)
	sv.rowRec = []int{-1}
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

type rowRef struct{ rec, cand int }

func (sv *solver) addRows(rows []rowRef) {
	if len(rows) == 0 {
		return
	}
	m := sv.d.m
	lo := make([]float64, len(rows))
	up := make([]float64, len(rows))
	start := make([]int, len(rows)+1)
	idx := make([]int, 0, len(rows)*m)
	val := make([]float64, 0, len(rows)*m)
	base := sv.sub.NumRows()
	for x, rr := range rows {
		r := &sv.d.recs[rr.rec]
		lo[x], up[x] = math.Inf(-1), math.Inf(1)
		if sv.active[rr.rec] {
			lo[x] = sv.epsLP
		}
		for k, v := range r.cand[rr.cand*m : (rr.cand+1)*m] {
			if v != 0 {
				idx = append(idx, k)
				val = append(val, v)
			}
		}
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

// dual runs the dual simplex on the subproblem and counts the work.
func (sv *solver) dual() clp.Status {
	st := sv.sub.Dual()
	sv.stats.LPIterations += sv.sub.Iterations()
	sv.stats.SubproblemSolves++
	if st != clp.Optimal && st != clp.PrimalInfeasible {
		st = sv.sub.Primal()
		sv.stats.LPIterations += sv.sub.Iterations()
	}
	return st
}

// solveSub decides whether the active records can all be linked with margin ≥ ε + lpSlack,
// generating rows until the pairwise check of the current θ finds no violated competitor.
// On feasible, sv.theta holds θ; on infeasible, sv.ray holds a verified Farkas certificate.
func (sv *solver) solveSub() outcome {
	defer sv.setThreshold(sv.eps + lpSlack)
	for {
		if sv.timeUp() {
			return aborted
		}
		st := sv.dual()
		if st == clp.PrimalInfeasible {
			if y, ok := sv.sub.FarkasCertificate(); ok {
				sv.ray = y
				return infeasible
			}
			st = sv.sub.Primal() // CLP's status was wrong
			sv.stats.LPIterations += sv.sub.Iterations()
		}
		if st != clp.Optimal {
			if sv.epsLP == sv.eps+lpSlack {
				// A knife edge: CLP calls the rows infeasible but no certificate exists
				// (feasible within its tolerance). Lower the threshold to ε + lpSlack/2: a
				// θ found there still has every margin above ε, and a certificate found
				// there proves infeasibility at ε + lpSlack as well.
				sv.setThreshold(sv.eps + lpSlack/2)
				continue
			}
			return aborted
		}
		sv.readTheta()
		add := sv.separate()
		if len(add) == 0 {
			return feasible
		}
		sv.addRows(add)
	}
}

// readTheta copies the subproblem's θ, projected on the simplex.
func (sv *solver) readTheta() {
	x := sv.sub.Solution(nil)
	s := 0.0
	for k := range sv.theta {
		sv.theta[k] = min(max(x[k], 0), 1)
		s += sv.theta[k]
	}
	for k := range sv.theta {
		sv.theta[k] /= s
	}
}

// separate is the separation oracle: the rows, not yet in the subproblem, of active
// records that θ violates (θ·a < ε + lpSlack), at most maxAddPerRecord per record, most
// violated first.
func (sv *solver) separate() []rowRef {
	var add []rowRef
	type viol struct {
		c int
		v float64
	}
	var vs []viol
	for i := range sv.d.recs {
		if !sv.active[i] {
			continue
		}
		r := &sv.d.recs[i]
		vs = vs[:0]
		for c := range r.ncand() {
			if sv.inLP[i][c] {
				continue
			}
			if v := dot(sv.theta, r.cand[c*sv.d.m:(c+1)*sv.d.m]); v < sv.epsLP {
				vs = append(vs, viol{c, v})
			}
		}
		sort.Slice(vs, func(x, y int) bool { return vs[x].v < vs[y].v || vs[x].v == vs[y].v && vs[x].c < vs[y].c })
		for _, v := range vs[:min(len(vs), maxAddPerRecord)] {
			add = append(add, rowRef{i, v.c})
		}
	}
	return add
}

func dot(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// iis shrinks the infeasible active set, whose certificate is sv.ray, to an irreducible
// infeasible set of records: first the records in the certificate's support, then a
// deletion filter (switch a record off; keep it off if the rest stays infeasible). The
// filter runs in a separate small LP holding only the support's rows (iisSmall), each
// step certified; only if that fails does it run on the shared subproblem, whose final
// set is verified by a Farkas certificate, the (verified) support being returned
// otherwise. The activation of the shared subproblem is left arbitrary: callers set it.
func (sv *solver) iis() []int {
	y := sv.ray
	mass := make(map[int]float64)
	big := 0.0
	for _, v := range y {
		big = max(big, math.Abs(v))
	}
	for row, v := range y {
		if row == 0 || math.Abs(v) <= 1e-9*big {
			continue
		}
		mass[sv.rowRec[row]] += math.Abs(v)
	}
	support := make([]int, 0, len(mass))
	for i := range mass {
		support = append(support, i)
	}
	if len(support) == 0 {
		return nil
	}
	sort.Slice(support, func(a, b int) bool {
		x, z := support[a], support[b]
		if mass[x] != mass[z] {
			return mass[x] < mass[z]
		}
		return x < z
	})
	if set := sv.iisSmall(support); set != nil {
		return set
	}
	for i := range sv.active {
		sv.setActive(i, false)
	}
	for _, i := range support {
		sv.setActive(i, true)
	}
	if len(support) > 1 {
		for _, i := range support {
			if sv.timeUp() {
				break
			}
			sv.setActive(i, false)
			if sv.dual() != clp.PrimalInfeasible {
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
	if len(set) < len(support) || len(support) == 1 {
		if sv.dual() == clp.PrimalInfeasible {
			if _, ok := sv.sub.FarkasCertificate(); ok {
				sort.Ints(set)
				return set
			}
		}
		for _, i := range support {
			sv.setActive(i, true)
		}
	}
	sort.Ints(support)
	return support
}

// check tries to link every record of L: it solves the subproblem, and while it is
// infeasible derives an irreducible infeasible set S (a covering cut Σ_{i∈S} K_i ≥ 1) and
// drops from L the record of S with the largest weight. It returns the linkable subset,
// its θ (in sv.theta), the cuts, and false when the time limit interrupted it.
func (sv *solver) check(L []bool, weight []float64) ([]bool, [][]int, bool) {
	cur := append([]bool(nil), L...)
	var cuts [][]int
	dropFrom := func(S []int) {
		drop := S[0]
		for _, i := range S[1:] {
			if w, wd := weight[i], weight[drop]; w > wd || w == wd && (sv.cutCount[i] > sv.cutCount[drop] || sv.cutCount[i] == sv.cutCount[drop] && i > drop) {
				drop = i
			}
		}
		cur[drop] = false
	}
	for {
		// Known cuts inside the set are infeasible without an LP: drop one of their records.
		for _, S := range sv.cutList {
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
		sv.activate(cur)
		switch sv.solveSub() {
		case aborted:
			return nil, cuts, false
		case feasible:
			return cur, cuts, true
		}
		S := sv.iis()
		if S == nil {
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
	m := sv.d.m
	linked := make([]bool, len(sv.d.recs))
	n := 0
	for i := range sv.d.recs {
		r := &sv.d.recs[i]
		if r.impossible {
			continue
		}
		ok := true
		for c := 0; c < r.ncand() && ok; c++ {
			ok = dot(theta, r.cand[c*m:(c+1)*m]) >= sv.eps
		}
		if ok {
			linked[i] = true
			n++
		}
	}
	return linked, n
}

// worstMargin is min over a record's rows of θ·a.
func (sv *solver) worstMargin(theta []float64, i int) float64 {
	m := sv.d.m
	r := &sv.d.recs[i]
	w := math.Inf(1)
	for c := range r.ncand() {
		w = min(w, dot(theta, r.cand[c*m:(c+1)*m]))
	}
	return w
}
