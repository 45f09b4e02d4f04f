package uniqueness

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/reid-sdc/reid/datasets"
)

// KAnonymity is the k-anonymity check (Samarati and Sweeney 1998): every key class must
// hold at least K sample records.
type KAnonymity struct {
	K int
	// KMin is the size of the smallest class: the file is KMin-anonymous.
	KMin int
	// ClassesBelow and RecordsBelow count the classes with f_j < K and their records.
	ClassesBelow, RecordsBelow int
	// Failing lists classes with f_j < K, smallest first, then by class number (first
	// appearance), at most the number asked for.
	Failing []FailingClass
}

// FailingClass is a key class that fails a check.
type FailingClass struct {
	Class int      // class number (see Classes.Of)
	Key   []string // its key values
	// Missing[k] is true where Key[k] is the missing category (see Classes.KeyMissing).
	Missing []bool
	Size    int // f_j
	// Distinct and Entropy are the class's distinct and entropy l (l-diversity).
	Distinct int
	Entropy  float64
	// Distance is the class's earth mover's distance (t-closeness).
	Distance float64
}

// CheckK checks k-anonymity, listing at most list failing classes (list < 0: all).
func (c *Classes) CheckK(k, list int) KAnonymity {
	r := KAnonymity{K: k}
	var fail []int
	for j, f := range c.Freq {
		if j == 0 || f < r.KMin {
			r.KMin = f
		}
		if f < k {
			r.ClassesBelow++
			r.RecordsBelow += f
			fail = append(fail, j)
		}
	}
	slices.SortStableFunc(fail, func(a, b int) int { return cmp.Compare(c.Freq[a], c.Freq[b]) })
	for _, j := range truncate(fail, list) {
		r.Failing = append(r.Failing, FailingClass{Class: j, Key: c.Label(j), Missing: c.KeyMissing(j), Size: c.Freq[j]})
	}
	return r
}

func truncate(s []int, list int) []int {
	if list >= 0 && len(s) > list {
		return s[:list]
	}
	return s
}

// LDiversity is the l-diversity check of one sensitive attribute (Machanavajjhala et al.
// 2007): within every key class the attribute must take at least L distinct values
// (distinct l-diversity), and the exponential of the entropy of its values in the class,
// exp(−Σ_v p_v log p_v), must be at least L (entropy l-diversity). A numeric attribute's
// values are its distinct numbers. A missing value is not a value: both l count the
// class's present values only (p_v over them), and a class with none has l = 0 (it fails),
// since a missing value adds no diversity an attacker must get past.
type LDiversity struct {
	Attribute string
	L         float64
	// MinDistinct and MinEntropy are the smallest distinct and entropy l over the classes.
	MinDistinct int
	MinEntropy  float64
	// FailingDistinct and FailingEntropy count the classes failing each criterion,
	// ClassesFailing those failing either.
	FailingDistinct, FailingEntropy, ClassesFailing int
	// Failing lists classes failing either criterion, least diverse first (by distinct l,
	// then entropy l, then class number), at most the number asked for.
	Failing []FailingClass
}

// TCloseness is the t-closeness check of one sensitive attribute (Li, Li and
// Venkatasubramanian 2007): within every key class the distribution of the attribute must
// be within earth mover's distance T of its distribution in the whole sample. A numeric
// attribute uses the ordered distance over its m distinct sample values v_1 < … < v_m,
// EMD = (1/(m−1)) Σ_{i=1}^{m−1} |Σ_{l≤i} (p_l − q_l)|; a categorical one the equal
// distance, EMD = ½ Σ_v |p_v − q_v|. As for LDiversity a missing value is not a value:
// p is the distribution of the class's present values and q that of the sample's, and a
// class with no present value, which discloses none, is at distance 0.
type TCloseness struct {
	Attribute string
	T         float64
	// Distance is "ordered" or "equal".
	Distance string
	// MaxDistance is the largest distance of a class.
	MaxDistance float64
	// ClassesAbove counts the classes with distance > T.
	ClassesAbove int
	// Failing lists them, farthest first (then by class number), at most the number asked
	// for.
	Failing []FailingClass
}

// checkThreshold returns an error wrapping ErrBadThreshold unless v is finite and not
// negative: NaN compares false with everything, so every class would pass.
func checkThreshold(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: %s = %v", ErrBadThreshold, name, v)
	}
	return nil
}

// sensitive is a sensitive attribute coded 0..m-1 in the order of its values (numbers
// ascending for a numeric attribute), with missing values coded m.
type sensitive struct {
	codes   []int32
	m       int
	ordered bool
}

func codeSensitive(col *datasets.Column) sensitive {
	if col.Kind == datasets.Categorical {
		s := sensitive{codes: col.Codes, m: len(col.Levels)}
		if col.Valid != nil {
			s.codes = slices.Clone(col.Codes)
			for i, ok := range col.Valid {
				if !ok {
					s.codes[i] = int32(s.m)
				}
			}
		}
		return s
	}
	index := map[float64]int32{}
	for i, v := range col.Values {
		if !col.Missing(i) {
			if _, ok := index[v]; !ok {
				index[v] = 0
			}
		}
	}
	vals := make([]float64, 0, len(index))
	for v := range index {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	for c, v := range vals {
		index[v] = int32(c)
	}
	s := sensitive{codes: make([]int32, len(col.Values)), m: len(vals), ordered: true}
	for i, v := range col.Values {
		if col.Missing(i) {
			s.codes[i] = int32(s.m)
		} else {
			s.codes[i] = index[v]
		}
	}
	return s
}

// verdictTolerance is the rounding the l-diversity and t-closeness verdicts allow: a
// class of m equally frequent values has entropy l = m exactly, which exp(−Σ p log p)
// computes as m − 4e-16 for m = 3 (failing l = 3), and two classes at earth mover's
// distance 0.2 by hand came out 0.2 and 0.2 + 7e-17, one above t = 0.2 and one not.
// Entropy l is compared relative to l, distances (in [0, 1]) absolutely; the values
// reported are the computed ones.
const verdictTolerance = 1e-12

// CheckSensitive checks l-diversity (with l) and t-closeness (with t) of the sensitive
// column col, which must have one value per sample record, listing at most list failing
// classes of each (list < 0: all). l and t must be finite and not negative (an error
// wrapping ErrBadThreshold); col's codes must be within its levels (ErrBadCode) and its
// numbers not NaN (datasets.ErrNotFinite).
func (c *Classes) CheckSensitive(col *datasets.Column, l, t float64, list int) (LDiversity, TCloseness, error) {
	if err := checkThreshold("l", l); err != nil {
		return LDiversity{}, TCloseness{}, err
	}
	if err := checkThreshold("t", t); err != nil {
		return LDiversity{}, TCloseness{}, err
	}
	if col.Len() != len(c.Of) {
		return LDiversity{}, TCloseness{}, fmt.Errorf("sensitive attribute %q has %d values for %d records", col.Name, col.Len(), len(c.Of))
	}
	if row, detail, err := columnProblem(col, len(c.Of)); err != nil {
		return LDiversity{}, TCloseness{}, fmt.Errorf("sensitive attribute %q, record %d (0-based): %w: %s", col.Name, row, err, detail)
	}
	s := codeSensitive(col)
	ld := LDiversity{Attribute: col.Name, L: l}
	tc := TCloseness{Attribute: col.Name, T: t, Distance: "equal"}
	if s.ordered {
		tc.Distance = "ordered"
	}

	// Whole-sample distribution of the present values (missing, code m, is not a value):
	// counts per code, cumulative counts and their prefix sums for the ordered distance.
	all := make([]int64, s.m+1)
	for _, v := range s.codes {
		all[v]++
	}
	total := int64(len(s.codes)) - all[s.m]
	cum := make([]int64, s.m+1)   // cum[i] = Σ_{l≤i} all[l]
	pre := make([]float64, s.m+1) // pre[i] = Σ_{l<i} cum[l], exact below 2^53
	for i := 0; i < s.m; i++ {
		if i > 0 {
			cum[i] = cum[i-1]
		}
		cum[i] += all[i]
		pre[i+1] = pre[i] + float64(cum[i])
	}

	off, rows := c.members()
	count := make([]int64, s.m)
	var touched []int32 // the class's present values
	var distinctFail, tFail []FailingClass
	for j := 0; j < c.Len(); j++ {
		size := c.Freq[j]
		touched = touched[:0]
		var present int64
		for _, r := range rows[off[j]:off[j+1]] {
			v := s.codes[r]
			if int(v) == s.m {
				continue
			}
			if count[v] == 0 {
				touched = append(touched, v)
			}
			count[v]++
			present++
		}
		// l-diversity over the present values; none gives l = 0, not exp(0) = 1.
		h := 0.0
		for _, v := range touched {
			p := float64(count[v]) / float64(present)
			h -= p * math.Log(p)
		}
		distinct, entropy := len(touched), 0.0
		if present > 0 {
			entropy = math.Exp(h)
		}
		if j == 0 || distinct < ld.MinDistinct {
			ld.MinDistinct = distinct
		}
		if j == 0 || entropy < ld.MinEntropy {
			ld.MinEntropy = entropy
		}
		fc := FailingClass{Class: j, Size: size, Distinct: distinct, Entropy: entropy}
		if float64(distinct) < l {
			ld.FailingDistinct++
		}
		entropyFails := entropy < l*(1-verdictTolerance)
		if entropyFails {
			ld.FailingEntropy++
		}
		if float64(distinct) < l || entropyFails {
			ld.ClassesFailing++
			distinctFail = append(distinctFail, fc)
		}
		// t-closeness.
		var d float64
		if s.ordered {
			d = orderedEMD(touched, count, present, s.m, cum, pre, total)
		} else {
			d = equalEMD(touched, count, present, all, total)
		}
		if d > tc.MaxDistance {
			tc.MaxDistance = d
		}
		if d > t+verdictTolerance {
			tc.ClassesAbove++
			fc.Distance = d
			tFail = append(tFail, fc)
		}
		for _, v := range touched {
			count[v] = 0
		}
	}
	slices.SortStableFunc(distinctFail, func(a, b FailingClass) int {
		if a.Distinct != b.Distinct {
			return cmp.Compare(a.Distinct, b.Distinct)
		}
		return cmp.Compare(a.Entropy, b.Entropy)
	})
	slices.SortStableFunc(tFail, func(a, b FailingClass) int { return cmp.Compare(b.Distance, a.Distance) })
	ld.Failing = c.labelled(distinctFail, list)
	tc.Failing = c.labelled(tFail, list)
	return ld, tc, nil
}

func (c *Classes) labelled(fail []FailingClass, list int) []FailingClass {
	if list >= 0 && len(fail) > list {
		fail = fail[:list]
	}
	for i := range fail {
		fail[i].Key, fail[i].Missing = c.Label(fail[i].Class), c.KeyMissing(fail[i].Class)
	}
	return fail
}

// equalEMD is the earth mover's distance with equal ground distance between a class's
// distribution (count over size) and the sample's (all over total): half the L1 distance,
// computed over the class's values only, Σ_{v∉class} q_v being 1 − Σ_{v∈class} q_v. It is
// 0 for a class without values.
func equalEMD(touched []int32, count []int64, size int64, all []int64, total int64) float64 {
	if size == 0 || total == 0 {
		return 0
	}
	var diff, inClass float64
	for _, v := range touched {
		p := float64(count[v]) / float64(size)
		q := float64(all[v]) / float64(total)
		diff += math.Abs(p - q)
		inClass += q
	}
	return max(0, (diff+1-inClass)/2)
}

// orderedEMD is the earth mover's distance with ordered ground distance |i−l|/(m−1)
// between a class's distribution over the codes 0..m-1 and the sample's:
// (1/(m−1)) Σ_{i<m−1} |P_i − Q_i| with P, Q the cumulative distributions. Between two
// consecutive values of the class P_i is constant while Q_i increases, so each stretch is
// summed in O(log m) from the prefix sums of Q: the cost is that of sorting the class's
// values, not O(m). touched holds the class's present values (codes below m), size
// their number of records; a class without values is at distance 0.
func orderedEMD(touched []int32, count []int64, size int64, m int, cum []int64, pre []float64, total int64) float64 {
	if m <= 1 || total == 0 || size == 0 {
		return 0
	}
	vals := slices.Clone(touched)
	slices.Sort(vals)
	n := float64(total)
	// sum over i in [a, b) of |P − cum[i]/n| with P = cp/size.
	stretch := func(a, b int, cp int64) float64 {
		if a >= b {
			return 0
		}
		// First i in [a, b) with cum[i]/n > cp/size.
		t := a + sort.Search(b-a, func(k int) bool { return cum[a+k]*size > cp*total })
		p := float64(cp) / float64(size)
		below := p*float64(t-a) - (pre[t]-pre[a])/n
		above := (pre[b]-pre[t])/n - p*float64(b-t)
		return below + above
	}
	last := m - 1 // the cumulative distributions agree (both 1) at i = m−1
	var s float64
	var cp int64
	prev := 0
	for _, v := range vals {
		s += stretch(prev, min(int(v), last), cp)
		cp += count[v]
		prev = min(int(v), last)
	}
	s += stretch(prev, last, cp)
	return max(0, s/float64(m-1))
}
