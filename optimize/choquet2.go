package optimize

import (
	"math"
	"math/bits"

	"github.com/reid-sdc/reid/distances"
	"gonum.org/v1/gonum/floats"
)

// choquet2Space is the 2-additive Choquet integral, for more attributes than the full
// measure allows (MaxChoquetAttributes): the measure is given by its Möbius masses on
// singletons and pairs, μ(A) = Σ_{i∈A} a_i + Σ_{{i,j}⊆A} a_ij, and its integral is
//
//	C(x) = Σ_i a_i x_i + Σ_{i<j} a_ij min(x_i, x_j)
//
// (Grabisch, "k-order additive discrete fuzzy measures and their representation", Fuzzy
// Sets and Systems 92, 1997). θ is (a_1 … a_m, a_12, a_13, … a_(m−1)m), m + m(m−1)/2
// values. μ(V) = 1 is Σ θ = 1; monotonicity is a_i + Σ_{j∈B} a_ij ≥ 0 for every i and B ⊆
// V∖{i} (Chateauneuf & Jaffray 1989; Grabisch 1997, Th. 2), i.e. a_i + Σ_j min(0, a_ij) ≥
// 0, written linearly with one aux column s_ij ≤ min(0, a_ij) per pair: a_i + Σ_j s_ij ≥ 0.
// The aux columns are part of the θ-LP and of the exported model, not of the parameters.
// Every 2-additive measure is a measure, so this family lies between WM (additive) and
// the full Choquet integral; it does not contain every OWA.
type choquet2Space struct {
	m, np int // np = m + m(m−1)/2 parameters; the aux s_ij follow, in the pairs' order
}

func newChoquet2Space(m int) *choquet2Space { return &choquet2Space{m: m, np: m + m*(m-1)/2} }

// pair is the column of a_ij (i ≠ j) among the parameters.
func (s *choquet2Space) pair(i, j int) int {
	if i > j {
		i, j = j, i
	}
	// pairs (0,1), (0,2), … (0,m−1), (1,2), …: row i starts after Σ_{k<i} (m−1−k) pairs
	return s.m + i*(2*s.m-i-1)/2 + (j - i - 1)
}

func (s *choquet2Space) dim() int             { return s.np }
func (s *choquet2Space) objective() []float64 { return nil }

func (s *choquet2Space) bounds() (lo, up []float64) {
	n := s.np + s.np - s.m
	lo, up = make([]float64, n), make([]float64, n)
	for c := range n {
		switch {
		case c < s.m:
			lo[c], up[c] = 0, 1 // a_i = μ({i})
		case c < s.np:
			lo[c], up[c] = -1, 1
		default:
			lo[c], up[c] = -1, 0 // s_ij ≤ 0
		}
	}
	return lo, up
}

func (s *choquet2Space) rows() []famRow {
	sum := famRow{lo: 1, up: 1}
	for c := range s.np {
		sum.idx = append(sum.idx, c)
		sum.val = append(sum.val, 1)
	}
	rows := []famRow{sum}
	for c := s.m; c < s.np; c++ { // s_ij − a_ij ≤ 0
		rows = append(rows, famRow{idx: []int{c, c + s.np - s.m}, val: []float64{-1, 1}, lo: math.Inf(-1), up: 0})
	}
	for i := range s.m { // a_i + Σ_j s_ij ≥ 0
		r := famRow{idx: []int{i}, val: []float64{1}, lo: 0, up: math.Inf(1)}
		for j := range s.m {
			if j != i {
				r.idx = append(r.idx, s.pair(i, j)+s.np-s.m)
				r.val = append(r.val, 1)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

func (s *choquet2Space) euclidean() []float64 {
	t := make([]float64, s.np)
	for i := range s.m {
		t[i] = 1 / float64(s.m)
	}
	return t
}

func (s *choquet2Space) cuts([]float64) []famRow                { return nil }
func (s *choquet2Space) exportRows([]famRow) []famRow           { return s.rows() }
func (s *choquet2Space) prepare(d *data, r *rec, w *prepWorker) { w.diffRows(d, r, false) }

// monotoneSlack is the least a_i + Σ_j min(0, a_ij) the projection leaves: above the
// rounding of the measure's partial sums, so that NewChoquet finds μ monotone.
const monotoneSlack = 1e-12

// project makes θ exactly a 2-additive measure: a_i ≥ 0 and a_i + Σ_j min(0, a_ij) ≥
// monotoneSlack (raising a_i by the LP's rounding at most), then Σ θ = 1.
func (s *choquet2Space) project(theta []float64) {
	theta = theta[:s.np]
	for i := range s.m {
		neg := 0.0
		for j := range s.m {
			if j != i {
				neg += min(0, theta[s.pair(i, j)])
			}
		}
		theta[i] = max(theta[i], 0, monotoneSlack-neg)
	}
	sum := 0.0
	for _, v := range theta {
		sum += v
	}
	for c := range theta {
		theta[c] /= sum
	}
}

// measure returns μ (indexed by bitmask, len 2^m) of 2-additive parameters.
func (s *choquet2Space) measure(theta []float64) []float64 {
	mu := make([]float64, 1<<s.m)
	for a := 1; a < len(mu); a++ {
		i := bits.TrailingZeros(uint(a))
		rest := a &^ (1 << i)
		v := mu[rest] + theta[i]
		for j := i + 1; j < s.m; j++ {
			if rest&(1<<j) != 0 {
				v += theta[s.pair(i, j)]
			}
		}
		mu[a] = min(v, 1)
	}
	mu[len(mu)-1] = 1
	return mu
}

func (s *choquet2Space) operator(theta []float64) (distances.Operator, error) {
	if s.m > distances.MaxChoquetAttributes {
		return nil, distances.ErrInvalidParams
	}
	return distances.NewChoquet(s.measure(theta), s.m)
}

// features writes φ(x): the diffs, then min(x_i, x_j) for every pair.
func (s *choquet2Space) features(dst, a, b []float64) []float64 {
	dst = distances.Diffs(dst[:s.m], a, b)[:s.np]
	for i := range s.m {
		for j := i + 1; j < s.m; j++ {
			dst[s.pair(i, j)] = min(dst[i], dst[j])
		}
	}
	return dst
}

func (s *choquet2Space) row(d *data, r *rec, c int, idx []int, val []float64) ([]int, []float64) {
	fj := s.features(make([]float64, s.np), d.query(r.q), d.ref(int(r.candRef[c])))
	ft := s.features(make([]float64, s.np), d.query(r.q), d.ref(r.t))
	for k := range fj {
		fj[k] -= ft[k]
	}
	return appendNonZero(fj, idx, val)
}

func (s *choquet2Space) evaluator(d *data, theta []float64) evaluator {
	return &choquet2Evaluator{s: s, d: d, theta: theta[:s.np], f: make([]float64, s.np)}
}

type choquet2Evaluator struct {
	s     *choquet2Space
	d     *data
	theta []float64
	f     []float64
}

func (e *choquet2Evaluator) integral(q, ref []float64) float64 {
	return floats.Dot(e.theta, e.s.features(e.f, q, ref))
}

func (e *choquet2Evaluator) margins(r *rec, dst []float64) []float64 {
	q := e.d.query(r.q)
	ct := e.integral(q, e.d.ref(r.t))
	dst = dst[:0]
	for _, j := range r.candRef {
		dst = append(dst, e.integral(q, e.d.ref(int(j)))-ct)
	}
	return dst
}
