package linkage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/internal/workers"
)

// RuleKind is how one attribute of a pair is compared.
type RuleKind int

const (
	// RuleBands compares numeric values by bands on their difference |Δ| (|Δz| when
	// the values are z-scores; reid gives raw values on a common scale): level l when
	// t_l < |Δ| ≤ t_{l+1} (t_0 = −∞, the last level is |Δ| > t_last).
	RuleBands RuleKind = iota
	// RuleRank is the rank-window rule for rank-swapped files: the gap between the ranks
	// of the two values (each in its own file, a tie block taken as an interval of ranks)
	// is compared with windows of p % of n records.
	RuleRank
	// RuleEqual compares categorical values (codes on a common dictionary) for equality:
	// level 0 equal, level 1 different.
	RuleEqual
)

// String returns "bands", "rank" or "equal".
func (k RuleKind) String() string {
	switch k {
	case RuleBands:
		return "bands"
	case RuleRank:
		return "rank"
	case RuleEqual:
		return "equal"
	}
	return fmt.Sprintf("RuleKind(%d)", int(k))
}

// Rule is the comparison of one attribute.
type Rule struct {
	Kind RuleKind
	// Thresholds: for RuleBands the |Δ| cut points, in the values' units, ascending; for RuleRank the windows
	// in percent of n, ascending. len(Thresholds)+1 levels.
	Thresholds []float64
	// Quantiles (RuleBands only, used when Thresholds is nil): the cut points are these
	// exact quantiles of |Δ| over all compared pairs.
	Quantiles []float64
}

// PRLAttribute is one attribute of a probabilistic record linkage, with the values of
// both files: numbers on one scale for numeric rules (z-scores, or raw values), codes of a dictionary common to both files for
// RuleEqual.
type PRLAttribute struct {
	// Name names the attribute in errors.
	Name string
	// Rule is how the attribute of a pair is compared.
	Rule Rule
	// Original and Masked are the values; each must be finite unless flagged missing
	// (a missing value is never read, so it may be anything, NaN included).
	Original, Masked []float64
	// OriginalMissing and MaskedMissing flag the missing values (nil when nothing is
	// missing).
	OriginalMissing, MaskedMissing []bool
}

// ErrPatternSpace reports a product of per-attribute level counts above 2^62.
var ErrPatternSpace = errors.New("linkage: too many agreement patterns (product of levels above 2^62)")

// Tiling of the pattern counter: blocks of prlQueryBlock queries are taken by the
// goroutines in any order (as in distances.Search, whose queryBlock is 8: here a query's
// work is a whole reference tile, so blocks are larger); reference tiles of prlRefTile
// records keep the tile's code array (8 bytes a record) within L2.
const (
	prlQueryBlock = 32
	prlRefTile    = 1 << 15
	// denseLimit: pattern spaces up to this size (an array within L2) are counted in a
	// dense array per goroutine, and larger ones up to denseMax where the pairs compared
	// are at least densePairsPerCode times the space (the array's clearing and merging
	// then cost little beside the pairs); the others in an open-addressing hash table per
	// goroutine, which holds only the patterns seen (CENSUS, 13 attributes of 3 levels:
	// 23,312 of 1,594,323 codes, counted in 42 ms instead of 56). denseMax bounds the two
	// arrays at 16 MB each per goroutine.
	denseLimit        = 1 << 16
	denseMax          = 1 << 21
	densePairsPerCode = 64
)

// attrCmp is one attribute prepared for comparison.
type attrCmp struct {
	kind   RuleKind
	cuts   []float64 // bands: |Δz| cuts; rank: windows in ranks; equal: nil
	levels int       // non-missing levels
	digits int       // levels, +1 when a value can be missing
	radix  uint64
	// Query and reference files: value (z, code, or lowest rank of the tie block), highest
	// rank of the tie block (rank only), missing mask.
	q, qhi, r, rhi []float64
	qmiss, rmiss   []bool
}

// level is the agreement level of a pair of non-missing values.
func (a *attrCmp) level(qv, qh, rv, rh float64) int {
	var d float64
	switch a.kind {
	case RuleEqual:
		if qv == rv {
			return 0
		}
		return 1
	case RuleBands:
		d = math.Abs(qv - rv)
	case RuleRank:
		d = max(0, rv-qh, qv-rh)
	}
	l := 0
	for _, t := range a.cuts {
		if d > t {
			l++
		}
	}
	return l
}

// comparator compares the query file with the reference file (the direction decides
// which is which) and encodes a pair's agreement pattern as the mixed-radix integer
// Σ_k level_k · radix_k, the missing level of attribute k being levels_k.
type comparator struct {
	attrs  []attrCmp
	space  uint64 // number of codes
	nq, nr int
	truth  []int // query → true reference or −1
	qblock []int // block key of each query (nil: no blocking)
	tiles  []refTile
	// byBlock[key] = tiles of that block; tileOf/localOf locate every reference.
	byBlock         map[int][]int
	tileOf, localOf []int32
	threads         int
	progress        func(int)
	// ctx, when done, ends a pass over the pairs early (forEachQuery); whoever started
	// the pass must then discard what it made (PRLContext does).
	ctx context.Context
	// groups, when set, are the classes of identical references: candidate lists keep
	// one member of each (the assignment's columns are the classes).
	groups *prlGroups
	// With blocking: the numbers of distinct keys of the query and reference files and
	// the pairs with equal keys, all and true.
	qBlocks, rBlocks           int
	blockPairs, blockTruePairs uint64
}

type refTile struct {
	refs []int32  // global reference numbers
	base []uint64 // code of each reference against a query that disagrees everywhere
	attr []tileAttr
}

// tileAttr holds one attribute's non-missing values of a tile, sorted by value (for the
// rank rule by lowest rank; the highest rank is then sorted too), with their local
// positions.
type tileAttr struct {
	val, hi []float64
	pos     []int32
	missing []int32 // local positions of the missing values
}

// newComparator resolves thresholds, checks sizes and builds the reference tiles.
func newComparator(p *PRLProblem, threads int) (*comparator, error) {
	if err := p.Direction.check(); err != nil {
		return nil, err
	}
	if len(p.Attributes) == 0 {
		return nil, errors.New("linkage: no attributes to compare")
	}
	no, nm := len(p.Attributes[0].Original), len(p.Attributes[0].Masked)
	for _, a := range p.Attributes {
		if len(a.Original) != no || len(a.Masked) != nm ||
			(a.OriginalMissing != nil && len(a.OriginalMissing) != no) || (a.MaskedMissing != nil && len(a.MaskedMissing) != nm) {
			return nil, fmt.Errorf("%w: attribute %q has %d and %d values, want %d and %d", ErrShapePRL, a.Name, len(a.Original), len(a.Masked), no, nm)
		}
	}
	if no == 0 || nm == 0 {
		return nil, fmt.Errorf("%w: no records", ErrShapePRL)
	}
	if len(p.TrueMasked) != no || len(p.TrueOriginal) != nm {
		return nil, fmt.Errorf("%w: %d and %d true links for %d and %d records", ErrShapePRL, len(p.TrueMasked), len(p.TrueOriginal), no, nm)
	}
	if (p.OriginalBlock == nil) != (p.MaskedBlock == nil) || (p.OriginalBlock != nil && (len(p.OriginalBlock) != no || len(p.MaskedBlock) != nm)) {
		return nil, fmt.Errorf("%w: blocking keys must be given for every record of both files", ErrShapePRL)
	}
	c := &comparator{threads: threads}
	if c.threads <= 0 {
		c.threads = runtime.GOMAXPROCS(0)
	}
	qb, rb := p.MaskedBlock, p.OriginalBlock
	c.nq, c.nr, c.truth = nm, no, p.TrueOriginal
	if p.Direction == OriginalToMasked {
		qb, rb = p.OriginalBlock, p.MaskedBlock
		c.nq, c.nr, c.truth = no, nm, p.TrueMasked
	}
	c.qblock = qb
	c.space = 1
	for _, a := range p.Attributes {
		ac := attrCmp{kind: a.Rule.Kind}
		q, qm, r, rm := a.Masked, a.MaskedMissing, a.Original, a.OriginalMissing
		if p.Direction == OriginalToMasked {
			q, qm, r, rm = a.Original, a.OriginalMissing, a.Masked, a.MaskedMissing
		}
		ac.q, ac.qmiss, ac.r, ac.rmiss = q, qm, r, rm
		// Both files: a NaN reference would sort anywhere among the tile's values and
		// break the binary searches of code. Values flagged missing are never read.
		if err := finiteValues(a.Name, "original", a.Original, a.OriginalMissing); err != nil {
			return nil, err
		}
		if err := finiteValues(a.Name, "masked", a.Masked, a.MaskedMissing); err != nil {
			return nil, err
		}
		switch a.Rule.Kind {
		case RuleEqual:
			ac.levels = 2
		case RuleBands:
			if a.Rule.Thresholds == nil && len(a.Rule.Quantiles) == 0 {
				return nil, fmt.Errorf("linkage: attribute %q: bands need thresholds or quantiles", a.Name)
			}
			ac.levels = max(len(a.Rule.Thresholds), len(a.Rule.Quantiles)) + 1
		case RuleRank:
			if len(a.Rule.Thresholds) == 0 {
				return nil, fmt.Errorf("linkage: attribute %q: the rank rule needs windows (percent of n)", a.Name)
			}
			ac.levels = len(a.Rule.Thresholds) + 1
			// Ranks in each file, the masked file's rescaled to the original's size.
			ac.q, ac.qhi = rankIntervals(q, qm, float64(no)/float64(len(q)))
			ac.r, ac.rhi = rankIntervals(r, rm, float64(no)/float64(len(r)))
			for _, pct := range a.Rule.Thresholds {
				ac.cuts = append(ac.cuts, max(1, math.Floor(pct*float64(no)/100)))
			}
		default:
			return nil, fmt.Errorf("linkage: attribute %q: unknown rule %v", a.Name, a.Rule.Kind)
		}
		if a.Rule.Kind == RuleBands && a.Rule.Thresholds != nil {
			ac.cuts = slices.Clone(a.Rule.Thresholds)
		}
		if !slices.IsSorted(ac.cuts) {
			return nil, fmt.Errorf("linkage: attribute %q: thresholds %v are not ascending", a.Name, ac.cuts)
		}
		ac.digits = ac.levels
		if hasTrue(qm) || hasTrue(rm) {
			ac.digits++
		}
		ac.radix = c.space
		hi, lo := bits.Mul64(c.space, uint64(ac.digits))
		if hi != 0 || lo > 1<<62 {
			return nil, fmt.Errorf("%w: the %d attributes before %q give %d patterns and it has %d levels: compare fewer attributes", ErrPatternSpace, len(c.attrs), a.Name, c.space, ac.digits)
		}
		c.space = lo
		c.attrs = append(c.attrs, ac)
	}
	c.buildTiles(rb)
	if c.qblock != nil {
		keys := map[int]bool{}
		for i := range c.nq {
			keys[c.qblock[i]] = true
			for _, ti := range c.tilesOf(i) {
				c.blockPairs += uint64(len(c.tiles[ti].refs))
			}
			if j := c.truth[i]; j >= 0 && c.sameBlock(i, j) {
				c.blockTruePairs++
			}
		}
		c.qBlocks, c.rBlocks = len(keys), len(c.byBlock)
		if c.blockPairs == 0 {
			return nil, c.blockingError("no pair to compare: no record shares its blocking key with a record of the other file", nil)
		}
	}
	// Quantile thresholds need the blocks, so they are resolved last: each attribute's on
	// its own (a search over the thresholds' bits, about 13 counts of the pairs within one),
	// several at once, the first error in attribute order reported.
	cutsOf, errOf := make([][]float64, len(p.Attributes)), make([]error, len(p.Attributes))
	workers.ForEach(len(p.Attributes), c.threads, func(k int) {
		if a := p.Attributes[k]; a.Rule.Kind == RuleBands && a.Rule.Thresholds == nil {
			cutsOf[k], errOf[k] = c.quantileCuts(k, a.Rule.Quantiles, true)
		}
	})
	for k, a := range p.Attributes {
		ac := &c.attrs[k]
		if a.Rule.Kind == RuleBands && a.Rule.Thresholds == nil {
			cuts, err := cutsOf[k], errOf[k]
			if err != nil {
				// The blocking's fault when the same quantiles work on all pairs.
				if c.qblock != nil {
					if _, err2 := c.quantileCuts(k, a.Rule.Quantiles, false); err2 == nil {
						reason := fmt.Sprintf("too few pairs with values of attribute %q to set its bands at quantiles %v of |Δz|", a.Name, a.Rule.Quantiles)
						if c.blockTruePairs == c.blockPairs {
							reason = "only true pairs to compare: the model needs non-matches too"
						}
						return nil, c.blockingError(reason, fmt.Errorf("attribute %q: %w", a.Name, err))
					}
				}
				return nil, &AttributeError{Attribute: a.Name, Err: err}
			}
			ac.cuts = cuts
		}
	}
	return c, nil
}

// finiteValues returns an error wrapping distances.ErrNotFinite for the first NaN or ±Inf
// of one file's values of an attribute that is not flagged missing.
func finiteValues(attr, file string, v []float64, miss []bool) error {
	for i, x := range v {
		if (math.IsNaN(x) || math.IsInf(x, 0)) && !missing(miss, i) {
			return fmt.Errorf("linkage: attribute %q, %s record %d (0-based): %w: %v", attr, file, i, distances.ErrNotFinite, x)
		}
	}
	return nil
}

// BlockingError reports blocking keys that leave no pair, or too few, to fit the model;
// a caller that knows which attributes give the keys can name them and suggest a coarser
// blocking.
type BlockingError struct {
	// Reason says what the blocking leaves.
	Reason string
	// QueryBlocks and ReferenceBlocks are the numbers of distinct keys in the query and
	// reference files; Pairs and TruePairs count the pairs with equal keys.
	QueryBlocks, ReferenceBlocks int
	Pairs, TruePairs             uint64
	// Err is the underlying error, if any.
	Err error
}

func (e *BlockingError) Error() string {
	return fmt.Sprintf("linkage: the blocking leaves %s (%d query and %d reference keys, %d pairs with equal keys, %d of them true)",
		e.Reason, e.QueryBlocks, e.ReferenceBlocks, e.Pairs, e.TruePairs)
}

func (e *BlockingError) Unwrap() error { return e.Err }

func (c *comparator) blockingError(reason string, err error) error {
	return &BlockingError{Reason: reason, QueryBlocks: c.qBlocks, ReferenceBlocks: c.rBlocks,
		Pairs: c.blockPairs, TruePairs: c.blockTruePairs, Err: err}
}

// ErrShapePRL reports inputs of inconsistent sizes.
var ErrShapePRL = errors.New("linkage: inconsistent PRL input sizes")

func hasTrue(b []bool) bool { return slices.Contains(b, true) }

func missing(m []bool, i int) bool { return m != nil && m[i] }

// rankIntervals returns, for each value, the lowest and highest 0-based rank of its tie
// block among the file's non-missing values, times scale.
func rankIntervals(v []float64, miss []bool, scale float64) (lo, hi []float64) {
	idx := make([]int, 0, len(v))
	for i := range v {
		if !missing(miss, i) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	lo, hi = make([]float64, len(v)), make([]float64, len(v))
	for s := 0; s < len(idx); {
		e := s
		for e < len(idx) && v[idx[e]] == v[idx[s]] {
			e++
		}
		for _, i := range idx[s:e] {
			lo[i], hi[i] = float64(s)*scale, float64(e-1)*scale
		}
		s = e
	}
	return lo, hi
}

// buildTiles groups the references by block key (one block without blocking), in
// increasing key and reference order, and cuts each block into tiles.
func (c *comparator) buildTiles(rb []int) {
	groups := map[int][]int32{}
	var keys []int
	for j := 0; j < c.nr; j++ {
		key := 0
		if rb != nil {
			key = rb[j]
		}
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], int32(j))
	}
	slices.Sort(keys)
	c.byBlock = map[int][]int{}
	c.tileOf, c.localOf = make([]int32, c.nr), make([]int32, c.nr)
	for _, key := range keys {
		refs := groups[key]
		for s := 0; s < len(refs); s += prlRefTile {
			t := c.newTile(refs[s:min(s+prlRefTile, len(refs))])
			c.byBlock[key] = append(c.byBlock[key], len(c.tiles))
			for l, j := range t.refs {
				c.tileOf[j], c.localOf[j] = int32(len(c.tiles)), int32(l)
			}
			c.tiles = append(c.tiles, t)
		}
	}
}

func (c *comparator) newTile(refs []int32) refTile {
	t := refTile{refs: refs, base: make([]uint64, len(refs)), attr: make([]tileAttr, len(c.attrs))}
	for k := range c.attrs {
		a := &c.attrs[k]
		ta := &t.attr[k]
		var pos []int32
		for l, j := range refs {
			if missing(a.rmiss, int(j)) {
				ta.missing = append(ta.missing, int32(l))
				t.base[l] += uint64(a.levels) * a.radix
			} else {
				pos = append(pos, int32(l))
				t.base[l] += uint64(a.levels-1) * a.radix
			}
		}
		sort.SliceStable(pos, func(x, y int) bool { return a.r[refs[pos[x]]] < a.r[refs[pos[y]]] })
		ta.pos = pos
		ta.val = make([]float64, len(pos))
		for x, l := range pos {
			ta.val[x] = a.r[refs[l]]
		}
		if a.kind == RuleRank {
			ta.hi = make([]float64, len(pos))
			for x, l := range pos {
				ta.hi[x] = a.rhi[refs[l]]
			}
		}
	}
	return t
}

// tilesOf returns the tiles query i is compared with.
func (c *comparator) tilesOf(i int) []int { return c.byBlock[c.blockOf(i)] }

// blockOf is query i's block key (0 without blocking).
func (c *comparator) blockOf(i int) int {
	if c.qblock == nil {
		return 0
	}
	return c.qblock[i]
}

// code fills code (one entry per reference of tile t) with the patterns of query i.
// Every reference starts at "disagree" (or missing); only the references inside an
// attribute's agreement range, found by binary search on the sorted values, are visited.
func (c *comparator) code(i int, t *refTile, code []uint64) {
	copy(code, t.base)
	for k := range c.attrs {
		a := &c.attrs[k]
		ta := &t.attr[k]
		if missing(a.qmiss, i) {
			for _, l := range ta.pos {
				code[l] += a.radix // disagree → missing
			}
			continue
		}
		qv := a.q[i]
		var lo, hi int
		switch a.kind {
		case RuleEqual:
			lo = sort.SearchFloat64s(ta.val, qv)
			hi = lo
			for hi < len(ta.val) && ta.val[hi] == qv {
				hi++
			}
			for _, l := range ta.pos[lo:hi] {
				code[l] -= a.radix
			}
			continue
		case RuleBands:
			T := a.cuts[len(a.cuts)-1]
			s := slackOf(qv, T)
			lo = sort.SearchFloat64s(ta.val, qv-T-s)
			hi = sort.Search(len(ta.val), func(x int) bool { return ta.val[x] > qv+T+s })
			top := uint64(a.levels - 1)
			for x := lo; x < hi; x++ {
				d := math.Abs(qv - ta.val[x])
				lv := uint64(0)
				for _, ct := range a.cuts {
					if d > ct {
						lv++
					}
				}
				code[ta.pos[x]] -= (top - lv) * a.radix
			}
		case RuleRank:
			qh := a.qhi[i]
			T := a.cuts[len(a.cuts)-1]
			s := slackOf(qh, T)
			lo = sort.Search(len(ta.hi), func(x int) bool { return ta.hi[x] >= qv-T-s })
			hi = sort.Search(len(ta.val), func(x int) bool { return ta.val[x] > qh+T+s })
			top := a.levels - 1
			for x := lo; x < hi; x++ {
				lv := a.level(qv, qh, ta.val[x], ta.hi[x])
				code[ta.pos[x]] -= uint64(top-lv) * a.radix
			}
		}
	}
}

// slackOf widens a binary-search range so that rounding in q ± T never drops a reference
// whose exact level is below "disagree"; the level itself is then computed exactly.
func slackOf(q, t float64) float64 { return 1e-9 * (math.Abs(q) + math.Abs(t) + 1) }

// pairCode is the pattern of one pair, computed directly (for the true pair and tests).
func (c *comparator) pairCode(i, j int) uint64 {
	var code uint64
	for k := range c.attrs {
		a := &c.attrs[k]
		var l int
		if missing(a.qmiss, i) || missing(a.rmiss, j) {
			l = a.levels
		} else {
			var qh, rh float64
			if a.kind == RuleRank {
				qh, rh = a.qhi[i], a.rhi[j]
			}
			l = a.level(a.q[i], qh, a.r[j], rh)
		}
		code += uint64(l) * a.radix
	}
	return code
}

// decode writes the levels of a code into lv (−1 for missing).
func (c *comparator) decode(code uint64, lv []int8) {
	for k := range c.attrs {
		a := &c.attrs[k]
		l := int((code / a.radix) % uint64(a.digits))
		if l == a.levels {
			l = -1
		}
		lv[k] = int8(l)
	}
}

// stopped reports whether the caller's context is done.
func (c *comparator) stopped() bool { return c.ctx != nil && c.ctx.Err() != nil }

// forEachQuery runs f on every query, in blocks taken by the goroutines in any order;
// each goroutine gets its own state from newState.
func forEachQuery[S any](c *comparator, newState func() S, f func(s S, i int, code []uint64)) []S {
	blocks := (c.nq + prlQueryBlock - 1) / prlQueryBlock
	threads := max(1, min(c.threads, blocks))
	states := make([]S, threads)
	var next atomic.Int64
	var g workers.Group
	for w := range threads {
		s := newState()
		states[w] = s
		g.Go(func() {
			code := make([]uint64, min(prlRefTile, c.nr))
			for {
				b := int(next.Add(1)) - 1
				if b >= blocks || c.stopped() || g.Failing() {
					return
				}
				lo, hi := b*prlQueryBlock, min((b+1)*prlQueryBlock, c.nq)
				for i := lo; i < hi; i++ {
					f(s, i, code)
				}
				if c.progress != nil {
					c.progress(hi - lo)
				}
			}
		})
	}
	g.Wait()
	return states
}

// PatternCounts is how many compared pairs show each agreement pattern.
type PatternCounts struct {
	// Levels[k] is the number of non-missing levels of attribute k.
	Levels []int
	// Codes are the observed patterns (mixed-radix codes, ascending); Pattern[p*K+k] is
	// the level of attribute k in pattern p, −1 when missing.
	Codes   []uint64
	Pattern []int8
	// Count[p] pairs show pattern p, True[p] of them true pairs.
	Count, True []uint64
	// Pairs and TruePairs are the totals.
	Pairs, TruePairs uint64
}

// Table returns the counts as an EM input (all pairs).
func (pc *PatternCounts) Table() PatternTable {
	t := PatternTable{Levels: pc.Levels, Pattern: pc.Pattern, Count: make([]float64, len(pc.Count))}
	for p, n := range pc.Count {
		t.Count[p] = float64(n)
	}
	return t
}

// counter is one goroutine's pattern counts.
type counter struct {
	dense        []uint64
	denseTrue    []uint64
	hash, hashTr *codeTable
}

// count counts the patterns of every compared pair, and of the true pairs separately.
func (c *comparator) count() *PatternCounts {
	dense := c.space <= denseLimit || c.space <= denseMax && c.space <= c.comparedPairs()/densePairsPerCode
	states := forEachQuery(c, func() *counter {
		if dense {
			return &counter{dense: make([]uint64, c.space), denseTrue: make([]uint64, c.space)}
		}
		return &counter{hash: newCodeTable(), hashTr: newCodeTable()}
	}, func(s *counter, i int, code []uint64) {
		for _, ti := range c.tilesOf(i) {
			t := &c.tiles[ti]
			cd := code[:len(t.refs)]
			c.code(i, t, cd)
			if dense {
				d := s.dense
				for _, x := range cd {
					d[x]++
				}
			} else {
				h := s.hash
				for _, x := range cd {
					h.add(x, 1)
				}
			}
		}
		if j := c.truth[i]; j >= 0 && c.sameBlock(i, j) {
			x := c.pairCode(i, j)
			if dense {
				s.denseTrue[x]++
			} else {
				s.hashTr.add(x, 1)
			}
		}
	})
	// Merge: integer sums do not depend on the order, and the output is sorted by code.
	total, totalTrue := map[uint64]uint64{}, map[uint64]uint64{}
	if dense {
		sum, sumT := states[0].dense, states[0].denseTrue
		for _, s := range states[1:] {
			for x := range sum {
				sum[x] += s.dense[x]
				sumT[x] += s.denseTrue[x]
			}
		}
		for x, n := range sum {
			if n > 0 {
				total[uint64(x)] = n
				if sumT[x] > 0 {
					totalTrue[uint64(x)] = sumT[x]
				}
			}
		}
	} else {
		for _, s := range states {
			s.hash.each(func(k, v uint64) { total[k] += v })
			s.hashTr.each(func(k, v uint64) { totalTrue[k] += v })
		}
	}
	pc := &PatternCounts{}
	for k := range c.attrs {
		pc.Levels = append(pc.Levels, c.attrs[k].levels)
	}
	for x := range total {
		pc.Codes = append(pc.Codes, x)
	}
	slices.Sort(pc.Codes)
	K := len(c.attrs)
	pc.Pattern = make([]int8, len(pc.Codes)*K)
	pc.Count, pc.True = make([]uint64, len(pc.Codes)), make([]uint64, len(pc.Codes))
	for p, x := range pc.Codes {
		c.decode(x, pc.Pattern[p*K:(p+1)*K])
		pc.Count[p], pc.True[p] = total[x], totalTrue[x]
		pc.Pairs += pc.Count[p]
		pc.TruePairs += pc.True[p]
	}
	return pc
}

// AttributeError is a property of one attribute's values in the two files that stops the
// comparison (its quantile thresholds collapse on equal differences), for a caller to
// name the files and the attribute.
type AttributeError struct {
	Attribute string
	Err       error
}

func (e *AttributeError) Error() string {
	return fmt.Sprintf("linkage: attribute %q: %v", e.Attribute, e.Err)
}

func (e *AttributeError) Unwrap() error { return e.Err }

// comparedPairs is the number of pairs the counter visits: those with equal keys under
// blocking, else all.
func (c *comparator) comparedPairs() uint64 {
	if c.qblock != nil {
		return c.blockPairs
	}
	return uint64(c.nq) * uint64(c.nr)
}

func (c *comparator) sameBlock(i, j int) bool {
	if c.qblock == nil {
		return true
	}
	t := c.tilesOf(i)
	return len(t) > 0 && slices.Contains(t, int(c.tileOf[j]))
}

// codeTable is an open-addressing hash table from pattern code to a count or an index
// (linear probing, multiplicative hashing, grown at half load). No code equals emptyCode
// because codes are below 2^62.
type codeTable struct {
	keys, vals []uint64
	n          int
	shift      uint
}

const emptyCode = ^uint64(0)

func newCodeTable() *codeTable {
	t := &codeTable{}
	t.init(10)
	return t
}

func (t *codeTable) init(logSize uint) {
	t.keys = make([]uint64, 1<<logSize)
	t.vals = make([]uint64, 1<<logSize)
	for i := range t.keys {
		t.keys[i] = emptyCode
	}
	t.shift = 64 - logSize
	t.n = 0
}

func (t *codeTable) slot(k uint64) uint64 {
	mask := uint64(len(t.keys) - 1)
	i := (k * 0x9e3779b97f4a7c15) >> t.shift
	for t.keys[i] != k && t.keys[i] != emptyCode {
		i = (i + 1) & mask
	}
	return i
}

func (t *codeTable) add(k, v uint64) {
	i := t.slot(k)
	if t.keys[i] == k {
		t.vals[i] += v
		return
	}
	t.keys[i], t.vals[i] = k, v
	t.n++
	if 2*t.n > len(t.keys) {
		keys, vals := t.keys, t.vals
		t.init(65 - t.shift)
		for x, kk := range keys {
			if kk != emptyCode {
				t.add(kk, vals[x])
			}
		}
	}
}

func (t *codeTable) get(k uint64) (uint64, bool) {
	i := t.slot(k)
	return t.vals[i], t.keys[i] == k
}

func (t *codeTable) each(f func(k, v uint64)) {
	for i, k := range t.keys {
		if k != emptyCode {
			f(k, t.vals[i])
		}
	}
}
