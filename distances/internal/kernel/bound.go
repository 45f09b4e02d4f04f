package kernel

// unitRoundoff is u = 2⁻⁵³, the unit roundoff of float64 round-to-nearest.
const unitRoundoff = 0x1p-53

// boundSlack is the safety factor over the first-order bound; see ErrorBound.
const boundSlack = 2

// ErrorBound returns B such that, for a query q and a reference r of d attributes whose
// norms qn = QueryNorms(q) and rn = RefNorms(r) were computed by this package,
//
//	|SquaredExpanded(q, r) − Σ_k (q_k − r_k)²| ≤ B = 2·(2d + 3)·u·(qn + rn) + (4d + 4)·2⁻¹⁰⁷⁴
//
// and likewise for the entries SquaredFiltered writes, for every implementation, with
// u = 2⁻⁵³, provided no intermediate overflows. B is increasing in qn and rn, so a bound
// for a whole block follows from its largest norms.
//
// Derivation (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1;
// γ_m = m·u/(1 − m·u); hats denote exact values, Ŝ = q̂n + r̂n, S = qn + rn):
//
//  1. Norms. Both are recursive sums of d squares (plain or fused multiply-adds), so
//     |qn − q̂n| ≤ γ_d·q̂n and |rn − r̂n| ≤ γ_d·r̂n (Higham (3.5)): together γ_d·Ŝ. Hence
//     also Ŝ ≤ S/(1 − γ_d).
//  2. Dot product. p = Σ_k q_k·r_k accumulated in k order (one rounding per product and
//     per addition, or one per fused multiply-add) satisfies |p − p̂| ≤ γ_d·Σ|q_k·r_k|
//     ≤ γ_d·√(q̂n·r̂n) ≤ γ_d·Ŝ/2 (Cauchy–Schwarz, then the AM–GM inequality). The factor
//     2 of 2p is exact, so 2p is off by at most γ_d·Ŝ.
//  3. s = fl(qn + rn) adds at most u·S.
//  4. The result fl(s − 2p) (a subtraction, or a fused multiply-add, which rounds once
//     too since 2p is exact) adds at most u·|s − 2p| ≤ u·(D̂ + E), where E = 2γ_d·Ŝ + u·S
//     is the error accumulated in steps 1–3 and D̂ = |q − r|² ≤ (|q| + |r|)² ≤ 2Ŝ.
//
// In total |result − D̂| ≤ (1 + u)·E + 2u·Ŝ ≤ [(1 + u)(2γ_d/(1 − γ_d) + u) + 2u/(1 − γ_d)]·S
// = (2d + 3)·u·S·(1 + O(d·u)).
//
// SquaredFiltered adds in the other order, qn + fl(rn − 2p): steps 3–4 become the rounding
// of t = rn − 2p, at most u·(rn + 2|p|) ≤ 2u·Ŝ·(1 + γ_d) (by step 2, 2|p| ≤ Ŝ·(1 + γ_d)),
// and of qn + t, at most u·(D̂ + E') with E' = 2γ_d·Ŝ + 2u·Ŝ·(1 + γ_d): in total
// (2d + 4)·u·S·(1 + O(d·u)), which the same bound covers (2·(2d + 3) ≥ 2d + 4).
//
// Its AVX-512 implementation accumulates t from rn instead: t_0 = rn, t_k = fl(t_(k−1) +
// (−2q_k)·r_k) by fused multiply-adds (−2q_k exact, see PackQueries). That is a recursive
// sum of the d + 1 terms rn, −2q_1·r_1, …, −2q_d·r_d, each product exact inside its FMA,
// so |t − (rn − 2p̂)| ≤ γ_d·(rn + 2Σ|q_k·r_k|) ≤ γ_d·(rn + Ŝ) ≤ 2γ_d·Ŝ·(1 + γ_d) (Higham
// (3.5) and step 2); with step 1 for the norms and the rounding of qn + t, at most
// u·(D̂ + E₂) with E₂ = 3γ_d·Ŝ·(1 + γ_d): in total (3d + 2)·u·S·(1 + O(d·u)), which the
// bound covers too (2·(2d + 3) ≥ (4/3)·(3d + 2) for every d ≥ 0).
//
// The O(d·u) term is below 2⁻³⁰ for any d < 2²⁰, so the factor 2 (boundSlack) covers it
// (and the filtered forms' larger first-order terms) with room to spare without loosening the bound
// materially: the scanner only re-checks candidates within B of the best, and for
// standardised data (q̂n, r̂n ≈ d) B is ~10⁻¹³, i.e. it only catches near-ties. Gradual
// underflow adds an absolute error of at most 2⁻¹⁰⁷⁵ per product or fused rounding (at
// most 3d + 1 of them, the dot product's counted twice), which the last term covers.
//
// The bound is first order in d·u; the typical error of random rounding is closer to
// √d·u·S. It is relative to qn + rn, not to the distance: records far from the origin
// relative to their distance (a large common offset) lose accuracy to cancellation,
// which is what the scanner's direct re-check is for.
func ErrorBound(qn, rn float64, d int) float64 {
	fd := float64(d)
	return boundSlack*(2*fd+3)*unitRoundoff*(qn+rn) + (4*fd+4)*0x1p-1074
}
