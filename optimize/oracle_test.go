package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// arrangementOptimum is an exact oracle for small problems, independent of the solver:
// every distance is computed from the raw coordinates, as an affine function of two free
// coordinates u of the family's parameters (one for WM and OWA with two attributes):
//
//	WM, OWA, m = 2, 3:   θ = (u₁, 1 − u₁) or (u₁, u₂, 1 − u₁ − u₂), the simplex;
//	Choquet, m = 2:      u = (μ{1}, μ{2}) in the unit square (monotonicity);
//	bilinear, m = 2:     u = (W₁₁, W₁₂), W₂₂ = 1 − W₁₁; PSD is the disk
//	                     (W₁₁ − ½)² + W₁₂² ≤ ¼.
//
// Each competitor row of a record is a half-plane c·u ≥ b, so a set of records linked
// together is a convex region bounded by those rows' lines and the domain's boundary
// (lines, or the circle), and a nonempty one has a point on one of them. So the oracle
// walks every line (along it each record is linked on an interval of t, and a sort of the
// intervals' ends gives the most sharing a point) and, for the disk, evaluates the count
// at every end of the arcs of the circle where a row holds (a set's part of the circle is
// an intersection of closed arcs, so it contains such an end). The largest count is the
// family's optimum. Evaluations allow 1e-10 for the points that lie on a row's line or
// arc by construction.
func arrangementOptimum(p Problem, eps float64) int {
	n := len(p.Truth)
	type half struct {
		c []float64
		b float64
	}
	var domain []half
	disk := false
	dim := 2
	switch m := len(p.Queries); {
	case (p.Family == WM || p.Family == OWA) && m == 2:
		dim, domain = 1, []half{{[]float64{1}, 0}, {[]float64{-1}, -1}}
	case (p.Family == WM || p.Family == OWA) && m == 3:
		domain = []half{{[]float64{1, 0}, 0}, {[]float64{0, 1}, 0}, {[]float64{-1, -1}, -1}}
	case p.Family == Choquet && m == 2:
		domain = []half{{[]float64{1, 0}, 0}, {[]float64{0, 1}, 0}, {[]float64{-1, 0}, -1}, {[]float64{0, -1}, -1}}
	case p.Family == Bilinear && m == 2:
		disk = true
	default:
		panic(fmt.Sprintf("arrangementOptimum: %v with %d attributes", p.Family, m))
	}
	const tol = 1e-10
	center, radius := []float64{0.5, 0}, 0.5
	// recs[i]: record i's rows d(i, j) − d(i, t(i)) ≥ eps, j ≠ t(i), as c·u ≥ b.
	recs := make([][]half, n)
	for i := range n {
		t := p.Truth[i]
		if t < 0 {
			continue
		}
		ft0, ft := affineDistance(p, i, t)
		for j := range p.Refs[0] {
			if j == t {
				continue
			}
			f0, f := affineDistance(p, i, j)
			h := half{c: make([]float64, dim), b: eps - (f0 - ft0)}
			for k := range h.c {
				h.c[k] = f[k] - ft[k]
			}
			recs[i] = append(recs[i], h)
		}
	}
	inDomain := func(u []float64) bool {
		for _, h := range domain {
			if rawDot(h.c, u) < h.b-tol {
				return false
			}
		}
		if disk {
			dx, dy := u[0]-center[0], u[1]-center[1]
			return dx*dx+dy*dy <= radius*radius+tol
		}
		return true
	}
	count := func(u []float64) int {
		linked := 0
		for _, hs := range recs {
			ok := hs != nil
			for _, h := range hs {
				if rawDot(h.c, u) < h.b-tol {
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
	// The lines walked, as a point u0 and a direction: for one free coordinate the
	// segment itself, otherwise every row's line and the domain's edges.
	type line struct{ u0, dir []float64 }
	var lines []line
	if dim == 1 {
		lines = []line{{[]float64{0}, []float64{1}}}
	} else {
		for _, hs := range append(slices.Clone(recs), domain) {
			for _, h := range hs {
				nn := h.c[0]*h.c[0] + h.c[1]*h.c[1]
				if nn == 0 {
					continue
				}
				lines = append(lines, line{[]float64{h.b * h.c[0] / nn, h.b * h.c[1] / nn}, []float64{-h.c[1], h.c[0]}})
			}
		}
	}
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
		for _, h := range domain {
			lo, hi = interval(l, h, lo, hi)
		}
		if disk { // the chord: |u0 + t·dir − center|² ≤ radius²
			w := []float64{l.u0[0] - center[0], l.u0[1] - center[1]}
			a, b, c := rawDot(l.dir, l.dir), 2*rawDot(l.dir, w), rawDot(w, w)-radius*radius-tol
			disc := b*b - 4*a*c
			if disc < 0 {
				continue
			}
			lo, hi = (-b-math.Sqrt(disc))/(2*a), (-b+math.Sqrt(disc))/(2*a)
		}
		if lo > hi {
			continue // the line misses the domain
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
			switch {
			case x.t < y.t:
				return -1
			case x.t > y.t:
				return 1
			case x.start == y.start:
				return 0
			case x.start:
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
	if disk {
		// Row c·u ≥ b on the circle u = center + radius·(cos φ, sin φ) holds where
		// cos(φ − φ_c) ≥ s: the ends are φ_c ± acos(s).
		for _, hs := range recs {
			for _, h := range hs {
				norm := math.Hypot(h.c[0], h.c[1])
				if norm == 0 {
					continue
				}
				s := (h.b - rawDot(h.c, center)) / (radius * norm)
				if s < -1 || s > 1 {
					continue
				}
				phi, alpha := math.Atan2(h.c[1], h.c[0]), math.Acos(s)
				for _, a := range []float64{phi - alpha, phi + alpha} {
					u := []float64{center[0] + radius*math.Cos(a), center[1] + radius*math.Sin(a)}
					if inDomain(u) {
						best = max(best, count(u))
					}
				}
			}
		}
	}
	return best
}

// affineDistance is the family's distance of query i and reference j from the raw
// coordinates as f0 + f·u in arrangementOptimum's free coordinates u.
func affineDistance(p Problem, i, j int) (f0 float64, f []float64) {
	m := len(p.Queries)
	x, diff := rawDiffs(p, i, j)
	switch p.Family {
	case WM, OWA: // Σ θ_k φ_k with θ_m = 1 − Σ_{k<m} u_k
		if p.Family == OWA {
			slices.Sort(diff)
			slices.Reverse(diff)
		}
		f = make([]float64, m-1)
		for k := range f {
			f[k] = diff[k] - diff[m-1]
		}
		return diff[m-1], f
	case Choquet: // x_(1) μ(V) + (x_(2) − x_(1)) μ({the attribute of the larger diff})
		if diff[0] >= diff[1] {
			return diff[1], []float64{diff[0] - diff[1], 0}
		}
		return diff[0], []float64{0, diff[1] - diff[0]}
	case Bilinear: // W₁₁x₁² + 2W₁₂x₁x₂ + (1 − W₁₁)x₂²
		return diff[1], []float64{diff[0] - diff[1], 2 * x[0] * x[1]}
	}
	panic("affineDistance: family")
}

// rawDiffs returns the differences of query i and reference j from the raw coordinates
// and their squares.
func rawDiffs(p Problem, i, j int) (x, diff []float64) {
	m := len(p.Queries)
	x, diff = make([]float64, m), make([]float64, m)
	for k := range m {
		x[k] = p.Queries[k][i] - p.Refs[k][j]
		diff[k] = x[k] * x[k]
	}
	return x, diff
}

// rawDistance is the distance of query i and reference j under the learned parameters
// (in Result.Params' layout), from the raw coordinates.
func rawDistance(p Problem, params []float64, i, j int) float64 {
	x, diff := rawDiffs(p, i, j)
	switch p.Family {
	case OWA:
		slices.Sort(diff)
		slices.Reverse(diff)
		fallthrough
	case WM:
		return rawDot(params, diff)
	case Choquet: // μ(A) at params[A − 1]: μ{1}, μ{2}, μ{1, 2}
		lo, hi, top := diff[1], diff[0], params[0]
		if diff[0] < diff[1] {
			lo, hi, top = diff[0], diff[1], params[1]
		}
		return lo*params[2] + (hi-lo)*top
	case Bilinear: // W₁₁, W₁₂, W₂₂
		return params[0]*diff[0] + 2*params[1]*x[0]*x[1] + params[2]*diff[1]
	}
	panic("rawDistance: family")
}

// inFamily reports whether params (Result.Params' layout, two or three attributes) are
// parameters of the family, to 1e-9.
func inFamily(f Family, params []float64) bool {
	const tol = 1e-9
	sum := 0.0
	for _, v := range params {
		sum += v
	}
	switch f {
	case WM, OWA:
		return slices.Min(params) >= -tol && math.Abs(sum-1) <= tol
	case Choquet:
		return params[0] >= -tol && params[1] >= -tol && params[0] <= params[2]+tol && params[1] <= params[2]+tol && math.Abs(params[2]-1) <= tol
	case Bilinear:
		return params[0] >= -tol && params[2] >= -tol && params[0]*params[2]-params[1]*params[1] >= -tol && math.Abs(params[0]+params[2]-1) <= tol
	}
	return false
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
// by at least eps under the learned parameters, from the raw coordinates.
func rawCount(p Problem, params []float64, eps float64) int {
	linked := 0
	for i, t := range p.Truth {
		if t < 0 {
			continue
		}
		dt := rawDistance(p, params, i, t)
		ok := true
		for j := range p.Refs[0] {
			if j != t && rawDistance(p, params, i, j)-dt < eps {
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

// TestLearnAgainstArrangement checks proven optima on random problems against
// arrangementOptimum: WM and OWA with two and three attributes, Choquet and the bilinear
// form (its PSD games) with two; noisy and microaggregated files; the default search,
// small blocks (which also start the neighbourhood search), and the tree alone (no local
// search: in two or three dimensions the line search finds the optimum at once, so a bound
// that is too strong would go unseen), with blocks, with CLP's master and without
// tail-off. The learned parameters must lie in the family and link, from the raw data, the
// number Learn reports. The proof is for the margin ε + lpSlack and the links are counted
// at ε, so the oracle is evaluated at both: oracle(ε + 2·lpSlack) ≤ links = bound ≤
// oracle(ε).
func TestLearnAgainstArrangement(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 23))
	const eps = DefaultEpsilon
	cases := 0
	kinds := []struct {
		f Family
		m int
	}{{WM, 2}, {WM, 3}, {OWA, 2}, {OWA, 3}, {Choquet, 2}, {Bilinear, 2}}
	const total = 72
	for c := range total {
		f, m := kinds[c%len(kinds)].f, kinds[c%len(kinds)].m
		n := 30 + rng.IntN(91)
		groups := 1
		sigma := []float64{0.4, 0.8, 1.2}[rng.IntN(3)]
		if rng.IntN(3) == 0 {
			groups, sigma = 2+rng.IntN(2), 0.2
		}
		p := randomMaskedProblem(rng, n, m, groups, sigma, f)
		settings := Settings{Seed: int64(c), Threads: 1}
		variant := "default"
		switch c / len(kinds) % 6 {
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
		if !inFamily(f, res.Params) {
			t.Errorf("%s: learned parameters %v are not in the family", name, res.Params)
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
	if cases < total*5/6 {
		t.Errorf("only %d of %d cases had the same optimum at ε and ε + 2·lpSlack: the check is too weak", cases, total)
	}
}
