package mask

import "math"

// MDAV microaggregates the records of data (column-major: data[j][i] is attribute j of
// record i) with the multivariate fixed-size MDAV heuristic (Maximum Distance to Average
// Vector; Domingo-Ferrer & Mateo-Sanz 2002, in the form of Domingo-Ferrer & Torra 2005,
// Algorithm "MDAV-generic"), with minimum group size k:
//
//	while at least 3k records remain:
//	    c ← centroid (arithmetic mean) of the remaining records
//	    r ← remaining record farthest from c
//	    s ← remaining record farthest from r
//	    group: r and the k−1 remaining records closest to r; remove it
//	    group: s and the k−1 remaining records closest to s; remove it
//	if 2k … 3k−1 records remain:
//	    c ← centroid of the remaining records; r ← remaining record farthest from c
//	    group: r and the k−1 remaining records closest to r; remove it
//	the remaining k … 2k−1 records form the last group
//
// Distances are squared Euclidean on attributes standardised by their sample standard
// deviation (divisor n−1), i.e. Σ_j (x_j − y_j)² / var_j. A constant attribute (variance 0)
// contributes 0 to every distance (it cannot separate records; its masked value equals the
// constant anyway). Every group therefore has k … 2k−1 records, there are ⌊n/k⌋ groups, and
// each record is replaced by the arithmetic mean of its group's original records (original
// units), so every distinct masked record occurs at least k times (k-anonymity on all
// attributes).
//
// groups[i] is the 0-based group of record i, numbered in the order groups are formed.
//
// Determinism and ties: the result depends only on data and k. r and s are the
// lowest-indexed records among those at maximal distance. The group formed around a seed
// consists of the first k remaining records in the order (distance to the seed ascending, row
// index DESCENDING), the order sdcMicro's C++ Mdav produces; the seed, at distance 0, is
// therefore in its own group unless k or more remaining records are exact duplicates of it
// with a higher row index, in which case the group is k of those duplicates (same values, so
// the masked file differs from the "seed first" reading of the definition only by exchanging
// identical original records). If s already joined r's group (massive ties only), the second
// group is formed around s's values from the records left. With this rule MDAV reproduces
// sdcMicro 5.8.1's microaggregation(method = "mdav") exactly on the CASC Census and EIA files
// for k = 3, 5, 10 (see SDCMICRO.md); breaking group ties by the lowest row index instead
// changes up to 45 of EIA's 4092 records. Sums are accumulated in row order.
//
// Errors: k < 1, k larger than the number of records, no columns, no records, ragged columns,
// NaN or ±Inf values.
func MDAV(data [][]float64, k int) (masked [][]float64, groups []int, err error) {
	return mdav("MDAV", data, k, mdavOptions{})
}

// mdavOptions selects variants used only by the tests and SDCMICRO.md; the zero value is MDAV.
type mdavOptions struct {
	// lowTies: the seed is always put in its own group and the other ties are broken by the
	// lowest row index (the textbook reading).
	lowTies bool
	// float32Dist and popVarWeight reproduce the remaining numerical details of sdcMicro's
	// src/Mdav.h: distances accumulated in single precision, and weights 1/(E[x²]−E[x]²)
	// (population variance; 1 when it is 0).
	float32Dist, popVarWeight bool
}

func mdav(op string, data [][]float64, k int, o mdavOptions) ([][]float64, []int, error) {
	n, err := checkData(op, data)
	if err != nil {
		return nil, nil, err
	}
	if err := checkK(op, k, n); err != nil {
		return nil, nil, err
	}
	p := len(data)

	// Row-major copy and per-attribute weights, on each attribute times a power of two that
	// brings its largest |value| into [1/2, 1): squared differences of values beyond about
	// 1e154 overflow where the scaled ones do not. The scaling is exact and a distance term
	// (x·s − y·s)²·w/s² is the unscaled one bit for bit, so groups on ordinary data are
	// unchanged.
	x := make([]float64, n*p)
	w := make([]float64, p)
	exps := make([]int, p)
	for j, col := range data {
		exps[j] = scaleExp(col)
		scale := math.Ldexp(1, -exps[j])
		if o.popVarWeight {
			var sum, sq float64
			for _, v := range col {
				v *= scale
				sum += v
				sq += v * v
			}
			avr, sq := sum/float64(n), sq/float64(n)
			if variance := sq - avr*avr; variance != 0 {
				w[j] = 1 / variance
			} else {
				// sdcMicro's weight 1 in original units (capped: 2^(2e) overflows past
				// 1e154, where a distance on a zero-variance attribute is 0 or rounding).
				w[j] = min(math.Ldexp(1, 2*exps[j]), math.MaxFloat64)
			}
		} else if _, v := meanVar(col, scale); v > 0 {
			w[j] = 1 / v
		}
		for i, v := range col {
			x[i*p+j] = v * scale
		}
	}
	row := func(i int) []float64 { return x[i*p : (i+1)*p] }

	// dist is the weighted squared distance between record i and point c. The explicit
	// conversions keep the compiler from fusing operations (bit-identical on every platform).
	dist := func(i int, c []float64) float64 {
		r := row(i)
		if o.float32Dist {
			var d float32
			for j, v := range r {
				e := v - c[j]
				d += float32(float64(e*e) * w[j])
			}
			return float64(d)
		}
		var d float64
		for j, v := range r {
			e := v - c[j]
			d += float64(float64(e*e) * w[j])
		}
		return d
	}

	groups := make([]int, n)
	for i := range groups {
		groups[i] = -1
	}
	rem := make([]int, n) // records not yet grouped, increasing row index
	for i := range rem {
		rem[i] = i
	}
	d := make([]float64, n)
	cent := make([]float64, p)
	seedVals := make([]float64, p)
	best := make([]int, 0, k)
	g := 0

	// farthest returns the remaining record farthest from c (lowest index on ties).
	farthest := func(c []float64) int {
		f, fd := -1, -1.0
		for _, i := range rem {
			if di := dist(i, c); di > fd {
				f, fd = i, di
			}
		}
		return f
	}
	// less orders candidates by distance, ties by row index (descending by default).
	less := func(a, b int) bool {
		if d[a] != d[b] {
			return d[a] < d[b]
		}
		if o.lowTies {
			return a < b
		}
		return a > b
	}
	// form makes a group of k records around the values of record seed and removes it.
	form := func(seed int) {
		copy(seedVals, row(seed))
		force := o.lowTies && groups[seed] == -1
		need := k
		if force {
			need = k - 1
		}
		best = best[:0]
		for _, i := range rem {
			if force && i == seed {
				continue
			}
			d[i] = dist(i, seedVals)
			if len(best) == need && (need == 0 || !less(i, best[need-1])) {
				continue
			}
			// Insert i into the sorted list best, dropping the last one if full.
			pos := len(best)
			for pos > 0 && less(i, best[pos-1]) {
				pos--
			}
			if len(best) < need {
				best = append(best, 0)
			}
			copy(best[pos+1:], best[pos:len(best)-1])
			best[pos] = i
		}
		if force {
			groups[seed] = g
		}
		for _, i := range best {
			groups[i] = g
		}
		g++
		kept := rem[:0]
		for _, i := range rem {
			if groups[i] == -1 {
				kept = append(kept, i)
			}
		}
		rem = kept
	}

	for len(rem) >= 2*k {
		clear(cent)
		for _, i := range rem {
			for j, v := range row(i) {
				cent[j] += v
			}
		}
		for j := range cent {
			cent[j] /= float64(len(rem))
		}
		r := farthest(cent)
		if len(rem) >= 3*k {
			s := farthest(row(r))
			form(r)
			form(s)
		} else {
			form(r)
		}
	}
	if len(rem) > 0 { // k … 2k−1 records left
		for _, i := range rem {
			groups[i] = g
		}
		g++
	}

	// Group means in original units, summed in row order; a sum that overflows (values near
	// the largest float64) is taken on the scaled values instead.
	sums := make([]float64, g*p)
	scaledSums := make([]float64, g*p)
	counts := make([]int, g)
	for i := 0; i < n; i++ {
		gi := groups[i]
		counts[gi]++
		for j := range data {
			sums[gi*p+j] += data[j][i]
			scaledSums[gi*p+j] += x[i*p+j]
		}
	}
	means := make([]float64, g*p)
	for gi, c := range counts {
		for j := range data {
			k := gi*p + j
			means[k] = sums[k] / float64(c)
			if math.IsInf(sums[k], 0) {
				means[k] = math.Ldexp(scaledSums[k]/float64(c), exps[j])
			}
		}
	}
	masked := make([][]float64, p)
	for j := range masked {
		masked[j] = make([]float64, n)
		for i := 0; i < n; i++ {
			masked[j][i] = means[groups[i]*p+j]
		}
	}
	return masked, groups, nil
}
