package kernel

import "fmt"

// MaxSorted is the largest number of attributes OWADistances sorts with a network.
const MaxSorted = 32

// SortingNetwork returns the comparators of Batcher's odd–even merge sort on m inputs
// (Knuth, TAOCP vol. 3, §5.3.4, Algorithm M), flattened as index pairs (i, j), i < j:
// applying "x_i, x_j = max, min" for each pair in order sorts x decreasingly. A
// network does the same work whatever the data, so eight pairs of records can be
// sorted at once in the lanes of a vector with no branch (OWADistances).
func SortingNetwork(m int) []int32 {
	var net []int32
	if m < 2 {
		return net
	}
	t := 0
	for 1<<t < m {
		t++
	}
	for p := 1 << (t - 1); p > 0; p >>= 1 {
		q, r, d := 1<<(t-1), 0, p
		for {
			for i := 0; i < m-d; i++ {
				if i&p == r {
					net = append(net, int32(i), int32(i+d))
				}
			}
			if q == p {
				break
			}
			d, q, r = q-p, q>>1, p
		}
	}
	return net
}

// OWADistances writes, for j < n,
//
//	out[j] = Σ_k w_k·y_(k),  y_k = (q_k − r[k*stride+j])²,  y_(1) ≥ … ≥ y_(m)
//
// the OWA operator of the squared attribute differences between the query q and
// reference j (distances.OWA's Distance), summed from zero in increasing k with one
// rounding per product and per addition, so the result is bit-identical to the scalar
// form. References are attribute-major as in SquaredExpanded (stride a multiple of Lanes,
// the padding readable); out must hold Pad(n) values (the padding is overwritten). net is
// SortingNetwork(len(w)) and len(w) ≤ MaxSorted.
func OWADistances(out []float64, q, w []float64, net []int32, r []float64, stride, n int) {
	m := len(w)
	if m > MaxSorted || len(q) < m || stride%Lanes != 0 || stride < n || len(out) < Pad(n) || (m > 0 && n > 0 && len(r) < (m-1)*stride+Pad(n)) {
		panic(fmt.Sprintf("kernel: OWADistances sizes m=%d len(q)=%d stride=%d n=%d len(out)=%d len(r)=%d", m, len(q), stride, n, len(out), len(r)))
	}
	if n == 0 {
		return
	}
	impl.owa(out, q, w, net, r, stride, n)
}

// owaFunc is the signature of the OWA kernels (sizes checked by OWADistances).
type owaFunc func(out []float64, q, w []float64, net []int32, r []float64, stride, n int)

// owaGeneric is OWADistances eight references at a time, in the order of the assembly.
func owaGeneric(out []float64, q, w []float64, net []int32, r []float64, stride, n int) {
	m := len(w)
	var y [MaxSorted][Lanes]float64
	for j0 := 0; j0 < n; j0 += Lanes {
		for k := range m {
			rk := r[k*stride+j0 : k*stride+j0+Lanes]
			for l, v := range rk {
				d := q[k] - v
				y[k][l] = d * d
			}
		}
		for c := 0; c+1 < len(net); c += 2 {
			a, b := &y[net[c]], &y[net[c+1]]
			for l := range Lanes {
				hi, lo := a[l], b[l]
				if lo > hi {
					hi, lo = lo, hi
				}
				a[l], b[l] = hi, lo
			}
		}
		s := out[j0 : j0+Lanes]
		for l := range s {
			s[l] = 0
		}
		for k, wk := range w {
			for l := range s {
				s[l] += float64(wk * y[k][l]) // no fused multiply-add, as in the assembly
			}
		}
	}
}
