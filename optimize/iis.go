package optimize

import (
	"math"
	"sort"

	"github.com/reid-sdc/reid/optimize/clp"
)

// smallLP is a θ-LP over a few records only (Σ θ = 1, θ ≥ 0, and the given rows of each
// record at ε + lpSlack), used by the deletion filter: with a handful of rows each dual
// simplex re-solve costs microseconds, where the shared subproblem carries every generated
// row of every record.
type smallLP struct {
	model *clp.Model
	rows  [][]int // rows of the model per record of the set
}

// newSmallLP builds the LP of the records recs with, for each, the candidate rows cands[x]
// (indices into the record's cand), all switched on at lo.
func (sv *solver) newSmallLP(recs []int, cands [][]int, lo float64) *smallLP {
	m := sv.d.m
	s := &smallLP{model: clp.New(), rows: make([][]int, len(recs))}
	s.model.SetPrimalTolerance(lpPrimalTol)
	colStart := make([]int, m+1)
	rowIndex := make([]int, m)
	value := make([]float64, m)
	up := make([]float64, m)
	for k := range m {
		colStart[k+1] = k + 1
		value[k], up[k] = 1, 1
	}
	if err := s.model.LoadProblem(1, colStart, rowIndex, value, nil, up, nil, []float64{1}, []float64{1}); err != nil {
		panic(err)
	}
	var rlo, rup []float64
	start := []int{0}
	var idx []int
	var val []float64
	row := 1
	for x, i := range recs {
		r := &sv.d.recs[i]
		for _, c := range cands[x] {
			for k, v := range r.cand[c*m : (c+1)*m] {
				if v != 0 {
					idx = append(idx, k)
					val = append(val, v)
				}
			}
			start = append(start, len(idx))
			rlo, rup = append(rlo, lo), append(rup, math.Inf(1))
			s.rows[x] = append(s.rows[x], row)
			row++
		}
	}
	if len(rlo) > 0 {
		if err := s.model.AddRows(rlo, rup, start, idx, val); err != nil {
			panic(err)
		}
	}
	return s
}

func (s *smallLP) set(x int, on bool, lo float64) {
	if !on {
		lo = math.Inf(-1)
	}
	for _, row := range s.rows[x] {
		s.model.SetRowBounds(row, lo, math.Inf(1))
	}
}

func (sv *solver) smallDual(s *smallLP) clp.Status {
	st := s.model.Dual()
	sv.stats.LPIterations += s.model.Iterations()
	sv.stats.SubproblemSolves++
	if st != clp.Optimal && st != clp.PrimalInfeasible {
		st = s.model.Primal()
		sv.stats.LPIterations += s.model.Iterations()
	}
	return st
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
	lo := sv.epsLP
	s := sv.newSmallLP(support, cands, lo)
	defer s.model.Close()
	on := make([]bool, len(support))
	for x := range on {
		on[x] = true
	}
	// shrink switches off the records outside the support of the certificate y (rows of
	// records switched off have free bounds, so y is zero on them anyway).
	rowX := make([]int, s.model.NumRows())
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
			if row > 0 && math.Abs(v) > 1e-9*big {
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
		if sv.smallDual(s) != clp.PrimalInfeasible {
			return nil // feasible (or unsure): keep the record, the set stays valid
		}
		y, _ := s.model.FarkasCertificate()
		return y
	}
	sv.smallDual(s)
	y, ok := s.model.FarkasCertificate()
	if !ok {
		return nil
	}
	// The last certified state: the records in it are infeasible together.
	last := append([]bool(nil), on...)
	shrink(y)
	if y := certified(); y != nil {
		copy(last, on)
		for x := range support {
			if !on[x] {
				continue
			}
			if sv.timeUp() {
				break
			}
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
// leaves θ in sv.theta, infeasible is certified by a verified Farkas certificate.
func (sv *solver) checkOne(i int) outcome {
	m := sv.d.m
	r := &sv.d.recs[i]
	in := make([]bool, r.ncand())
	var cands []int
	for c := range min(sv.initialRows, r.ncand()) {
		cands = append(cands, c)
		in[c] = true
	}
	lo := sv.eps + lpSlack
	s := sv.newSmallLP([]int{i}, [][]int{cands}, lo)
	defer s.model.Close()
	type viol struct {
		c int
		v float64
	}
	var vs []viol
	for {
		if sv.timeUp() {
			return aborted
		}
		st := sv.smallDual(s)
		if st == clp.PrimalInfeasible {
			if _, ok := s.model.FarkasCertificate(); ok {
				return infeasible
			}
			st = s.model.Primal()
			sv.stats.LPIterations += s.model.Iterations()
		}
		if st != clp.Optimal {
			return aborted // the caller falls back to the shared subproblem
		}
		x := s.model.Solution(nil)
		sum := 0.0
		for k := range sv.theta {
			sv.theta[k] = min(max(x[k], 0), 1)
			sum += sv.theta[k]
		}
		for k := range sv.theta {
			sv.theta[k] /= sum
		}
		vs = vs[:0]
		for c := range r.ncand() {
			if in[c] {
				continue
			}
			if v := dot(sv.theta, r.cand[c*m:(c+1)*m]); v < lo {
				vs = append(vs, viol{c, v})
			}
		}
		if len(vs) == 0 {
			return feasible
		}
		sort.Slice(vs, func(x, y int) bool { return vs[x].v < vs[y].v || vs[x].v == vs[y].v && vs[x].c < vs[y].c })
		var rlo, rup []float64
		start := []int{0}
		var idx []int
		var val []float64
		for _, v := range vs[:min(len(vs), maxAddPerRecord)] {
			in[v.c] = true
			for k, a := range r.cand[v.c*m : (v.c+1)*m] {
				if a != 0 {
					idx = append(idx, k)
					val = append(val, a)
				}
			}
			start = append(start, len(idx))
			rlo, rup = append(rlo, lo), append(rup, math.Inf(1))
			s.rows[0] = append(s.rows[0], s.model.NumRows()+len(rlo)-1)
		}
		if err := s.model.AddRows(rlo, rup, start, idx, val); err != nil {
			panic(err)
		}
		sv.stats.RowsGenerated += len(rlo)
	}
}
