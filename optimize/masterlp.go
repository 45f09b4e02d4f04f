package optimize

import (
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/reid-sdc/reid/optimize/clp"
)

// masterLP is the master problem's LP relaxation as the search uses it: min Σ K over
// K ∈ [lo, up] subject to covering rows Σ_{i∈S} K_i ≥ rhs. *clp.Model implements it, and so
// does packLP.
type masterLP interface {
	SetColumnBounds(i int, lo, up float64)
	AddRow(lo, up float64, idx []int, val []float64) error
	DeleteRows(rows []int)
	Dual() clp.Status
	Primal() clp.Status
	Solution(dst []float64) []float64
	ObjectiveValue() float64
	FarkasCertificate() ([]float64, bool)
	Iterations() int
	SetMaxSeconds(s float64)
	Close()
}

// packMaxN is the largest number of records whose master packLP solves. With the n×n
// inverse, CPU time per master solve (WM, 30 s runs, CPU profiles) was 2.2 ms against
// CLP's 4.3 ms at 100 records (noise_additive_50), 5.9 against 9.9 ms at 200
// (rankswap_p15), but 31 against 24 ms at 400 (rankswap_p15); with the kernel inverse
// (pivots k², refactorisations k³ for a kernel of order k ≈ n/2) the master at 400
// records still took more CPU than CLP's in a 60-s run (rankswap_p15, WM: 24 s against
// 21 s, bench/README).
const packMaxN = 300

// packLP solves the master's covering LP through its dual, a packing LP with one
// equality per record, by the primal simplex method in Go. With A the 0/1 matrix of the
// rows (rhs b) and the records' bounds lo ≤ K ≤ up, LP duality (e.g. Chvátal, Linear
// Programming, 1983, ch. 5) pairs
//
//	min 1ᵀK s.t. AK ≥ b, lo ≤ K ≤ up   with   max bᵀy + loᵀv − upᵀz s.t. Aᵀy + v − z = 1, y, v, z ≥ 0.
//
// The dual's constraints never change: a branching decision changes only the costs of
// v_i and z_i, a new cut adds a column y_r, so the last basis stays feasible and the
// primal simplex resumes from it, with an n×n basis whatever the number of cuts (n =
// records). On small masters CLP's fixed costs dominated: 100 records and about 300
// rows (noise_additive_50, WM) took it 60 iterations and 4.3 ms of CPU per re-solve,
// 40 % of the search's time; packLP needs half of that (see packMaxN).
//
// The answers are checked, not trusted: the reported objective is the Lagrangian bound
//
//	L(y) = bᵀy + Σ_i min(lo_i·(1 − (Aᵀy)_i), up_i·(1 − (Aᵀy)_i)),
//
// a lower bound on the master's optimum for every y ≥ 0, computed from the final y (it
// equals the LP optimum within the perturbation below when y is optimal); K = the
// simplex multipliers clipped to the bounds, accepted only when K satisfies the rows and
// Σ K is within a tolerance of L(y).
// Infeasibility (the dual unbounded) is certified by the ray's y part: y ≥ 0 with
// bᵀy > Σ_i up_i·(Aᵀy)_i shows that no K in the bounds satisfies the rows.
type packLP struct {
	n      int
	lo, up []float64
	rows   [][]int
	rhs    []float64

	// The basis: basic[p] is the variable at position p (ids: v_i = i, z_i = n + i,
	// y_r = 2n + r), pos the position of each basic variable (−1: nonbasic) for v, z
	// and y, xb the basic values (B⁻¹·one), pi the simplex multipliers (c_B·B⁻¹).
	basic      []int
	posV, posZ []int
	posY       []int
	xb, pi     []float64
	warm       bool
	// one is the dual's right-hand side, 1 + δ_i with δ_i in [packPerturb, 2·packPerturb):
	// the master's objective Σ (1 + δ_i)·K_i. The master's dual is highly degenerate
	// (basic y's at zero): on rankswap_p15, 200 records, WM, the simplex stalled at its
	// optimum for the 150,000 pivots of its iteration cap, Bland's rule included, and the
	// search handed the master to CLP; a perturbed right-hand side makes degenerate
	// steps rare (the classic remedy: Charnes, Econometrica 20, 1952; CLP perturbs
	// likewise; Bland's rule stays the safeguard: δ is of the order of the ratio
	// test's tolerances, and rows of B⁻¹ can cancel it). The answer stays valid: the
	// bound is L(y), a bound for any y ≥ 0, short of the optimum by at most
	// Σ δ_i < 2·packPerturb·packMaxN = 6e-7 (the search rounds bounds up past
	// intTol = 1e-6), and K, optimal for the perturbed costs, is within Σ δ_i·K_i of
	// the optimum, inside packCheckTol.
	one []float64

	// The basis inverse through its kernel. With U the records whose v or z is basic
	// (signs S = ±1), R the others and Y the basic y's, the basis, its rows ordered
	// (U, R) and its columns (v and z, y), is
	//
	//	B = [S  A_UY]      B⁻¹ = [S  −S·A_UY·M⁻¹]
	//	    [0  M   ],            [0   M⁻¹      ],   M = A_RY, |R| = |Y|,
	//
	// so only M⁻¹ is kept (Bixby, "Implementing the simplex method: the initial basis",
	// ORSA J. Computing 4, 1992, on bases of slacks and structurals), of order about
	// half the records where it was n (noise_correlated_50 blocks, OWA: about 100 of
	// 200), and the pivots update it by rank-one changes, borders and deletions. krow
	// lists the kernel's rows (records of R) and kcol its columns (positions of Y);
	// kRowOf and kColOf are their indices (−1: none); ninv holds M⁻¹ with its rows
	// indexed by kernel columns and its columns by kernel rows, row stride n.
	krow, kcol     []int
	kRowOf, kColOf []int
	ninv           []float64
	sincePivot     int // pivots since the last refactorisation
	priceNext      int // the row where the next partial pricing starts

	status     clp.Status
	obj        float64
	k          []float64
	ray        []float64
	iterations int
	// ops counts the last solve's operations (pricing's row entries, the pivots' kernel
	// updates): its work, clock.go.
	ops        int64
	maxSeconds float64
	// maxOps, when positive, stops a solve (StoppedOnLimit) once Ops reaches it: a work
	// limit's cap (solver.limit).
	maxOps int64

	// Scratch: alpha is B⁻¹ of the entering column by position; xY, w and g are
	// kernel-sized or record-sized work vectors; orig marks the entering column's
	// entries by record.
	alpha, xY, w, g, orig []float64
	unit                  [1]int // the support of a v or z column
}

const (
	packDualTol   = 1e-9 // reduced costs above it improve the dual objective
	packPivotTol  = 1e-9 // smallest pivot element accepted by the ratio test
	packPrimalTol = 1e-9 // how far below zero the ratio test lets a basic value go
	packCheckTol  = 1e-6 // slack allowed in the checks of K and of the bound
	packRefactor  = 400  // pivots between refactorisations
	packPerturb   = 1e-9 // the least perturbation of the dual's right-hand side (one)
	packIterMul   = 50   // iteration cap: packIterMul·(rows + 2n)
	packBlandIn   = 30   // degenerate pivots before Bland's rule
	packClockTic  = 32   // iterations between looks at the clock
	// Partial pricing scans the rows in chunks of max(packPriceChunk, rows/packPriceParts).
	packPriceChunk = 256
	packPriceParts = 8
)

func newPackLP(n int) *packLP {
	p := &packLP{n: n, lo: make([]float64, n), up: make([]float64, n), status: clp.Unknown,
		basic: make([]int, n), posV: make([]int, n), posZ: make([]int, n),
		xb: make([]float64, n), pi: make([]float64, n), one: make([]float64, n),
		kRowOf: make([]int, n), kColOf: make([]int, n), ninv: make([]float64, n*n),
		alpha: make([]float64, n), xY: make([]float64, n), w: make([]float64, n), g: make([]float64, n), orig: make([]float64, n)}
	for i := range n {
		p.up[i] = 1
		// A fixed scatter (i·7919 mod 997, a permutation of the residues), so that the
		// solves are deterministic.
		p.one[i] = 1 + packPerturb*(1+float64(i*7919%997)/997)
	}
	return p
}

func (p *packLP) SetColumnBounds(i int, lo, up float64) { p.lo[i], p.up[i] = lo, up }
func (p *packLP) Iterations() int                       { return p.iterations }
func (p *packLP) Ops() int64                            { return p.ops * 2 / 3 } // measured: clock.go
func (p *packLP) SetMaxSeconds(s float64)               { p.maxSeconds = s }
func (p *packLP) SetMaxOps(n int64)                     { p.maxOps = n }
func (p *packLP) Close()                                {}
func (p *packLP) ObjectiveValue() float64               { return p.obj }

// Solution returns K of the last optimal solve.
func (p *packLP) Solution(dst []float64) []float64 { return append(dst[:0], p.k...) }

// FarkasCertificate returns the verified y of the last infeasible solve, one entry per row.
func (p *packLP) FarkasCertificate() ([]float64, bool) {
	if p.status != clp.PrimalInfeasible {
		return nil, false
	}
	return append([]float64(nil), p.ray...), true
}

// AddRow appends the row lo ≤ Σ_{i∈idx} K_i ≤ up; the master's rows are covering rows
// (unit coefficients, up = +Inf).
func (p *packLP) AddRow(lo, up float64, idx []int, val []float64) error {
	for _, v := range val {
		if v != 1 {
			panic("optimize: the packing master holds 0/1 rows only")
		}
	}
	if !math.IsInf(up, 1) {
		panic("optimize: the packing master holds rows Σ K ≥ rhs only")
	}
	p.rows = append(p.rows, append([]int(nil), idx...))
	p.rhs = append(p.rhs, lo)
	p.posY = append(p.posY, -1)
	return nil
}

// DeleteRows removes rows. A row whose y is basic at zero is first pivoted out of the
// basis in exchange for a v_i or z_i (a degenerate step: the basis stays feasible); the
// search deletes rows slack at the last solution, whose y is zero there. A basic row
// with y > 0 costs the warm start.
func (p *packLP) DeleteRows(del []int) {
	drop := make([]bool, len(p.rows))
	for _, r := range del {
		drop[r] = true
	}
	// A y at a rounding-size positive value pivoted out with step 0 leaves x_B off by
	// that much: x_B is recomputed after the deletion.
	recompute := false
	for _, r := range del {
		if q := p.posY[r]; p.warm && q >= 0 {
			recompute = recompute || p.xb[q] != 0
			if !p.pivotOut(q) {
				p.warm = false
			}
		}
	}
	newID := make([]int, len(p.rows))
	keep := 0
	for r := range p.rows {
		if drop[r] {
			newID[r] = -1
			continue
		}
		newID[r] = keep
		p.rows[keep], p.rhs[keep], p.posY[keep] = p.rows[r], p.rhs[r], p.posY[r]
		keep++
	}
	p.rows, p.rhs, p.posY = p.rows[:keep], p.rhs[:keep], p.posY[:keep]
	if p.warm {
		for q, id := range p.basic {
			if id >= 2*p.n {
				p.basic[q] = 2*p.n + newID[id-2*p.n]
			}
		}
		if recompute && !p.refactor() {
			p.warm = false
		}
	}
}

// pivotOut replaces the basic variable at position q, which must be at zero, by the
// nonbasic v_i or z_i with the largest |B⁻¹_qi|; it reports false when it cannot (the
// caller starts cold).
func (p *packLP) pivotOut(q int) bool {
	n := p.n
	if p.xb[q] > 1e-9 {
		return false
	}
	// Row q of B⁻¹ (a y's position) is row kColOf[q] of M⁻¹ on the records of R and
	// zero elsewhere: v_i of a record of R enters (column e_i, α = B⁻¹_qi); on U, e_i
	// beside ∓e_i would make the basis singular.
	b := p.kColOf[q]
	best, bestA := -1, 1e-7
	for a, v := range p.ninv[b*n : b*n+len(p.krow)] {
		if math.Abs(v) > bestA {
			best, bestA = p.krow[a], math.Abs(v)
		}
	}
	if best < 0 {
		return false
	}
	p.column(best)
	p.pivot(best, q, 0, 0) // π is recomputed when the next solve starts
	return true
}

// reduced is the reduced cost c_id − π·a_id.
func (p *packLP) reduced(id int) float64 {
	switch {
	case id < p.n:
		return p.lo[id] - p.pi[id]
	case id < 2*p.n:
		return -p.up[id-p.n] + p.pi[id-p.n]
	}
	r := id - 2*p.n
	s := p.rhs[r]
	for _, i := range p.rows[r] {
		s -= p.pi[i]
	}
	return s
}

// column writes B⁻¹·a_id into p.alpha: x_Y = M⁻¹·a_R on the y's positions and
// S·(a_U − A_UY·x_Y) on the others.
func (p *packLP) column(id int) {
	n, k := p.n, len(p.krow)
	xY, orig := p.xY[:k], p.orig
	clear(xY)
	var S []int
	if id < 2*n {
		i, sign := unitRecord(id, n)
		orig[i] = sign
		p.unit[0] = i
		S = p.unit[:]
	} else {
		S = p.rows[id-2*n]
		for _, i := range S {
			orig[i] = 1
		}
	}
	for _, i := range S {
		if a := p.kRowOf[i]; a >= 0 {
			v := orig[i]
			for b := range k {
				xY[b] += v * p.ninv[b*n+a]
			}
		}
	}
	p.unitValues(xY, orig)
	for _, i := range S {
		orig[i] = 0
	}
}

// unitValues completes p.alpha from the kernel part xY of B⁻¹·a, a given by record in
// orig: xY on the y's positions, S·(a_U − A_UY·xY) on the others.
func (p *packLP) unitValues(xY, orig []float64) {
	n := p.n
	g := p.g
	clear(g)
	for b, v := range xY {
		q := p.kcol[b]
		p.alpha[q] = v
		if v == 0 {
			continue
		}
		for _, i := range p.rows[p.basic[q]-2*n] {
			g[i] += v
		}
	}
	for i := range n {
		switch {
		case p.posV[i] >= 0:
			p.alpha[p.posV[i]] = orig[i] - g[i]
		case p.posZ[i] >= 0:
			p.alpha[p.posZ[i]] = g[i] - orig[i]
		}
	}
}

// kernelRow sets p.w to A_iY·M⁻¹ (over the kernel's rows) for a record i.
func (p *packLP) kernelRow(i int) []float64 {
	n, k := p.n, len(p.krow)
	w := p.w[:k]
	clear(w)
	for b, q := range p.kcol {
		if slices.Contains(p.rows[p.basic[q]-2*n], i) {
			floats.Add(w, p.ninv[b*n:b*n+k])
		}
	}
	return w
}

func (p *packLP) isBasic(id int) bool {
	switch {
	case id < p.n:
		return p.posV[id] >= 0
	case id < 2*p.n:
		return p.posZ[id-p.n] >= 0
	}
	return p.posY[id-2*p.n] >= 0
}

func (p *packLP) setPos(id, q int) {
	switch {
	case id < p.n:
		p.posV[id] = q
	case id < 2*p.n:
		p.posZ[id-p.n] = q
	default:
		p.posY[id-2*p.n] = q
	}
}

// coldStart takes the basis of the v's: B = I, x_B = one.
func (p *packLP) coldStart() {
	n := p.n
	p.krow, p.kcol = p.krow[:0], p.kcol[:0]
	for i := range n {
		p.basic[i] = i
		p.posV[i], p.posZ[i] = i, -1
		p.kRowOf[i], p.kColOf[i] = -1, -1
		p.xb[i] = p.one[i]
	}
	for r := range p.posY {
		p.posY[r] = -1
	}
	p.sincePivot = 0
	p.warm = true
}

// refactor recomputes the kernel and M⁻¹ from the basis and x_B = B⁻¹·one; it reports
// false for a singular basis.
func (p *packLP) refactor() bool {
	n := p.n
	p.krow, p.kcol = p.krow[:0], p.kcol[:0]
	for q, id := range p.basic {
		p.kColOf[q] = -1
		if id >= 2*n {
			p.kColOf[q] = len(p.kcol)
			p.kcol = append(p.kcol, q)
		}
	}
	for i := range n {
		p.kRowOf[i] = -1
		if p.posV[i] < 0 && p.posZ[i] < 0 {
			p.kRowOf[i] = len(p.krow)
			p.krow = append(p.krow, i)
		}
	}
	k := len(p.krow)
	if k != len(p.kcol) {
		return false
	}
	if k > 0 {
		M := mat.NewDense(k, k, nil)
		for b, q := range p.kcol {
			for _, i := range p.rows[p.basic[q]-2*n] {
				if a := p.kRowOf[i]; a >= 0 {
					M.Set(a, b, 1)
				}
			}
		}
		var inv mat.Dense
		if err := inv.Inverse(M); err != nil {
			return false
		}
		for b := range k {
			for a := range k {
				p.ninv[b*n+a] = inv.At(b, a)
			}
		}
	}
	// x_B = B⁻¹·one, by column's formula with a = one.
	orig := p.orig
	copy(orig, p.one)
	xY := p.xY[:k]
	for b := range k {
		xY[b] = 0
		for a, v := range p.ninv[b*n : b*n+k] {
			xY[b] += v * p.one[p.krow[a]]
		}
	}
	p.unitValues(xY, orig)
	clear(orig)
	for q, v := range p.alpha {
		p.xb[q] = max(v, 0)
	}
	p.sincePivot = 0
	return true
}

// computePi sets π = c_B·B⁻¹: π_i = lo_i (v_i basic) or up_i (z_i basic) on U, and
// π_R = M⁻ᵀ·(b_Y − A_UYᵀ·π_U).
func (p *packLP) computePi() {
	n, k := p.n, len(p.krow)
	clear(p.pi)
	for i := range n {
		switch {
		case p.posV[i] >= 0:
			p.pi[i] = p.lo[i]
		case p.posZ[i] >= 0:
			p.pi[i] = p.up[i]
		}
	}
	h := p.xY[:k]
	for b, q := range p.kcol {
		r := p.basic[q] - 2*n
		h[b] = p.rhs[r]
		for _, i := range p.rows[r] {
			if p.kRowOf[i] < 0 {
				h[b] -= p.pi[i]
			}
		}
	}
	for b, hb := range h {
		if hb == 0 {
			continue
		}
		for a, v := range p.ninv[b*n : b*n+k] {
			p.pi[p.krow[a]] += hb * v
		}
	}
}

// Dual solves the LP from the last basis (the method's name is the interface's: the
// dual of the master is what runs).
func (p *packLP) Dual() clp.Status { return p.solve(false) }

// Primal solves the LP from the cold basis with Bland's rule throughout, which cannot
// cycle: the fallback after a failed Dual.
func (p *packLP) Primal() clp.Status {
	p.warm = false
	return p.solve(true)
}

func (p *packLP) solve(bland bool) clp.Status {
	n := p.n
	p.iterations, p.ops = 0, 0
	for i := range n {
		if p.lo[i] > p.up[i] {
			// Crossed bounds: no K at all (the dual's ray is v_i = z_i, with no y part
			// for certifyRay to check). The search never crosses them; callers may.
			p.ray = make([]float64, len(p.rows))
			p.status = clp.PrimalInfeasible
			return p.status
		}
	}
	if !p.warm {
		p.coldStart()
	}
	var deadline time.Time
	if p.maxSeconds > 0 {
		deadline = time.Now().Add(time.Duration(p.maxSeconds * float64(time.Second)))
	}
	p.computePi()
	maxIter := packIterMul * (len(p.rows) + 2*n)
	degenerate, retried := 0, false
	// fail ends the solve on numerical trouble; the next one starts cold.
	fail := func() clp.Status {
		p.warm = false
		p.status = clp.StoppedOnErrors
		return p.status
	}
	// retry refactorises once per solve after a failed check of the answer.
	retry := func() bool {
		if retried || !p.refactor() {
			return false
		}
		retried = true
		p.computePi()
		return true
	}
	for {
		if p.iterations%packClockTic == 0 && !deadline.IsZero() && time.Now().After(deadline) ||
			p.maxOps > 0 && p.Ops() >= p.maxOps {
			p.status = clp.StoppedOnLimit
			return p.status
		}
		if p.iterations >= maxIter {
			return fail()
		}
		useBland := bland || degenerate >= packBlandIn
		enter := p.price(useBland)
		if enter < 0 {
			if p.finish() {
				p.status = clp.Optimal
				return p.status
			}
			if !retry() {
				return fail()
			}
			continue
		}
		d := p.reduced(enter)
		p.column(enter)
		leave, ratio := p.ratioTest(useBland)
		p.iterations++
		p.ops += int64(2*p.n + len(p.krow)*len(p.krow))
		if leave < 0 {
			if p.certifyRay(enter) {
				p.status = clp.PrimalInfeasible
				return p.status
			}
			if !retry() {
				return fail()
			}
			continue
		}
		if ratio <= 1e-12 {
			degenerate++
		} else {
			degenerate = 0
		}
		p.pivot(enter, leave, max(ratio, 0), d)
		if p.sincePivot >= packRefactor {
			if !p.refactor() {
				return fail()
			}
			p.computePi()
		}
	}
}

// ratioTest returns the position leaving the basis for the column in p.alpha and the
// step, or −1 when the column is a ray. Under Bland's rule: the least ratio, ties to the
// smallest id. Otherwise Harris's two passes (Harris, "Pivot selection methods of the
// Devex LP code", Math. Programming 5, 1973): the largest step that keeps every basic
// variable above −packPrimalTol, then among the rows that limit the step within it the
// largest pivot element, which keeps B⁻¹ well conditioned where several ratios are
// nearly tied (degenerate covering rows are common). The basic values may so dip below
// zero by at most packPrimalTol; the bound and the certificates use y clipped at zero,
// which keeps them valid.
func (p *packLP) ratioTest(bland bool) (leave int, ratio float64) {
	leave, ratio = -1, math.Inf(1)
	if bland {
		for q, a := range p.alpha {
			if a <= packPivotTol {
				continue
			}
			t := p.xb[q] / a
			switch {
			case leave < 0 || t < ratio-1e-12:
				leave, ratio = q, t
			case t <= ratio+1e-12 && p.basic[q] < p.basic[leave]:
				leave, ratio = q, min(ratio, t)
			}
		}
		return leave, ratio
	}
	bound := math.Inf(1)
	for q, a := range p.alpha {
		if a > packPivotTol {
			bound = min(bound, max(p.xb[q]+packPrimalTol, 0)/a)
		}
	}
	if math.IsInf(bound, 1) {
		return -1, bound
	}
	for q, a := range p.alpha {
		if a > packPivotTol && p.xb[q]/a <= bound && (leave < 0 || a > p.alpha[leave]) {
			leave = q
		}
	}
	return leave, p.xb[leave] / p.alpha[leave]
}

// price returns the entering variable, or −1 when none improves. Under Bland's rule the
// smallest id among the improving ones. Otherwise Dantzig's rule (the largest reduced
// cost; devex weights were measured and gave nothing here) over the v's, the z's and a
// part of the rows: partial pricing (Chvátal, Linear Programming, 1983, ch. 7; Maros,
// Computational Techniques of the Simplex Method, 2003, §9.4). The rows are scanned in
// chunks from where the last scan stopped, and a chunk that holds an improving row ends
// the scan; only a whole cycle without one proves optimality. With thousands of cuts on
// a few hundred records, full pricing was 40 % of a search's time (noise_additive_50,
// 200 records, OWA).
func (p *packLP) price(bland bool) int {
	n := p.n
	best, bestD := -1, packDualTol
	consider := func(id int, d float64) {
		if bland {
			if d > packDualTol && (best < 0 || id < best) && !p.isBasic(id) {
				best, bestD = id, d
			}
			return
		}
		if d > bestD && !p.isBasic(id) {
			best, bestD = id, d
		}
	}
	for i := range n {
		consider(i, p.lo[i]-p.pi[i])
		consider(n+i, p.pi[i]-p.up[i])
	}
	R := len(p.rows)
	if R == 0 {
		return best
	}
	chunk, start := R, 0 // Bland's rule: every row, in id order
	if !bland {
		chunk, start = max(packPriceChunk, R/packPriceParts), p.priceNext%R
	}
	for k := range R {
		r := start + k
		if r >= R {
			r -= R
		}
		if bland && best >= 0 && 2*n+r > best {
			break // the rows' ids are larger than the one found
		}
		d := p.rhs[r]
		for _, i := range p.rows[r] {
			d -= p.pi[i]
		}
		p.ops += int64(len(p.rows[r]))
		consider(2*n+r, d)
		if (k+1)%chunk == 0 && best >= 0 {
			p.priceNext = r + 1
			return best
		}
	}
	if best >= 0 && !bland {
		// Found in the last, shorter chunk: the next scan starts there.
		p.priceNext = start + R - R%chunk
	}
	return best
}

// pivot brings enter into the basis at position leave with step t; d is its reduced
// cost. M⁻¹ changes by the kind of exchange: a y for a y replaces a kernel column
// (product form); a y for a v or z borders the kernel with the record's row and the y's
// column; a v or z for a y deletes a row and a column; a v or z for another record's v
// or z replaces a kernel row. Each costs O(k²) for a kernel of order k.
func (p *packLP) pivot(enter, leave int, t, d float64) {
	n, k := p.n, len(p.krow)
	a := p.alpha
	piv := a[leave]
	for q := range n {
		p.xb[q] = max(p.xb[q]-t*a[q], 0)
	}
	p.xb[leave] = t
	out := p.basic[leave]
	// When v_i or z_i leaves (record i, sign s), w = A_iY·M⁻¹ of the old kernel serves
	// both π's update and the kernel's.
	var i int
	var s float64
	var w []float64
	if out < 2*n {
		i, s = unitRecord(out, n)
		w = p.kernelRow(i)
	}
	// π += d·(row leave of the new B⁻¹) = d/α_leave·(row leave of the old one): on R
	// the kernel's row (a y leaves) or −s·w (v_i or z_i leaves), plus s at i.
	if d != 0 {
		f := d / piv
		row := w
		if out >= 2*n {
			b := p.kColOf[leave]
			row = p.ninv[b*n : b*n+k]
		} else {
			p.pi[i] += f * s
			f = -f * s
		}
		for x, v := range row {
			p.pi[p.krow[x]] += f * v
		}
	}
	N := p.ninv
	switch {
	case enter >= 2*n && out >= 2*n:
		// Column b0 of M replaced: row b0 of M⁻¹ over α_b0, the others less α_b times it.
		b0 := p.kColOf[leave]
		row := N[b0*n : b0*n+k]
		floats.Scale(1/piv, row)
		for b, q := range p.kcol {
			if b != b0 && a[q] != 0 {
				floats.AddScaled(N[b*n:b*n+k], -a[q], row)
			}
		}
	case enter >= 2*n:
		// v_i or z_i leaves: record i and the y join the kernel. With u = M⁻¹·a_R,
		// w = A_iY·M⁻¹ and σ = a_i − A_iY·u = s_i·α_leave, the bordered inverse is
		// [M⁻¹ + u·w/σ, −u/σ; −w/σ, 1/σ].
		sigma := s * piv
		u := p.xY[:k]
		for b, q := range p.kcol {
			u[b] = a[q]
		}
		for b := range k {
			row := N[b*n : b*n+k+1]
			floats.AddScaled(row[:k], u[b]/sigma, w)
			row[k] = -u[b] / sigma
		}
		last := N[k*n : k*n+k+1]
		for x := range k {
			last[x] = -w[x] / sigma
		}
		last[k] = 1 / sigma
		p.krow, p.kcol = append(p.krow, i), append(p.kcol, leave)
		p.kRowOf[i], p.kColOf[leave] = k, k
	case out >= 2*n:
		// v_j or z_j (j in R) for a y: M loses row a0 (record j) and column b0; M⁻¹
		// loses row b0 and column a0 after N − N[:, a0]·N[b0, :]/N[b0, a0].
		j, _ := unitRecord(enter, n)
		a0, b0 := p.kRowOf[j], p.kColOf[leave]
		rowB0 := N[b0*n : b0*n+k]
		pv := rowB0[a0]
		for b := range k {
			if b == b0 {
				continue
			}
			row := N[b*n : b*n+k]
			if f := row[a0]; f != 0 {
				floats.AddScaled(row, -f/pv, rowB0)
			}
		}
		last := k - 1
		if b0 != last {
			copy(N[b0*n:b0*n+k], N[last*n:last*n+k])
			p.kcol[b0] = p.kcol[last]
			p.kColOf[p.kcol[b0]] = b0
		}
		if a0 != last {
			for b := range last {
				N[b*n+a0] = N[b*n+last]
			}
			p.krow[a0] = p.krow[last]
			p.kRowOf[p.krow[a0]] = a0
		}
		p.krow, p.kcol = p.krow[:last], p.kcol[:last]
		p.kRowOf[j], p.kColOf[leave] = -1, -1
	default:
		// v_j or z_j (j in R) for record i's: row a0 of M becomes A_iY. With w =
		// A_iY·M⁻¹: M⁻¹ − M⁻¹[:, a0]·(w − e_a0)/w_a0.
		j, _ := unitRecord(enter, n)
		a0 := p.kRowOf[j]
		pv := w[a0]
		w[a0]--
		for b := range k {
			row := N[b*n : b*n+k]
			if f := row[a0]; f != 0 {
				floats.AddScaled(row, -f/pv, w)
			}
		}
		p.krow[a0] = i
		p.kRowOf[i], p.kRowOf[j] = a0, -1
	}
	p.setPos(out, -1)
	p.basic[leave] = enter
	p.setPos(enter, leave)
	p.sincePivot++
}

// unitRecord is the record and sign of v_i (+1) or z_i (−1), given its id.
func unitRecord(id, n int) (int, float64) {
	if id < n {
		return id, 1
	}
	return id - n, -1
}

// transposeTimes returns g = Aᵀy and bᵀy for y ≥ 0 (one entry per row).
func (p *packLP) transposeTimes(y []float64) (g []float64, by float64) {
	g = make([]float64, p.n)
	for r, v := range y {
		if v == 0 {
			continue
		}
		by += p.rhs[r] * v
		for _, i := range p.rows[r] {
			g[i] += v
		}
	}
	return g, by
}

// yValues returns the dual's y (one per row) at the current basis.
func (p *packLP) yValues() []float64 {
	y := make([]float64, len(p.rows))
	for r, q := range p.posY {
		if q >= 0 {
			y[r] = max(p.xb[q], 0)
		}
	}
	return y
}

// finish checks the optimal basis: K = π clipped to the bounds must satisfy the rows and
// Σ K must be within packCheckTol of the Lagrangian bound of y; the bound is the objective.
func (p *packLP) finish() bool {
	n := p.n
	K := make([]float64, n)
	sum := 0.0
	for i := range n {
		K[i] = min(max(p.pi[i], p.lo[i]), p.up[i])
		sum += K[i]
	}
	for r, S := range p.rows {
		if coverage(S, K) < p.rhs[r]-packCheckTol {
			return false
		}
	}
	y := p.yValues()
	g, bound := p.transposeTimes(y)
	for i := range n {
		c := 1 - g[i]
		bound += min(p.lo[i]*c, p.up[i]*c)
	}
	if sum-bound > packCheckTol*max(1, math.Abs(bound)) {
		return false
	}
	p.k, p.obj = K, bound
	return true
}

// certifyRay checks the unbounded direction of entering variable enter: its y part ŷ ≥ 0
// must satisfy bᵀŷ > Σ_i up_i·(Aᵀŷ)_i, which no K in the bounds can meet.
func (p *packLP) certifyRay(enter int) bool {
	n := p.n
	y := make([]float64, len(p.rows))
	if enter >= 2*n {
		y[enter-2*n] = 1
	}
	for r, q := range p.posY {
		if q >= 0 {
			y[r] = max(-p.alpha[q], 0)
		}
	}
	g, lhs := p.transposeTimes(y)
	scale := math.Abs(lhs) // b ≥ 0 and y ≥ 0: |bᵀy| = Σ|b_r·y_r|
	for i := range n {
		lhs -= p.up[i] * g[i]
		scale += p.up[i] * g[i]
	}
	if lhs <= 1e-9*max(1, scale) {
		return false
	}
	p.ray = y // the basis stays feasible: the next solve resumes from it
	return true
}
