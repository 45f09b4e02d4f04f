package optimize

import (
	"math"
	"math/rand/v2"
	"testing"
)

// metricProblem is a bilinear problem on m = 2 attributes: n references drawn at random
// and queries = references plus noise of scale s0, s1 per attribute.
func metricProblem(n int, s0, s1 float64, seed uint64) Problem {
	rng := rand.New(rand.NewPCG(seed, 1))
	q := [][]float64{make([]float64, n), make([]float64, n)}
	r := [][]float64{make([]float64, n), make([]float64, n)}
	for i := range n {
		r[0][i], r[1][i] = rng.NormFloat64(), 3+2*rng.NormFloat64()
		q[0][i] = r[0][i] + s0*rng.NormFloat64()
		q[1][i] = r[1][i] + s1*rng.NormFloat64() + 0.5*(q[0][i]-r[0][i])
	}
	return Problem{Queries: q, Refs: r, Truth: identity(n), Family: Bilinear}
}

// The moments against their definitions, summed over the pairs themselves.
func TestPairMoments(t *testing.T) {
	p := metricProblem(7, 0.3, 0.1, 1)
	sp := newBilinearSpace(2)
	d := prepare(p, sp, 1e-4, 1)
	same, all := pairMoments(d)
	n := 7
	var wantS, wantD [2][2]float64
	for i := range n {
		for j := range n {
			dx := [2]float64{p.Queries[0][i] - p.Refs[0][j], p.Queries[1][i] - p.Refs[1][j]}
			for k := range 2 {
				for l := range 2 {
					wantD[k][l] += dx[k] * dx[l] / float64(n*n)
					if i == j {
						wantS[k][l] += dx[k] * dx[l] / float64(n)
					}
				}
			}
		}
	}
	for k := range 2 {
		for l := range 2 {
			if math.Abs(same.At(k, l)-wantS[k][l]) > 1e-12 || math.Abs(all.At(k, l)-wantD[k][l]) > 1e-12 {
				t.Errorf("(%d,%d): Σ_S %g, want %g; Σ_D %g, want %g", k, l, same.At(k, l), wantS[k][l], all.At(k, l), wantD[k][l])
			}
		}
	}
}

// inv2 is the inverse of a symmetric 2×2 matrix [[a, b], [b, c]].
func inv2(a, b, c float64) (float64, float64, float64) {
	det := a*c - b*b
	return c / det, -b / det, a / det
}

// The two starts against 2×2 inverses by hand (KISSME's difference is positive definite
// in this case, so the projection only rescales it), and an attribute the masking left
// unchanged, on which the Mahalanobis start puts nearly all the weight.
func TestMetricStarts(t *testing.T) {
	p := metricProblem(40, 0.3, 0.1, 2)
	sp := newBilinearSpace(2)
	d := prepare(p, sp, 1e-4, 1)
	same, all := pairMoments(d)
	ridge := 1e-6 * (same.At(0, 0) + same.At(1, 1)) / 2
	sa, sb, sc := inv2(same.At(0, 0)+ridge, same.At(0, 1), same.At(1, 1)+ridge)
	da, db, dc := inv2(all.At(0, 0), all.At(0, 1), all.At(1, 1))
	ka, kb, kc := sa-da, sb-db, sc-dc
	if ka*kc-kb*kb <= 0 || ka+kc <= 0 {
		t.Fatalf("KISSME's matrix [[%g %g] [%g %g]] is not positive definite: choose another case", ka, kb, kb, kc)
	}
	want := [][3]float64{{ka, kb, kc}, {sa, sb, sc}}
	starts := metricStarts(d, sp)
	if len(starts) != 2 {
		t.Fatalf("%d starts, want 2", len(starts))
	}
	for x, th := range starts {
		tr := want[x][0] + want[x][2]
		w := [3]float64{th[sp.col(0, 0)], th[sp.col(0, 1)], th[sp.col(1, 1)]}
		for e := range 3 {
			if math.Abs(w[e]-want[x][e]/tr) > 1e-9 {
				t.Errorf("start %d: W = %v, want %v / %g", x, w, want[x], tr)
				break
			}
		}
	}

	exact := metricProblem(40, 0.3, 0, 3)
	exact.Queries[1] = append([]float64(nil), exact.Refs[1]...)
	d = prepare(exact, sp, 1e-4, 1)
	starts = metricStarts(d, sp)
	if len(starts) != 2 {
		t.Fatalf("unchanged attribute: %d starts, want 2", len(starts))
	}
	if w := starts[1][sp.col(1, 1)]; w < 0.999 {
		t.Errorf("unchanged attribute: Mahalanobis W_11 = %g, want ≈ 1", w)
	}
}
