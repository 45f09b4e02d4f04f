package optimize

import (
	"math"
	"sort"

	"github.com/reid-sdc/reid/optimize/clp"
)

// smallLP is a θ-LP over a few records only (the family's columns, rows and cuts found,
// and the given rows of each record at a threshold: ε for the deletion filter, whose
// certificates are the cuts' proofs, ε + lpSlack for θs that must link), used by the deletion filter and the
// one-record checks: with a handful of rows each dual simplex re-solve costs
// microseconds, where the shared subproblem carries every generated row of every record.
type smallLP struct {
	model thetaLP
	rows  [][]int // rows of the model per record of the set
}

// newSmallLP builds the LP of the records recs with, for each, the candidate rows cands[x]
// (indices into the record's candidates), all switched on at lo.
func (sv *solver) newSmallLP(recs []int, cands [][]int, lo float64) *smallLP {
	return sv.newSmallLPRows(recs, cands, lo, sv.famCuts)
}

// newSmallLPRows is newSmallLP with the given family cuts.
func (sv *solver) newSmallLPRows(recs []int, cands [][]int, lo float64, cuts []famRow) *smallLP {
	s := &smallLP{model: sv.newThetaLP(), rows: make([][]int, len(recs))}
	sv.addFamilyRows(s.model, sv.d.sp.rows())
	sv.addFamilyRows(s.model, cuts)
	for x, i := range recs {
		s.addRows(sv, x, i, cands[x], lo)
	}
	return s
}

// addRows adds candidate rows of record i (local index x) at lo.
func (s *smallLP) addRows(sv *solver, x, i int, cands []int, lo float64) {
	if len(cands) == 0 {
		return
	}
	r := &sv.d.recs[i]
	var rlo, rup []float64
	start := []int{0}
	var idx []int
	var val []float64
	row := s.model.NumRows()
	for _, c := range cands {
		idx, val = sv.d.sp.row(sv.d, r, c, idx, val)
		start = append(start, len(idx))
		rlo, rup = append(rlo, lo), append(rup, math.Inf(1))
		s.rows[x] = append(s.rows[x], row)
		row++
	}
	if err := s.model.AddRows(rlo, rup, start, idx, val); err != nil {
		panic(err)
	}
}

func (s *smallLP) set(x int, on bool, lo float64) {
	if !on {
		lo = math.Inf(-1)
	}
	for _, row := range s.rows[x] {
		s.model.SetRowBounds(row, lo, math.Inf(1))
	}
}

// iisSmall is the deletion filter of iis on a separate LP holding only the subproblem rows
// of the support records. It returns nil when that LP cannot be certified infeasible (the
// caller then falls back to the filter on the shared subproblem). The returned set is
// sorted and verified by a Farkas certificate of the small LP (whose rows are a subset of
// the full model's rows of these records, so the set is infeasible in the full model).
func (sv *solver) iisSmall(support []int) []int {
	cands := make([][]int, len(support))
	for x, i := range support {
		for c, in := range sv.inLP[i] {
			if in {
				cands[x] = append(cands[x], c)
			}
		}
	}
	lo := sv.eps // the certificates are the cuts' proofs: at ε, the margin counted
	s := sv.newSmallLP(support, cands, lo)
	defer s.model.Close()
	on := make([]bool, len(support))
	for x := range on {
		on[x] = true
	}
	// shrink switches off the records outside the support of the certificate y (rows of
	// records switched off have free bounds, so y is zero on them anyway).
	rowX := make([]int, s.model.NumRows())
	for row := range rowX {
		rowX[row] = -1 // the family's rows
	}
	for x, rows := range s.rows {
		for _, row := range rows {
			rowX[row] = x
		}
	}
	shrink := func(y []float64) {
		big := 0.0
		for _, v := range y {
			big = max(big, math.Abs(v))
		}
		used := make([]bool, len(support))
		for row, v := range y {
			if rowX[row] >= 0 && math.Abs(v) > 1e-9*big {
				used[rowX[row]] = true
			}
		}
		for x := range on {
			if on[x] && !used[x] {
				on[x] = false
				s.set(x, false, lo)
			}
		}
	}
	// Every step is certified: CLP's warm-started status alone is not always right, so a
	// record stays out only when a verified Farkas certificate proves the rest infeasible;
	// the final set is the one of the last certificate, verified once more at the end.
	certified := func() []float64 {
		if sv.solveThetaLP(s.model) != clp.PrimalInfeasible {
			return nil // feasible (or unsure): keep the record, the set stays valid
		}
		y, _ := sv.farkas(s.model)
		return y
	}
	sv.solveThetaLP(s.model)
	y, ok := sv.farkas(s.model)
	if !ok {
		return nil
	}
	// The last certified state: the records in it are infeasible together.
	last := append([]bool(nil), on...)
	shrink(y)
	if sv.workSpent() {
		return nil // the caller returns the records of sv.ray
	}
	if y := certified(); y != nil {
		copy(last, on)
		for x := range support {
			if !on[x] {
				continue
			}
			if sv.timeUp() {
				break
			}
			// One step can take a second on a large bilinear or Choquet LP, and one
			// filter a minute: keep the progress lines coming.
			sv.report(false)
			s.set(x, false, lo)
			on[x] = false
			if y := certified(); y != nil {
				shrink(y)
				copy(last, on)
			} else {
				s.set(x, true, lo)
				on[x] = true
			}
		}
	}
	on = last
	for x := range on {
		s.set(x, on[x], lo)
	}
	if sv.workSpent() {
		return nil // the caller returns the records of sv.ray
	}
	if certified() == nil { // the shrinking steps drop entries below 1e-9·max|y|: re-verify
		return nil
	}
	var set []int
	for x, i := range support {
		if on[x] {
			set = append(set, i)
		}
	}
	sort.Ints(set)
	return set
}

// checkOne decides whether record i can be linked on its own, in a separate LP holding
// only its rows (generated from its nearest competitors on, like the subproblem): feasible
// leaves θ in sv.theta, infeasible is certified by a verified Farkas certificate of its
// rows at ε, stalled is a record whose best margin lies between ε and ε + lpSlack.
func (sv *solver) checkOne(i int) outcome {
	r := &sv.d.recs[i]
	in := make([]bool, r.ncand())
	var cands []int
	for c := range min(sv.initialRows, r.ncand()) {
		cands = append(cands, c)
		in[c] = true
	}
	lo := sv.eps + lpSlack
	// The one-record LP starts from the family's rows only and adds the cuts its own points
	// violate (each valid for the family): the cuts found for other records are dense rows
	// that would slow every one of these LPs, solved from scratch.
	s := sv.newSmallLPRows([]int{i}, [][]int{cands}, lo, nil)
	defer s.model.Close()
	local := map[string]bool{}
	rounds := 0
	for {
		if sv.timeUp() {
			return aborted
		}
		sv.report(false) // a check can take seconds of cut rounds (bilinear, Choquet)
		st := sv.solveThetaLP(s.model)
		if st == clp.PrimalInfeasible {
			if _, ok := sv.farkas(s.model); ok {
				// Infeasible at ε + lpSlack; the record is impossible (a cut) only if its
				// rows are infeasible at ε itself. Otherwise its best margin lies in
				// between: undecided, left to the tree.
				s.set(0, true, sv.eps)
				if sv.solveThetaLP(s.model) == clp.PrimalInfeasible {
					if _, ok := sv.farkas(s.model); ok {
						return infeasible
					}
				}
				sv.lastGiveUp = giveUpKnifeEdge
				return stalled
			}
			st = sv.resume(s.model, s.model.Primal())
		}
		if st != clp.Optimal {
			return sv.notDecided(s.model) // aborted: the caller falls back to the shared subproblem
		}
		cuts := sv.settle(s.model.Solution(nil))
		add, bad := sv.violations(sv.d.sp.evaluator(sv.d, sv.theta), i, in, lo)
		if len(add) == 0 && !bad {
			return feasible
		}
		if bad {
			var fresh []famRow
			for _, c := range cuts {
				if k := cutKey(c); !local[k] {
					local[k] = true
					fresh = append(fresh, c)
				}
			}
			if rounds++; len(fresh) == 0 && len(add) == 0 || rounds > maxCutRounds {
				return stalled
			}
			sv.addFamilyRows(s.model, fresh)
			sv.newCuts(fresh)
		}
		for _, c := range add {
			in[c] = true
		}
		s.addRows(sv, 0, i, add, lo)
		sv.stats.RowsGenerated += len(add)
	}
}
