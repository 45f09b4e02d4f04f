package kernel

// FirstAtMost returns the index of the first element of x that is ≤ limit, or len(x)
// (NaN is never ≤ limit). The scanner of package distances uses it to jump from candidate
// to candidate through a block of distances: where nothing is near the best, a block
// costs one vector compare per 8 distances instead of a branch per distance.
func FirstAtMost(x []float64, limit float64) int { return impl.first(x, limit) }

func firstAtMostGeneric(x []float64, limit float64) int {
	for i, v := range x {
		if v <= limit {
			return i
		}
	}
	return len(x)
}

// CountBetween returns the number of elements x_i with lo < x_i < hi.
func CountBetween(x []float64, lo, hi float64) int { return impl.between(x, lo, hi) }

// FirstNotBetween returns the index of the first element x_i with x_i ≤ limit and not
// lo < x_i < hi, or len(x). With CountBetween it lets the scanner count in bulk the
// candidates that only add to the true partner's rank and visit the others one by one.
func FirstNotBetween(x []float64, lo, hi, limit float64) int {
	return impl.firstNotBetween(x, lo, hi, limit)
}

func countBetweenGeneric(x []float64, lo, hi float64) int {
	n := 0
	for _, v := range x {
		if lo < v && v < hi {
			n++
		}
	}
	return n
}

func firstNotBetweenGeneric(x []float64, lo, hi, limit float64) int {
	for i, v := range x {
		if v <= limit && !(lo < v && v < hi) {
			return i
		}
	}
	return len(x)
}
