// Package uniqueness measures the re-identification risk that comes from rare combinations
// of key attributes (quasi-identifiers), as in design note §5.
//
// Count partitions a sample into key classes j, the combinations of the keys' categories
// (numeric keys cut into bins, missing values a category of their own), with sample
// frequencies f_j and, given a population file, population frequencies F_j. Counting
// hashes each record's combination, packed into a 64-bit mixed-radix number, on all cores
// (per-chunk tables merged in order, or hash partitions that stay in cache when most
// combinations are rare); it never sorts the table, and classes are numbered by first
// appearance whatever the number of goroutines.
//
// Measure reports the sample uniques (f_j = 1), the population uniques (F_j = 1), the
// sample uniques that are population uniques and P(PU|SU) = #{j: f_j = 1, F_j = 1} /
// #{j: f_j = 1}, and a record-level risk r_i = E[1/F_j | f_j] summed into the expected
// number of re-identifications Σ r_i and the re-identification rate Σ r_i / n (sdcMicro's
// global_risk_ER and global_risk). With a population file r_i = 1/F_j. Without one F_j is
// estimated from sampling weights or a sampling fraction π:
//
//   - Benedetti and Franconi (1998), F_j − f_j ~ NegBin(f_j, p_j), p_j = f_j / Σ_{i∈j} w_i:
//     r = Σ_{h≥0} C(f+h−1, h) p^f (1−p)^h / (f+h), summed exactly (BenedettiFranconi), or
//     with the μ-Argus approximation p/(f−1+p) for f ≥ 3 that sdcMicro's measure_risk
//     uses (BenedettiFranconiApprox; Franconi and Polettini 2004, "Individual risk
//     estimation in μ-Argus: a review", PSD 2004, LNCS 3050);
//   - the Poisson log-linear model (Skinner and Holmes 1998, "Estimating the
//     re-identification risk per record in microdata", JOS 14(4); Elamir and Skinner
//     2006, "Record level measures of disclosure risk for survey microdata", JOS 22(3)):
//     f_j ~ Poisson(μ_j) with log μ_j linear in the keys' main effects, F_j − f_j ~
//     Poisson(ν_j) with ν_j = μ_j(1−π)/π, so P(F_j = 1 | f_j = 1) = e^{−ν_j} and
//     E[1/F_j | f_j = 1] = (1 − e^{−ν_j})/ν_j;
//   - the Skinner and Elliot (2002) moment estimator of P(correct match | unique match),
//     θ̂ = π·n1 / (π·n1 + 2(1−π)·n2) ("A measure of disclosure risk for microdata", JRSS B
//     64(4)).
//
// On the same classes it checks k-anonymity (the smallest class, the classes and records
// below k), l-diversity of sensitive attributes (distinct and entropy l; Machanavajjhala
// et al. 2007) and t-closeness (earth mover's distance, ordered for numeric and equal for
// categorical attributes; Li, Li and Venkatasubramanian 2007), listing the failing
// classes; both take a missing sensitive value as no value, not as a category. On
// sdcMicro's testdata it reproduces sdcMicro's measure_risk to the printed digits
// (sdcmicro_test.go).
package uniqueness
