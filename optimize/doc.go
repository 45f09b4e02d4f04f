// Package optimize learns, for a family of aggregation distances (weighted mean WM and OWA
// today), the parameters under which distance-based record linkage re-identifies the most
// records: the worst case a data owner must assume. Learn(Problem, Settings) returns a
// Result with the parameters, their correct links, a proven bound, the gap and a Status.
//
// The problem is the mixed-integer linear program of Abril, Navarro-Arribas & Torra
// ("Improving record linkage with supervised learning for disclosure risk assessment",
// Information Fusion 13(4), 2012; also Control and Cybernetics 39(2), 2010):
//
//	minimise Σ_i K_i  s.t.  θ·(φ(i,j) − φ(i,t(i))) + C_i K_i ≥ ε  for every record i and
//	competitor j ≠ t(i),  θ ≥ 0, Σ θ = 1,  K_i ∈ {0,1},
//
// φ the family's feature map (the attribute diffs, sorted decreasingly for OWA) and
// C_i = max_k φ_k(i, t(i)) + ε the per-record big-C (valid because these operators lie
// between the min and the max of their inputs). N − Σ K_i records are linked with margin
// ≥ ε. The full model has N(M−1) rows and is never built (it can be exported as MPS for
// external solvers):
//
//   - Dominance: a record with a competitor whose row has max_k a_k < ε can never be
//     linked (K_i = 1); a row with min_k a_k ≥ ε is never violated, and a row
//     componentwise ≥ another kept row of the same record is implied: both are dropped.
//   - Combinatorial Benders branch and cut (Codato & Fischetti, "Combinatorial Benders'
//     cuts for mixed-integer linear programming", Operations Research 54(4), 2006): a
//     master LP over K ∈ [0,1]^N, minimise Σ K subject to covering cuts Σ_{i∈S} K_i ≥ 1,
//     solved by CLP's warm-started dual simplex inside a best-first branch and bound on K.
//     At each master solution the records with K_i < 1/2 are checked by the θ-subproblem
//     (an LP in θ alone); while it is infeasible, CLP's verified Farkas certificate gives
//     the records in its support, a deletion filter shrinks them to an irreducible
//     infeasible set S (verified again), S becomes a cut, and one record of S is dropped.
//     The filter works on a separate small LP with the support's rows only; each step
//     that keeps a record out is certified, and the set then shrinks at once to the new
//     certificate's support. Records of a known cut inside the set are dropped without an
//     LP. Further cuts come from extending the linkable set in increasing K. Every cut is
//     a proof, so the master's bound is a proven bound at every node.
//   - Row generation: the θ-subproblem starts from each record's nearest competitors; after
//     each LP the pairwise check of the current θ over the record's remaining rows adds
//     the most violated ones, until none is violated.
//   - Records that cannot be linked even alone are found first, each in its own small LP.
//   - Incumbents: the Euclidean θ, every feasible θ of the subproblem, and a local search
//     that links one more record at a time by re-solving the subproblem (under a time
//     limit, one local search gets at most a tenth of the remaining time).
//
// The subproblem imposes the rows at ε + 1e-7 (CLP's primal tolerance set to 1e-10) so
// that a θ it returns links with margin ≥ ε exactly; the final count is made by the
// pairwise core (distances.Search with Closer and Margin ε), which is the MILP's
// criterion, so Result.CorrectLinks = N − Σ K. The search is deterministic.
package optimize
