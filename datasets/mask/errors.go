package mask

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors. Every error returned by this package wraps exactly one of them, so a
// caller can branch with errors.Is; the message itself says which function failed and why.
var (
	ErrNoAttributes    = errors.New("no attributes (the data have no columns)")
	ErrNoRecords       = errors.New("no records")
	ErrRagged          = errors.New("columns have different numbers of records")
	ErrNotFinite       = errors.New("value is NaN or infinite")
	ErrInvalidK        = errors.New("k must be at least 1")
	ErrKTooLarge       = errors.New("k is larger than the number of records")
	ErrTooFewRecords   = errors.New("too few records")
	ErrInvalidPercent  = errors.New("invalid percent")
	ErrNilRNG          = errors.New("random generator is nil")
	ErrNotPSD          = errors.New("covariance matrix is not positive semi-definite")
	ErrInvalidMatrix   = errors.New("invalid PRAM transition matrix")
	ErrInvalidCode     = errors.New("category code out of range")
	ErrInvalidArgument = errors.New("invalid argument")
)

// Error is the error type of this package: Op is the function ("MDAV", "PRAM", …), Err
// the sentinel it wraps and Detail the specific message. Error() reads
//
//	mask: MDAV: k (5) is larger than the number of records (3)
type Error struct {
	Op     string
	Err    error
	Detail string
}

func (e *Error) Error() string {
	d := e.Detail
	if d == "" {
		d = e.Err.Error()
	}
	return "mask: " + e.Op + ": " + d
}

// Unwrap returns the sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

func newErr(op string, sentinel error, format string, args ...any) *Error {
	d := ""
	if format != "" {
		d = fmt.Sprintf(format, args...)
	}
	return &Error{Op: op, Err: sentinel, Detail: d}
}

// checkData validates column-major numeric data and returns the number of records.
func checkData(op string, data [][]float64) (int, error) {
	if len(data) == 0 {
		return 0, newErr(op, ErrNoAttributes, "")
	}
	n := len(data[0])
	for j, col := range data {
		if len(col) != n {
			return 0, newErr(op, ErrRagged, "column %d has %d records but column 0 has %d", j, len(col), n)
		}
	}
	if n == 0 {
		return 0, newErr(op, ErrNoRecords, "")
	}
	for j, col := range data {
		for i, v := range col {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, newErr(op, ErrNotFinite, "column %d, record %d: %v", j, i, v)
			}
		}
	}
	return n, nil
}

// checkK validates a group size against the number of records.
func checkK(op string, k, n int) error {
	if k < 1 {
		return newErr(op, ErrInvalidK, "k must be at least 1 (got %d)", k)
	}
	if k > n {
		return newErr(op, ErrKTooLarge, "k (%d) is larger than the number of records (%d)", k, n)
	}
	return nil
}

// checkPercent validates a percentage; max < 0 means no upper bound.
func checkPercent(op string, percent, max float64) error {
	if math.IsNaN(percent) || math.IsInf(percent, 0) || percent < 0 {
		return newErr(op, ErrInvalidPercent, "percent must be a finite number ≥ 0 (got %v)", percent)
	}
	if max >= 0 && percent > max {
		return newErr(op, ErrInvalidPercent, "percent must be at most %v (got %v)", max, percent)
	}
	return nil
}

// cloneData returns a deep copy of column-major data.
func cloneData(data [][]float64) [][]float64 {
	out := make([][]float64, len(data))
	for j, col := range data {
		out[j] = append([]float64(nil), col...)
	}
	return out
}

// scaleExp returns e such that 2^−e brings the largest |value| of x into [1/2, 1). Squares
// of values beyond about 1e154 overflow (and below 1e-154 underflow) where those of the
// scaled values do not; scaling by a power of two is exact, so results on ordinary data are
// bit-identical to the unscaled formulas (as in datasets' meanSD).
func scaleExp(x []float64) int {
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	_, e := math.Frexp(m)
	if m == 0 || e < -1023 {
		// 2^1023 is the largest power of two (subnormals are still lifted out of the
		// underflow range); all zeros take it too, so that they never set a common scale.
		return -1023
	}
	return e
}

// meanVar returns the mean and the sample variance (divisor n−1; 0 when n < 2) of the values
// of x times scale (a power of two, see scaleExp), computed with two passes for accuracy.
func meanVar(x []float64, scale float64) (mean, variance float64) {
	n := len(x)
	for _, v := range x {
		mean += v * scale
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 0
	}
	var ss, s float64
	for _, v := range x {
		d := v*scale - mean
		ss += d * d
		s += d
	}
	// Corrected two-pass formula (Chan, Golub & LeVeque 1983).
	variance = (ss - s*s/float64(n)) / float64(n-1)
	if variance < 0 {
		variance = 0
	}
	return mean, variance
}
