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
func (m *Model) LagrangianBound(y []float64) float64 {
	defer runtime.KeepAlive(m)
	p := m.ptr()
	if m.Sense() != Minimize {
		panic("clp: LagrangianBound needs a minimisation")
	}
	s := m.snapshot(p)
	if len(y) != s.nr {
		panic("clp: len(y) != number of rows")
	}
	var obj []float64
	if s.nc > 0 {
		obj = unsafe.Slice((*float64)(unsafe.Pointer(C.Clp_objective(p))), s.nc)
	}
	bound := 0.0
	yy := make([]float64, s.nr)
	for i, v := range y {
		switch {
		case v > 0 && !math.IsInf(s.rl[i], -1):
			yy[i] = v
			bound += v * s.rl[i]
		case v < 0 && !math.IsInf(s.ru[i], 1):
			yy[i] = v
			bound += v * s.ru[i]
		}
	}
	for j := range s.nc {
		d := obj[j]
		for k := s.start[j]; k < s.start[j+1]; k++ {
			d -= s.value[k] * yy[s.index[k]]
		}
		switch {
		case d > 0:
			bound += d * s.cl[j]
		case d < 0:
			bound += d * s.cu[j]
		}
	}
	if math.IsNaN(bound) {
		return math.Inf(-1) // d·(±Inf) of both signs
	}
	return bound
}
