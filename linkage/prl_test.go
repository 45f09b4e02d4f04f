package linkage

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reid-sdc/reid/datasets"
)

// randomPRL builds a problem with every rule, missing values and optional blocking.
func randomPRL(seed uint64, n int, blocking bool) PRLProblem {
	rng := rand.New(rand.NewPCG(seed, 7))
	p := PRLProblem{TrueMasked: make([]int, n), TrueOriginal: make([]int, n)}
	perm := rng.Perm(n)
	for i, j := range perm {
		p.TrueMasked[i], p.TrueOriginal[j] = j, i
	}
	mk := func(name string, r Rule, cat bool, miss float64) {
		a := PRLAttribute{Name: name, Rule: r, Original: make([]float64, n), Masked: make([]float64, n)}
		if miss > 0 {
			a.OriginalMissing, a.MaskedMissing = make([]bool, n), make([]bool, n)
		}
		for i := range n {
			v := math.Round(rng.NormFloat64()*20) / 10
			if cat {
				v = float64(rng.IntN(4))
			}
			a.Original[i] = v
			mv := v + rng.NormFloat64()*0.1
			if cat {
				mv = v
				if rng.Float64() < 0.2 {
					mv = float64(rng.IntN(4))
				}
			}
			a.Masked[p.TrueMasked[i]] = mv
			if miss > 0 {
				a.OriginalMissing[i] = rng.Float64() < miss
				a.MaskedMissing[i] = rng.Float64() < miss
			}
		}
		p.Attributes = append(p.Attributes, a)
	}
	mk("a", Rule{Kind: RuleBands, Quantiles: []float64{0.05, 0.3}}, false, 0)
	mk("b", Rule{Kind: RuleBands, Thresholds: []float64{0.1, 0.5, 1}}, false, 0.1)
	mk("c", Rule{Kind: RuleRank, Thresholds: []float64{2, 10}}, false, 0)
	mk("d", Rule{Kind: RuleEqual}, true, 0.05)
	if blocking {
		p.OriginalBlock, p.MaskedBlock = make([]int, n), make([]int, n)
		for i := range n {
			b := rng.IntN(3)
			p.OriginalBlock[i] = b
			if rng.Float64() < 0.9 {
				p.MaskedBlock[p.TrueMasked[i]] = b
			} else {
				p.MaskedBlock[p.TrueMasked[i]] = rng.IntN(3)
			}
		}
	}
	return p
}

// TestPatternCountsNaive checks the tiled, parallel counter against a pair-by-pair count
// with pairCode, for every rule, missing values, blocking, both directions, the dense and
// the hash counters, and several thread counts.
func TestPatternCountsNaive(t *testing.T) {
	for _, blocking := range []bool{false, true} {
		for _, dir := range []Direction{MaskedToOriginal, OriginalToMasked} {
			for _, wide := range []bool{false, true} {
				p := randomPRL(3, 300, blocking)
				p.Direction = dir
				if wide { // 4 levels + missing on 12 attributes: hash counter
					for range 9 {
						p.Attributes = append(p.Attributes, p.Attributes[1])
					}
				}
				var first *PatternCounts
				for _, threads := range []int{1, 3} {
					c, err := newComparator(&p, threads)
					if err != nil {
						t.Fatal(err)
					}
					if wide != (c.space > denseLimit) {
						t.Fatalf("space %d", c.space)
					}
					pc := c.count()
					if first == nil {
						first = pc
						// Naive count.
						want, wantTrue := map[uint64]uint64{}, map[uint64]uint64{}
						qb, rb := p.MaskedBlock, p.OriginalBlock
						if dir == OriginalToMasked {
							qb, rb = p.OriginalBlock, p.MaskedBlock
						}
						for i := 0; i < c.nq; i++ {
							for j := 0; j < c.nr; j++ {
								if qb != nil && qb[i] != rb[j] {
									continue
								}
								x := c.pairCode(i, j)
								want[x]++
								if c.truth[i] == j {
									wantTrue[x]++
								}
							}
						}
						if len(want) != len(pc.Codes) {
							t.Fatalf("blocking %v dir %v: %d patterns, want %d", blocking, dir, len(pc.Codes), len(want))
						}
						for x, code := range pc.Codes {
							if pc.Count[x] != want[code] || pc.True[x] != wantTrue[code] {
								t.Fatalf("pattern %d: %d/%d, want %d/%d", code, pc.Count[x], pc.True[x], want[code], wantTrue[code])
							}
						}
					} else if !reflect.DeepEqual(first, pc) {
						t.Fatalf("counts depend on the number of threads")
					}
				}
			}
		}
	}
}

// TestQuantileExact compares the two-pointer bisection, and the sort of the pairs left in
// its bracket, with sorting every |Δz|; on continuous values and on values with many
// ties (multiples of 1/4: equal differences by the thousand).
func TestQuantileExact(t *testing.T) {
	for _, tc := range []struct{ blocking, ties bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		p := randomPRL(5, 250, tc.blocking)
		p.Attributes[0].Rule.Quantiles = []float64{0.001, 0.01, 0.25, 0.5, 0.999}
		if tc.ties {
			a := &p.Attributes[0]
			for _, x := range [][]float64{a.Original, a.Masked} {
				for i := range x {
					x[i] = math.Round(4*x[i]) / 4
				}
			}
			a.Rule.Quantiles = []float64{0.001, 0.2, 0.5}
		}
		c, err := newComparator(&p, 2)
		if err != nil {
			t.Fatal(err)
		}
		a := p.Attributes[0]
		var d []float64
		for j := range a.Masked {
			for i := range a.Original {
				if tc.blocking && p.MaskedBlock[j] != p.OriginalBlock[i] {
					continue
				}
				d = append(d, math.Abs(a.Masked[j]-a.Original[i]))
			}
		}
		slices.Sort(d)
		for x, q := range a.Rule.Quantiles {
			k := int(math.Ceil(q * float64(len(d))))
			if got := c.attrs[0].cuts[x]; got != d[k-1] {
				t.Errorf("blocking %v ties %v q %v: %v, want %v", tc.blocking, tc.ties, q, got, d[k-1])
			}
		}
	}
}

// TestEMClosedFormRidge: one binary attribute, p fixed. The likelihood depends on the
// parameters only through θ = p·m(agree) + (1−p)·u(agree), so (by hand) the MLE is every
// point of the ridge θ = n₁/n, with ℓ* = n₁ log(n₁/n) + n₀ log(n₀/n).
func TestEMClosedFormRidge(t *testing.T) {
	n1, n0, p := 30.0, 70.0, 0.2
	tab := PatternTable{Levels: []int{2}, Pattern: []int8{0, 1}, Count: []float64{n1, n0}}
	r, err := EM(tab, EMSettings{P: p, Tolerance: 1e-15, MaxIterations: 100000})
	if err != nil {
		t.Fatal(err)
	}
	want := n1*math.Log(n1/100) + n0*math.Log(n0/100)
	if math.Abs(r.LogLikelihood-want) > 1e-9*math.Abs(want) {
		t.Errorf("ℓ = %.15g, want %.15g", r.LogLikelihood, want)
	}
	if theta := p*r.M[0][0] + (1-p)*r.U[0][0]; math.Abs(theta-0.3) > 1e-6 {
		t.Errorf("θ = %v, want 0.3", theta)
	}
	if r.M[0][0] <= r.U[0][0] || r.P != p {
		t.Errorf("m %v u %v p %v: m must favour agreement and p stay fixed", r.M, r.U, r.P)
	}
}

// TestEMClosedFormSaturated: three binary attributes with p estimated is a saturated
// latent-class model (7 parameters, 7 free pattern frequencies, locally identified), so
// when the counts are exactly n·P(γ) of a model, that model is the MLE (up to the labels,
// which the guard fixes). Started from the swapped classes, EM must find and swap it.
func TestEMClosedFormSaturated(t *testing.T) {
	mt, ut, pt := []float64{0.9, 0.8, 0.85}, []float64{0.2, 0.1, 0.3}, 0.3
	var tab PatternTable
	tab.Levels = []int{2, 2, 2}
	for g := range 8 {
		pm, pu := pt, 1-pt
		for k := range 3 {
			l := (g >> k) & 1
			tab.Pattern = append(tab.Pattern, int8(l))
			if l == 0 {
				pm *= mt[k]
				pu *= ut[k]
			} else {
				pm *= 1 - mt[k]
				pu *= 1 - ut[k]
			}
		}
		tab.Count = append(tab.Count, 1e6*(pm+pu))
	}
	check := func(name string, r EMResult, switched bool) {
		for k := range 3 {
			if math.Abs(r.M[k][0]-mt[k]) > 1e-6 || math.Abs(r.U[k][0]-ut[k]) > 1e-6 {
				t.Errorf("%s: attribute %d: m %v u %v, want %v %v", name, k, r.M[k][0], r.U[k][0], mt[k], ut[k])
			}
		}
		if math.Abs(r.P-pt) > 1e-6 || r.LabelSwitched != switched || !r.Converged {
			t.Errorf("%s: p %v switched %v converged %v", name, r.P, r.LabelSwitched, r.Converged)
		}
	}
	set := EMSettings{P: 0.5, EstimateP: true, Tolerance: 1e-16, MaxIterations: 100000}
	r, err := EM(tab, set)
	if err != nil {
		t.Fatal(err)
	}
	check("default start", r, false)
	set.StartM = [][]float64{{0.25, 0.75}, {0.15, 0.85}, {0.35, 0.65}}
	set.StartU = [][]float64{{0.85, 0.15}, {0.75, 0.25}, {0.8, 0.2}}
	r, err = EM(tab, set)
	if err != nil {
		t.Fatal(err)
	}
	check("swapped start", r, true)
	// With p fixed, the re-run after the swap shares the iteration budget: exactly
	// MaxIterations M-steps in all when every one is run (Tolerance < 0). The first run
	// then spends the budget: what is reported is the point EM reached (a naive EM of
	// budget steps from the start, below), its classes swapped when it ended the wrong
	// way round, which is then flagged as no EM estimate (it was reported as a fit) and
	// carries the likelihood of the point reported.
	logLik := func(m, u [][]float64, p float64) float64 {
		ll := 0.0
		for g, n := range tab.Count {
			pm, pu := p, 1-p
			for k := range 3 {
				pm *= m[k][tab.Pattern[g*3+k]]
				pu *= u[k][tab.Pattern[g*3+k]]
			}
			ll += n * math.Log(pm+pu)
		}
		return ll
	}
	naive := func(m, u [][]float64, p float64, steps int) (nm, nu [][]float64) {
		m, u = cloneProbs(m), cloneProbs(u)
		for range steps {
			sm, su := [][]float64{{0, 0}, {0, 0}, {0, 0}}, [][]float64{{0, 0}, {0, 0}, {0, 0}}
			for g, n := range tab.Count {
				pm, pu := p, 1-p
				for k := range 3 {
					pm *= m[k][tab.Pattern[g*3+k]]
					pu *= u[k][tab.Pattern[g*3+k]]
				}
				post := pm / (pm + pu)
				for k := range 3 {
					sm[k][tab.Pattern[g*3+k]] += n * post
					su[k][tab.Pattern[g*3+k]] += n * (1 - post)
				}
			}
			for k := range 3 {
				normalise(sm[k])
				normalise(su[k])
			}
			m, u = sm, su
		}
		return m, u
	}
	wrongWay := 0
	for _, budget := range []int{1, 2, 7} {
		r, err = EM(tab, EMSettings{P: 0.3, MaxIterations: budget, Tolerance: -1, StartM: set.StartM, StartU: set.StartU})
		if err != nil {
			t.Fatal(err)
		}
		m, u := naive(set.StartM, set.StartU, 0.3, budget)
		reversed := orientation(m, u) < 0
		if reversed {
			wrongWay++
			m, u = u, m
		}
		ll := logLik(m, u, 0.3)
		if r.LabelSwitched != reversed || r.Converged || r.Iterations != budget || r.P != 0.3 ||
			reversed != strings.Contains(r.Warning, "swapped but not fitted again") || math.Abs(r.LogLikelihood-ll) > 1e-9*math.Abs(ll) {
			t.Errorf("budget %d: %d iterations, switched %v, converged %v, p %v, log-likelihood %v (naive %v), warning %q (wrong way round: %v)",
				budget, r.Iterations, r.LabelSwitched, r.Converged, r.P, r.LogLikelihood, ll, r.Warning, reversed)
		}
		for k := range 3 {
			if math.Abs(r.M[k][0]-m[k][0]) > 1e-12 || math.Abs(r.U[k][0]-u[k][0]) > 1e-12 {
				t.Errorf("budget %d: attribute %d: m %v u %v, naive EM %v %v", budget, k, r.M[k][0], r.U[k][0], m[k][0], u[k][0])
			}
		}
	}
	if wrongWay == 0 {
		t.Error("no budget ended the wrong way round: the case tests nothing")
	}
	// Of two fits, one favouring agreement is kept over one that does not, then one
	// without a warning over one with, then the higher likelihood.
	oriented := EMResult{M: [][]float64{{0.9, 0.1}}, U: [][]float64{{0.2, 0.8}}, LogLikelihood: -10}
	notRefitted := oriented
	notRefitted.Warning, notRefitted.LogLikelihood = "swapped but not fitted again", -1
	reversedFit := EMResult{M: [][]float64{{0.2, 0.8}}, U: [][]float64{{0.9, 0.1}}, LogLikelihood: -0.5, Warning: "even after swapping"}
	for _, tc := range []struct {
		c, r EMResult
		want bool
	}{
		{notRefitted, reversedFit, true}, {reversedFit, notRefitted, false},
		{oriented, notRefitted, true}, {notRefitted, oriented, false},
		{EMResult{M: oriented.M, U: oriented.U, LogLikelihood: -9}, oriented, true},
	} {
		if got := better(tc.c, tc.r, 0); got != tc.want {
			t.Errorf("better(%q %v, %q %v) = %v", tc.c.Warning, tc.c.LogLikelihood, tc.r.Warning, tc.r.LogLikelihood, got)
		}
	}
	// With iterations left, the swapped classes are fitted again with the fixed p: the
	// generating model (p = 0.3 is its own).
	r, err = EM(tab, EMSettings{P: 0.3, MaxIterations: 100000, Tolerance: 1e-16, StartM: set.StartM, StartU: set.StartU})
	if err != nil {
		t.Fatal(err)
	}
	check("swapped start, fixed p", r, true)
}

// TestEMRecoversFSModel samples 10^6 pairs from a Fellegi–Sunter model (4 attributes, 3
// levels, p = 0.01) and checks that EM recovers m, u and p within 5 standard errors of
// the complete-data estimates: sqrt(m(1−m)/(n·p)) for m, sqrt(u(1−u)/(n(1−p))) for u,
// sqrt(p(1−p)/n) for p. The classes are well separated (posteriors near 0 or 1), so the
// loss of information from the latent class is small and 5 SE is a safe bound.
func TestEMRecoversFSModel(t *testing.T) {
	m := [][]float64{{0.85, 0.1, 0.05}, {0.7, 0.2, 0.1}, {0.9, 0.07, 0.03}, {0.6, 0.3, 0.1}}
	u := [][]float64{{0.05, 0.15, 0.8}, {0.1, 0.2, 0.7}, {0.02, 0.08, 0.9}, {0.2, 0.3, 0.5}}
	const n, p = 1_000_000, 0.01
	rng := rand.New(rand.NewPCG(11, 13))
	counts := map[int]float64{}
	draw := func(pr []float64) int {
		x := rng.Float64()
		for l, v := range pr {
			if x < v {
				return l
			}
			x -= v
		}
		return len(pr) - 1
	}
	for range n {
		probs := u
		if rng.Float64() < p {
			probs = m
		}
		code := 0
		for k := range 4 {
			code = code*3 + draw(probs[k])
		}
		counts[code]++
	}
	tab := PatternTable{Levels: []int{3, 3, 3, 3}}
	for code := range 81 {
		if counts[code] == 0 {
			continue
		}
		for k := range 4 {
			tab.Pattern = append(tab.Pattern, int8(code/int(math.Pow(3, float64(3-k)))%3))
		}
		tab.Count = append(tab.Count, counts[code])
	}
	r, err := EM(tab, EMSettings{P: 0.05, EstimateP: true})
	if err != nil {
		t.Fatal(err)
	}
	for k := range 4 {
		for l := range 3 {
			if tol := 5 * math.Sqrt(m[k][l]*(1-m[k][l])/(n*p)); math.Abs(r.M[k][l]-m[k][l]) > tol {
				t.Errorf("m[%d][%d] = %.4f, want %.4f ± %.4f", k, l, r.M[k][l], m[k][l], tol)
			}
			if tol := 5 * math.Sqrt(u[k][l]*(1-u[k][l])/(n*(1-p))); math.Abs(r.U[k][l]-u[k][l]) > tol {
				t.Errorf("u[%d][%d] = %.4f, want %.4f ± %.4f", k, l, r.U[k][l], u[k][l], tol)
			}
		}
	}
	if tol := 5 * math.Sqrt(p*(1-p)/n); math.Abs(r.P-p) > tol {
		t.Errorf("p = %.5f, want %v ± %.5f", r.P, p, tol)
	}
}

// TestEMNaiveCensus: EM on the pattern counts and a deliberately naive EM that keeps the
// comparison vector of every pair and loops over the pairs agree to 1e-9 on CENSUS masked
// with additive noise (all 1080 records, 1,166,400 pairs, 30 iterations from the same
// start, p estimated).
func TestEMNaiveCensus(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "datasets", "census")
	p, err := sharedPRL(root, "noise_additive_10", []float64{0.01, 0.1})
	if err != nil {
		t.Skipf("CENSUS not available at %s (%v): skipping", root, err)
	}
	const iters = 30
	start := time.Now()
	res, err := PRL(p, PRLSettings{EstimateP: true, MaxIterations: iters, Tolerance: -1, NoAssignment: true})
	if err != nil {
		t.Fatal(err)
	}
	fast := time.Since(start)
	// Naive: per-pair levels with their own code, from the resolved cuts.
	start = time.Now()
	K := len(p.Attributes)
	n := len(p.TrueOriginal)
	lv := make([]int8, n*n*K)
	for j := range n { // masked record (query)
		for i := range n {
			for k, a := range p.Attributes {
				d := math.Abs(a.Masked[j] - a.Original[i])
				l := 0
				for _, c := range res.Cuts[k] {
					if d > c {
						l++
					}
				}
				lv[(j*n+i)*K+k] = int8(l)
			}
		}
	}
	L := 3
	m, u := make([][]float64, K), make([][]float64, K)
	for k := range K {
		m[k], u[k] = make([]float64, L), make([]float64, L)
		for l := range L {
			m[k][l] = math.Exp2(-3 * float64(l))
		}
		for x := 0; x < n*n; x++ {
			u[k][lv[x*K+k]]++
		}
		normalise(m[k])
		normalise(u[k])
	}
	prop := 1 / float64(n)
	// PRL's EM also tries a second start and keeps the better fit; the iterations are
	// compared from this one.
	startM, startU := cloneProbs(m), cloneProbs(u)
	for range iters {
		sm, su := make([][]float64, K), make([][]float64, K)
		for k := range K {
			sm[k], su[k] = make([]float64, L), make([]float64, L)
		}
		sg := 0.0
		for x := 0; x < n*n; x++ {
			pm, pu := prop, 1-prop
			for k := range K {
				pm *= m[k][lv[x*K+k]]
				pu *= u[k][lv[x*K+k]]
			}
			g := pm / (pm + pu)
			sg += g
			for k := range K {
				sm[k][lv[x*K+k]] += g
				su[k][lv[x*K+k]] += 1 - g
			}
		}
		for k := range K {
			normalise(sm[k])
			normalise(su[k])
			floor(sm[k])
			floor(su[k])
		}
		m, u, prop = sm, su, clampP(sg/float64(n*n))
	}
	t.Logf("pattern EM %v (%d patterns), naive per-pair EM %v", fast, len(res.Patterns.Codes), time.Since(start))
	model, err := EM(res.Patterns.Table(), EMSettings{P: 1 / float64(n), EstimateP: true, MaxIterations: iters, Tolerance: -1, StartM: startM, StartU: startU})
	if err != nil {
		t.Fatal(err)
	}
	// PRL keeps the better of its two starts: never below this one's fit.
	if res.Model.LogLikelihood < model.LogLikelihood || res.Model.Start == "" {
		t.Errorf("PRL's fit (start %q) log-likelihood %v, below the geometric start's %v", res.Model.Start, res.Model.LogLikelihood, model.LogLikelihood)
	}
	if d := math.Abs(model.P - prop); d > 1e-9*prop {
		t.Errorf("p %v, naive %v", model.P, prop)
	}
	for k := range K {
		for l := range L {
			if math.Abs(model.M[k][l]-m[k][l]) > 1e-9 || math.Abs(model.U[k][l]-u[k][l]) > 1e-9 {
				t.Errorf("attribute %d level %d: m %v / %v, u %v / %v", k, l, model.M[k][l], m[k][l], model.U[k][l], u[k][l])
			}
		}
	}
}

// sharedPRL loads original.csv and masked/<file>.csv of a shared data set as a PRL problem
// with band rules at the given quantiles (row order is the true link).
func sharedPRL(root, file string, quantiles []float64) (PRLProblem, error) {
	load := func(path string) ([][]float64, error) {
		tab, err := datasets.Load(path, datasets.LoadOptions{})
		if err != nil {
			return nil, err
		}
		z, err := datasets.Standardize(tab, datasets.StandardizeOptions{})
		if err != nil {
			return nil, err
		}
		return z.Table.NumericMatrix()
	}
	o, err := load(filepath.Join(root, "original.csv"))
	if err != nil {
		return PRLProblem{}, err
	}
	m, err := load(filepath.Join(root, "masked", file+".csv"))
	if err != nil {
		return PRLProblem{}, err
	}
	n := len(o[0])
	p := PRLProblem{TrueMasked: make([]int, n), TrueOriginal: make([]int, n)}
	for i := range n {
		p.TrueMasked[i], p.TrueOriginal[i] = i, i
	}
	for k := range o {
		p.Attributes = append(p.Attributes, PRLAttribute{Name: string(rune('A' + k)), Rule: Rule{Kind: RuleBands, Quantiles: quantiles},
			Original: o[k], Masked: m[k]})
	}
	return p, nil
}

// TestAssignBruteForce: the sparse successive-shortest-path assignment reaches the
// maximum total weight found by enumerating every injective map, on random small cases
// with many ties and with missing arcs; its dual is feasible.
func TestAssignBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		rows := 1 + rng.IntN(6)
		cols := rows + rng.IntN(3)
		density := 0.5
		if trial%2 == 0 {
			density = 1
		}
		arcs, w := randomArcs(rng, rows, cols, density, -3, 3)
		links, best := bruteAssign(rows, cols, func(i, j int) (int64, bool) { return w[i][j], w[i][j] != math.MinInt64 })
		feasible := links == rows
		match, u, v, ok := assignMax(rows, cols, arcs, nil)
		if ok != feasible {
			t.Fatalf("trial %d: ok %v, brute force feasible %v", trial, ok, feasible)
		}
		if !ok {
			continue
		}
		var total int64
		seen := map[int]bool{}
		for i, j := range match {
			if seen[j] || w[i][j] == math.MinInt64 {
				t.Fatalf("trial %d: not a matching on the arcs: %v", trial, match)
			}
			seen[j] = true
			total += w[i][j]
		}
		if total != best {
			t.Fatalf("trial %d: total %d, brute force %d (%v)", trial, total, best, w)
		}
		if !dualFeasible(arcs, u, v) {
			t.Fatalf("trial %d: dual infeasible", trial)
		}
	}
}

// TestAssignCapacityBruteForce: with column capacities, assignMax's total equals the
// brute-force matching on the columns' copies (each column repeated capacity times),
// no column takes more rows than its capacity, and the dual is feasible with v_j = 0 on
// every column that has room.
func TestAssignCapacityBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 3000 {
		rows := 1 + rng.IntN(6)
		cols := 1 + rng.IntN(4)
		capacity := make([]int, cols)
		var copyOf []int
		for j := range capacity {
			capacity[j] = 1 + rng.IntN(3)
			for range capacity[j] {
				copyOf = append(copyOf, j)
			}
		}
		if len(copyOf) < rows {
			continue
		}
		density := 0.6
		if trial%2 == 0 {
			density = 1
		}
		arcs, w := randomArcs(rng, rows, cols, density, -3, 3)
		links, best := bruteAssign(rows, len(copyOf), func(i, c int) (int64, bool) {
			x := w[i][copyOf[c]]
			return x, x != math.MinInt64
		})
		match, u, v, ok := assignMax(rows, cols, arcs, capacity)
		if ok != (links == rows) {
			t.Fatalf("trial %d: ok %v, brute force assigns %d of %d rows", trial, ok, links, rows)
		}
		if !ok {
			continue
		}
		var total int64
		load := make([]int, cols)
		for i, j := range match {
			if w[i][j] == math.MinInt64 {
				t.Fatalf("trial %d: row %d on column %d without an arc", trial, i, j)
			}
			load[j]++
			total += w[i][j]
		}
		if total != best {
			t.Fatalf("trial %d: total %d, brute force on the copies %d", trial, total, best)
		}
		for j := range cols {
			if load[j] > capacity[j] || (load[j] < capacity[j] && v[j] != 0) {
				t.Fatalf("trial %d: column %d takes %d rows of %d, v = %d", trial, j, load[j], capacity[j], v[j])
			}
		}
		if !dualFeasible(arcs, u, v) {
			t.Fatalf("trial %d: dual infeasible", trial)
		}
	}
}

// randomArcs draws a rows×cols assignment instance: each arc present with probability
// density (no draw when density is 1), of integer weight uniform in [lo, hi]; w[i][j]
// is the weight, math.MinInt64 where there is no arc.
func randomArcs(rng *rand.Rand, rows, cols int, density float64, lo, hi int) ([][]arc, [][]int64) {
	arcs := make([][]arc, rows)
	w := make([][]int64, rows)
	for i := range rows {
		w[i] = make([]int64, cols)
		for j := range cols {
			w[i][j] = math.MinInt64
			if density >= 1 || rng.Float64() < density {
				w[i][j] = int64(rng.IntN(hi-lo+1) + lo)
				arcs[i] = append(arcs[i], arc{int32(j), w[i][j]})
			}
		}
	}
	return arcs, w
}

// bruteAssign enumerates every partial injective map of rows to cols over the arcs that
// arc reports (ok false: no arc) and returns the lexicographic maximum of (links, total
// weight). A complete assignment exists when links == rows, and total is then the
// largest total weight of one.
func bruteAssign(rows, cols int, arc func(i, j int) (int64, bool)) (links int, total int64) {
	links, total = -1, math.MinInt64
	used := make([]bool, cols)
	var rec func(i, n int, s int64)
	rec = func(i, n int, s int64) {
		if i == rows {
			if n > links || (n == links && s > total) {
				links, total = n, s
			}
			return
		}
		rec(i+1, n, s) // row i unassigned
		for j := range cols {
			if w, ok := arc(i, j); ok && !used[j] {
				used[j] = true
				rec(i+1, n+1, s+w)
				used[j] = false
			}
		}
	}
	rec(0, 0, 0)
	return links, total
}

// dualFeasible reports whether u, v certify an assignment's optimality bound: u_i + v_j ≥
// w on every arc and v ≥ 0.
func dualFeasible(arcs [][]arc, u, v []int64) bool {
	for i := range arcs {
		for _, a := range arcs[i] {
			if u[i]+v[a.j] < a.w || v[a.j] < 0 {
				return false
			}
		}
	}
	return true
}

// TestPRLAssignmentOptimal: on small random problems the PRL assignment (top-k candidates,
// certificate, doubling) reaches the brute-force maximum total (rounded) weight.
func TestPRLAssignmentOptimal(t *testing.T) {
	for seed := range uint64(20) {
		p := randomPRL(seed, 7, false)
		p.Attributes[0].Rule.Quantiles = []float64{0.2, 0.5}
		res, err := PRL(p, PRLSettings{TopK: 1})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := newComparator(&p, 1)
		lw := levelWeights(res.Model)
		W := func(i, j int) int64 { return c.intWeight(c.pairCode(i, j), lw) }
		n := c.nq
		best := int64(math.MinInt64)
		permutations(n, func(perm []int) {
			var s int64
			for i, j := range perm {
				s += W(i, j)
			}
			best = max(best, s)
		})
		var got int64
		for i, r := range res.Records {
			got += W(i, r.Assigned)
		}
		if got != best {
			t.Errorf("seed %d: assignment total %d, brute force %d (%s)", seed, got, best, res.Modes[2].Status)
		}
	}
}

// permutations calls f with every permutation of 0 … n−1 (f must not keep it).
func permutations(n int, f func(perm []int)) {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			f(perm)
			return
		}
		for x := k; x < n; x++ {
			perm[k], perm[x] = perm[x], perm[k]
			rec(k + 1)
			perm[k], perm[x] = perm[x], perm[k]
		}
	}
	rec(0)
}

// TestPRLThreads: the whole result is the same for any number of goroutines.
func TestPRLThreads(t *testing.T) {
	p := randomPRL(9, 400, true)
	var first *PRLResult
	for _, th := range []int{1, 2, 5} {
		r, err := PRL(p, PRLSettings{Threads: th})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = r
		} else if fmt.Sprint(first.Records) != fmt.Sprint(r.Records) || !reflect.DeepEqual(first.Modes, r.Modes) || !reflect.DeepEqual(first.Model, r.Model) {
			t.Fatalf("threads %d: different result", th)
		}
	}
}

// TestEMSameBitsOnAnyThreads: the E-step sums its patterns in fixed chunks, in order, so
// EM's answer is the same bits whatever the number of cores (a table of 10,000 patterns,
// three chunks; a missing level among them).
func TestEMSameBitsOnAnyThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const K = 8
	tab := PatternTable{Levels: []int{3, 3, 3, 3, 2, 2, 4, 3}}
	seen := map[string]bool{}
	for len(tab.Count) < 10_000 {
		pat := make([]int8, K)
		for k := range K {
			pat[k] = int8(rng.IntN(tab.Levels[k]+1)) - 1 // −1: missing
		}
		if seen[fmt.Sprint(pat)] {
			continue
		}
		seen[fmt.Sprint(pat)] = true
		tab.Pattern = append(tab.Pattern, pat...)
		tab.Count = append(tab.Count, float64(1+rng.IntN(50)))
	}
	var first EMResult
	for x, th := range []int{1, 2, 5} {
		r, err := EM(tab, EMSettings{P: 0.01, EstimateP: true, MaxIterations: 30, Threads: th})
		if err != nil {
			t.Fatal(err)
		}
		if x == 0 {
			first = r
		} else if !reflect.DeepEqual(first, r) {
			t.Fatalf("threads %d: %+v, threads 1: %+v", th, r, first)
		}
	}
	if first.Iterations < 2 {
		t.Fatalf("%d iterations: the case is not exercised", first.Iterations)
	}
}

// TestEMStartShape: a start whose rows do not have the attributes' numbers of levels is
// ErrShapePRL (the flat E-step would read it into the next attribute's levels).
func TestEMStartShape(t *testing.T) {
	tab := PatternTable{Levels: []int{2, 3}, Pattern: []int8{0, 0, 1, 2}, Count: []float64{5, 50}}
	good := [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5}}
	for _, bad := range [][][]float64{
		{{0.2, 0.3, 0.5}, {0.5, 0.5}},     // rows swapped
		{{0.5, 0.5}},                      // an attribute short
		{{0.5, 0.5}, {0.2, 0.3, 0.4, .1}}, // a level too many
	} {
		if _, err := EM(tab, EMSettings{P: 0.1, StartM: bad, StartU: good}); !errors.Is(err, ErrShapePRL) {
			t.Errorf("StartM %v: err %v", bad, err)
		}
		if _, err := EM(tab, EMSettings{P: 0.1, StartM: good, StartU: bad}); !errors.Is(err, ErrShapePRL) {
			t.Errorf("StartU %v: err %v", bad, err)
		}
	}
	if _, err := EM(tab, EMSettings{P: 0.1, StartM: good, StartU: good}); err != nil {
		t.Errorf("a start of the right shape: %v", err)
	}
}

// TestFSThresholds: a hand example. Weights 5, 3, 1, −2 with u-masses .001, .01, .1, .889
// and m-masses .6, .3, .08, .02: μ = 0.011 admits the first two patterns (u-mass .011), so
// the upper threshold is 3; λ = 0.05 admits the last pattern (m-mass .02), lower = −2.
func TestFSThresholds(t *testing.T) {
	th, err := FSThresholds([]float64{1, 5, -2, 3}, []float64{.08, .6, .02, .3}, []float64{.1, .001, .889, .01}, 0.011, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if th.Upper != 3 || th.Lower != -2 || math.Abs(th.MuAchieved-0.011) > 1e-15 || th.LambdaAchieved != 0.02 {
		t.Errorf("%+v", th)
	}
	th, _ = FSThresholds([]float64{1, 5, -2, 3}, []float64{.08, .6, .02, .3}, []float64{.1, .001, .889, .01}, 0, 0)
	if !math.IsInf(th.Upper, 1) || !math.IsInf(th.Lower, -1) {
		t.Errorf("empty sets: %+v", th)
	}
}

// TestSharedFilesPRL runs the whole PRL on CENSUS with additive noise (10 %). The floors
// are regression checks set below this implementation's first results (best-weight Reid
// 0.658 unsupervised, 0.912 supervised); the assignment must be certified optimal.
func TestSharedFilesPRL(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "datasets", "census")
	p, err := sharedPRL(root, "noise_additive_10", []float64{0.01, 0.1})
	if err != nil {
		t.Skipf("CENSUS not available at %s (%v): skipping", root, err)
	}
	for _, c := range []struct {
		supervised bool
		floor      float64
	}{{false, 0.6}, {true, 0.85}} {
		r, err := PRL(p, PRLSettings{Supervised: c.supervised})
		if err != nil {
			t.Fatal(err)
		}
		if r.Measures.Reid < c.floor || r.Modes[1].Reid != r.Measures.Reid {
			t.Errorf("supervised %v: Reid %v (best mode %v), want ≥ %v", c.supervised, r.Measures.Reid, r.Modes[1].Reid, c.floor)
		}
		if !strings.HasPrefix(r.Modes[2].Status, "optimal over all") {
			t.Errorf("assignment: %s", r.Modes[2].Status)
		}
		t.Logf("supervised %v: %d patterns, %d iterations, thresholds %+v", c.supervised, len(r.Patterns.Codes), r.Model.Iterations, r.Thresholds)
		for _, m := range r.Modes {
			t.Logf("  %+v", m)
		}
	}
}

// TestEMStrictFirstBand: 30 noisy numeric attributes (values to three decimals) with bands
// at the 1 % and 10 % quantiles of |Δz|. The true pairs (noise sd 0.3) sit mostly in the
// second band, while the geometric start presumes the first: from it alone EM ended in a
// "match" class of pairs that disagree on everything, then swapped (m of the second
// level 0.09 against 0.43 supervised). With the closest pairs as a second start, the fit
// is not label-switched, its m is within 0.05 of the supervised m (the share of true
// pairs at each level) on every attribute, and most records are linked.
func TestEMStrictFirstBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	const n, m = 1000, 30
	p := PRLProblem{TrueMasked: identityInts(n), TrueOriginal: identityInts(n), Direction: MaskedToOriginal}
	for k := range m {
		a := PRLAttribute{Name: fmt.Sprint(k), Rule: Rule{Kind: RuleBands, Quantiles: []float64{0.01, 0.1}},
			Original: make([]float64, n), Masked: make([]float64, n)}
		for i := range n {
			a.Original[i] = math.Round(rng.NormFloat64()*1000) / 1000
			a.Masked[i] = math.Round((a.Original[i]+0.3*rng.NormFloat64())*1000) / 1000
		}
		p.Attributes = append(p.Attributes, a)
	}
	em, err := PRL(p, PRLSettings{NoAssignment: true})
	if err != nil {
		t.Fatal(err)
	}
	sup, err := PRL(p, PRLSettings{Supervised: true, NoAssignment: true})
	if err != nil {
		t.Fatal(err)
	}
	if em.Model.LabelSwitched {
		t.Errorf("label switched: %s", em.Model.Warning)
	}
	for k := range m {
		for l, want := range sup.Model.M[k] {
			if got := em.Model.M[k][l]; math.Abs(got-want) > 0.05 {
				t.Fatalf("attribute %d level %d: m %.4f, supervised %.4f", k, l, got, want)
			}
		}
	}
	if em.Measures.Reid < 0.5 {
		t.Errorf("best-weight Reid %.3f (supervised %.3f)", em.Measures.Reid, sup.Measures.Reid)
	}
}

// TestEMBetterFit: of EM's two fits, the second replaces the first only when the guard
// oriented it and not the first, or when its log-likelihood is higher by more than the
// convergence tolerance relative to the first's (here 1e-12 of 1e6 = 1e-6): a difference
// of rounding between two stops near one maximum keeps the first.
func TestEMBetterFit(t *testing.T) {
	fit := func(ll float64, warning string) EMResult { return EMResult{LogLikelihood: ll, Warning: warning} }
	for _, c := range []struct {
		name string
		c, r EMResult
		tol  float64
		want bool
	}{
		{"rounding apart", fit(-1e6+2e-8, ""), fit(-1e6, ""), 0, false},
		{"just within the tolerance", fit(-1e6+0.9e-6, ""), fit(-1e6, ""), 0, false},
		{"beyond the tolerance", fit(-1e6+1.1e-6, ""), fit(-1e6, ""), 0, true},
		{"a looser tolerance", fit(-1e6+1.1e-6, ""), fit(-1e6, ""), 1e-9, false},
		{"lower", fit(-1e6-1, ""), fit(-1e6, ""), 0, false},
		{"oriented over unoriented", fit(-2e6, ""), fit(-1e6, "w"), 0, true},
		{"unoriented over oriented", fit(-1, "w"), fit(-1e6, ""), 0, false},
	} {
		if got := better(c.c, c.r, c.tol); got != c.want {
			t.Errorf("%s: better = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestQuantileCutNotNegativeZero: values written as -0 (numpy's round of small negatives)
// beside 0 have a difference of −0; a cut of 0 is reported as 0, not -0, on either of
// the quantile search's paths (few pairs: sorted at once; many: bisected first).
func TestQuantileCutNotNegativeZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, n := range []int{10, 200} {
		p := randomPRL(9, n, false)
		a := &p.Attributes[0]
		for i := range n {
			// Most pairs differ by exactly 0: every original is 0 and most masked values -0.
			a.Original[i], a.Masked[i] = 0, negZero
			if i%10 == 0 {
				a.Masked[i] = float64(i%3 + 1)
			}
		}
		a.Rule = Rule{Kind: RuleBands, Quantiles: []float64{0.5}}
		c, err := newComparator(&p, 1)
		if err != nil {
			t.Fatal(err)
		}
		if cut := c.attrs[0].cuts[0]; cut != 0 || math.Signbit(cut) {
			t.Errorf("%d records: cut %v (sign bit %v), want 0", n, cut, math.Signbit(cut))
		}
	}
}
