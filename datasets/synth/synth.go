package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/reid-sdc/reid/datasets"
)

// DefaultRecords is the number of records generated when Settings.Records is 0.
const DefaultRecords = 2000

// Settings configures Generate. The zero value is valid: DefaultRecords records from seed 0.
type Settings struct {
	// Records is the number of records to generate (at least 2); 0 means DefaultRecords.
	Records int
	// Seed selects the pseudo-random sequence. The same Settings always give the same table.
	Seed uint64
}

// Column names, in the order in which they appear in the generated table.
const (
	ColAgeBand        = "age_band"
	ColSex            = "sex"
	ColRegion         = "region"
	ColEducation      = "education"
	ColMarital        = "marital"
	ColAge            = "age"
	ColDependents     = "dependents"
	ColWages          = "wages"
	ColBusinessIncome = "business_income"
	ColInterest       = "interest"
	ColOtherIncome    = "other_income"
	ColTotalIncome    = "total_income"
	ColTaxableIncome  = "taxable_income"
	ColFederalTax     = "federal_tax"
	ColStateTax       = "state_tax"
	ColSocialSecurity = "social_security"
	ColWeight         = "weight"
)

// streamKey is the PCG stream selector of the first attempt (ASCII "reidsynt").
const streamKey uint64 = 0x7265696473796e74

// maxAttempts bounds the redraws made when a tiny file comes out with a constant column.
const maxAttempts = 1 << 16

// Generate returns a synthetic census-like microdata file: five categorical key attributes
// followed by twelve integer-valued numeric attributes (see the package documentation).
// No value is missing, none is NaN or infinite, and no column is constant. The same
// Settings give the same table, value for value, on every platform.
//
// Generate fails, wrapping datasets.ErrTooFewRecords, when Records is negative or 1.
func Generate(s Settings) (*datasets.Table, error) {
	n := s.Records
	if n == 0 {
		n = DefaultRecords
	}
	if n < 2 {
		return nil, fmt.Errorf("synth: Records = %d: %w", s.Records, datasets.ErrTooFewRecords)
	}
	ps := make([]person, n)
	for attempt := range maxAttempts {
		g := &rng{rand.New(rand.NewPCG(s.Seed, streamKey+uint64(attempt)))}
		for i := range ps {
			ps[i] = g.person()
		}
		t := build(ps)
		if !hasConstantColumn(t) {
			t.Source = fmt.Sprintf("synth(records=%d,seed=%d)", n, s.Seed)
			return t, nil
		}
	}
	// Unreachable in practice: even with two records a redraw succeeds with probability
	// above 1/1000, so 65536 of them all failing has probability below 1e-28.
	return nil, fmt.Errorf("synth: Records = %d, seed %d: %w", n, s.Seed, datasets.ErrConstantColumn)
}

// person is one generated record; categorical attributes are indices into the label tables.
type person struct {
	band, sex, region, edu, marital int

	age, dependents                              float64
	wages, business, interest, other             float64
	total, taxable, fedTax, stateTax, socSec, wt float64
}

// ageBand describes one age band: its ages, its population share, and the distributions of
// the attributes that depend on age.
type ageBand struct {
	label    string
	lo, hi   int        // ages; the last band is open-ended (see drawAge)
	share    float64    // share of the adult population
	empLogit float64    // logit of the employment rate before education and capacity
	edu      [4]float64 // distribution of education
	marital  [4]float64 // distribution of marital status
	kids     [2]float64 // mean number of dependents: not married, married
	female   float64    // share of women
	response float64    // non-response adjustment of the survey weight
}

var bands = [...]ageBand{
	{"16-24", 16, 24, 0.14, 0.20, [4]float64{.15, .50, .20, .15}, [4]float64{.90, .09, .01, 0}, [2]float64{.08, .60}, .49, 1.25},
	{"25-34", 25, 34, 0.17, 1.52, [4]float64{.08, .35, .25, .32}, [4]float64{.50, .44, .06, 0}, [2]float64{.45, 1.2}, .50, 1.10},
	{"35-44", 35, 44, 0.17, 1.66, [4]float64{.10, .37, .25, .28}, [4]float64{.25, .62, .12, .01}, [2]float64{.70, 1.7}, .50, 1.00},
	{"45-54", 45, 54, 0.17, 1.52, [4]float64{.14, .40, .24, .22}, [4]float64{.16, .64, .17, .03}, [2]float64{.40, .90}, .50, 0.97},
	{"55-64", 55, 64, 0.15, 0.49, [4]float64{.20, .40, .22, .18}, [4]float64{.11, .65, .17, .07}, [2]float64{.08, .25}, .51, 0.95},
	{"65+", 65, 99, 0.20, -2.20, [4]float64{.32, .38, .16, .14}, [4]float64{.06, .55, .12, .27}, [2]float64{.01, .03}, .56, 0.90},
}

var sexes = [...]string{"F", "M"}

var educations = [...]string{"primary", "secondary", "vocational", "tertiary"}

// Effects of education on log wages and on the employment logit.
var (
	eduWage = [...]float64{-0.35, 0, 0.10, 0.45}
	eduEmp  = [...]float64{-0.40, 0, 0.20, 0.50}
)

var maritals = [...]string{"single", "married", "divorced", "widowed"}

const married = 1

// region describes one region: its population share, its effect on log incomes and the
// factor applied to the state tax schedule (0: no state income tax).
type region struct {
	name   string
	pop    float64
	income float64
	state  float64
}

var regions = [...]region{
	{"Capital", 0.20, 0.20, 1.25},
	{"North", 0.06, -0.12, 0},
	{"Northeast", 0.09, -0.05, 0.90},
	{"East", 0.13, 0.02, 1.00},
	{"Southeast", 0.17, 0.08, 1.10},
	{"South", 0.15, -0.08, 0.70},
	{"West", 0.12, 0, 1.30},
	{"Northwest", 0.08, -0.10, 0.80},
}

// The survey samples regions proportionally to the square root of their population
// (small regions are over-sampled), so the design weight of region r is proportional to
// pop[r]/sample[r] and the weighted mean of the weights is baseWeight.
var (
	bandShares   [len(bands)]float64
	regionSample [len(regions)]float64
	regionWeight [len(regions)]float64
)

const baseWeight = 2000

func init() {
	for i := range bands {
		bandShares[i] = bands[i].share
	}
	sum := 0.0
	for i := range regions {
		regionSample[i] = math.Sqrt(regions[i].pop)
		sum += regionSample[i]
	}
	for i := range regions {
		regionSample[i] /= sum
		regionWeight[i] = baseWeight * regions[i].pop / regionSample[i]
	}
}

// bracket is one bracket of a tax schedule: the rate applies to income above lo (and up to
// the next bracket's lo).
type bracket struct{ lo, rate float64 }

var (
	federalSchedule = []bracket{{0, .10}, {9000, .15}, {36000, .25}, {87000, .28}, {182000, .33}, {395000, .35}}
	stateSchedule   = []bracket{{0, .02}, {20000, .04}, {60000, .055}}
)

// Deductions and social security.
const (
	exemption       = 2500   // per person: the filer and each dependent
	elderlyExtra    = 1500   // added to the standard deduction from age 65
	socialRate      = 0.062  // social security contribution rate on wages
	socialWageCap   = 110000 // wages above this are not subject to it
	maxDependents   = 6
	oldestAge       = 99
	retirementMean  = 9.0 // mean years above 65 in the open age band
	capacityOnWages = 0.5
)

var standardDeduction = [len(maritals)]float64{5000, 8000, 5000, 6500}

// scheduleTax applies a progressive schedule to income x. It is non-decreasing in x, also
// in floating point: every term is, and rounded addition is monotone.
func scheduleTax(x float64, sch []bracket) float64 {
	tax := 0.0
	for i, b := range sch {
		if x <= b.lo {
			break
		}
		top := x
		if i+1 < len(sch) && sch[i+1].lo < top {
			top = sch[i+1].lo
		}
		tax += float64((top - b.lo) * b.rate)
	}
	return tax
}

// money rounds a positive amount to whole units, keeping at least 1 so that a drawn
// amount never reads as "none".
func money(x float64) float64 { return max(1, math.Round(x)) }

// rng draws from a PCG stream. All arithmetic on the draws goes through the portable
// routines of detmath.go; products that are then added are wrapped in float64(...) so that
// they cannot be fused (see detmath.go).
type rng struct{ r *rand.Rand }

func (g *rng) unif() float64 { return g.r.Float64() }

func (g *rng) bern(p float64) bool { return g.r.Float64() < p }

// norm returns a standard normal deviate (Marsaglia's polar method).
func (g *rng) norm() float64 {
	for {
		u := float64(2*g.r.Float64()) - 1
		v := float64(2*g.r.Float64()) - 1
		s := float64(u*u) + float64(v*v)
		if s > 0 && s < 1 {
			return u * math.Sqrt(-2*detLog(s)/s)
		}
	}
}

// logNormal returns exp(mu + sigma·Z).
func (g *rng) logNormal(mu, sigma float64) float64 {
	return detExp(mu + float64(sigma*g.norm()))
}

// choose returns i with probability w[i]/sum(w).
func (g *rng) choose(w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	u := g.r.Float64() * total
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// poisson returns a Poisson deviate of mean lambda, at most limit (Knuth's method).
func (g *rng) poisson(lambda float64, limit int) int {
	floor := detExp(-lambda)
	k, p := 0, g.r.Float64()
	for p > floor && k < limit {
		k++
		p *= g.r.Float64()
	}
	return k
}

// drawAge returns an age in band b: uniform in closed bands; in the open band 65 plus an
// exponential number of years, redrawn above oldestAge.
func (g *rng) drawAge(b *ageBand) int {
	if b.hi < oldestAge {
		return b.lo + g.r.IntN(b.hi-b.lo+1)
	}
	for {
		a := b.lo + int(-retirementMean*detLog(1-g.r.Float64()))
		if a <= oldestAge {
			return a
		}
	}
}

// person draws one record.
func (g *rng) person() person {
	var p person
	p.band = g.choose(bandShares[:])
	b := &bands[p.band]
	age := g.drawAge(b)
	p.age = float64(age)
	p.sex = 1
	if g.bern(b.female) {
		p.sex = 0
	}
	female := p.sex == 0
	p.region = g.choose(regionSample[:])
	reg := &regions[p.region]
	p.edu = g.choose(b.edu[:])
	p.marital = g.choose(b.marital[:])
	lambda := b.kids[0]
	switch p.marital {
	case married:
		lambda = b.kids[1]
	case 2: // divorced
		lambda = (b.kids[0] + b.kids[1]) / 2
	}
	kids := g.poisson(lambda, maxDependents)
	p.dependents = float64(kids)

	// Latent earning capacity, shared by all income components.
	capacity := g.norm()

	// Wages: employment depends on age, education, capacity and (for women) children.
	x := b.empLogit + eduEmp[p.edu] + float64(0.35*capacity)
	if female && kids > 0 {
		x -= float64(0.25 * float64(min(kids, 3)))
	}
	employed := g.bern(logistic(x))
	if employed {
		a := (p.age - 47) / 12
		mu := 10.15 + eduWage[p.edu] + reg.income - float64(float64(0.22*a)*a) + float64(capacityOnWages*capacity)
		if female {
			mu -= 0.18
		}
		w := g.logNormal(mu, 0.45)
		partTime := 0.10
		if p.band == 0 {
			partTime += 0.20
		}
		if age >= 55 {
			partTime += 0.15
		}
		if female && kids > 0 {
			partTime += 0.15
		}
		if g.bern(partTime) {
			w *= 0.3 + float64(0.4*g.unif())
		}
		p.wages = money(w)
	}

	// Business income: a minority of (mostly middle-aged, male) self-employed; most make a
	// profit with a heavy tail, some report a loss.
	x = -2.6 + float64(0.3*capacity)
	if !female {
		x += 0.3
	}
	switch {
	case p.band == 0:
		x -= 0.8
	case p.band >= 2 && p.band <= 4:
		x += 0.4
	}
	if g.bern(logistic(x)) {
		if g.bern(0.78) {
			p.business = money(g.logNormal(9.4+reg.income+float64(0.5*capacity), 1.1))
		} else {
			p.business = -money(g.logNormal(8.2, 1.0))
		}
	}

	// Interest: driven by wealth, which grows with capacity, age and education.
	wealth := float64(0.55*capacity) + float64(0.5*(p.age-45)/20) + float64(0.15*(float64(p.edu)-1.5)) + float64(0.7*g.norm())
	if g.bern(logistic(-0.4 + float64(1.1*wealth))) {
		p.interest = money(g.logNormal(4.6+float64(0.8*wealth), 1.2))
	}

	// Other income: pensions from 65 (and for some non-working 55-64), transfers for
	// others out of work, occasional dividends, rents or alimony for those in work.
	switch {
	case age >= 65 || (age >= 55 && !employed && g.bern(0.45)):
		p.other = money(g.logNormal(9.55+float64(0.3*capacity)+float64(0.3*eduWage[p.edu]), 0.45))
	case !employed:
		if g.bern(0.45) {
			p.other = money(g.logNormal(8.3, 0.7))
		}
	default:
		if g.bern(0.12) {
			p.other = money(g.logNormal(7.2, 1.1))
		}
	}

	// Derived amounts: exact relations, as in a tax file.
	p.total = p.wages + p.business + p.interest + p.other
	deduction := standardDeduction[p.marital] + float64(exemption*(1+kids))
	if age >= 65 {
		deduction += elderlyExtra
	}
	p.taxable = max(0, p.total-deduction)
	p.fedTax = math.Round(scheduleTax(p.taxable, federalSchedule))
	p.stateTax = math.Round(reg.state * scheduleTax(p.taxable, stateSchedule))
	p.socSec = math.Round(socialRate * min(p.wages, socialWageCap))

	// Survey weight: region design weight, age non-response adjustment, calibration noise.
	p.wt = money(float64(regionWeight[p.region]*b.response) * g.logNormal(0, 0.25))
	return p
}

// build turns records into a table.
func build(ps []person) *datasets.Table {
	n := len(ps)
	cat := func(name string, labels []string, get func(*person) int) datasets.Column {
		c := datasets.Column{Name: name, Kind: datasets.Categorical, Codes: make([]int32, n)}
		code := make([]int32, len(labels)) // label index -> code + 1 (0: not seen yet)
		for i := range ps {
			l := get(&ps[i])
			if code[l] == 0 {
				c.Levels = append(c.Levels, labels[l])
				code[l] = int32(len(c.Levels))
			}
			c.Codes[i] = code[l] - 1
		}
		return c
	}
	num := func(name string, get func(*person) float64) datasets.Column {
		c := datasets.Column{Name: name, Kind: datasets.Numeric, Values: make([]float64, n)}
		for i := range ps {
			c.Values[i] = get(&ps[i])
		}
		return c
	}
	bandLabels := make([]string, len(bands))
	for i := range bands {
		bandLabels[i] = bands[i].label
	}
	regionLabels := make([]string, len(regions))
	for i := range regions {
		regionLabels[i] = regions[i].name
	}
	return &datasets.Table{Columns: []datasets.Column{
		cat(ColAgeBand, bandLabels, func(p *person) int { return p.band }),
		cat(ColSex, sexes[:], func(p *person) int { return p.sex }),
		cat(ColRegion, regionLabels, func(p *person) int { return p.region }),
		cat(ColEducation, educations[:], func(p *person) int { return p.edu }),
		cat(ColMarital, maritals[:], func(p *person) int { return p.marital }),
		num(ColAge, func(p *person) float64 { return p.age }),
		num(ColDependents, func(p *person) float64 { return p.dependents }),
		num(ColWages, func(p *person) float64 { return p.wages }),
		num(ColBusinessIncome, func(p *person) float64 { return p.business }),
		num(ColInterest, func(p *person) float64 { return p.interest }),
		num(ColOtherIncome, func(p *person) float64 { return p.other }),
		num(ColTotalIncome, func(p *person) float64 { return p.total }),
		num(ColTaxableIncome, func(p *person) float64 { return p.taxable }),
		num(ColFederalTax, func(p *person) float64 { return p.fedTax }),
		num(ColStateTax, func(p *person) float64 { return p.stateTax }),
		num(ColSocialSecurity, func(p *person) float64 { return p.socSec }),
		num(ColWeight, func(p *person) float64 { return p.wt }),
	}}
}

// hasConstantColumn reports whether some column holds a single value.
func hasConstantColumn(t *datasets.Table) bool {
	for j := range t.Columns {
		c := &t.Columns[j]
		if c.Kind == datasets.Categorical {
			if len(c.Levels) < 2 {
				return true
			}
			continue
		}
		constant := true
		for _, v := range c.Values[1:] {
			if v != c.Values[0] {
				constant = false
				break
			}
		}
		if constant {
			return true
		}
	}
	return false
}
