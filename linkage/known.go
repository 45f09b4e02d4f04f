package linkage

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/reid-sdc/reid/datasets/mask"
)

// Masking methods an intruder may know (Knowledge.Method).
const (
	MaskNone     = "none"     // nothing is known: no transparency attack, K.Reid = 0
	MaskRankSwap = "rankswap" // rank swapping with a known window p (percent of n)
	MaskMDAV     = "mdav"     // MDAV microaggregation with a known k (mask.MDAV, sdcMicro's)
	MaskIndRank  = "indrank"  // individual-ranking microaggregation with a known k
)

// knownRelTol is the relative tolerance with which a masked value is matched to an original
// value or a reconstructed group mean. Masked files round-trip through CSV with 15 significant
// digits (relative error ≤ 5e-16) and group means may be summed in another order by the
// masking software; 1e-9 covers both by orders of magnitude while staying far below the gap
// between distinct values of real data. An absolute term 1e-12·max|x| (x the attribute's
// original values) covers means that should be 0 but carry rounding error. A looser match only enlarges candidate sets, so it
// never costs soundness.
const knownRelTol = 1e-9

// Knowledge is what the intruder is assumed to know about the masking (transparency: the
// method and its parameter are published), besides holding the whole original file.
type Knowledge struct {
	// Method is MaskRankSwap, MaskMDAV, MaskIndRank or MaskNone ("" means MaskNone). Any other
	// name is accepted and yields K.Reid = 0 with a Reason: no sound attack is known for it.
	Method string
	// P is the rank-swapping window in percent of the number of records n: no value was moved
	// by more than ⌊P·n/100⌋ ranks (sdcMicro's rankSwap P·100, mu-Argus' perc, mask.RankSwap's
	// percent).
	P float64
	// K is the microaggregation group size.
	K int
	// OneToOne adds the knowledge that the masked file holds every original record exactly
	// once (it is the release of the whole file, only the row order hidden): a record known to
	// be the partner of one masked record is removed from every other candidate set, and the
	// removal is repeated while it makes new singletons. Off, the attack is the per-record one
	// of Nin, Herranz & Torra (2008).
	OneToOne bool
}

// String states the assumption in words, for reports.
func (k Knowledge) String() string {
	var s string
	switch m := normMethod(k.Method); m {
	case MaskNone:
		s = "nothing about the masking"
	case MaskRankSwap:
		s = fmt.Sprintf("rank swapping with p = %g %% (no value moved more than ⌊p·n/100⌋ ranks, at least 1)", k.P)
	case MaskMDAV:
		s = fmt.Sprintf("MDAV microaggregation of all attributes together with k = %d (sdcMicro's algorithm and tie rule)", k.K)
	case MaskIndRank:
		s = fmt.Sprintf("individual-ranking microaggregation of each attribute with k = %d", k.K)
	default:
		s = fmt.Sprintf("masking method %q (no transparency attack implemented)", k.Method)
	}
	s = "the intruder holds the original file and knows " + s
	if k.OneToOne {
		s += "; every original record is released exactly once"
	}
	return s
}

func normMethod(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if m == "" {
		return MaskNone
	}
	return m
}

// KnownResult is the outcome of a transparency attack.
type KnownResult struct {
	Knowledge Knowledge
	// Window is the rank window w used by the rank-swapping attack (0 for other methods).
	Window int
	// Candidates[j] is the number of original records consistent with the knowledge for
	// masked record j (0 when none is: the stated knowledge is false for that record).
	Candidates []int
	// Known[j] is the original record when Candidates[j] == 1, else −1.
	Known []int
	// Inconsistent counts the masked records with no consistent original record (a value
	// found in no original record within the window, no matching group mean, an empty
	// intersection, or, with OneToOne, a conflict). It is 0 whenever the masking really was
	// done as stated; otherwise the assumption is wrong and K.Reid means nothing.
	Inconsistent int
	// Reason says why no attack was run (K.Reid = 0); empty when one was.
	Reason string
}

// NumKnown returns |K|, the number of masked records with a known partner.
func (r *KnownResult) NumKnown() int {
	c := 0
	for _, i := range r.Known {
		if i >= 0 {
			c++
		}
	}
	return c
}

// KReid returns K.Reid = |K|/|B| (design note §3), the share of masked records whose
// partner the intruder knows for sure.
func (r *KnownResult) KReid() float64 {
	if len(r.Known) == 0 {
		return 0
	}
	return float64(r.NumKnown()) / float64(len(r.Known))
}

// MeanCandidates returns the mean candidate-set size over the consistent masked records
// (0 if there are none).
func (r *KnownResult) MeanCandidates() float64 {
	s, c := 0, 0
	for _, x := range r.Candidates {
		if x > 0 {
			s += x
			c++
		}
	}
	if c == 0 {
		return 0
	}
	return float64(s) / float64(c)
}

// KnownLinks runs the transparency attack of k on a masked file and returns, for every masked
// record, the size of its candidate set (the original records consistent with what the
// intruder knows) and the original record when that set is a singleton. The attack is sound:
// when the masking really was done as stated, every candidate set contains the true partner,
// so every singleton is a correct link (Nin, Herranz & Torra, "Rethinking rank swapping to
// decrease disclosure risk", Data & Knowledge Engineering 64(1), 2008; "On the disclosure risk
// of multivariate microaggregation", DKE 67(3), 2008).
//
// original and masked are column-major raw values (x[attr][record], not standardised), the
// same attributes in the same order, and the same number of records n: the masked file is the
// release of the whole original file (its row order plays no role in the attack).
//
//   - Rank swapping: with w = max(1, ⌊P·n/100⌋), a masked value v of attribute a occupies
//     the ranks [lo(v), hi(v)] of the sorted original column (a tied value may sit anywhere in
//     its block), and it was swapped from a rank at most w away, so the partner's original
//     value lies between the sorted values at ranks lo(v) − w and hi(v) + w, inclusive.
//     Candidates are the records inside that value interval on every attribute.
//   - MDAV: the partition is rebuilt with mask.MDAV(original, K); candidates of a masked row
//     are the members of every group whose mean equals it, and every original record identical
//     to a member (tie rules may exchange identical records). Groups have ≥ K members.
//   - Individual ranking: per attribute, the groups of mask.IndividualRanking(original, K)
//     whose mean equals the masked value; candidates are the records whose original value lies
//     within those groups' value range (so a different tie order cannot lose the partner),
//     intersected over attributes. This does give singletons.
//   - Otherwise no record is excluded (K.Reid = 0) and Reason says why.
//
// Values are matched with a relative tolerance of 1e-9. The cost is O(m·n·log n) plus, per
// masked record, the size of its smallest per-attribute interval times m.
//
// Errors: empty or ragged data, different numbers of attributes or records, NaN or ±Inf,
// P outside [0, 100], K < 1 or K > n for microaggregation.
func KnownLinks(original, masked [][]float64, k Knowledge) (*KnownResult, error) {
	n, err := knownCheck(original, masked)
	if err != nil {
		return nil, err
	}
	res := &KnownResult{Knowledge: k, Candidates: make([]int, n), Known: make([]int, n)}
	var att *knownAttack
	switch m := normMethod(k.Method); m {
	case MaskRankSwap:
		if !(k.P >= 0 && k.P <= 100) {
			return nil, fmt.Errorf("linkage: KnownLinks: rank-swapping p = %g %% is outside [0, 100]", k.P)
		}
		res.Window = knownWindow(k.P, n)
		att = rankSwapAttack(original, masked, res.Window)
	case MaskMDAV, MaskIndRank:
		if k.K < 1 || k.K > n {
			return nil, fmt.Errorf("linkage: KnownLinks: microaggregation k = %d is outside [1, %d]", k.K, n)
		}
		if m == MaskMDAV {
			att, err = mdavAttack(original, masked, k.K)
		} else {
			att, err = indRankAttack(original, masked, k.K)
		}
		if err != nil {
			return nil, fmt.Errorf("linkage: KnownLinks: %w", err)
		}
	default:
		if m == MaskNone {
			res.Reason = "no masking method is known to the intruder: every original record is a candidate for every masked record"
		} else {
			res.Reason = fmt.Sprintf("no sound transparency attack is implemented for masking method %q: every original record is a candidate", k.Method)
		}
		for j := range res.Known {
			res.Candidates[j] = n
			res.Known[j] = -1
		}
		if n == 1 {
			res.Known[0] = 0
		}
		return res, nil
	}
	att.run(res, k.OneToOne)
	return res, nil
}

// knownWindow returns the rank window w = max(1, ⌊p·n/100⌋) used by the rank-swapping
// attack. The three implementations move a value at most
//
//	mask.RankSwap:              ⌊p·n/100⌋ ranks (0 when that is 0);
//	mu-Argus (argus_rankswap):  max(1, ⌊n·perc/100⌋) ranks (it swaps neighbours even when
//	                            ⌊n·perc/100⌋ = 0);
//	sdcMicro rankSwap (P = p/100): (int)(j + n·P) − 1 − j ≤ ⌊n·P⌋ − 1 ranks (the partner is
//	                            drawn strictly below j + n·P, computed in float32),
//
// so w bounds all of them. A relative 1e-9 is added before the floor so that p·n/100 landing
// just under an integer through binary rounding cannot shrink the window.
func knownWindow(p float64, n int) int {
	x := p * float64(n) / 100
	w := int(math.Floor(x + 1e-9*math.Max(1, x)))
	return min(max(w, 1), n)
}

func knownCheck(original, masked [][]float64) (int, error) {
	const op = "linkage: KnownLinks"
	if len(original) == 0 || len(original[0]) == 0 {
		return 0, fmt.Errorf("%s: the original file has no attributes or no records", op)
	}
	if len(masked) != len(original) {
		return 0, fmt.Errorf("%s: the masked file has %d attributes, the original %d", op, len(masked), len(original))
	}
	n := len(original[0])
	for _, f := range []struct {
		name string
		x    [][]float64
	}{{"original", original}, {"masked", masked}} {
		for a, col := range f.x {
			if len(col) != n {
				return 0, fmt.Errorf("%s: %s attribute %d has %d records, want %d (both files must hold the same n records)", op, f.name, a, len(col), n)
			}
			for i, v := range col {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return 0, fmt.Errorf("%s: %s attribute %d, record %d: value %v is not finite", op, f.name, a, i, v)
				}
			}
		}
	}
	return n, nil
}

// knownAttack holds the candidate sets of every masked record implicitly, in one of two forms.
//
// Interval form (rank swapping, individual ranking): per attribute a, order[a] lists the
// records sorted by original value, pos[a][i] is record i's place in it, and masked record j's
// candidates on a are order[a][lo[a][j] … hi[a][j]]; the candidate set is the intersection over
// a (empty when some lo > hi).
//
// Set form (MDAV): set[j] indexes sets, the candidate list of masked record j (−1: none).
type knownAttack struct {
	n      int
	order  [][]int32
	pos    [][]int32
	lo, hi [][]int32

	setForm bool
	set     []int32
	sets    [][]int32
}

// candidates appends masked record j's candidate original records to buf, in no particular
// order, and returns it. attrs is scratch space of length ≥ the number of attributes.
//
// Interval form: the records of the narrowest interval are filtered by the other attributes,
// narrowest first, so most records are rejected by the first check.
func (t *knownAttack) candidates(j int, buf []int32, attrs []int) []int32 {
	buf = buf[:0]
	if t.setForm {
		if s := t.set[j]; s >= 0 {
			buf = append(buf, t.sets[s]...)
		}
		return buf
	}
	width := func(a int) int32 { return t.hi[a][j] - t.lo[a][j] }
	attrs = attrs[:len(t.lo)]
	for a := range attrs {
		if width(a) < 0 {
			return buf
		}
		attrs[a] = a
	}
	slices.SortFunc(attrs, func(x, y int) int { return cmp.Compare(width(x), width(y)) })
	best, rest := attrs[0], attrs[1:]
next:
	for _, i := range t.order[best][t.lo[best][j] : t.hi[best][j]+1] {
		for _, a := range rest {
			if p := t.pos[a][i]; p < t.lo[a][j] || p > t.hi[a][j] {
				continue next
			}
		}
		buf = append(buf, i)
	}
	return buf
}

// run fills res from the candidate sets, eliminating owned records when oneToOne.
func (t *knownAttack) run(res *KnownResult, oneToOne bool) {
	n := t.n
	var buf []int32
	attrs := make([]int, len(t.lo))
	var lists [][]int32
	if oneToOne {
		lists = make([][]int32, n)
	}
	for j := 0; j < n; j++ {
		buf = t.candidates(j, buf, attrs)
		res.Candidates[j] = len(buf)
		res.Known[j] = -1
		if len(buf) == 1 {
			res.Known[j] = int(buf[0])
		}
		if oneToOne {
			lists[j] = slices.Clone(buf)
		}
	}
	if oneToOne {
		knownEliminate(lists, res)
	}
	res.Inconsistent = 0
	for _, c := range res.Candidates {
		if c == 0 {
			res.Inconsistent++
		}
	}
}

// knownEliminate uses that the masked records are a one-to-one image of the original ones:
// when masked record j's only remaining candidate is i, i is nobody else's partner, so it
// leaves every other candidate set; repeated until nothing changes ("naked singles"). A set
// emptied this way, or two masked records left with the same single candidate, contradict the
// knowledge: those records get Candidates 0 and no link. res.Candidates holds the initial set
// sizes and is updated in place.
func knownEliminate(lists [][]int32, res *KnownResult) {
	n := len(lists)
	holders := make([][]int32, n) // holders[i]: masked records with candidate i
	for j, l := range lists {
		for _, i := range l {
			holders[i] = append(holders[i], int32(j))
		}
	}
	owner := make([]int32, n) // owner[i]: the masked record i is known to be, or −1
	for i := range owner {
		owner[i] = -1
	}
	bad := make([]bool, n)
	var queue []int32
	for j, c := range res.Candidates {
		if c == 1 {
			queue = append(queue, int32(j))
		}
	}
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		if bad[j] || res.Candidates[j] != 1 {
			continue
		}
		// The single candidate not owned by another masked record.
		i := int32(-1)
		for _, c := range lists[j] {
			if owner[c] < 0 || owner[c] == j {
				i = c
				break
			}
		}
		if i < 0 || owner[i] == j {
			continue
		}
		owner[i] = j
		for _, h := range holders[i] {
			if h == j || bad[h] {
				continue
			}
			if res.Candidates[h]--; res.Candidates[h] == 0 {
				// h's last candidate is i too: j and h claim the same record, the
				// knowledge is contradicted and neither link can be trusted.
				bad[h], bad[j] = true, true
			} else if res.Candidates[h] == 1 {
				queue = append(queue, h)
			}
		}
	}
	for j := range n {
		res.Known[j] = -1
		if bad[j] {
			res.Candidates[j] = 0
		}
	}
	for i, o := range owner {
		if o >= 0 && !bad[o] {
			res.Known[o] = i
		}
	}
}

// knownSorted returns, for one column, the records sorted by value (ties by index), the sorted
// values and each record's place.
func knownSorted(col []float64) (order []int32, sorted []float64, pos []int32) {
	n := len(col)
	order = make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(col[a], col[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	sorted = make([]float64, n)
	pos = make([]int32, n)
	for q, i := range order {
		sorted[q] = col[i]
		pos[i] = int32(q)
	}
	return order, sorted, pos
}

// knownAbsTol is the absolute part of the matching tolerance for a column.
func knownAbsTol(sorted []float64) float64 {
	return knownRelTol * 1e-3 * math.Max(math.Abs(sorted[0]), math.Abs(sorted[len(sorted)-1]))
}

// knownMatch returns the places [lo, hi] of the sorted values within tolerance of v
// (lo > hi when none is).
func knownMatch(sorted []float64, v, abs float64) (lo, hi int) {
	tol := knownRelTol*math.Abs(v) + abs
	lo = sort.SearchFloat64s(sorted, v-tol)
	hi = sort.Search(len(sorted), func(q int) bool { return sorted[q] > v+tol }) - 1
	return lo, hi
}

// knownBlock widens the places [lo, hi] to whole blocks of tied values: a tied value may sit
// at any place of its block, so a record in a block is a candidate iff the block is.
func knownBlock(sorted []float64, lo, hi int) (int, int) {
	lo = sort.SearchFloat64s(sorted, sorted[lo])
	hi = sort.Search(len(sorted), func(q int) bool { return sorted[q] > sorted[hi] }) - 1
	return lo, hi
}

func newIntervalAttack(m, n int) *knownAttack {
	t := &knownAttack{n: n, order: make([][]int32, m), pos: make([][]int32, m),
		lo: make([][]int32, m), hi: make([][]int32, m)}
	for a := range m {
		t.lo[a] = make([]int32, n)
		t.hi[a] = make([]int32, n)
	}
	return t
}

// rankSwapAttack: masked value v sits at places [lo(v), hi(v)] of the sorted original column
// and came from at most w places away, so its record's original value is one of the sorted
// values at places max(0, lo(v)−w) … min(n−1, hi(v)+w), widened to whole tie blocks.
func rankSwapAttack(original, masked [][]float64, w int) *knownAttack {
	n := len(original[0])
	t := newIntervalAttack(len(original), n)
	for a, col := range original {
		order, sorted, pos := knownSorted(col)
		t.order[a], t.pos[a] = order, pos
		abs := knownAbsTol(sorted)
		for j, v := range masked[a] {
			lo, hi := knownMatch(sorted, v, abs)
			if lo > hi { // v is no original value: not a swap of this column
				t.lo[a][j], t.hi[a][j] = 1, 0
				continue
			}
			lo, hi = knownBlock(sorted, max(0, lo-w), min(n-1, hi+w))
			t.lo[a][j], t.hi[a][j] = int32(lo), int32(hi)
		}
	}
	return t
}

// indRankAttack: per attribute, the reconstructed group means along the sorted order are
// non-decreasing; the places whose mean matches v form a range, widened to whole tie blocks
// of the original values (another tie order could have put a tied record in the neighbouring
// group).
func indRankAttack(original, masked [][]float64, k int) (*knownAttack, error) {
	rec, err := mask.IndividualRanking(original, k)
	if err != nil {
		return nil, err
	}
	n := len(original[0])
	t := newIntervalAttack(len(original), n)
	means := make([]float64, n)
	for a, col := range original {
		order, sorted, pos := knownSorted(col) // the order IndividualRanking uses
		t.order[a], t.pos[a] = order, pos
		for q, i := range order {
			means[q] = rec[a][i]
		}
		if !sort.Float64sAreSorted(means) {
			return nil, fmt.Errorf("individual-ranking means of attribute %d are not monotone (internal error)", a)
		}
		abs := knownAbsTol(sorted)
		for j, v := range masked[a] {
			lo, hi := knownMatch(means, v, abs)
			if lo > hi {
				t.lo[a][j], t.hi[a][j] = 1, 0
				continue
			}
			lo, hi = knownBlock(sorted, lo, hi)
			t.lo[a][j], t.hi[a][j] = int32(lo), int32(hi)
		}
	}
	return t, nil
}

// mdavAttack: rebuild the MDAV partition, match each masked row to the group means (groups
// sorted by their mean on the attribute with most distinct means, then checked on all), and
// take the members of the matching groups plus every original record identical to one of them.
func mdavAttack(original, masked [][]float64, k int) (*knownAttack, error) {
	rec, groups, err := mask.MDAV(original, k)
	if err != nil {
		return nil, err
	}
	m, n := len(original), len(original[0])
	ng := 0
	for _, g := range groups {
		ng = max(ng, g+1)
	}
	members := make([][]int32, ng)
	for i, g := range groups {
		members[g] = append(members[g], int32(i))
	}
	// Group means, and the key attribute.
	mean := make([][]float64, m) // mean[a][g]
	abs := make([]float64, m)
	key, keyDistinct := 0, -1
	for a := range m {
		mean[a] = make([]float64, ng)
		lo, hi := math.Inf(1), math.Inf(-1)
		for g, mem := range members {
			if len(mem) > 0 {
				mean[a][g] = rec[a][mem[0]]
			}
		}
		for _, v := range original[a] {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		abs[a] = knownRelTol * 1e-3 * math.Max(math.Abs(lo), math.Abs(hi))
		d := slices.Compact(slices.Sorted(slices.Values(mean[a])))
		if len(d) > keyDistinct {
			key, keyDistinct = a, len(d)
		}
	}
	byKey := make([]int32, 0, ng) // the (non-empty) groups by mean on the key attribute
	for g, mem := range members {
		if len(mem) > 0 {
			byKey = append(byKey, int32(g))
		}
	}
	slices.SortFunc(byKey, func(x, y int32) int { return cmp.Compare(mean[key][x], mean[key][y]) })
	keyVals := make([]float64, len(byKey))
	for q, g := range byKey {
		keyVals[q] = mean[key][g]
	}
	// Duplicate classes of original rows.
	dupOf, dupMembers := knownDuplicates(original)

	t := &knownAttack{n: n, setForm: true, set: make([]int32, n)}
	seen := make(map[string]int32) // matching group list → set index
	mark := make([]bool, n)
	var matched []int32
	var sb strings.Builder
	for j := range n {
		matched = matched[:0]
		lo, hi := knownMatch(keyVals, masked[key][j], abs[key])
		for q := lo; q <= hi; q++ {
			g := byKey[q]
			ok := true
			for a := range m {
				v := masked[a][j]
				if math.Abs(mean[a][g]-v) > knownRelTol*math.Abs(v)+abs[a] {
					ok = false
					break
				}
			}
			if ok {
				matched = append(matched, g)
			}
		}
		if len(matched) == 0 {
			t.set[j] = -1
			continue
		}
		slices.Sort(matched)
		sb.Reset()
		for _, g := range matched {
			fmt.Fprintf(&sb, "%d,", g)
		}
		if s, ok := seen[sb.String()]; ok {
			t.set[j] = s
			continue
		}
		var set []int32
		for _, g := range matched {
			for _, i := range members[g] {
				for _, d := range dupMembers[dupOf[i]] {
					if !mark[d] {
						mark[d] = true
						set = append(set, d)
					}
				}
			}
		}
		for _, d := range set {
			mark[d] = false
		}
		t.set[j] = int32(len(t.sets))
		seen[sb.String()] = t.set[j]
		t.sets = append(t.sets, set)
	}
	return t, nil
}

// knownDuplicates groups identical original rows: dupOf[i] is the class of record i and
// members[c] the records of class c.
func knownDuplicates(x [][]float64) (dupOf []int32, members [][]int32) {
	n := len(x[0])
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	rowCmp := func(p, q int32) int {
		for _, col := range x {
			if c := cmp.Compare(col[p], col[q]); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortFunc(order, func(p, q int32) int {
		if c := rowCmp(p, q); c != 0 {
			return c
		}
		return cmp.Compare(p, q)
	})
	dupOf = make([]int32, n)
	for q, i := range order {
		if q == 0 || rowCmp(order[q-1], i) != 0 {
			members = append(members, nil)
		}
		c := int32(len(members) - 1)
		dupOf[i] = c
		members[c] = append(members[c], i)
	}
	return dupOf, members
}
