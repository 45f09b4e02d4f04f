package synth

import "math"

// The standard library computes math.Exp and math.Log in assembly on some architectures
// (amd64, arm64, s390x, loong64) and in Go elsewhere, and the Go compiler may fuse x*y+z
// into one FMA instruction on some architectures. Either can change the last bit of a
// result, and a last-bit change can flip a random draw (a rejection test, a threshold) and
// shift everything after it. The generator therefore uses the portable routines below,
// which are ports of the FreeBSD algorithms used by the pure-Go math package, with every
// product that is later added wrapped in an explicit float64 conversion: the Go
// specification forbids fusing across such a conversion. Only IEEE-754 basic operations
// (+, -, *, /, sqrt) and exact bit manipulations (Frexp, Ldexp, Round) remain, and those
// are correctly rounded on every platform, so the output is the same everywhere.

// detExp returns e**x.
func detExp(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28)

		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	switch {
	case math.IsNaN(x):
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	var k int
	switch {
	case x < 0:
		k = int(float64(log2e*x) - 0.5)
	case x > 0:
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	r := hi - lo
	t := float64(r * r)
	q := p4 + float64(t*p5)
	q = p3 + float64(t*q)
	q = p2 + float64(t*q)
	q = p1 + float64(t*q)
	c := r - float64(t*q)
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// detLog returns the natural logarithm of x.
func detLog(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		l1    = 6.666666666666735130e-01
		l2    = 3.999999999940941908e-01
		l3    = 2.857142874366239149e-01
		l4    = 2.222219843214978396e-01
		l5    = 1.818357216161805012e-01
		l6    = 1.531383769920937332e-01
		l7    = 1.479819860511658591e-01
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	a := l5 + float64(s4*l7)
	a = l3 + float64(s4*a)
	a = l1 + float64(s4*a)
	t1 := float64(s2 * a)
	b := l4 + float64(s4*l6)
	b = l2 + float64(s4*b)
	t2 := float64(s4 * b)
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// logistic returns 1/(1+e**-x).
func logistic(x float64) float64 { return 1 / (1 + detExp(-x)) }
