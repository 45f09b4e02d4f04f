package optimize

import (
	"math"

	"github.com/reid-sdc/reid/distances"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// psdTol: an eigenvalue of W above −psdTol is rounding of the LP (CLP's primal tolerance
// is 1e-10), clamped to 0 by the projection, which moves a distance xᵀWx by at most
// psdTol·|x|², inside lpSlack for standardised data; below it, an eigenvector cut is added.
const psdTol = 1e-12

// bilinearSpace is the symmetric bilinear form d(a, b) = xᵀWx, x = a − b (Abril, Torra &
// Navarro-Arribas, "Supervised learning using a symmetric bilinear form for record
// linkage", Information Fusion 26, 2015): θ is the upper triangle of W row by row (the
// order of distances.Bilinear.Params), the features x_k x_l doubled off the diagonal.
// W is normalised by trace(W) = 1 and kept positive semi-definite, so that the learned
// distance is a (pseudo)metric. The search's θ-LPs are psdGames (psdgame.go), whose W is
// PSD by construction; with CLP (Settings.clpSubproblems, and the exported model) the
// cone is approximated by eigenvector cuts: when the smallest eigenpair (λ, v)
// of an LP point W has λ < 0, the row vᵀWv ≥ 0 (valid for every PSD W) is added and the
// LP re-solved. The 2×2 principal minors' cuts (e_k ± e_l)ᵀW(e_k ± e_l) ≥ 0 and the bounds
// 0 ≤ W_kk ≤ 1, |W_kl| ≤ 1/2 (from W_kl² ≤ W_kk·W_ll and trace 1) start the LP. No
// dominance: xᵀWx is not monotone in the diffs, so every competitor is a candidate, its
// row computed when needed and its margin by the transformed records (W = TᵀT).
type bilinearSpace struct {
	m, n int
	off  []int // off[k]: the column of W_kk; W_kl (k ≤ l) is column off[k] + l − k
}

func newBilinearSpace(m int) *bilinearSpace {
	s := &bilinearSpace{m: m, off: make([]int, m)}
	for k := range m {
		s.off[k] = s.n
		s.n += m - k
	}
	return s
}

func (s *bilinearSpace) col(k, l int) int {
	if k > l {
		k, l = l, k
	}
	return s.off[k] + l - k
}

func (s *bilinearSpace) dim() int { return s.n }

// The θ-LP has, after W, one aux column u_kl ≥ |W_kl| per off-diagonal entry, and the
// objective min Σ u_kl: among the W that satisfy the rows the LP returns one as diagonal
// as it can, which is far more often positive semi-definite than an arbitrary vertex
// (a zero objective made the eigenvector cuts converge slowly: Kelley's cutting planes
// from extreme points). The aux columns and their rows are not part of the family and
// not exported.
func (s *bilinearSpace) naux() int { return s.m*(s.m-1)/2 + 1 }

// tcol is the column of t, the depth of the PSD cuts: every cut vᵀWv ≥ 0 enters the LP as
// vᵀWv − t ≥ 0 with t ≥ 0 maximised, so that the LP's point lies as deep inside the cuts
// found as the rows allow (a central cutting-plane method, Elzinga & Moore, Mathematical
// Programming 8, 1975) instead of on them; t ≥ 0 keeps every cut valid, and an LP
// infeasible with t free to be 0 proves the same as with t = 0.
func (s *bilinearSpace) tcol() int { return s.n + s.naux() - 1 }

func (s *bilinearSpace) objective() []float64 {
	c := make([]float64, s.n+s.naux())
	for x := s.n; x < s.tcol(); x++ {
		c[x] = 0.01
	}
	c[s.tcol()] = -1
	return c
}

func (s *bilinearSpace) bounds() (lo, up []float64) {
	lo, up = make([]float64, s.n+s.naux()), make([]float64, s.n+s.naux())
	for x := s.n; x < len(up); x++ {
		up[x] = 0.5
	}
	up[s.tcol()] = 1
	for k := range s.m {
		for l := k; l < s.m; l++ {
			c := s.col(k, l)
			if k == l {
				lo[c], up[c] = 0, 1
			} else {
				lo[c], up[c] = -0.5, 0.5
			}
		}
	}
	return lo, up
}

func (s *bilinearSpace) rows() []famRow {
	rows := s.familyRows()
	aux := s.n
	for k := range s.m {
		for l := k + 1; l < s.m; l++ {
			for _, sign := range []float64{1, -1} { // u_kl ∓ W_kl ≥ 0
				rows = append(rows, famRow{idx: []int{s.col(k, l), aux}, val: []float64{-sign, 1}, lo: 0, up: math.Inf(1)})
			}
			aux++
		}
	}
	return rows
}

// familyRows are the trace row and the 2×2 minors' cuts.
func (s *bilinearSpace) familyRows() []famRow {
	tr := famRow{lo: 1, up: 1}
	for k := range s.m {
		tr.idx = append(tr.idx, s.col(k, k))
		tr.val = append(tr.val, 1)
	}
	rows := []famRow{tr}
	for k := range s.m {
		for l := k + 1; l < s.m; l++ {
			for _, sign := range []float64{1, -1} {
				rows = append(rows, famRow{idx: []int{s.col(k, k), s.col(k, l), s.col(l, l), s.tcol()}, val: []float64{1, 2 * sign, 1, -1}, lo: 0, up: math.Inf(1)})
			}
		}
	}
	return rows
}

func (s *bilinearSpace) euclidean() []float64 {
	t := make([]float64, s.n)
	for k := range s.m {
		t[s.col(k, k)] = 1 / float64(s.m)
	}
	return t
}

// matrix returns W of θ.
func (s *bilinearSpace) matrix(theta []float64) *mat.SymDense {
	w := mat.NewSymDense(s.m, nil)
	for k := range s.m {
		for l := k; l < s.m; l++ {
			w.SetSym(k, l, theta[s.col(k, l)])
		}
	}
	return w
}

func (s *bilinearSpace) eigen(theta []float64) ([]float64, *mat.Dense) {
	var eig mat.EigenSym
	if !eig.Factorize(s.matrix(theta), true) {
		return nil, nil
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	return eig.Values(nil), &v
}

// cuts returns vᵀWv ≥ 0 for every eigenpair with λ < −psdTol: Σ_k v_k² W_kk +
// Σ_{k<l} 2 v_k v_l W_kl ≥ 0.
func (s *bilinearSpace) cuts(theta []float64) []famRow {
	vals, vecs := s.eigen(theta)
	if vals == nil {
		return nil
	}
	var rows []famRow
	for e, lambda := range vals {
		if lambda >= -psdTol {
			break // ascending
		}
		r := famRow{lo: 0, up: math.Inf(1)}
		for k := range s.m {
			vk := vecs.At(k, e)
			for l := k; l < s.m; l++ {
				c := vk * vecs.At(l, e)
				if l != k {
					c *= 2
				}
				if c != 0 {
					r.idx = append(r.idx, s.col(k, l))
					r.val = append(r.val, c)
				}
			}
		}
		r.idx = append(r.idx, s.tcol())
		r.val = append(r.val, -1)
		rows = append(rows, r)
	}
	return rows
}

func (s *bilinearSpace) exportRows(found []famRow) []famRow {
	return append(s.familyRows(), found...)
}

// project clamps W's negative eigenvalues to 0 and rescales it to trace 1.
func (s *bilinearSpace) project(theta []float64) {
	vals, vecs := s.eigen(theta)
	if vals == nil {
		return
	}
	if vals[0] < 0 {
		for e := range vals {
			vals[e] = max(vals[e], 0)
		}
		s.setEigen(theta, vals, vecs)
	}
	tr := 0.0
	for k := range s.m {
		tr += theta[s.col(k, k)]
	}
	for c := range theta {
		theta[c] /= tr
	}
}

// setEigen sets θ to W = Σ_e λ_e v_e v_eᵀ.
func (s *bilinearSpace) setEigen(theta, vals []float64, vecs *mat.Dense) {
	for k := range s.m {
		for l := k; l < s.m; l++ {
			v := 0.0
			for e, lambda := range vals {
				v += lambda * vecs.At(k, e) * vecs.At(l, e)
			}
			theta[s.col(k, l)] = v
		}
	}
}

func (s *bilinearSpace) operator(theta []float64) (distances.Operator, error) {
	return distances.NewBilinear(s.matrix(theta))
}

// prepare keeps every competitor, ordered by the Euclidean margin |x_j|² − |x_t|²
// ascending (x_j = q − ref_j), and sets impossible when some competitor is at least as
// close as the true partner for every W: max over PSD W of trace 1 of
// ⟨W, x_j x_jᵀ − x_t x_tᵀ⟩ is the largest eigenvalue of that rank-2 matrix,
// (τ + √((|x_j|² + |x_t|²)² − 4(x_j·x_t)²))/2 with τ = |x_j|² − |x_t|² (the eigenvalues of
// [[|x_j|², x_j·x_t], [−x_j·x_t, −|x_t|²]]).
func (s *bilinearSpace) prepare(d *data, r *rec, w *prepWorker) {
	m := s.m
	q, t := d.query(r.q), d.ref(r.t)
	tt := 0.0
	for k := range m {
		x := q[k] - t[k]
		w.ft[k] = x
		tt += x * x
	}
	r.bigC = tt + w.eps // xᵀWx ≤ λ_max|x|² ≤ trace(W)|x|²
	w.ref, w.sum = w.ref[:0], w.sum[:0]
	for j := range d.nr {
		if j == r.t {
			continue
		}
		rj := d.ref(j)
		uu, ut := 0.0, 0.0
		for k := range m {
			x := q[k] - rj[k]
			uu += x * x
			ut += x * w.ft[k]
		}
		tau := uu - tt
		disc := max((uu+tt)*(uu+tt)-4*ut*ut, 0)
		if (tau+math.Sqrt(disc))/2 < w.eps-1e-12*(uu+tt) {
			r.impossible = true
			return
		}
		w.ref = append(w.ref, j)
		w.sum = append(w.sum, tau)
	}
	w.sortBySum()
	r.candRef = make([]int32, len(w.order))
	for x, c := range w.order {
		r.candRef[x] = int32(w.ref[c])
	}
}

// row is φ(x_j) − φ(x_t), φ_kl = x_k x_l doubled off the diagonal.
func (s *bilinearSpace) row(d *data, r *rec, c int, idx []int, val []float64) ([]int, []float64) {
	q, t, j := d.query(r.q), d.ref(r.t), d.ref(int(r.candRef[c]))
	for k := range s.m {
		xk, yk := q[k]-j[k], q[k]-t[k]
		for l := k; l < s.m; l++ {
			v := xk*(q[l]-j[l]) - yk*(q[l]-t[l])
			if l != k {
				v *= 2
			}
			if v != 0 {
				idx = append(idx, s.col(k, l))
				val = append(val, v)
			}
		}
	}
	return idx, val
}

// evaluator transforms every record by T with W = TᵀT (T = Λ^{1/2}Vᵀ of θ's PSD W), so
// that a margin is |Tq − Tref_j|² − |Tq − Tref_t|²; the references are transformed once.
func (s *bilinearSpace) evaluator(d *data, theta []float64) evaluator {
	m := s.m
	vals, vecs := s.eigen(theta)
	T := make([]float64, m*m)
	for e := range m {
		sc := math.Sqrt(max(vals[e], 0))
		for k := range m {
			T[e*m+k] = sc * vecs.At(k, e)
		}
	}
	e := &bilinearEvaluator{m: m, d: d, T: T, refs: make([]float64, d.nr*m), q: make([]float64, m)}
	for j := range d.nr {
		e.transform(e.refs[j*m:(j+1)*m], d.ref(j))
	}
	return e
}

type bilinearEvaluator struct {
	m    int
	d    *data
	T    []float64 // row-major m × m
	refs []float64 // transformed references, row-major
	q    []float64
}

func (e *bilinearEvaluator) transform(dst, x []float64) {
	for r := range e.m {
		dst[r] = floats.Dot(e.T[r*e.m:(r+1)*e.m], x)
	}
}

func (e *bilinearEvaluator) dist(j int) float64 {
	s := 0.0
	for k, v := range e.refs[j*e.m : (j+1)*e.m] {
		x := e.q[k] - v
		s += x * x
	}
	return s
}

func (e *bilinearEvaluator) margins(r *rec, dst []float64) []float64 {
	e.transform(e.q, e.d.query(r.q))
	dt := e.dist(r.t)
	dst = dst[:0]
	for _, j := range r.candRef {
		dst = append(dst, e.dist(int(j))-dt)
	}
	return dst
}
