package mask

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// PRAM applies the post-randomisation method (Gouweleeuw, Kooiman, Willenborg & de Wolf 1998,
// "Post randomisation for statistical disclosure control: theory and implementation", J. Official
// Statistics 14(4)) to one categorical attribute: every code c (0 … L−1, L the order of P) is
// replaced, independently, by c' drawn from row c of the transition matrix,
//
//	Pr(c' = d | c) = P[c][d].
//
// P must be square, with finite entries ≥ 0 and rows summing to 1 (within 1e-9). Draws: one
// rng.Float64 per record, in record order, mapped through the cumulative row, so the same rng
// state gives the same output and the identity matrix leaves the codes unchanged.
//
// Errors: invalid P (ErrInvalidMatrix), code outside 0 … L−1 (ErrInvalidCode), no records,
// nil rng.
func PRAM(codes []int32, P *mat.Dense, rng *rand.Rand) ([]int32, error) {
	const op = "PRAM"
	if err := checkPRAMMatrix(op, P); err != nil {
		return nil, err
	}
	if len(codes) == 0 {
		return nil, newErr(op, ErrNoRecords, "")
	}
	if rng == nil {
		return nil, newErr(op, ErrNilRNG, "")
	}
	L, _ := P.Dims()
	for i, c := range codes {
		if c < 0 || int(c) >= L {
			return nil, newErr(op, ErrInvalidCode, "record %d has code %d, want 0 … %d", i, c, L-1)
		}
	}
	// Cumulative rows; last[c] is the last column with a positive entry (the fallback when
	// rounding makes the row sum fall just short of the draw).
	cum := make([]float64, L*L)
	last := make([]int32, L)
	for c := 0; c < L; c++ {
		s := 0.0
		for d := 0; d < L; d++ {
			v := P.At(c, d)
			s += v
			cum[c*L+d] = s
			if v > 0 {
				last[c] = int32(d)
			}
		}
	}
	out := make([]int32, len(codes))
	for i, c := range codes {
		u := rng.Float64()
		row := cum[int(c)*L : int(c+1)*L]
		out[i] = last[c]
		for d, v := range row {
			if u < v {
				out[i] = int32(d)
				break
			}
		}
	}
	return out, nil
}

// UniformPRAMMatrix returns the levels × levels PRAM matrix that keeps a code with probability
// 1 − p and otherwise moves it to one of the other levels−1 codes uniformly:
// P[c][c] = 1 − p, P[c][d] = p/(levels−1) for d ≠ c. levels must be ≥ 1, p in [0, 1], and
// p = 0 when levels = 1 (there is no other level to move to).
func UniformPRAMMatrix(levels int, p float64) (*mat.Dense, error) {
	const op = "UniformPRAMMatrix"
	if levels < 1 {
		return nil, newErr(op, ErrInvalidArgument, "levels must be at least 1 (got %d)", levels)
	}
	if math.IsNaN(p) || p < 0 || p > 1 {
		return nil, newErr(op, ErrInvalidArgument, "p must be in [0, 1] (got %v)", p)
	}
	if levels == 1 && p != 0 {
		return nil, newErr(op, ErrInvalidArgument, "p must be 0 with a single level (got %v)", p)
	}
	P := mat.NewDense(levels, levels, nil)
	for c := 0; c < levels; c++ {
		for d := 0; d < levels; d++ {
			if c == d {
				P.Set(c, d, 1-p)
			} else {
				P.Set(c, d, p/float64(levels-1))
			}
		}
	}
	return P, nil
}

// CheckPRAMMatrix reports whether P is a PRAM transition matrix: square, with finite
// entries ≥ 0 and rows summing to 1 (within 1e-9); errors wrap ErrInvalidMatrix and name
// the row or entry (0-based).
func CheckPRAMMatrix(P *mat.Dense) error { return checkPRAMMatrix("CheckPRAMMatrix", P) }

func checkPRAMMatrix(op string, P *mat.Dense) error {
	if P == nil || P.IsEmpty() {
		return newErr(op, ErrInvalidMatrix, "matrix is nil or empty")
	}
	r, c := P.Dims()
	if r != c {
		return newErr(op, ErrInvalidMatrix, "matrix is %d×%d, want square", r, c)
	}
	for i := 0; i < r; i++ {
		s := 0.0
		for j := 0; j < c; j++ {
			v := P.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return newErr(op, ErrInvalidMatrix, "entry (%d, %d) is %v, want a finite number ≥ 0", i, j, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-9 {
			return newErr(op, ErrInvalidMatrix, "row %d sums to %v, want 1", i, s)
		}
	}
	return nil
}
