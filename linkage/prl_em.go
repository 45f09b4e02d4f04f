package linkage

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/reid-sdc/reid/internal/workers"
)

// PatternTable is the input of EM: agreement patterns and how many pairs show each.
type PatternTable struct {
	// Levels[k] is the number of non-missing levels of attribute k (level 0 is the
	// closest agreement).
	Levels []int
	// Pattern[p*K+k] is the level of attribute k in pattern p, −1 when missing.
	Pattern []int8
	// Count[p] is the number of pairs (a weight; need not be integral).
	Count []float64
}

// EMSettings tunes EM.
type EMSettings struct {
	// P is the match proportion: fixed unless EstimateP, then the starting value.
	P         float64
	EstimateP bool
	// MaxIterations bounds the iterations (0: 1000). Tolerance is the convergence test on
	// the relative change of the log-likelihood, |ℓ_t − ℓ_{t−1}| ≤ Tolerance·|ℓ_{t−1}|
	// (0: 1e-12; negative: run exactly MaxIterations).
	MaxIterations int
	Tolerance     float64
	// Threads bounds the cores of each E-step (0: GOMAXPROCS); the answer does not
	// depend on it.
	Threads int
	// Start, when set, is the starting m and u. Otherwise EM runs from two starts and
	// keeps the better oriented fit (see EM): m favouring agreement geometrically with u
	// the marginal distribution of the levels, and the closest pairs taken as the matches.
	StartM, StartU [][]float64
}

// ProbFloor keeps the probabilities away from 0 and 1: after each M-step a probability
// below ProbFloor is raised to it and the attribute's levels are renormalised (only when
// some level was raised, so an interior maximum is untouched); the match proportion is
// clamped to [ProbFloor, 1 − ProbFloor]. Weights are then bounded by |log2(m/u)| ≲ 20 bits
// per attribute.
const ProbFloor = 1e-6

// EMResult is the fitted Fellegi–Sunter model.
type EMResult struct {
	// M[k][l] = P(level l of attribute k | match), U[k][l] the same for non-matches.
	M, U [][]float64
	// P is the match proportion.
	P float64
	// Iterations is the number of M-steps; LogLikelihood the observed-data log-likelihood
	// Σ_γ n_γ log(p·m(γ) + (1−p)·u(γ)) at the returned parameters.
	Iterations    int
	LogLikelihood float64
	Converged     bool
	// LabelSwitched is set when the classes came out reversed (the "match" class did not
	// favour agreement) and were swapped; Supervised when m and u come from the truth.
	LabelSwitched bool
	Supervised    bool
	// Warning says when the guard could not orient the classes.
	Warning string
	// Start names the start the fit came from: "given" (EMSettings.StartM), "geometric"
	// or "closest pairs" (see EM).
	Start string
}

// EM fits the two-class latent model of Fellegi & Sunter (1969) with conditional
// independence of the attributes given the class, by the EM algorithm on the pattern
// counts (Winkler 1988; Jaro 1989): the E-step gives each pattern γ the posterior
//
//	g(γ) = p·m(γ) / (p·m(γ) + (1−p)·u(γ)),  m(γ) = Π_k m_k(γ_k), u(γ) = Π_k u_k(γ_k),
//
// the M-step sets m_k(l) = Σ_γ n_γ g(γ) [γ_k = l] / Σ_γ n_γ g(γ) [γ_k not missing], u_k
// likewise with 1 − g, and p = Σ n_γ g(γ) / Σ n_γ when estimated. A missing level
// contributes the factor 1 to both classes (weight 0). The cost of an iteration is
// O(patterns · attributes), whatever the number of pairs.
//
// Label switching guard: the match class must favour agreement, Σ_k log(m_k(0)/u_k(0)) > 0.
// When the fit ends the other way round the classes are swapped (p ↔ 1 − p) and, when p is
// fixed, EM is run again from the swapped point with the fixed p, within what is left of
// MaxIterations; when nothing is left, the swapped classes are kept with a warning (no EM
// estimate).
//
// Without EMSettings.StartM, EM runs from two starts, the geometric one (m_k(l) ∝ 2^(−3l))
// and the closest pairs taken as the matches (closestStart), and keeps the fit the guard
// could orient, or of the two the one of higher likelihood: EM finds a local maximum,
// and a start that presumes the wrong level for the true pairs can end far from it.
func EM(t PatternTable, s EMSettings) (EMResult, error) {
	if err := t.check(); err != nil {
		return EMResult{}, err
	}
	if !(s.P > 0 && s.P < 1) {
		return EMResult{}, fmt.Errorf("linkage: match proportion %v is not in (0, 1)", s.P)
	}
	if s.StartM != nil && s.StartU != nil {
		// The flat E-step would read a longer row into the next attribute's levels.
		for _, start := range [][][]float64{s.StartM, s.StartU} {
			if len(start) != len(t.Levels) {
				return EMResult{}, fmt.Errorf("%w: a start of %d attributes for %d", ErrShapePRL, len(start), len(t.Levels))
			}
			for k, row := range start {
				if len(row) != t.Levels[k] {
					return EMResult{}, fmt.Errorf("%w: a start of %d levels for attribute %d of %d", ErrShapePRL, len(row), k, t.Levels[k])
				}
			}
		}
		r := t.fit(cloneProbs(s.StartM), cloneProbs(s.StartU), s)
		r.Start = "given"
		return r, nil
	}
	m, u := t.start()
	mc, uc, ok := t.closestStart(s.P)
	if !ok {
		r := t.fit(m, u, s)
		r.Start = "geometric"
		return r, nil
	}
	// The two fits run side by side, each E-step on its share of the cores: the E-step's
	// sums do not depend on its number of cores, so neither does the answer, and two
	// independent fits scale better than one E-step's chunks (CENSUS noise_additive_10,
	// 23,312 patterns, two cores: 52–59 ms against 61–72 ms one fit after the other).
	threads := s.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var r, c EMResult
	sr, sc := s, s
	sr.Threads, sc.Threads = max(1, threads/2), max(1, threads-threads/2)
	workers.ForEach(2, threads, func(i int) {
		if i == 0 {
			r = t.fit(m, u, sr)
		} else {
			c = t.fit(mc, uc, sc)
		}
	})
	r.Start, c.Start = "geometric", "closest pairs"
	if better(c, r, s.Tolerance) {
		r = c
	}
	return r, nil
}

// better reports whether fit c is to be kept over fit r: an oriented fit over one the
// guard could not orient, then one without a warning over one with (classes swapped
// after the last iteration, not fitted again), then a log-likelihood higher by more than the convergence
// test's tolerance (tol, 1e-12 when not positive) relative to r's. Two fits that stopped
// near one maximum differ in the last digits of their likelihoods (2e-14 relative on
// EIA's first 500 records, m and u 1e-6 apart); a plain comparison let rounding choose
// between them, so that any change in the order of the E-step's sums could move m and u
// by 1e-6 and change em_start.
func better(c, r EMResult, tol float64) bool {
	if co, ro := orientation(c.M, c.U) >= 0, orientation(r.M, r.U) >= 0; co != ro {
		return co // weights that favour agreement, as an intruder's would
	}
	if (c.Warning == "") != (r.Warning == "") {
		return c.Warning == ""
	}
	if tol <= 0 {
		tol = 1e-12
	}
	return c.LogLikelihood > r.LogLikelihood+tol*math.Abs(r.LogLikelihood)
}

// fit runs EM from (m, u) and orients the classes.
func (t *PatternTable) fit(m, u [][]float64, s EMSettings) EMResult {
	r := t.run(m, u, s.P, s)
	if orientation(r.M, r.U) >= 0 {
		return r
	}
	maxIt, it := s.maxIterations(), r.Iterations
	if !s.EstimateP && it >= maxIt {
		// With p fixed, swapped classes are no EM estimate until EM has run from them (one
		// step from a swapped point moved u by 0.81 on 60 CENSUS records), and the budget
		// is spent. They are kept, since weights that favour agreement are the intruder's,
		// but flagged and not converged, so that another start's fit wins over them.
		r.M, r.U = r.U, r.M
		r.LabelSwitched, r.Converged = true, false
		r.LogLikelihood = t.logLikelihood(r.M, r.U, r.P, s.Threads)
		r.Warning = fmt.Sprintf("the match class did not favour agreement when the %d iterations were spent: the classes were swapped but not fitted again, so m and u are no EM estimate (raise the iteration limit)", maxIt)
		return r
	}
	r.M, r.U, r.P = r.U, r.M, 1-r.P
	if !s.EstimateP {
		// The re-run with the fixed p shares the iteration budget, so that
		// MaxIterations bounds the whole fit.
		rs := s
		rs.MaxIterations = maxIt - it
		r = t.run(r.M, r.U, s.P, rs)
		r.Iterations += it
	}
	r.LabelSwitched = true
	if orientation(r.M, r.U) < 0 {
		r.Warning = "the match class does not favour agreement even after swapping the classes: the attributes may not separate matches from non-matches"
	}
	return r
}

func orientation(m, u [][]float64) float64 {
	s := 0.0
	for k := range m {
		s += math.Log(m[k][0]) - math.Log(u[k][0])
	}
	return s
}

func cloneProbs(x [][]float64) [][]float64 {
	out := make([][]float64, len(x))
	for k := range x {
		out[k] = append([]float64(nil), x[k]...)
	}
	return out
}

func (t *PatternTable) check() error {
	K := len(t.Levels)
	if K == 0 || len(t.Pattern) != K*len(t.Count) {
		return fmt.Errorf("%w: %d attributes, %d pattern levels for %d patterns", ErrShapePRL, K, len(t.Pattern), len(t.Count))
	}
	for p, n := range t.Count {
		if n < 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			return fmt.Errorf("linkage: pattern %d has count %v", p, n)
		}
		for k := range K {
			if l := t.Pattern[p*K+k]; l < -1 || int(l) >= t.Levels[k] {
				return fmt.Errorf("linkage: pattern %d, attribute %d: level %d of %d", p, k, l, t.Levels[k])
			}
		}
	}
	return nil
}

// start: m_k(l) ∝ 2^(−3l) (agreement favoured), u_k the marginal frequency of the levels
// over all pairs (nearly the non-match distribution when matches are rare).
func (t *PatternTable) start() (m, u [][]float64) {
	K := len(t.Levels)
	m, u = make([][]float64, K), make([][]float64, K)
	for k, L := range t.Levels {
		m[k], u[k] = make([]float64, L), make([]float64, L)
		for l := range L {
			m[k][l] = math.Exp2(-3 * float64(l))
		}
	}
	for p, n := range t.Count {
		for k := range K {
			if l := t.Pattern[p*K+k]; l >= 0 {
				u[k][l] += n
			}
		}
	}
	for k := range K {
		normalise(m[k])
		normalise(u[k])
		floor(u[k])
	}
	return m, u
}

// closestStart is the M-step from a posterior that takes as matches the pairs whose
// patterns agree most closely (lowest Σ_k level_k / (L_k − 1), a missing level counting
// 1/2), as many as the match proportion p gives (the last pattern taken in part), and
// every other pair as a non-match. The geometric start presumes that true pairs sit
// mostly at the first level; where the first band is strict (the 1 % quantile of |Δz|)
// they sit at the second, and EM from there ended in a class of pairs that disagree on
// everything. ok is false when there is no pair.
func (t *PatternTable) closestStart(p float64) (m, u [][]float64, ok bool) {
	K := len(t.Levels)
	score := make([]float64, len(t.Count))
	order := make([]int, len(t.Count))
	total := 0.0
	for x, n := range t.Count {
		order[x] = x
		total += n
		for k, l := range t.Pattern[x*K : x*K+K] {
			if l < 0 {
				score[x] += 0.5
			} else if L := t.Levels[k]; L > 1 {
				score[x] += float64(l) / float64(L-1)
			}
		}
	}
	if total <= 0 {
		return nil, nil, false
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[a], score[b]) })
	m, u = make([][]float64, K), make([][]float64, K)
	for k, L := range t.Levels {
		m[k], u[k] = make([]float64, L), make([]float64, L)
	}
	left := p * total
	for _, x := range order {
		n := t.Count[x]
		g := min(n, left)
		left -= g
		for k, l := range t.Pattern[x*K : x*K+K] {
			if l >= 0 {
				m[k][l] += g
				u[k][l] += n - g
			}
		}
	}
	for k := range K {
		normalise(m[k])
		normalise(u[k])
		floor(m[k])
		floor(u[k])
	}
	return m, u, true
}

func normalise(x []float64) {
	s := 0.0
	for _, v := range x {
		s += v
	}
	if s == 0 {
		for i := range x {
			x[i] = 1 / float64(len(x))
		}
		return
	}
	for i := range x {
		x[i] /= s
	}
}

// floor applies ProbFloor (see there).
func floor(x []float64) {
	raised := false
	for i, v := range x {
		if v < ProbFloor || math.IsNaN(v) {
			x[i] = ProbFloor
			raised = true
		}
	}
	if raised {
		normalise(x)
	}
}

func clampP(p float64) float64 { return min(max(p, ProbFloor), 1-ProbFloor) }

// maxIterations is EMSettings.MaxIterations, 1000 for 0: the budget of a whole fit.
func (s EMSettings) maxIterations() int {
	if s.MaxIterations <= 0 {
		return 1000
	}
	return s.MaxIterations
}

// run iterates EM from (m, u, p).
func (t *PatternTable) run(m, u [][]float64, p float64, s EMSettings) EMResult {
	K := len(t.Levels)
	maxIt := s.maxIterations()
	tol := s.Tolerance
	if tol == 0 {
		tol = 1e-12
	}
	sm, su := t.perLevel(), t.perLevel()
	res := EMResult{}
	prev := math.Inf(-1)
	e := newEStep(t, s.Threads)
	for it := 0; it < maxIt; it++ {
		ll, nm, total := e.run(m, u, p, sm, su)
		if it > 0 && tol > 0 && math.Abs(ll-prev) <= tol*math.Abs(prev) {
			res.Converged = true
			break
		}
		prev = ll
		// M-step.
		for k := range K {
			copy(m[k], sm[k])
			copy(u[k], su[k])
			normalise(m[k])
			normalise(u[k])
			floor(m[k])
			floor(u[k])
		}
		if s.EstimateP {
			p = clampP(nm / total)
		}
		res.Iterations++
	}
	res.M, res.U, res.P = m, u, p
	res.LogLikelihood, _, _ = e.run(m, u, p, sm, su)
	return res
}

// logLikelihood is the observed-data log-likelihood at (m, u, p), summed on up to threads
// cores (≤ 0: GOMAXPROCS; the same bits on any number).
func (t *PatternTable) logLikelihood(m, u [][]float64, p float64, threads int) float64 {
	ll, _, _ := newEStep(t, threads).run(m, u, p, t.perLevel(), t.perLevel())
	return ll
}

// perLevel returns a zero array per attribute, of its number of levels.
func (t *PatternTable) perLevel() [][]float64 {
	x := make([][]float64, len(t.Levels))
	for k, L := range t.Levels {
		x[k] = make([]float64, L)
	}
	return x
}

// eStep is the E-step laid out flat: the level of attribute k in pattern x is slot
// slot[x*K+k] of one array of all attributes' levels end to end (attribute k's first at
// off[k]); a missing level is the last slot, whose log-probabilities are 0 and whose
// expected counts are dropped. The patterns are taken in chunks of eStepChunk, on the
// cores EMSettings.Threads allows, and the chunks' sums added in chunk order: the same bits on
// any number of cores. (The nested per-attribute arrays cost twice the time: CENSUS
// noise_additive_10, 23,312 patterns, EM's two starts took 118 ms.) Only the match
// class's expected counts are summed per pattern: the non-match class's are each slot's
// pair count less them. A chunk takes three passes: the log-odds, their exponentials,
// the sums (on one core, EM's two fits 105 → 89 ms with both changes; math.Exp and
// math.Log1p are most of what is left).
type eStep struct {
	t      *PatternTable
	K      int
	off    []int
	slot   []int32
	lm, lu []float64
	parts  []eStepPart
	// pairs[s] is the number of pairs whose pattern has slot s; total all of them.
	pairs []float64
	total float64
	// threads is the number of goroutines that sum the chunks.
	threads int
}

// eStepPart is one chunk's sums, and its scratch for chunk's passes (kept here, not on the
// stack of goroutines made anew each E-step, whose stacks would grow each time).
type eStepPart struct {
	ll, nm     float64
	sm         []float64
	w, top, ex []float64
}

// eStepChunk is the number of patterns of a chunk.
const eStepChunk = 4096

func newEStep(t *PatternTable, threads int) *eStep {
	K := len(t.Levels)
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	e := &eStep{t: t, K: K, off: make([]int, K), threads: threads}
	slots := 0
	for k, L := range t.Levels {
		e.off[k] = slots
		slots += L
	}
	e.lm, e.lu = make([]float64, slots+1), make([]float64, slots+1)
	e.slot = make([]int32, len(t.Pattern))
	for x, l := range t.Pattern {
		if l >= 0 {
			e.slot[x] = int32(e.off[x%K] + int(l))
		} else {
			e.slot[x] = int32(slots)
		}
	}
	e.pairs = make([]float64, slots+1)
	for x, n := range t.Count {
		e.total += n
		for _, s := range e.slot[x*K : x*K+K] {
			e.pairs[s] += n
		}
	}
	chunks := (len(t.Count) + eStepChunk - 1) / eStepChunk
	e.parts = make([]eStepPart, chunks)
	for c := range e.parts {
		n := min(eStepChunk, len(t.Count)-c*eStepChunk)
		e.parts[c].sm = make([]float64, slots+1)
		e.parts[c].w, e.parts[c].top, e.parts[c].ex = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	return e
}

// run computes the log-likelihood at (m, u, p) and the expected counts Σ n g [γ_k = l]
// into sm and Σ n (1−g) [γ_k = l] into su (per attribute, as m and u; su as the level's
// pairs less sm, at least 0); it also returns Σ n g and Σ n.
func (e *eStep) run(m, u [][]float64, p float64, sm, su [][]float64) (ll, nm, total float64) {
	for k := range e.K {
		for l := range m[k] {
			e.lm[e.off[k]+l], e.lu[e.off[k]+l] = math.Log(m[k][l]), math.Log(u[k][l])
		}
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	workers.ForEach(len(e.parts), e.threads, func(c int) { e.chunk(c, lp, lq) })
	for k := range e.K {
		clear(sm[k])
		clear(su[k])
	}
	for c := range e.parts {
		pt := &e.parts[c]
		ll += pt.ll
		nm += pt.nm
		for k := range e.K {
			for l := range sm[k] {
				sm[k][l] += pt.sm[e.off[k]+l]
			}
		}
	}
	for k := range e.K {
		for l := range su[k] {
			// Not below 0: a slot of matches only may round below its sum.
			su[k][l] = max(0, e.pairs[e.off[k]+l]-sm[k][l])
		}
	}
	return ll, nm, e.total
}

// chunk sums chunk c's patterns into e.parts[c]: the log-likelihood Σ n log(e^a + e^b)
// and the expected matches n·g with g = e^a/(e^a + e^b), a and b the pattern's log joint
// probabilities under match and non-match (posteriorExp).
func (e *eStep) chunk(c int, lp, lq float64) {
	pt := &e.parts[c]
	clear(pt.sm)
	pt.ll, pt.nm = 0, 0
	K, lm, lu, sm := e.K, e.lm, e.lu, pt.sm
	lo, hi := c*eStepChunk, min((c+1)*eStepChunk, len(e.t.Count))
	w, top, ex := pt.w, pt.top, pt.ex
	for x := range w {
		slots := e.slot[(lo+x)*K : (lo+x)*K+K]
		a, b := lp, lq
		for _, s := range slots {
			a += lm[s]
			b += lu[s]
		}
		w[x], top[x] = a-b, max(a, b)
	}
	for x, v := range w {
		ex[x] = math.Exp(-math.Abs(v))
	}
	for x, n := range e.t.Count[lo:hi] {
		g, lse := posteriorExp(w[x], top[x], ex[x])
		pt.ll += n * lse
		ng := n * g
		pt.nm += ng
		for _, s := range e.slot[(lo+x)*K : (lo+x)*K+K] {
			sm[s] += ng
		}
	}
}

// posterior returns e^a/(e^a+e^b) and log(e^a+e^b) without overflow.
func posterior(a, b float64) (g, lse float64) {
	d := a - b
	return posteriorExp(d, max(a, b), math.Exp(-math.Abs(d)))
}

// posteriorExp is posterior from d = a − b, top = max(a, b) and e = e^−|d|: the E-step
// takes the exponentials of a chunk in a pass of their own.
func posteriorExp(d, top, e float64) (g, lse float64) {
	num := 1.0 // e^a/(e^a+e^b) = 1/(1+e) when a ≥ b, e/(1+e) otherwise
	if d < 0 {
		num = e
	}
	return num / (1 + e), top + math.Log1p(e)
}

// Posterior is g(γ) of pattern x.
func (t *PatternTable) Posterior(x int, m, u [][]float64, p float64) float64 {
	g, _ := t.posteriors(x, m, u, p)
	return g
}

// posteriors returns g(γ) of pattern x and 1 − g(γ), each from the log-odds, so that
// 1 − g keeps its precision when g rounds to 1.
func (t *PatternTable) posteriors(x int, m, u [][]float64, p float64) (g, h float64) {
	K := len(t.Levels)
	a, b := math.Log(p), math.Log1p(-p)
	for k, l := range t.Pattern[x*K : x*K+K] {
		if l >= 0 {
			a += math.Log(m[k][l])
			b += math.Log(u[k][l])
		}
	}
	g, _ = posterior(a, b)
	h, _ = posterior(b, a)
	return g, h
}

// Supervised estimates m and u from the pairs known to be true (trueCount[p] of the
// Count[p] pairs of pattern p) and the others: m_k(l) is the share of true pairs at level
// l, u_k(l) that of false pairs, p the share of true pairs (ProbFloor applies). This is
// the worst-case probabilistic linkage: the intruder knows the model exactly.
func Supervised(t PatternTable, trueCount []float64) (EMResult, error) {
	if err := t.check(); err != nil {
		return EMResult{}, err
	}
	if len(trueCount) != len(t.Count) {
		return EMResult{}, fmt.Errorf("%w: %d true counts for %d patterns", ErrShapePRL, len(trueCount), len(t.Count))
	}
	K := len(t.Levels)
	m, u := make([][]float64, K), make([][]float64, K)
	for k, L := range t.Levels {
		m[k], u[k] = make([]float64, L), make([]float64, L)
	}
	var nt, n float64
	for x, c := range t.Count {
		tc := trueCount[x]
		if tc > c || tc < 0 {
			return EMResult{}, fmt.Errorf("linkage: pattern %d: %v true pairs of %v", x, tc, c)
		}
		nt += tc
		n += c
		for k, l := range t.Pattern[x*K : x*K+K] {
			if l >= 0 {
				m[k][l] += tc
				u[k][l] += c - tc
			}
		}
	}
	if nt == 0 || nt == n {
		return EMResult{}, errors.New("linkage: supervised estimates need both true and false pairs")
	}
	for k := range K {
		normalise(m[k])
		normalise(u[k])
		floor(m[k])
		floor(u[k])
	}
	r := EMResult{M: m, U: u, P: clampP(nt / n), Supervised: true, Converged: true}
	r.LogLikelihood = t.logLikelihood(m, u, r.P, 0) // one E-step: GOMAXPROCS
	return r, nil
}
