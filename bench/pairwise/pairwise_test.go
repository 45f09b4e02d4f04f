package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/reid-sdc/reid/distances"
)

// TestAgreementSmoke checks the harness's own agreement logic on 500 × 500 records: a
// brute-force direct-form argmin agrees with Search everywhere, a tie broken the other way
// is classified as a tie, and a wrong index as the peer's error.
func TestAgreementSmoke(t *testing.T) {
	const n, d = 500, 13
	data := generate(n, n, d, 7, 0.3)
	// Reference 1 duplicates reference 0, so queries nearest to 0 are tied with 1.
	for k := 0; k < d; k++ {
		data.refs[k][1] = data.refs[k][0]
	}
	res, err := distances.Search(data.queries, data.refs, data.truth, distances.NewEuclidean(d), distances.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	brute := make([]int, n)
	for i := range brute {
		best := math.Inf(1)
		for j := 0; j < n; j++ {
			if dd := direct(data, i, j); dd < best {
				best, brute[i] = dd, j
			}
		}
	}
	if a := compareNearest(data, res, brute); a.disagree != 0 {
		t.Fatalf("brute force vs Search: %+v", a)
	}
	tied := -1
	for i, r := range res {
		if r.Nearest == 0 {
			tied = i
			if r.Ties < 2 {
				t.Fatalf("query %d: nearest 0 with %d ties, want the duplicate 1 tied", i, r.Ties)
			}
		}
	}
	if tied < 0 {
		t.Fatal("no query has reference 0 as its nearest")
	}
	// For another query, the peer names its farthest reference.
	wrong := (tied + 1) % n
	farthest, far := 0, -1.0
	for j := 0; j < n; j++ {
		if dd := direct(data, wrong, j); dd > far {
			farthest, far = j, dd
		}
	}
	peer := append([]int(nil), brute...)
	peer[tied] = 1
	peer[wrong] = farthest
	a := compareNearest(data, res, peer)
	if a.disagree != 2 || a.ties != 1 || a.oursNear != 1 || a.peerNear != 0 {
		t.Fatalf("classification %+v, want 2 disagreements: 1 tie, 1 where ours is nearer", a)
	}
}

// TestRandomMeasure checks that the Choquet measure of the benchmark is valid (NewChoquet
// accepts it) and neither additive nor symmetric anywhere it could hide.
func TestRandomMeasure(t *testing.T) {
	const d = 13
	ops, err := buildOps([]string{"choquet"}, d, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	mu := ops[0].(*distances.Choquet).Measure()
	additive, symmetric := isAdditive(mu, d), isSymmetric(mu, d)
	if !isAdditive(distances.AdditiveMeasure(randomSimplex(rand.New(rand.NewPCG(1, 1)), d)), d) ||
		!isSymmetric(distances.SymmetricMeasure(randomSimplex(rand.New(rand.NewPCG(1, 2)), d)), d) {
		t.Fatal("isAdditive or isSymmetric rejects a measure of its kind")
	}
	if additive || symmetric {
		t.Fatalf("measure additive=%v symmetric=%v", additive, symmetric)
	}
}
