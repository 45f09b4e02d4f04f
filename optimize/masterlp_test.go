package optimize

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/reid-sdc/reid/optimize/clp"
)

// TestPackLPAgainstCLP runs the same sequence of covering LPs through packLP and CLP, as
// the search does: rows added in batches, bounds of records fixed to 0 or 1 and freed
// again, rows deleted. Every solve must agree on the status and the optimum; packLP's K
// must satisfy its rows and bounds with Σ K equal to the optimum, and its infeasibility
// certificate must prove what it claims.
func TestPackLPAgainstCLP(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 77))
		n := 5 + rng.IntN(60)
		if seed%8 == 7 {
			n = 100 + rng.IntN(60) // the sizes it serves in the search
		}
		pk := newPackLP(n)
		ref := clp.New()
		lo, up, obj := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			up[i], obj[i] = 1, 1
		}
		if err := ref.LoadProblem(0, make([]int, n+1), nil, nil, lo, up, obj, nil, nil); err != nil {
			t.Fatal(err)
		}
		var rows [][]int
		var rhs []float64
		addRow := func() {
			size := 1 + rng.IntN(min(n, 6))
			S := rng.Perm(n)[:size]
			b := 1.0
			if size > 2 && rng.IntN(8) == 0 {
				b = float64(size - 1) // a twin group's row
			}
			ones := make([]float64, size)
			for x := range ones {
				ones[x] = 1
			}
			rows, rhs = append(rows, S), append(rhs, b)
			if err := ref.AddRow(b, math.Inf(1), S, ones); err != nil {
				t.Fatal(err)
			}
			if err := pk.AddRow(b, math.Inf(1), S, ones); err != nil {
				t.Fatal(err)
			}
		}
		for step := range 30 {
			for range rng.IntN(3 * n / 2) {
				addRow()
			}
			for range rng.IntN(4) {
				i := rng.IntN(n)
				switch rng.IntN(3) {
				case 0:
					lo[i], up[i] = 0, 1
				case 1:
					lo[i], up[i] = 1, 1
				case 2:
					lo[i], up[i] = 0, 0
				}
				ref.SetColumnBounds(i, lo[i], up[i])
				pk.SetColumnBounds(i, lo[i], up[i])
			}
			if step%7 == 6 && len(rows) > 3 {
				del := []int{0, len(rows) / 2, len(rows) - 1}
				ref.DeleteRows(del)
				pk.DeleteRows(del)
				var keptRows [][]int
				var keptRHS []float64
				for r := range rows {
					if r != 0 && r != len(rows)/2 && r != len(rows)-1 {
						keptRows, keptRHS = append(keptRows, rows[r]), append(keptRHS, rhs[r])
					}
				}
				rows, rhs = keptRows, keptRHS
			}
			want := ref.Dual()
			if want != clp.Optimal && want != clp.PrimalInfeasible {
				want = ref.Primal()
			}
			got := pk.Dual()
			if got != clp.Optimal && got != clp.PrimalInfeasible {
				t.Fatalf("seed %d step %d: packLP status %v", seed, step, got)
			}
			if got != want {
				t.Fatalf("seed %d step %d: packLP %v, CLP %v", seed, step, got, want)
			}
			if got == clp.PrimalInfeasible {
				y, ok := pk.FarkasCertificate()
				if !ok {
					t.Fatalf("seed %d step %d: no certificate", seed, step)
				}
				// Σ_r b_r y_r > Σ_i up_i (Aᵀy)_i: no K within the bounds covers the rows.
				lhs := 0.0
				for r, v := range y {
					if v < 0 {
						t.Fatalf("seed %d step %d: certificate entry %g < 0", seed, step, v)
					}
					lhs += rhs[r] * v
					for _, i := range rows[r] {
						lhs -= up[i] * v
					}
				}
				if lhs <= 0 {
					t.Fatalf("seed %d step %d: certificate does not prove infeasibility (%g)", seed, step, lhs)
				}
				continue
			}
			if d := math.Abs(pk.ObjectiveValue() - ref.ObjectiveValue()); d > 1e-7 {
				t.Fatalf("seed %d step %d: objective %g, CLP %g", seed, step, pk.ObjectiveValue(), ref.ObjectiveValue())
			}
			K := pk.Solution(nil)
			sum := 0.0
			for i, v := range K {
				if v < lo[i]-1e-9 || v > up[i]+1e-9 {
					t.Fatalf("seed %d step %d: K[%d] = %g outside [%g, %g]", seed, step, i, v, lo[i], up[i])
				}
				sum += v
			}
			for r, S := range rows {
				if c := coverage(S, K); c < rhs[r]-1e-6 {
					t.Fatalf("seed %d step %d: row %d covered %g < %g", seed, step, r, c, rhs[r])
				}
			}
			if math.Abs(sum-ref.ObjectiveValue()) > 1e-6 {
				t.Fatalf("seed %d step %d: Σ K = %g, optimum %g", seed, step, sum, ref.ObjectiveValue())
			}
		}
		ref.Close()
	}
}

// The master LP is a packLP up to packMaxN records; solved by CLP instead, the search
// proves the same optimum (twin rows included: mdav_k3).
func TestMasterEngines(t *testing.T) {
	for _, c := range []struct {
		file   string
		n      int
		family Family
	}{{"rankswap_p15", 70, WM}, {"noise_additive_50", 70, OWA}, {"mdav_k3", 150, WM}, {"noise_correlated_50", 60, WM}} {
		t.Run(c.file, func(t *testing.T) {
			p := census(t, c.file, c.n)
			p.Family = c.family
			sameOptimum(t, p, "packLP", Settings{}, "CLP", Settings{clpMaster: true})
		})
	}
}
