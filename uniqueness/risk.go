package uniqueness

import "math"

// BenedettiFranconi returns the individual risk E[1/F | f] of a record in a key class of
// sample frequency f ≥ 1 when F − f follows the negative binomial NB(f, p) of Benedetti and
// Franconi (1998) (Franconi and Polettini 2004, eq. 3):
//
//	E[1/F | f] = Σ_{h≥0} 1/(f+h) · C(f+h−1, h) · p^f · (1−p)^h,
//
// with p = f / Σ_{i∈class} w_i estimated from the sampling weights (p = π for a sampling
// fraction π). For f = 1 the series sums to p·log(1/p)/(1−p), for f = 2 to
// p/(1−p) − (p/(1−p))²·log(1/p).
//
// The series is summed exactly, not approximated: term by term it equals
// I_f = ∫₀¹ s^{f−1}/(1 + X·s) ds with X = (1−p)/p (expand the generating function of F and
// substitute), and I_f satisfies I_f + X·I_{f+1} = 1/f with I_1 = log(1+X)/X. The recurrence
// is run forward from I_1 when X ≥ 1 (p ≤ ½; errors shrink by 1/X per step) and backward
// from far out when X < 1 (errors shrink by X per step), so the value is accurate to a few
// ulps for every p and f, where the raw series needs millions of terms for small p. p ≥ 1
// (the class is its own population) gives 1/f.
func BenedettiFranconi(f int, p float64) float64 {
	if f < 1 {
		return math.NaN()
	}
	if p >= 1 {
		return 1 / float64(f)
	}
	if !(p > 0) {
		return 0
	}
	x := (1 - p) / p
	switch {
	case x >= 1:
		// I_1 = log(1+X)/X = p·log(1/p)/(1−p).
		v := -math.Log(p) * p / (1 - p)
		for g := 1; g < f; g++ {
			v = (1/float64(g) - v) / x
		}
		return v
	case f > 1 && float64(f-1)*math.Log(1/x) <= math.Ln2:
		// X just below 1: the forward recurrence loses at most a factor 2 in accuracy.
		v := math.Log1p(x) / x
		for g := 1; g < f; g++ {
			v = (1/float64(g) - v) / x
		}
		return v
	}
	if f == 1 {
		return math.Log1p(x) / x
	}
	// Backward: start N steps out with I_{f+N} ∈ [1/((f+N)(1+X)), 1/(f+N)], whose error
	// is damped by X^N < 1e-18.
	n := int(math.Ceil(41.5/math.Log(1/x))) + 1
	g := f + n
	v := 1 / (float64(g) * (1 + x/2))
	for g > f {
		g--
		v = 1/float64(g) - x*v
	}
	return v
}

// BenedettiFranconiApprox is the approximation used by μ-Argus and by sdcMicro's
// measure_risk (indivRisk, method "approx"): the exact closed forms for f = 1 and f = 2,
// and p / (f − (1−p)) for f ≥ 3 (Franconi and Polettini 2004, §3). As in sdcMicro, p ≥ 1
// gives 1/f.
func BenedettiFranconiApprox(f int, p float64) float64 {
	if f < 1 {
		return math.NaN()
	}
	if f <= 2 || p >= 1 {
		return BenedettiFranconi(f, p)
	}
	return p / (float64(f) - (1 - p))
}

// PoissonInverseMoment returns E[1/(f+G)] for G ~ Poisson(ν): the record-level risk
// E[1/F_j | f_j] of the Poisson model, where F_j − f_j ~ Poisson(ν_j) independently of f_j
// (Skinner and Holmes 1998; Elamir and Skinner 2006). For f = 1 it is (1 − e^{−ν})/ν.
func PoissonInverseMoment(f int, nu float64) float64 {
	if f < 1 {
		return math.NaN()
	}
	if !(nu > 0) {
		return 1 / float64(f)
	}
	if f == 1 {
		return -math.Expm1(-nu) / nu
	}
	if math.IsInf(nu, 1) {
		return 0 // the limit: a class of an infinite population
	}
	if nu > 1e5 {
		// Taylor expansion of 1/X about m = E[X] = f+ν with the central moments of
		// Poisson(ν) (ν, ν, 3ν²+ν): relative error below 15/ν³. In powers of r = 1/m
		// and q = ν/m ≤ 1, whose products do not overflow as m³ and 3ν² do past 1e102
		// (a sampling fraction of 1e-200 made NaN).
		r := 1 / (float64(f) + nu)
		q := nu * r
		return r + q*r*r - q*r*r*r + (3*q*q+q*r)*r*r*r
	}
	// Σ_g P(G=g)/(f+g), summed outwards from the mode in log space (e^{−ν} underflows for
	// ν > 745). The pmf at the mode carries the rounding of lgamma (relative ν·1e-16), so
	// the sum is divided by the summed pmf, which is 1 but for that same factor.
	mode := math.Floor(nu)
	lg, _ := math.Lgamma(mode + 1)
	pm := math.Exp(-nu + mode*math.Log(nu) - lg)
	sum, mass := pm/(float64(f)+mode), pm
	const eps = 1e-17
	for g, p := mode+1, pm; ; g++ {
		p *= nu / g
		sum += p / (float64(f) + g)
		mass += p
		if p < eps*mass {
			break
		}
	}
	for g, p := mode, pm; g > 0; g-- {
		p *= g / nu
		sum += p / (float64(f) + g - 1)
		mass += p
		if p < eps*mass {
			break
		}
	}
	return sum / mass
}

// PoissonUniqueProbability returns P(F_j = 1 | f_j = 1) = e^{−ν} of the Poisson model.
func PoissonUniqueProbability(nu float64) float64 { return math.Exp(-nu) }

// SkinnerElliot returns the moment estimator of θ = P(correct match | unique match),
// the share of sample uniques that an intruder holding a population record that matches
// one of them links correctly (Skinner and Elliot 2002, JRSS B 64(4), eq. 8):
//
//	θ̂ = π·n1 / (π·n1 + 2·(1−π)·n2),
//
// with n1 the number of sample uniques, n2 the number of classes with f_j = 2 and π the
// sampling fraction. It returns NaN when n1 = 0.
func SkinnerElliot(n1, n2 int, pi float64) float64 {
	if n1 == 0 {
		return math.NaN()
	}
	a := pi * float64(n1)
	return a / (a + 2*(1-pi)*float64(n2))
}
