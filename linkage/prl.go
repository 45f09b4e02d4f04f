package linkage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/reid-sdc/reid/distances"
)

// PRLProblem is a probabilistic record linkage: the attributes of both files with their
// comparison rules, the true link, the direction and optional blocking.
type PRLProblem struct {
	// Attributes are the compared attributes, with both files' values.
	Attributes []PRLAttribute
	// TrueMasked[i] is the masked record of original record i; TrueOriginal[j] the
	// original record of masked record j, or −1 (see datasets.Pairing). Both are
	// required, one entry per record: the direction's query file takes its truth from
	// one (TrueOriginal for MaskedToOriginal, TrueMasked for OriginalToMasked).
	TrueMasked, TrueOriginal []int
	// Direction says which file's records are linked (an unknown value is an error
	// wrapping ErrDirection).
	Direction Direction
	// OriginalBlock and MaskedBlock, when set, are blocking keys: only pairs with equal
	// keys are compared (and counted).
	OriginalBlock, MaskedBlock []int
}

// PRLSettings tunes PRL. The zero value runs unsupervised EM with the match proportion
// fixed at |true pairs| / |pairs|, μ = 1e-5, λ = 0.05 and all three link modes.
type PRLSettings struct {
	// Threads is the number of goroutines (≤ 0: GOMAXPROCS); the results do not depend on it.
	Threads int
	// Supervised computes m, u and p from the true and false pairs instead of EM.
	Supervised bool
	// EstimateP estimates the match proportion by EM (starting from P).
	EstimateP bool
	// P is the match proportion; 0 means |true pairs| / |pairs| (every record has exactly
	// one partner in the SDC setting).
	P float64
	// MaxIterations bounds EM's iterations (≤ 0: 1000) and Tolerance is its convergence
	// test on the relative change of the log-likelihood (0: 1e-12; negative: run exactly
	// MaxIterations), as in EMSettings; the supervised estimates use neither.
	MaxIterations int
	Tolerance     float64
	// Mu = P(link | non-match) and Lambda = P(non-link | match), the error rates of the
	// Fellegi–Sunter thresholds (0: 1e-5 and 0.05, unless ErrorRatesGiven).
	Mu, Lambda float64
	// ErrorRatesGiven makes Mu and Lambda be used as given, 0 included: μ = 0 allows no
	// false link, so only patterns without non-match mass are links (none under EM, whose
	// u-mass is positive everywhere: the upper threshold is then +∞); λ = 0 likewise for
	// the non-links and the lower threshold (−∞).
	ErrorRatesGiven bool
	// TopK is the first number of candidates per record kept for the one-to-one
	// assignment (0: 16); it is doubled until the assignment is certified optimal for all
	// pairs or reaches MaxTopK (0: 1024).
	TopK, MaxTopK int
	// NoAssignment skips the one-to-one mode.
	NoAssignment bool
	// Pass, when set, is called before each pass over the compared pairs with its number
	// (1, 2, …) and what it does: 1 counts the agreement patterns, 2 weighs the pairs and
	// keeps the top candidates, and each further pass (only when the assignment needs more
	// candidates) keeps twice as many. With NoAssignment there are exactly two passes.
	Pass func(pass int, what string)
	// Progress is called with numbers of query records done in the current pass: the
	// calls of one pass add up to the number of query records.
	Progress func(records int)
}

// Link modes.
const (
	ModeThreshold  = "threshold"
	ModeBest       = "best"
	ModeAssignment = "assignment"
)

// ModeResult is the outcome of one way of choosing each record's link.
type ModeResult struct {
	Mode string
	// Reid is the share of records (with a true partner) correctly re-identified:
	// threshold, the record has exactly one pair at or above the upper threshold and it is
	// the true one; best, its best-weight candidate is unique and true; assignment, the
	// one-to-one assignment gives it its true partner.
	Reid    float64
	Correct int
	// Chosen is the number of records given a link (threshold: exactly one link pair;
	// best: a unique best candidate; assignment: an assigned partner).
	Chosen int
	// Links, Clerical: pairs at or above the upper threshold, and strictly between the
	// thresholds (threshold mode: all compared pairs; other modes: the chosen pairs).
	// FalseLinks are the Links that are not true pairs.
	Links, Clerical, FalseLinks int
	// Unassigned (assignment mode) is the number of query records the assignment leaves
	// without a partner: none when every record can have a distinct partner among its
	// candidates, else as few as possible (see assignPartial).
	Unassigned int
	// Unavailable is set when the mode could not be computed (Status says why); Reid and
	// the counts are then 0 and mean nothing.
	Unavailable bool
	// Status says whether the mode ran and, for the assignment, how optimality is known.
	Status string
	// Certified (assignment): the LP dual proved it optimal over all compared pairs, not
	// only over the candidates it was solved on.
	Certified bool
}

// PRLRecord is what PRL keeps for one query record.
type PRLRecord struct {
	// Best is the candidate of highest weight (lowest number among ties), Ties the number
	// of candidates at that weight (−1 and 0 when the record has no candidate).
	Best       int
	BestWeight float64
	Ties       int
	// True is the true partner (−1: none); TrueWeight its weight (NaN when it is not
	// compared, e.g. in another block) and TrueRank the number of candidates of strictly
	// higher weight.
	True       int
	TrueWeight float64
	TrueRank   int
	// Links and Clerical count the record's pairs at or above the upper threshold and in
	// the clerical zone; TrueLinked says whether the true pair is a link.
	Links, Clerical int
	TrueLinked      bool
	// Assigned is the partner in the one-to-one assignment (−1: none).
	Assigned int
}

// Thresholds are the Fellegi–Sunter decision thresholds on the weight: a pair is a link
// when its weight is ≥ Upper, a non-link when ≤ Lower, clerical in between. ±Inf when the
// link or non-link set is empty. MuAchieved and LambdaAchieved are the error rates of the
// chosen sets under the pattern distribution.
type Thresholds struct {
	Upper, Lower               float64
	Mu, Lambda                 float64
	MuAchieved, LambdaAchieved float64
}

// PRLResult is the outcome of a probabilistic record linkage.
type PRLResult struct {
	Direction Direction
	// Cuts are the resolved thresholds of each attribute (|Δz| for bands, ranks for the
	// rank rule, none for equality).
	Cuts     [][]float64
	Patterns *PatternCounts
	Model    EMResult
	// Weight[p] = Σ_k log2(m_k/u_k) of pattern p (missing levels add 0).
	Weight     []float64
	Thresholds Thresholds
	Records    []PRLRecord
	// Measures is the Reid family of the best-weight mode (anonymity sets: the candidates
	// tied at the best weight; Reid@k by the true partner's rank by weight).
	Measures Measures
	Modes    []ModeResult
	// TopK is the number of candidates per record the assignment finally used;
	// PricingRounds the passes over the pairs that added the pairs violating its dual.
	TopK, PricingRounds int
}

// PRL runs probabilistic record linkage (Fellegi & Sunter 1969): compare every pair (or
// every blocked pair), count the agreement patterns, estimate m, u and p by EM on the
// counts (or from the truth), weigh patterns by log2(m/u), set the thresholds from the
// error rates and link each record by threshold, by best weight and by a one-to-one
// assignment. No per-pair data are stored.
func PRL(p PRLProblem, s PRLSettings) (*PRLResult, error) {
	return PRLContext(context.Background(), p, s)
}

// PRLContext is PRL stopped when ctx is done: each pass over the pairs (on 30,000 records
// a pass takes seconds) ends at its next block of query records, and PRLContext returns
// no result and an error wrapping ctx.Err() (errors.Is(err, context.Canceled) after an
// interrupt), never a linkage counted on part of the pairs.
func PRLContext(ctx context.Context, p PRLProblem, s PRLSettings) (*PRLResult, error) {
	if ctx.Err() != nil {
		// Done before it starts: not a pass (an interrupted audit started its four runs,
		// 48 s on a million records, each stopping only in its first pass).
		return nil, fmt.Errorf("linkage: prl stopped: %w", context.Cause(ctx))
	}
	res, err := prl(ctx, p, s)
	if ctx.Err() != nil {
		// Checked last as well: a pass cut short can make any later step's result wrong.
		return nil, fmt.Errorf("linkage: prl stopped: %w", context.Cause(ctx))
	}
	return res, err
}

func prl(ctx context.Context, p PRLProblem, s PRLSettings) (*PRLResult, error) {
	c, err := newComparator(&p, s.Threads)
	if err != nil {
		return nil, err
	}
	c.progress = s.Progress
	c.ctx = ctx
	pass := 0
	startPass := func(what string) {
		pass++
		if s.Pass != nil {
			s.Pass(pass, what)
		}
	}
	startPass("counting the agreement patterns")
	pc := c.count()
	if c.stopped() {
		return nil, nil // PRLContext reports it
	}
	res := &PRLResult{Direction: p.Direction, Patterns: pc}
	for k := range c.attrs {
		res.Cuts = append(res.Cuts, slices.Clone(c.attrs[k].cuts))
	}
	if c.qblock != nil && pc.TruePairs == pc.Pairs && (s.Supervised || s.P == 0) {
		return nil, c.blockingError("only true pairs to compare: the model needs non-matches too", nil)
	}
	tab := pc.Table()
	trueCounts := make([]float64, len(pc.True))
	for x, n := range pc.True {
		trueCounts[x] = float64(n)
	}
	if s.Supervised {
		res.Model, err = Supervised(tab, trueCounts)
	} else {
		prop := s.P
		if prop == 0 {
			if pc.TruePairs == 0 {
				if c.qblock != nil {
					return nil, c.blockingError("no true pair to compare: the blocking keys of every true pair differ", nil)
				}
				return nil, errors.New("linkage: no true pair is compared: give the match proportion")
			}
			prop = float64(pc.TruePairs) / float64(pc.Pairs)
		}
		res.Model, err = EM(tab, EMSettings{P: prop, EstimateP: s.EstimateP, MaxIterations: s.MaxIterations, Tolerance: s.Tolerance, Threads: s.Threads})
	}
	if err != nil {
		return nil, err
	}
	// Each record has at most one partner, so at most min(n, n') pairs are matches. An
	// estimate far above that share is no label switch (the "match" class does favour
	// agreement) but a fit of the two-class model to another split of the pairs, which
	// the likelihood can prefer when attributes agree together (conditional independence
	// fails); it is reported, not altered.
	if s.EstimateP && !s.Supervised {
		if maxP := float64(min(c.nq, c.nr)) / float64(pc.Pairs); res.Model.P > 2*maxP {
			w := fmt.Sprintf("the estimated match proportion %.4g is more than twice the largest possible, %.4g (at most min(n, n') = %d of the %d pairs are matches): EM has split the pairs another way (e.g. by attributes that agree together), not into matches and non-matches; the fixed proportion (without estimating it) or supervised estimates are more meaningful",
				res.Model.P, maxP, min(c.nq, c.nr), pc.Pairs)
			if res.Model.Warning != "" {
				w = res.Model.Warning + "; " + w
			}
			res.Model.Warning = w
		}
	}
	if res.Weight, err = PatternWeights(tab, res.Model); err != nil {
		return nil, err
	}
	mMass, uMass := classMasses(tab, res.Model, trueCounts)
	mu, lambda := s.Mu, s.Lambda
	if !s.ErrorRatesGiven {
		if mu == 0 {
			mu = 1e-5
		}
		if lambda == 0 {
			lambda = 0.05
		}
	}
	res.Thresholds, err = FSThresholds(res.Weight, mMass, uMass, mu, lambda)
	if err != nil {
		return nil, err
	}
	k := s.TopK
	if k <= 0 {
		k = 16
	}
	maxK := s.MaxTopK
	if maxK <= 0 {
		maxK = 1024
	}
	lookup := newWeightLookup(c, pc, res.Weight)
	var tops [][]Neighbor
	// Without the assignment no candidate list is read: none is kept (the audit's PRL
	// offered every pair to a heap for nothing).
	kDecide := k
	if s.NoAssignment {
		kDecide = 0
		startPass("weighing the pairs")
	} else {
		startPass(fmt.Sprintf("weighing the pairs (top %d candidates)", k))
		c.groups = c.identicalReferences()
		lookup.withIntWeights(c, pc, levelWeights(res.Model))
	}
	res.Records, tops = c.decide(lookup, res.Thresholds, kDecide)
	if c.stopped() {
		return nil, nil
	}
	res.Measures = Measure(queryResults(res.Records))
	thr := modeThreshold(res.Records)
	best := modeBest(res.Records, res.Thresholds)
	modes := []ModeResult{thr, best}
	if !s.NoAssignment {
		var as ModeResult
		columns, _, _ := c.columns() // the groups are fixed: no more columns than this
		for {
			var retry bool
			var rounds int
			as, rounds, retry = c.assign(res.Records, tops, k, res.Thresholds, lookup, startPass)
			if c.stopped() {
				return nil, nil
			}
			res.PricingRounds += rounds
			res.TopK = k
			if !retry || k >= maxK || k >= columns {
				break
			}
			k = min(2*k, maxK)
			startPass(fmt.Sprintf("top %d candidates for the assignment", k))
			_, tops = c.decide(lookup, res.Thresholds, k)
			if c.stopped() {
				return nil, nil
			}
		}
		modes = append(modes, as)
	}
	res.Modes = modes
	return res, nil
}

// weightTieTolerance: pattern weights closer than this (relative to max(1, |w|)) are
// made equal. EM's m and u carry rounding of about 1e-13, so two patterns whose weights
// are equal in exact arithmetic (attributes fitted alike, each pattern disagreeing on
// one of them) came out 1e-12 apart, and the best-weight mode counted the tie as a
// unique, correct link (three records: Reid 1 instead of 1/3).
const weightTieTolerance = 1e-9

// snapWeights gives each weight within weightTieTolerance of the lowest weight of its run
// (in sorted order) that lowest value. Runs start anew past the tolerance, so a tie can
// still split where a third weight lies just below it, and weights genuinely 1e-9 apart
// tie: both far below anything the data can tell apart.
func snapWeights(w []float64) {
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w[a], w[b]) })
	for x := 1; x < len(order); x++ {
		prev, cur := w[order[x-1]], w[order[x]]
		if cur-prev <= weightTieTolerance*max(1, math.Abs(cur)) {
			w[order[x]] = prev
		}
	}
}

// CountPatterns compares every pair (or every blocked pair) of p and counts the agreement
// patterns, with the true pairs' counts kept separately; it also returns the resolved
// thresholds of each attribute. PRL starts with it; it is exported for benchmarks and for
// callers that fit their own model.
func CountPatterns(p PRLProblem, threads int) (*PatternCounts, [][]float64, error) {
	c, err := newComparator(&p, threads)
	if err != nil {
		return nil, nil, err
	}
	var cuts [][]float64
	for k := range c.attrs {
		cuts = append(cuts, slices.Clone(c.attrs[k].cuts))
	}
	return c.count(), cuts, nil
}

// PatternWeights returns Σ_k log2(m_k(γ_k) / u_k(γ_k)) for every pattern γ of t (a
// missing level adds 0), weights within weightTieTolerance of each other made equal (so
// they may differ from the sum recomputed from m and u by that much). An error wraps ErrShapePRL when r's m and u do not have the
// attributes and levels of t, as EM's errors do for t itself.
func PatternWeights(t PatternTable, r EMResult) ([]float64, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	K := len(t.Levels)
	if len(r.M) != K || len(r.U) != K {
		return nil, fmt.Errorf("%w: m and u of %d and %d attributes for a table of %d", ErrShapePRL, len(r.M), len(r.U), K)
	}
	for k, L := range t.Levels {
		if len(r.M[k]) != L || len(r.U[k]) != L {
			return nil, fmt.Errorf("%w: attribute %d has %d levels, m and u %d and %d", ErrShapePRL, k, L, len(r.M[k]), len(r.U[k]))
		}
	}
	w := make([]float64, len(t.Count))
	for x := range w {
		for k, l := range t.Pattern[x*K : x*K+K] {
			if l >= 0 {
				w[x] += math.Log2(r.M[k][l] / r.U[k][l])
			}
		}
	}
	snapWeights(w)
	return w, nil
}

// classMasses is the pattern distribution in each class: for supervised estimates the
// empirical shares of true and false pairs; otherwise the posterior-weighted shares
// n_γ g(γ) / Σ n g and n_γ (1 − g(γ)) / Σ n (1 − g), which equal the model's m(γ) and
// u(γ) when the model fits, and also account for missing levels.
func classMasses(t PatternTable, r EMResult, trueCounts []float64) (m, u []float64) {
	m, u = make([]float64, len(t.Count)), make([]float64, len(t.Count))
	for x, n := range t.Count {
		if r.Supervised {
			m[x], u[x] = trueCounts[x], n-trueCounts[x]
		} else {
			// 1 − g from its own log-odds: g rounds to 1 for strong patterns, yet their
			// u-mass is positive, which μ = 0 must see.
			g, h := t.posteriors(x, r.M, r.U, r.P)
			m[x], u[x] = n*g, n*h
		}
	}
	normalise(m)
	normalise(u)
	return m, u
}

// FSThresholds sets the Fellegi–Sunter thresholds (Fellegi & Sunter 1969, Theorem 1):
// patterns are sorted by weight (the log of m/u); the link set takes patterns from the
// highest weight down while their u-mass stays ≤ mu = P(link | U), the non-link set from
// the lowest weight up while their m-mass stays ≤ lambda = P(non-link | M). Patterns of
// equal weight are taken together or not at all (no randomisation). Links take priority
// when the sets would overlap. w, mMass and uMass have one entry per pattern (an error
// wrapping ErrShapePRL otherwise).
func FSThresholds(w, mMass, uMass []float64, mu, lambda float64) (Thresholds, error) {
	if len(mMass) != len(w) || len(uMass) != len(w) {
		return Thresholds{}, fmt.Errorf("%w: %d weights, %d m-masses and %d u-masses", ErrShapePRL, len(w), len(mMass), len(uMass))
	}
	if !(mu >= 0 && mu < 1) || !(lambda >= 0 && lambda < 1) {
		return Thresholds{}, fmt.Errorf("linkage: error rates μ = %v and λ = %v must be in [0, 1)", mu, lambda)
	}
	t := Thresholds{Upper: math.Inf(1), Lower: math.Inf(-1), Mu: mu, Lambda: lambda}
	idx := make([]int, len(w))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return w[idx[a]] > w[idx[b]] })
	cum := 0.0
	for s := 0; s < len(idx); {
		e := s
		g := 0.0
		for e < len(idx) && w[idx[e]] == w[idx[s]] {
			g += uMass[idx[e]]
			e++
		}
		if cum+g > mu {
			break
		}
		cum += g
		t.Upper = w[idx[s]]
		s = e
	}
	t.MuAchieved = cum
	cum = 0
	for s := len(idx) - 1; s >= 0; {
		e := s
		g := 0.0
		for e >= 0 && w[idx[e]] == w[idx[s]] {
			g += mMass[idx[e]]
			e--
		}
		if cum+g > lambda || w[idx[s]] >= t.Upper {
			break
		}
		cum += g
		t.Lower = w[idx[s]]
		s = e
	}
	t.LambdaAchieved = cum
	return t, nil
}

// weightLookup maps a pattern code to its weight, and, once withIntWeights has run, to
// its integer weight for the assignment.
type weightLookup struct {
	dense []float64
	index *codeTable
	w     []float64

	// iw[x] is pattern x's weight in multiples of 2^−16 bits (intWeight), idense the
	// same by code where dense is; byWeight holds the patterns' weights in increasing
	// order and maxIntUpTo[y] the largest integer weight among the first y+1 of them.
	iw, idense []int64
	byWeight   []float64
	maxIntUpTo []int64
	maxAbsInt  int64
}

func newWeightLookup(c *comparator, pc *PatternCounts, w []float64) *weightLookup {
	l := &weightLookup{w: w}
	if c.space <= denseLimit {
		l.dense = make([]float64, c.space)
		for x, code := range pc.Codes {
			l.dense[code] = w[x]
		}
		return l
	}
	l.index = newCodeTable()
	for x, code := range pc.Codes {
		l.index.add(code, uint64(x))
	}
	return l
}

func (l *weightLookup) weight(code uint64) float64 {
	if l.dense != nil {
		return l.dense[code]
	}
	x, _ := l.index.get(code)
	return l.w[x]
}

// withIntWeights computes each pattern's integer weight once (a sum of K rounded level
// weights per pair, on every pricing pass, doubled the assignment's time) and the bound
// intUpTo needs.
func (l *weightLookup) withIntWeights(c *comparator, pc *PatternCounts, lw [][]int64) {
	l.iw = make([]int64, len(pc.Codes))
	order := make([]int, len(pc.Codes))
	for x, code := range pc.Codes {
		l.iw[x] = c.intWeight(code, lw)
		l.maxAbsInt = max(l.maxAbsInt, l.iw[x], -l.iw[x])
		order[x] = x
	}
	if l.dense != nil {
		l.idense = make([]int64, len(l.dense))
		for x, code := range pc.Codes {
			l.idense[code] = l.iw[x]
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(l.w[a], l.w[b]) })
	l.byWeight, l.maxIntUpTo = make([]float64, len(order)), make([]int64, len(order))
	for y, x := range order {
		l.byWeight[y], l.maxIntUpTo[y] = l.w[x], l.iw[x]
		if y > 0 {
			l.maxIntUpTo[y] = max(l.maxIntUpTo[y], l.maxIntUpTo[y-1])
		}
	}
}

// intWeight returns the integer weight of the pattern code (see withIntWeights).
func (l *weightLookup) intWeight(code uint64) int64 {
	if l.idense != nil {
		return l.idense[code]
	}
	x, _ := l.index.get(code)
	return l.iw[x]
}

// intUpTo returns the largest integer weight of a pattern whose weight is at most w: the
// bound of a pair left out of a candidate list whose last weight is w (the integer order
// may differ from the weights' by the rounding of K attributes).
func (l *weightLookup) intUpTo(w float64) int64 {
	y, _ := slices.BinarySearch(l.byWeight, math.Nextafter(w, math.Inf(1)))
	if y == 0 {
		return l.maxIntUpTo[0] // below every pattern: no pair weighs less
	}
	return l.maxIntUpTo[y-1]
}

// topHeap keeps the k candidates of highest weight, ties in an order of the query's own
// (tieRank): a min-heap whose root is the worst kept. With ties broken by the lowest
// index, every record of a class of tied pairs (a few discrete attributes) kept the same
// k candidates, no one-to-one assignment existed among them, and PRL doubled k to 1,024
// (65 s for 5,000 records, 1,204 left unassigned).
type topHeap struct {
	a    []Neighbor
	salt uint64
}

// tieRank orders a query's candidates of equal weight: a mix of the candidate's index
// and the query's salt, a bijection of the index for each salt.
func (h *topHeap) tieRank(j int) uint64 {
	x := uint64(j) ^ h.salt
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return x
}

// worse reports whether candidate a ranks below b: a lower weight, or an equal one and a
// higher tieRank.
func (h *topHeap) worse(a, b Neighbor) bool {
	return a.Distance < b.Distance || (a.Distance == b.Distance && h.tieRank(a.Index) > h.tieRank(b.Index))
}

func (h *topHeap) offer(n Neighbor, k int) {
	a := h.a
	if len(a) < k {
		a = append(a, n)
		for i := len(a) - 1; i > 0; {
			p := (i - 1) / 2
			if !h.worse(a[i], a[p]) {
				break
			}
			a[i], a[p] = a[p], a[i]
			i = p
		}
		h.a = a
		return
	}
	if !h.worse(a[0], n) {
		return
	}
	a[0] = n
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && h.worse(a[l], a[m]) {
			m = l
		}
		if r < len(a) && h.worse(a[r], a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}

// Neighbor is a candidate with its weight (in Distance).
type Neighbor = distances.Neighbor

// decide scans every compared pair again with the weights: each record's best candidate,
// ties, links and clerical pairs, the rank of its true partner and its top k candidates
// (by weight, ties in the record's own order: topHeap), all without storing pairs.
func (c *comparator) decide(lk *weightLookup, th Thresholds, k int) ([]PRLRecord, [][]Neighbor) {
	recs := make([]PRLRecord, c.nq)
	tops := make([][]Neighbor, c.nq)
	forEachQuery(c, func() *topHeap { return &topHeap{} }, func(h *topHeap, i int, code []uint64) {
		r := PRLRecord{Best: -1, BestWeight: math.Inf(-1), True: c.truth[i], TrueWeight: math.NaN(), Assigned: -1}
		tw := math.NaN()
		if r.True >= 0 && c.sameBlock(i, r.True) {
			tw = lk.weight(c.pairCode(i, r.True))
			r.TrueWeight = tw
			r.TrueLinked = tw >= th.Upper
		}
		h.a = h.a[:0]
		h.salt = uint64(i) * 0x9e3779b97f4a7c15
		compared := 0
		for _, ti := range c.tilesOf(i) {
			t := &c.tiles[ti]
			cd := code[:len(t.refs)]
			c.code(i, t, cd)
			compared += len(cd)
			for l, x := range cd {
				w := lk.weight(x)
				j := int(t.refs[l])
				switch {
				case w > r.BestWeight:
					r.BestWeight, r.Best, r.Ties = w, j, 1
				case w == r.BestWeight:
					r.Ties++
					r.Best = min(r.Best, j)
				}
				if w >= th.Upper {
					r.Links++
				} else if w > th.Lower {
					r.Clerical++
				}
				if w > tw {
					r.TrueRank++
				}
				if k > 0 && (c.groups == nil || c.groups.first(j)) {
					h.offer(Neighbor{Index: j, Distance: w}, k)
				}
			}
		}
		if r.True >= 0 && math.IsNaN(tw) {
			r.TrueRank = compared
		}
		top := slices.Clone(h.a)
		slices.SortFunc(top, func(a, b Neighbor) int {
			if h.worse(b, a) {
				return -1
			}
			if h.worse(a, b) {
				return 1
			}
			return 0
		})
		recs[i], tops[i] = r, top
	})
	return recs, tops
}

// queryResults expresses the best-weight links as nearest-record results (distance =
// −weight) so that Measure computes the Reid family.
func queryResults(recs []PRLRecord) []distances.QueryResult {
	out := make([]distances.QueryResult, len(recs))
	for i, r := range recs {
		out[i] = distances.QueryResult{Nearest: r.Best, NearestDistance: -r.BestWeight, Ties: r.Ties,
			True: r.True, TrueDistance: -r.TrueWeight, TrueRank: r.TrueRank}
		if r.True < 0 {
			out[i].TrueDistance, out[i].TrueRank = 0, 0
		}
	}
	return out
}

func withTrue(recs []PRLRecord) int {
	n := 0
	for _, r := range recs {
		if r.True >= 0 {
			n++
		}
	}
	return n
}

func modeThreshold(recs []PRLRecord) ModeResult {
	m := ModeResult{Mode: ModeThreshold, Status: "ok"}
	for _, r := range recs {
		m.Links += r.Links
		m.Clerical += r.Clerical
		m.FalseLinks += r.Links
		if r.TrueLinked {
			m.FalseLinks--
		}
		if r.Links == 1 {
			m.Chosen++
			if r.TrueLinked {
				m.Correct++
			}
		}
	}
	m.Reid = share(m.Correct, withTrue(recs))
	return m
}

func share(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(a) / float64(n)
}

// classify counts a chosen pair of weight w in m.
func (m *ModeResult) classify(w float64, correct bool, th Thresholds) {
	m.Chosen++
	if correct {
		m.Correct++
	}
	if w >= th.Upper {
		m.Links++
		if !correct {
			m.FalseLinks++
		}
	} else if w > th.Lower {
		m.Clerical++
	}
}

func modeBest(recs []PRLRecord, th Thresholds) ModeResult {
	m := ModeResult{Mode: ModeBest, Status: "ok"}
	for _, r := range recs {
		if r.Ties == 1 {
			m.classify(r.BestWeight, r.True >= 0 && r.Best == r.True, th)
		}
	}
	m.Reid = share(m.Correct, withTrue(recs))
	return m
}

// assignScale: each attribute's weight log2(m/u) is rounded to a multiple of 2^−16 bits
// for the exact integer assignment: pair weights whose attributes round alike count as
// equal (pairs closer than K units may order either way).
const assignScale = 1 << 16

// levelWeights returns each attribute's weight log2(m_k(l)/u_k(l)) of each level l in
// multiples of 2^−16 bits (Fellegi and Sunter 1969, eq. 2: a pattern's weight is their
// sum under conditional independence).
func levelWeights(model EMResult) [][]int64 {
	lw := make([][]int64, len(model.M))
	for k := range model.M {
		lw[k] = make([]int64, len(model.M[k]))
		for l := range model.M[k] {
			lw[k][l] = int64(math.Round(math.Log2(model.M[k][l]/model.U[k][l]) * assignScale))
		}
	}
	return lw
}

// intWeight is the weight of the pattern code in multiples of 2^−16 bits: the sum of its
// attributes' rounded weights (a missing level adds 0). Rounded attribute by attribute,
// two assignments that share the same agreements out differently between their pairs
// have the same total exactly: rounded pair by pair, such totals came out one unit apart
// and the tie with fewer true links was missed.
func (c *comparator) intWeight(code uint64, lw [][]int64) int64 {
	lv := make([]int8, len(c.attrs))
	c.decode(code, lv)
	var w int64
	for k, l := range lv {
		if l >= 0 {
			w += lw[k][l]
		}
	}
	return w
}

// assign links records one to one by maximum total weight over the candidate lists.
// Every record of the query file gets a distinct partner when its candidates allow it;
// otherwise (blocks with more query records than references, records whose block has no
// reference, more query records than references) as many records as possible are
// assigned, with maximum total weight among those assignments, and the others are left
// unassigned (not linked): see assignPartial. Ties between optimal assignments are broken
// against the intruder, like a tie at the best weight: the integer weight of a pair is
// W·(n+1) − [true pair], W its pattern's weight in multiples of 2^−16 bits (lk's
// intWeight, after withIntWeights), so among the assignments of maximum rounded weight
// the one with the fewest correct links is chosen (n < n + 1 keeps the penalty from
// outweighing any real difference). retry asks for more candidates: the dual does not
// certify optimality over all compared pairs.
func (c *comparator) assign(recs []PRLRecord, tops [][]Neighbor, k int, th Thresholds, lk *weightLookup, startPass func(string)) (ModeResult, int, bool) {
	m := ModeResult{Mode: ModeAssignment}
	n := int64(c.nq + 1)
	g := c.groups
	cols, column, capacity := c.columns()
	arcs := make([][]arc, c.nq)
	bound := make([]int64, c.nq)
	full := make([]bool, c.nq)
	columnsIn := map[int]int{} // columns of each block (a class lies in one block)
	for key, tiles := range c.byBlock {
		for _, ti := range tiles {
			for _, j := range c.tiles[ti].refs {
				if g == nil || g.first(int(j)) {
					columnsIn[key]++
				}
			}
		}
	}
	// weight is the integer weight of pair (i, j) of pattern code: the true pair's penalty
	// applies only to a class of one (a class of two or more can always give the row
	// another member, see spread).
	weight := func(i, j int, code uint64) int64 {
		x := lk.intWeight(code) * n
		if t := recs[i].True; t >= 0 && column(j) == column(t) && (g == nil || g.Size(column(t)) == 1) {
			x--
		}
		return x
	}
	for i, top := range tops {
		for _, nb := range top {
			arcs[i] = append(arcs[i], arc{int32(column(nb.Index)), weight(i, nb.Index, c.pairCode(i, nb.Index))})
		}
		if len(top) == k && columnsIn[c.blockOf(i)] > k {
			full[i] = true
			// A pair left out weighs at most the k-th.
			bound[i] = lk.intUpTo(top[len(top)-1].Distance) * n
		}
	}
	var match []int
	certified, priced, rounds := false, 0, 0
	for {
		if c.stopped() {
			return m, rounds, false // PRLContext discards it
		}
		var u, v []int64
		var ok bool
		match, u, v, ok = assignMax(c.nq, cols, arcs, capacity)
		if !ok {
			// Every integer weight of a compared pair is at most wMax in absolute value.
			wMax := float64(lk.maxAbsInt+1) * float64(n)
			if wMax*float64(c.nq) > assignLimit {
				m.Unavailable = true
				m.Status = fmt.Sprintf("not available: no one-to-one assignment gives every record a partner, and the partial assignment of %d records with weights up to %.4g bits exceeds the exact integer range", c.nq, float64(lk.maxAbsInt)/assignScale)
				return m, rounds, false
			}
			match, u, v = assignPartial(c.nq, cols, arcs, capacity, int64(wMax))
		}
		if rounds == 0 && c.boundCertifies(u, v, full, bound, column) {
			certified = true
			break
		}
		if rounds == maxPricingRounds {
			break
		}
		// Pricing (column generation): the compared pairs that violate the dual join
		// their rows' candidates and the assignment is solved again; none left
		// certifies it over all compared pairs. Where many candidates tie at the k-th
		// weight (categorical files) the bound above cannot certify, however long the
		// lists, while the violated pairs are few.
		startPass(fmt.Sprintf("pricing the assignment's dual, round %d", rounds+1))
		extra, found := c.price(u, v, k, column, weight)
		rounds++
		if found == 0 {
			certified = true
			break
		}
		for i := range extra {
			arcs[i] = append(arcs[i], extra[i]...)
		}
		priced += found
	}
	if g != nil {
		// Members for the rows of each class.
		rowsOf := make([][]int, cols)
		for i, x := range match {
			if x >= 0 {
				rowsOf[x] = append(rowsOf[x], i)
			}
		}
		for x, rows := range rowsOf {
			if len(rows) > 0 {
				g.spread(x, rows, c.truth, match)
			}
		}
	}
	for i, j := range match {
		if j < 0 {
			m.Unassigned++
			continue
		}
		recs[i].Assigned = j
		w := lk.weight(c.pairCode(i, j))
		m.classify(w, recs[i].True >= 0 && j == recs[i].True, th)
	}
	m.Reid, m.Certified = share(m.Correct, withTrue(recs)), certified
	if certified && rounds > 0 && priced == 0 {
		m.Status = fmt.Sprintf("optimal over all compared pairs (top %d candidates per record, certified by the LP dual after a pass over all pairs)", k)
	} else if certified && rounds > 0 {
		passes := "passes"
		if rounds == 1 {
			passes = "pass"
		}
		m.Status = fmt.Sprintf("optimal over all compared pairs (top %d candidates per record and %d more priced in %d %s, certified by the LP dual)", k, priced, rounds, passes)
	} else if certified {
		m.Status = fmt.Sprintf("optimal over all compared pairs (top %d candidates per record, certified by the LP dual)", k)
	} else {
		m.Status = fmt.Sprintf("optimal over the top %d candidates per record; not certified over all pairs", k)
	}
	switch {
	case m.Unassigned > 0 && c.nq > c.nr && m.Unassigned == c.nq-c.nr:
		// More queries than references: some are left over whatever the weights.
		m.Status += fmt.Sprintf("; %d unassigned (%d records to assign to %d of the other file: as many records as possible are assigned)", m.Unassigned, c.nq, c.nr)
	case m.Unassigned > 0:
		m.Status += fmt.Sprintf("; %d unassigned (no one-to-one assignment gives every record a partner among its candidates: as many records as possible are assigned)", m.Unassigned)
	}
	return m, rounds, !certified
}

// columns returns the assignment's columns: their number, the column of each reference
// and the columns' capacities. They are the classes of identical references when there
// are any (each candidate list then holds one member of a class, see decide), the
// references otherwise (capacity nil: one each).
func (c *comparator) columns() (n int, column func(j int) int, capacity []int) {
	g := c.groups
	if g == nil {
		return c.nr, func(j int) int { return j }, nil
	}
	capacity = make([]int, g.Len())
	for x := range capacity {
		capacity[x] = g.Size(x)
	}
	return g.Len(), func(j int) int { return int(g.Of[j]) }, capacity
}

// maxPricingRounds bounds the pricing rounds of one assignment; the rounds left over
// ask PRL for longer candidate lists instead (retry).
const maxPricingRounds = 20

// boundCertifies is the certificate without another pass over the pairs: an arc (i, j)
// left out of row i's full candidate list has w_ij ≤ bound_i, and v_j is at least the
// least v over row i's block, so u_i + min v ≥ bound_i keeps the dual feasible for every
// compared pair (LP duality, see assignMax).
func (c *comparator) boundCertifies(u, v []int64, full []bool, bound []int64, column func(int) int) bool {
	minV := map[int]int64{}
	for key, tiles := range c.byBlock {
		mv := int64(math.MaxInt64)
		for _, ti := range tiles {
			for _, j := range c.tiles[ti].refs {
				mv = min(mv, v[column(int(j))])
			}
		}
		minV[key] = mv
	}
	for i := range u {
		if !full[i] {
			continue
		}
		if u[i] < bound[i]-minV[c.blockOf(i)] {
			return false
		}
	}
	return true
}

// price returns, for each query, up to k compared pairs whose integer weight exceeds
// u_i + v_j (the dual constraints the assignment's dual violates, most violated first;
// one member per class of identical references), and their number in all.
func (c *comparator) price(u, v []int64, k int, column func(int) int, weight func(i, j int, code uint64) int64) ([][]arc, int) {
	extra := make([][]arc, c.nq)
	forEachQuery(c, func() *topHeap { return &topHeap{} }, func(h *topHeap, i int, code []uint64) {
		h.a = h.a[:0]
		h.salt = uint64(i) * 0x9e3779b97f4a7c15
		for _, ti := range c.tilesOf(i) {
			t := &c.tiles[ti]
			cd := code[:len(t.refs)]
			c.code(i, t, cd)
			for l, x := range cd {
				j := int(t.refs[l])
				if c.groups != nil && !c.groups.first(j) {
					continue
				}
				w := weight(i, j, x)
				if excess := w - u[i] - v[column(j)]; excess > 0 {
					h.offer(Neighbor{Index: j, Distance: float64(excess)}, k)
				}
			}
		}
		for _, nb := range h.a {
			extra[i] = append(extra[i], arc{int32(column(nb.Index)), weight(i, nb.Index, c.pairCode(i, nb.Index))})
		}
	})
	found := 0
	for _, e := range extra {
		found += len(e)
	}
	return extra, found
}
