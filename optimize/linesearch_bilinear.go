package optimize

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// bilinearLinesMaxRows bounds the rows (records × competitors) for which the bilinear
// line search keeps a margin each (8 bytes a row): bilinear has no dominance, every
// competitor is a row.
const bilinearLinesMaxRows = 1 << 24

// bilinearLines is the line family of the bilinear form: W + t·D with D = E_kk − E_ll
// (weight moved between two diagonal entries, trace kept) or D = E_kl + E_lk (one
// off-diagonal entry), while W stays positive semi-definite. A row's slope is
// x_jᵀDx_j − x_tᵀDx_t with x = q − ref: (x_jk² − x_jl²) − (x_tk² − x_tl²) or
// 2(x_jk·x_jl − x_tk·x_tl).
type bilinearLines struct {
	lineRows
	s *bilinearSpace
	// lines: k < l, off-diagonal when off is set.
	dirs []bilinearDir
}

type bilinearDir struct {
	k, l int
	off  bool
}

func newBilinearLines(d *data, s *bilinearSpace, eps float64, skip []bool) *bilinearLines {
	c := &bilinearLines{lineRows: newLineRows(d, eps, skip), s: s}
	for _, off := range []bool{false, true} {
		for k := range d.m {
			for l := k + 1; l < d.m; l++ {
				c.dirs = append(c.dirs, bilinearDir{k, l, off})
			}
		}
	}
	return c
}

func (c *bilinearLines) lines() int { return len(c.dirs) }

// minEigen is the smallest eigenvalue of W + t·D_x.
func (c *bilinearLines) minEigen(theta []float64, x int, t float64, w *mat.SymDense) float64 {
	s, dir := c.s, c.dirs[x]
	for k := range s.m {
		for l := k; l < s.m; l++ {
			w.SetSym(k, l, theta[s.col(k, l)])
		}
	}
	if dir.off {
		w.SetSym(dir.k, dir.l, w.At(dir.k, dir.l)+t)
	} else {
		w.SetSym(dir.k, dir.k, w.At(dir.k, dir.k)+t)
		w.SetSym(dir.l, dir.l, w.At(dir.l, dir.l)-t)
	}
	var eig mat.EigenSym
	if !eig.Factorize(w, false) {
		return math.Inf(-1)
	}
	return eig.Values(nil)[0]
}

// span is the interval of t with W + t·D_x positive semi-definite (up to the rounding W
// already has): λ_min(W + tD) is concave in t, so bisection from the 2×2 minors' limits
// finds both ends.
func (c *bilinearLines) span(theta []float64, x int) (lo, hi float64) {
	s, dir := c.s, c.dirs[x]
	wkk, wll := theta[s.col(dir.k, dir.k)], theta[s.col(dir.l, dir.l)]
	if dir.off {
		r, wkl := math.Sqrt(max(wkk*wll, 0)), theta[s.col(dir.k, dir.l)]
		lo, hi = -r-wkl, r-wkl
	} else {
		lo, hi = -wkk, wll
	}
	w := mat.NewSymDense(s.m, nil)
	floor := min(c.minEigen(theta, x, 0, w), 0)
	ok := func(t float64) bool { return c.minEigen(theta, x, t, w) >= floor }
	end := func(limit float64) float64 {
		if ok(limit) {
			return limit
		}
		in, out := 0.0, limit
		for range 40 {
			mid := (in + out) / 2
			if ok(mid) {
				in = mid
			} else {
				out = mid
			}
		}
		return in
	}
	return end(min(lo, 0)), end(max(hi, 0))
}

func (c *bilinearLines) step(theta []float64, x int, t float64) {
	s, dir := c.s, c.dirs[x]
	if dir.off {
		theta[s.col(dir.k, dir.l)] += t
		return
	}
	theta[s.col(dir.k, dir.k)] += t
	theta[s.col(dir.l, dir.l)] -= t
}

// moved recomputes the margins: W's factor changes with any step.
func (c *bilinearLines) moved(theta []float64, _ int, _ float64) int { return c.margins(theta) }

func (c *bilinearLines) line(theta []float64, x int, lo0, hi0 float64, w int) (best int, at float64) {
	d, dir := c.d, c.dirs[x]
	k, l := dir.k, dir.l
	ev := c.ev[w][:0]
	for i := range d.recs {
		if !c.counted(i) {
			continue
		}
		r := &d.recs[i]
		q, t := d.query(r.q), d.ref(r.t)
		tk, tl := q[k]-t[k], q[l]-t[l]
		st := tk*tk - tl*tl
		if dir.off {
			st = 2 * tk * tl
		}
		lo, hi := lo0, hi0
		v := c.rows(i)
		for y, j := range r.candRef {
			rj := d.ref(int(j))
			a, b := q[k]-rj[k], q[l]-rj[l]
			s := a*a - b*b - st
			if dir.off {
				s = 2*a*b - st
			}
			if lo, hi = clip(lo, hi, c.eps-v[y], s); lo > hi {
				break
			}
		}
		if lo <= hi {
			ev = append(ev, event{lo, 1}, event{hi, -1})
		}
	}
	c.ev[w] = ev
	return sweep(ev)
}
