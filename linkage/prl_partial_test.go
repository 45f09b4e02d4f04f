package linkage

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestPRLAssignPartialHand: hand-solved partial assignments (match[i] = −1: unassigned). The
// most rows are assigned, then the largest total weight.
func TestPRLAssignPartialHand(t *testing.T) {
	type a = arc
	for _, c := range []struct {
		name  string
		cols  int
		arcs  [][]arc
		want  []int
		total int64
	}{
		// Two columns for three rows: of the six pairs of links, r0→c1 + r1→c0 = 4 + 4 is
		// the heaviest (r0→c0 + r2→c1 = 6, r0→c1 + r2→c0 = 7, r1→c0 + r2→c1 = 5).
		{"more rows than columns", 2, [][]arc{{a{0, 5}, a{1, 4}}, {a{0, 4}}, {a{0, 3}, a{1, 1}}}, []int{1, 0, -1}, 8},
		// Two links (10 − 5 = 5) beat one heavier link (10): links come first.
		{"cardinality first", 2, [][]arc{{a{0, 10}}, {a{0, 9}, a{1, -5}}}, []int{0, 1}, 5},
		{"row without candidates", 1, [][]arc{nil, {a{0, 2}}}, []int{-1, 0}, 2},
		// A complete assignment exists: the heavier of the two (1 + 5 against 3 + 2).
		{"complete", 2, [][]arc{{a{0, 1}, a{1, 3}}, {a{0, 2}, a{1, 5}}}, []int{0, 1}, 6},
		{"one column, negative weights", 1, [][]arc{{a{0, -3}}, {a{0, -1}}, {a{0, -2}}}, []int{-1, 0, -1}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			match, u, v := assignPartial(len(c.arcs), c.cols, c.arcs, nil, 10)
			if !slices.Equal(match, c.want) {
				t.Fatalf("match %v, want %v", match, c.want)
			}
			var total int64
			for i, j := range match {
				for _, x := range c.arcs[i] {
					if j >= 0 && int(x.j) == j {
						total += x.w
					}
				}
			}
			if total != c.total {
				t.Errorf("total %d, want %d", total, c.total)
			}
			if len(v) != c.cols {
				t.Errorf("%d column duals for %d columns", len(v), c.cols)
			}
			if !dualFeasible(c.arcs, u, v) {
				t.Error("dual infeasible")
			}
		})
	}
}

// TestPRLAssignPartialBruteForce: assignPartial reaches the lexicographic maximum (links,
// total weight) found by enumerating every partial injective map, on random small cases
// with more rows than columns, missing arcs and ties; its dual is feasible.
func TestPRLAssignPartialBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 3000 {
		rows := 1 + rng.IntN(6)
		cols := 1 + rng.IntN(6)
		arcs, w := randomArcs(rng, rows, cols, 0.6, -4, 4)
		bestN, bestW := bruteAssign(rows, cols, func(i, j int) (int64, bool) { return w[i][j], w[i][j] != math.MinInt64 })
		match, u, v := assignPartial(rows, cols, arcs, nil, 4)
		n, total := 0, int64(0)
		seen := map[int]bool{}
		for i, j := range match {
			if j < 0 {
				continue
			}
			if seen[j] || w[i][j] == math.MinInt64 {
				t.Fatalf("trial %d: not a matching on the arcs: %v", trial, match)
			}
			seen[j] = true
			n++
			total += w[i][j]
		}
		if n != bestN || total != bestW {
			t.Fatalf("trial %d: %d links of total %d, brute force %d of %d (%v)", trial, n, total, bestN, bestW, w)
		}
		if !dualFeasible(arcs, u, v) {
			t.Fatalf("trial %d: dual infeasible", trial)
		}
	}
}

// oneAttrProblem: one numeric attribute compared by bands at |Δ| 0.1 and 0.5; the masked
// record j's true original is truth[j] (−1: none), and the original's true masked record
// follows.
func oneAttrProblem(orig, masked []float64, truth []int, ob, mb []int) PRLProblem {
	p := PRLProblem{TrueMasked: make([]int, len(orig)), TrueOriginal: truth, OriginalBlock: ob, MaskedBlock: mb,
		Attributes: []PRLAttribute{{Name: "x", Rule: Rule{Kind: RuleBands, Thresholds: []float64{0.1, 0.5}}, Original: orig, Masked: masked}}}
	for i := range p.TrueMasked {
		p.TrueMasked[i] = -1
	}
	for j, i := range truth {
		if i >= 0 {
			p.TrueMasked[i] = j
		}
	}
	return p
}

// TestPRLAssignmentUnequalBlocks: blocks of unequal sizes in the two files (a record whose
// block changed in masking) leave no complete one-to-one assignment; the assignment links
// as many records as it can instead of reporting nothing.
//
// Originals x = 0, 10 (block 0) and 20, 30 (block 1); the masked records are the same
// values, but masked record 1 moved to block 1. Compared pairs: block 0 m0–o0 (level 0,
// true), m0–o1; block 1 m1–o2, m1–o3, m2–o2 (true), m2–o3, m3–o2, m3–o3 (true): 8 pairs,
// 3 true, all false ones at level 2 (|Δ| ≥ 10). Supervised m = (1, 0, 0) and u = (0, 0, 1)
// floored to 10⁻⁶: weights ±log2(10⁶). Block 1 has three masked records for two originals:
// the heaviest assignment takes m2→o2 and m3→o3 (+log2 10⁶ each) and leaves m1 out; with
// m0→o0, 3 of the 4 records are re-identified.
func TestPRLAssignmentUnequalBlocks(t *testing.T) {
	p := oneAttrProblem([]float64{0, 10, 20, 30}, []float64{0, 10, 20, 30}, []int{0, 1, 2, 3}, []int{0, 0, 1, 1}, []int{0, 1, 1, 1})
	res, err := PRL(p, PRLSettings{Supervised: true, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Patterns.Pairs != 8 || res.Patterns.TruePairs != 3 {
		t.Fatalf("%d pairs, %d true", res.Patterns.Pairs, res.Patterns.TruePairs)
	}
	as := res.Modes[2]
	if as.Mode != ModeAssignment || as.Unavailable || as.Reid != 0.75 || as.Correct != 3 || as.Chosen != 3 || as.Unassigned != 1 {
		t.Errorf("assignment %+v, want Reid 0.75, 3 correct of 3 chosen, 1 unassigned", as)
	}
	if !strings.HasPrefix(as.Status, "optimal over all compared pairs") {
		t.Errorf("status %q", as.Status)
	}
	var got []int
	for _, r := range res.Records {
		got = append(got, r.Assigned)
	}
	if !slices.Equal(got, []int{0, -1, 2, 3}) {
		t.Errorf("assigned %v, want [0 -1 2 3]", got)
	}
}

// TestPRLAssignmentMoreQueries: more masked records than originals (no blocking): three
// masked records 0, 10, 20 for originals 0 and 20 (truth m0→o0, m2→o1, m1 none). Pairs at
// level 0: m0–o0 and m2–o1 (true); the others are at level 2. The assignment gives o0 to
// m0 and o1 to m2 and leaves m1 out: both records with a partner are re-identified.
func TestPRLAssignmentMoreQueries(t *testing.T) {
	p := oneAttrProblem([]float64{0, 20}, []float64{0, 10, 20}, []int{0, -1, 1}, nil, nil)
	res, err := PRL(p, PRLSettings{Supervised: true, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	as := res.Modes[2]
	if as.Unavailable || as.Reid != 1 || as.Correct != 2 || as.Unassigned != 1 {
		t.Errorf("assignment %+v, want Reid 1, 2 correct, 1 unassigned", as)
	}
}

// TestPRLZeroErrorRates: μ = 0 and λ = 0 are honoured with ErrorRatesGiven. Supervised on
// three records agreeing exactly with their partners (x = 0, 10, 20): the 3 true pairs are
// at level 0, the 6 false ones at level 2; m = (1, 0, 0) and u = (0, 0, 1) floored to 10⁻⁶
// give weights ±log2(10⁶). The level-0 pattern has no false pair (u-mass 0), so μ = 0
// still admits it: upper = log2(10⁶); the level-2 pattern has no true pair, lower =
// −log2(10⁶). Under EM every pattern has u- and m-mass > 0, so μ = 0 leaves no link
// (upper +∞) and λ = 0 no non-link (lower −∞). Without ErrorRatesGiven, 0 means the
// defaults 1e-5 and 0.05.
func TestPRLZeroErrorRates(t *testing.T) {
	p := oneAttrProblem([]float64{0, 10, 20}, []float64{0, 10, 20}, []int{0, 1, 2}, nil, nil)
	w := math.Log2(1e6)
	inf := math.Inf(1)
	for _, c := range []struct {
		name             string
		s                PRLSettings
		mu, lambda       float64
		upper, lower     float64
		muAch, lambdaAch float64
		thresholdLinks   int
	}{
		{"supervised μ = λ = 0", PRLSettings{Supervised: true, ErrorRatesGiven: true}, 0, 0, w, -w, 0, 0, 3},
		{"EM μ = 0", PRLSettings{ErrorRatesGiven: true, Lambda: 0.05}, 0, 0.05, inf, math.NaN(), 0, math.NaN(), 0},
		{"EM λ = 0", PRLSettings{ErrorRatesGiven: true, Mu: 0.5}, 0.5, 0, math.NaN(), -inf, math.NaN(), 0, -1},
		{"defaults", PRLSettings{Supervised: true}, 1e-5, 0.05, w, -w, 0, 0, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.s.Threads = 1
			res, err := PRL(p, c.s)
			if err != nil {
				t.Fatal(err)
			}
			th := res.Thresholds
			same := func(got, want float64) bool { return math.IsNaN(want) || math.Abs(got-want) < 1e-9 || got == want }
			if th.Mu != c.mu || th.Lambda != c.lambda || !same(th.Upper, c.upper) || !same(th.Lower, c.lower) ||
				!same(th.MuAchieved, c.muAch) || !same(th.LambdaAchieved, c.lambdaAch) {
				t.Errorf("thresholds %+v, want μ %v λ %v upper %v lower %v", th, c.mu, c.lambda, c.upper, c.lower)
			}
			if c.thresholdLinks >= 0 && res.Modes[0].Links != c.thresholdLinks {
				t.Errorf("%d threshold links, want %d", res.Modes[0].Links, c.thresholdLinks)
			}
		})
	}
}

// TestPRLClassMassesStrongPattern: a pattern whose posterior rounds to 1 still has its
// positive u-mass, so that μ = 0 does not make it a link. Four attributes with m/u = 10⁶
// at agreement and p = 1/2: g = 1/(1 + 10⁻²⁴), 1 − g ≈ 10⁻²⁴ (exactly 10⁻²⁴/(1+10⁻²⁴)).
func TestPRLClassMassesStrongPattern(t *testing.T) {
	tab := PatternTable{Levels: []int{2, 2, 2, 2}, Pattern: []int8{0, 0, 0, 0, 1, 1, 1, 1}, Count: []float64{1, 1}}
	m, u := make([][]float64, 4), make([][]float64, 4)
	for k := range 4 {
		m[k] = []float64{1e6 / (1e6 + 1), 1 / (1e6 + 1)}
		u[k] = []float64{1 / (1e6 + 1), 1e6 / (1e6 + 1)}
	}
	_, uMass := classMasses(tab, EMResult{M: m, U: u, P: 0.5}, nil)
	if want := 1e-24; math.Abs(uMass[0]-want) > 1e-6*want {
		t.Errorf("u-mass of the agreeing pattern %v, want %v", uMass[0], want)
	}
	th, _ := FSThresholds([]float64{4 * math.Log2(1e6), -4 * math.Log2(1e6)}, []float64{1, 0}, uMass, 0, 0.05)
	if !math.IsInf(th.Upper, 1) {
		t.Errorf("μ = 0: upper %v, want +Inf", th.Upper)
	}
}

// TestPRLPasses: every pass over the pairs is announced and its progress adds up to the
// number of query records (so a progress display never passes 100 %); the passes are the
// count, the weighing, one per doubling of the candidates (TopK 1 → res.TopK) and one
// per pricing round of the assignment.
func TestPRLPasses(t *testing.T) {
	priced := 0
	for seed := range uint64(5) {
		p := randomPRL(seed, 7, false)
		p.Attributes[0].Rule.Quantiles = []float64{0.2, 0.5}
		var passes []int
		var done []int
		var mu sync.Mutex
		res, err := PRL(p, PRLSettings{TopK: 1, Threads: 2,
			Pass: func(n int, what string) { passes = append(passes, n); done = append(done, 0) },
			Progress: func(r int) { // called by concurrent goroutines
				mu.Lock()
				defer mu.Unlock()
				if len(done) == 0 {
					t.Error("progress before any pass was announced")
					return
				}
				done[len(done)-1] += r
			}})
		if err != nil {
			t.Fatal(err)
		}
		doublings := 0
		for k := 1; k < res.TopK; k *= 2 {
			doublings++
		}
		priced += res.PricingRounds
		if len(passes) != 2+doublings+res.PricingRounds {
			t.Errorf("seed %d: passes %v, want %d (top %d, %d pricing rounds)", seed, passes, 2+doublings+res.PricingRounds, res.TopK, res.PricingRounds)
		}
		for x, n := range passes {
			if n != x+1 || done[x] != 7 {
				t.Errorf("seed %d: pass %d (#%d) counted %d records, want 7", seed, n, x+1, done[x])
			}
		}
	}
	// The pricing rounds' passes are counted from what PRL reports: some seed must have
	// them, or the count above checks nothing of them.
	if priced == 0 {
		t.Error("no seed's assignment had a pricing round")
	}
}

// TestPRLBlockingErrors: a blocking that leaves no pair, only true pairs, no true pair,
// or too few pairs for an attribute's quantiles is a BlockingError with its counts.
func TestPRLBlockingErrors(t *testing.T) {
	for _, c := range []struct {
		name        string
		p           PRLProblem
		reason      string
		pairs, true uint64
	}{
		{"disjoint keys", oneAttrProblem([]float64{0, 1}, []float64{0, 1}, []int{0, 1}, []int{0, 1}, []int{2, 3}),
			"no pair to compare", 0, 0},
		{"one record a block", oneAttrProblem([]float64{0, 1}, []float64{0, 1}, []int{0, 1}, []int{0, 1}, []int{0, 1}),
			"only true pairs to compare", 2, 2},
		{"true pairs split", oneAttrProblem([]float64{0, 1}, []float64{0, 1}, []int{0, 1}, []int{0, 1}, []int{1, 0}),
			"no true pair to compare", 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := PRL(c.p, PRLSettings{})
			var be *BlockingError
			if !errors.As(err, &be) || !strings.HasPrefix(be.Reason, c.reason) || be.Pairs != c.pairs || be.TruePairs != c.true {
				t.Errorf("error %v, want a blocking error %q with %d pairs, %d true", err, c.reason, c.pairs, c.true)
			}
		})
	}
	// Quantiles: the 5 blocked pairs (block 0: x = 1 everywhere, 4 pairs; block 1: 3 – 3)
	// all have |Δ| = 0, so the quantiles 0.3 and 0.6 are both 0; over all 9 pairs (4 more
	// with |Δ| = 2) they are 0 (3rd smallest) and 2 (6th): the blocking is at fault.
	p := oneAttrProblem([]float64{1, 1, 3}, []float64{1, 1, 3}, []int{0, 1, 2}, []int{0, 0, 1}, []int{0, 0, 1})
	p.Attributes[0].Rule = Rule{Kind: RuleBands, Quantiles: []float64{0.3, 0.6}}
	_, err := PRL(p, PRLSettings{})
	var be *BlockingError
	if !errors.As(err, &be) || !strings.Contains(be.Reason, `too few pairs with values of attribute "x"`) || be.Pairs != 5 || be.TruePairs != 3 {
		t.Errorf("quantiles: %v", err)
	}
	p.OriginalBlock, p.MaskedBlock = nil, nil
	if res, err := PRL(p, PRLSettings{}); err != nil || !slices.Equal(res.Cuts[0], []float64{0, 2}) {
		t.Errorf("without blocking: cuts %v, %v", res.Cuts, err)
	}
}

// TestPRLEstimatePWarning: a and b are both the record's group (two groups), so they
// agree together on half of the pairs; c agrees only on the true pairs. The patterns are
// (a, b, c agree) 40 pairs, (a, b agree, c not) 760 and (nothing agrees) 800: the
// two-class model fits them exactly with the classes "same group" (p = 1/2) and "other
// group", which EM with p estimated finds instead of the matches. At most 40 of the 1600
// pairs are matches, so p = 1/2 is far above the largest possible share, 40/1600 = 0.025,
// and is reported; with p fixed there is nothing to report.
func TestPRLEstimatePWarning(t *testing.T) {
	const n = 40
	p := oneAttrProblem(make([]float64, n), make([]float64, n), make([]int, n), nil, nil)
	for i := range n {
		p.TrueOriginal[i], p.TrueMasked[i] = i, i
		p.Attributes[0].Original[i], p.Attributes[0].Masked[i] = float64(i), float64(i)
	}
	for _, name := range []string{"a", "b"} {
		a := PRLAttribute{Name: name, Rule: Rule{Kind: RuleEqual}, Original: make([]float64, n), Masked: make([]float64, n)}
		for i := range n {
			a.Original[i], a.Masked[i] = float64(i%2), float64(i%2)
		}
		p.Attributes = append(p.Attributes, a)
	}
	res, err := PRL(p, PRLSettings{EstimateP: true, NoAssignment: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Model.P-0.5) > 1e-3 || res.Model.LabelSwitched || !strings.Contains(res.Model.Warning, "more than twice the largest possible, 0.025") {
		t.Errorf("p %v, label switched %v, warning %q", res.Model.P, res.Model.LabelSwitched, res.Model.Warning)
	}
	res, err = PRL(p, PRLSettings{NoAssignment: true})
	if err != nil || strings.Contains(res.Model.Warning, "largest possible") {
		t.Errorf("fixed p: %v, %q", err, res.Model.Warning)
	}
}

// TestPRLPartialAssignmentOptimal: with blocks of unequal sizes (randomPRL moves a tenth
// of the masked records to another block), the PRL assignment from one candidate per
// record (certificate, doubling) links as many records as any one-to-one assignment over
// the compared pairs and, among those, reaches the brute-force maximum rounded weight.
func TestPRLPartialAssignmentOptimal(t *testing.T) {
	partial := 0
	for seed := range uint64(40) {
		p := randomPRL(seed, 8, true)
		p.Attributes[0].Rule.Quantiles = []float64{0.2, 0.5}
		res, err := PRL(p, PRLSettings{TopK: 1, Threads: 1})
		if err != nil {
			var be *BlockingError
			if errors.As(err, &be) {
				continue
			}
			t.Fatal(err)
		}
		c, _ := newComparator(&p, 1)
		lw := levelWeights(res.Model)
		W := func(i, j int) int64 { return c.intWeight(c.pairCode(i, j), lw) }
		candidate := make([]map[int]bool, c.nq)
		for i := range c.nq {
			candidate[i] = map[int]bool{}
			for _, ti := range c.tilesOf(i) {
				for _, j := range c.tiles[ti].refs {
					candidate[i][int(j)] = true
				}
			}
		}
		bestN, bestW := bruteAssign(c.nq, c.nr, func(i, j int) (int64, bool) {
			if !candidate[i][j] {
				return 0, false
			}
			return W(i, j), true
		})
		n, got := 0, int64(0)
		for i, r := range res.Records {
			if r.Assigned >= 0 {
				n++
				got += W(i, r.Assigned)
			}
		}
		if n < c.nq {
			partial++
		}
		if as := res.Modes[2]; n != bestN || got != bestW || as.Chosen != n || as.Unassigned != c.nq-n {
			t.Errorf("seed %d: %d links of weight %d, brute force %d of %d (%+v)", seed, n, got, bestN, bestW, as)
		}
	}
	t.Logf("%d of 40 cases without a complete assignment", partial)
	if partial == 0 {
		t.Error("no case without a complete assignment")
	}
}
