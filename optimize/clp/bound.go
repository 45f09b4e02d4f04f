package clp

// #include "Clp_C_Interface.h"
import "C"

import (
	"math"
	"runtime"
	"unsafe"
)

// LagrangianBound returns a lower bound on the optimal value of the model, a
// minimisation, that holds for any row multipliers y, whatever the solve that
// produced them (Neumaier & Shcherbina, "Safe bounds in linear and mixed-integer
// linear programming", Mathematical Programming 99, 2004, §2):
//
//	L(y) = Σ_i (y_i·rowLower_i if y_i > 0, y_i·rowUpper_i if y_i < 0)
//	     + Σ_j min(d_j·colLower_j, d_j·colUpper_j),   d = obj − Aᵀy,
//
// with y_i taken as 0 where its bound is infinite. For every x feasible,
// obj·x = d·x + y·(Ax) ≥ L(y). With the optimal duals (Duals) L equals the
// optimum up to the tolerances of the solve; a solve that stopped short of the
// optimum while reporting Optimal gives a smaller L, not a wrong one. L is
// −Inf when some d_j has the sign of an infinite column bound. The sums are in
// floating point (no directed rounding): callers allow a margin far above
// rounding. It panics if len(y) != NumRows() or the model is a maximisation.
//
// It reads CLP's arrays in place (no copy of the matrix): the search calls it after
// every solve of a large master.
func (m *Model) LagrangianBound(y []float64) float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	if m.Sense() != Minimize {
		panic("clp: LagrangianBound needs a minimisation")
	}
	nr, nc := int(C.Clp_numberRows(p)), int(C.Clp_numberColumns(p))
	if len(y) != nr {
		panic("clp: len(y) != number of rows")
	}
	rl, ru := doubles(C.Clp_rowLower(p), nr), doubles(C.Clp_rowUpper(p), nr)
	// yOn is y_i where it multiplies a finite bound, 0 elsewhere: once a row, since the
	// columns below read it once a nonzero (the master has many more nonzeros than rows).
	yOn := make([]float64, nr)
	bound := 0.0
	for i, v := range y {
		switch {
		case v > 0 && !math.IsInf(fromCLP(rl[i]), -1):
			yOn[i] = v
			bound += v * rl[i]
		case v < 0 && !math.IsInf(fromCLP(ru[i]), 1):
			yOn[i] = v
			bound += v * ru[i]
		}
	}
	if nc == 0 {
		return bound
	}
	obj := doubles(C.Clp_objective(p), nc)
	cl, cu := doubles(C.Clp_columnLower(p), nc), doubles(C.Clp_columnUpper(p), nc)
	// CLP's column-major matrix may have gaps between columns: starts and lengths.
	starts := unsafe.Slice(C.Clp_getVectorStarts(p), nc)
	lengths := unsafe.Slice(C.Clp_getVectorLengths(p), nc)
	end := 0
	for j := range nc {
		end = max(end, int(starts[j])+int(lengths[j]))
	}
	var index []C.int
	var value []C.double
	if end > 0 {
		index, value = unsafe.Slice(C.Clp_getIndices(p), end), unsafe.Slice(C.Clp_getElements(p), end)
	}
	for j := range nc {
		d := obj[j]
		for k := int(starts[j]); k < int(starts[j])+int(lengths[j]); k++ {
			d -= float64(value[k]) * yOn[index[k]]
		}
		switch {
		case d > 0:
			bound += d * fromCLP(cl[j])
		case d < 0:
			bound += d * fromCLP(cu[j])
		}
	}
	if math.IsNaN(bound) {
		return math.Inf(-1) // d·(±Inf) of both signs
	}
	return bound
}

// doubles views n of CLP's doubles at src in place (nil for n = 0).
func doubles(src *C.double, n int) []float64 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(src)), n)
}
