package optimize

import (
	"math"
	"math/bits"

	"github.com/reid-sdc/reid/distances"
)

// MaxFullChoquetAttributes is the largest number of attributes for which Learn optimises all
// 2^m − 2 free values of a Choquet integral's fuzzy measure (8190 at m = 13).
const MaxFullChoquetAttributes = 13

// monotonicityTol: a measure value above a superset's by at most this much is rounding
// (CLP's primal tolerance is 1e-10); the projection's monotone closure then moves each
// distance by at most this times the largest diff, far inside lpSlack.
const monotonicityTol = 1e-12

// choquetSpace is the Choquet integral (Abril, Navarro-Arribas & Torra, "Choquet integral
// for record linkage", Annals of Operations Research 195, 2012): θ is the fuzzy measure,
// θ[A−1] = μ(A) for every non-empty subset A (bitmask) in the order of
// distances.Choquet.Params; the last, μ(V), is fixed to 1 by its bounds. The feature of a
// pair is non-zero only on the chain A_(1) ⊃ … ⊃ A_(m) of its sorted diffs
// (distances.Choquet.Features), so a competitor row has at most 2m entries. Monotonicity,
// μ(A) ≤ μ(A ∪ {k}) (m·2^(m−1) rows), enters the θ-LP lazily: the rows an LP point
// violates are added, and the exported model has all of them.
type choquetSpace struct {
	m    int
	full int // bitmask of all attributes; dim = full
}

func newChoquetSpace(m int) *choquetSpace { return &choquetSpace{m: m, full: 1<<m - 1} }

func (s *choquetSpace) dim() int { return s.full }

func (s *choquetSpace) bounds() (lo, up []float64) {
	lo, up = make([]float64, s.full), make([]float64, s.full)
	for k := range up {
		up[k] = 1
	}
	lo[s.full-1] = 1 // μ(V) = 1
	return lo, up
}

// objective pushes the measure of sets smaller than half the attributes down and of
// larger ones up: an LP vertex then breaks monotonicity far less often, so fewer of the
// m·2^(m−1) monotonicity rows need to be added.
func (s *choquetSpace) objective() []float64 {
	c := make([]float64, s.full)
	for a := 1; a <= s.full; a++ {
		c[a-1] = float64(s.m) - 2*float64(bits.OnesCount(uint(a)))
	}
	return c
}

func (s *choquetSpace) rows() []famRow { return nil }

func (s *choquetSpace) euclidean() []float64 {
	p := make([]float64, s.m)
	for k := range p {
		p[k] = 1 / float64(s.m)
	}
	return distances.AdditiveMeasure(p)[1:]
}

// monotonicityRow is μ(sup) − μ(sub) ≥ 0.
func monotonicityRow(sub, sup int) famRow {
	return famRow{idx: []int{sub - 1, sup - 1}, val: []float64{-1, 1}, lo: 0, up: math.Inf(1)}
}

func (s *choquetSpace) cuts(theta []float64) []famRow {
	var rows []famRow
	for a := 1; a < s.full; a++ {
		for rest := s.full &^ a; rest != 0; rest &= rest - 1 {
			sup := a | rest&-rest
			if theta[a-1] > theta[sup-1]+monotonicityTol {
				rows = append(rows, monotonicityRow(a, sup))
			}
		}
	}
	return rows
}

func (s *choquetSpace) exportRows([]famRow) []famRow {
	var rows []famRow
	for a := 1; a < s.full; a++ {
		for rest := s.full &^ a; rest != 0; rest &= rest - 1 {
			if sup := a | rest&-rest; sup != s.full { // μ(A) ≤ μ(V) = 1 is a bound
				rows = append(rows, monotonicityRow(a, sup))
			}
		}
	}
	return rows
}

// project clamps μ to [0, 1], sets μ(V) = 1 and takes the monotone closure μ(A) =
// max_{B ⊆ A} μ(B), the least monotone measure above μ: it moves μ only where an LP point
// breaks monotonicity, i.e. by at most the violation.
func (s *choquetSpace) project(theta []float64) {
	theta[s.full-1] = 1
	for a := 1; a <= s.full; a++ {
		v := min(max(theta[a-1], 0), 1)
		for rest := a; rest != 0; rest &= rest - 1 {
			if sub := a &^ (rest & -rest); sub != 0 {
				v = max(v, theta[sub-1])
			}
		}
		theta[a-1] = v
	}
}

func (s *choquetSpace) operator(theta []float64) (distances.Operator, error) {
	return distances.NewChoquet(append([]float64{0}, theta...), s.m)
}

func (s *choquetSpace) prepare(d *data, r *rec, w *prepWorker) {
	w.diffRows(d, r, false)
	if r.impossible {
		return
	}
	q := d.query(r.q)
	r.tchain, r.tinc = appendChain(nil, nil, w.ft, q, d.ref(r.t))
	r.chain = make([]uint16, 0, r.ncand()*s.m)
	r.inc = make([]float64, 0, r.ncand()*s.m)
	for _, j := range r.candRef {
		r.chain, r.inc = appendChain(r.chain, r.inc, w.fj, q, d.ref(int(j)))
	}
}

// appendChain appends the chain of the diffs of a and b (distances.Choquet.Features):
// with x_(1) ≤ … ≤ x_(m) the diffs sorted ascending (distances.DiffsAscending), A_(k) =
// {(k), …, (m)} and the increment x_(k) − x_(k−1), x_(0) = 0. x is scratch of length m.
func appendChain(chain []uint16, inc []float64, x, a, b []float64) ([]uint16, []float64) {
	m := len(x)
	var buf [MaxFullChoquetAttributes]uint8
	x, idx := distances.DiffsAscending(x, buf[:m], a, b)
	mask := 1<<m - 1
	prev := 0.0
	for k := range m {
		chain = append(chain, uint16(mask))
		inc = append(inc, x[k]-prev)
		prev = x[k]
		mask &^= 1 << idx[k]
	}
	return chain, inc
}

func (s *choquetSpace) row(d *data, r *rec, c int, idx []int, val []float64) ([]int, []float64) {
	m := s.m
	start := len(idx)
	add := func(mask uint16, v float64) {
		col := int(mask) - 1
		for x := start; x < len(idx); x++ {
			if idx[x] == col {
				val[x] += v
				return
			}
		}
		idx = append(idx, col)
		val = append(val, v)
	}
	for k := range m {
		add(r.chain[c*m+k], r.inc[c*m+k])
	}
	for k := range m {
		add(r.tchain[k], -r.tinc[k])
	}
	// Drop cancelled entries and sort by column (at most 2m entries).
	out := start
	for x := start; x < len(idx); x++ {
		if val[x] != 0 {
			idx[out], val[out] = idx[x], val[x]
			out++
		}
	}
	idx, val = idx[:out], val[:out]
	for x := start + 1; x < len(idx); x++ {
		for y := x; y > start && idx[y-1] > idx[y]; y-- {
			idx[y-1], idx[y] = idx[y], idx[y-1]
			val[y-1], val[y] = val[y], val[y-1]
		}
	}
	return idx, val
}

func (s *choquetSpace) evaluator(d *data, theta []float64) evaluator {
	return &choquetEvaluator{m: s.m, mu: theta}
}

type choquetEvaluator struct {
	m  int
	mu []float64 // mu[A−1] = μ(A)
}

func (e *choquetEvaluator) integral(chain []uint16, inc []float64) float64 {
	s := 0.0
	for k, a := range chain {
		s += e.mu[a-1] * inc[k]
	}
	return s
}

func (e *choquetEvaluator) margins(r *rec, dst []float64) []float64 {
	dst = dst[:0]
	ct := e.integral(r.tchain, r.tinc)
	m := e.m
	for c := range r.ncand() {
		dst = append(dst, e.integral(r.chain[c*m:(c+1)*m], r.inc[c*m:(c+1)*m])-ct)
	}
	return dst
}
