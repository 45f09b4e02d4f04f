package kernel

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// choquetScalar is the Choquet integral by its definition with a library sort of the
// attributes by diff: the reference the kernels must match bit for bit.
func choquetScalar(q, mu []float64, m int, r []float64, stride, j int) float64 {
	x := make([]float64, m)
	order := make([]int, m)
	for k := range m {
		d := q[k] - r[k*stride+j]
		x[k], order[k] = d*d, k
	}
	sort.SliceStable(order, func(a, b int) bool { return x[order[a]] < x[order[b]] })
	set := 1<<m - 1
	s, prev := 0.0, 0.0
	for _, k := range order {
		s += (x[k] - prev) * mu[set]
		prev = x[k]
		set &^= 1 << k
	}
	return s
}

// randomMeasure is a monotone measure with μ(∅) = 0, μ(V) = 1: the normalised
// cardinality-weighted maximum of random attribute weights plus a random belief part,
// so that no two sets need share a value.
func randomMeasure(rng *rand.Rand, m int) []float64 {
	w := make([]float64, m)
	for k := range w {
		w[k] = rng.Float64()
	}
	mu := make([]float64, 1<<m)
	for set := 1; set < len(mu); set++ {
		mx, n := 0.0, 0
		for k := range m {
			if set>>k&1 == 1 {
				mx, n = max(mx, w[k]), n+1
			}
		}
		mu[set] = mx + float64(n)
	}
	top := mu[len(mu)-1]
	for set := range mu {
		mu[set] /= top
	}
	return mu
}

func TestChoquetDistances(t *testing.T) {
	kernels := map[string]choquetFunc{"generic": choquetGeneric, "dispatched": ChoquetDistances}
	if f := acceleratedChoquet(); f != nil {
		kernels["assembly"] = f
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, m := range []int{1, 2, 5, 13, 16} {
		mu := randomMeasure(rng, m)
		for _, n := range []int{1, 8, 31, 32, 33, 64, 100} {
			q, r, stride := tiedRecords(rng, m, n)
			net := SortingNetwork(m)
			for name, f := range kernels {
				out := make([]float64, Pad(n)+1)
				out[Pad(n)] = -1
				f(out, q, mu, m, net, r, stride, n)
				for j := range n {
					if want := choquetScalar(q, mu, m, r, stride, j); out[j] != want {
						t.Fatalf("%s m=%d n=%d j=%d: %v, want %v", name, m, n, j, out[j], want)
					}
				}
				if out[Pad(n)] != -1 {
					t.Errorf("%s m=%d n=%d wrote past Pad(n)", name, m, n)
				}
			}
		}
	}
}

// TestChoquetNoAttributes: on no attribute the integral is 0 (the measure of the empty
// set), with an empty reference matrix, for any n (the assembly's whole groups of 32
// sliced the empty matrix).
func TestChoquetNoAttributes(t *testing.T) {
	for _, n := range []int{1, 33, 64} {
		out := make([]float64, Pad(n))
		for i := range out {
			out[i] = -1
		}
		ChoquetDistances(out, nil, []float64{0}, 0, nil, nil, Pad(n), n)
		for j := range n {
			if out[j] != 0 {
				t.Fatalf("n=%d: out[%d] = %v, want 0", n, j, out[j])
			}
		}
	}
}

func BenchmarkChoquetDistances(b *testing.B) {
	const m, n = 13, 1024
	rng := rand.New(rand.NewPCG(11, 12))
	q, r := make([]float64, m), make([]float64, m*n)
	for k := range m {
		q[k] = rng.NormFloat64()
		for j := range n {
			r[k*n+j] = rng.NormFloat64()
		}
	}
	mu := randomMeasure(rng, m)
	net := SortingNetwork(m)
	out := make([]float64, n)
	for _, k := range []struct {
		name string
		f    choquetFunc
	}{{"generic", choquetGeneric}, {"dispatched", ChoquetDistances}} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.f(out, q, mu, m, net, r, n, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pair")
		})
	}
}
