// Package optimize learns, for a family of aggregation distances (weighted mean, OWA,
// symmetric bilinear form, Choquet integral), the parameters under which distance-based
// record linkage re-identifies the most records: the worst case a data owner must assume.
//
// The problem is the mixed-integer linear program of Abril, Navarro-Arribas & Torra
// ("Improving record linkage with supervised learning for disclosure risk assessment",
// Information Fusion 13(4), 2012): minimise Σ K_i subject to
// θ·(φ(i,j) − φ(i,true(i))) + C·K_i ≥ ε for every competitor j, θ in the family's polytope,
// K_i ∈ {0,1}. Its LP engine is the cgo binding to COIN-OR CLP in the subpackage clp; the
// search itself (row generation, combinatorial Benders cuts, branch and bound) is described
// in the design note, §4.
package optimize
