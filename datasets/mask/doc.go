// Package mask implements the masking methods used to make benchmark masked files for reid:
// given an original microdata file X it produces a protected version X' whose row i is the
// masked version of row i of X, so that re-identification (record linkage of X' against X)
// can be measured. The methods are the classical ones of the statistical-disclosure-control
// literature and of sdcMicro / mu-Argus, written from their published definitions.
//
// Data are column-major: data[j][i] is attribute j of record i; categorical data are codes
// []int32 in 0 … levels−1. Inputs are never modified; outputs are new slices.
//
// # Methods
//
// Microaggregation (deterministic):
//
//   - MDAV: multivariate fixed-size microaggregation, Maximum Distance to Average Vector
//     (J. Domingo-Ferrer, J.M. Mateo-Sanz, "Practical data-oriented microaggregation for
//     statistical disclosure control", IEEE TKDE 14(1), 2002; algorithm "MDAV-generic" of
//     J. Domingo-Ferrer, V. Torra, "Ordinal, continuous and heterogeneous k-anonymity through
//     microaggregation", Data Min. Knowl. Disc. 11(2), 2005). Distances are squared Euclidean
//     on attributes standardised by their sample sd, d(x, y) = Σ_j (x_j − y_j)²/var_j; groups
//     of k records are formed around the record r farthest from the centroid and the record s
//     farthest from r, the last group has k … 2k−1 records, and every record is replaced by
//     its group mean. Ties follow sdcMicro's C++ Mdav, whose output MDAV reproduces on the
//     CASC Census and EIA files (SDCMICRO.md).
//   - IndividualRanking: univariate microaggregation of each attribute separately (individual
//     ranking; D. Defays, P. Nanopoulos, "Panels of enterprises and confidentiality: the small
//     aggregates method", Statistics Canada, 1993): sort, cut into ⌊n/k⌋ groups of k
//     consecutive ranks (the last absorbs the remainder), replace by the group mean; as
//     sdcMicro's microaggregation(method = "onedims"), which it reproduces.
//
// Perturbative methods (random; rng *math/rand/v2.Rand):
//
//   - AdditiveNoise: x'_ij = x_ij + N(0, (percent/100 · sd_j)²) (uncorrelated noise; R. Brand,
//     "Microdata protection through noise addition", LNCS 2316, 2002; sdcMicro
//     addNoise(method = "additive")).
//   - CorrelatedNoise: x'_i = x_i + N_p(0, percent/100 · Σ), Σ the sample covariance matrix
//     (J. Kim, "A method for limiting disclosure in microdata based on random noise and
//     transformation", ASA Proc. Survey Research Methods, 1986; Brand 2002; sdcMicro
//     addNoise(method = "correlated")). The noise is drawn as A·z with A the Cholesky factor of
//     percent/100 · Σ, or its eigen factor Q·√Λ when Σ is only positive semi-definite.
//   - RankSwap: rank swapping with window p = ⌊percent/100 · n⌋ ranks (R. Moore, "Controlled
//     data-swapping techniques for masking public use microdata sets", U.S. Census Bureau
//     RR96-04, 1996; as in mu-Argus and sdcMicro's argus_rankswap): per attribute, each
//     unswapped rank i is swapped with a uniformly chosen unswapped rank j, i < j ≤ i + p.
//   - PRAM: post-randomisation of a categorical attribute, c → c' with probability P[c][c']
//     (J.M. Gouweleeuw, P. Kooiman, L.C.R.J. Willenborg, P.-P. de Wolf, "Post randomisation
//     for statistical disclosure control: theory and implementation", J. Official Statistics
//     14(4), 1998); UniformPRAMMatrix builds the matrix that keeps a code with probability
//     1 − p and otherwise moves it uniformly to another code.
//
// # Determinism
//
// MDAV and IndividualRanking depend only on their inputs (ties are resolved by row index, as
// documented on each function). The random methods draw only from the rng they are given, in
// a documented order, so the same generator state (e.g. rand.New(rand.NewPCG(seed1, seed2)))
// gives the same output on every platform; percent = 0 returns an unchanged copy without
// drawing.
//
// # Errors
//
// Invalid input gives an error, never a panic: no columns, no records, ragged columns, NaN or
// ±Inf values, k < 1, k larger than the number of records, a negative (or, for RankSwap,
// > 100) percent, a nil rng, too few records to estimate a standard deviation, an invalid PRAM
// matrix or code. Every error is an *Error naming the function and wraps one of the sentinel
// Err… values for errors.Is, e.g. "mask: MDAV: k (5) is larger than the number of records (3)"
// wraps ErrKTooLarge.
package mask
