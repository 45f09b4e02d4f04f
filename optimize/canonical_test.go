package optimize

import (
	"math"
	"slices"
	"testing"

	"github.com/reid-sdc/reid/optimize/clp"
)

// TestCanonicalTheta: two searches that take different paths to the same optimum (other
// seeds for the local search's kicks, other numbers of initial rows) ended on parameters
// that differed in their last bits (0.06725261608225876 and …880 on the first weight
// here); the parameters are now those of the largest smallest margin over the linked
// set's rows, the same bits for both, and they link the optimal number of records.
func TestCanonicalTheta(t *testing.T) {
	for _, f := range []Family{WM, OWA} {
		p := census(t, "noise_additive_50", 40)
		p.Family = f
		var first Result
		for x, s := range []Settings{{Seed: 1}, {Seed: 7, InitialRows: 1}} {
			r, err := Learn(p, s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != Optimal {
				t.Fatalf("%v: status %v", f, r.Status)
			}
			if x == 0 {
				first = r
				continue
			}
			if r.CorrectLinks != first.CorrectLinks {
				t.Fatalf("%v: %d and %d links", f, first.CorrectLinks, r.CorrectLinks)
			}
			for k := range r.Params {
				if math.Float64bits(r.Params[k]) != math.Float64bits(first.Params[k]) {
					t.Errorf("%v: parameter %d is %v and %v", f, k, first.Params[k], r.Params[k])
					break
				}
			}
		}
	}
}

// TestCanonicalThetaExactSet: given a set that is not optimal (the Euclidean distance's
// links), the canonical LP's θ links every record of the set (its margins are ≥ ε′) and
// may link more, in which case canonicalTheta returns nil, since a canonical answer must
// link exactly its set. Linking what that θ links, again and again, grows the set to one
// that its own θ links exactly: there canonicalTheta must answer, with that set.
func TestCanonicalThetaExactSet(t *testing.T) {
	for _, f := range []Family{WM, OWA} {
		p := census(t, "noise_additive_50", 40)
		p.Family = f
		sv := testSolver(t, p, DefaultEpsilon, 3)
		linked, n := sv.linkedSet(sv.bestTheta)
		for round := 0; ; round++ {
			if round == len(linked) {
				t.Fatalf("%v: the linked set still grows after %d rounds", f, round)
			}
			game := canonicalGame(sv.d, linked, sv.epsLP)
			if game == nil {
				t.Fatalf("%v: the canonical game of %d linked records did not end optimal", f, n)
			}
			sv.d.sp.project(game)
			got, m := sv.linkedSet(game)
			for i := range linked {
				if linked[i] && !got[i] {
					t.Fatalf("%v: the canonical game's θ loses record %d of the set", f, i)
				}
			}
			theta := sv.canonicalTheta(linked)
			if m == n {
				if theta == nil {
					t.Fatalf("%v: no canonical θ for the %d records its game's θ links exactly", f, n)
				}
				if exact, _ := sv.linkedSet(theta); !slices.Equal(exact, linked) {
					t.Errorf("%v: the canonical θ does not link exactly its set of %d", f, n)
				}
				if round == 0 {
					t.Logf("%v: the Euclidean set was closed already", f)
				}
				break
			}
			if theta != nil {
				t.Fatalf("%v: a canonical θ for %d records where its θ links %d", f, n, m)
			}
			linked, n = got, m
		}
	}
}

// TestCanonicalGameMaximin: the canonical θ's smallest margin over the linked set's rows is
// the optimum of the LP max t s.t. a·θ ≥ ε′ + t, θ on the simplex, as CLP solves it from
// the same rows (a second implementation of the LP the game solves as max_θ min_r).
func TestCanonicalGameMaximin(t *testing.T) {
	for _, tc := range []struct {
		file string
		n    int
		f    Family
	}{{"noise_additive_50", 40, WM}, {"noise_additive_50", 40, OWA}, {"mdav_k3", 60, WM}, {"rankswap_p15", 60, OWA}} {
		p := census(t, tc.file, tc.n)
		p.Family = tc.f
		sv := testSolver(t, p, DefaultEpsilon, 3)
		linked, _ := sv.linkedSet(sv.bestTheta)
		theta := canonicalGame(sv.d, linked, sv.epsLP)
		if theta == nil {
			t.Fatalf("%s %v: no θ", tc.file, tc.f)
		}
		got := math.Inf(1)
		ev := sv.d.sp.evaluator(sv.d, theta)
		for i := range sv.d.recs {
			if linked[i] {
				for _, v := range ev.margins(&sv.d.recs[i], nil) {
					got = min(got, v-sv.epsLP)
				}
			}
		}
		want := canonicalCLP(t, sv, linked)
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s %v: the game's smallest margin exceeds ε′ by %.12g, CLP's optimum by %.12g", tc.file, tc.f, got, want)
		}
	}
}

// canonicalCLP is the optimum t of the canonical LP by CLP: θ on the simplex, t ≥ 0
// free above, rows a·θ − t ≥ ε′ for every candidate row of every linked record.
func canonicalCLP(t *testing.T, sv *solver, linked []bool) float64 {
	sp := sv.d.sp
	lp := clp.New()
	defer lp.Close()
	lo, up := sp.bounds()
	n := len(lo)
	if err := lp.LoadProblem(0, make([]int, n+1), nil, nil, lo, up, make([]float64, n), nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range sp.rows() {
		if err := lp.AddRow(r.lo, r.up, r.idx, r.val); err != nil {
			t.Fatal(err)
		}
	}
	if err := lp.AddColumns([]float64{0}, []float64{math.Inf(1)}, []float64{-1}, []int{0, 0}, nil, nil); err != nil {
		t.Fatal(err)
	}
	var idx []int
	var val []float64
	for i := range sv.d.recs {
		if !linked[i] {
			continue
		}
		r := &sv.d.recs[i]
		for c := range r.ncand() {
			idx, val = sp.row(sv.d, r, c, idx[:0], val[:0])
			idx, val = append(idx, n), append(val, -1)
			if err := lp.AddRow(sv.epsLP, math.Inf(1), idx, val); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Unscaled: with CLP 1.17.6's default scaling its primal (and dual, and initial
	// solve) ended "optimal" at t = 0 on rankswap_p15's OWA rows, whose optimum is
	// 0.0253 (CBC on the model written as MPS, and CLP unscaled, agree).
	lp.SetScaling(0)
	if st := lp.Primal(); st != clp.Optimal {
		t.Fatalf("CLP: %v", st)
	}
	return lp.Solution(nil)[n]
}
