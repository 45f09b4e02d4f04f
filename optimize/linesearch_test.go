package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// randomProblem is n query records that are the references plus Gaussian noise of scale
// sd, on m attributes, z-scored each (column-major), true partners in row order.
func randomProblem(seed uint64, n, m int, sd float64) Problem {
	rng := rand.New(rand.NewPCG(seed, 1))
	ref, qry := make([][]float64, n), make([][]float64, n)
	for i := range n {
		ref[i], qry[i] = make([]float64, m), make([]float64, m)
		for k := range m {
			ref[i][k] = rng.NormFloat64()
			qry[i][k] = ref[i][k] + sd*rng.NormFloat64()
		}
	}
	return Problem{Queries: zscore(qry), Refs: zscore(ref), Truth: identity(n)}
}

// linkedAt counts the records θ links (every candidate row ≥ ε), directly from the rows.
func linkedAt(d *data, theta []float64, eps float64) int {
	n := 0
	for i := range d.recs {
		r := &d.recs[i]
		if r.impossible {
			continue
		}
		ok := true
		for c := range r.ncand() {
			ok = ok && floats.Dot(theta, r.cand[c*d.m:(c+1)*d.m]) >= eps
		}
		if ok {
			n++
		}
	}
	return n
}

// The exact line search against a scan of each edge line: the count it claims for the
// line is the most any of 2,001 evenly spaced points reaches, and it is reached at the
// point it returns; climbing never loses links and keeps θ on the simplex.
func TestClimberEdgeAgainstScan(t *testing.T) {
	const eps = 1e-4
	for _, fam := range []Family{WM, OWA} {
		for seed := range uint64(3) {
			p := randomProblem(seed, 60, 5, 0.6)
			sp, err := newSpace(fam, 5)
			if err != nil {
				t.Fatal(err)
			}
			d := prepare(p, sp, eps, 1)
			c := newSimplexLines(d, eps, make([]bool, len(d.recs)))
			theta := []float64{0.1, 0.3, 0.05, 0.25, 0.3}
			if got, want := c.margins(theta), linkedAt(d, theta, eps); got != want {
				t.Fatalf("%v seed %d: margins counts %d links, the rows %d", fam, seed, got, want)
			}
			for k := range 5 {
				for l := k + 1; l < 5; l++ {
					x := edgeIndex(c, k, l)
					lo, hi := c.span(theta, x)
					best, at := c.line(theta, x, lo, hi, 0)
					point := func(s float64) []float64 {
						x := append([]float64(nil), theta...)
						x[k] += s
						x[l] -= s
						return x
					}
					if n := linkedAt(d, point(at), eps); n != best {
						t.Errorf("%v seed %d edge %d-%d: %d links at t = %g, edge says %d", fam, seed, k, l, n, at, best)
					}
					scan := 0
					for s := range 2001 {
						u := -theta[k] + float64(s)/2000*(theta[k]+theta[l])
						scan = max(scan, linkedAt(d, point(u), eps))
					}
					if scan > best {
						t.Errorf("%v seed %d edge %d-%d: a scan links %d, edge says %d at most", fam, seed, k, l, scan, best)
					}
				}
			}
			before := linkedAt(d, theta, eps)
			got := climb(c, theta, nil, 2, limit{})
			sum := 0.0
			for _, w := range theta {
				if w < 0 {
					t.Errorf("%v seed %d: climb left the simplex: %v", fam, seed, theta)
				}
				sum += w
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("%v seed %d: climb's θ sums to %v", fam, seed, sum)
			}
			if n := linkedAt(d, theta, eps); n != got || got < before {
				t.Errorf("%v seed %d: climb says %d links, its θ links %d, the start %d", fam, seed, got, n, before)
			}
		}
	}
}

// The iterated search is reproducible for a seed and never ends below its first climb.
func TestClimberSearch(t *testing.T) {
	const eps = 1e-4
	p := randomProblem(9, 80, 6, 0.7)
	sp, _ := newSpace(WM, 6)
	d := prepare(p, sp, eps, 1)
	start := sp.euclidean()
	run := func(seed uint64, threads, patience int) ([]float64, int) {
		c := newSimplexLines(d, eps, make([]bool, len(d.recs)))
		th := append([]float64(nil), start...)
		return th, search(c, th, rand.New(rand.NewPCG(seed, climbStream)), threads, patience, len(d.recs), limit{})
	}
	_, climbed := run(1, 1, 0)
	th1, n1 := run(1, 1, 30)
	th2, n2 := run(1, 2, 30)
	if n1 < climbed || linkedAt(d, th1, eps) != n1 {
		t.Errorf("search: %d links (its θ %d), the first climb %d", n1, linkedAt(d, th1, eps), climbed)
	}
	if n1 != n2 || !slices.Equal(th1, th2) {
		t.Errorf("one and two workers differ: %d %v, %d %v", n1, th1, n2, th2)
	}
	if climbed < linkedAt(d, start, eps) || n1 <= linkedAt(d, start, eps) {
		t.Errorf("Euclidean %d links, climb %d, search %d: the search should gain here", linkedAt(d, start, eps), climbed, n1)
	}
}

// edgeIndex is the line of c along e_k − e_l.
func edgeIndex(c *simplexLines, k, l int) int {
	for x, e := range c.edges {
		if e == [2]int{k, l} {
			return x
		}
	}
	panic("no such edge")
}

// The bilinear lines against a scan: the count claimed is reached at the point returned
// (re-counted by the family's evaluator) and no point of the span links more; the span's
// ends keep W positive semi-definite.
func TestBilinearLinesAgainstScan(t *testing.T) {
	const eps = 1e-4
	for seed := range uint64(2) {
		p := randomProblem(seed, 40, 4, 0.5)
		p.Family = Bilinear
		sp := newBilinearSpace(4)
		d := prepare(p, sp, eps, 1)
		c := newBilinearLines(d, sp, eps, make([]bool, len(d.recs)))
		// W = I/4 + a symmetric perturbation that keeps it positive definite.
		theta := sp.euclidean()
		theta[sp.col(0, 1)] = 0.05
		theta[sp.col(2, 3)] = -0.04
		theta[sp.col(0, 0)] += 0.05
		theta[sp.col(1, 1)] -= 0.05
		count := func(th []float64) int {
			ev, n := sp.evaluator(d, th), 0
			var buf []float64
			for i := range d.recs {
				if linksRecord(ev, &d.recs[i], eps, &buf) {
					n++
				}
			}
			return n
		}
		if got, want := c.margins(theta), count(theta); got != want {
			t.Fatalf("seed %d: margins counts %d links, the evaluator %d", seed, got, want)
		}
		for x := range c.lines() {
			lo, hi := c.span(theta, x)
			w := mat.NewSymDense(4, nil)
			for _, e := range []float64{lo, hi} {
				if ev := c.minEigen(theta, x, e, w); ev < -1e-12 {
					t.Errorf("seed %d line %v: λ_min %g at the span's end %g", seed, c.dirs[x], ev, e)
				}
			}
			best, at := c.line(theta, x, lo, hi, 0)
			point := func(u float64) []float64 {
				th := append([]float64(nil), theta...)
				c.step(th, x, u)
				return th
			}
			if n := count(point(at)); n != best {
				t.Errorf("seed %d line %v: %d links at t = %g, line says %d", seed, c.dirs[x], n, at, best)
			}
			for s := range 401 {
				u := lo + float64(s)/400*(hi-lo)
				if n := count(point(u)); n > best {
					t.Errorf("seed %d line %v: %d links at t = %g, line says %d at most", seed, c.dirs[x], n, u, best)
					break
				}
			}
		}
	}
}
