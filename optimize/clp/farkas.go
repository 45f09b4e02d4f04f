package clp

// #include "Clp_C_Interface.h"
import "C"

import (
	"math"
	"math/big"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// InfeasibilityRay returns a Go copy of CLP's infeasibility ray
// (Clp_infeasibilityRay; the CLP array is freed), one entry per row, or nil if
// CLP has none. CLP only has a ray after a solve whose status is
// PrimalInfeasible, and in practice only a dual simplex solve (Dual) sets a
// trustworthy one: InitialSolve presolves the problem and usually leaves no
// ray, and a ray left by Primal, or by Dual when CLP internally finished with
// the primal algorithm, may be stale or not a certificate at all. No CLP
// option is needed for the ray (see the package documentation).
//
// The ray y follows CLP's sign convention: with d = Aᵀy,
//
//	α = Σ_j min(d_j·colLower_j, d_j·colUpper_j)   (the least dᵀx over the column bounds)
//	β = Σ_i max(y_i·rowLower_i, y_i·rowUpper_i)   (the largest yᵀr over the row bounds)
//
// y proves infeasibility when α > β: every x within its column bounds has
// yᵀ(Ax) = dᵀx ≥ α, while the row bounds force yᵀ(Ax) ≤ β. So y_i > 0 only on
// rows with a finite upper bound and y_i < 0 only on rows with a finite lower
// bound. This is the negation of a dual ray in the sign convention of Duals
// for a minimisation.
//
// Because CLP's ray is not always valid, callers that rely on it should
// check it with FarkasGap or use FarkasCertificate instead.
func (m *Model) InfeasibilityRay() []float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	ray := C.Clp_infeasibilityRay(p)
	if ray == nil {
		return nil
	}
	defer C.Clp_freeRay(p, ray)
	return copyOut(nil, ray, int(C.Clp_numberRows(p)))
}

// FarkasGap returns α − β for y (see InfeasibilityRay for the definitions
// and the sign convention): y proves that the model is infeasible when the
// result is positive beyond rounding error. FarkasGap returns +Inf if some
// row or column has a lower bound above its upper bound (such a model is
// infeasible whatever y is), and −Inf if y puts weight on an infinite bound.
// Entries of y below 1e-12·max|y| are treated as zero, and so are entries of
// Aᵀy below 1e-9 times the sum of the magnitudes of their terms where they would
// weigh an infinite column bound (rounding, as a rule: a certificate is accepted
// up to it on free columns only; on a finite bound such an entry is weighed).
// FarkasGap panics if len(y) != NumRows().
func (m *Model) FarkasGap(y []float64) float64 {
	defer runtime.KeepAlive(m)
	s := m.snapshot(m.ptr())
	if len(y) != s.nr {
		panic("clp: len(y) != number of rows")
	}
	gap, _ := s.farkasGap(y)
	return gap
}

// FarkasCertificate returns a verified certificate y of the model's
// infeasibility, in the sign convention of InfeasibilityRay, and true; or
// nil and false if the model is feasible within CLP's primal tolerance (or,
// exceptionally, if the auxiliary solve below fails).
//
// It first tries CLP's ray (when the last solve returned PrimalInfeasible),
// its entries that weigh an infinite row bound set to zero, and returns it if
// FarkasGap(y) > 1e-9·(1 + s), s being the sum of the magnitudes of the terms
// of α and β, or, where the terms cancel within that, if α − β > 1e-12·(1 + s)
// in exact rational arithmetic over the model's data. Otherwise it solves, in
// a separate model and with the primal simplex, the elastic problem
//
//	minimise Σ_i (p_i + n_i)  s.t.  rowLower ≤ Ax + p − n ≤ rowUpper,
//	colLower ≤ x ≤ colUpper,  p, n ≥ 0,
//
// whose optimal value is positive exactly when the model is infeasible; the
// negated row duals of that problem are a certificate, which is verified in
// the same way (and if they fail, those of the same problem re-solved without
// CLP's scaling of the matrix). The model itself (basis, solution, status) is not changed;
// the model's per-solve limits apply to the auxiliary solves together (up to three:
// Primal, InitialSolve if Primal failed, Primal unscaled; one iteration cap and one time
// limit for all, the time counted on CLP's clock, the process's user CPU time), whose
// iterations FarkasIterations reports.
//
// Use it after Dual reports PrimalInfeasible: a false result then means
// CLP's status was wrong (this happens with CLP 1.17 for some models with
// free or one-sided columns, see the package documentation) and the model
// should be re-solved, for instance with Primal.
func (m *Model) FarkasCertificate() ([]float64, bool) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	m.farkasIterations = 0
	s := m.snapshot(p)
	for i := range s.nr {
		if s.rl[i] > s.ru[i] {
			y := make([]float64, s.nr)
			y[i] = 1
			return y, true
		}
	}
	for j := range s.nc {
		if s.cl[j] > s.cu[j] {
			return make([]float64, s.nr), true
		}
	}
	if Status(C.Clp_status(p)) == PrimalInfeasible {
		if y := m.InfeasibilityRay(); y != nil && s.certifies(s.signed(y)) {
			return y, true
		}
	}
	begin := cpuSeconds()
	elapsed := func() float64 { return cpuSeconds() - begin }
	y, ok, it := s.elasticCertificate(float64(C.Clp_primalTolerance(p)), m.maxSeconds, elapsed, int(C.maximumIterations(p)))
	m.farkasIterations = it
	return y, ok
}

// cpuSeconds is the process's user CPU time, the clock of CLP's time limit (CoinCpuTime:
// getrusage's ru_utime); 0 where getrusage fails, which leaves the limit per solve.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano()).Seconds()
}

// FarkasIterations returns the simplex iterations of the auxiliary LP that the last
// FarkasCertificate solved (0 when CLP's own ray served): work a caller counting
// iterations adds to Iterations'.
func (m *Model) FarkasIterations() int { return m.farkasIterations }

// Copy returns a new model with the same columns, rows, bounds, objective and sense
// (not its basis, solution, tolerances or limits), to be released with Close.
func (m *Model) Copy() *Model {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	s := m.snapshot(p)
	obj := make([]float64, s.nc)
	if s.nc > 0 {
		copy(obj, unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_objective(p))), s.nc))
	}
	c := New()
	if err := c.LoadProblem(s.nr, s.start, s.index, s.value, s.cl, s.cu, obj, s.rl, s.ru); err != nil {
		panic(err) // the data of a loaded model
	}
	c.SetSense(m.Sense())
	return c
}

// snapshot is a Go copy of a model's constraints.
type snapshot struct {
	nr, nc         int
	start, index   []int // CSC matrix without gaps
	value          []float64
	cl, cu, rl, ru []float64 // bounds with ±Inf for infinite
}

// snapshot copies the constraints of the CLP model p.
func (m *Model) snapshot(p unsafe.Pointer) snapshot {
	s := snapshot{nr: int(C.Clp_numberRows(p)), nc: int(C.Clp_numberColumns(p))}
	s.cl = copyBounds(C.Clp_columnLower(p), s.nc)
	s.cu = copyBounds(C.Clp_columnUpper(p), s.nc)
	s.rl = copyBounds(C.Clp_rowLower(p), s.nr)
	s.ru = copyBounds(C.Clp_rowUpper(p), s.nr)
	s.start = make([]int, s.nc+1)
	if s.nc == 0 || C.Clp_getNumElements(p) == 0 {
		return s
	}
	// CLP's column-major matrix may have gaps between columns, so use the
	// column lengths as well as the starts.
	starts := unsafe.Slice(C.Clp_getVectorStarts(p), s.nc)
	lengths := unsafe.Slice(C.Clp_getVectorLengths(p), s.nc)
	indices := C.Clp_getIndices(p)
	elements := C.Clp_getElements(p)
	total := int(starts[s.nc-1]) + int(lengths[s.nc-1])
	idx := unsafe.Slice(indices, total)
	val := unsafe.Slice(elements, total)
	for j := range s.nc {
		b, n := int(starts[j]), int(lengths[j])
		for k := b; k < b+n; k++ {
			s.index = append(s.index, int(idx[k]))
			s.value = append(s.value, float64(val[k]))
		}
		s.start[j+1] = len(s.index)
	}
	return s
}

func copyBounds(src *C.double, n int) []float64 {
	b := copyOut(nil, src, n)
	for i, v := range b {
		b[i] = fromCLP(v)
	}
	return b
}

// farkasGap returns α − β for y and the sum of the magnitudes of the finite
// terms of α and β.
func (s *snapshot) farkasGap(y []float64) (gap, scale float64) {
	for i := range s.nr {
		if s.rl[i] > s.ru[i] {
			return math.Inf(1), 0
		}
	}
	for j := range s.nc {
		if s.cl[j] > s.cu[j] {
			return math.Inf(1), 0
		}
	}
	tiny := negligible(y)
	if tiny == 0 {
		return 0, 0
	}
	var alpha, beta float64
	for i, v := range y {
		b, counts := s.weighedBound(i, v, tiny)
		if !counts {
			continue
		}
		if math.IsInf(b, 0) {
			return math.Inf(-1), math.Inf(1)
		}
		beta += v * b
		scale += math.Abs(v * b)
	}
	for j := range s.nc {
		var d, mag float64
		for k := s.start[j]; k < s.start[j+1]; k++ {
			v := y[s.index[k]]
			if math.Abs(v) <= tiny {
				continue
			}
			t := s.value[k] * v
			d += t
			mag += math.Abs(t)
		}
		if d == 0 {
			continue
		}
		b := s.cl[j]
		if d < 0 {
			b = s.cu[j]
		}
		if math.IsInf(b, 0) {
			if math.Abs(d) <= 1e-9*mag {
				continue // rounding on a free side, taken as zero (see FarkasGap)
			}
			return math.Inf(-1), math.Inf(1)
		}
		// A small d on a finite bound is weighed as it is: dropped as rounding, its
		// share d·b could exceed the gap (coefficients in the thousands, a gap near ε).
		alpha += d * b
		scale += math.Abs(d * b)
	}
	return alpha - beta, scale
}

// signed sets to zero, in place, the entries of y that weigh an infinite row bound
// (y_i > 0 on a row without an upper bound, y_i < 0 on one without a lower bound), and
// returns y. One such entry alone makes β infinite, and CLP's rays carry them (a Choquet
// search on 60 CENSUS records: 1,639 of 3,398 rays, some as large as the ray's largest
// entry); without them y is another candidate, checked as any other (68 of those rays
// then verified, and the search, which had given up a node without them, proved its
// optimum).
func (s *snapshot) signed(y []float64) []float64 {
	for i, v := range y {
		if v > 0 && math.IsInf(s.ru[i], 1) || v < 0 && math.IsInf(s.rl[i], -1) {
			y[i] = 0
		}
	}
	return y
}

// negligible returns the magnitude up to which an entry of y counts as zero in a
// certificate: 1e-12·max|y| (0 for y = 0, NaN if y holds a NaN).
func negligible(y []float64) float64 {
	var ymax float64
	for _, v := range y {
		ymax = max(ymax, math.Abs(v))
	}
	return 1e-12 * ymax
}

// weighedBound returns the bound of row i that the entry v of a certificate weighs (the
// upper bound for v > 0, the lower for v < 0), and whether v counts (|v| > tiny).
func (s *snapshot) weighedBound(i int, v, tiny float64) (b float64, counts bool) {
	if math.Abs(v) <= tiny {
		return 0, false
	}
	if v > 0 {
		return s.ru[i], true
	}
	return s.rl[i], true
}

// certifies reports whether y is a certificate of infeasibility: beyond rounding error in
// floating point, or else in exact arithmetic. A certificate of rows with large
// coefficients and a small infeasibility (a Choquet measure's features in the hundreds,
// margins near ε) has terms that cancel to within 1e-9 of their scale, where the
// floating-point sums cannot tell its gap from their rounding; exact sums can. The exact
// gap must still exceed 1e-12 of the scale: the model's coefficients are themselves
// rounded results (each within 2^-53 of what its caller meant, and a caller's other
// computations with the same numbers round differently), so a smaller gap proves
// something about that rounding, not about the caller's problem.
func (s *snapshot) certifies(y []float64) bool {
	gap, scale := s.farkasGap(y)
	if gap > 1e-9*(1+scale) {
		return true
	}
	return gap > -1e-9*(1+scale) && s.exactGapAbove(y, 1e-12*(1+scale))
}

// exactGapAbove reports whether α − β > threshold for y in exact rational arithmetic over
// the model's float64 data (see InfeasibilityRay for α and β). Entries of y below
// 1e-12·max|y| are taken as zero, as farkasGap does: the certificate checked is then that
// y, exactly. Unlike farkasGap no entry of Aᵀy is rounded to zero: a column with a
// non-zero entry and an infinite bound on its side leaves y no proof.
func (s *snapshot) exactGapAbove(y []float64, threshold float64) bool {
	tiny := negligible(y)
	if tiny == 0 || math.IsInf(tiny, 0) || math.IsNaN(tiny) || math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		return false
	}
	exact := make([]*big.Rat, s.nr)
	var gap, term, t big.Rat
	for i, v := range y {
		b, counts := s.weighedBound(i, v, tiny)
		if !counts {
			continue
		}
		if math.IsInf(b, 0) {
			return false
		}
		exact[i] = new(big.Rat).SetFloat64(v)
		gap.Sub(&gap, term.Mul(exact[i], t.SetFloat64(b))) // − β
	}
	var d big.Rat
	for j := range s.nc {
		d.SetInt64(0)
		for k := s.start[j]; k < s.start[j+1]; k++ {
			if v := exact[s.index[k]]; v != nil {
				d.Add(&d, term.Mul(v, t.SetFloat64(s.value[k])))
			}
		}
		if d.Sign() == 0 {
			continue
		}
		b := s.cl[j]
		if d.Sign() < 0 {
			b = s.cu[j]
		}
		if math.IsInf(b, 0) {
			return false
		}
		gap.Add(&gap, term.Mul(&d, t.SetFloat64(b))) // + α
	}
	return gap.Cmp(t.SetFloat64(threshold)) > 0
}

// elasticCertificate solves the elastic problem (see FarkasCertificate) and
// returns its verified certificate and the iterations it took. Its solves share
// maxSeconds (elapsed gives the CPU seconds since FarkasCertificate began; 0 is no limit) and
// maxIterations: the elastic problem of a large model can take longer than the model's
// own solve, and a caller's time limit must hold for all of them.
func (s *snapshot) elasticCertificate(primalTol, maxSeconds float64, elapsed func() float64, maxIterations int) (y []float64, ok bool, iterations int) {
	start := append([]int(nil), s.start...)
	index := append([]int(nil), s.index...)
	value := append([]float64(nil), s.value...)
	cl := append([]float64(nil), s.cl...)
	cu := append([]float64(nil), s.cu...)
	obj := make([]float64, s.nc)
	for i := range s.nr {
		if math.IsInf(s.rl[i], -1) && math.IsInf(s.ru[i], 1) {
			continue // a free row needs no elastic variables
		}
		for _, sign := range [2]float64{1, -1} {
			index = append(index, i)
			value = append(value, sign)
			start = append(start, len(index))
			cl = append(cl, 0)
			cu = append(cu, math.Inf(1))
			obj = append(obj, 1)
		}
	}
	e := New()
	defer e.Close()
	// arm gives the next solve the time left of maxSeconds (none left: no solve), so
	// that up to three solves together stay within the caller's limit.
	arm := func() bool {
		if maxSeconds <= 0 {
			return true
		}
		left := maxSeconds - elapsed()
		e.SetMaxSeconds(left)
		return left > 0
	}
	if !arm() {
		return nil, false, 0
	}
	e.SetMaxIterations(maxIterations)
	if err := e.LoadProblem(s.nr, start, index, value, cl, cu, obj, s.rl, s.ru); err != nil {
		return nil, false, 0
	}
	st := e.Primal()
	iterations = e.Iterations()
	if st != Optimal && st != StoppedOnLimit {
		if !arm() {
			return nil, false, iterations
		}
		e.SetMaxIterations(max(maxIterations-iterations, 0)) // one cap for both solves
		st = e.InitialSolve()
		iterations += e.Iterations()
	}
	// infeasible: the elastic solve ended optimal with a positive objective; certificate:
	// its negated row duals, if they verify.
	infeasible := func(st Status) bool { return st == Optimal && e.ObjectiveValue() > primalTol }
	certificate := func(st Status) []float64 {
		if !infeasible(st) {
			return nil
		}
		y := e.Duals(nil)
		for i := range y {
			y[i] = -y[i]
		}
		if !s.certifies(s.signed(y)) {
			return nil
		}
		return y
	}
	if y := certificate(st); y != nil || !infeasible(st) {
		return y, y != nil, iterations
	}
	// Infeasible, but the duals are no certificate: CLP's scaling of the matrix, on rows
	// with coefficients in the hundreds next to the slacks' 1, can end "optimal" with
	// duals that are not the elastic problem's (a choquet2 θ-LP of 50 CENSUS records:
	// row duals up to 10.4 where the slacks bound them by 1, the candidate's gap −3.8).
	// Re-solved from its basis without scaling, they were within 1 and verified.
	if !arm() {
		return nil, false, iterations
	}
	e.SetScaling(0)
	e.SetMaxIterations(max(maxIterations-iterations, 0))
	st = e.Primal()
	iterations += e.Iterations()
	y = certificate(st)
	return y, y != nil, iterations
}
