package datasets

import "math"

// exactSum accumulates float64 values and returns their sum correctly rounded, whatever
// the order of the additions: Shewchuk's non-overlapping partials ("Adaptive precision
// floating-point arithmetic and fast robust geometric predicates", Discrete Comput. Geom.
// 18, 1997, Grow-Expansion), rounded half-even at the end as Python's math.fsum rounds
// them. Standardize sums with it so that two files holding the same values in another
// order (a rank-swapped column is a permutation of the original's) get the same mean and
// sd to the last bit: equal values then get equal z-scores, and a distance between them
// is exactly 0, not a rounding residue that breaks ties at random.
type exactSum struct{ partials []float64 }

// add adds x (finite) exactly: after it, the partials sum to the exact total.
func (s *exactSum) add(x float64) {
	i := 0
	for _, y := range s.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x) // exact: the rounding error of hi (Fast-Two-Sum, |x| ≥ |y|)
		if lo != 0 {
			s.partials[i] = lo
			i++
		}
		x = hi
	}
	s.partials = append(s.partials[:i], x)
}

// value returns the exact total rounded to the nearest float64, ties to even.
func (s *exactSum) value() float64 {
	p := s.partials
	n := len(p)
	if n == 0 {
		return 0
	}
	n--
	hi, lo := p[n], 0.0
	for n > 0 { // from the largest partial down, until a rounding error appears
		x := hi
		n--
		y := p[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	// hi + lo is exact; the partials below p[n] can only decide a tie: when lo is half an
	// ulp of hi and they have its sign, the exact total lies beyond the halfway point.
	if n > 0 && (lo < 0 && p[n-1] < 0 || lo > 0 && p[n-1] > 0) {
		y := 2 * lo
		if x := hi + y; x-hi == y {
			hi = x
		}
	}
	return hi
}
