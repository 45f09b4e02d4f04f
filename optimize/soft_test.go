package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func TestNearestOnSimplex(t *testing.T) {
	for _, c := range []struct{ in, want []float64 }{
		{[]float64{0.3, 0.7}, []float64{0.3, 0.7}},        // on the simplex already
		{[]float64{1, 1}, []float64{0.5, 0.5}},            // τ = 1/2
		{[]float64{2, 0}, []float64{1, 0}},                // τ = 1, the second clipped
		{[]float64{0.2, 0.2, -1}, []float64{0.5, 0.5, 0}}, // τ = −0.3
		{[]float64{0, 0, 0, 0}, []float64{0.25, 0.25, 0.25, 0.25}},
	} {
		got := slices.Clone(c.in)
		nearestOnSimplex(got)
		for k := range got {
			if math.Abs(got[k]-c.want[k]) > 1e-12 {
				t.Errorf("projection of %v = %v, want %v", c.in, got, c.want)
				break
			}
		}
	}
	// The nearest point: no point of the simplex is closer (random ones, and the
	// clamp-and-rescale map the search uses to repair rounding).
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		v := make([]float64, 5)
		for k := range v {
			v[k] = 2 * rng.NormFloat64()
		}
		p := slices.Clone(v)
		nearestOnSimplex(p)
		sum := 0.0
		for _, x := range p {
			sum += x
			if x < 0 {
				t.Fatalf("projection of %v has a negative entry: %v", v, p)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("projection of %v sums to %v", v, sum)
		}
		dp := dist2(v, p)
		for range 50 {
			y := make([]float64, 5)
			for k := range y {
				y[k] = rng.ExpFloat64()
			}
			projectSimplex(y)
			if dist2(v, y) < dp-1e-12 {
				t.Fatalf("%v is closer to %v than its projection %v", y, v, p)
			}
		}
	}
}

func dist2(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return s
}

// The projection of W onto the PSD matrices of trace 1: no eigenvalue below rounding,
// trace 1, and nearer in the Frobenius norm than random members and than the repair map
// (clamp the negative eigenvalues, rescale).
func TestSoftProjectBilinear(t *testing.T) {
	const m = 4
	sp := newBilinearSpace(m)
	rng := rand.New(rand.NewPCG(5, 6))
	frob := func(a, b []float64) float64 {
		s := 0.0
		for k := range m {
			for l := k; l < m; l++ {
				x := a[sp.col(k, l)] - b[sp.col(k, l)]
				if l != k {
					x *= math.Sqrt2 // W_kl and W_lk
				}
				s += x * x
			}
		}
		return s
	}
	for range 100 {
		th := make([]float64, sp.dim())
		for c := range th {
			th[c] = rng.NormFloat64()
		}
		p := slices.Clone(th)
		projectPSD(sp, p)
		vals, _ := sp.eigen(p)
		tr := 0.0
		for k := range m {
			tr += p[sp.col(k, k)]
		}
		if vals[0] < -1e-12 || math.Abs(tr-1) > 1e-12 {
			t.Fatalf("projection has λ_min %v, trace %v", vals[0], tr)
		}
		repaired := slices.Clone(th)
		sp.project(repaired)
		if frob(th, repaired) < frob(th, p)-1e-12 {
			t.Fatalf("the repair map is nearer (%v) than the projection (%v)", frob(th, repaired), frob(th, p))
		}
		for range 30 {
			y := make([]float64, sp.dim())
			var a mat.Dense
			g := mat.NewDense(m, m, nil)
			for k := range m {
				for l := range m {
					g.Set(k, l, rng.NormFloat64())
				}
			}
			a.Mul(g, g.T()) // PSD
			for k := range m {
				for l := k; l < m; l++ {
					y[sp.col(k, l)] = a.At(k, l)
				}
			}
			sp.project(y) // trace 1
			if frob(th, y) < frob(th, p)-1e-12 {
				t.Fatalf("a random member is nearer (%v) than the projection (%v)", frob(th, y), frob(th, p))
			}
		}
	}
}

// The gradient of the smooth count against central differences along random directions,
// for the simplex features and the bilinear form (whose rows are built on demand).
func TestSoftGradient(t *testing.T) {
	const eps = 1e-4
	p := randomProblem(11, 40, 4, 0.6)
	for _, f := range []Family{WM, OWA, Bilinear} {
		sp, _ := newSpace(f, 4)
		d := prepare(p, sp, eps, 1)
		rng := rand.New(rand.NewPCG(7, 8))
		th := sp.euclidean()
		for c := range th {
			th[c] += 0.02 * rng.Float64()
		}
		o := newSoftObjective(d, eps, make([]bool, len(d.recs)), 2)
		for _, tau := range []float64{0.3, 0.05} {
			grad := make([]float64, len(th))
			o.eval(th, tau, grad)
			for range 5 {
				dir := make([]float64, len(th))
				for c := range dir {
					dir[c] = rng.NormFloat64()
				}
				const h = 1e-6
				plus, minus := slices.Clone(th), slices.Clone(th)
				for c := range th {
					plus[c] += h * dir[c]
					minus[c] -= h * dir[c]
				}
				scratch := make([]float64, len(th))
				lp, _ := o.eval(plus, tau, scratch)
				lm, _ := o.eval(minus, tau, scratch)
				num, ana := (lp-lm)/(2*h), floats.Dot(grad, dir)
				if math.Abs(num-ana) > 1e-4*max(1, math.Abs(num)) {
					t.Errorf("%v τ=%v: directional derivative %v, gradient gives %v", f, tau, num, ana)
				}
			}
		}
	}
}

// bilinearLinkedAt counts the records W links, from the distances xᵀWx directly.
func bilinearLinkedAt(d *data, sp *bilinearSpace, theta []float64, eps float64) int {
	w := sp.matrix(theta)
	dist := func(q, r []float64) float64 {
		x := make([]float64, d.m)
		for k := range x {
			x[k] = q[k] - r[k]
		}
		v := mat.NewVecDense(d.m, x)
		return mat.Inner(v, w, v)
	}
	n := 0
	for i := range d.recs {
		r := &d.recs[i]
		q := d.query(r.q)
		dt, ok := dist(q, d.ref(r.t)), true
		for j := range d.nr {
			ok = ok && (j == r.t || dist(q, d.ref(j))-dt >= eps)
		}
		if ok {
			n++
		}
	}
	return n
}

// softAscent returns the number its W links (counted independently from the distances),
// never fewer than the start's, keeps W in the family, does not depend on the number of
// threads, and finds the links a single exact attribute gives, which the Euclidean
// distance misses.
func TestSoftAscent(t *testing.T) {
	const eps = 1e-4
	// Attribute 0 is released exactly; the three others carry noise of twice their
	// spread, so the Euclidean distance links few records and W = e_0e_0ᵀ links every
	// record but those within √ε of another in attribute 0.
	p := randomProblem(13, 60, 4, 2)
	p.Queries[0] = slices.Clone(p.Refs[0])
	sp := newBilinearSpace(4)
	d := prepare(p, sp, eps, 1)
	run := func(threads int) ([]float64, int) {
		th := sp.euclidean()
		return th, softAscent(d, sp, th, eps, make([]bool, len(d.recs)), threads, 1200, limit{})
	}
	th1, n1 := run(1)
	th2, n2 := run(2)
	start := bilinearLinkedAt(d, sp, sp.euclidean(), eps)
	if got := bilinearLinkedAt(d, sp, th1, eps); got != n1 || n1 < start {
		t.Errorf("softAscent says %d links, its W links %d, the start %d", n1, got, start)
	}
	if n1 != n2 || !slices.Equal(th1, th2) {
		t.Errorf("one and two threads differ: %d, %d", n1, n2)
	}
	inFamily := slices.Clone(th1)
	sp.project(inFamily)
	if dist2(inFamily, th1) > 1e-20 {
		t.Errorf("W %v is not in the family", th1)
	}
	exact := make([]float64, sp.dim())
	exact[sp.col(0, 0)] = 1
	if e := bilinearLinkedAt(d, sp, exact, eps); start > len(d.recs)/2 || n1 < e {
		t.Errorf("Euclidean %d links, the ascent %d, the exact attribute alone %d", start, n1, e)
	}
}

// tangent's step is the gradient's Riesz representative in the tangent space of the
// trace: it keeps trace(W) and, for every direction E that does, ⟨tangent(g), E⟩ = g·E in
// the Frobenius inner product (an off-diagonal θ_kl stands for W_kl and W_lk).
func TestTangent(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	sp := newBilinearSpace(5)
	diag := make([]bool, sp.dim())
	for k := range sp.m {
		diag[sp.col(k, k)] = true
	}
	frobenius := func(x, y []float64) float64 {
		s := 0.0
		for c := range x {
			w := 2.0
			if diag[c] {
				w = 1
			}
			s += w * x[c] * y[c]
		}
		return s
	}
	trace := func(x []float64) float64 {
		s := 0.0
		for c, v := range x {
			if diag[c] {
				s += v
			}
		}
		return s
	}
	random := func() []float64 {
		v := make([]float64, sp.dim())
		for c := range v {
			v[c] = rng.NormFloat64()
		}
		return v
	}
	for range 20 {
		g := random()
		step := slices.Clone(g)
		tangent(sp, step)
		e := random()
		tangent(sp, e) // a direction that keeps the trace
		if math.Abs(trace(step)) > 1e-12 || math.Abs(trace(e)) > 1e-12 {
			t.Fatalf("the step changes the trace by %v", trace(step))
		}
		if a, b := frobenius(step, e), floats.Dot(g, e); math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
			t.Fatalf("⟨step, E⟩ = %v, g·E = %v", a, b)
		}
	}
}

// Under a work limit the smooth ascent stops before its stop, not after the evaluation
// that passes it: an evaluation counts its margins and its gradient's rows, and starts
// only if that fits (the first, with every row in the gradient, once ran whatever the
// stop, and its rows went uncounted). It still never returns fewer links than its start,
// and an ascent with no room for a step returns −1 with θ untouched, having counted
// nothing.
func TestSoftAscentWorkLimit(t *testing.T) {
	const eps = 1e-4
	p := randomProblem(13, 60, 4, 2)
	p.Queries[0] = slices.Clone(p.Refs[0])
	sp := newBilinearSpace(4)
	d := prepare(p, sp, eps, 1)
	start := bilinearLinkedAt(d, sp, sp.euclidean(), eps)
	var margins int64
	for i := range d.recs {
		margins += marginsWork(d, &d.recs[i])
	}
	for _, k := range []int64{1, 10, 20, 100, 1000} {
		at := time.Duration(k * margins)
		c := &clock{counting: true}
		th := sp.euclidean()
		n := softAscent(d, sp, th, eps, make([]bool, len(d.recs)), 1, 1200, limit{clock: c, at: at})
		t.Logf("stop %v: %d links (start %d), %d units counted", at, n, start, c.units)
		if c.now() > at {
			t.Errorf("stop %v: the ascent counted %v", at, c.now())
		}
		switch {
		case n < 0:
			if c.units != 0 || !slices.Equal(th, sp.euclidean()) {
				t.Errorf("stop %v: no ascent, yet %d units counted and W moved", at, c.units)
			}
		case n < start || bilinearLinkedAt(d, sp, th, eps) != n:
			t.Errorf("stop %v: %d links, its W links %d, the start %d", at, n, bilinearLinkedAt(d, sp, th, eps), start)
		}
	}
}
