package clp

// #cgo pkg-config: clp
// #include <stdio.h>
// #include <stdlib.h>
// #include "Clp_C_Interface.h"
import "C"

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"unsafe"
)

// clpInf is CLP's representation of an infinite bound (COIN_DBL_MAX).
const clpInf = math.MaxFloat64

// clpInfThreshold is the magnitude above which CLP treats a bound as
// infinite (ClpModel normalises such values to ±COIN_DBL_MAX).
const clpInfThreshold = 1e27

// Model is an LP model held by CLP (a ClpSimplex object).
//
// A Model is not safe for concurrent use. Distinct Models are independent
// and may be used from different goroutines at the same time.
//
// Methods panic if called after Close.
type Model struct {
	p          unsafe.Pointer // *Clp_Simplex; nil after Close
	cleanup    runtime.Cleanup
	maxSeconds float64 // per-solve CPU time limit; <= 0 means none
	// farkasIterations are the iterations of the last FarkasCertificate's auxiliary LP.
	farkasIterations int
}

// New returns an empty model (no rows, no columns) with logging disabled.
// The model must be released with Close; a cleanup registered with the
// runtime frees it if it becomes unreachable first, but that is only a
// safety net.
func New() *Model {
	p := C.Clp_newModel()
	if p == nil {
		panic("clp: Clp_newModel returned NULL")
	}
	C.Clp_setLogLevel(p, -1) // see SetLogLevel
	m := &Model{p: p}
	m.cleanup = runtime.AddCleanup(m, func(p unsafe.Pointer) { C.Clp_deleteModel(p) }, p)
	return m
}

// Close frees the CLP model. It is safe to call Close more than once.
func (m *Model) Close() {
	if m.p == nil {
		return
	}
	m.cleanup.Stop()
	C.Clp_deleteModel(m.p)
	m.p = nil
}

// ptr returns the CLP handle, panicking if the model has been closed.
// Callers must keep m alive (runtime.KeepAlive) until their last use of the
// returned pointer.
func (m *Model) ptr() unsafe.Pointer {
	if m.p == nil {
		panic("clp: use of closed Model")
	}
	return m.p
}

// NumRows returns the number of rows (constraints) of the model.
func (m *Model) NumRows() int {
	defer runtime.KeepAlive(m)
	return int(C.Clp_numberRows(m.ptr()))
}

// NumCols returns the number of columns (variables) of the model.
func (m *Model) NumCols() int {
	defer runtime.KeepAlive(m)
	return int(C.Clp_numberColumns(m.ptr()))
}

// LoadProblem replaces the model's problem by
//
//	minimise (or maximise, see SetSense)  objᵀx
//	subject to  rowLower ≤ A x ≤ rowUpper,  colLower ≤ x ≤ colUpper,
//
// where A has numRows rows and len(colStart)-1 columns and is given in
// compressed sparse column form: the entries of column j are
// value[k] at row rowIndex[k] for colStart[j] ≤ k < colStart[j+1].
//
// Infinite bounds are given as math.Inf(±1). A nil bound or objective slice
// selects the default: colLower 0, colUpper +Inf, obj 0, rowLower -Inf,
// rowUpper +Inf. The current basis and solution are discarded.
//
// LoadProblem panics if the slice lengths are inconsistent (len(colStart) < 1,
// len(rowIndex) != len(value), a non-nil column slice whose length is not the
// number of columns, a non-nil row slice whose length is not numRows) or if
// numRows is negative. It returns an error, leaving the model unchanged, for
// bad data: colStart not starting at 0, decreasing or not ending at
// len(value); a row index out of range or repeated within a column; a NaN or
// infinite matrix or objective coefficient; a NaN bound.
func (m *Model) LoadProblem(numRows int, colStart, rowIndex []int, value []float64,
	colLower, colUpper, obj, rowLower, rowUpper []float64) error {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	if numRows < 0 {
		panic("clp: negative number of rows")
	}
	if len(colStart) < 1 {
		panic("clp: colStart must have length number of columns + 1")
	}
	numCols := len(colStart) - 1
	if numRows > math.MaxInt32 || numCols > math.MaxInt32 {
		panic("clp: too many rows or columns")
	}
	checkLen("colLower", colLower, numCols, true)
	checkLen("colUpper", colUpper, numCols, true)
	checkLen("obj", obj, numCols, true)
	checkLen("rowLower", rowLower, numRows, true)
	checkLen("rowUpper", rowUpper, numRows, true)
	if len(rowIndex) != len(value) {
		panic("clp: rowIndex and value lengths differ")
	}
	start, index, elem, err := packMatrix("column", colStart, rowIndex, value, numRows)
	if err != nil {
		return err
	}
	cl, err := bounds("column lower bound", colLower, numCols, 0)
	if err != nil {
		return err
	}
	cu, err := bounds("column upper bound", colUpper, numCols, math.Inf(1))
	if err != nil {
		return err
	}
	rl, err := bounds("row lower bound", rowLower, numRows, math.Inf(-1))
	if err != nil {
		return err
	}
	ru, err := bounds("row upper bound", rowUpper, numRows, math.Inf(1))
	if err != nil {
		return err
	}
	c, err := coefficients("objective coefficient", obj, numCols)
	if err != nil {
		return err
	}
	C.Clp_loadProblem(p, C.int(numCols), C.int(numRows),
		&start[0], &index[0], &elem[0], &cl[0], &cu[0], &c[0], &rl[0], &ru[0])
	return nil
}

// AddRows appends len(rowLower) rows to the model. The rows are given in
// compressed sparse row form: the entries of new row i are value[k] in
// column colIndex[k] for rowStart[i] ≤ k < rowStart[i+1]. Infinite bounds are
// math.Inf(±1).
//
// The existing basis is kept and the new rows' slacks are made basic, so a
// following Dual warm-starts from the previous optimal basis.
//
// AddRows panics if len(rowUpper) != len(rowLower), len(rowStart) !=
// len(rowLower)+1 or len(colIndex) != len(value). It returns an error,
// leaving the model unchanged, for bad data (see LoadProblem).
func (m *Model) AddRows(rowLower, rowUpper []float64, rowStart, colIndex []int, value []float64) error {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	n := len(rowLower)
	checkLen("rowUpper", rowUpper, n, false)
	if len(rowStart) != n+1 {
		panic("clp: rowStart must have length number of rows + 1")
	}
	if len(colIndex) != len(value) {
		panic("clp: colIndex and value lengths differ")
	}
	start, index, elem, err := packMatrix("row", rowStart, colIndex, value, int(C.Clp_numberColumns(p)))
	if err != nil {
		return err
	}
	rl, err := bounds("row lower bound", rowLower, n, 0)
	if err != nil {
		return err
	}
	ru, err := bounds("row upper bound", rowUpper, n, 0)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	C.Clp_addRows(p, C.int(n), &rl[0], &ru[0], &start[0], &index[0], &elem[0])
	return nil
}

// AddRow appends the single row lower ≤ Σ value[k]·x[colIndex[k]] ≤ upper.
// It is AddRows for one row.
func (m *Model) AddRow(lower, upper float64, colIndex []int, value []float64) error {
	return m.AddRows([]float64{lower}, []float64{upper}, []int{0, len(colIndex)}, colIndex, value)
}

// AddColumns appends len(colLower) columns to the model. The columns are
// given in compressed sparse column form (see LoadProblem); obj holds their
// objective coefficients. Infinite bounds are math.Inf(±1).
//
// The existing basis is kept; the new columns are nonbasic.
//
// AddColumns panics if len(colUpper) or len(obj) differs from len(colLower),
// len(colStart) != len(colLower)+1 or len(rowIndex) != len(value). It returns
// an error, leaving the model unchanged, for bad data (see LoadProblem).
func (m *Model) AddColumns(colLower, colUpper, obj []float64, colStart, rowIndex []int, value []float64) error {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	n := len(colLower)
	checkLen("colUpper", colUpper, n, false)
	checkLen("obj", obj, n, false)
	if len(colStart) != n+1 {
		panic("clp: colStart must have length number of columns + 1")
	}
	if len(rowIndex) != len(value) {
		panic("clp: rowIndex and value lengths differ")
	}
	start, index, elem, err := packMatrix("column", colStart, rowIndex, value, int(C.Clp_numberRows(p)))
	if err != nil {
		return err
	}
	cl, err := bounds("column lower bound", colLower, n, 0)
	if err != nil {
		return err
	}
	cu, err := bounds("column upper bound", colUpper, n, 0)
	if err != nil {
		return err
	}
	c, err := coefficients("objective coefficient", obj, n)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	C.Clp_addColumns(p, C.int(n), &cl[0], &cu[0], &c[0], &start[0], &index[0], &elem[0])
	return nil
}

// DeleteRows deletes the given rows; the remaining rows keep their relative
// order and are renumbered consecutively. Repeated indices are allowed.
// DeleteRows panics if an index is out of range.
func (m *Model) DeleteRows(rows []int) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	which := uniqueIndices("row", rows, int(C.Clp_numberRows(p)))
	if len(which) == 0 {
		return
	}
	C.Clp_deleteRows(p, C.int(len(which)), &which[0])
}

// DeleteColumns deletes the given columns; the remaining columns keep their
// relative order and are renumbered consecutively. Repeated indices are
// allowed. DeleteColumns panics if an index is out of range.
func (m *Model) DeleteColumns(cols []int) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	which := uniqueIndices("column", cols, int(C.Clp_numberColumns(p)))
	if len(which) == 0 {
		return
	}
	C.Clp_deleteColumns(p, C.int(len(which)), &which[0])
}

// SetColumnBounds sets the bounds of column j to [lower, upper]; infinite
// bounds are math.Inf(±1). The basis is kept, so a following Dual
// warm-starts (the usual branch-and-bound step). SetColumnBounds panics if j
// is out of range or a bound is NaN.
func (m *Model) SetColumnBounds(j int, lower, upper float64) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	n := int(C.Clp_numberColumns(p))
	checkIndex("column", j, n)
	checkNaN(lower, upper)
	unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_columnLower(p))), n)[j] = toCLP(lower)
	unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_columnUpper(p))), n)[j] = toCLP(upper)
}

// ColumnBounds returns the bounds of column j, with infinite bounds as
// math.Inf(±1). It panics if j is out of range.
func (m *Model) ColumnBounds(j int) (lower, upper float64) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	n := int(C.Clp_numberColumns(p))
	checkIndex("column", j, n)
	lower = fromCLP(unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_columnLower(p))), n)[j])
	upper = fromCLP(unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_columnUpper(p))), n)[j])
	return lower, upper
}

// SetRowBounds sets the bounds of row i to [lower, upper]; infinite bounds
// are math.Inf(±1). The basis is kept. SetRowBounds panics if i is out of
// range or a bound is NaN.
func (m *Model) SetRowBounds(i int, lower, upper float64) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	n := int(C.Clp_numberRows(p))
	checkIndex("row", i, n)
	checkNaN(lower, upper)
	unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_rowLower(p))), n)[i] = toCLP(lower)
	unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_rowUpper(p))), n)[i] = toCLP(upper)
}

// RowBounds returns the bounds of row i, with infinite bounds as
// math.Inf(±1). It panics if i is out of range.
func (m *Model) RowBounds(i int) (lower, upper float64) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	n := int(C.Clp_numberRows(p))
	checkIndex("row", i, n)
	lower = fromCLP(unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_rowLower(p))), n)[i])
	upper = fromCLP(unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_rowUpper(p))), n)[i])
	return lower, upper
}

// SetObjective sets the objective coefficient of column j. It panics if j
// is out of range or c is not finite.
func (m *Model) SetObjective(j int, c float64) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	n := int(C.Clp_numberColumns(p))
	checkIndex("column", j, n)
	if math.IsNaN(c) || math.IsInf(c, 0) {
		panic("clp: objective coefficient not finite")
	}
	unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_objective(p))), n)[j] = c
}

// Objective returns the objective coefficient of column j. It panics if j is
// out of range.
func (m *Model) Objective(j int) float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	n := int(C.Clp_numberColumns(p))
	checkIndex("column", j, n)
	return unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_objective(p))), n)[j]
}

// SetSense sets the direction of optimisation. The default is Minimize.
func (m *Model) SetSense(s Sense) {
	defer runtime.KeepAlive(m)
	if s != Minimize && s != Maximize {
		panic("clp: invalid Sense")
	}
	C.Clp_setOptimizationDirection(m.ptr(), C.double(s))
}

// Sense returns the direction of optimisation.
func (m *Model) Sense() Sense {
	defer runtime.KeepAlive(m)
	if C.Clp_optimizationDirection(m.ptr()) < 0 {
		return Maximize
	}
	return Minimize
}

// SetLogLevel sets the amount of CLP output on standard output: 0 (the
// default of New) or less prints nothing, not even CLP's error messages
// (errors are reported through return values); 1 prints final results, 2
// factorizations, 3 a bit more and 4 is verbose.
func (m *Model) SetLogLevel(level int) {
	defer runtime.KeepAlive(m)
	if level <= 0 {
		// CLP's level 0 still prints error messages (for instance when
		// an MPS file cannot be read); -1 silences them too.
		level = -1
	}
	C.Clp_setLogLevel(m.ptr(), C.int(level))
}

// SetMaxIterations limits the number of simplex iterations of each
// subsequent solve. A negative n removes the limit. A solve that hits the
// limit returns StoppedOnLimit.
func (m *Model) SetMaxIterations(n int) {
	defer runtime.KeepAlive(m)
	if n < 0 || n > math.MaxInt32 {
		n = math.MaxInt32
	}
	C.Clp_setMaximumIterations(m.ptr(), C.int(n))
}

// SetMaxSeconds limits the CPU time (not wall-clock time) of each
// subsequent solve to s seconds. A non-positive, NaN or infinite s removes the
// limit. A solve that hits the limit returns StoppedOnLimit.
//
// CLP itself stores an absolute deadline computed when the limit is set; the
// Model re-arms it at the start of every solve so the limit is per solve.
func (m *Model) SetMaxSeconds(s float64) {
	m.ptr()
	if !(s > 0) || math.IsInf(s, 1) {
		s = 0
	}
	m.maxSeconds = s
}

// SetPrimalTolerance sets the primal feasibility tolerance (CLP's default
// is 1e-7). CLP ignores values that are not in (0, 1e10).
func (m *Model) SetPrimalTolerance(tol float64) {
	defer runtime.KeepAlive(m)
	C.Clp_setPrimalTolerance(m.ptr(), C.double(tol))
}

// SetDualTolerance sets the dual feasibility (reduced cost) tolerance
// (CLP's default is 1e-7). CLP ignores values that are not in (0, 1e10).
func (m *Model) SetDualTolerance(tol float64) {
	defer runtime.KeepAlive(m)
	C.Clp_setDualTolerance(m.ptr(), C.double(tol))
}

// SetScaling sets how CLP scales the matrix before each solve: 0 off, 1 equilibrium,
// 2 geometric, 3 automatic (CLP's default). A model whose coefficients are all ±1 gains
// nothing from scaling and saves its cost on every re-solve.
func (m *Model) SetScaling(mode int) {
	defer runtime.KeepAlive(m)
	C.Clp_scaling(m.ptr(), C.int(mode))
}

// armLimits prepares the per-solve limits before a solve.
func (m *Model) armLimits(p unsafe.Pointer) {
	if m.maxSeconds > 0 {
		C.Clp_setMaximumSeconds(p, C.double(m.maxSeconds))
	} else {
		C.Clp_setMaximumSeconds(p, -1)
	}
}

// Dual solves the model with the dual simplex method, starting from the
// current basis (the slack basis for a fresh model). This is the method to
// use after adding rows or changing bounds of a solved model, and the one
// that provides an infeasibility ray (see InfeasibilityRay). When it reports
// PrimalInfeasible for a model with free or one-sided columns, confirm with
// FarkasCertificate (see the package documentation). It first makes basic the
// slack of every nonbasic row whose bounds are both infinite (see freeRowsBasic),
// so the basis it starts from may differ from Basis's.
func (m *Model) Dual() Status {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	freeRowsBasic(p) // see there: CLP's dual simplex fails on free nonbasic slacks
	m.armLimits(p)
	C.Clp_dual(p, 0)
	return Status(C.Clp_status(p))
}

// Primal solves the model with the primal simplex method, starting from the
// current basis. It is the natural choice after adding columns or changing
// objective coefficients of a solved model.
func (m *Model) Primal() Status {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	m.armLimits(p)
	C.Clp_primal(p, 0)
	return Status(C.Clp_status(p))
}

// InitialSolve solves the model with CLP's general driver, which presolves
// the problem and chooses the algorithm itself (it still benefits from a
// current optimal or near-optimal basis). Because of presolve, an
// infeasible model solved this way usually has no infeasibility ray; use
// Dual when a ray is needed.
func (m *Model) InitialSolve() Status {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	m.armLimits(p)
	C.Clp_initialSolve(p)
	return Status(C.Clp_status(p))
}

// Status returns the status of the last solve (Unknown before any solve).
func (m *Model) Status() Status {
	defer runtime.KeepAlive(m)
	return Status(C.Clp_status(m.ptr()))
}

// SecondaryStatus returns CLP's secondary status of the last solve, which
// refines Status:
//
//	0  none
//	1  primal infeasible because the dual objective limit was reached,
//	   or probably primal infeasible but not proven (with status 4)
//	2  scaled problem optimal, unscaled problem has primal infeasibilities
//	3  scaled problem optimal, unscaled problem has dual infeasibilities
//	4  scaled problem optimal, unscaled problem has both
//	5  giving up in primal with flagged variables
//	6  failed due to empty problem check
//	7  postsolve says not optimal
//	8  failed due to bad element check
//	9  stopped on time (with status 3)
//	10 stopped as primal feasible (with status 3)
//	100+ event handler codes
func (m *Model) SecondaryStatus() int {
	defer runtime.KeepAlive(m)
	return int(C.Clp_secondaryStatus(m.ptr()))
}

// ObjectiveValue returns the objective value of the current solution, in
// the model's own sense (for a maximisation model, the maximised value).
func (m *Model) ObjectiveValue() float64 {
	defer runtime.KeepAlive(m)
	return float64(C.Clp_objectiveValue(m.ptr()))
}

// Iterations returns the number of simplex iterations of the last solve.
func (m *Model) Iterations() int {
	defer runtime.KeepAlive(m)
	return int(C.Clp_numberIterations(m.ptr()))
}

// Solution returns the column values x of the current solution. The result
// is stored in dst if it has enough capacity and is otherwise newly
// allocated.
func (m *Model) Solution(dst []float64) []float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	return copyOut(dst, C.Clp_primalColumnSolution(p), int(C.Clp_numberColumns(p)))
}

// RowActivity returns the row activities A x of the current solution. The
// result is stored in dst if it has enough capacity and is otherwise newly
// allocated.
func (m *Model) RowActivity(dst []float64) []float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	return copyOut(dst, C.Clp_primalRowSolution(p), int(C.Clp_numberRows(p)))
}

// Duals returns the row duals (shadow prices) y of the current solution:
// y[i] is the rate of change of the optimal objective value with respect to
// the active bound of row i, in the model's own sense. Together with the
// reduced costs d they satisfy obj = Aᵀy + d. The result is stored in dst if
// it has enough capacity and is otherwise newly allocated.
func (m *Model) Duals(dst []float64) []float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	return copyOut(dst, C.Clp_dualRowSolution(p), int(C.Clp_numberRows(p)))
}

// ReducedCosts returns the reduced costs d = obj − Aᵀy of the columns for
// the current solution. The result is stored in dst if it has enough capacity
// and is otherwise newly allocated.
func (m *Model) ReducedCosts(dst []float64) []float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	return copyOut(dst, C.Clp_dualColumnSolution(p), int(C.Clp_numberColumns(p)))
}

// UnboundedRay returns a primal ray after a solve that returned
// DualInfeasible, or nil if CLP has none: a direction r, one entry per
// column, along which the model stays feasible and the objective improves
// (in the model's sense) without bound. The returned slice is a Go copy;
// the CLP array is freed.
func (m *Model) UnboundedRay() []float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	ray := C.Clp_unboundedRay(p)
	if ray == nil {
		return nil
	}
	defer C.Clp_freeRay(p, ray)
	return copyOut(nil, ray, int(C.Clp_numberColumns(p)))
}

// Basis returns a copy of the current basis: the status of every column and
// of every row (slack). Loading a problem creates the slack basis (rows
// basic, columns at a bound); Basis returns nil slices if CLP holds no basis
// at all, as for a new Model.
func (m *Model) Basis() (cols, rows []BasisStatus) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	if C.Clp_statusExists(p) == 0 {
		return nil, nil
	}
	nc := int(C.Clp_numberColumns(p))
	nr := int(C.Clp_numberRows(p))
	st := C.Clp_statusArray(p)
	if st == nil {
		return nil, nil
	}
	// CLP's status array holds columns then rows; the low three bits are
	// the basis status, the others are internal flags.
	all := unsafe.Slice((*uint8)(unsafe.Pointer(st)), nc+nr)
	cols = make([]BasisStatus, nc)
	rows = make([]BasisStatus, nr)
	for j := range cols {
		cols[j] = BasisStatus(all[j] & 7)
	}
	for i := range rows {
		rows[i] = BasisStatus(all[nc+i] & 7)
	}
	return cols, rows
}

// SetBasis installs a basis, typically one returned by Basis on another
// model with the same rows and columns, so that a following Dual or Primal
// warm-starts from it. Nonbasic variables are placed at the bound their
// status names. If the basis is not valid (for instance has the wrong number
// of basic variables) CLP repairs it when it factorizes.
//
// SetBasis panics if len(cols) != NumCols() or len(rows) != NumRows(), or
// if a status is not one of the BasisStatus constants.
func (m *Model) SetBasis(cols, rows []BasisStatus) {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	nc := int(C.Clp_numberColumns(p))
	nr := int(C.Clp_numberRows(p))
	if len(cols) != nc || len(rows) != nr {
		panic("clp: basis dimension mismatch")
	}
	all := make([]C.uchar, max(nc+nr, 1))
	for j, s := range cols {
		if s > Fixed {
			panic("clp: invalid BasisStatus")
		}
		all[j] = C.uchar(s)
	}
	for i, s := range rows {
		if s > Fixed {
			panic("clp: invalid BasisStatus")
		}
		all[nc+i] = C.uchar(s)
	}
	C.Clp_copyinStatus(p, &all[0])
	// Clp_set{Column,Row}Status also move the value of a nonbasic
	// variable to the bound its status names.
	for j, s := range cols {
		C.Clp_setColumnStatus(p, C.int(j), C.int(s))
	}
	for i, s := range rows {
		C.Clp_setRowStatus(p, C.int(i), C.int(s))
	}
}

// WriteMPS writes the model to path in free MPS format, with numbers to 16
// significant digits and generated row and column names (R0000000,
// C0000000, ...). The file has no OBJSENSE section and is always a
// minimisation problem, so for a maximisation model the objective
// coefficients written are negated (and the file's optimal objective value
// is the negation of the model's).
func (m *Model) WriteMPS(path string) error {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	// CLP aborts the process (an uncaught C++ exception) when it cannot
	// open the file, so let it write to a temporary file that is known to
	// be writable and copy that with Go's error handling.
	f, err := os.CreateTemp("", "clp-*.mps")
	if err != nil {
		return fmt.Errorf("clp: writing MPS file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Close(); err != nil {
		return fmt.Errorf("clp: writing MPS file: %w", err)
	}
	ctmp := C.CString(tmp)
	defer C.free(unsafe.Pointer(ctmp))
	// objSense 1 asks CLP to write the objective as a minimisation:
	// CLP negates it when the model maximises.
	if rc := C.Clp_writeMps(p, ctmp, 1, 1, 1); rc != 0 {
		return fmt.Errorf("clp: writing MPS file %q failed (code %d)", path, int(rc))
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		return fmt.Errorf("clp: writing MPS file: %w", err)
	}
	if err := os.WriteFile(path, data, 0o666); err != nil {
		return fmt.Errorf("clp: writing MPS file: %w", err)
	}
	return nil
}

// ReadMPS replaces the model's problem by the one in the MPS file at path,
// in fixed or free MPS format. An OBJSENSE section is ignored (and CoinUtils
// prints a note about it on standard output): the objective sense becomes
// minimisation. On error the model's previous problem may have been lost.
func (m *Model) ReadMPS(path string) error {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	// Check readability first: Go gives a better error than CLP.
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("clp: reading MPS file: %w", err)
	}
	f.Close()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if rc := C.Clp_readMps(p, cpath, 1, 0); rc != 0 {
		return fmt.Errorf("clp: reading MPS file %q failed (code %d)", path, int(rc))
	}
	return nil
}

// flushCStdout flushes the C standard I/O streams (used by tests that check
// that CLP prints nothing).
func flushCStdout() { C.fflush(nil) }

// copyOut copies n doubles from C memory into dst (reused if large enough).
func copyOut(dst []float64, src *C.double, n int) []float64 {
	if cap(dst) >= n {
		dst = dst[:n]
	} else {
		dst = make([]float64, n)
	}
	if n == 0 || src == nil {
		clear(dst)
		return dst
	}
	for i, v := range unsafe.Slice((*float64)(unsafe.Pointer(src)), n) {
		if v == 0 {
			v = 0 // no negative zeros
		}
		dst[i] = v
	}
	return dst
}

func toCLP(v float64) float64 {
	switch {
	case v > clpInfThreshold:
		return clpInf
	case v < -clpInfThreshold:
		return -clpInf
	}
	return v
}

func fromCLP(v float64) float64 {
	switch {
	case v > clpInfThreshold:
		return math.Inf(1)
	case v < -clpInfThreshold:
		return math.Inf(-1)
	}
	return v
}

func checkLen(name string, s []float64, n int, nilOK bool) {
	if s == nil && nilOK {
		return
	}
	if len(s) != n {
		panic(fmt.Sprintf("clp: len(%s) = %d, want %d", name, len(s), n))
	}
}

func checkIndex(what string, i, n int) {
	if i < 0 || i >= n {
		panic(fmt.Sprintf("clp: %s index %d out of range [0,%d)", what, i, n))
	}
}

func checkNaN(lower, upper float64) {
	if math.IsNaN(lower) || math.IsNaN(upper) {
		panic("clp: NaN bound")
	}
}

// bounds converts a bound vector to CLP's representation, filling def if s is
// nil. The result has length at least 1 so that &b[0] is always valid.
func bounds(name string, s []float64, n int, def float64) ([]C.double, error) {
	b := make([]C.double, max(n, 1))
	for i := range n {
		v := def
		if s != nil {
			v = s[i]
		}
		if math.IsNaN(v) {
			return nil, fmt.Errorf("clp: %s %d is NaN", name, i)
		}
		b[i] = C.double(toCLP(v))
	}
	return b, nil
}

// coefficients copies finite coefficients (zero if s is nil). The result has
// length at least 1.
func coefficients(name string, s []float64, n int) ([]C.double, error) {
	c := make([]C.double, max(n, 1))
	if s == nil {
		return c, nil
	}
	for i, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("clp: %s %d is not finite", name, i)
		}
		c[i] = C.double(v)
	}
	return c, nil
}

// packMatrix validates a compressed sparse matrix (major dimension given by
// start, minor indices in [0, minor)) and converts it to C arrays, each of
// length at least 1.
func packMatrix(major string, start, index []int, value []float64, minor int) ([]C.CoinBigIndex, []C.int, []C.double, error) {
	n := len(start) - 1
	if start[0] != 0 {
		return nil, nil, nil, fmt.Errorf("clp: %s starts must begin at 0, got %d", major, start[0])
	}
	if start[n] != len(index) {
		return nil, nil, nil, fmt.Errorf("clp: last %s start is %d, want number of entries %d", major, start[n], len(index))
	}
	if len(index) > math.MaxInt32 {
		return nil, nil, nil, errors.New("clp: too many matrix entries")
	}
	cs := make([]C.CoinBigIndex, n+1)
	ci := make([]C.int, max(len(index), 1))
	cv := make([]C.double, max(len(value), 1))
	var sorted []int // scratch for the duplicate check
	for k := range n {
		lo, hi := start[k], start[k+1]
		if hi < lo || hi > len(index) {
			return nil, nil, nil, fmt.Errorf("clp: %s start %d (%d) out of order or past the number of entries %d", major, k+1, hi, len(index))
		}
		cs[k] = C.CoinBigIndex(lo)
		for e := lo; e < hi; e++ {
			r := index[e]
			if r < 0 || r >= minor {
				return nil, nil, nil, fmt.Errorf("clp: %s %d: index %d out of range [0,%d)", major, k, r, minor)
			}
			v := value[e]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, nil, fmt.Errorf("clp: %s %d: coefficient %d is not finite", major, k, e)
			}
			ci[e] = C.int(r)
			cv[e] = C.double(v)
		}
		sorted = append(sorted[:0], index[lo:hi]...)
		slices.Sort(sorted)
		for e := 1; e < len(sorted); e++ {
			if sorted[e] == sorted[e-1] {
				return nil, nil, nil, fmt.Errorf("clp: %s %d: index %d repeated", major, k, sorted[e])
			}
		}
	}
	cs[n] = C.CoinBigIndex(start[n])
	return cs, ci, cv, nil
}

// uniqueIndices returns the sorted distinct indices as C ints, panicking on
// an index outside [0, n).
func uniqueIndices(what string, idx []int, n int) []C.int {
	s := slices.Clone(idx)
	for _, i := range s {
		checkIndex(what, i, n)
	}
	slices.Sort(s)
	s = slices.Compact(s)
	out := make([]C.int, len(s))
	for k, i := range s {
		out[k] = C.int(i)
	}
	return out
}

// NumElements returns the number of non-zero coefficients of the constraint matrix.
func (m *Model) NumElements() int {
	defer runtime.KeepAlive(m)
	return int(C.Clp_getNumElements(m.ptr()))
}

// freeRowsBasic makes basic the slack of every row without a finite bound that is
// nonbasic (a row switched off by freeing its bounds after a solve, which leaves its
// slack where the solve put it). CLP 1.17's dual simplex does not allow a free nonbasic
// variable: from such a basis it aborted the process on an assertion
// (ClpSimplexDual::dualColumn0, a Choquet search on CENSUS) or returned a wrong optimum
// (TestDualAfterFreeingRows: 2.164542 where the freed model's is 2.164598). A free
// slack belongs in the basis (its row constrains nothing), and CLP repairs the basis's
// count of basic variables when it factorizes.
func freeRowsBasic(p unsafe.Pointer) {
	if C.Clp_statusExists(p) == 0 {
		return
	}
	nc, nr := int(C.Clp_numberColumns(p)), int(C.Clp_numberRows(p))
	st := C.Clp_statusArray(p)
	if st == nil || nr == 0 {
		return
	}
	all := unsafe.Slice((*uint8)(unsafe.Pointer(st)), nc+nr)
	lo := unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_rowLower(p))), nr)
	up := unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_rowUpper(p))), nr)
	for i := range nr {
		if BasisStatus(all[nc+i]&7) != Basic && math.IsInf(fromCLP(lo[i]), -1) && math.IsInf(fromCLP(up[i]), 1) {
			C.Clp_setRowStatus(p, C.int(i), C.int(Basic))
		}
	}
}
