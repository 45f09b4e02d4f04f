package optimize

import (
	"math"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/reid-sdc/reid/optimize/clp"
)

// gameLP is the θ-LP of the simplex families (WM, OWA) solved as a matrix game: the rows
// θ·a_r ≥ lo_r with θ on the simplex Δ read (a_r − lo_r·1)·θ ≥ 0, so with ã_r = a_r − lo_r·1
// they are feasible exactly when the game's value
//
//	v = max_{θ∈Δ} min_r ã_r·θ = min_{y∈Δ_R} max_k (Σ_r y_r ã_r)_k
//
// is ≥ 0 (von Neumann's minimax theorem; LP duality). gameLP runs the primal simplex on the
// right-hand problem, min w s.t. Σ_r y_r ã_rk ≤ w (k = 1..m), Σ_r y_r = 1, y ≥ 0, whose
// basis is (m+1)×(m+1) whatever the number of rows: each iteration prices the rows (one
// dot product of length m each) and updates a 14×14 inverse for CENSUS. CLP pays a fixed
// cost per solve that dominates on these LPs of 13 columns (about a millisecond, most of
// the search's time); this solver needs microseconds to tens of them.
//
// What it returns is checked, not trusted: a feasible answer is θ = −π (the duals of the
// m rows), whose margins the search evaluates (solveSub's pairwise check); an infeasible one is the basic y, a Farkas
// certificate verified with a rounding allowance: Σ_r y_r ã_r ≤ w·1 with w < 0 proves
// that every θ on Δ breaks some row, since Σ_r y_r (ã_r·θ) ≤ w. The objective w only
// decreases, so the solve stops at the first basis with w < 0 that verifies: the
// deletion filter needs the answer, not the optimum. When the rows are feasible, θ is the
// maximin point, whose smallest margin is the largest possible.
//
// It serves the θ-LP interface (thetaLP) of the search. Row numbers are the caller's,
// family rows included: the simplex row Σθ = 1 is structural here and accepted as a row
// that is never active.
type gameLP struct {
	m int
	// Rows: the coefficients a_r (row-major, m each), the lower bound (−Inf: off), and
	// the shifted ã_r = a_r − lo_r·1 of rows that are on.
	coef    []float64
	lo      []float64
	shifted []float64
	family  []bool // structural rows (the simplex row): never active
	// The basis: n = m+1 basic variables, each a row's y_r (id ≥ 0), w (idW) or a slack
	// s_k of the k-th inequality (idSlack − k), and the inverse of the basis matrix,
	// row-major n×n. w is free, so it never leaves: it stays at position m, where
	// the cold start puts it. warm: the basis is a valid start for the next solve.
	basic      []int
	binv       []float64
	basisMat   []float64 // refactor's scratch
	basicRow   []bool    // per row
	basicSlack []bool    // per inequality k
	warm       bool
	// pivots counts the pivots since binv was last recomputed, checked the pivots at its
	// last residual check that kept it (accurate); fresh: binv is the inverse of the
	// current basis matrix (up to those pivots' rounding).
	pivots, checked int
	fresh           bool

	theta      []float64
	cert       []float64
	status     clp.Status
	iterations int
	// ops counts the last solve's operations (pricing's row values, the pivots' inverse
	// updates): its work, clock.go.
	ops        int64
	maxSeconds float64
	// maxOps, when positive, stops a solve (StoppedOnLimit) once ops reaches it: a work
	// limit's cap (solver.limit).
	maxOps int64
	// toOptimum: an infeasible solve runs to the optimal y (the PSD game's column
	// generation prices its strategies against it) instead of stopping at the first
	// certificate.
	toOptimum bool

	// scratch
	priceNext                        int // where price's next partial scan starts
	col, alpha, xb, pi, resid, scale []float64
	probeU, probe, probeRes          []float64 // accurate's fixed u, B⁻¹u and B·(B⁻¹u)
	red, alphaRow                    []float64 // dualPhase's, per row
	redSlack                         []float64 // dualPhase's, per inequality
	active                           []int
}

const (
	idW     = -1
	idSlack = -2
	// noEntering: price found no improving column (the basis is optimal).
	noEntering = math.MinInt
	// gameIterFactor bounds the iterations of a solve at gameIterFactor·(rows + m + 1): the
	// primal simplex with Bland's rule on degenerate steps terminates, so this only stops
	// numerical trouble from looping.
	gameIterFactor = 50
	// gameRefactor: the inverse's residuals are checked every so many pivots, and it is
	// recomputed from the basis when they are not within rounding.
	gameRefactor = 64
	// gameFinishPivots: the optimal basis's inverse is recomputed before θ is read when so
	// many pivots were made on the last one.
	gameFinishPivots = 32
	// gameResidual: the relative residual of the basis's systems above which the inverse
	// is recomputed (accurate, in finish and checkInverse).
	gameResidual = 1e-12
	// gameDegenerate: after so many pivots without progress the entering rule switches to
	// Bland's (smallest index), which cannot cycle.
	gameDegenerate = 30
)

func newGameLP(m int) *gameLP {
	n := m + 1
	g := &gameLP{m: m, basicSlack: make([]bool, m), theta: make([]float64, m), status: clp.Unknown,
		col: make([]float64, n), alpha: make([]float64, n), xb: make([]float64, n), pi: make([]float64, n),
		resid: make([]float64, n), scale: make([]float64, n), probeU: make([]float64, n), probe: make([]float64, n), probeRes: make([]float64, n), redSlack: make([]float64, m),
		basic: make([]int, n), binv: make([]float64, n*n), basisMat: make([]float64, n*n)}
	for k := range n {
		g.probeU[k] = 1 + float64(k)/float64(n) // in [1, 2), no two alike
	}
	return g
}

func (g *gameLP) NumRows() int            { return len(g.lo) }
func (g *gameLP) Iterations() int         { return g.iterations }
func (g *gameLP) Ops() int64              { return g.ops }
func (g *gameLP) SetMaxSeconds(s float64) { g.maxSeconds = s }
func (g *gameLP) SetMaxOps(n int64)       { g.maxOps = n }
func (g *gameLP) Close()                  {}

// Solution returns θ of the last feasible solve.
func (g *gameLP) Solution(dst []float64) []float64 { return append(dst[:0], g.theta...) }

// FarkasCertificate returns the verified certificate of the last solve (y ≥ 0 per row,
// Σ_r y_r ã_r < 0 componentwise), or false when the last solve did not end infeasible.
func (g *gameLP) FarkasCertificate() ([]float64, bool) {
	if g.status != clp.PrimalInfeasible {
		return nil, false
	}
	return append([]float64(nil), g.cert...), true
}

// AddRows appends rows lo ≤ a·θ ≤ up in CSR form. Record rows have up = +Inf; a row with
// lo = up = 1 whose coefficients are all 1 on the m columns is the simplex row.
func (g *gameLP) AddRows(lo, up []float64, start, idx []int, val []float64) error {
	for x := range lo {
		row := make([]float64, g.m)
		for e := start[x]; e < start[x+1]; e++ {
			row[idx[e]] = val[e]
		}
		fam := false
		if lo[x] == up[x] {
			if !isSimplexRow(row, lo[x]) {
				panic("optimize: the game LP holds only the simplex row as an equality")
			}
			fam = true
		} else if !math.IsInf(up[x], 1) {
			panic("optimize: the game LP holds rows a·θ ≥ lo only")
		}
		g.addRow(row)
		g.family[len(g.family)-1] = fam
		if !fam {
			g.SetRowBounds(len(g.lo)-1, lo[x], up[x])
		}
	}
	return nil
}

// addRow appends a record row with the coefficients a (m of them), switched off.
func (g *gameLP) addRow(a []float64) {
	g.coef = append(g.coef, a...)
	g.lo = append(g.lo, math.Inf(-1))
	g.shifted = append(g.shifted, make([]float64, g.m)...)
	g.family = append(g.family, false)
	g.basicRow = append(g.basicRow, false)
}

// setColumn replaces column k's coefficients of every row by a (one per row): the PSD
// game's strategy slots. The next solve starts from the basis (dualPhase) when it can.
//
// The basis matrix changes in its row k only, by u (the basic rows' changes at column k),
// so its inverse is updated by the Sherman–Morrison formula: B′⁻¹ = B⁻¹ − (B⁻¹e_k)(uᵀB⁻¹) /
// (1 + uᵀB⁻¹e_k).
func (g *gameLP) setColumn(k int, a []float64) {
	m, n := g.m, g.m+1
	u := g.alpha // scratch: u over the basis positions
	clear(u)
	for i, id := range g.basic {
		if id >= 0 && !math.IsInf(g.lo[id], -1) {
			u[i] = a[id] - g.lo[id] - g.shifted[id*m+k]
		}
	}
	for r, v := range a {
		g.coef[r*m+k] = v
		if !math.IsInf(g.lo[r], -1) {
			g.shifted[r*m+k] = v - g.lo[r]
		}
	}
	if !g.fresh {
		return
	}
	inv := g.binv
	uB := g.pi // scratch: uᵀB⁻¹, a sum of B⁻¹'s rows
	clear(uB)
	for i, ui := range u {
		if ui != 0 {
			floats.AddScaled(uB, ui, inv[i*n:(i+1)*n])
		}
	}
	den := 1 + uB[k]
	if math.Abs(den) < 1e-6*(1+math.Abs(uB[k])) {
		g.fresh = false // cancellation: recompute instead
		return
	}
	for i := range n {
		if f := inv[i*n+k] / den; f != 0 {
			floats.AddScaled(inv[i*n:(i+1)*n], -f, uB)
		}
	}
	g.pivots++ // an update like a pivot's: counted towards the next recomputation
}

func isSimplexRow(row []float64, rhs float64) bool {
	if rhs != 1 {
		return false
	}
	for _, v := range row {
		if v != 1 {
			return false
		}
	}
	return true
}

// SetRowBounds sets the lower bound of a record row (up must be +Inf); −Inf switches it off.
func (g *gameLP) SetRowBounds(row int, lo, up float64) {
	if g.family[row] {
		return
	}
	if g.lo[row] == lo {
		return
	}
	g.lo[row] = lo
	if g.basicRow[row] {
		g.warm, g.fresh = false, false // the basis holds the row's old column
	}
	if math.IsInf(lo, -1) {
		return
	}
	sh := g.shifted[row*g.m : (row+1)*g.m]
	for k, a := range g.coef[row*g.m : (row+1)*g.m] {
		sh[k] = a - lo
	}
}

// Dual solves the LP (the name of the interface CLP's models fill).
func (g *gameLP) Dual() clp.Status { return g.solve() }

// Primal solves the LP again (the answer does not depend on the algorithm).
func (g *gameLP) Primal() clp.Status { return g.solve() }

// column writes the basis-matrix column of variable id into g.col.
func (g *gameLP) column(id int) {
	m := g.m
	switch {
	case id >= 0:
		copy(g.col, g.shifted[id*m:(id+1)*m])
		g.col[m] = 1
	case id == idW:
		for k := range m {
			g.col[k] = -1
		}
		g.col[m] = 0
	default:
		clear(g.col)
		g.col[idSlack-id] = 1
	}
}

// refactor recomputes the inverse of the basis matrix by Gauss–Jordan elimination with
// partial pivoting; false when it is singular.
func (g *gameLP) refactor() bool {
	n := g.m + 1
	a := g.basisMat // column j of the basis matrix is variable basic[j]
	for j, id := range g.basic {
		g.column(id)
		for i := range n {
			a[i*n+j] = g.col[i]
		}
	}
	inv := g.binv
	clear(inv)
	for i := range n {
		inv[i*n+i] = 1
	}
	for c := range n {
		p, big := -1, 1e-11
		for r := c; r < n; r++ {
			if v := math.Abs(a[r*n+c]); v > big {
				p, big = r, v
			}
		}
		if p < 0 {
			g.fresh = false
			return false
		}
		if p != c {
			for k := range n {
				a[p*n+k], a[c*n+k] = a[c*n+k], a[p*n+k]
				inv[p*n+k], inv[c*n+k] = inv[c*n+k], inv[p*n+k]
			}
		}
		// Columns left of c are zero in row c (eliminated before): the updates of a
		// start at c + 1, and the rows' updates are axpys (gonum's assembly kernels).
		d := 1 / a[c*n+c]
		pa, pinv := a[c*n+c+1:(c+1)*n], inv[c*n:(c+1)*n]
		floats.Scale(d, pa)
		floats.Scale(d, pinv)
		a[c*n+c] = 1
		for r := range n {
			if f := a[r*n+c]; r != c && f != 0 {
				floats.AddScaled(a[r*n+c+1:(r+1)*n], -f, pa)
				floats.AddScaled(inv[r*n:(r+1)*n], -f, pinv)
				a[r*n+c] = 0
			}
		}
	}
	g.pivots, g.checked, g.fresh = 0, 0, true
	return true
}

// current makes binv the inverse of the basis matrix: kept when it is and few pivots
// have passed since it was computed, recomputed otherwise.
func (g *gameLP) current() bool {
	if !g.fresh {
		return g.refactor()
	}
	if g.pivots-g.checked < gameRefactor {
		return true
	}
	ok, _ := g.checkInverse()
	return ok
}

// coldStart takes the basis of the row whose largest entry is least (y = e_r, w = that
// entry) with the slacks of the other m − 1 inequalities.
func (g *gameLP) coldStart() bool {
	m := g.m
	best, bestMax := -1, math.Inf(1)
	for _, r := range g.active {
		mx := math.Inf(-1)
		for _, v := range g.shifted[r*m : (r+1)*m] {
			mx = max(mx, v)
		}
		if mx < bestMax {
			best, bestMax = r, mx
		}
	}
	top := 0
	for k, v := range g.shifted[best*m : (best+1)*m] {
		if v == bestMax {
			top = k
			break
		}
	}
	for _, id := range g.basic {
		g.setBasic(id, false)
	}
	for k := range m {
		g.basic[k] = idSlack - k
	}
	g.basic[top] = best
	g.basic[m] = idW
	for _, id := range g.basic {
		g.setBasic(id, true)
	}
	return g.refactor()
}

// solve runs the primal simplex on the game's minimisation problem.
func (g *gameLP) solve() clp.Status {
	m, n := g.m, g.m+1
	g.iterations, g.ops = 0, 0
	g.cert = nil
	g.active = g.active[:0]
	for r, lo := range g.lo {
		if !g.family[r] && !math.IsInf(lo, -1) {
			g.active = append(g.active, r)
		}
	}
	if len(g.active) == 0 {
		for k := range g.theta {
			g.theta[k] = 1 / float64(m)
		}
		g.status = clp.Optimal
		return g.status
	}
	started := false
	if g.warm {
		for _, id := range g.basic {
			if id >= 0 && math.IsInf(g.lo[id], -1) {
				g.warm = false
			}
		}
	}
	if g.warm && g.current() {
		started = g.dualPhase()
	}
	if !started && !g.coldStart() {
		g.warm = false
		g.status = clp.StoppedOnErrors
		return g.status
	}
	g.warm = true
	var deadline time.Time
	if g.maxSeconds > 0 {
		deadline = time.Now().Add(time.Duration(g.maxSeconds * float64(time.Second)))
	}
	maxIter := gameIterFactor * (len(g.active) + n)
	degenerate := 0
	for {
		g.basicValues()
		if !g.toOptimum && g.xb[m] < 0 && g.certify() {
			g.status = clp.PrimalInfeasible
			return g.status
		}
		g.dualValues()
		bland := degenerate >= gameDegenerate
		enter := g.price(bland)
		if enter == noEntering {
			return g.finish()
		}
		if g.iterations >= maxIter || g.maxOps > 0 && g.ops >= g.maxOps ||
			g.iterations&1023 == 1023 && !deadline.IsZero() && time.Now().After(deadline) {
			g.warm = false
			g.status = clp.StoppedOnLimit
			return g.status
		}
		g.column(enter)
		for i := range n {
			g.alpha[i] = floats.Dot(g.binv[i*n:(i+1)*n], g.col)
		}
		p, ratio := -1, math.Inf(1)
		for i, id := range g.basic {
			if id == idW || g.alpha[i] <= 1e-9 {
				continue
			}
			t := max(g.xb[i], 0) / g.alpha[i]
			switch {
			case p < 0 || t < ratio-1e-12:
				p, ratio = i, t
			case t <= ratio+1e-12 && (bland && gameOrder(id) < gameOrder(g.basic[p]) || !bland && g.alpha[i] > g.alpha[p]):
				p, ratio = i, min(ratio, t)
			}
		}
		if p < 0 {
			// Unbounded cannot happen (w ≥ min_r max_k ã_rk): numerical trouble.
			if g.pivots > 0 && g.refactor() {
				continue
			}
			g.warm = false
			g.status = clp.StoppedOnErrors
			return g.status
		}
		if ratio <= 1e-12 {
			degenerate++
		} else {
			degenerate = 0
		}
		g.pivot(p, enter)
		g.iterations++
		g.ops += int64(n*n/2 + 8*n)
		if g.pivots-g.checked >= gameRefactor {
			if ok, _ := g.checkInverse(); !ok {
				g.warm = false
				g.status = clp.StoppedOnErrors
				return g.status
			}
		}
	}
}

// dualPhase makes a refactored warm basis primal feasible by dual simplex pivots, as
// after the PSD game replaced a strategy whose slack is basic (the basis stays dual
// feasible: π is unchanged, since that row's dual is 0, and only that slack turns
// negative). It reports false when the basis is not dual feasible either, or when the
// pivots fail; the caller then starts cold.
func (g *gameLP) dualPhase() bool {
	m, n := g.m, g.m+1
	const tol = 1e-11
	// The reduced costs are computed once, from π, and then updated by each pivot's row
	// (d_j += t·α_pj, t the dual step): an iteration prices each row once (its α_pj)
	// instead of twice; a solve takes about 20 dual pivots (the bilinear game).
	if len(g.red) < len(g.lo) {
		g.red, g.alphaRow = make([]float64, len(g.lo)), make([]float64, len(g.lo))
	}
	red, alphaRow := g.red, g.alphaRow
	redSlack := g.redSlack
	reprice := func() {
		g.dualValues()
		for k := range m {
			redSlack[k] = -g.pi[k]
		}
		for _, r := range g.active {
			if !g.basicRow[r] {
				red[r] = g.reducedCost(r)
			}
		}
	}
	reprice()
	for iter := 0; ; iter++ {
		g.basicValues()
		p := -1
		for i, id := range g.basic {
			if id != idW && g.xb[i] < -1e-9 && (p < 0 || g.xb[i] < g.xb[p]) {
				p = i
			}
		}
		if p < 0 {
			return true
		}
		if iter >= gameIterFactor*n {
			return false
		}
		// The ratio test over the nonbasic columns j with α_pj < 0 (row p of B⁻¹A): the
		// least d_j/|α_pj| keeps every reduced cost d ≥ 0.
		rho := g.binv[p*n : (p+1)*n]
		enter, best := noEntering, math.Inf(1)
		consider := func(id int, d, a float64) bool {
			if d < -tol {
				return false // not dual feasible
			}
			if a < -1e-9 {
				if r := max(d, 0) / -a; r < best {
					enter, best = id, r
				}
			}
			return true
		}
		for k := range m {
			if !g.basicSlack[k] && !consider(idSlack-k, redSlack[k], rho[k]) {
				return false
			}
		}
		for _, r := range g.active {
			if g.basicRow[r] {
				continue
			}
			a := rho[m] + floats.Dot(rho[:m], g.shifted[r*m:(r+1)*m])
			alphaRow[r] = a
			if !consider(r, red[r], a) {
				return false
			}
		}
		if enter == noEntering {
			return false
		}
		// rho is row p of B⁻¹ until the pivot below: a slack's α_pk.
		for k := range m {
			if !g.basicSlack[k] {
				redSlack[k] += best * rho[k]
			}
		}
		for _, r := range g.active {
			if !g.basicRow[r] {
				red[r] += best * alphaRow[r]
			}
		}
		switch leave := g.basic[p]; {
		case leave >= 0:
			red[leave] = best
		case leave <= idSlack:
			redSlack[idSlack-leave] = best
		}
		g.column(enter)
		for i := range n {
			g.alpha[i] = floats.Dot(g.binv[i*n:(i+1)*n], g.col)
		}
		g.pivot(p, enter)
		g.iterations++
		g.ops += int64(n*n/2 + 8*n + len(g.active))
		if g.pivots-g.checked >= gameRefactor {
			ok, refactored := g.checkInverse()
			if !ok {
				return false
			}
			if refactored {
				reprice() // from the recomputed inverse's π
			}
		}
	}
}

// checkInverse is the check of the updated inverse (periodic, and before θ is read): kept
// while its residuals are within rounding, recomputed otherwise (refactored), x_B and π
// then recomputed from it; ok is false when the basis is singular.
func (g *gameLP) checkInverse() (ok, refactored bool) {
	g.basicValues()
	g.dualValues()
	if g.accurate() {
		g.checked = g.pivots
		return true, false
	}
	if !g.refactor() {
		return false, true
	}
	g.basicValues()
	g.dualValues()
	return true, true
}

// reducedCost is row r's reduced cost at π: 0 − π·(ã_r, 1) = −(π_{1..m}·ã_r + π_{m+1}),
// ã_r its shifted coefficients (column).
func (g *gameLP) reducedCost(r int) float64 {
	m := g.m
	return -(g.pi[m] + floats.Dot(g.pi[:m], g.shifted[r*m:(r+1)*m]))
}

// gameOrder is the fixed order of Bland's rule: slacks (ids −2, −3, …), then rows by
// index.
func gameOrder(id int) int {
	if id >= 0 {
		return math.MaxInt32 + id
	}
	return -id
}

// basicValues sets xb = B⁻¹e_{m+1}, the basic variables' values (the right-hand side is
// Σ y = 1 alone).
func (g *gameLP) basicValues() {
	n := g.m + 1
	for i := range n {
		g.xb[i] = g.binv[i*n+g.m]
	}
}

// dualValues sets π = c_Bᵀ B⁻¹, the row of B⁻¹ at w's position m (w's cost is 1, the
// others' 0).
func (g *gameLP) dualValues() {
	n := g.m + 1
	copy(g.pi, g.binv[g.m*n:(g.m+1)*n])
}

// price returns the entering variable: the most negative reduced cost (Dantzig), or with
// bland the first in gameOrder; noEntering when none is below the tolerance. The reduced
// cost of y_r is θ·ã_r − v with θ = −π_{1..m} and v = π_{m+1}: the row most violated at
// the current θ relative to the current value enters.
func (g *gameLP) price(bland bool) int {
	m := g.m
	const tol = 1e-11
	best, bestD := noEntering, -tol
	bestOrder := math.MaxInt
	consider := func(id int, d float64) {
		if d >= -tol {
			return
		}
		if bland {
			if o := gameOrder(id); o < bestOrder {
				best, bestOrder = id, o
			}
		} else if d < bestD {
			best, bestD = id, d
		}
	}
	for k := range m {
		if !g.basicSlack[k] {
			consider(idSlack-k, -g.pi[k])
		}
	}
	// Partial pricing (as packLP's) when the rows are many: the rows in chunks from where
	// the last scan stopped, the best of the first chunk with an improving row (the
	// slacks compared with it) entering; optimal only after a whole cycle finds none.
	// Bland's rule, and few rows, take one chunk of all the rows in order.
	R := len(g.active)
	chunk, start := R, 0
	if !bland && R > packPriceChunk {
		chunk, start = max(packPriceChunk, R/packPriceParts), g.priceNext%R
	}
	for seen := 0; seen < R; seen += chunk {
		for x := seen; x < min(seen+chunk, R); x++ {
			if r := g.active[(start+x)%R]; !g.basicRow[r] {
				consider(r, g.reducedCost(r))
			}
		}
		g.ops += int64((min(seen+chunk, R) - seen) * (m/2 + 8)) // vectorised dot products
		if chunk < R {
			g.priceNext = (start + min(seen+chunk, R)) % R
		}
		if best != noEntering {
			break
		}
	}
	return best
}

// pivot replaces basic position p by variable enter (g.alpha holds B⁻¹ of its column).
func (g *gameLP) pivot(p, enter int) {
	n := g.m + 1
	inv := g.binv
	prow := inv[p*n : (p+1)*n]
	floats.Scale(1/g.alpha[p], prow)
	for i := range n {
		if f := g.alpha[i]; i != p && f != 0 {
			floats.AddScaled(inv[i*n:(i+1)*n], -f, prow)
		}
	}
	g.setBasic(g.basic[p], false)
	g.basic[p] = enter
	g.setBasic(enter, true)
	g.pivots++
}

func (g *gameLP) setBasic(id int, on bool) {
	switch {
	case id >= 0:
		g.basicRow[id] = on
	case id <= idSlack:
		g.basicSlack[idSlack-id] = on
	}
}

// certify checks whether the basic y is a Farkas certificate: with y ≥ 0 (negatives of
// rounding size dropped), Σ_r y_r ã_rk < 0 for every k, with an allowance for the rounding
// of the sums and of ã = a − lo. It stores the certificate per row.
func (g *gameLP) certify() bool {
	m := g.m
	sum := make([]float64, m)
	scale, mass := 0.0, 0.0
	for i, id := range g.basic {
		y := g.xb[i]
		if id < 0 || y <= 0 {
			continue
		}
		mass += y
		for k, a := range g.shifted[id*m : (id+1)*m] {
			sum[k] += y * a
			scale += y * (math.Abs(a) + math.Abs(g.lo[id]))
		}
	}
	if mass <= 0 {
		return false
	}
	allow := 1e-12 * (scale + 1e-300)
	for _, s := range sum {
		if s >= -allow {
			return false
		}
	}
	g.cert = make([]float64, len(g.lo))
	for i, id := range g.basic {
		if id >= 0 && g.xb[i] > 0 {
			g.cert[id] = g.xb[i]
		}
	}
	return true
}

// accurate reports whether the updated inverse still solves the basis's two systems to
// within rounding: the residuals of B·x_B = e_{m+1} and πᵀB = c_B (x_B and π are B⁻¹'s
// last column and row), and of B·(B⁻¹u) = u for a fixed u with no zero entry (the rest of
// B⁻¹, which the pivots' columns and the dual phase's rows read), relative to the sizes of
// their terms, below gameResidual. It costs O(n²) where recomputing the inverse costs O(n³)
// (the bilinear form's game has n ≈ 105: the recomputations before θ was read were a
// quarter of its solves' time).
func (g *gameLP) accurate() bool {
	m, n := g.m, g.m+1
	res, scale := g.resid[:n], g.scale[:n]
	clear(res)
	clear(scale)
	z, zres := g.probe[:n], g.probeRes[:n]
	clear(zres)
	for i := range n {
		z[i] = floats.Dot(g.binv[i*n:(i+1)*n], g.probeU)
	}
	zscale := 0.0
	for j, id := range g.basic {
		g.column(id)
		for k, v := range g.col {
			zres[k] += v * z[j]
			zscale = max(zscale, math.Abs(v*z[j]))
		}
		x := g.xb[j]
		c, cs := 0.0, 1.0 // c_j − π·B_j and its terms' size (w's cost is 1, the others' 0)
		if id == idW {
			c = 1
		}
		for k, v := range g.col {
			res[k] += v * x
			scale[k] += math.Abs(v * x)
			c -= g.pi[k] * v
			cs += math.Abs(g.pi[k] * v)
		}
		if math.Abs(c) > gameResidual*cs {
			return false
		}
	}
	res[m]--
	for k, r := range res {
		if math.Abs(r) > gameResidual*(scale[k]+1) {
			return false
		}
	}
	for k, r := range zres {
		if math.Abs(r-g.probeU[k]) > gameResidual*float64(n)*(zscale+1) {
			return false
		}
	}
	return true
}

// finish reads θ = −π at an optimal basis (from an inverse recomputed when
// gameFinishPivots pivots or more were made since it was last recomputed or checked and
// its residuals are not within rounding): infeasible
// when the optimal y certifies (the value w < 0), feasible otherwise, a knife edge with
// w < 0 by rounding included (its rows then hold within rounding; the caller's pairwise
// check of θ decides).
func (g *gameLP) finish() clp.Status {
	m := g.m
	if g.pivots-g.checked >= gameFinishPivots {
		g.checkInverse() // a singular basis keeps its values: the pairwise check of θ decides
	}
	s := 0.0
	for k := range m {
		g.theta[k] = max(-g.pi[k], 0)
		s += g.theta[k]
	}
	if s <= 0 || math.IsNaN(s) {
		g.warm = false
		g.status = clp.StoppedOnErrors
		return g.status
	}
	for k := range m {
		g.theta[k] /= s
	}
	if g.xb[m] < 0 && g.certify() {
		g.status = clp.PrimalInfeasible
		return g.status
	}
	g.status = clp.Optimal
	return g.status
}
