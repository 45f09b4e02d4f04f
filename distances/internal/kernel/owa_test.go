package kernel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortingNetwork checks the network by the 0–1 principle (Knuth, TAOCP vol. 3,
// Theorem 5.3.4Z: a comparator network that sorts every 0–1 input sorts every input) for
// m ≤ 16, and on random inputs with ties up to MaxSorted.
func TestSortingNetwork(t *testing.T) {
	apply := func(net []int32, x []float64) {
		for c := 0; c < len(net); c += 2 {
			a, b := net[c], net[c+1]
			if a >= b {
				t.Fatalf("comparator (%d, %d) not ordered", a, b)
			}
			x[a], x[b] = max(x[a], x[b]), min(x[a], x[b])
		}
	}
	x := make([]float64, MaxSorted)
	for m := 0; m <= 16; m++ {
		net := SortingNetwork(m)
		for bits := 0; bits < 1<<m; bits++ {
			for k := range m {
				x[k] = float64(bits >> k & 1)
			}
			apply(net, x[:m])
			for k := 1; k < m; k++ {
				if x[k] > x[k-1] {
					t.Fatalf("m=%d: input %b not sorted: %v", m, bits, x[:m])
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for m := 17; m <= MaxSorted; m++ {
		net := SortingNetwork(m)
		for range 2000 {
			for k := range m {
				x[k] = float64(rng.IntN(5))
			}
			want := slices.Clone(x[:m])
			slices.Sort(want)
			slices.Reverse(want)
			apply(net, x[:m])
			if !slices.Equal(x[:m], want) {
				t.Fatalf("m=%d: got %v, want %v", m, x[:m], want)
			}
		}
	}
}

// owaScalar is the OWA of the squared differences by a library sort: the reference the
// kernels must match bit for bit.
func owaScalar(q, w []float64, r []float64, stride, j int) float64 {
	y := make([]float64, len(w))
	for k := range w {
		d := q[k] - r[k*stride+j]
		y[k] = d * d
	}
	slices.Sort(y)
	slices.Reverse(y)
	s := 0.0
	for k, wk := range w {
		s += wk * y[k]
	}
	return s
}

// tiedRecords returns a query and n references (attribute-major, stride with a spare
// vector) on a coarse grid, half of the values jittered: diffs that tie and diffs of zero.
func tiedRecords(rng *rand.Rand, m, n int) (q, r []float64, stride int) {
	stride = Pad(n) + Lanes
	q, r = make([]float64, m), make([]float64, m*stride)
	for k := range m {
		q[k] = float64(rng.IntN(4))
		for j := range stride {
			r[k*stride+j] = float64(rng.IntN(4))
			if rng.IntN(2) == 0 {
				r[k*stride+j] += rng.NormFloat64()
			}
		}
	}
	return q, r, stride
}

func TestOWADistances(t *testing.T) {
	kernels := map[string]owaFunc{"generic": owaGeneric, "dispatched": OWADistances}
	if f := acceleratedOWA(); f != nil {
		kernels["assembly"] = f
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, m := range []int{1, 2, 3, 5, 8, 13, 14, 20, MaxSorted} {
		for _, n := range []int{1, 7, 8, 9, 61, 100} {
			q, r, stride := tiedRecords(rng, m, n)
			w := make([]float64, m)
			for k := range w {
				w[k] = rng.Float64()
				if rng.IntN(4) == 0 {
					w[k] = 0
				}
			}
			net := SortingNetwork(m)
			for name, f := range kernels {
				out := make([]float64, Pad(n)+1)
				out[Pad(n)] = -1
				f(out, q, w, net, r, stride, n)
				for j := range n {
					if want := owaScalar(q, w, r, stride, j); out[j] != want {
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

func BenchmarkOWADistances(b *testing.B) {
	const m, n = 13, 1024
	rng := rand.New(rand.NewPCG(7, 8))
	q, w, r := make([]float64, m), make([]float64, m), make([]float64, m*n)
	for k := range m {
		q[k], w[k] = rng.NormFloat64(), 1.0/m
		for j := range n {
			r[k*n+j] = rng.NormFloat64()
		}
	}
	net := SortingNetwork(m)
	out := make([]float64, n)
	kernels := []struct {
		name string
		f    owaFunc
	}{{"generic", owaGeneric}, {"dispatched", OWADistances}}
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.f(out, q, w, net, r, n, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pair")
		})
	}
}
