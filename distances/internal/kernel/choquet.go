package kernel

import "fmt"

// ChoquetDistances writes, for j < n, the discrete Choquet integral of the squared
// attribute differences between the query q and reference j with respect to the fuzzy
// measure mu (indexed by attribute bitmask, len 2^m):
//
//	out[j] = Σ_k (x_(k) − x_(k−1))·μ(A_(k)),  x_(1) ≤ … ≤ x_(m), x_(0) = 0,
//	A_(k) = {(k), …, (m)}
//
// summed from zero in increasing k with one rounding per operation, bit-identical to
// distances.Choquet's Distance (which sorts by insertion: where diffs tie the sets may
// differ, but only at a zero increment, and A_(k) at a non-zero increment is the set of
// attributes whose diff is at least x_(k), whatever the order of ties). References are
// attribute-major as in SquaredExpanded; out must hold Pad(n) values. net is
// SortingNetwork(m) (applied with min first: ascending) and m ≤ MaxSorted, len(mu) = 2^m.
func ChoquetDistances(out []float64, q, mu []float64, m int, net []int32, r []float64, stride, n int) {
	if m > MaxSorted || m < 0 || len(mu) != 1<<m || len(q) < m || stride%Lanes != 0 || stride < n || len(out) < Pad(n) || (m > 0 && n > 0 && len(r) < (m-1)*stride+Pad(n)) {
		panic(fmt.Sprintf("kernel: ChoquetDistances sizes m=%d len(mu)=%d len(q)=%d stride=%d n=%d len(out)=%d len(r)=%d", m, len(mu), len(q), stride, n, len(out), len(r)))
	}
	if n == 0 {
		return
	}
	impl.choquet(out, q, mu, m, net, r, stride, n)
}

// choquetFunc is the signature of the Choquet kernels (sizes checked by ChoquetDistances).
type choquetFunc func(out []float64, q, mu []float64, m int, net []int32, r []float64, stride, n int)

// choquetGeneric is ChoquetDistances eight references at a time, in the order of the
// assembly: each diff carries its attribute's bit through the network.
func choquetGeneric(out []float64, q, mu []float64, m int, net []int32, r []float64, stride, n int) {
	var y [MaxSorted][Lanes]float64
	var bit [MaxSorted][Lanes]int
	for j0 := 0; j0 < n; j0 += Lanes {
		for k := range m {
			rk := r[k*stride+j0 : k*stride+j0+Lanes]
			for l, v := range rk {
				d := q[k] - v
				y[k][l], bit[k][l] = d*d, 1<<k
			}
		}
		for c := 0; c+1 < len(net); c += 2 {
			a, b := net[c], net[c+1]
			for l := range Lanes {
				if y[a][l] > y[b][l] {
					y[a][l], y[b][l] = y[b][l], y[a][l]
					bit[a][l], bit[b][l] = bit[b][l], bit[a][l]
				}
			}
		}
		for l := range Lanes {
			mask := len(mu) - 1
			s, prev := 0.0, 0.0
			for k := range m {
				v := y[k][l]
				s += float64((v - prev) * mu[mask]) // no fused multiply-add, as in the assembly
				prev = v
				mask &^= bit[k][l]
			}
			out[j0+l] = s
		}
	}
}
