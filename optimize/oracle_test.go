package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// arrangementOptimum is an exact oracle for WM and OWA with two or three attributes,
// independent of the solver: it computes every margin from the raw coordinates. In the
// simplex's free coordinates u (θ = (x, 1 − x) or (x, y, 1 − x − y)) each competitor row a
// of a record is a half-plane θ·a ≥ eps, so a set of records linked together is a convex
// polygon (an interval for two attributes) bounded by those rows' lines and the simplex's
// edges; a nonempty one has a point on one of these lines. So the oracle walks every line:
// along it each record is linked on an interval of t, and the most intervals sharing a
// point is the most records linked on that line (a sort of the intervals' ends). The
// largest over the lines is the family's optimum. Evaluations allow 1e-12, for the line
// walked, on which its own row is 0 up to rounding.
func arrangementOptimum(p Problem, eps float64) int {
	m, n := len(p.Queries), len(p.Truth)
	if m != 2 && m != 3 {
		panic("arrangementOptimum: two or three attributes")
	}
	// A half-plane c·u ≥ b in the free coordinates: θ·a ≥ eps is Σ_k u_k (a_k − a_m) ≥
	// eps − a_m; the simplex is u_k ≥ 0 and Σ_k u_k ≤ 1.
	type half struct {
		c []float64
		b float64
	}
	simplex := []half{{[]float64{-1}, -1}, {[]float64{1}, 0}}
	if m == 3 {
		simplex = []half{{[]float64{1, 0}, 0}, {[]float64{0, 1}, 0}, {[]float64{-1, -1}, -1}}
	}
	recs := make([][]half, n)
	for i := range n {
		t := p.Truth[i]
		if t < 0 {
			continue
		}
		ft := rawFeatures(p, i, t)
		for j := range p.Refs[0] {
			if j == t {
				continue
			}
			a := rawFeatures(p, i, j)
			h := half{c: make([]float64, m-1), b: eps - (a[m-1] - ft[m-1])}
			for k := range m - 1 {
				h.c[k] = (a[k] - ft[k]) - (a[m-1] - ft[m-1])
			}
			recs[i] = append(recs[i], h)
		}
	}
	// The lines walked, as a point u0 and a direction: for two attributes the segment
	// itself, for three every row's line and the simplex's edges.
	type line struct{ u0, dir []float64 }
	var lines []line
	if m == 2 {
		lines = []line{{[]float64{0}, []float64{1}}}
	} else {
		for _, hs := range append(slices.Clone(recs), simplex) {
			for _, h := range hs {
				nn := h.c[0]*h.c[0] + h.c[1]*h.c[1]
				if nn == 0 {
					continue
				}
				lines = append(lines, line{[]float64{h.b * h.c[0] / nn, h.b * h.c[1] / nn}, []float64{-h.c[1], h.c[0]}})
			}
		}
	}
	const tol = 1e-12
	// interval narrows [lo, hi] to the t where h holds at u0 + t·dir.
	interval := func(l line, h half, lo, hi float64) (float64, float64) {
		g, s := h.b-tol-rawDot(h.c, l.u0), rawDot(h.c, l.dir) // s·t ≥ g
		switch {
		case math.Abs(s) < 1e-14:
			if g > 0 {
				return 1, 0
			}
		case s > 0:
			lo = max(lo, g/s)
		default:
			hi = min(hi, g/s)
		}
		return lo, hi
	}
	type end struct {
		t     float64
		start bool
	}
	best := 0
	var ends []end
	for _, l := range lines {
		lo, hi := math.Inf(-1), math.Inf(1)
		for _, h := range simplex {
			lo, hi = interval(l, h, lo, hi)
		}
		if lo > hi {
			continue // the line misses the simplex
		}
		ends = ends[:0]
		for _, hs := range recs {
			if hs == nil {
				continue
			}
			a, b := lo, hi
			for _, h := range hs {
				if a, b = interval(l, h, a, b); a > b {
					break
				}
			}
			if a <= b {
				ends = append(ends, end{a, true}, end{b, false})
			}
		}
		// Closed intervals: at the same t, starts before ends.
		slices.SortFunc(ends, func(x, y end) int {
			if x.t != y.t {
				return cmpFloat(x.t, y.t)
			}
			if x.start == y.start {
				return 0
			}
			if x.start {
				return -1
			}
			return 1
		})
		open := 0
		for _, e := range ends {
			if e.start {
				open++
				best = max(best, open)
			} else {
				open--
			}
		}
	}
	return best
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	return 1
}

// rawFeatures is the family's feature vector of query i and reference j from the raw
// coordinates: the squared differences (WM), sorted decreasingly for OWA.
func rawFeatures(p Problem, i, j int) []float64 {
	f := make([]float64, len(p.Queries))
	for k := range f {
		d := p.Queries[k][i] - p.Refs[k][j]
		f[k] = d * d
	}
	if p.Family == OWA {
		slices.Sort(f)
		slices.Reverse(f)
	}
	return f
}

// rawDot is a·b (the package's own dot is not used: the oracle shares no code with the
// solver).
func rawDot(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// rawCount counts the records whose true reference is nearer than every other reference
// by at least eps under θ, from the raw coordinates.
func rawCount(p Problem, theta []float64, eps float64) int {
	linked := 0
	for i, t := range p.Truth {
		if t < 0 {
			continue
		}
		dt := rawDot(theta, rawFeatures(p, i, t))
		ok := true
		for j := range p.Refs[0] {
			if j != t && rawDot(theta, rawFeatures(p, i, j))-dt < eps {
				ok = false
				break
			}
		}
		if ok {
			linked++
		}
	}
	return linked
}

// randomMaskedProblem draws an original file of n records and m attributes and masks it
// by additive noise of standard deviation sigma (relative to the attributes' unit sd);
// with groups > 1 it first releases consecutive groups of that size as their centroids
// (microaggregation: twin query records). Queries are the masked records, references the
// original ones, record i's truth i.
func randomMaskedProblem(rng *rand.Rand, n, m, groups int, sigma float64, f Family) Problem {
	refs := make([][]float64, m)
	queries := make([][]float64, m)
	for k := range m {
		refs[k] = make([]float64, n)
		queries[k] = make([]float64, n)
		for i := range n {
			refs[k][i] = rng.NormFloat64()
		}
		for g := 0; g < n; g += max(groups, 1) {
			end := min(g+max(groups, 1), n)
			mean := 0.0
			for i := g; i < end; i++ {
				mean += refs[k][i]
			}
			mean /= float64(end - g)
			for i := g; i < end; i++ {
				queries[k][i] = refs[k][i]
				if groups > 1 {
					queries[k][i] = mean
				}
			}
		}
		for i := range n {
			queries[k][i] += sigma * rng.NormFloat64()
		}
	}
	if groups > 1 { // the noise must not tell twins apart
		for k := range m {
			for g := 0; g < n; g += groups {
				for i := g + 1; i < min(g+groups, n); i++ {
					queries[k][i] = queries[k][g]
				}
			}
		}
	}
	truth := make([]int, n)
	for i := range truth {
		truth[i] = i
	}
	return Problem{Queries: queries, Refs: refs, Truth: truth, Family: f}
}

// TestLearnAgainstArrangement checks proven optima on random WM and OWA problems of two
// and three attributes against arrangementOptimum: noisy and microaggregated files, with
// the default search, with small blocks (which also starts the neighbourhood search), and
// with the tree alone (no local search: in two or three dimensions the line search finds
// the optimum at once, and a bound that is too strong would go unseen), with blocks, with
// CLP's master and without tail-off. Learn's links are re-counted from the raw coordinates at its θ. The
// proof is for the margin ε + lpSlack and the links are counted at ε, so the oracle is
// evaluated at both ends: oracle(ε + 2·lpSlack) ≤ links = bound ≤ oracle(ε).
func TestLearnAgainstArrangement(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 23))
	const eps = DefaultEpsilon
	cases := 0
	for c := range 48 {
		m := 2 + c%2
		f := WM
		if c%4 >= 2 {
			f = OWA
		}
		n := 30 + rng.IntN(91)
		groups := 1
		sigma := []float64{0.4, 0.8, 1.2}[rng.IntN(3)]
		if c%3 == 0 {
			groups, sigma = 2+rng.IntN(2), 0.2
		}
		p := randomMaskedProblem(rng, n, m, groups, sigma, f)
		settings := Settings{Seed: int64(c), Threads: 1}
		variant := "default"
		switch c / 4 % 6 {
		case 1:
			settings.blockLeaf, variant = 4, "blocks of 4"
		case 2:
			settings.noLocalSearch, variant = true, "tree only"
		case 3:
			settings.noLocalSearch, settings.blockLeaf, variant = true, 4, "tree only, blocks of 4"
		case 4:
			settings.noLocalSearch, settings.clpMaster, variant = true, true, "tree only, CLP master"
		case 5:
			settings.noLocalSearch, settings.tailRounds, variant = true, noTailOff, "tree only, no tail-off"
		}
		name := fmt.Sprintf("%d/%v/m=%d/n=%d/groups=%d/σ=%.1f/%s", c, f, m, n, groups, sigma, variant)
		res, err := Learn(p, settings)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Status != Optimal || res.Bound != res.CorrectLinks {
			t.Errorf("%s: status %v, %d links, bound %d: want a proven optimum without a time limit", name, res.Status, res.CorrectLinks, res.Bound)
			continue
		}
		if got := rawCount(p, res.Params, eps); got != res.CorrectLinks {
			t.Errorf("%s: θ %v links %d records from the raw data, Learn says %d", name, res.Params, got, res.CorrectLinks)
		}
		hi, lo := arrangementOptimum(p, eps), arrangementOptimum(p, eps+2*lpSlack)
		if res.CorrectLinks < lo || res.CorrectLinks > hi {
			t.Errorf("%s: Learn proves %d links optimal; the arrangement's optimum is %d (margin ε) and %d (ε + 2·lpSlack)", name, res.CorrectLinks, hi, lo)
		}
		if lo == hi {
			cases++
		}
		t.Logf("%s: %d links (Euclidean %d), nodes %d, cuts %d, blocks %d, neighbourhoods %d", name, res.CorrectLinks, res.EuclideanLinks, res.Stats.Nodes, res.Stats.Cuts, res.Stats.Blocks, res.Stats.Neighbourhoods)
	}
	if cases < 40 {
		t.Errorf("only %d of 48 cases had the same optimum at ε and ε + 2·lpSlack: the check is too weak", cases)
	}
}
