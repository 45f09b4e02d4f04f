package optimize

import (
	"math"
	"time"

	"github.com/reid-sdc/reid/optimize/clp"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// psdGame is the θ-LP of the bilinear family solved as a matrix game, as gameLP solves the
// simplex families'. The positive semi-definite matrices of trace 1 are the convex hull of
// the rank-one matrices vvᵀ with |v| = 1, so the rows ⟨W, A_r⟩ ≥ lo_r (A_r the matrix of row
// r's coefficients a_r: a_kk on the diagonal, a_kl/2 off it, so that ⟨W, A_r⟩ = a_r·θ) hold
// for some such W exactly when
//
//	v* = max_W min_r ⟨W, A_r − lo_r I⟩ = min_{y∈Δ_R} λ_max(Σ_r y_r (A_r − lo_r I)) ≥ 0
//
// (von Neumann's minimax theorem; λ_max(M) = max_{|v|=1} vᵀMv). psdGame solves it by column
// generation over the rank-one strategies, the Dantzig–Wolfe view of the spectral bundle
// method (Helmberg & Rendl, "A spectral bundle method for semidefinite programming", SIAM
// J. Optimization 10, 2000, §3): a gameLP plays the rows against a few unit vectors v_t
// (slots; payoff v_tᵀA_r v_t − lo_r). Its value never exceeds v*, so a restricted game that
// is feasible gives a W = Σ_t p_t v_t v_tᵀ that is feasible, positive semi-definite by
// construction; a restricted game that is infeasible gives rows' weights y, and either
// λ_max(Σ_r y_r (A_r − lo_r I)) < 0, which proves that no W satisfies the rows (for every
// W, Σ_r y_r (⟨W, A_r⟩ − lo_r) ≤ λ_max·trace(W) < 0: a Farkas certificate, verified here
// with a rounding allowance), or its top eigenvector (at a point between y and the best
// y so far: solve) is a strategy the game lacked: it replaces the slot unused the longest
// and the game is solved again.
//
// Against CLP with eigenvector cuts (an outer approximation of the cone, refined by
// Kelley's cutting planes, each round a re-solve with a dense row) the decision needs no
// cut rounds and every answer is exact for the cone; the game's basis is (slots+1)², small
// whatever the number of rows. Family rows (trace, minors, cuts, the aux columns' rows of
// the CLP model) hold for every PSD W of trace 1 and are kept out of the game.
type psdGame struct {
	sp *bilinearSpace
	// The rows: coefficients over W's n parameters (row-major), lower bounds, and whether
	// a row is a family row (never active).
	coef   []float64
	lo     []float64
	family []bool
	// The slots: each strategy's θ (n each: a PSD W of trace 1, rank one when generated,
	// or an aggregate), and the round each last had weight in a solution or was added.
	phi   []float64
	used  []int
	round int
	game  *gameLP

	theta      []float64
	cert       []float64
	status     clp.Status
	iterations int
	// ops counts the last solve's operations (its games', the points' matrices and
	// eigendecompositions): its work, clock.go.
	ops        int64
	maxSeconds float64
	// maxOps, when positive, stops a solve once ops reaches it, undecided (a work limit's
	// cap, solver.limit): checked between rounds, and each round's game is capped by
	// what is left of it.
	maxOps int64
	// columns counts the strategies generated (eigenvectors added), for the stats.
	columns int
}

// psdSlotFactor: the game holds psdSlotFactor·m strategies (m the order of W).
const psdSlotFactor = 3

// psdGrowRounds: a solve that has not decided after so many rounds grows the game to
// n + m slots for good (n = m(m+1)/2 parameters): with 3m slots the generation can stall
// (measured on six attributes: the restricted value unchanged for 2,000 rounds), with
// n + m it decided every case measured, and most solves never need them.
const psdGrowRounds = 40

// psdMaxRounds bounds the column-generation rounds of one solve; beyond it the solve stops
// undecided (StoppedOnErrors, not resumable), which the search takes as stalled
// (notDecided).
const psdMaxRounds = 2000

// psdGapTol: when the restricted game's value and λ_max of its optimal y are closer than
// this, v* is within it of 0 and the solve stops undecided (solveSub then retries at half
// the slack, where v* is lpSlack/2 from 0).
const psdGapTol = 1e-10

// newPSDGame returns an empty θ-LP of the bilinear space s. Its first strategies are the
// unit vectors (diagonal W: the weighted means) and the sums and differences of
// neighbouring pairs (cyclically); from, if not nil, gives its own (learned) strategies instead.
func newPSDGame(s *bilinearSpace, from *psdGame) *psdGame {
	m := s.m
	slots := psdSlotFactor * m
	if m == 1 {
		slots = 1
	}
	p := &psdGame{sp: s, phi: make([]float64, slots*s.n), used: make([]int, slots),
		game: newGameLP(slots), theta: make([]float64, s.n), status: clp.Unknown}
	p.game.toOptimum = true
	if from != nil {
		copy(p.phi, from.phi)
		return p
	}
	v := make([]float64, m)
	for t := range slots {
		clear(v)
		switch k := t - m; {
		case t < m:
			v[t] = 1
		default:
			a, b := (k/2)%m, (k/2+1)%m
			v[a], v[b] = math.Sqrt2/2, math.Sqrt2/2
			if k%2 == 1 {
				v[b] = -v[b]
			}
		}
		p.setRankOne(t, v)
	}
	return p
}

// setRankOne sets slot t to W = vvᵀ: θ_kl = v_k v_l, so that a·θ = vᵀAv.
func (p *psdGame) setRankOne(t int, v []float64) {
	s, m := p.sp, p.sp.m
	phi := p.phi[t*s.n : (t+1)*s.n]
	for k := range m {
		for l := k; l < m; l++ {
			phi[s.col(k, l)] = v[k] * v[l]
		}
	}
}

func (p *psdGame) slots() int { return len(p.used) }

func (p *psdGame) NumRows() int            { return len(p.lo) }
func (p *psdGame) Iterations() int         { return p.iterations }
func (p *psdGame) Ops() int64              { return p.ops }
func (p *psdGame) SetMaxSeconds(s float64) { p.maxSeconds = s }
func (p *psdGame) SetMaxOps(n int64)       { p.maxOps = n }
func (p *psdGame) Close()                  {}

// Solution returns W of the last feasible solve (θ: the upper triangle, row by row).
func (p *psdGame) Solution(dst []float64) []float64 { return append(dst[:0], p.theta...) }

// FarkasCertificate returns the verified certificate of the last solve (y ≥ 0 per row with
// λ_max(Σ_r y_r (A_r − lo_r I)) < 0), or false when the last solve did not end infeasible.
func (p *psdGame) FarkasCertificate() ([]float64, bool) {
	if p.status != clp.PrimalInfeasible {
		return nil, false
	}
	return append([]float64(nil), p.cert...), true
}

// AddRows appends rows lo ≤ a·θ ≤ up in CSR form. A row with a coefficient beyond W's
// columns (the CLP model's aux columns) or an equality (the trace row) is a family row;
// every other row must be a record row a·θ ≥ lo.
func (p *psdGame) AddRows(lo, up []float64, start, idx []int, val []float64) error {
	n, slots := p.sp.n, p.slots()
	pay := make([]float64, slots)
	for x := range lo {
		row := make([]float64, n)
		fam := lo[x] == up[x]
		for e := start[x]; e < start[x+1]; e++ {
			if idx[e] >= n {
				fam = true
				continue
			}
			row[idx[e]] = val[e]
		}
		if !fam && !math.IsInf(up[x], 1) {
			panic("optimize: the PSD game holds rows a·θ ≥ lo only")
		}
		p.coef = append(p.coef, row...)
		p.lo = append(p.lo, math.Inf(-1))
		p.family = append(p.family, fam)
		p.game.addRow(p.payoffs(len(p.lo)-1, pay))
		if !fam {
			p.SetRowBounds(len(p.lo)-1, lo[x], up[x])
		}
	}
	return nil
}

// SetRowBounds sets the lower bound of a record row (up must be +Inf); −Inf switches it off.
func (p *psdGame) SetRowBounds(row int, lo, up float64) {
	if p.family[row] {
		return
	}
	p.lo[row] = lo
	p.game.SetRowBounds(row, lo, up)
}

// Dual solves the LP (the name of the interface CLP's models fill).
func (p *psdGame) Dual() clp.Status { return p.solve() }

// Primal solves the LP again (the answer does not depend on the algorithm).
func (p *psdGame) Primal() clp.Status { return p.solve() }

func (p *psdGame) solve() clp.Status {
	p.iterations, p.ops = 0, 0
	p.cert = nil
	var deadline time.Time
	if p.maxSeconds > 0 {
		deadline = time.Now().Add(time.Duration(p.maxSeconds * float64(time.Second)))
	}
	// best: the y of the least λ_max seen (v* ≤ that λ_max), the stability centre.
	var best *psdPoint
	for rounds := 0; ; rounds++ {
		if !deadline.IsZero() {
			p.game.SetMaxSeconds(max(time.Until(deadline).Seconds(), 1e-3))
		}
		if p.maxOps > 0 {
			p.game.SetMaxOps(max(p.maxOps-p.ops, 1))
		}
		st := p.game.solve()
		p.iterations += p.game.iterations
		p.ops += p.game.ops
		p.round++
		switch st {
		case clp.Optimal:
			p.markUsed()
			p.mixture(p.theta)
			p.status = clp.Optimal
			return p.status
		case clp.PrimalInfeasible:
			p.markUsed()
			cur := p.point(append([]float64(nil), p.game.cert...))
			if !cur.top() {
				p.status = clp.StoppedOnErrors
				return p.status
			}
			if best == nil || cur.lambda < best.lambda {
				best = cur
			}
			// Price at a point between the centre and the game's y (Wentges' smoothing,
			// "Weighted Dantzig–Wolfe decomposition", ITOR 4, 1997): the game's y alone
			// jumps from round to round and the values stall.
			sep := cur
			if best != cur {
				sep = best.mix(cur, psdSmoothing)
				if !sep.top() {
					sep = cur
				} else if sep.lambda < best.lambda {
					best = sep
				}
			}
			if best.lambda < -best.allow() {
				p.cert = best.y
				p.status = clp.PrimalInfeasible
				return p.status
			}
			value := p.game.xb[p.game.m] // the restricted game's (negative) value: v* ≥ it
			if best.lambda-value < max(psdGapTol, best.allow()) || rounds >= psdMaxRounds || !deadline.IsZero() && time.Now().After(deadline) ||
				p.maxOps > 0 && p.ops >= p.maxOps {
				p.status = clp.StoppedOnErrors // undecided: not resumable
				return p.status
			}
			if rounds == psdGrowRounds {
				p.grow()
			}
			// The separating strategy must improve the game at its y (else: mispricing,
			// and the game's own best response is taken).
			v := sep.v
			if sep != cur && quad(cur.M, v) <= value+psdGapTol {
				v = cur.v
			}
			p.add(v)
		default:
			p.status = st
			return p.status
		}
	}
}

// psdSmoothing is the weight of the stability centre in the pricing point.
const psdSmoothing = 0.7

// psdPoint is a weighting y of the rows with M = Σ_r y_r (A_r − lo_r I) (row-major m×m),
// the scale Σ_r y_r (Σ|a_r| + |lo_r|) of its rounding, and once top has run, λ_max(M)
// and its unit eigenvector.
type psdPoint struct {
	y, M   []float64
	scale  float64
	m      int
	lambda float64
	v      []float64
}

// point computes M and the scale of y.
func (p *psdGame) point(y []float64) *psdPoint {
	s, m, n := p.sp, p.sp.m, p.sp.n
	pt := &psdPoint{y: y, M: make([]float64, m*m), m: m}
	p.ops += int64(len(y) + 10*m*m*m) // the rows' weights, the eigendecomposition
	for r, w := range y {
		if w <= 0 {
			continue
		}
		p.ops += int64(2 * n)
		a := p.coef[r*n : (r+1)*n]
		for k := range m {
			for l := k; l < m; l++ {
				c := a[s.col(k, l)]
				if l != k {
					c /= 2
				} else {
					c -= p.lo[r]
				}
				pt.M[k*m+l] += w * c
			}
		}
		for _, c := range a {
			pt.scale += w * math.Abs(c)
		}
		pt.scale += w * math.Abs(p.lo[r])
	}
	for k := range m {
		for l := k + 1; l < m; l++ {
			pt.M[l*m+k] = pt.M[k*m+l]
		}
	}
	return pt
}

// mix returns α·a + (1 − α)·b.
func (a *psdPoint) mix(b *psdPoint, alpha float64) *psdPoint {
	pt := &psdPoint{y: make([]float64, len(b.y)), M: make([]float64, len(a.M)), m: a.m,
		scale: alpha*a.scale + (1-alpha)*b.scale}
	for r := range pt.y {
		if r < len(a.y) {
			pt.y[r] = alpha * a.y[r]
		}
		pt.y[r] += (1 - alpha) * b.y[r]
	}
	for x := range pt.M {
		pt.M[x] = alpha*a.M[x] + (1-alpha)*b.M[x]
	}
	return pt
}

// allow is the rounding allowance of λ_max(M): 1e-12 of the scale, far above the backward
// error of the symmetric eigensolver and of the sums.
func (pt *psdPoint) allow() float64 { return 1e-12 * (pt.scale + 1e-300) }

// top sets λ_max(M) and its eigenvector; false when the eigensolver fails.
func (pt *psdPoint) top() bool {
	m := pt.m
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(m, append([]float64(nil), pt.M...)), true) {
		return false
	}
	pt.lambda = eig.Values(nil)[m-1]
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	pt.v = make([]float64, m)
	for k := range m {
		pt.v[k] = vecs.At(k, m-1)
	}
	return true
}

// quad returns vᵀMv (M row-major).
func quad(M, v []float64) float64 {
	s := 0.0
	for k, vk := range v {
		s += vk * floats.Dot(M[k*len(v):(k+1)*len(v)], v)
	}
	return s
}

// markUsed stamps the slots the last solution's W mixes (θ = −π of the optimal basis).
func (p *psdGame) markUsed() {
	for t, w := range p.game.theta {
		if w > 0 {
			p.used[t] = p.round
		}
	}
}

// add puts the rank-one strategy vvᵀ in the slot unused the longest (the lowest index
// among equals). When every slot is in the last solution's mix, the mix W̄ = Σ_t p_t W_t
// first replaces the slot of largest weight and the others are freed: W̄ scores what the
// mix scored, so the restricted game's value never decreases (the aggregation of the
// spectral bundle method, Helmberg & Rendl 2000, §3).
func (p *psdGame) add(v []float64) {
	slots := p.slots()
	if p.oldest() < 0 {
		n := p.sp.n
		agg := p.mixture(make([]float64, n))
		top := 0
		for t, w := range p.game.theta {
			if w > p.game.theta[top] {
				top = t
			}
		}
		for t := range slots {
			p.used[t] = 0
		}
		copy(p.phi[top*n:(top+1)*n], agg)
		p.used[top] = p.round
		p.refresh(top)
	}
	t := p.oldest()
	if t < 0 {
		t = 0 // one slot (m = 1): the only strategy
	}
	p.setRankOne(t, v)
	p.used[t] = p.round
	p.columns++
	p.refresh(t)
}

// grow rebuilds the game with n + m slots; the new ones repeat the first strategy and
// are the first to be replaced.
func (p *psdGame) grow() {
	n, old := p.sp.n, p.slots()
	slots := n + p.sp.m
	if old >= slots {
		return
	}
	phi, used := make([]float64, slots*n), make([]int, slots)
	copy(phi, p.phi)
	copy(used, p.used)
	for t := old; t < slots; t++ {
		copy(phi[t*n:(t+1)*n], p.phi[:n])
		used[t] = -1
	}
	p.phi, p.used = phi, used
	g := newGameLP(slots)
	g.toOptimum = true
	pay := make([]float64, slots)
	for r := range p.lo {
		g.addRow(p.payoffs(r, pay))
		if !p.family[r] {
			g.SetRowBounds(r, p.lo[r], math.Inf(1))
		}
	}
	g.maxSeconds = p.game.maxSeconds
	p.game = g
}

// oldest returns the slot unused the longest, or −1 when every slot was used this round.
// Slots whose inequality is slack in the game's basis come first: replacing one of them
// leaves the basis dual feasible, and the next solve resumes from it (gameLP.dualPhase).
func (p *psdGame) oldest() int {
	t := -1
	for pass := 0; pass < 2 && t < 0; pass++ {
		for u, r := range p.used {
			if r < p.round && (pass == 1 || p.game.basicSlack[u]) && (t < 0 || r < p.used[t]) {
				t = u
			}
		}
	}
	return t
}

// payoffs sets pay (one per slot) to row r's payoffs a_r·θ_t against the slots.
func (p *psdGame) payoffs(r int, pay []float64) []float64 {
	n := p.sp.n
	for t := range pay {
		pay[t] = floats.Dot(p.coef[r*n:(r+1)*n], p.phi[t*n:(t+1)*n])
	}
	return pay
}

// mixture sets dst to the last solution's W = Σ_t p_t W_t (p = the game's θ).
func (p *psdGame) mixture(dst []float64) []float64 {
	n := p.sp.n
	clear(dst)
	for t, w := range p.game.theta {
		if w > 0 {
			for c, f := range p.phi[t*n : (t+1)*n] {
				dst[c] += w * f
			}
		}
	}
	return dst
}

// refresh recomputes every row's payoff against slot t.
func (p *psdGame) refresh(t int) {
	n := p.sp.n
	phi := p.phi[t*n : (t+1)*n]
	pay := make([]float64, len(p.lo))
	for r := range p.lo {
		pay[r] = floats.Dot(p.coef[r*n:(r+1)*n], phi)
	}
	p.game.setColumn(t, pay)
}
