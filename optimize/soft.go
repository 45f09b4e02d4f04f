package optimize

import (
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/reid-sdc/reid/internal/workers"
)

// The smooth ascent: gradient ascent on a smooth count of the linked records. Record i's
// smallest margin min_j θ·a_ij − ε is replaced by its soft minimum
// s_i = −τ·log Σ_j exp(−(θ·a_ij − ε)/τ) and its indicator by the logistic σ(s_i/τ), so the
// count becomes L(θ) = Σ_i σ(s_i/τ), differentiable with
// ∇L = Σ_i σ'(s_i/τ)/τ · Σ_j softmax_j(−θ·a_ij/τ)·a_ij (the smoothing of soft-nearest-
// neighbour metric learning: Goldberger, Roweis, Hinton & Salakhutdinov, "Neighbourhood
// components analysis", NIPS 2004, eq. 1–5, with the logistic in place of the softmax
// over the true partner). A projected gradient step moves every nearly linked record at
// once, where the line search moves along one of a fixed set of lines; τ is lowered from
// the margins' scale towards ε so that the surrogate approaches the count. It serves the
// bilinear form, which has 91 parameters for 13 attributes: from the Euclidean W it found
// in 8 s the 211 links of mdav_k5 that the line search alone had not reached in 300 s. On
// WM and OWA (13 parameters) it found no more than the line search and its time cost the
// tree nodes (bench/README.md, ninth session), so they do without it.

// softPhases is the number of temperatures, each half the one before.
const softPhases = 8

// softBlocks is the number of fixed blocks of records whose gradients are summed in
// order: the result does not depend on the number of threads.
const softBlocks = 16

// softCutoff leaves out of the gradient the rows whose softmax weight is below e^−30.
const softCutoff = 30

// softAscent runs the smooth ascent from W (θ, in d's space sp) for at most iters
// gradient steps (fewer if the first evaluation's time says they would not end before
// stop) and leaves in θ the point that linked the most records, counted exactly (every
// row ≥ eps) over the records neither impossible nor skipped; it returns that number
// (−1 when stop, a work limit, leaves no room for a step: θ is then left as it is). θ is
// only replaced by a point that links more than θ itself.
func softAscent(d *data, sp *bilinearSpace, theta []float64, eps float64, skip []bool, threads, iters int, stop limit) int {
	o := newSoftObjective(d, eps, skip, threads)
	if len(o.recs) == 0 {
		return 0
	}
	dim := len(theta)
	grad := make([]float64, dim)
	// An evaluation's work: the margins of the counted records, and the gradient's rows
	// (those within softCutoff of their record's smallest margin), each value computed
	// and multiply-added into the gradient (workPerGradValue). The rows were once left
	// uncounted, though they are most of an evaluation's time (CPU profile, CENSUS
	// mdav_k3, 1,080 records: 4.5 of 5.1 s): the ascent then ran for 4 to 20 times the
	// work it counted. Under a work limit an evaluation starts only if its work fits
	// before stop: the first with every row in the gradient (at τ = 1 every row is within
	// the cutoff), the next ones with as many rows as the last.
	var evalWork, allRows int64
	for _, i := range o.recs {
		evalWork += marginsWork(d, &d.recs[i])
		allRows += int64(d.recs[i].ncand())
	}
	rowWork := int64(dim) * workPerGradValue
	next := evalWork + allRows*rowWork
	eval := func(theta []float64, tau float64, grad []float64) (l float64, n int, ok bool) {
		if !stop.affords(next) {
			return 0, 0, false
		}
		l, n = o.eval(theta, tau, grad)
		next = evalWork + o.gradRows*rowWork
		stop.add(next)
		return l, n, true
	}
	// An ascent that cannot pay for a step (the start's evaluation, the first phase's
	// and the step's) could only count its start: under a work limit it does not begin.
	if !stop.affords(3 * next) {
		return -1
	}
	var began time.Duration
	if stop.clock != nil {
		began = stop.clock.now()
	}
	_, best, _ := eval(theta, 1, grad)
	if stop.at != 0 {
		// Fit the schedule to the time: cut short, it would end at a high τ.
		now := stop.clock.now()
		iters = min(iters, int(0.9*float64(stop.at-now)/float64(now-began+1)))
		iters = max(iters, softPhases)
	}
	// τ starts at the median distance of the records' smallest margins from ε (records
	// without a competitor row have none).
	var abs []float64
	for _, v := range o.mins {
		if !math.IsInf(v, 0) {
			abs = append(abs, math.Abs(v))
		}
	}
	if len(abs) == 0 {
		return best
	}
	slices.Sort(abs)
	tau0 := max(abs[len(abs)/2], 10*eps)
	bestTheta := slices.Clone(theta)
	cur := slices.Clone(theta)
	try := make([]float64, dim)
	tryGrad := make([]float64, dim)
	eta0 := 0.05 * math.Sqrt(floats.Dot(theta, theta))
	for ph := range softPhases {
		if stop.over() {
			break
		}
		tau := tau0 * math.Pow(0.5, float64(ph))
		l, _, ok := eval(cur, tau, grad)
		if !ok {
			break
		}
		tangent(sp, grad)
		// A step of length η along the projected gradient; η grows after a step that
		// raised L and halves after one that did not (that step is not taken).
		eta := eta0
		for range iters / softPhases {
			if eta < 1e-6*eta0 || stop.over() {
				break
			}
			gn := math.Sqrt(floats.Dot(grad, grad))
			if gn == 0 {
				break
			}
			for k := range try {
				try[k] = cur[k] + eta*grad[k]/gn
			}
			projectPSD(sp, try)
			l2, n2, ok := eval(try, tau, tryGrad)
			if !ok {
				break
			}
			if n2 > best {
				best = n2
				copy(bestTheta, try)
			}
			if l2 >= l {
				copy(cur, try)
				l = l2
				grad, tryGrad = tryGrad, grad
				tangent(sp, grad)
				eta *= 1.2
			} else {
				eta *= 0.5
			}
		}
	}
	copy(theta, bestTheta)
	return best
}

// softObjective evaluates the smooth count L and its gradient.
type softObjective struct {
	d       *data
	eps     float64
	threads int
	recs    []int // the records counted
	blocks  []softBlock
	// mins[x] is the smallest margin of recs[x] minus ε at the last evaluation.
	mins []float64
	// gradRows is the number of rows the last evaluation added to the gradient.
	gradRows int64
}

type softBlock struct {
	grad []float64
	l    float64
	n    int
	rows int64
}

// newSoftObjective counts the records neither impossible nor skipped.
func newSoftObjective(d *data, eps float64, skip []bool, threads int) *softObjective {
	o := &softObjective{d: d, eps: eps, threads: max(1, min(threads, softBlocks)), blocks: make([]softBlock, softBlocks)}
	for i := range d.recs {
		if !d.recs[i].impossible && !skip[i] {
			o.recs = append(o.recs, i)
		}
	}
	for b := range o.blocks {
		o.blocks[b].grad = make([]float64, d.sp.dim())
	}
	o.mins = make([]float64, len(o.recs))
	return o
}

// eval returns L(θ) at τ and the exact number of records θ links, and stores ∇L in grad.
func (o *softObjective) eval(theta []float64, tau float64, grad []float64) (float64, int) {
	d, eps := o.d, o.eps
	var pool workers.Group
	for w := range o.threads {
		pool.Go(func() {
			ev := d.sp.evaluator(d, theta) // one each: the bilinear evaluator has scratch
			var buf, val []float64
			var idx []int
			for b := w; b < softBlocks; b += o.threads {
				blk := &o.blocks[b]
				blk.l, blk.n, blk.rows = 0, 0, 0
				clear(blk.grad)
				for x := b * len(o.recs) / softBlocks; x < (b+1)*len(o.recs)/softBlocks; x++ {
					r := &d.recs[o.recs[x]]
					buf = ev.margins(r, buf)
					mn := math.Inf(1)
					for _, v := range buf {
						mn = min(mn, v)
					}
					o.mins[x] = mn - eps
					if mn >= eps {
						blk.n++
					}
					if len(buf) == 0 {
						blk.l++ // no competitor: linked whatever θ
						continue
					}
					z := 0.0
					for _, v := range buf {
						if u := (v - mn) / tau; u < softCutoff {
							z += math.Exp(-u)
						}
					}
					s := mn - eps - tau*math.Log(z)
					sig := 1 / (1 + math.Exp(-s/tau))
					blk.l += sig
					g := sig * (1 - sig) / tau / z
					if g < 1e-12 {
						continue
					}
					for c, v := range buf {
						u := (v - mn) / tau
						if u >= softCutoff {
							continue
						}
						idx, val = d.sp.row(d, r, c, idx[:0], val[:0])
						blk.rows++
						f := g * math.Exp(-u)
						for e, k := range idx {
							blk.grad[k] += f * val[e]
						}
					}
				}
			}
		})
	}
	pool.Wait()
	l, n := 0.0, 0
	o.gradRows = 0
	clear(grad)
	for b := range o.blocks {
		l += o.blocks[b].l
		n += o.blocks[b].n
		o.gradRows += o.blocks[b].rows
		for k, v := range o.blocks[b].grad {
			grad[k] += v
		}
	}
	return l, n
}

// tangent removes from g its component across trace(W) = 1, so that the projection does
// not undo the step, and halves the off-diagonal entries (θ_kl = W_kl enters the rows with
// its feature doubled): g becomes the Frobenius gradient that projectPSD's metric expects.
func tangent(s *bilinearSpace, g []float64) {
	mean := 0.0
	for k := range s.m {
		mean += g[s.col(k, k)]
	}
	mean /= float64(s.m)
	for k := range s.m {
		g[s.col(k, k)] -= mean
		for l := k + 1; l < s.m; l++ {
			g[s.col(k, l)] /= 2
		}
	}
}

// projectPSD maps W to the nearest (Frobenius distance) positive semi-definite matrix of
// trace 1: its eigenvalues projected onto the simplex, its eigenvectors kept.
func projectPSD(s *bilinearSpace, theta []float64) {
	vals, vecs := s.eigen(theta)
	if vals == nil {
		return
	}
	nearestOnSimplex(vals)
	s.setEigen(theta, vals, vecs)
}

// nearestOnSimplex replaces v by its Euclidean projection onto the probability simplex,
// max(v_k − τ, 0) with τ such that the result sums to 1 (Duchi, Shalev-Shwartz, Singer &
// Chandra, "Efficient projections onto the l1-ball for learning in high dimensions",
// ICML 2008, Figure 1).
// (projectSimplex, the clamp-and-rescale repair of an LP point, is not this projection.)
func nearestOnSimplex(v []float64) {
	u := slices.Clone(v)
	slices.Sort(u)
	slices.Reverse(u)
	sum, tau := 0.0, 0.0
	for k, x := range u {
		sum += x
		if t := (sum - 1) / float64(k+1); x-t > 0 {
			tau = t
		}
	}
	for k := range v {
		v[k] = max(v[k]-tau, 0)
	}
}
