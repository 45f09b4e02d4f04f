// Package synth generates realistic synthetic microdata: the embedded default data set of
// reid. `reid demo` generates an original file with it, masks the file and audits the
// masked copy, so that the whole pipeline can be tried without real data.
//
// The file imitates survey/tax microdata of the kind of the CASC "Census" test file
// (income components of the U.S. Current Population Survey): a few categorical key
// attributes an intruder could know, and right-skewed, zero-inflated, correlated money
// amounts tied by exact accounting and tax relations. Record linkage on it therefore
// behaves as on real data: the many zeros, ties and shared derivations make it neither
// trivially easy nor impossible.
//
// The data are synthetic: every record is drawn from a pseudo-random generator and none
// describes a real person or household.
//
// # Use
//
//	t, err := synth.Generate(synth.Settings{Records: 2000, Seed: 1})
//
// Records defaults to DefaultRecords (2000); fewer than 2 is an error wrapping
// datasets.ErrTooFewRecords. The same Settings give the same table, bit for bit, on every
// platform: draws come from a math/rand/v2 PCG seeded with Seed, exp and log are computed
// by portable routines instead of math.Exp and math.Log (which use assembly on some
// architectures), and no product that is then added may be fused into an FMA. A test pins
// the fingerprint of one generated file.
//
// No value is missing, NaN or infinite, every numeric value is a whole number, and no
// column is constant: should a tiny file come out with a constant column, it is redrawn
// from the next PCG stream (about 200 redraws on average for 2 records, 3 for 5,
// practically never any from 50 records on). Categorical levels are numbered in order of
// first appearance, as the loaders of package datasets do, so a file written and read back
// (CSV, Arrow or Parquet) is datasets.Equal to the generated one.
//
// # Columns
//
// Categorical keys:
//
//	age_band   16-24, 25-34, 35-44, 45-54, 55-64, 65+ (adult population: 14,17,17,17,15,20 %)
//	sex        F, M (about 50/50; 56 % women from 65)
//	region     Capital, North, Northeast, East, Southeast, South, West, Northwest: population
//	           shares 20,6,9,13,17,15,12,8 %, sampled proportionally to their square roots
//	           (small regions over-sampled, as in real surveys); each has its own income level
//	           and state tax rate (North has no state income tax)
//	education  primary, secondary, vocational, tertiary (depends on age band; the young and
//	           the old have less tertiary education)
//	marital    single, married, divorced, widowed (depends on age band)
//
// Numeric attributes (money in whole units, all integers):
//
//	age              years, uniform within its band; from 65, 65 plus an exponential of
//	                 mean 9 years, at most 99
//	dependents       children in the household, Poisson (0–6) with a mean by age band and
//	                 marital status
//	wages            0 for the non-employed (employment is logistic in age band, education,
//	                 earning capacity, and children for women); otherwise log-normal with
//	                 log-mean 10.15 + education + region − 0.22·((age−47)/12)² + 0.5·capacity
//	                 − 0.18 for women, σ = 0.45, times 0.3–0.7 for part-timers
//	business_income  0 for most; about 10 % self-employed (more men and middle-aged),
//	                 78 % of them with a log-normal profit (σ = 1.1, heavy tail), the rest
//	                 with a log-normal loss (negative)
//	interest         0 or log-normal (σ = 1.2), probability and level increasing with a
//	                 latent wealth = capacity + age + education + noise
//	other_income     pensions (from 65, and for some 55-64 out of work), transfers (others
//	                 out of work), occasional dividends, rents or alimony (those in work)
//	total_income     wages + business_income + interest + other_income, exactly
//	taxable_income   max(0, total_income − deduction), deduction = standard deduction by
//	                 marital status (5000, 8000, 5000, 6500; +1500 from age 65)
//	                 + 2500 per person (the filer and each dependent)
//	federal_tax      progressive schedule on taxable_income: 10 % up to 9000, 15 % to 36000,
//	                 25 % to 87000, 28 % to 182000, 33 % to 395000, 35 % above; rounded
//	state_tax        region factor (0–1.3) × (2 % up to 20000, 4 % to 60000, 5.5 % above) of
//	                 taxable_income; rounded
//	social_security  6.2 % of wages up to 110000; rounded
//	weight           survey weight: region design weight × age-band non-response
//	                 adjustment × log-normal calibration noise (σ = 0.25); mean about 2000
//
// A standard normal latent "earning capacity" is shared by wages, employment, business
// income, pensions and wealth, so the income components are positively correlated besides
// being linked through total_income and the taxes.
//
// # Properties
//
// The tests check on generated files of 2000 records: the exact relations above; taxes
// non-decreasing in taxable income (state tax within a region) and social security in
// wages; age within its band; signs (only business_income and total_income can be
// negative; weight is positive); every category present; skewness of wages above 1 (about
// 3); correlation of wages with total_income above 0.5 (about 0.75); higher wages with
// tertiary than primary education and at 45-54 than at 16-24; no duplicate record; and
// these shares of zeros:
//
//	wages 30–48 % (about 38 %)        business_income 85–95 % (about 90 %; 0.5–5 % losses)
//	interest 48–64 % (about 56 %)     other_income 56–70 % (about 63 %)
//	total_income 3–9 % (about 6 %)    taxable_income and federal_tax 30–46 % (about 38 %)
//	dependents 58–72 % (about 65 %)
package synth
