package distances

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// MaxChoquetAttributes is the largest m a Choquet integral accepts: its measure has 2^m
// values (8 MiB at m = 20).
const MaxChoquetAttributes = 20

// Choquet is the Choquet integral (Choquet, "Theory of capacities", Annales de l'Institut
// Fourier 5, 1954) of the attribute diffs with respect to a fuzzy measure μ on the subsets
// of the m attributes, as a record-linkage distance (Abril, Navarro-Arribas & Torra,
// "Choquet integral for record linkage", Annals of Operations Research 195, 2012):
//
//	C_μ(a, b) = Σ_{k=1..m} (x_(k) − x_(k−1)) μ(A_(k)),  x_i = diff_i(a, b)
//
// with x_(1) ≤ … ≤ x_(m) the diffs sorted ascending, x_(0) = 0, and A_(k) = {(k), …, (m)}
// the attributes of the k-th smallest up to the largest diff. μ(∅) = 0, μ(V) = 1 and μ is
// monotone (A ⊆ B ⇒ μ(A) ≤ μ(B)).
//
// μ is a slice indexed by bitmask: μ(A) is mu[mask] where bit i−1 of mask is set when
// attribute i belongs to A (attribute 1 is bit 0). An additive measure gives the weighted
// mean (AdditiveMeasure), a symmetric one an OWA (SymmetricMeasure).
//
// Ties between diffs do not matter: a run of equal diffs contributes x_(k) − x_(k−1) = 0
// for every set inside it, and the sets with a non-zero increment are the level sets
// {i : x_i ≥ t} of the diffs' distinct values t, whatever order the ties are put in.
// A Choquet is immutable and safe for concurrent use.
type Choquet struct {
	m  int
	mu []float64 // len 2^m, mu[0] = 0, mu[2^m−1] = 1
}

// NewChoquet returns the Choquet integral of the measure mu on m attributes (1 ≤ m ≤
// MaxChoquetAttributes), indexed by bitmask as described at Choquet; len(mu) must be 2^m.
// μ(∅) must be 0, μ(V) must be 1 to 1e-9 (it is then stored as exactly 1), every value
// finite in [0, 1], and μ monotone: μ(A) ≤ μ(A ∪ {i}) for every A and i ∉ A, which
// implies A ⊆ B ⇒ μ(A) ≤ μ(B). The error of a violation names the subsets by their
// 1-based attribute indices. mu is copied.
func NewChoquet(mu []float64, m int) (*Choquet, error) {
	return newChoquet(mu, m, nil)
}

// newChoquet is NewChoquet; its errors name the subsets by attribute names when names
// (len m) is given.
func newChoquet(mu []float64, m int, names []string) (*Choquet, error) {
	set := func(mask int) string { return subsetString(mask, names) }
	if m < 1 || m > MaxChoquetAttributes {
		return nil, invalidf("choquet: %d attributes (want 1 to %d)", m, MaxChoquetAttributes)
	}
	n := 1 << m
	if len(mu) != n {
		return nil, invalidf("choquet: %d measure values for %d attributes (want 2^%d = %d)", len(mu), m, m, n)
	}
	full := n - 1
	for mask, v := range mu {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (v > 1 && mask != full) {
			return nil, invalidf("choquet: μ(%s) = %v (want a value in [0, 1])", set(mask), v)
		}
	}
	if mu[0] != 0 {
		return nil, invalidf("choquet: μ(∅) = %v (want 0)", mu[0])
	}
	if math.Abs(mu[full]-1) > 1e-9 {
		return nil, invalidf("choquet: μ(%s) = %v for the set of all attributes (want 1)", set(full), mu[full])
	}
	c := &Choquet{m: m, mu: append([]float64(nil), mu...)}
	c.mu[full] = 1
	for mask := 0; mask < full; mask++ {
		for rest := full &^ mask; rest != 0; rest &= rest - 1 {
			sup := mask | rest&-rest
			if c.mu[mask] > c.mu[sup] {
				return nil, invalidf("choquet: μ is not monotone: μ(%s) = %v > μ(%s) = %v",
					set(mask), c.mu[mask], set(sup), c.mu[sup])
			}
		}
	}
	return c, nil
}

// subsetString writes the subset of a bitmask by its 1-based attribute indices, {1,3}, or
// by the attributes' names, {AGI,FICA}, when names is given.
func subsetString(mask int, names []string) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for first := true; mask != 0; mask &= mask - 1 {
		if !first {
			sb.WriteByte(',')
		}
		first = false
		i := bits.TrailingZeros(uint(mask))
		if names != nil {
			sb.WriteString(names[i])
		} else {
			sb.WriteString(strconv.Itoa(i + 1))
		}
	}
	sb.WriteByte('}')
	return sb.String()
}

func (c *Choquet) Name() string    { return "choquet" }
func (c *Choquet) Attributes() int { return c.m }

// Measure returns μ indexed by bitmask (len 2^m, μ(∅) first). It must not be modified.
func (c *Choquet) Measure() []float64 { return c.mu }

// Params returns μ(A) for every non-empty subset A in bitmask order 1 … 2^m − 1, so
// Params()[mask−1] = μ(mask) and len(Params()) = 2^m − 1. The last one is μ(V), which is
// not free: it stays fixed at 1 (the optimiser keeps it fixed, like μ(∅) = 0, which is
// not a parameter at all). It must not be modified.
func (c *Choquet) Params() []float64 { return c.mu[1:] }

// Distance is C_μ(a, b): the one definition of the Choquet integral in this package. It
// does not allocate.
func (c *Choquet) Distance(a, b []float64) float64 {
	var xs [MaxChoquetAttributes]float64
	var idx [MaxChoquetAttributes]uint8
	x, ix := diffsAsc(xs[:c.m], idx[:c.m], a, b)
	mask := len(c.mu) - 1 // A_(1) = V
	s, prev := 0.0, 0.0
	for k, v := range x {
		s += float64((v - prev) * c.mu[mask]) // rounded before the add, as the kernels do
		prev = v
		mask &^= 1 << ix[k] // A_(k+1) = A_(k) \ {(k)}
	}
	return s
}

// Features writes φ(a, b), of length 2^m − 1 in the order of Params: φ_A = x_(k) − x_(k−1)
// when A = A_(k) for some k, 0 otherwise, so that C_μ(a, b) = Σ_A μ(A) φ_A. Every call
// clears the 2^m − 1 entries; at most m of them are non-zero.
func (c *Choquet) Features(dst, a, b []float64) []float64 {
	dst = dst[:len(c.mu)-1]
	clear(dst)
	var xs [MaxChoquetAttributes]float64
	var idx [MaxChoquetAttributes]uint8
	x, ix := diffsAsc(xs[:c.m], idx[:c.m], a, b)
	mask := len(c.mu) - 1
	prev := 0.0
	for k, v := range x {
		// The A_(k) are distinct (each drops one attribute), so each entry is set once.
		dst[mask-1] = v - prev
		prev = v
		mask &^= 1 << ix[k]
	}
	return dst
}

// DiffsAscending writes diff_i(a, b), i < len(x), into x sorted ascending and the
// attribute of each into idx (stable: ties keep attribute order): the order in which the
// Choquet integral visits the diffs, A_(k) = {idx[k], …, idx[m−1]}. It does not allocate.
func DiffsAscending(x []float64, idx []uint8, a, b []float64) ([]float64, []uint8) {
	return diffsAsc(x, idx, a, b)
}

// diffsAsc is DiffsAscending (insertion sort).
func diffsAsc(x []float64, idx []uint8, a, b []float64) ([]float64, []uint8) {
	m := len(x)
	a, b, idx = a[:m], b[:m], idx[:m]
	for i := range a {
		v := Diff(a[i], b[i])
		j := i
		for j > 0 && x[j-1] > v {
			x[j] = x[j-1]
			idx[j] = idx[j-1]
			j--
		}
		x[j] = v
		idx[j] = uint8(i)
	}
	return x, idx
}

// AdditiveMeasure returns the additive measure μ(A) = Σ_{i∈A} p_i, indexed by bitmask
// (len 2^m). With p on the simplex the Choquet integral of μ is the weighted mean WM_p:
// Σ_k (x_(k) − x_(k−1)) Σ_{i∈A_(k)} p_i = Σ_i p_i x_i (each x_i is the sum of the
// increments of the sets that contain it). It panics unless 1 ≤ len(p) ≤
// MaxChoquetAttributes; NewChoquet validates the result.
func AdditiveMeasure(p []float64) []float64 {
	m := len(p)
	checkMeasureSize("AdditiveMeasure", m)
	mu := make([]float64, 1<<m)
	for mask := 1; mask < len(mu); mask++ {
		low := mask & -mask
		mu[mask] = mu[mask&^low] + p[bits.TrailingZeros(uint(low))]
	}
	return mu
}

// SymmetricMeasure returns the symmetric measure of the OWA weights w, indexed by bitmask
// (len 2^m): μ(A) = Σ_{k=1..|A|} w_k, which depends only on |A|. Its Choquet integral is
// OWA_w with the same w in OWA's decreasing convention (w_1 weighs the largest diff): with
// g(j) = μ of any j-set and y_j = x_(m−j+1) the j-th largest diff, A_(k) has m−k+1
// elements, so by summation by parts
//
//	C_μ = Σ_k (x_(k) − x_(k−1)) g(m−k+1) = Σ_k x_(k) (g(m−k+1) − g(m−k)) = Σ_j y_j w_j.
//
// (The singleton of the largest diff is the smallest A_(k), with μ = w_1.) It panics unless
// 1 ≤ len(w) ≤ MaxChoquetAttributes; NewChoquet validates the result.
func SymmetricMeasure(w []float64) []float64 {
	m := len(w)
	checkMeasureSize("SymmetricMeasure", m)
	g := make([]float64, m+1)
	for k, v := range w {
		g[k+1] = g[k] + v
	}
	mu := make([]float64, 1<<m)
	for mask := range mu {
		mu[mask] = g[bits.OnesCount(uint(mask))]
	}
	return mu
}

func checkMeasureSize(fn string, m int) {
	if m < 1 || m > MaxChoquetAttributes {
		panic("distances: " + fn + ": " + strconv.Itoa(m) + " attributes (want 1 to " + strconv.Itoa(MaxChoquetAttributes) + ")")
	}
}

// checkMeasureLen panics with a message naming fn unless mu is a measure on m attributes
// (len 2^m), rather than with an index out of range deep in the sums.
func checkMeasureLen(fn string, mu []float64, m int) {
	if len(mu) != 1<<m {
		panic("distances: " + fn + ": a measure of " + strconv.Itoa(len(mu)) + " values on " + strconv.Itoa(m) + " attributes (want 2^m = " + strconv.Itoa(1<<m) + ")")
	}
}

// shapleyWeights returns w[k] = (n−k−1)! k! / n! for k = 0 … n−1: the weight of a
// coalition of size k in the Shapley value of a game on n players.
func shapleyWeights(n int) []float64 {
	w := make([]float64, n)
	for k := range n {
		// (n−k−1)! k! / n! = 1 / (n · C(n−1, k))
		c := 1.0
		for x := 1; x <= k; x++ {
			c = c * float64(n-1-k+x) / float64(x)
		}
		w[k] = 1 / (float64(n) * c)
	}
	return w
}

// ShapleyValues returns the Shapley value of each attribute under the fuzzy measure μ
// (indexed by bitmask, len 2^m): its average marginal contribution to the measure,
//
//	φ_i = Σ_{A ⊆ V∖{i}} (m−|A|−1)! |A|! / m! · (μ(A ∪ {i}) − μ(A))
//
// (Shapley, "A value for n-person games", 1953; as the importance of a criterion in a
// Choquet integral, Grabisch, "k-order additive discrete fuzzy measures and their
// representation", Fuzzy Sets and Systems 92, 1997, eq. 5). The values sum to μ(V) − μ(∅)
// = 1; for an additive measure φ_i = p_i, for a symmetric one 1/m.
//
// It panics unless 1 ≤ m ≤ MaxChoquetAttributes and len(mu) = 2^m: a measure of another
// size is a caller's bug (Choquet.Measure always has the right one), and the message says
// so rather than an index out of range.
func ShapleyValues(mu []float64, m int) []float64 {
	checkMeasureSize("ShapleyValues", m)
	checkMeasureLen("ShapleyValues", mu, m)
	w := shapleyWeights(m)
	phi := make([]float64, m)
	for i := range m {
		bit := 1 << i
		for a := range mu {
			if a&bit == 0 {
				phi[i] += w[bits.OnesCount(uint(a))] * (mu[a|bit] - mu[a])
			}
		}
	}
	return phi
}

// InteractionIndices returns the Shapley interaction index of every pair of attributes
// under μ (indexed by bitmask), as an m×m symmetric matrix with a zero diagonal:
//
//	I_ij = Σ_{A ⊆ V∖{i,j}} (m−|A|−2)! |A|! / (m−1)! · (μ(A∪{i,j}) − μ(A∪{i}) − μ(A∪{j}) + μ(A))
//
// (Murofushi & Soneda 1993; Grabisch 1997, Fuzzy Sets and Systems 92, eq. 6). I_ij > 0:
// the two attributes together weigh more than apart (complementary), < 0: redundant, 0 for
// an additive measure. For a 2-additive measure I_ij is its Möbius mass of {i, j}.
//
// It panics unless 1 ≤ m ≤ MaxChoquetAttributes and len(mu) = 2^m, as ShapleyValues.
func InteractionIndices(mu []float64, m int) [][]float64 {
	checkMeasureSize("InteractionIndices", m)
	checkMeasureLen("InteractionIndices", mu, m)
	in := make([][]float64, m)
	for i := range in {
		in[i] = make([]float64, m)
	}
	if m < 2 {
		return in
	}
	w := shapleyWeights(m - 1) // (m−|A|−2)! |A|! / (m−1)!
	for i := range m {
		for j := i + 1; j < m; j++ {
			bi, bj := 1<<i, 1<<j
			s := 0.0
			for a := range mu {
				if a&(bi|bj) == 0 {
					s += w[bits.OnesCount(uint(a))] * (mu[a|bi|bj] - mu[a|bi] - mu[a|bj] + mu[a])
				}
			}
			in[i][j], in[j][i] = s, s
		}
	}
	return in
}
