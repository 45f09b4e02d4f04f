// Package clp is the project's own small cgo binding over the C interface of
// COIN-OR CLP (Clp_C_Interface.h, CLP 1.17), a simplex linear programming
// solver.
//
// It is the LP engine under the project's branch-and-bound and
// combinatorial-Benders solvers for maximum-feasible-subsystem problems, so
// it exposes what those need and little else: loading a problem from a
// sparse matrix, adding and deleting rows and columns, changing bounds and
// objective coefficients, warm-started dual simplex (Dual), primal simplex
// (Primal) and CLP's presolving driver (InitialSolve), primal and dual
// solutions, the basis, infeasibility (Farkas) certificates, limits, and MPS
// input and output.
//
// # Problem form
//
// A Model holds
//
//	minimise or maximise  objᵀx
//	subject to            rowLower ≤ A x ≤ rowUpper
//	                      colLower ≤ x ≤ colUpper
//
// Equality rows have equal bounds. Infinite bounds are math.Inf(+1) and
// math.Inf(−1) throughout the Go API; the package translates them to CLP's
// representation (±COIN_DBL_MAX, which is ±math.MaxFloat64 in this build).
// As in CLP, finite bounds of magnitude above 1e27 are treated as infinite,
// and bounds read back from the model report infinity as math.Inf.
//
// # Warm starts
//
// A Model keeps its basis between solves. After adding rows (the new slacks
// are basic), tightening column bounds or changing row bounds, Dual restarts
// from the previous optimal basis, which stays dual feasible; after adding
// columns or changing objective coefficients, Primal does. Basis and
// SetBasis copy a basis between models with the same rows and columns.
// Iterations counts the iterations of the last solve only.
//
// # Infeasibility certificates
//
// CLP's dual simplex records an infeasibility ray when it finds a row that
// cannot be made feasible. No option is needed to get it: CLP keeps the ray
// unless the model is in its branch-and-bound mode (ClpSimplex special
// options 1024 or 4096, which only option 32 overrides). The C interface of
// CLP 1.17 cannot set special options at all (there is no
// Clp_setSpecialOptions or Clp_setMoreSpecialOptions), so models created by
// New always have the default options, under which rays are kept.
// Clp_infeasibilityRay returns a malloc'ed copy, which InfeasibilityRay
// copies into Go memory and releases with Clp_freeRay (which calls free).
//
// The sign convention of the ray, which this package keeps, is CLP's: with
// y the ray and d = Aᵀy, every x within its column bounds has
// yᵀAx = dᵀx ≥ α = Σ_j min(d_j·colLower_j, d_j·colUpper_j), while the row
// bounds force yᵀAx ≤ β = Σ_i max(y_i·rowLower_i, y_i·rowUpper_i); y proves
// infeasibility when α > β. For example, for x + y ≤ 1, x + y ≥ 3, x, y ≥ 0,
// CLP returns y = (1, −1): d = 0, α = 0 > β = 1 − 3 = −2. This is the
// negation of a dual ray in the sign convention of Duals for a minimisation.
// The convention does not depend on the objective sense.
//
// CLP's ray is not always a certificate, and the package tests measure how
// often on random models. After Dual on models whose columns all have finite
// bounds it was valid in all but very rare cases. It is often invalid when
// it was left by Primal (which leaves no meaningful ray for models with an
// objective), when CLP finished an infeasible Dual with its primal
// algorithm, and for some models with free or one-sided columns; and it is
// sometimes missing. InitialSolve presolves and usually leaves no ray. FarkasGap checks a candidate, and
// FarkasCertificate returns a verified certificate: CLP's ray when it
// checks out, otherwise one computed from an auxiliary elastic LP.
//
// # CLP 1.17 quirks
//
// With free or one-sided columns CLP's dual simplex, and occasionally its
// presolving driver, can report PrimalInfeasible for a feasible model (in
// the package tests, for a few percent of feasible random zero-objective
// models with free or one-sided columns, and never with boxed columns);
// FarkasCertificate then returns false, and Primal solves the model
// correctly. For a feasible model with an unbounded objective, CLP sometimes
// reports PrimalInfeasible instead of DualInfeasible.
//
// Its dual simplex does not allow a free nonbasic variable: warm-started from a
// basis in which a row switched off by freeing its bounds keeps a nonbasic slack,
// it returned a wrong optimum and, in one search, aborted the process on an
// assertion (ClpSimplexDual::dualColumn0); Dual makes such slacks basic first.
// Under CLP's scaling, the elastic problem behind FarkasCertificate can end
// "optimal" with row duals that are not its duals (rows with coefficients in the
// hundreds); it is then re-solved without scaling.
//
// CLP aborts the process with an uncaught C++ exception when it cannot open
// a file for writing; WriteMPS avoids this by letting CLP write a temporary
// file. CoinUtils prints a note on standard output when ReadMPS meets an
// OBJSENSE section, which it ignores. Apart from that, with the default log
// level nothing is printed. SetMaxSeconds limits CPU time, not wall-clock
// time.
//
// # Errors and panics
//
// Programmer errors panic, as in gonum: inconsistent slice lengths, index
// arguments out of range, NaN bounds in the single-element setters, and any
// use of a Model after Close. Bad data in bulk input (matrix structure,
// indices out of range or repeated, non-finite coefficients, NaN bounds)
// is returned as an error by LoadProblem, AddRows and AddColumns, which
// leave the model unchanged; file problems are returned as errors. The
// outcome of a solve is a Status, not an error.
//
// # Concurrency and memory
//
// A Model is not safe for concurrent use, but distinct Models are
// independent CLP objects and may be used from different goroutines at the
// same time. The package has no mutable package-level state.
//
// Each Model owns one CLP object, released by Close; a runtime cleanup
// releases it if an unclosed Model becomes unreachable, but callers should
// not rely on that. All slices passed in are copied (or only read during the
// call) and all slices returned are Go copies that remain valid after
// further solves or Close; no Go pointer is retained by CLP.
package clp
