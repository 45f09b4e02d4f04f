package distances

// sortStack is the number of attributes up to which OWA and Choquet sort the diffs of a
// pair in an array on the stack (m is small in practice: at most about 20).
const sortStack = 32

// OWA is the ordered weighted averaging operator (Yager, "On ordered weighted averaging
// aggregation operators in multicriteria decisionmaking", IEEE Trans. SMC 18(1), 1988) on
// the attribute diffs:
//
//	OWA_w(a, b) = Σ_k w_k diff_(k)(a, b),  diff_(1) ≥ diff_(2) ≥ … ≥ diff_(m)
//
// with w on the simplex: w_1 weighs the largest diff, w_m the smallest. w = (1, 0, …, 0) is
// the maximum, (0, …, 0, 1) the minimum and (1/m, …, 1/m) the Euclidean distance. Its
// parameters are w and its features the diffs sorted decreasingly. An OWA is immutable and
// safe for concurrent use.
type OWA struct {
	w []float64
}

// NewOWA returns OWA_w; w must be on the simplex. w is copied.
func NewOWA(w []float64) (*OWA, error) {
	if err := checkSimplex("owa", w); err != nil {
		return nil, err
	}
	return &OWA{w: onSimplex(w)}, nil
}

func (o *OWA) Name() string      { return "owa" }
func (o *OWA) Attributes() int   { return len(o.w) }
func (o *OWA) Params() []float64 { return o.w }

// Distance is Σ_k w_k diff_(k)(a, b), diffs sorted decreasingly. It does not allocate.
func (o *OWA) Distance(a, b []float64) float64 {
	m := len(o.w)
	if m > sortStack {
		return o.distanceByRank(a, b)
	}
	var buf [sortStack]float64
	y := diffsDesc(buf[:m], a, b)
	s := 0.0
	for k, w := range o.w {
		s += float64(w * y[k]) // rounded before the add: no build fuses it (the kernels do not)
	}
	return s
}

// distanceByRank is Distance for m > sortStack without a buffer: the diff of attribute i
// goes to position r_i = #{j : diff_j > diff_i} + #{j < i : diff_j = diff_i}, O(m²).
func (o *OWA) distanceByRank(a, b []float64) float64 {
	m := len(o.w)
	s := 0.0
	for i := 0; i < m; i++ {
		di := Diff(a[i], b[i])
		r := 0
		for j := 0; j < m; j++ {
			dj := Diff(a[j], b[j])
			if dj > di || (dj == di && j < i) {
				r++
			}
		}
		s += o.w[r] * di
	}
	return s
}

// Features writes the diffs sorted decreasingly, diff_(1) ≥ … ≥ diff_(m), into dst.
func (o *OWA) Features(dst, a, b []float64) []float64 {
	return diffsDesc(dst[:len(o.w)], a, b)
}

// diffsDesc writes diff_i(a, b), i < len(dst), into dst sorted decreasingly and returns it.
// Insertion sort: m is small, and dst may be an array on the caller's stack.
func diffsDesc(dst, a, b []float64) []float64 {
	m := len(dst)
	a, b = a[:m], b[:m]
	for i := range a {
		v := Diff(a[i], b[i])
		j := i
		for j > 0 && dst[j-1] < v {
			dst[j] = dst[j-1]
			j--
		}
		dst[j] = v
	}
	return dst
}
