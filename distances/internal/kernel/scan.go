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
