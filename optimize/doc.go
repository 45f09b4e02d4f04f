// Package optimize learns, for a family of aggregation distances (weighted mean WM, OWA,
// the symmetric bilinear form and the Choquet integral), the parameters under which
// distance-based record linkage re-identifies the most records: the worst case a data
// owner must assume, since an intruder may use any distance of the family.
//
// A Problem holds the query and reference records, standardised and column-major as for
// linkage.DBRL (x[k][i] is attribute k of record i, as datasets.Table.NumericMatrix gives
// them), the true reference of each query (−1 for none: such a query is left out), and the
// Family whose parameters θ are learned: WM, OWA, Bilinear, Choquet or Choquet2.
// Learn(Problem, Settings) returns a Result; Settings sets the margin ε, a time or work
// limit, the seed and the threads, and its zero value is usable. LearnContext is Learn stopped when
// its context is done, as a user's interrupt stops a solver.
//
// # Reading a Result
//
// Params is θ, in the layout of the family's distances.Operator (Family.Operator builds
// the operator). CorrectLinks counts the records whose true partner is closer than every
// other reference by at least ε under Params, out of N, the queries with a true partner;
// DBRLLinks counts them at any margin, as linkage.DBRL would. Bound is a proven upper
// bound on CorrectLinks over every θ of the family, and Gap = (Bound − CorrectLinks) /
// Bound. Status says how to read the two:
//
//   - Optimal: Bound = CorrectLinks. No distance of the family links more records, so
//     CorrectLinks / N is the family's worst-case Reid.
//   - TimeLimit (Settings.TimeLimit), WorkLimit (Settings.WorkLimit) or Interrupted
//     (LearnContext): the search stopped
//     early. CorrectLinks is achieved by Params, so the worst case is at least that, and
//     Bound still holds, so it is at most that: report the interval, not CorrectLinks
//     alone. Note says why, when the search stopped before it began.
//
// The search is deterministic for a given Settings.Seed unless a time limit cuts it short:
// its phases get shares of the limit, and how far each got in its share decides the next.
// Under Settings.WorkLimit they get shares of the work the search counts in its own steps
// (LP iterations, line-search rows, margins evaluated; Stats.Work), so a search stopped
// by it is deterministic too, under any load and number of threads (and on any machine
// of the same architecture with the same build).
// Settings.Progress receives the anytime state (Report) as the search runs. A lower
// family's optimum, lifted by Family.Lift (Family.WarmStarts orders several), warm-starts a
// larger family in Settings.WarmStarts, and CheckHierarchy checks that the results of
// several families respect their inclusions (Family.Contains). The "design note §4" those
// two cite is design.md §4, the project's architecture document, kept beside the
// repository.
//
// # Errors
//
// Errors a caller may branch on with errors.Is:
//
//   - ErrNoRecords: no query has a true partner, so there is nothing to learn.
//   - ErrTooLarge: the problem's reductions would not fit in memory.
//   - distances.ErrShape: sizes that do not match (attributes, records, Truth).
//   - distances.ErrNotFinite: a NaN or ±Inf in Queries or Refs, found before any work.
//
// # Algorithm
//
// The problem is the mixed-integer linear program of Abril, Navarro-Arribas & Torra
// ("Improving record linkage with supervised learning for disclosure risk assessment",
// Information Fusion 13(4), 2012; also Control and Cybernetics 39(2), 2010):
//
//	minimise Σ_i K_i  s.t.  θ·(φ(i,j) − φ(i,t(i))) + C_i K_i ≥ ε  for every record i and
//	competitor j ≠ t(i),  θ in the family,  K_i ∈ {0,1},
//
// t(i) the true partner of record i and K_i = 1 when record i is given up; a = φ(i,j) −
// φ(i,t(i)) is the row of record i and competitor j. φ is the family's feature map (the
// attribute diffs, sorted decreasingly for OWA; the products x_k x_l for bilinear; the
// chain of the sorted diffs for Choquet) and C_i the per-record big-C: max_k diff_k(i, t(i))
// + ε for WM, OWA and Choquet (they lie between the min and the max of their inputs),
// Σ_k diff_k(i, t(i)) + ε for the trace-normalised PSD bilinear form. The family's set of
// θ: the simplex (WM, OWA); W symmetric PSD with trace 1 (Abril, Torra & Navarro-Arribas,
// Information Fusion 26, 2015), decided exactly as a game over rank-one matrices (see the
// θ-subproblem below; with the COIN-OR LP solver CLP instead, kept PSD by eigenvector cuts
// vᵀWv ≥ 0 added when an LP point has a negative eigenvalue); a normalised monotone fuzzy
// measure, its monotonicity rows added when violated (Abril, Navarro-Arribas & Torra,
// Annals of Operations Research 195, 2012); for more attributes, a 2-additive measure in
// Möbius form (Grabisch 1997), monotone by m linear rows over auxiliary columns. A family
// supplies only its features, its set of θ and its constraints (implementation: space.go);
// the search below is the same for all. N − Σ K_i records are linked with margin ≥ ε. The
// full model has N(M−1) rows and is never built (it can be exported as MPS for external
// solvers, Settings.ExportMPS):
//
//   - Dominance (WM, OWA, Choquet: monotone in the diffs; none for bilinear): a record with
//     a competitor whose row has max_k a_k < ε can never be linked (K_i = 1); a row with
//     min_k a_k ≥ ε is never violated, and a row componentwise ≥ another kept row of the
//     same record is implied: both are dropped.
//   - Combinatorial Benders branch and cut (Codato & Fischetti, "Combinatorial Benders'
//     cuts for mixed-integer linear programming", Operations Research 54(4), 2006): a
//     master LP over K ∈ [0,1]^N, minimise Σ K subject to covering cuts Σ_{i∈S} K_i ≥ 1,
//     solved warm-started inside a best-first branch and bound on K (see below for how).
//     The master keeps the cuts that bind: past 500 cut rows those slack at its last
//     solution are dropped, and any cut of the pool its solution violates comes back. A
//     node branches once a round of cuts raises the master's objective by less than 0.1.
//     At each master solution the records with K_i < 1/2 are checked by the θ-subproblem
//     (an LP in θ alone); while it is infeasible, CLP's verified Farkas certificate gives
//     the records in its support, a deletion filter shrinks them to an irreducible
//     infeasible set S (verified again), S becomes a cut, and one record of S is dropped.
//     The filter works on a separate small LP with the support's rows only; each step
//     that keeps a record out is certified, and the set then shrinks at once to the new
//     certificate's support. Records of a known cut inside the set are dropped without an
//     LP. Further cuts come from extending the linkable set in increasing K. Every cut is
//     a proof, so the master's bound is a proven bound at every node.
//   - Row generation: the θ-subproblem starts from each record's nearest competitors
//     (Settings.InitialRows); after each LP the pairwise check of the current θ over the
//     record's remaining rows adds the most violated ones, until none is violated.
//   - Twins: records whose standardised values are identical have one nearest reference,
//     so of a group G of them with different true partners at most the members of one
//     partner can be linked. The master starts with the clique row Σ_{i∈G} K_i ≥ |G| − 1
//     (its pairs are irreducible infeasible sets: their two rows sum to 0 ≥ 2ε); on a
//     microaggregated file (MDAV, group size k) this caps the bound at N/k from the start.
//   - Cliques: the two-record cuts (twins included) make a conflict graph, each clique of
//     which has at most one linked record; the master gets Σ_{i∈C} K_i ≥ |C| − 1 for the
//     cliques its solution violates, grown greedily to maximal ones (on microaggregated
//     files they join groups of which no two records can be linked together).
//   - Records that cannot be linked even alone are found first, each in its own small LP.
//   - Blocks (files with 200 or more records not ruled out; implementation: blocks.go):
//     before the tree, the records are split into blocks of about 100, each searched as a
//     problem of its own (its records, every competitor). No θ links more of a block than
//     the block's best θ, so Σ_{i∈B} K_i ≥ |B| − U_B, U_B the block's proven bound, is a
//     row of the master, and the blocks' cuts join its pool (a Lagrangian decomposition
//     with one θ per block). The blocks are searched four at a time, each from the same
//     state of the file's search, on up to Settings.Threads goroutines (the result does
//     not depend on the threads). A block not proven within its time is split in halves.
//     While a pass proves every block and raises the bound, a next pass searches half as
//     many blocks, twice as large, each starting from the rows of the blocks inside it (on
//     the benchmark file noise_correlated_50 under OWA, two blocks of 190 records bound
//     176 where three of 127 bound 184); the bound is the best pass's. Under a time limit
//     the first pass gets half of the time left, a later pass three quarters of what is
//     left when it starts. On the CENSUS files with many near ties the blocks' rows are
//     most of the bound (bench/README.md in the repository). The blocks' best θs then
//     start the line searches described under Incumbents, on the whole file.
//   - Neighbourhoods (the same files; implementation: neighbourhood.go): after the blocks,
//     a large neighbourhood search on the incumbent. A few unlinked records are opened,
//     and the linked members of their covering cuts released; every other linked record
//     must stay linked (K = 0 at the root of a small tree of its own), which confines θ
//     to a small polyhedron, and the tree finds the best records of the neighbourhood
//     exactly: exchanges of several linked records for several others, which neither the
//     local search (it only adds records) nor the line search (one line at a time) makes.
//     Sizes double while the neighbourhoods are proven without a gain.
//   - Incumbents: the Euclidean θ, every feasible θ of the subproblem, and a local search
//     that links one more record at a time by re-solving the subproblem (under a time
//     limit, one local search gets at most a tenth of the remaining time). For WM, OWA
//     and bilinear also an exact line search on the number of links (implementation:
//     linesearch.go): along a line θ + tD (D = e_k − e_l on the simplex; for W, weight
//     moved between two diagonal entries or one off-diagonal entry, as far as W stays
//     PSD) each record is linked on an interval of t, so sorting the intervals' ends
//     finds the t that links the most records, even if it gives up some that θ links.
//     Climbing along such lines with random kicks (an iterated local search seeded by
//     Settings.Seed) runs before the tree and every 100 nodes; on the microaggregated
//     CENSUS files, 2-minute searches with it link 0–4 more records than 10-minute
//     searches without it (bench/README.md). Before it, for bilinear, a local search from
//     several starts (the incumbent, the Euclidean W, KISSME's W ∝ Σ_S⁻¹ − Σ_D⁻¹ and the
//     Mahalanobis W ∝ Σ_S⁻¹ of the true pairs' differences), each a smooth ascent
//     followed, on files with twin groups, by a swap search (implementation:
//     metricstart.go, soft.go, swap.go). The ascent makes projected gradient steps on
//     Σ_i σ(s_i/τ), s_i the soft minimum of record i's margins minus ε, with τ lowered
//     towards ε (the smoothing of neighbourhood components analysis); it moves all 91
//     entries of a 13-attribute W at once, where a line moves one or two. The swap
//     search: for a record of a group with room whose addition is infeasible, each linked
//     record with the most weight in the Farkas certificate is given up in turn for
//     another member of its own group, the θ-LP deciding each move (the local search only
//     adds records, so it stops where a group must change its linked member for another
//     group to gain one).
//
// The θ-subproblem of WM and OWA is a matrix game (implementation: gamelp.go): rows a·θ ≥
// lo on the simplex hold exactly when max_θ min_r (a_r − lo)·θ ≥ 0, an LP whose dual has a
// basis of m + 1 columns whatever the number of rows; a small primal simplex in Go solves
// it in microseconds, returns the maximin θ or a verified Farkas certificate, and stops as
// soon as one is found. The bilinear form's is a game too (implementation: psdgame.go):
// the PSD matrices of trace 1 are the convex hull of the rank-one vvᵀ, so the rows hold
// exactly when min_y λ_max(Σ_r y_r (A_r − lo_r I)) ≥ 0; the same simplex plays the rows
// against a few such strategies, and each round adds the top eigenvector of the optimal
// y's matrix (column generation, smoothed towards the best y) until the restricted game is
// feasible (its W is PSD by construction) or some y has λ_max < 0 (a certificate). No
// eigenvector cuts: every answer is exact for the cone. The Choquet families' θ-LPs are
// solved by CLP.
//
// The master LP of up to 300 records is solved through its dual in Go (implementation:
// masterlp.go): a packing LP with one equality per record, whose constraints branching
// never changes (bounds on K are costs there) and to which a cut adds a column, so a
// primal simplex resumes from the last basis. It keeps the inverse of the basis's kernel
// only (the records not covered by a basic dual of one of their bounds on K, against the
// basic cuts: about half the order), and prices the cuts partially, in chunks; its bound is the
// Lagrangian bound of its dual point y, valid for any y ≥ 0. It needs half of CLP's CPU
// time per re-solve at 100–200 records; larger masters stay on CLP's dual simplex, whose
// bound is likewise the Lagrangian bound of CLP's duals (clp.Model.LagrangianBound), not
// the objective it reports.
//
// The subproblem imposes the rows at ε + 1e-7 (CLP's primal tolerance set to 1e-10) so
// that a θ it returns links with margin ≥ ε exactly; its infeasibility certificates, the
// cuts' proofs, are certificates of the rows at ε itself (the one-record checks and the
// deletion filter likewise), so that the bound is a proof at the margin the links are
// counted at. A set of records infeasible at ε + 1e-7 but not provably at ε is tried at
// thresholds closer to ε, down to ε + 1e-9, and otherwise left undecided, its node's
// bound kept (a knife edge, said in Result.Note). The final count is made by the
// pairwise core (distances.Search with CountCloser and Margin ε), which is the MILP's
// criterion, so Result.CorrectLinks = N − Σ K.
package optimize
