package optimize

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/reid-sdc/reid/optimize/clp"
	"gonum.org/v1/gonum/floats"
)

// gameCase is a θ-LP over the simplex: rows a_r·θ ≥ lo for the rows switched on.
type gameCase struct {
	m    int
	rows [][]float64
	lo   float64
}

// randomGame draws rows of the shape of the search's: differences of diff vectors, here
// normal or (to provoke ties and degenerate bases) small integers, some rows repeated.
func randomGame(rng *rand.Rand, m, r int, integer bool) gameCase {
	g := gameCase{m: m, lo: 1e-4 + 1e-7}
	for range r {
		row := make([]float64, m)
		if len(g.rows) > 0 && rng.IntN(8) == 0 {
			copy(row, g.rows[rng.IntN(len(g.rows))])
		} else {
			for k := range row {
				if integer {
					row[k] = float64(rng.IntN(5) - 2)
				} else {
					row[k] = rng.NormFloat64() + 0.3
				}
			}
		}
		g.rows = append(g.rows, row)
	}
	return g
}

// csr is the rows in the AddRows layout, each at lower bound lo.
func (c gameCase) csr(lo float64) (lower, upper []float64, start, idx []int, val []float64) {
	start = []int{0}
	for _, row := range c.rows {
		for k, v := range row {
			if v != 0 {
				idx = append(idx, k)
				val = append(val, v)
			}
		}
		start = append(start, len(idx))
		lower, upper = append(lower, lo), append(upper, math.Inf(1))
	}
	return
}

// clpValue solves max v s.t. a_r·θ − v ≥ 0 (rows on), Σθ = 1, θ ≥ 0 with CLP: the game's
// value by a second implementation, and whether the rows at lo are feasible.
func clpValue(t *testing.T, c gameCase, on []bool) (value float64, feasible bool) {
	t.Helper()
	lp := clp.New()
	defer lp.Close()
	lp.SetLogLevel(0)
	m := c.m
	lo, up, obj := make([]float64, m+1), make([]float64, m+1), make([]float64, m+1)
	for k := range m {
		up[k] = 1
	}
	lo[m], up[m], obj[m] = math.Inf(-1), math.Inf(1), -1 // minimise −v
	if err := lp.LoadProblem(0, make([]int, m+2), nil, nil, lo, up, obj, nil, nil); err != nil {
		t.Fatal(err)
	}
	all := make([]int, m)
	ones := make([]float64, m)
	for k := range m {
		all[k], ones[k] = k, 1
	}
	if err := lp.AddRow(1, 1, all, ones); err != nil {
		t.Fatal(err)
	}
	for r, row := range c.rows {
		if !on[r] {
			continue
		}
		idx := append(append([]int(nil), all...), m)
		val := append(append([]float64(nil), row...), -1)
		if err := lp.AddRow(0, math.Inf(1), idx, val); err != nil {
			t.Fatal(err)
		}
	}
	if st := lp.Primal(); st != clp.Optimal {
		t.Fatalf("CLP: %v", st)
	}
	v := -lp.ObjectiveValue()
	return v, v >= c.lo
}

// checkGame compares gameLP's answer on the rows switched on with CLP's value, and checks
// θ or the certificate directly.
func checkGame(t *testing.T, name string, g *gameLP, c gameCase, on []bool) {
	t.Helper()
	st := g.Dual()
	anyOn := false
	for _, o := range on {
		anyOn = anyOn || o
	}
	value, feasible := math.Inf(1), true // no rows: v unbounded
	if anyOn {
		value, feasible = clpValue(t, c, on)
	}
	// Within 1e-9 of the threshold either answer is right (CLP's own tolerance).
	knife := math.Abs(value-c.lo) < 1e-9
	switch st {
	case clp.Optimal:
		if !feasible && !knife {
			t.Fatalf("%s: gameLP feasible, CLP's value %.12g < %.12g", name, value, c.lo)
		}
		theta := g.Solution(nil)
		sum, least := 0.0, math.Inf(1)
		for k, v := range theta {
			if v < 0 {
				t.Fatalf("%s: θ[%d] = %g < 0", name, k, v)
			}
			sum += v
		}
		for r, row := range c.rows {
			if on[r] {
				least = min(least, floats.Dot(theta, row))
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("%s: Σθ = %.15g", name, sum)
		}
		if math.IsInf(least, 1) {
			return // no rows on
		}
		// θ is the maximin point: its least margin is the game's value.
		if math.Abs(least-value) > 1e-9*(1+math.Abs(value)) {
			t.Fatalf("%s: θ's least margin %.12g, the game's value %.12g", name, least, value)
		}
	case clp.PrimalInfeasible:
		if feasible && !knife {
			t.Fatalf("%s: gameLP infeasible, CLP's value %.12g ≥ %.12g", name, value, c.lo)
		}
		y, ok := g.FarkasCertificate()
		if !ok {
			t.Fatalf("%s: infeasible without a certificate", name)
		}
		sum := make([]float64, c.m)
		mass := 0.0
		for r, v := range y {
			if v < 0 {
				t.Fatalf("%s: y[%d] = %g < 0", name, r, v)
			}
			if v > 0 && !on[r] {
				t.Fatalf("%s: the certificate uses row %d, which is off", name, r)
			}
			for k := range sum {
				sum[k] += v * (c.rows[r][k] - c.lo)
			}
			mass += v
		}
		for k, s := range sum {
			if !(s < 0) || mass <= 0 {
				t.Fatalf("%s: Σ y (a − lo) = %g at %d (mass %g): not a certificate", name, s, k, mass)
			}
		}
	default:
		t.Fatalf("%s: status %v", name, st)
	}
}

func TestGameLPAgainstCLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 448 {
		m := []int{2, 3, 5, 13}[trial%4]
		r := []int{1, 2, 4, 12, 40, 150, 900}[trial/4%7] // 900: price scans in chunks
		c := randomGame(rng, m, r, trial%3 == 0)
		if r == 900 && trial/28%2 == 0 { // every m, shifted or not in turn
			// So many random rows leave no θ: shifted up, the solve runs to its
			// optimum (the maximin θ, checked against CLP's value) through every chunk.
			for _, row := range c.rows {
				for k := range row {
					row[k] += 2.5
				}
			}
		}
		g := newGameLP(m)
		lower, upper, start, idx, val := c.csr(c.lo)
		if err := g.AddRows(lower, upper, start, idx, val); err != nil {
			t.Fatal(err)
		}
		on := make([]bool, r)
		for x := range on {
			on[x] = true
		}
		checkGame(t, "cold", g, c, on)
		// Warm re-solves after switching rows off and on, as the deletion filter and the
		// search's activations do.
		for step := range 12 {
			x := rng.IntN(r)
			on[x] = !on[x]
			lo := c.lo
			if !on[x] {
				lo = math.Inf(-1)
			}
			g.SetRowBounds(x, lo, math.Inf(1))
			checkGame(t, "warm step "+string(rune('a'+step)), g, c, on)
		}
	}
}

// TestGameLPSimplexRow: the simplex row is accepted as a structural row that never enters
// a certificate, and row numbers stay the caller's.
func TestGameLPSimplexRow(t *testing.T) {
	g := newGameLP(2)
	// Row 0: θ1 + θ2 = 1; row 1: θ1 − θ2 ≥ 0.5; row 2: θ2 − θ1 ≥ 0.5 (incompatible).
	if err := g.AddRows([]float64{1, 0.5, 0.5}, []float64{1, math.Inf(1), math.Inf(1)},
		[]int{0, 2, 4, 6}, []int{0, 1, 0, 1, 0, 1}, []float64{1, 1, 1, -1, -1, 1}); err != nil {
		t.Fatal(err)
	}
	if g.NumRows() != 3 {
		t.Fatalf("NumRows = %d, want 3", g.NumRows())
	}
	if st := g.Dual(); st != clp.PrimalInfeasible {
		t.Fatalf("status %v, want infeasible", st)
	}
	y, _ := g.FarkasCertificate()
	if y[0] != 0 || y[1] <= 0 || y[2] <= 0 {
		t.Fatalf("certificate %v: want weight on rows 1 and 2 only", y)
	}
	// Row 2 off: θ1 − θ2 ≥ 0.5 on the simplex; the maximin θ is (1, 0).
	g.SetRowBounds(2, math.Inf(-1), math.Inf(1))
	if st := g.Dual(); st != clp.Optimal {
		t.Fatalf("status %v, want optimal", st)
	}
	if th := g.Solution(nil); math.Abs(th[0]-1) > 1e-12 || math.Abs(th[1]) > 1e-12 {
		t.Fatalf("θ = %v, want (1, 0)", th)
	}
}

// The PSD game replaces strategies in place (setColumn): the inverse updated by
// Sherman–Morrison equals the one recomputed from the basis, and the warm re-solve
// (dualPhase, then the primal simplex) reaches the optimal value of a cold solve of a new
// game with the same coefficients.
func TestGameLPSetColumn(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const m = 5
	c := randomGame(rng, m, 30, false)
	g := newGameLP(m)
	g.toOptimum = true
	lo, up, start, idx, val := c.csr(c.lo)
	if err := g.AddRows(lo, up, start, idx, val); err != nil {
		t.Fatal(err)
	}
	updated, dualPivots := 0, 0
	for trial := range 30 {
		st := g.solve()
		a := make([]float64, len(c.rows))
		for r := range a {
			a[r] = rng.NormFloat64() + 0.2
		}
		k := rng.IntN(m)
		if !g.fresh {
			g.refactor()
		}
		g.setColumn(k, a)
		for r, row := range c.rows {
			row[k] = a[r]
		}
		if g.fresh {
			updated++
			got := append([]float64(nil), g.binv...)
			g.refactor()
			for x := range got {
				if d := math.Abs(got[x] - g.binv[x]); d > 1e-9 {
					t.Fatalf("trial %d: updated inverse off by %g at %d", trial, d, x)
				}
			}
		}
		if g.warm && g.fresh {
			// The dual phase, as the warm solve starts it: the reduced costs it updates
			// pivot by pivot equal those recomputed from the final basis's π.
			before := g.iterations
			if g.dualPhase() && g.iterations > before {
				dualPivots += g.iterations - before
				g.dualValues()
				for _, r := range g.active {
					if g.basicRow[r] {
						continue
					}
					want := -(g.pi[m] + floats.Dot(g.pi[:m], g.shifted[r*m:(r+1)*m]))
					if d := math.Abs(g.red[r] - want); d > 1e-9 {
						t.Fatalf("trial %d: row %d's reduced cost %g after the dual phase, %g from π", trial, r, g.red[r], want)
					}
				}
				for k := range m {
					if !g.basicSlack[k] && math.Abs(g.redSlack[k]+g.pi[k]) > 1e-9 {
						t.Fatalf("trial %d: slack %d's reduced cost %g after the dual phase, %g from π", trial, k, g.redSlack[k], -g.pi[k])
					}
				}
			}
		}
		st = g.solve()
		cold := newGameLP(m)
		cold.toOptimum = true
		lo, up, start, idx, val := c.csr(c.lo)
		if err := cold.AddRows(lo, up, start, idx, val); err != nil {
			t.Fatal(err)
		}
		stCold := cold.solve()
		if st != stCold || math.Abs(g.xb[m]-cold.xb[m]) > 1e-9 {
			t.Errorf("trial %d: warm %v value %g, cold %v value %g", trial, st, g.xb[m], stCold, cold.xb[m])
		}
	}
	if updated < 20 {
		t.Errorf("%d of 30 updates kept the inverse: the test exercises little", updated)
	}
	if dualPivots < 5 {
		t.Errorf("%d dual pivots: the dual phase's updates are not exercised", dualPivots)
	}
	t.Logf("%d dual pivots checked", dualPivots)
}

// accurate, the residual check that decides whether the updated inverse is kept: true for
// an inverse just recomputed, false once any part of it is off (its last row and column,
// which hold π and x_B, or the rest, which the pivots read), and checkInverse then
// recomputes it.
func TestGameLPAccurate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const m = 5
	n := m + 1
	for trial := range 20 {
		c := randomGame(rng, m, 40, false)
		for _, row := range c.rows {
			for k := range row {
				row[k] += 1 // feasible: the solve runs to its optimum
			}
		}
		g := newGameLP(m)
		lo, up, start, idx, val := c.csr(c.lo)
		if err := g.AddRows(lo, up, start, idx, val); err != nil {
			t.Fatal(err)
		}
		if st := g.solve(); st != clp.Optimal {
			t.Fatalf("trial %d: status %v", trial, st)
		}
		g.refactor()
		g.basicValues()
		g.dualValues()
		if !g.accurate() {
			t.Fatalf("trial %d: a recomputed inverse fails the residual check", trial)
		}
		// One entry off by 1e-6 of the inverse's size: in the last row (π), the last
		// column (x_B), or elsewhere.
		i, k := rng.IntN(n), rng.IntN(n)
		switch trial % 3 {
		case 0:
			i = m
		case 1:
			k = m
		default:
			i, k = rng.IntN(m), rng.IntN(m)
		}
		g.binv[i*n+k] += 1e-6 * (1 + math.Abs(g.binv[i*n+k]))
		g.basicValues()
		g.dualValues()
		if g.accurate() {
			t.Fatalf("trial %d: B⁻¹[%d][%d] off, yet the residuals pass", trial, i, k)
		}
		if ok, refactored := g.checkInverse(); !ok || !refactored {
			t.Fatalf("trial %d: checkInverse kept an inverse that is off (ok %v)", trial, ok)
		}
		g.basicValues()
		g.dualValues()
		if !g.accurate() {
			t.Fatalf("trial %d: the recomputed inverse fails the residual check", trial)
		}
	}
}
