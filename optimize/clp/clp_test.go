package clp

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var inf = math.Inf(1)

const tol = 1e-7

func near(a, b float64) bool {
	return math.Abs(a-b) <= tol*(1+math.Abs(b))
}

func checkVec(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", name, got, want)
	}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Fatalf("%s = %v, want %v", name, got, want)
		}
	}
}

// lp is a problem in dense form, used to build models and to check results
// independently of CLP.
type lp struct {
	a              [][]float64 // rows
	cl, cu, obj    []float64
	rl, ru         []float64
	sense          Sense
	numRows, ncols int
}

func (p *lp) csc() (start, index []int, value []float64) {
	start = []int{0}
	for j := range p.ncols {
		for i := range p.numRows {
			if v := p.a[i][j]; v != 0 {
				index = append(index, i)
				value = append(value, v)
			}
		}
		start = append(start, len(index))
	}
	return start, index, value
}

func (p *lp) model(t *testing.T) *Model {
	t.Helper()
	m := New()
	t.Cleanup(m.Close)
	start, index, value := p.csc()
	if err := m.LoadProblem(p.numRows, start, index, value, p.cl, p.cu, p.obj, p.rl, p.ru); err != nil {
		t.Fatal(err)
	}
	if p.sense != 0 {
		m.SetSense(p.sense)
	}
	return m
}

func newLP(a [][]float64, cl, cu, obj, rl, ru []float64) *lp {
	return &lp{a: a, cl: cl, cu: cu, obj: obj, rl: rl, ru: ru, numRows: len(a), ncols: len(a[0])}
}

// lp1 is
//
//	maximise 3x + 2y
//	r0: x +  y ≤ 4
//	r1: x + 3y ≤ 9
//	r2: x      ≤ 3
//	x, y ≥ 0
//
// By hand: the vertices are (0,0) 0, (3,0) 9, (3,1) 11, (1.5,2.5) 9.5 and
// (0,3) 6, so the optimum is x=3, y=1 with objective 11 (r0 and r2 tight,
// r1 = 6 slack). It is not degenerate: exactly two constraints are tight.
// (The system with r1: x + 3y ≤ 6 would be degenerate at (3,1).)
// Duals: x and y are basic so obj = Aᵀy_dual, and y_r1 = 0 (slack row):
// for y, 2 = y_r0; for x, 3 = y_r0 + y_r2, so y_r2 = 1. Check: raising r0's
// bound to 5 gives (3,2) with 13 = 11 + 2; raising r2's to 4 gives (4,0)
// with 12 = 11 + 1.
func lp1() *lp {
	p := newLP([][]float64{{1, 1}, {1, 3}, {1, 0}}, nil, nil, []float64{3, 2},
		[]float64{-inf, -inf, -inf}, []float64{4, 9, 3})
	p.sense = Maximize
	return p
}

// feasible reports the largest violation of the constraints of p by x.
func (p *lp) violation(x []float64) float64 {
	var v float64
	for i := range p.numRows {
		var ax float64
		for j := range p.ncols {
			ax += p.a[i][j] * x[j]
		}
		v = max(v, p.rl[i]-ax, ax-p.ru[i])
	}
	for j := range p.ncols {
		lo, hi := 0.0, inf
		if p.cl != nil {
			lo = p.cl[j]
		}
		if p.cu != nil {
			hi = p.cu[j]
		}
		v = max(v, lo-x[j], x[j]-hi)
	}
	return v
}

// certificate evaluates a Farkas certificate y for the rows of p, following
// the derivation: for x within its column bounds, yᵀ(Ax) = (Aᵀy)ᵀx is at
// least alpha = Σ_j min over x_j∈[l_j,u_j] of (Aᵀy)_j·x_j; if the row bounds
// hold, each y_i·(Ax)_i is at most max(y_i·rowLower_i, y_i·rowUpper_i), so
// yᵀ(Ax) ≤ beta = Σ_i of those maxima. alpha > beta means no x satisfies
// both. Infinite terms make the corresponding side infinite (no proof).
// Rounding: entries of y below 1e-12·max|y| are treated as zero, and so are
// entries of Aᵀy below 1e-9 times the sum of the magnitudes of their terms.
func (p *lp) certificate(y []float64) (alpha, beta float64) {
	var ymax float64
	for _, v := range y {
		ymax = max(ymax, math.Abs(v))
	}
	small := 1e-12 * ymax
	for i := range p.numRows {
		switch {
		case y[i] > small:
			beta += y[i] * p.ru[i] // +Inf if the upper bound is infinite
		case y[i] < -small:
			beta += y[i] * p.rl[i] // +Inf if the lower bound is -Inf
		}
	}
	for j := range p.ncols {
		var d, mag float64
		for i := range p.numRows {
			if math.Abs(y[i]) > small {
				d += p.a[i][j] * y[i]
				mag += math.Abs(p.a[i][j] * y[i])
			}
		}
		if math.Abs(d) <= 1e-9*mag {
			continue
		}
		lo, hi := 0.0, inf
		if p.cl != nil {
			lo = p.cl[j]
		}
		if p.cu != nil {
			hi = p.cu[j]
		}
		if d > 0 {
			alpha += d * lo // -Inf if the lower bound is -Inf
		} else {
			alpha += d * hi // -Inf if the upper bound is +Inf
		}
	}
	return alpha, beta
}

func checkCertificate(t *testing.T, p *lp, y []float64) {
	t.Helper()
	if len(y) != p.numRows {
		t.Fatalf("certificate %v has %d entries, want %d", y, len(y), p.numRows)
	}
	alpha, beta := p.certificate(y)
	if !(alpha > beta) {
		t.Fatalf("y = %v is not a Farkas certificate: alpha %v, beta %v", y, alpha, beta)
	}
}

func TestSmallLP(t *testing.T) {
	// The rows of lp1 with r2 replaced by the column bound x ≤ 3: the same
	// optimum, with r2's dual 1 now the reduced cost of x (obj = Aᵀy + d:
	// 3 = 2 + d_x).
	bounded := newLP([][]float64{{1, 1}, {1, 3}}, nil, []float64{3, inf}, []float64{3, 2},
		[]float64{-inf, -inf}, []float64{4, 9})
	bounded.sense = Maximize
	// lp1 as a minimisation of −3x − 2y: the same point, objective −11,
	// duals and reduced costs negated.
	minimised := lp1()
	minimised.sense = Minimize
	minimised.obj = []float64{-3, -2}

	for _, tc := range []struct {
		name      string
		p         *lp
		solve     func(*Model) Status
		obj       float64
		x, act    []float64
		duals, rc []float64
	}{
		{"dual", lp1(), (*Model).Dual, 11, []float64{3, 1}, []float64{4, 6, 3}, []float64{2, 0, 1}, []float64{0, 0}},
		{"primal", lp1(), (*Model).Primal, 11, []float64{3, 1}, []float64{4, 6, 3}, []float64{2, 0, 1}, []float64{0, 0}},
		{"unscaled", lp1(), func(m *Model) Status { m.SetScaling(0); return m.Dual() }, 11, []float64{3, 1}, []float64{4, 6, 3}, []float64{2, 0, 1}, []float64{0, 0}},
		{"initial", lp1(), (*Model).InitialSolve, 11, []float64{3, 1}, []float64{4, 6, 3}, []float64{2, 0, 1}, []float64{0, 0}},
		{"column bound", bounded, (*Model).Dual, 11, []float64{3, 1}, []float64{4, 6}, []float64{2, 0}, []float64{1, 0}},
		{"minimise", minimised, (*Model).Dual, -11, []float64{3, 1}, []float64{4, 6, 3}, []float64{-2, 0, -1}, []float64{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.p.model(t)
			if st := m.Status(); st != Unknown {
				t.Errorf("status before solve = %v, want %v", st, Unknown)
			}
			if st := tc.solve(m); st != Optimal {
				t.Fatalf("status = %v, want optimal", st)
			}
			if m.Status() != Optimal {
				t.Errorf("Status() = %v after an optimal solve", m.Status())
			}
			if got := m.ObjectiveValue(); !near(got, tc.obj) {
				t.Errorf("objective = %v, want %v", got, tc.obj)
			}
			checkVec(t, "solution", m.Solution(nil), tc.x)
			checkVec(t, "row activity", m.RowActivity(nil), tc.act)
			checkVec(t, "duals", m.Duals(nil), tc.duals)
			checkVec(t, "reduced costs", m.ReducedCosts(nil), tc.rc)
			if m.NumRows() != tc.p.numRows || m.NumCols() != 2 {
				t.Errorf("dims = %d×%d", m.NumRows(), m.NumCols())
			}
			if m.Sense() != tc.p.sense {
				t.Errorf("sense = %v, want %v", m.Sense(), tc.p.sense)
			}
		})
	}
}

func TestResultBuffers(t *testing.T) {
	m := lp1().model(t)
	m.Dual()
	buf := make([]float64, 0, 10)
	x := m.Solution(buf)
	if &x[0] != &buf[:1][0] {
		t.Error("Solution did not reuse dst")
	}
	checkVec(t, "solution", x, []float64{3, 1})
	// The copies do not alias CLP memory: they survive further changes.
	m.SetColumnBounds(0, 0, 0)
	m.Dual()
	checkVec(t, "old solution", x, []float64{3, 1})
}

func TestWarmStartAddRow(t *testing.T) {
	// Cut x + 2y ≤ 4, violated by lp1's optimum (3,1): 5 > 4.
	// By hand: with x ≤ 3 tight, y ≤ min(4−3, (4−3)/2, (9−3)/3) = 0.5, so
	// (3, 0.5) with objective 10. The other vertices on the cut, (0,2) with
	// 4 and (3,0.5), and x+y=4 meets the cut at (4,0), outside x ≤ 3. Duals:
	// r0 (x+y=3.5 < 4) and r1 (4.5 < 9) are slack, so 0; y basic gives
	// 2 = 2·y_cut, so y_cut = 1, and x gives 3 = y_r2 + y_cut, y_r2 = 2.
	m := lp1().model(t)
	if st := m.Dual(); st != Optimal {
		t.Fatal(st)
	}
	if err := m.AddRow(-inf, 4, []int{0, 1}, []float64{1, 2}); err != nil {
		t.Fatal(err)
	}
	if m.NumRows() != 4 {
		t.Fatalf("rows = %d, want 4", m.NumRows())
	}
	_, rows := m.Basis()
	if rows[3] != Basic {
		t.Errorf("new row status = %v, want basic", rows[3])
	}
	if st := m.Dual(); st != Optimal {
		t.Fatal(st)
	}
	warm := m.Iterations()
	checkVec(t, "solution", m.Solution(nil), []float64{3, 0.5})
	checkVec(t, "duals", m.Duals(nil), []float64{0, 0, 2, 1})
	if !near(m.ObjectiveValue(), 10) {
		t.Errorf("objective = %v, want 10", m.ObjectiveValue())
	}

	// The same enlarged model solved cold.
	p := lp1()
	p.a = append(p.a, []float64{1, 2})
	p.rl = append(p.rl, -inf)
	p.ru = append(p.ru, 4)
	p.numRows++
	cold := p.model(t)
	if st := cold.Dual(); st != Optimal || !near(cold.ObjectiveValue(), 10) {
		t.Fatalf("cold: %v %v", st, cold.ObjectiveValue())
	}
	t.Logf("iterations: warm %d, cold %d", warm, cold.Iterations())
	if warm > cold.Iterations() {
		t.Errorf("warm start took %d iterations, cold %d", warm, cold.Iterations())
	}

	// Copying the optimal basis to a third model makes its solve immediate.
	cols, rows := m.Basis()
	other := p.model(t)
	other.SetBasis(cols, rows)
	gc, gr := other.Basis()
	for j := range cols {
		if gc[j] != cols[j] {
			t.Fatalf("basis columns %v, want %v", gc, cols)
		}
	}
	for i := range rows {
		if gr[i] != rows[i] {
			t.Fatalf("basis rows %v, want %v", gr, rows)
		}
	}
	if st := other.Dual(); st != Optimal || other.Iterations() != 0 {
		t.Errorf("solve from copied optimal basis: %v after %d iterations, want 0", st, other.Iterations())
	}
	checkVec(t, "solution from copied basis", other.Solution(nil), []float64{3, 0.5})
}

func TestBranchOnBounds(t *testing.T) {
	// lp1 plus the cut x + 2y ≤ 4 (optimum (3, 0.5), objective 10, see
	// TestWarmStartAddRow), then branch as branch-and-bound does.
	p := lp1()
	p.a = append(p.a, []float64{1, 2})
	p.rl = append(p.rl, -inf)
	p.ru = append(p.ru, 4)
	p.numRows++
	m := p.model(t)
	if st := m.Dual(); st != Optimal {
		t.Fatal(st)
	}
	for _, tc := range []struct {
		name   string
		j      int
		lo, hi float64
		x      []float64
		obj    float64
	}{
		// y ≤ 0: maximise 3x with x ≤ 3: (3,0), 9.
		{"y down", 1, 0, 0, []float64{3, 0}, 9},
		// y ≥ 1: the cut gives x ≤ 4 − 2y and 3x + 2y ≤ 12 − 4y, best at
		// y = 1, x = 2 (x+y = 3 ≤ 4, x+3y = 5 ≤ 9): 8.
		{"y up", 1, 1, inf, []float64{2, 1}, 8},
		// Restore y ∈ [0, ∞): back to (3, 0.5), 10.
		{"restore", 1, 0, inf, []float64{3, 0.5}, 10},
		// Fix x = 1: maximise 3 + 2y with 2y ≤ 3, y ≤ 3, 3y ≤ 8: y = 1.5, 6.
		{"fix x", 0, 1, 1, []float64{1, 1.5}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m.SetColumnBounds(tc.j, tc.lo, tc.hi)
			if lo, hi := m.ColumnBounds(tc.j); lo != tc.lo || hi != tc.hi {
				t.Errorf("bounds = [%v,%v], want [%v,%v]", lo, hi, tc.lo, tc.hi)
			}
			if st := m.Dual(); st != Optimal {
				t.Fatal(st)
			}
			checkVec(t, "solution", m.Solution(nil), tc.x)
			if !near(m.ObjectiveValue(), tc.obj) {
				t.Errorf("objective = %v, want %v", m.ObjectiveValue(), tc.obj)
			}
		})
	}
}

func TestRowBoundsAndObjective(t *testing.T) {
	m := lp1().model(t)
	// r0 to [−∞, 5]: (3, 2), 13 (see lp1).
	m.SetRowBounds(0, -inf, 5)
	if lo, hi := m.RowBounds(0); !math.IsInf(lo, -1) || hi != 5 {
		t.Errorf("row bounds = [%v,%v]", lo, hi)
	}
	if st := m.Dual(); st != Optimal || !near(m.ObjectiveValue(), 13) {
		t.Fatalf("%v %v, want optimal 13", st, m.ObjectiveValue())
	}
	// Objective x + 2y with r0 ≤ 5: y limited by r1 (x+3y ≤ 9) and r0;
	// vertices (3,2) 7, (0,3) 6, (3,0) 3 and r0∩r1: 2y = 4, y = 2, x = 3,
	// the same point: optimum (3,2), 7.
	m.SetObjective(0, 1)
	if m.Objective(0) != 1 || m.Objective(1) != 2 {
		t.Errorf("objective coefficients %v %v", m.Objective(0), m.Objective(1))
	}
	if st := m.Primal(); st != Optimal || !near(m.ObjectiveValue(), 7) {
		t.Fatalf("%v %v, want optimal 7", st, m.ObjectiveValue())
	}
	checkVec(t, "solution", m.Solution(nil), []float64{3, 2})
}

func TestAddAndDeleteColumns(t *testing.T) {
	m := lp1().model(t)
	m.Dual()
	// New column z ∈ [0,1] with objective 5 in r0 only: r0 becomes a
	// fractional knapsack x + y + z ≤ 4 with unit weights and x ≤ 3, z ≤ 1;
	// best value per unit first: z = 1 (5), x = 3 (3), y = 0: 14.
	err := m.AddColumns([]float64{0}, []float64{1}, []float64{5}, []int{0, 1}, []int{0}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if m.NumCols() != 3 {
		t.Fatalf("cols = %d", m.NumCols())
	}
	if cols, _ := m.Basis(); cols[2] == Basic {
		t.Errorf("new column is basic")
	}
	if st := m.Primal(); st != Optimal || !near(m.ObjectiveValue(), 14) {
		t.Fatalf("%v %v, want optimal 14", st, m.ObjectiveValue())
	}
	checkVec(t, "solution", m.Solution(nil), []float64{3, 0, 1})
	// Delete y (repeated index allowed): maximise 3x + 5z with x + z ≤ 4,
	// x ≤ 9, x ≤ 3, z ≤ 1: still (3, 1), 14.
	m.DeleteColumns([]int{1, 1})
	if m.NumCols() != 2 {
		t.Fatalf("cols = %d", m.NumCols())
	}
	if st := m.Dual(); st != Optimal || !near(m.ObjectiveValue(), 14) {
		t.Fatalf("%v %v, want optimal 14", st, m.ObjectiveValue())
	}
	checkVec(t, "solution", m.Solution(nil), []float64{3, 1})
}

func TestDeleteRows(t *testing.T) {
	m := lp1().model(t)
	m.Dual()
	m.AddRow(-inf, 4, []int{0, 1}, []float64{1, 2})
	if st := m.Dual(); st != Optimal || !near(m.ObjectiveValue(), 10) {
		t.Fatalf("%v %v", st, m.ObjectiveValue())
	}
	// Removing the cut restores lp1: 11.
	m.DeleteRows([]int{3})
	if m.NumRows() != 3 {
		t.Fatalf("rows = %d", m.NumRows())
	}
	if st := m.Dual(); st != Optimal || !near(m.ObjectiveValue(), 11) {
		t.Fatalf("%v %v, want optimal 11", st, m.ObjectiveValue())
	}
	// Removing r2 (x ≤ 3), given twice: x + y ≤ 4, x + 3y ≤ 9 with vertices
	// (4,0) 12, (1.5,2.5) 9.5, (0,3) 6: (4,0), 12.
	m.DeleteRows([]int{2, 2})
	if st := m.Dual(); st != Optimal || !near(m.ObjectiveValue(), 12) {
		t.Fatalf("%v %v, want optimal 12", st, m.ObjectiveValue())
	}
	checkVec(t, "solution", m.Solution(nil), []float64{4, 0})
	checkVec(t, "row activity", m.RowActivity(nil), []float64{4, 4})
}

func TestIterationLimit(t *testing.T) {
	// lp1's optimal basis has both structural columns basic, while the
	// starting slack basis has none, so any simplex method needs at least
	// two pivots: limits of 0 and 1 must stop it.
	for _, limit := range []int{0, 1} {
		for name, solve := range map[string]func(*Model) Status{"dual": (*Model).Dual, "primal": (*Model).Primal} {
			m := lp1().model(t)
			m.SetMaxIterations(limit)
			if st := solve(m); st != StoppedOnLimit {
				t.Errorf("%s with limit %d: status %v, want %v", name, limit, st, StoppedOnLimit)
			}
			if m.Iterations() > limit {
				t.Errorf("%s with limit %d: %d iterations", name, limit, m.Iterations())
			}
			// Removing the limit lets the solve finish.
			m.SetMaxIterations(-1)
			if st := solve(m); st != Optimal || !near(m.ObjectiveValue(), 11) {
				t.Errorf("%s after removing the limit: %v %v", name, st, m.ObjectiveValue())
			}
		}
	}
}

func TestTimeLimit(t *testing.T) {
	// A generous limit must not stop a small solve, including a second
	// solve after the first has used some of the time (the limit is per
	// solve).
	m := lp1().model(t)
	m.SetMaxSeconds(60)
	if st := m.Dual(); st != Optimal {
		t.Fatal(st)
	}
	m.SetColumnBounds(0, 0, 2)
	if st := m.Dual(); st != Optimal {
		t.Fatal(st)
	}
	m.SetMaxSeconds(0)
	if st := m.Dual(); st != Optimal {
		t.Fatal(st)
	}
}

func TestTolerances(t *testing.T) {
	m := lp1().model(t)
	m.SetPrimalTolerance(1e-9)
	m.SetDualTolerance(1e-9)
	if st := m.Dual(); st != Optimal || !near(m.ObjectiveValue(), 11) {
		t.Fatalf("%v %v", st, m.ObjectiveValue())
	}
}

func TestInfeasible(t *testing.T) {
	// Each model is infeasible by hand; the ray must be a certificate
	// (checked by lp.certificate, independently of FarkasGap).
	twoRows := newLP([][]float64{{1, 1}, {1, 1}}, nil, nil, nil,
		[]float64{-inf, 3}, []float64{1, inf}) // x+y ≤ 1 and x+y ≥ 3
	boxed := newLP([][]float64{{1, 1}}, []float64{0, 0}, []float64{2, 2}, []float64{1, 1},
		[]float64{5}, []float64{inf}) // x+y ≥ 5 with x, y ≤ 2
	equality := newLP([][]float64{{1, 2, 0}, {0, 1, 1}, {1, 0, -2}},
		[]float64{0, 0, 0}, []float64{10, 10, 10}, nil,
		// x + 2y = 4, y + z = 1 imply x − 2z = 4 − 2y − 2(1 − y) = 2,
		// contradicting x − 2z = 3.
		[]float64{4, 1, 3}, []float64{4, 1, 3})
	for _, tc := range []struct {
		name  string
		p     *lp
		sense Sense
	}{
		{"two rows", twoRows, Minimize},
		{"two rows max", twoRows, Maximize},
		{"boxed", boxed, Minimize},
		{"equality", equality, Minimize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.sense = tc.sense
			m := tc.p.model(t)
			if st := m.Dual(); st != PrimalInfeasible {
				t.Fatalf("status = %v, want primal infeasible", st)
			}
			if y := m.InfeasibilityRay(); y != nil {
				checkCertificate(t, tc.p, y)
				if g := m.FarkasGap(y); !(g > 0) {
					t.Errorf("FarkasGap = %v for a valid ray", g)
				}
			} else {
				t.Logf("CLP gave no ray")
			}
			y, ok := m.FarkasCertificate()
			if !ok {
				t.Fatal("no certificate")
			}
			checkCertificate(t, tc.p, y)
		})
	}
	// The sign convention on the documented example.
	m := twoRows.model(t)
	m.SetSense(Minimize)
	m.Dual()
	if y := m.InfeasibilityRay(); y != nil {
		if !(y[0] > 0 && y[1] < 0) {
			t.Errorf("ray %v, want y0 > 0 (≤ row) and y1 < 0 (≥ row)", y)
		}
	}
}

func TestInfeasibleAfterWarmStart(t *testing.T) {
	// lp1 solved, then the row x + y ≥ 5 contradicts r0 (x + y ≤ 4).
	p := lp1()
	m := p.model(t)
	m.Dual()
	if err := m.AddRow(5, inf, []int{0, 1}, []float64{1, 1}); err != nil {
		t.Fatal(err)
	}
	p.a = append(p.a, []float64{1, 1})
	p.rl = append(p.rl, 5)
	p.ru = append(p.ru, inf)
	p.numRows++
	if st := m.Dual(); st != PrimalInfeasible {
		t.Fatalf("status = %v", st)
	}
	y := m.InfeasibilityRay()
	if y == nil {
		t.Fatal("no ray")
	}
	checkCertificate(t, p, y)
	// Branching x ≥ 3.5 against r2 (x ≤ 3) after deleting the new row.
	m.DeleteRows([]int{3})
	p.a, p.rl, p.ru, p.numRows = p.a[:3], p.rl[:3], p.ru[:3], 3
	if st := m.Dual(); st != Optimal {
		t.Fatal(st)
	}
	m.SetColumnBounds(0, 3.5, inf)
	p.cl, p.cu = []float64{3.5, 0}, []float64{inf, inf}
	if st := m.Dual(); st != PrimalInfeasible {
		t.Fatalf("status = %v", st)
	}
	y, ok := m.FarkasCertificate()
	if !ok {
		t.Fatal("no certificate")
	}
	checkCertificate(t, p, y)
}

// randomLP returns a random model with integer-ish coefficients of varied
// magnitude; about half of them are infeasible.
func randomLP(rng *rand.Rand, boxed, zeroObj bool) *lp {
	nr, nc := 2+rng.IntN(8), 2+rng.IntN(8)
	a := make([][]float64, nr)
	for i := range a {
		a[i] = make([]float64, nc)
		for j := range a[i] {
			if rng.Float64() < 0.6 {
				a[i][j] = math.Round(rng.NormFloat64()*10) * math.Pow(10, float64(rng.IntN(5)-2))
			}
		}
	}
	rl, ru := make([]float64, nr), make([]float64, nr)
	for i := range rl {
		v := math.Round(rng.NormFloat64()*50) / 10
		switch rng.IntN(4) {
		case 0:
			rl[i], ru[i] = -inf, v
		case 1:
			rl[i], ru[i] = v, inf
		case 2:
			rl[i], ru[i] = v, v
		case 3:
			rl[i], ru[i] = v, v+math.Round(rng.Float64()*30)/10
		}
	}
	cl, cu, obj := make([]float64, nc), make([]float64, nc), make([]float64, nc)
	for j := range cl {
		k := 1
		if !boxed {
			k = rng.IntN(3)
		}
		switch k {
		case 0:
			cl[j], cu[j] = 0, inf
		case 1:
			cl[j], cu[j] = -math.Round(rng.Float64()*30)/10, math.Round(rng.Float64()*30)/10
		case 2:
			cl[j], cu[j] = -inf, inf
		}
		if !zeroObj {
			obj[j] = math.Round(rng.NormFloat64()*10) / 10
		}
	}
	p := newLP(a, cl, cu, obj, rl, ru)
	p.sense = Minimize
	if rng.IntN(2) == 0 {
		p.sense = Maximize
	}
	return p
}

func TestRandomInfeasibilityCertificates(t *testing.T) {
	for _, tc := range []struct {
		name           string
		boxed, zeroObj bool
		rayMustBeValid bool
	}{
		// The maximum-feasible-subsystem subproblem case: bounded columns,
		// no objective. CLP's ray from Dual was valid in every case tried.
		{"boxed feasibility", true, true, true},
		{"boxed with objective", true, false, false},
		{"free columns feasibility", false, true, false},
		{"free columns with objective", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 11))
			var infeasible, validRays, falseInfeasible int
			for range 300 {
				p := randomLP(rng, tc.boxed, tc.zeroObj)
				m := p.model(t)
				st := m.Dual()
				y, ok := m.FarkasCertificate()
				if ok {
					// A certificate is a proof, whatever CLP said.
					checkCertificate(t, p, y)
					infeasible++
					if st != PrimalInfeasible && st != StoppedOnErrors {
						t.Errorf("certified infeasible model solved with status %v", st)
					}
				}
				switch st {
				case PrimalInfeasible:
					if !ok {
						// CLP's claim was wrong (for models with an objective,
						// typically feasible but unbounded ones): the
						// feasibility problem, solved with Primal, has a
						// solution.
						falseInfeasible++
						q := *p
						q.obj = nil
						f := q.model(t)
						if st := f.Primal(); st != Optimal {
							t.Errorf("no certificate, but Primal says %v", st)
						} else if v := p.violation(f.Solution(nil)); v > 1e-5 {
							t.Errorf("Primal solution violates the constraints by %v", v)
						}
						f.Close()
						m.Close()
						continue
					}
					if ray := m.InfeasibilityRay(); ray != nil {
						if alpha, beta := p.certificate(ray); alpha > beta {
							validRays++
						} else if tc.rayMustBeValid {
							t.Errorf("invalid ray %v: alpha %v, beta %v", ray, alpha, beta)
						}
					}
				case Optimal:
					if ok {
						t.Errorf("certificate for a model solved to optimality")
					}
					if v := p.violation(m.Solution(nil)); v > 1e-5 {
						t.Errorf("optimal solution violates the constraints by %v", v)
					}
				}
				m.Close()
			}
			t.Logf("%d certified infeasible, %d valid CLP rays, %d false infeasibility claims by Dual",
				infeasible, validRays, falseInfeasible)
			if infeasible == 0 {
				t.Error("no infeasible models generated")
			}
			if tc.boxed && falseInfeasible > 0 {
				t.Errorf("%d false infeasibility claims with boxed columns", falseInfeasible)
			}
		})
	}
}

func TestDualFalseInfeasibility(t *testing.T) {
	// CLP 1.17's dual simplex declares this feasible model infeasible:
	//	r0: −1.1 x0 + 90 x3 ∈ [0.13, 2.51]
	//	r1: 0.09 x1 + 0.3 x2 + 2 x3 = −2
	//	x0, x3 free; x1, x2 ≥ 0
	// By hand, x = (−83, 0, 0, −1) is feasible: r0 = 91.3 − 90 = 1.3 and
	// r1 = −2. FarkasCertificate must not certify it, and Primal solves it.
	p := newLP([][]float64{{-1.1, 0, 0, 90}, {0, 0.09, 0.3, 2}},
		[]float64{-inf, 0, 0, -inf}, []float64{inf, inf, inf, inf}, nil,
		[]float64{0.13, -2}, []float64{2.51, -2})
	if v := p.violation([]float64{-83, 0, 0, -1}); v > 1e-12 {
		t.Fatalf("hand solution violates by %v", v)
	}
	m := p.model(t)
	st := m.Dual()
	t.Logf("Dual status %v (CLP 1.17 reports primal infeasible)", st)
	if _, ok := m.FarkasCertificate(); ok {
		t.Fatal("certificate for a feasible model")
	}
	if st := m.Primal(); st != Optimal {
		t.Fatalf("Primal status %v", st)
	}
	if v := p.violation(m.Solution(nil)); v > 1e-6 {
		t.Errorf("Primal solution violates by %v", v)
	}
}

func TestFarkasTrivial(t *testing.T) {
	// A row with lower bound above its upper bound, and a column likewise,
	// are infeasible whatever y is.
	p := newLP([][]float64{{1, 1}}, nil, nil, nil, []float64{2}, []float64{1})
	m := p.model(t)
	if g := m.FarkasGap([]float64{0}); !math.IsInf(g, 1) {
		t.Errorf("gap = %v, want +Inf", g)
	}
	if y, ok := m.FarkasCertificate(); !ok || len(y) != 1 {
		t.Errorf("certificate %v %v", y, ok)
	}
	q := newLP([][]float64{{1, 1}}, []float64{1, 0}, []float64{0, 1}, nil, []float64{-inf}, []float64{inf})
	m = q.model(t)
	if y, ok := m.FarkasCertificate(); !ok || len(y) != 1 {
		t.Errorf("certificate %v %v", y, ok)
	}
	// A feasible model has no certificate; y = 0 proves nothing.
	m = lp1().model(t)
	if _, ok := m.FarkasCertificate(); ok {
		t.Error("certificate for a feasible model")
	}
	if g := m.FarkasGap([]float64{0, 0, 0}); g != 0 {
		t.Errorf("gap of zero = %v", g)
	}
	// Weight on an infinite bound proves nothing: y0 < 0 uses r0's lower
	// bound −∞.
	if g := m.FarkasGap([]float64{-1, 0, 0}); !math.IsInf(g, -1) {
		t.Errorf("gap = %v, want −Inf", g)
	}
}

func TestFarkasIterations(t *testing.T) {
	// x+y ≤ 1 and x+y ≥ 3, not solved: CLP has no ray, so the certificate comes from
	// the elastic LP, which needs iterations (its slack basis violates both rows), is
	// stopped by the model's iteration limit, and reports what it spent.
	p := newLP([][]float64{{1, 1}, {1, 1}}, nil, nil, nil, []float64{-inf, 3}, []float64{1, inf})
	m := p.model(t)
	y, ok := m.FarkasCertificate()
	if !ok {
		t.Fatal("no certificate")
	}
	checkCertificate(t, p, y)
	if m.FarkasIterations() < 1 {
		t.Errorf("FarkasIterations = %d after the elastic LP, want ≥ 1", m.FarkasIterations())
	}
	m.SetMaxIterations(0)
	if _, ok := m.FarkasCertificate(); ok {
		t.Error("certificate with no iterations allowed")
	}
	if it := m.FarkasIterations(); it != 0 {
		t.Errorf("FarkasIterations = %d under a zero iteration limit", it)
	}
	// CLP's own ray needs no auxiliary LP.
	m.SetMaxIterations(-1)
	if st := m.Dual(); st != PrimalInfeasible {
		t.Fatalf("status %v", st)
	}
	if m.InfeasibilityRay() == nil {
		t.Fatal("CLP gave no ray: the ray case is not exercised")
	}
	if _, ok := m.FarkasCertificate(); !ok || m.FarkasIterations() != 0 {
		t.Errorf("certificate %v with %d auxiliary iterations, want CLP's ray and 0", ok, m.FarkasIterations())
	}
}

func TestUnbounded(t *testing.T) {
	// minimise −x (or maximise x) s.t. x − y ≤ 1, x, y ≥ 0: along (1,1) the
	// row keeps its value and x grows without bound.
	for _, sense := range []Sense{Minimize, Maximize} {
		p := newLP([][]float64{{1, -1}}, nil, nil, []float64{-1, 0}, []float64{-inf}, []float64{1})
		p.sense = sense
		if sense == Maximize {
			p.obj = []float64{1, 0}
		}
		for name, solve := range map[string]func(*Model) Status{"dual": (*Model).Dual, "primal": (*Model).Primal} {
			t.Run(sense.String()+"/"+name, func(t *testing.T) {
				m := p.model(t)
				if st := solve(m); st != DualInfeasible {
					t.Fatalf("status = %v, want dual infeasible", st)
				}
				r := m.UnboundedRay()
				if r == nil {
					t.Fatal("no ray")
				}
				// A recession direction: r ≥ 0 (columns bounded below only)
				// and (Ar)_0 = r0 − r1 ≤ 0 (row bounded above only); and an
				// improving one: sense·cᵀr < 0.
				improve := float64(sense) * (p.obj[0]*r[0] + p.obj[1]*r[1])
				if r[0] < -tol || r[1] < -tol || r[0]-r[1] > tol || improve >= -tol {
					t.Errorf("ray %v is not an improving recession direction", r)
				}
			})
		}
	}
}

func TestMPS(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lp1.mps")
	m := lp1().model(t)
	if err := m.WriteMPS(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasPrefix(text, "NAME") {
		t.Errorf("MPS file starts with %q", text[:min(20, len(text))])
	}
	last := -1
	for _, section := range []string{"\nROWS", "\nCOLUMNS", "\nRHS", "\nENDATA"} {
		k := strings.Index(text, section)
		if k <= last {
			t.Errorf("section %q missing or out of order", section[1:])
		}
		last = k
	}
	// Read back: the file is the minimisation of −3x − 2y (MPS has no
	// sense), so the optimum is the same point with objective −11.
	r := New()
	defer r.Close()
	if err := r.ReadMPS(path); err != nil {
		t.Fatal(err)
	}
	if r.NumRows() != 3 || r.NumCols() != 2 || r.Sense() != Minimize {
		t.Fatalf("read %d×%d %v", r.NumRows(), r.NumCols(), r.Sense())
	}
	if st := r.Dual(); st != Optimal || !near(r.ObjectiveValue(), -11) {
		t.Fatalf("%v %v, want optimal −11", st, r.ObjectiveValue())
	}
	checkVec(t, "solution", r.Solution(nil), []float64{3, 1})
	if lo, hi := r.ColumnBounds(0); lo != 0 || !math.IsInf(hi, 1) {
		t.Errorf("column bounds read back [%v,%v]", lo, hi)
	}

	// Errors, without CLP aborting or printing.
	if err := m.WriteMPS(filepath.Join(dir, "missing", "x.mps")); err == nil {
		t.Error("no error writing into a missing directory")
	}
	if err := r.ReadMPS(filepath.Join(dir, "missing.mps")); err == nil {
		t.Error("no error reading a missing file")
	}
	bad := filepath.Join(dir, "bad.mps")
	os.WriteFile(bad, []byte("this is\nnot MPS\n"), 0o644)
	if err := r.ReadMPS(bad); err == nil {
		t.Error("no error reading a malformed file")
	}
}

func TestLoadErrors(t *testing.T) {
	m := New()
	defer m.Close()
	if cols, rows := m.Basis(); cols != nil || rows != nil {
		t.Errorf("basis of a new model: %v %v", cols, rows)
	}
	nan := math.NaN()
	for _, tc := range []struct {
		name     string
		start    []int
		index    []int
		value    []float64
		obj, rlo []float64
	}{
		{"start not zero", []int{1, 1}, []int{0}, []float64{1}, nil, nil},
		{"last start", []int{0, 2}, []int{0}, []float64{1}, nil, nil},
		{"decreasing", []int{0, 1, 0, 1}, []int{0}, []float64{1}, nil, nil},
		{"past end", []int{0, 3, 1}, []int{0}, []float64{1}, nil, nil},
		{"row out of range", []int{0, 1}, []int{2}, []float64{1}, nil, nil},
		{"negative row", []int{0, 1}, []int{-1}, []float64{1}, nil, nil},
		{"repeated row", []int{0, 2}, []int{0, 0}, []float64{1, 2}, nil, nil},
		{"NaN value", []int{0, 1}, []int{0}, []float64{nan}, nil, nil},
		{"Inf value", []int{0, 1}, []int{0}, []float64{inf}, nil, nil},
		{"NaN objective", []int{0, 1}, []int{0}, []float64{1}, []float64{nan}, nil},
		{"NaN bound", []int{0, 1}, []int{0}, []float64{1}, nil, []float64{nan, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ncols := len(tc.start) - 1
			var obj []float64
			if tc.obj != nil && ncols == 1 {
				obj = tc.obj
			}
			if err := m.LoadProblem(2, tc.start, tc.index, tc.value, nil, nil, obj, tc.rlo, nil); err == nil {
				t.Error("no error")
			}
			if m.NumRows() != 0 || m.NumCols() != 0 {
				t.Error("model changed")
			}
		})
	}
	// Defaults: nil bounds and objective.
	if err := m.LoadProblem(1, []int{0, 1}, []int{0}, []float64{1}, nil, nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if lo, hi := m.ColumnBounds(0); lo != 0 || !math.IsInf(hi, 1) {
		t.Errorf("default column bounds [%v,%v]", lo, hi)
	}
	if lo, hi := m.RowBounds(0); !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		t.Errorf("default row bounds [%v,%v]", lo, hi)
	}
	if m.Objective(0) != 0 {
		t.Errorf("default objective %v", m.Objective(0))
	}
	// AddRows and AddColumns validate against the model's dimensions.
	if err := m.AddRow(0, 1, []int{1}, []float64{1}); err == nil {
		t.Error("AddRow accepted column 1 of a 1-column model")
	}
	if err := m.AddColumns([]float64{0}, []float64{1}, []float64{0}, []int{0, 1}, []int{1}, []float64{1}); err == nil {
		t.Error("AddColumns accepted row 1 of a 1-row model")
	}
	if m.NumRows() != 1 || m.NumCols() != 1 {
		t.Error("model changed")
	}
	// Empty additions and an empty model are fine.
	if err := m.AddRows(nil, nil, []int{0}, nil, nil); err != nil {
		t.Error(err)
	}
	if err := m.LoadProblem(0, []int{0}, nil, nil, nil, nil, nil, nil, nil); err != nil {
		t.Error(err)
	}
	if st := m.Dual(); st != Optimal {
		t.Errorf("empty model: %v", st)
	}
	if len(m.Solution(nil)) != 0 || len(m.Duals(nil)) != 0 {
		t.Error("results of an empty model")
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", name)
		}
	}()
	f()
}

func TestPanics(t *testing.T) {
	m := lp1().model(t)
	mustPanic(t, "colStart empty", func() { m.LoadProblem(1, nil, nil, nil, nil, nil, nil, nil, nil) })
	mustPanic(t, "bound length", func() { m.LoadProblem(1, []int{0}, nil, nil, []float64{1}, nil, nil, nil, nil) })
	mustPanic(t, "index/value length", func() { m.LoadProblem(1, []int{0, 1}, []int{0}, nil, nil, nil, nil, nil, nil) })
	mustPanic(t, "rowStart length", func() { m.AddRows([]float64{0}, []float64{1}, []int{0}, nil, nil) })
	mustPanic(t, "column index", func() { m.SetColumnBounds(2, 0, 1) })
	mustPanic(t, "row index", func() { m.RowBounds(-1) })
	mustPanic(t, "NaN bound", func() { m.SetRowBounds(0, math.NaN(), 1) })
	mustPanic(t, "delete row", func() { m.DeleteRows([]int{3}) })
	mustPanic(t, "basis length", func() { m.SetBasis(nil, nil) })
	mustPanic(t, "ray length", func() { m.FarkasGap([]float64{1}) })
	mustPanic(t, "sense", func() { m.SetSense(0) })

	m.Close()
	m.Close() // idempotent
	mustPanic(t, "use after Close", func() { m.Dual() })
	mustPanic(t, "use after Close", func() { m.NumRows() })
}

func TestUnclosedModelsAreCollected(t *testing.T) {
	// Exercise the cleanup safety net; it must not crash or double free
	// models that were closed.
	for i := range 100 {
		m := New()
		m.LoadProblem(1, []int{0, 1}, []int{0}, []float64{1}, nil, nil, nil, nil, []float64{1})
		if i%2 == 0 {
			m.Close()
		}
	}
	for range 3 {
		runtime.GC()
	}
}

func TestConcurrentModels(t *testing.T) {
	// Independent models in parallel goroutines give the sequential
	// results.
	rng := rand.New(rand.NewPCG(3, 5))
	var ps []*lp
	var want []Status
	var wantObj []float64
	for range 40 {
		p := randomLP(rng, true, false)
		m := p.model(t)
		ps = append(ps, p)
		want = append(want, m.Dual())
		wantObj = append(wantObj, m.ObjectiveValue())
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(ps))
	for range 8 {
		wg.Go(func() {
			for k, p := range ps {
				m := New()
				start, index, value := p.csc()
				m.LoadProblem(p.numRows, start, index, value, p.cl, p.cu, p.obj, p.rl, p.ru)
				m.SetSense(p.sense)
				st := m.Dual()
				if st != want[k] || (st == Optimal && !near(m.ObjectiveValue(), wantObj[k])) {
					errs <- "different result"
				}
				m.Close()
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Optimal.String(), "optimal"},
		{PrimalInfeasible.String(), "primal infeasible"},
		{DualInfeasible.String(), "dual infeasible (unbounded)"},
		{StoppedOnLimit.String(), "stopped on iteration or time limit"},
		{StoppedOnErrors.String(), "stopped due to errors"},
		{StoppedByEvent.String(), "stopped by event handler"},
		{Unknown.String(), "unknown"},
		{Status(42).String(), "Status(42)"},
		{Maximize.String(), "maximize"},
		{Minimize.String(), "minimize"},
		{Basic.String(), "basic"},
		{AtLower.String(), "at lower"},
		{BasisStatus(9).String(), "BasisStatus(9)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestBLASSerial: where OpenBLAS is the LAPACK under CLP, init has set it to one thread.
func TestBLASSerial(t *testing.T) {
	n := blasThreads()
	if n < 0 {
		t.Skip("CLP's LAPACK is not OpenBLAS here")
	}
	if n != 1 {
		t.Fatalf("OpenBLAS runs %d threads, want 1", n)
	}
}

func TestLagrangianBound(t *testing.T) {
	// minimise x + y s.t. x + y ≥ 2, 0 ≤ x, y ≤ 5: optimum 2. By hand, L(y) = 2y +
	// 2·min(0, 5(1 − y)): y = 1 gives 2, y = 0.5 gives 1, y = 2 gives 4 − 10 = −6, and a
	// negative y on the row's infinite upper bound counts as 0 (L = 0).
	p := newLP([][]float64{{1, 1}}, []float64{0, 0}, []float64{5, 5}, []float64{1, 1}, []float64{2}, []float64{inf})
	m := p.model(t)
	for _, c := range []struct{ y, want float64 }{{1, 2}, {0.5, 1}, {2, -6}, {-1, 0}} {
		if got := m.LagrangianBound([]float64{c.y}); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("L(%g) = %g, want %g", c.y, got, c.want)
		}
	}
	// A free column whose reduced cost is not zero makes the bound −Inf.
	q := newLP([][]float64{{1, 1}}, []float64{-inf, 0}, []float64{inf, 5}, []float64{1, 1}, []float64{2}, []float64{inf})
	if got := q.model(t).LagrangianBound([]float64{0.5}); !math.IsInf(got, -1) {
		t.Errorf("free column: L = %g, want −Inf", got)
	}
	// Random minimisations: at the optimal duals L is the optimum; at any other y it is
	// below it (weak duality).
	rng := rand.New(rand.NewPCG(5, 6))
	solved := 0
	for range 300 {
		p := randomLP(rng, true, false)
		p.sense = Minimize
		m := p.model(t)
		if m.Dual() != Optimal {
			continue
		}
		solved++
		opt := m.ObjectiveValue()
		y := m.Duals(nil)
		if got := m.LagrangianBound(y); math.Abs(got-opt) > 1e-7*(1+math.Abs(opt)) {
			t.Fatalf("L(optimal duals) = %g, optimum %g", got, opt)
		}
		for range 5 {
			z := make([]float64, len(y))
			for i := range z {
				z[i] = y[i] + rng.NormFloat64()
			}
			if got := m.LagrangianBound(z); got > opt+1e-9*(1+math.Abs(opt)) {
				t.Fatalf("L(y) = %g above the optimum %g", got, opt)
			}
		}
	}
	if solved < 50 {
		t.Errorf("only %d of 300 random models solved: the test exercises little", solved)
	}
}

// TestFarkasExact checks certificates whose terms cancel within 1e-9 of their scale,
// where only exact arithmetic tells a proof from a near miss.
func TestFarkasExact(t *testing.T) {
	certifies := func(m *Model, y []float64) bool {
		s := m.snapshot(m.ptr())
		return s.certifies(y)
	}
	// x ∈ [0, 1], r0: 1e8·x ≥ 5e7 + δ, r1: 1e8·x ≤ 5e7, y = (−1, 1): Aᵀy = 0, α = 0,
	// β = −δ by hand, so α − β = δ against terms of scale 1e8.
	rows := func(delta float64) (*Model, float64) {
		p := newLP([][]float64{{1e8}, {1e8}}, []float64{0}, []float64{1}, nil,
			[]float64{5e7 + delta, -inf}, []float64{inf, 5e7})
		m := p.model(t)
		return m, m.FarkasGap([]float64{-1, 1})
	}
	// δ = 0.025: 2.5e-10 of the scale, below the floating-point check's 1e-9, above the
	// exact check's 1e-12: a proof.
	m, g := rows(0.025)
	if !(g > 0 && g <= 1e-9*(1+2e8)) {
		t.Fatalf("floating-point gap %v: the case needs one within 1e-9 of the scale", g)
	}
	if !certifies(m, []float64{-1, 1}) {
		t.Error("gap 0.025 at scale 1e8 not certified")
	}
	// δ = 2^-26 (two units in the last place of 5e7): exactly positive, but 1.5e-16 of
	// the scale, the data's own rounding: no proof.
	m, _ = rows(0x1p-26)
	if certifies(m, []float64{-1, 1}) {
		t.Error("gap 2^-26 at scale 1e8 certified")
	}
	// r0: x ≤ 1, r1: −2x ≤ 1e17, r2: −x ≥ 1e17 with y = (1, 1, −1): Aᵀy = 0,
	// β = 1 + 1e17 − 1e17 = 1 by hand, α − β = −1: no proof, though in floating point
	// 1 + 1e17 rounds to 1e17 and the gap to 0.
	q := newLP([][]float64{{1}, {-2}, {-1}}, []float64{0}, []float64{1}, nil,
		[]float64{-inf, -inf, 1e17}, []float64{1, 1e17, inf})
	mq := q.model(t)
	z := []float64{1, 1, -1}
	if g := mq.FarkasGap(z); g != 0 {
		t.Fatalf("floating-point gap %v, want 0", g)
	}
	if certifies(mq, z) {
		t.Error("exact gap −1 certified")
	}
	// x ∈ [0, 1], r0: x ≥ 2, r1: x ≥ 0 (lower bounds only). y = (−1, 0.5) weighs r1's
	// infinite upper bound: no proof as it stands; with that entry zeroed (signed),
	// y = (−1, 0): Aᵀy = −1, α = min(−1·0, −1·1) = −1, β = −1·2 = −2, α − β = 1.
	w := newLP([][]float64{{1}, {1}}, []float64{0}, []float64{1}, nil,
		[]float64{2, 0}, []float64{inf, inf})
	mw := w.model(t)
	if g := mw.FarkasGap([]float64{-1, 0.5}); !math.IsInf(g, -1) {
		t.Fatalf("gap %v, want −Inf for weight on an infinite bound", g)
	}
	sw := mw.snapshot(mw.ptr())
	if yw := sw.signed([]float64{-1, 0.5}); !slices.Equal(yw, []float64{-1, 0}) || !sw.certifies(yw) {
		t.Errorf("signed: %v, certifies %v; want (−1, 0), a proof", yw, sw.certifies(yw))
	}
	// x free, r0: x ≥ 1, r1: (1 + 2^-52)·x ≤ 1 − 1e-10 (feasible: x = 1 − 2e-10).
	// y = (−1, 1): Aᵀy = 2^-52 on x's infinite upper bound, dropped as rounding in
	// floating point, where the gap 1e-10 is below its threshold; exactly, a non-zero
	// Aᵀy on a free side is no proof, however small.
	r := newLP([][]float64{{1}, {1 + 0x1p-52}}, []float64{-inf}, []float64{inf}, nil,
		[]float64{1, -inf}, []float64{inf, 1 - 1e-10})
	mr := r.model(t)
	if certifies(mr, []float64{-1, 1}) {
		t.Error("certified with Aᵀy = 2^-52 on a free column")
	}
	// A small Aᵀy on a finite bound is weighed, not dropped as rounding (a black-box
	// review's case): x1, x2 ∈ [−1, 1], r0: 1000·x1 − 1000·x2 ≥ 1e-4, r1: 1000(1 −
	// 1e-9)·x1 − 1000·x2 ≤ 1e-4 − 5e-7, feasible (x1 = 1, x2 = 1 − 1e-7 − 1e-10 by
	// hand). y = (−1, 1): Aᵀy = (−1e-6, 0), within 1e-9 of its terms; β = −5e-7; dropped,
	// α − β = 5e-7 looked like a proof, weighed on x1's upper bound it is −5e-7.
	fz := newLP([][]float64{{1000, -1000}, {1000 * (1 - 1e-9), -1000}}, []float64{-1, -1}, []float64{1, 1}, nil,
		[]float64{1e-4, -inf}, []float64{inf, 1e-4 - 5e-7})
	if v := fz.violation([]float64{1, 1 - 1e-7 - 1e-10}); v > 0 {
		t.Fatalf("hand solution violates by %v", v)
	}
	if certifies(fz.model(t), []float64{-1, 1}) {
		t.Error("certified a feasible model: Aᵀy dropped on a finite bound")
	}
	// Infeasible by 0.025 in rows of scale 1e8: 1e8·x ≥ 5e7 + 0.025 and 1e8·x ≤ 5e7,
	// x ∈ [0, 1], under the search's primal tolerance 1e-10. CLP calls it infeasible
	// (with a ray), but the floating-point check needs a gap above 1e-9 of the terms'
	// 1e8, so only the exact one certifies it; the certificate must have y0 < 0 < y1,
	// and its gap, recomputed here in exact arithmetic, must be positive.
	lo := 5e7 + 0.025
	e := newLP([][]float64{{1e8}, {1e8}}, []float64{0}, []float64{1}, nil,
		[]float64{lo, -inf}, []float64{inf, 5e7})
	me := e.model(t)
	me.SetPrimalTolerance(1e-10)
	if st := me.Dual(); st != PrimalInfeasible {
		t.Fatalf("CLP status %v, want primal infeasible (the case needs CLP to see it)", st)
	}
	ye, ok := me.FarkasCertificate()
	if !ok {
		t.Fatal("no certificate for rows infeasible by 0.025 at scale 1e8")
	}
	if !(ye[0] < 0 && ye[1] > 0) {
		t.Fatalf("certificate %v: want y0 < 0 < y1", ye)
	}
	y0, y1 := new(big.Rat).SetFloat64(ye[0]), new(big.Rat).SetFloat64(ye[1])
	d := new(big.Rat).Mul(new(big.Rat).Add(y0, y1), big.NewRat(1e8, 1))
	alpha := new(big.Rat) // min(d·0, d·1)
	if d.Sign() < 0 {
		alpha.Set(d)
	}
	beta := new(big.Rat).Add(new(big.Rat).Mul(y0, new(big.Rat).SetFloat64(lo)), new(big.Rat).Mul(y1, big.NewRat(5e7, 1)))
	if alpha.Cmp(beta) <= 0 {
		t.Errorf("certificate %v: α %v ≤ β %v in exact arithmetic", ye, alpha.FloatString(12), beta.FloatString(12))
	}
}

// TestFarkasElasticUnscaled: the θ-LP of a choquet2 search (50 CENSUS records on six
// heavy-tailed attributes, testdata/choquet2-elastic.json, the model's float64 data
// exactly) is infeasible, but the elastic problem solved with CLP's scaling of the
// matrix ends "optimal" with duals that are no certificate. FarkasCertificate must still
// return one; its gap is recomputed here in exact arithmetic from the file's data.
func TestFarkasElasticUnscaled(t *testing.T) {
	m, d := loadElasticCase(t)
	value, cl, cu, rl, ru := d.value, d.cl, d.cu, d.rl, d.ru
	m.SetPrimalTolerance(1e-10) // the search's
	y, ok := m.FarkasCertificate()
	if !ok {
		t.Fatal("no certificate")
	}
	// α − β exactly: α = Σ_j min(d_j·cl_j, d_j·cu_j) with d = Aᵀy, β = Σ_i max(y_i·rl_i,
	// y_i·ru_i); every bound weighed must be finite.
	rat := func(x float64) *big.Rat {
		if math.IsInf(x, 0) {
			t.Fatalf("certificate weighs an infinite bound")
		}
		return new(big.Rat).SetFloat64(x)
	}
	gap := new(big.Rat)
	for i, v := range y {
		switch {
		case v > 0:
			gap.Sub(gap, new(big.Rat).Mul(rat(v), rat(ru[i])))
		case v < 0:
			gap.Sub(gap, new(big.Rat).Mul(rat(v), rat(rl[i])))
		}
	}
	for j := range d.Nc {
		dj := new(big.Rat)
		for k := d.Start[j]; k < d.Start[j+1]; k++ {
			if v := y[d.Index[k]]; v != 0 {
				dj.Add(dj, new(big.Rat).Mul(rat(v), rat(value[k])))
			}
		}
		switch dj.Sign() {
		case 1:
			gap.Add(gap, new(big.Rat).Mul(dj, rat(cl[j])))
		case -1:
			gap.Add(gap, new(big.Rat).Mul(dj, rat(cu[j])))
		}
	}
	if gap.Sign() <= 0 {
		t.Errorf("α − β = %s ≤ 0: not a certificate", gap.FloatString(12))
	}
}

// elasticCase is optimize/clp/testdata/choquet2-elastic.json: a θ-LP whose elastic
// problem's duals verify only when it is re-solved without scaling.
type elasticCase struct {
	Nr, Nc                int
	Start, Index          []int
	Value, Cl, Cu, Rl, Ru []string // strconv's shortest round-trip form, ±Inf

	value, cl, cu, rl, ru []float64
}

// loadElasticCase loads the elastic case into a new model (closed with the test).
func loadElasticCase(t *testing.T) (*Model, *elasticCase) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "choquet2-elastic.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := new(elasticCase)
	if err := json.Unmarshal(data, d); err != nil {
		t.Fatal(err)
	}
	num := func(v []string) []float64 {
		out := make([]float64, len(v))
		for i, s := range v {
			if out[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	d.value, d.cl, d.cu, d.rl, d.ru = num(d.Value), num(d.Cl), num(d.Cu), num(d.Rl), num(d.Ru)
	m := New()
	t.Cleanup(m.Close)
	if err := m.LoadProblem(d.Nr, d.Start, d.Index, d.value, d.cl, d.cu, make([]float64, d.Nc), d.rl, d.ru); err != nil {
		t.Fatal(err)
	}
	return m, d
}

// TestFarkasSharedTimeLimit: the elastic problem's solves share the model's time limit.
// The elastic case needs its second (unscaled) solve for a certificate: with time left
// it has one; with the limit spent by the first solve, no second solve is made, so none.
func TestFarkasSharedTimeLimit(t *testing.T) {
	m, _ := loadElasticCase(t)
	s := m.snapshot(m.ptr())
	const tol, seconds, iterations = 1e-10, 60, 1 << 30
	if _, ok, _ := s.elasticCertificate(tol, seconds, func() float64 { return 0 }, iterations); !ok {
		t.Fatal("no certificate with time left")
	}
	reads := 0
	spentAfterFirst := func() float64 {
		reads++
		if reads == 1 {
			return 0
		}
		return seconds
	}
	if y, ok, _ := s.elasticCertificate(tol, seconds, spentAfterFirst, iterations); ok || y != nil {
		t.Errorf("a certificate (%d entries) after the time limit was spent", len(y))
	}
	if reads != 2 {
		t.Errorf("the clock was read %d times, want 2 (before each of the two solves)", reads)
	}
}

// TestDualAfterFreeingRows: rows switched off by freeing both bounds after a solve (as a
// search switches records off) and the model re-solved by Dual from its basis must give
// what a fresh solve of the freed model gives. A freed row's slack left nonbasic is a
// free nonbasic variable, which CLP 1.17's dual simplex does not allow (an assertion in
// ClpSimplexDual::dualColumn0 aborted a Choquet search).
func TestDualAfterFreeingRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	compared := 0
	for range 400 {
		p := randomLP(rng, true, false)
		m := p.model(t)
		if m.Dual() != Optimal {
			continue
		}
		_, rows := m.Basis()
		freed := *p
		freed.rl, freed.ru = append([]float64(nil), p.rl...), append([]float64(nil), p.ru...)
		n := 0
		for i, s := range rows {
			if s != Basic && rng.IntN(2) == 0 {
				m.SetRowBounds(i, -inf, inf)
				freed.rl[i], freed.ru[i] = -inf, inf
				n++
			}
		}
		if n == 0 {
			continue
		}
		st := m.Dual()
		fresh := freed.model(t)
		want := fresh.Primal()
		if st != want {
			t.Errorf("freed %d rows: Dual from the basis %v, fresh Primal %v", n, st, want)
			continue
		}
		if st == Optimal {
			compared++
			if !near(m.ObjectiveValue(), fresh.ObjectiveValue()) {
				t.Errorf("freed %d rows: objective %v from the basis, %v fresh", n, m.ObjectiveValue(), fresh.ObjectiveValue())
			}
			if v := freed.violation(m.Solution(nil)); v > 1e-7 {
				t.Errorf("freed %d rows: the solution from the basis violates the model by %v", n, v)
			}
		}
	}
	if compared < 100 {
		t.Errorf("only %d optimal re-solves compared", compared)
	}
}

// TestCopy: a copy solves to lp1's optimum by hand (x = 3, y = 1, objective 11) and is
// independent of its original.
func TestCopy(t *testing.T) {
	m := lp1().model(t)
	c := m.Copy()
	defer c.Close()
	if c.NumRows() != 3 || c.NumCols() != 2 || c.Sense() != Maximize {
		t.Fatalf("copy: %d rows, %d columns, sense %v", c.NumRows(), c.NumCols(), c.Sense())
	}
	c.SetRowBounds(2, -inf, 4) // r2: x ≤ 4 in the copy only: by hand (4, 0), objective 12
	if c.Dual() != Optimal || !near(c.ObjectiveValue(), 12) {
		t.Errorf("copy with x ≤ 4: objective %v, want 12", c.ObjectiveValue())
	}
	if m.Dual() != Optimal || !near(m.ObjectiveValue(), 11) {
		t.Errorf("original after the copy changed: objective %v, want 11", m.ObjectiveValue())
	}
}
