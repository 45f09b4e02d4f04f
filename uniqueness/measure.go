package uniqueness

import (
	"fmt"
	"math"
	"slices"

	"github.com/reid-sdc/reid/datasets"
)

// Estimator is the model that estimates the population frequencies F_j when no
// population file is given.
type Estimator uint8

const (
	// BFExact is the Benedetti–Franconi negative binomial model with the exact series.
	BFExact Estimator = iota
	// BFApprox is the same model with the μ-Argus / sdcMicro approximation for f ≥ 3.
	BFApprox
	// Poisson is the Poisson log-linear model with main effects (Skinner and Holmes 1998).
	Poisson
)

// Model names, as written into reports.
const (
	ModelPopulation = "population-count"          // F_j counted in a population file
	ModelSample     = "sample-frequency"          // no population, weights or fraction: F_j = f_j
	ModelBF         = "benedetti-franconi"        // negative binomial, exact series
	ModelBFApprox   = "benedetti-franconi-approx" // negative binomial, μ-Argus approximation
	ModelPoisson    = "poisson-loglinear"         // Poisson log-linear, main effects
)

// String returns the estimator's model name (ModelBF, ModelBFApprox or ModelPoisson).
func (e Estimator) String() string {
	switch e {
	case BFExact:
		return ModelBF
	case BFApprox:
		return ModelBFApprox
	case Poisson:
		return ModelPoisson
	}
	return fmt.Sprintf("Estimator(%d)", uint8(e))
}

// ParseEstimator reads an estimator name: "bf", "bf-approx" or "poisson" (or the model
// names).
func ParseEstimator(s string) (Estimator, error) {
	switch s {
	case "bf", ModelBF:
		return BFExact, nil
	case "bf-approx", ModelBFApprox:
		return BFApprox, nil
	case "poisson", ModelPoisson:
		return Poisson, nil
	}
	return 0, fmt.Errorf("unknown estimator %q (want bf, bf-approx or poisson)", s)
}

// Defaults of the privacy-model checks.
const (
	DefaultK    = 3
	DefaultL    = 2
	DefaultT    = 0.2
	DefaultList = 20
)

// Options says what to measure. The zero value of a check's parameter means its default.
type Options struct {
	// Keys are the key attributes.
	Keys []Key
	// Population, when not nil, is the population file: F_j is counted in it. It must
	// contain the sample: a class with F_j < f_j is an error (PopulationError).
	Population *datasets.Table
	// Weights names the sample's sampling-weight column, whose every value must be at
	// least 1 (ErrWeightBelowOne); Fraction is a sampling fraction π in (0, 1]. At most
	// one may be given. Without a population they select the
	// estimators; without any of the three the sample is taken as the population.
	Weights  string
	Fraction float64
	// Estimator gives the record-level risk when there is no population file.
	Estimator Estimator
	// Sensitive names the attributes checked for l-diversity and t-closeness.
	Sensitive []string
	// K, L and T are the thresholds of k-anonymity, l-diversity and t-closeness (0:
	// DefaultK, DefaultL, DefaultT). Negative values, and NaN or ±Inf for L and T, are an
	// error wrapping ErrBadThreshold.
	K    int
	L, T float64
	// List is the number of failing classes listed per check (0: DefaultList, < 0: all).
	List int
	// Workers is the number of goroutines counting (≤ 0: GOMAXPROCS).
	Workers int
}

// Estimate is one model's record-level risk and its file-level figures.
type Estimate struct {
	Model string
	// Risk[i] is r_i = E[1/F_j | f_j] for the class j of record i (1/F_j when counted).
	Risk []float64
	// ExpectedReidentifications is Σ_i r_i, ReidentificationRate Σ_i r_i / n (sdcMicro's
	// global_risk_ER and global_risk), MaxRisk max_i r_i.
	ExpectedReidentifications, ReidentificationRate, MaxRisk float64
	// SUandPU is the number of sample uniques that are population uniques, counted or
	// expected: Σ_{j: f_j=1} P(F_j = 1 | f_j = 1). PPUgivenSU is SUandPU / #{j: f_j = 1}
	// (NaN without sample uniques).
	SUandPU, PPUgivenSU float64
	// SUMatches is Σ_{j: f_j=1} E[1/F_j | f_j = 1], the expected number of correct matches
	// of the sample uniques (τ2 of Skinner and Holmes 1998).
	SUMatches float64
}

// Result is what Measure reports.
type Result struct {
	Records int
	Classes *Classes
	// SampleUniques is #{j: f_j = 1}; PopulationUniques #{j: F_j = 1} over the
	// population's classes (-1 without a population file).
	SampleUniques, PopulationUniques int
	// Pi is the sampling fraction used by the estimators: Options.Fraction, or n / Σ w_i
	// with weights (0 when neither is given).
	Pi float64
	// Primary is the estimate the headline figures come from: the population count when
	// a population is given, else the chosen estimator, else the sample frequencies.
	Primary *Estimate
	// Estimates holds every model computed, Primary first.
	Estimates []*Estimate
	// SkinnerElliot is the estimate of P(correct match | unique match) with sampling
	// fraction Pi (NaN when Pi is 0 or there is no sample unique).
	SkinnerElliot float64
	KAnonymity    KAnonymity
	LDiversity    []LDiversity
	TCloseness    []TCloseness
}

// Measure counts the key classes of sample and computes every measure asked for.
func Measure(sample *datasets.Table, opts Options) (*Result, error) {
	// Checked first: a bad threshold is the caller's mistake whatever the data.
	if opts.K < 0 {
		return nil, fmt.Errorf("%w: k = %d", ErrBadThreshold, opts.K)
	}
	if err := checkThreshold("l", opts.L); err != nil {
		return nil, err
	}
	if err := checkThreshold("t", opts.T); err != nil {
		return nil, err
	}
	if opts.Weights != "" && opts.Fraction != 0 {
		return nil, ErrWeightsAndPi
	}
	if opts.Fraction != 0 && !(opts.Fraction > 0 && opts.Fraction <= 1) {
		return nil, fmt.Errorf("%w: %v", ErrBadFraction, opts.Fraction)
	}
	isKey := map[string]bool{}
	for _, k := range opts.Keys {
		isKey[k.Name] = true
	}
	if isKey[opts.Weights] {
		return nil, &datasets.InputError{File: sample.Source, Column: opts.Weights, Err: ErrKeyNotAllowed}
	}
	var weights []float64
	if opts.Weights != "" {
		var err error
		if weights, err = sampleWeights(sample, opts.Weights); err != nil {
			return nil, err
		}
	}
	var sens []*datasets.Column
	for _, name := range opts.Sensitive {
		c := sample.Column(name)
		if c == nil {
			return nil, &datasets.InputError{File: sample.Source, Column: name, Err: datasets.ErrNoSuchColumn}
		}
		if isKey[name] {
			return nil, &datasets.InputError{File: sample.Source, Column: name, Err: ErrKeyNotAllowed}
		}
		if row, detail, err := columnProblem(c, sample.Rows()); err != nil {
			return nil, &datasets.InputError{File: sample.Source, Column: name, Row: row + 1, Err: err, Detail: detail}
		}
		sens = append(sens, c)
	}
	classes, err := Count(sample, opts.Population, opts.Keys, opts.Workers)
	if err != nil {
		return nil, err
	}
	if opts.Population != nil {
		// r_i = 1/F_j needs F_j ≥ f_j: otherwise the population is not the sample's.
		if err := classes.CheckPopulation(); err != nil {
			return nil, &datasets.InputError{File: opts.Population.Source, Err: err}
		}
	}

	n := len(classes.Of)
	res := &Result{Records: n, Classes: classes, SampleUniques: classes.Uniques(), PopulationUniques: -1,
		SkinnerElliot: math.NaN()}
	switch {
	case weights != nil:
		sum := 0.0
		for _, w := range weights {
			sum += w
		}
		res.Pi = float64(n) / sum // ≤ 1, every weight being at least 1
	case opts.Fraction > 0:
		res.Pi = opts.Fraction
	}

	if opts.Population != nil {
		res.PopulationUniques = classes.PopulationUniques
		res.Estimates = append(res.Estimates, classes.estimate(ModelPopulation, func(j int) (float64, float64) {
			F := classes.PopFreq[j] // ≥ f_j ≥ 1 (CheckPopulation)
			pu := 0.0
			if F == 1 {
				pu = 1
			}
			return 1 / float64(F), pu
		}))
	}
	if res.Pi > 0 {
		// p_j = f_j / Σ_{i∈j} w_i, or π for a sampling fraction.
		p := make([]float64, classes.Len())
		if weights != nil {
			for i, j := range classes.Of {
				p[j] += weights[i]
			}
			for j := range p {
				p[j] = float64(classes.Freq[j]) / p[j]
			}
		} else {
			for j := range p {
				p[j] = res.Pi
			}
		}
		bf := func(model string, risk func(int, float64) float64) *Estimate {
			// P(F_j = 1 | f_j = 1) = P(NB(1, p) = 0) = p.
			return classes.estimate(model, func(j int) (float64, float64) { return risk(classes.Freq[j], p[j]), p[j] })
		}
		mu := classes.MainEffects()
		poisson := classes.estimate(ModelPoisson, func(j int) (float64, float64) {
			// F_j − f_j ~ Poisson(ν_j), ν_j = (1−π)/π · μ_j.
			nu := mu[j] * (1 - res.Pi) / res.Pi
			return PoissonInverseMoment(classes.Freq[j], nu), PoissonUniqueProbability(nu)
		})
		ests := []*Estimate{bf(ModelBF, BenedettiFranconi), bf(ModelBFApprox, BenedettiFranconiApprox), poisson}
		first := int(opts.Estimator)
		if first >= len(ests) {
			return nil, fmt.Errorf("unknown estimator %v", opts.Estimator)
		}
		res.Estimates = append(res.Estimates, ests[first])
		for i, e := range ests {
			if i != first {
				res.Estimates = append(res.Estimates, e)
			}
		}
		n2 := 0
		for _, f := range classes.Freq {
			if f == 2 {
				n2++
			}
		}
		res.SkinnerElliot = SkinnerElliot(res.SampleUniques, n2, res.Pi)
	}
	if len(res.Estimates) == 0 {
		res.Estimates = append(res.Estimates, classes.estimate(ModelSample, func(j int) (float64, float64) {
			return 1 / float64(classes.Freq[j]), 1
		}))
	}
	res.Primary = res.Estimates[0]

	k, l, t, list := opts.K, opts.L, opts.T, opts.List
	if k == 0 {
		k = DefaultK
	}
	if l == 0 {
		l = DefaultL
	}
	if t == 0 {
		t = DefaultT
	}
	if list == 0 {
		list = DefaultList
	}
	res.KAnonymity = classes.CheckK(k, list)
	for _, c := range sens {
		ld, tc, err := classes.CheckSensitive(c, l, t, list)
		if err != nil {
			return nil, err
		}
		res.LDiversity = append(res.LDiversity, ld)
		res.TCloseness = append(res.TCloseness, tc)
	}
	return res, nil
}

// estimate builds an Estimate from a per-class function returning E[1/F_j | f_j] and,
// for sample uniques, P(F_j = 1 | f_j = 1).
func (c *Classes) estimate(model string, class func(j int) (risk, pu float64)) *Estimate {
	e := &Estimate{Model: model, Risk: make([]float64, len(c.Of))}
	risk := make([]float64, c.Len())
	n1 := 0
	for j := range risk {
		r, pu := class(j)
		risk[j] = r
		if c.Freq[j] == 1 {
			n1++
			e.SUandPU += pu
			e.SUMatches += r
		}
	}
	for i, j := range c.Of {
		r := risk[j]
		e.Risk[i] = r
		e.MaxRisk = max(e.MaxRisk, r)
	}
	// Σ_i r_i = Σ_j f_j·r_j, as accurately as in twice the precision: record by record,
	// 47 classes of a file that is its own population summed to 46.99999999999995.
	f := make([]float64, len(risk))
	for j, n := range c.Freq {
		f[j] = float64(n)
	}
	e.ExpectedReidentifications = dot2(f, risk)
	e.ReidentificationRate = e.ExpectedReidentifications / float64(len(c.Of))
	e.PPUgivenSU = math.NaN()
	if n1 > 0 {
		e.PPUgivenSU = e.SUandPU / float64(n1)
	}
	return e
}

// sampleWeights returns the weight column, checking every weight is present, finite and
// at least 1, and that their sum, the population size they estimate, is finite.
func sampleWeights(t *datasets.Table, name string) ([]float64, error) {
	c := t.Column(name)
	if c == nil {
		return nil, &datasets.InputError{File: t.Source, Column: name, Err: datasets.ErrNoSuchColumn}
	}
	if c.Kind != datasets.Numeric {
		return nil, &datasets.InputError{File: t.Source, Column: name, Err: datasets.ErrNotNumeric}
	}
	if c.Len() != t.Rows() || (c.Valid != nil && len(c.Valid) != t.Rows()) {
		return nil, &datasets.InputError{File: t.Source, Column: name, Err: ErrColumnLength,
			Detail: fmt.Sprintf("%d values, %d missing flags for %d records", c.Len(), len(c.Valid), t.Rows())}
	}
	sum := 0.0
	for i, w := range c.Values {
		if c.Missing(i) {
			return nil, &datasets.InputError{File: t.Source, Column: name, Row: i + 1, Err: ErrMissingWeight}
		}
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, &datasets.InputError{File: t.Source, Column: name, Row: i + 1, Err: ErrBadWeight,
				Detail: fmt.Sprint(w)}
		}
		// Below 1, n/Σw and p_j = f_j/Σ_{i∈j} w_i could exceed 1: not a probability.
		if w < 1 {
			return nil, &datasets.InputError{File: t.Source, Column: name, Row: i + 1, Err: ErrWeightBelowOne,
				Detail: fmt.Sprint(w)}
		}
		// An infinite sum made n/Σw zero, and the weighted estimators were skipped as
		// if no weights were given.
		if sum += w; math.IsInf(sum, 1) {
			return nil, &datasets.InputError{File: t.Source, Column: name, Row: i + 1, Err: ErrWeightSum,
				Detail: fmt.Sprint(w)}
		}
	}
	return slices.Clip(c.Values), nil
}

// ModelDefinition states, in one line, how a model obtains the record-level risk; reports
// print it beside the model's name.
func ModelDefinition(model string) string {
	switch model {
	case ModelPopulation:
		return "r_i = 1/F_j, F_j counted in the population file"
	case ModelSample:
		return "r_i = 1/f_j: no population file, weights or sampling fraction, so the sample is taken as the population"
	case ModelBF:
		return "r_i = E[1/F_j | f_j] with F_j - f_j ~ NegBin(f_j, p_j), p_j = f_j / sum of the class's weights (or the sampling fraction), exact series (Benedetti and Franconi 1998; Franconi and Polettini 2004)"
	case ModelBFApprox:
		return "r_i = E[1/F_j | f_j] with F_j - f_j ~ NegBin(f_j, p_j), p_j = f_j / sum of the class's weights (or the sampling fraction), mu-Argus approximation p_j/(f_j - 1 + p_j) for f_j >= 3 (as sdcMicro's measure_risk)"
	case ModelPoisson:
		return "r_i = E[1/F_j | f_j] with F_j - f_j ~ Poisson(mu_j (1-pi)/pi), mu_j the main-effects log-linear fit to the sample counts (Skinner and Holmes 1998; Elamir and Skinner 2006)"
	}
	return ""
}

// dot2 is Σ_k x_k·y_k computed as if in twice the working precision, then rounded
// (Ogita, Rump and Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6),
// 2005, Algorithm 5.3 Dot2: each product's error by FMA, each sum's by TwoSum).
func dot2(x, y []float64) float64 {
	var p, s float64
	for k := range x {
		h := float64(x[k] * y[k])     // the conversion forbids fusing this into p + h (arm64)
		r := math.FMA(x[k], y[k], -h) // the product's rounding error, exactly
		sum := p + h
		z := sum - p
		q := (p - (sum - z)) + (h - z) // TwoSum: the addition's rounding error, exactly
		p = sum
		s += q + r
	}
	return p + s
}
