package optimize

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"strings"
	"time"

	"github.com/reid-sdc/reid/distances"
)

// DefaultEpsilon is the margin ε by which a true partner must be closer than every
// competitor for a record to count as linked in the model.
const DefaultEpsilon = 1e-4

// lpSlack is added to ε in the θ-subproblem rows (θ·a ≥ ε + lpSlack) so that CLP's primal
// tolerance (set to lpPrimalTol) and the renormalisation of θ onto the simplex never admit a
// margin below ε. The certificates (covering cuts) are taken at ε itself (solveSub,
// checkOne, the deletion filter): proofs for the margin ε + lpSlack alone had the search
// call 3 links "optimal" where θ = (1, 0) links 4 with margins 4.368e-6 at ε = 4.3e-6.
const (
	lpSlack     = 1e-7
	lpPrimalTol = 1e-10
)

// Family is a family of aggregation distances whose parameters Learn optimises.
type Family int

const (
	// WM is the weighted mean of the attribute diffs, θ on the simplex.
	WM Family = iota
	// OWA is the ordered weighted average of the attribute diffs, θ on the simplex.
	OWA
	// Bilinear is the symmetric bilinear form xᵀWx, W positive semi-definite with trace
	// 1, θ the upper triangle of W row by row (distances.Bilinear.Params).
	Bilinear
	// Choquet is the Choquet integral of the diffs, θ the fuzzy measure μ(A) of every
	// non-empty subset A in bitmask order (distances.Choquet.Params; μ(V) = 1).
	Choquet
	// Choquet2 is the Choquet integral of a 2-additive measure, θ its Möbius masses on
	// the singletons then the pairs (i < j, row by row): for up to
	// distances.MaxChoquetAttributes attributes.
	Choquet2
)

// String returns the family's name, as ParseFamily reads it.
func (f Family) String() string {
	switch f {
	case WM:
		return "wm"
	case OWA:
		return "owa"
	case Bilinear:
		return "bilinear"
	case Choquet:
		return "choquet"
	case Choquet2:
		return "choquet2"
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// ParseFamily reads "wm", "owa", "bilinear", "choquet" or "choquet2".
func ParseFamily(s string) (Family, error) {
	for _, f := range []Family{WM, OWA, Bilinear, Choquet, Choquet2} {
		if s == f.String() {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unknown operator family %q (wm, owa, bilinear, choquet or choquet2)", s)
}

// Operator returns the distance of the family with parameters θ, in the layout of Result.Params.
func (f Family) Operator(theta []float64) (distances.Operator, error) {
	switch f {
	case WM:
		return distances.NewWeightedMean(theta)
	case OWA:
		return distances.NewOWA(theta)
	case Bilinear:
		m, ok := triangularAttributes(len(theta))
		if !ok {
			return nil, fmt.Errorf("optimize: %d bilinear parameters is not m(m+1)/2", len(theta))
		}
		return newBilinearSpace(m).operator(theta)
	case Choquet:
		m := bits.Len(uint(len(theta)))
		if len(theta) != 1<<m-1 {
			return nil, fmt.Errorf("optimize: %d Choquet parameters is not 2^m − 1", len(theta))
		}
		return newChoquetSpace(m).operator(theta)
	case Choquet2:
		m, ok := triangularAttributes(len(theta))
		if !ok {
			return nil, fmt.Errorf("optimize: %d 2-additive Choquet parameters is not m + m(m−1)/2", len(theta))
		}
		return newChoquet2Space(m).operator(theta)
	}
	return nil, fmt.Errorf("optimize: unknown family %d", int(f))
}

// triangularAttributes returns the m with m(m+1)/2 = n: the number of attributes of n
// bilinear parameters (W's upper triangle) or 2-additive masses (m singletons and
// m(m−1)/2 pairs).
func triangularAttributes(n int) (int, bool) {
	m := 0
	for m*(m+1)/2 < n {
		m++
	}
	return m, m*(m+1)/2 == n
}

// Contains reports whether every distance of family g is (up to a positive factor, which
// changes no link) a distance of family f: the hierarchy of design note §4 (6). WM ⊂
// bilinear (W diagonal), WM ⊂ Choquet (additive μ), OWA ⊂ Choquet (symmetric μ); every
// family contains itself.
func (f Family) Contains(g Family) bool {
	return f == g || g == WM && (f == Bilinear || f == Choquet || f == Choquet2) || g == OWA && f == Choquet ||
		g == Choquet2 && f == Choquet
}

// Lift maps parameters θ of family g to the same distance in family f ⊇ g (Contains):
// a weighted mean p is W = diag(p) or the additive measure μ(A) = Σ_{i∈A} p_i, an OWA w
// the symmetric measure μ(A) = Σ_{k≤|A|} w_k (distances.AdditiveMeasure and
// SymmetricMeasure). This is how a lower family's optimum warm-starts a higher one.
func (f Family) Lift(g Family, theta []float64) ([]float64, error) {
	if !f.Contains(g) {
		return nil, fmt.Errorf("optimize: %v does not contain %v", f, g)
	}
	if f == g {
		return append([]float64(nil), theta...), nil
	}
	m := len(theta)
	switch {
	case f == Bilinear:
		sp := newBilinearSpace(m)
		out := make([]float64, sp.dim())
		for k, p := range theta {
			out[sp.col(k, k)] = p
		}
		return out, nil
	case f == Choquet2: // from WM: the singletons' masses
		out := make([]float64, newChoquet2Space(m).dim())
		copy(out, theta)
		return out, nil
	case f == Choquet && g == Choquet2:
		m, ok := triangularAttributes(len(theta))
		if !ok {
			return nil, fmt.Errorf("optimize: %d 2-additive Choquet parameters is not m + m(m−1)/2", len(theta))
		}
		mu := newChoquet2Space(m).measure(theta)[1:]
		newChoquetSpace(m).project(mu)
		return mu, nil
	case f == Choquet:
		mu := distances.AdditiveMeasure(theta)[1:]
		if g == OWA {
			mu = distances.SymmetricMeasure(theta)[1:]
		}
		newChoquetSpace(m).project(mu) // partial sums may round above 1
		return mu, nil
	}
	return nil, fmt.Errorf("optimize: no lift from %v to %v", g, f)
}

// Problem is a worst-case learning problem: link each query record to its nearest
// reference record. Queries and Refs are standardised and column-major (x[k][i] is
// attribute k of record i); Truth[i] is the true reference of query i, or −1 (such a query
// is not in the model).
type Problem struct {
	Queries, Refs [][]float64
	Truth         []int
	// Family is the family of distances whose parameters are learned.
	Family Family
}

// EuclideanCounts are the Euclidean distance's links on a problem: Correct with margin
// ≥ ε (Result.EuclideanLinks), DBRL by plain distance-based record linkage (unique
// nearest, any margin).
type EuclideanCounts struct{ Correct, DBRL int }

// Report is the anytime state of a search, passed to Settings.Progress.
type Report struct {
	// Incumbent is the number of records the best parameters found so far link (margin
	// ≥ ε); Bound the proven upper bound on it; N the number of records in the model.
	Incumbent, Bound, N int
	// Gap is (Bound − Incumbent) / Bound (0 when Bound is 0).
	Gap float64
	// Nodes is the number of branch-and-bound nodes so far.
	Nodes int
	// Elapsed is the time since Learn was called; Work the work counted so far, in work
	// seconds (Settings.WorkLimit; blocks count once they are absorbed).
	Elapsed time.Duration
	Work    float64
	// Phase names the step of the search under way, for a progress line: "local search"
	// (the bilinear form's ascent and swaps, and the one-record moves from the
	// incumbent), "root", "line search", "one-record checks", "blocks",
	// "neighbourhoods", "tree" or "final count" (the re-count of the answer by the
	// pairwise core); empty before the first phase. A report comes at the start of each
	// phase, at each better incumbent, and otherwise at most about once a second; a
	// phase may report nothing for longer (the line search). For bilinear the local
	// search comes first, before the root.
	Phase string
}

// Settings tunes Learn. The zero value uses ε = DefaultEpsilon, no time limit, every core.
type Settings struct {
	// Epsilon is the margin ε of the model (0: DefaultEpsilon).
	Epsilon float64
	// TimeLimit stops the search (0: none). The result then has status TimeLimit and
	// carries the best parameters found with the proven bound.
	TimeLimit time.Duration
	// WorkLimit, in work seconds, stops the search when its steps (LP iterations,
	// line-search rows, margins evaluated) have counted that much work, and gives its
	// phases their shares of it as TimeLimit gives shares of the time (0: none; a work
	// second is about a second of one core of the machine the costs were measured on,
	// bench/README "Work limit"). The result then has status WorkLimit and is the same
	// on every run and number of threads (and machine of the same architecture with the
	// same build), where a time limit's depends on how
	// far each phase got. The reductions before the search are not counted, nor is the
	// final recount. The steps whose work is known before they run (passes of margins over
	// the records, the line search's batches, the smooth ascent's evaluations) start only
	// if it fits, and every LP solve is capped at the work left (CLP's iterations, the Go
	// LPs' operations): a search ends at most the last iteration of its last LP and the
	// count of a θ that LP found past its limit, or just before it. A limit too small to
	// count the links of the search's starting points (the Euclidean distance and the
	// warm starts) does not start it (Result.Note). At most one of TimeLimit and WorkLimit
	// may be set.
	WorkLimit float64
	// Seed seeds the random kicks of the line search on θ (WM, OWA, bilinear): the same
	// inputs and seed give the same result when no time limit cuts the search short.
	Seed int64
	// Threads is the number of goroutines of the preprocessing, of the pairwise core, of
	// the line search and of the blocks' searches (0: GOMAXPROCS). Results do not depend
	// on it (under a time limit, only through how much is done in the time).
	Threads int
	// Progress, when set, is called with the anytime state after each improvement and
	// periodically.
	Progress func(Report)
	// ExportMPS, when set, writes the full big-C model (every record with a true partner,
	// every competitor, the family's constraints: for bilinear the trace, the bounds, the
	// 2×2 minors' cuts and any eigenvector cuts found — none with the default PSD-game
	// θ-LPs, whose W is PSD by construction, so the export is a polyhedral outer
	// approximation of the PSD cone whose optimum is at least reid's) to this file in MPS
	// format after solving.
	ExportMPS string
	// ExportRestrictedMPS, when set, writes at the end the big-C model restricted to the
	// rows generated by the search (a relaxation of the full model).
	ExportRestrictedMPS string
	// MaxRowBytes bounds the memory of the competitor rows prepared for the search (0:
	// 2 GiB); a problem whose rows would pass it returns ErrTooLarge.
	MaxRowBytes int64
	// InitialRows is the number of nearest competitors per record whose rows start the
	// θ-subproblem (0: 3).
	InitialRows int
	// WarmStarts are parameters of the family (in the layout of Result.Params) tried as
	// incumbents before the search, e.g. a lower family's optimum lifted by Family.Lift,
	// best first (Family.WarmStarts orders them): a search stopped before its rows are
	// ready answers with the first, re-counted.
	WarmStarts [][]float64
	// KnownEuclidean, when set, holds the Euclidean distance's counts on this problem and
	// ε (Result.EuclideanLinks, and plain DBRL's): a search stopped before its rows are
	// ready reports them instead of re-counting, a full pass of the pairwise core (12 s on
	// 60,000 records, which an audit's four families each spent past their shares).
	KnownEuclidean *EuclideanCounts

	// clpSubproblems solves the θ-LPs of WM and OWA with CLP too (tests compare the two).
	clpSubproblems bool
	// storedRowsBytes, when positive, replaces storedRowsBytes (tests recompute every
	// row with 1).
	storedRowsBytes int64
	// clpMaster solves the master LP with CLP whatever the number of records (tests
	// compare it with packLP).
	clpMaster bool
	// masterWrap, when set, wraps the packLP master (tests make it fail).
	masterWrap func(masterLP) masterLP
	// tailRounds overrides the rounds of weak cuts after which a node branches (0: the
	// default, noTailOff: never).
	tailRounds int
	// blockLeaf overrides the number of records of the first blocks (blocks.go; 0: the
	// default, noBlocks: no blocks).
	blockLeaf int
	// noLocalSearch switches off every search for incumbents outside the tree's rounding
	// (line searches, polish, the bilinear starts, neighbourhoods), so that a test's
	// optimum must come from the tree: a bound that is too strong then shows.
	noLocalSearch bool
	// noProbe skips the short tree before the local searches and blocks (solver.run), so
	// that a test of the blocks on a small problem, which the probe would prove, runs them.
	noProbe bool
	// stallCheck makes the stallCheck-th rounding check of the tree (1-based; 0: none)
	// undecided, as CLP's trouble would (the node is then given up on, its bound kept as
	// unresolved).
	stallCheck int
}

// Status is the outcome of Learn.
type Status int

const (
	// NoSearch is the zero value: no search ran, as in the Result returned beside an
	// error (a zero Status must not read as a proof).
	NoSearch Status = iota
	// Optimal: the parameters are proven to link the most records (Bound = CorrectLinks).
	Optimal
	// TimeLimit: the time limit stopped the search; Bound may exceed CorrectLinks.
	TimeLimit
	// Interrupted: the context of LearnContext was done before the search ended (a user's
	// interrupt); like TimeLimit, the result has the best parameters found and the
	// proven bound.
	Interrupted
	// WorkLimit: Settings.WorkLimit stopped the search; like TimeLimit, the result has
	// the best parameters found and the proven bound, and is the same on every run.
	WorkLimit
)

// String returns "optimal", "time_limit", "interrupted", "work_limit" or "no_search".
func (s Status) String() string {
	switch s {
	case NoSearch:
		return "no_search"
	case Optimal:
		return "optimal"
	case TimeLimit:
		return "time_limit"
	case Interrupted:
		return "interrupted"
	case WorkLimit:
		return "work_limit"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Stats describes the work of a search.
type Stats struct {
	// Nodes is the number of branch-and-bound nodes of the master problem.
	Nodes int
	// RowsGenerated is the number of competitor rows added to the θ-subproblem.
	RowsGenerated int
	// LPIterations counts simplex iterations of every LP (master and subproblem).
	LPIterations int
	// Cuts is the number of distinct combinatorial Benders (covering) cuts, counting the
	// pairs of twins registered one by one (implied by their groups' rows, see
	// TwinGroups; not those with a record that can never be linked, nor those of groups of
	// more than 64 records).
	Cuts int
	// Fixed is the number of records that can never be linked (dominance, or a
	// subproblem infeasible on its own), and Candidates the competitor rows left after
	// dominance, out of Pairs = N(M−1).
	Fixed      int
	Candidates int
	Pairs      int
	// SubproblemSolves counts θ-LP solves, MasterSolves the master LP's.
	SubproblemSolves int
	MasterSolves     int
	// FamilyCuts counts the family's constraints added to the θ-LPs when an LP point
	// left the family (eigenvector cuts of the PSD cone, monotonicity of a fuzzy measure).
	// The bilinear form's θ-LPs are PSD games, whose points never leave it: 0 there.
	FamilyCuts int
	// PSDStrategies counts the rank-one strategies (top eigenvectors) the bilinear form's
	// θ-LP games generated.
	PSDStrategies int
	// TwinGroups counts the groups of identical query records (with different true
	// partners) whose clique rows the master starts with: at most the members of one
	// true partner can be linked (microaggregated files).
	TwinGroups int
	// CliqueRows counts the clique rows generated for the master (cliqueSeparate: sets of
	// records no two of which can be linked together), whether or not still in it.
	CliqueRows int
	// Swaps counts the moves of the swap search on twin groups (swap.go), from any of
	// its starts, that linked one record more, alone or by giving up a record for
	// another member of its group.
	Swaps int
	// Blocks counts the blocks whose own searches bounded the file's links (blocks.go),
	// BlockNodes the nodes of their trees.
	Blocks, BlockNodes int
	// Neighbourhoods counts the neighbourhoods of the incumbent searched
	// (neighbourhood.go): a few of its linked records released, a few others opened,
	// each searched exactly unless its time ran out.
	Neighbourhoods int
	// Seconds is the wall-clock time of the whole Learn call, the final recount included.
	Seconds float64
	// Work is the work the search counted, in work seconds (Settings.WorkLimit): what a
	// work limit must allow for this search to run as far.
	Work float64
}

// Result is the outcome of Learn.
type Result struct {
	// Family is the problem's family.
	Family Family
	// Params is the learned θ, in the layout of the family's operator's Params (on the
	// simplex for WM and OWA; the upper triangle of W for bilinear; μ(A) for A = 1 …
	// 2^m − 1 by bitmask for Choquet).
	Params []float64
	// N is the number of records in the model (queries with a true partner).
	N int
	// CorrectLinks is the number of records whose true partner is closer than every other
	// candidate by at least ε under Params, re-counted by the pairwise core
	// (distances.Search with CountCloser and Margin ε): the MILP's criterion, so
	// CorrectLinks = N − Failures (records on a knife edge keep the search's verdict, see
	// KnifeEdge).
	CorrectLinks int
	// Failures is Σ K_i of the incumbent.
	Failures int
	// KnifeEdge is the number of records whose margin under Params equals ε up to
	// rounding, on which the search's arithmetic (θ·(φ(i, j) − φ(i, t))) and the pairwise
	// core's (d_θ(i, j) − d_θ(i, t)) fall on different sides: each keeps the search's
	// verdict, so that CorrectLinks = N − Failures (see knifeEdgeTolerance).
	KnifeEdge int
	// DBRLLinks is the plain Reid count of distance-based record linkage with Params (the
	// true partner is the unique nearest, any margin); DBRLLinks ≥ CorrectLinks.
	DBRLLinks int
	// EuclideanLinks is the number of records the Euclidean distance links with margin ≥ ε
	// (the search's first incumbent; every family contains the Euclidean distance).
	EuclideanLinks int
	// Bound is the proven upper bound on CorrectLinks over the whole family.
	Bound int
	// Gap is (Bound − CorrectLinks) / Bound (0 when Bound is 0).
	Gap float64
	// Status says whether the search proved Params optimal or stopped early.
	Status Status
	// Epsilon is the margin ε the links were counted with (Settings.Epsilon, or
	// DefaultEpsilon for 0).
	Epsilon float64
	// Stats describes the work of the search.
	Stats Stats
	// Note, when set, says why the search stopped before it started (Status TimeLimit,
	// WorkLimit or Interrupted) and what would let it run: the answer is then the
	// Euclidean distance or the best warm start, with the bound of the records found
	// impossible. It also says when a search ended short of a proof without reaching a
	// limit (Unproven) and why: sets of records whose LPs it could not decide (a best
	// margin within knifeEdgeStep of ε, a certificate that does not verify, a θ the
	// family's cuts do not mend), the bound counting them.
	Note string
	// Unproven: the search ended without a proof though no limit was reached (Status
	// TimeLimit, Bound > CorrectLinks; Note says why): a longer limit would not help.
	Unproven bool
	// NotStarted: a limit or an interrupt came before the search began (Note says what
	// would let it run); CorrectLinks and EuclideanLinks are then a recount's.
	NotStarted bool
}

// ErrNoRecords is returned when no query has a true partner.
var ErrNoRecords = errors.New("optimize: no query record has a true partner")

// ErrTooLarge is returned when the problem's reductions would not fit in memory.
var ErrTooLarge = errors.New("optimize: problem too large")

// Learn finds the parameters of p.Family under which distance-based record linkage links
// the most query records to their true partners with a margin of at least ε, by
// combinatorial Benders branch and cut (see the package documentation).
//
// Among its errors, those a caller may branch on wrap distances.ErrShape (sizes that do
// not match), distances.ErrNotFinite (a NaN or ±Inf in p.Queries or p.Refs, found before
// any work), ErrNoRecords or ErrTooLarge.
func Learn(p Problem, s Settings) (Result, error) {
	return LearnContext(context.Background(), p, s)
}

// LearnContext is Learn stopped early when ctx is done: the search then ends as at its
// time limit, within about a second, with status Interrupted, the best parameters found,
// re-counted, and the proven bound (what a solver's user expects of an interrupt).
func LearnContext(ctx context.Context, p Problem, s Settings) (Result, error) {
	start := time.Now()
	if s.Epsilon == 0 {
		s.Epsilon = DefaultEpsilon
	}
	if !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0) {
		return Result{}, fmt.Errorf("optimize: epsilon must be positive, got %v", s.Epsilon)
	}
	if s.InitialRows <= 0 {
		s.InitialRows = 3
	}
	if !(s.WorkLimit >= 0) || s.WorkLimit > maxWorkLimit {
		return Result{}, fmt.Errorf("optimize: the work limit must be between 0 and %.3g work seconds, got %v", maxWorkLimit, s.WorkLimit)
	}
	if s.WorkLimit > 0 && s.TimeLimit > 0 {
		return Result{}, errors.New("optimize: a search has a time limit or a work limit, not both")
	}
	if err := checkShape(p); err != nil {
		return Result{}, err
	}
	sp, err := newSpace(p.Family, len(p.Queries))
	if err != nil {
		return Result{}, err
	}
	for x, w := range s.WarmStarts {
		if len(w) != sp.dim() {
			return Result{}, fmt.Errorf("optimize: warm start %d has %d parameters, the %v family on %d attributes %d", x+1, len(w), p.Family, len(p.Queries), sp.dim())
		}
		if _, err := p.Family.Operator(w); err != nil {
			return Result{}, fmt.Errorf("optimize: warm start %d: %w", x+1, err)
		}
	}
	var deadline time.Time
	var reserve time.Duration
	if s.TimeLimit > 0 {
		// The final recount by the pairwise core runs after the search: reserve its time.
		deadline = start.Add(s.TimeLimit)
		if reserve, err = recountTime(p, sp, s.Threads, 512); err != nil {
			return Result{}, err
		}
		s.TimeLimit = max(s.TimeLimit-reserve, time.Millisecond)
	}
	// The reductions alone can outlast a short limit on a large file (10 s for 4,580
	// records whose coded attributes tie many competitors): they stop with it too.
	// An exported model needs every record's rows: only an interrupt stops them.
	exporting := s.ExportMPS != "" || s.ExportRestrictedMPS != ""
	stop := func() bool {
		select {
		case <-ctx.Done():
			return true
		default:
		}
		return !exporting && s.TimeLimit > 0 && time.Since(start) >= s.TimeLimit
	}
	d, complete, err := prepareUntil(p, sp, s.Epsilon, s.Threads, stop, rowBudget{cmp.Or(s.MaxRowBytes, maxPreparedBytes), cmp.Or(s.storedRowsBytes, storedRowsBytes)})
	if err != nil {
		return Result{}, err
	}
	if len(d.recs) == 0 {
		return Result{}, ErrNoRecords
	}
	if !complete {
		// The reductions stopped with the recount's reserve left, which pays for the
		// family's own recount of the best warm start, unless the reserve is the whole
		// limit (on 20,000 records the Choquet operator's recount takes over a minute) or
		// an interrupt asks for a prompt answer (within about a second).
		limit := deadline.Sub(start)
		if deadline.IsZero() { // interrupted without a time limit: the reserve is unknown
			// A small sample: an interrupt asks for an answer within about a second.
			if reserve, err = recountTime(p, sp, s.Threads, 64); err != nil {
				return Result{}, err
			}
		}
		affordable := (deadline.IsZero() || reserve < limit) && (ctx.Err() == nil || reserve < time.Second)
		r, err := unsearched(ctx, p, d, s, start, affordable)
		limit = limit.Round(time.Millisecond)
		switch {
		case ctx.Err() != nil:
			r.Note = "interrupted before the search started"
			if exporting {
				r.Note += ": no model exported"
			}
		case reserve >= limit:
			// Durations at a precision that suits them: "%.1f s" said "about 0.0 s, more
			// than this search's time limit of 1ms".
			r.Note = fmt.Sprintf("re-counting an answer under the %v operator on %d records takes about %v, more than this search's time limit of %v: the search did not start (it needs a time limit of its own of at least about %v)", p.Family, len(d.recs), roughly(reserve), limit, roughly(2*reserve))
		default:
			// Not "the whole limit": the re-count's reserve (an estimate from a sample) was
			// set aside first, and on a short limit it is most of it.
			r.Note = fmt.Sprintf("the reductions of the %v model of %d records (dominance, competitor rows) did not end within this search's time limit of %v less about %.1f s kept for re-counting the answer: the search did not start; give it a longer time limit or fewer records", p.Family, len(d.recs), limit, reserve.Seconds())
		}
		return r, err
	}
	// The search starts by counting the links of the Euclidean W and of each warm start
	// (one linkedSet pass each; a warm start equal to one before is not counted again).
	// Under a work limit that cannot pay for them the search does not start, as under a
	// time limit that the reductions outlast: the answer is the best warm start, re-counted
	// as the final recount is (uncounted). Started, they overran a small limit by
	// themselves: on the bilinear model of 4,092 records (EIA), 0.29 work seconds where
	// the limit was 0.07.
	starts := [][]float64{d.sp.euclidean()}
	for _, w := range s.WarmStarts {
		starts = appendNew(starts, w)
	}
	if s.WorkLimit > 0 && !exporting {
		if entry := linkedWork(d) * int64(len(starts)); float64(entry) > s.WorkLimit*float64(time.Second) {
			r, err := unsearched(ctx, p, d, s, start, true)
			need := float64(entry) / float64(time.Second)
			r.Note = fmt.Sprintf("counting the links of the %d starting points of the %v model of %d records (the Euclidean distance and the warm starts) takes %.3g work seconds, more than this search's work limit of %.3g: the search did not start (it needs a work limit of its own of at least about %.2g)", len(starts), p.Family, len(d.recs), need, s.WorkLimit, 2*need)
			return r, err
		}
	}
	sv := newSolver(d, s, start)
	defer sv.close()
	sv.done = ctx.Done()
	for _, w := range starts[1:] {
		sv.consider(w)
	}
	sv.run()
	if s.ExportMPS != "" {
		if err := writeFullMPS(s.ExportMPS, sv); err != nil {
			return Result{}, err
		}
	}
	if s.ExportRestrictedMPS != "" {
		if err := writeRestrictedMPS(s.ExportRestrictedMPS, sv); err != nil {
			return Result{}, err
		}
	}
	return sv.result(p)
}

// recountTime estimates the time of the final recount (a distances.Search of every query
// under the learned operator) from a search of the first queries, with a 25 % margin.
// The sample keeps every goroutine busy for a while: 64 queries, one block of the core,
// ran on one goroutine and with its fixed costs took as long as 128, which made the
// estimate 3.5 to 4.4 times the recount on 60,000 records (42 s for 12 s, 4.4 s for
// 1.0 s) and the reserve took that from every time limit; 512 queries a goroutine
// (perThread) came within 10 %. The sample is at most a twentieth of the queries beyond
// 64 a goroutine.
func recountTime(p Problem, sp space, threads, perThread int) (time.Duration, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	nq := len(p.Truth)
	k := min(perThread*threads, max(64*threads, nq/20), nq)
	op, err := sp.operator(sp.euclidean())
	if err != nil {
		return 0, err
	}
	q := make([][]float64, len(p.Queries))
	for a := range q {
		q[a] = p.Queries[a][:k]
	}
	settings := distances.Settings{Threads: threads, CountCloser: true, Margin: DefaultEpsilon}
	// The first call pays once for what the final recount, after the search, does not
	// (memory first touched, goroutines started): a few queries go first, untimed. On
	// CENSUS (1,080 records, two goroutines) OWA's estimate fell from 2.2 to 1.3 times the
	// real recount, Choquet's to 1.3–1.5, the 25 % margin included.
	w := min(2*threads, k)
	warm := make([][]float64, len(p.Queries))
	for a := range warm {
		warm[a] = p.Queries[a][:w]
	}
	if _, err := distances.Search(warm, p.Refs, p.Truth[:w], op, settings); err != nil {
		return 0, err
	}
	start := time.Now()
	if _, err := distances.Search(q, p.Refs, p.Truth[:k], op, settings); err != nil {
		return 0, err
	}
	return time.Since(start) * time.Duration(nq) / time.Duration(k) * 5 / 4, nil
}

func checkShape(p Problem) error {
	m := len(p.Queries)
	if m == 0 || len(p.Refs) != m {
		return fmt.Errorf("%w: %d query and %d reference attributes", distances.ErrShape, len(p.Queries), len(p.Refs))
	}
	nq, nr := len(p.Queries[0]), len(p.Refs[0])
	for k := range m {
		if len(p.Queries[k]) != nq || len(p.Refs[k]) != nr {
			return fmt.Errorf("%w: attribute %d has %d queries and %d references", distances.ErrShape, k+1, len(p.Queries[k]), len(p.Refs[k]))
		}
	}
	if len(p.Truth) != nq {
		return fmt.Errorf("%w: %d truth entries for %d queries", distances.ErrShape, len(p.Truth), nq)
	}
	for i, t := range p.Truth {
		if t >= nr || t < -1 {
			return fmt.Errorf("%w: true partner %d of query %d is not a reference", distances.ErrShape, t, i)
		}
	}
	// The reductions (rows.go) compare distances before any distances.Search, and a NaN
	// compares false with everything: unchecked, it counts as linked.
	if err := distances.CheckFinite("queries", p.Queries); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	if err := distances.CheckFinite("references", p.Refs); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	return nil
}

// recount counts, with the pairwise core, the records that theta links with margin ≥ eps
// (correct: the MILP's criterion) and by plain DBRL (dbrl: unique nearest, any margin).
func recount(p Problem, sp space, theta []float64, eps float64, threads int) (correct, dbrl int, err error) {
	linked, dbrl, err := recountLinked(p, sp, theta, eps, threads)
	for _, l := range linked {
		if l {
			correct++
		}
	}
	return correct, dbrl, err
}

// recountLinked is recount with the verdict of each query (linked[i]: query i's true
// partner is closer than every competitor by at least eps).
func recountLinked(p Problem, sp space, theta []float64, eps float64, threads int) (linked []bool, dbrl int, err error) {
	op, err := sp.operator(theta)
	if err != nil {
		return nil, 0, fmt.Errorf("optimize: learned parameters: %w", err)
	}
	recs, err := distances.Search(p.Queries, p.Refs, p.Truth, op, distances.Settings{Threads: threads, CountCloser: true, Margin: eps})
	if err != nil {
		return nil, 0, err
	}
	linked = make([]bool, len(recs))
	for i := range recs {
		if p.Truth[i] < 0 {
			continue
		}
		linked[i] = recs[i].CloserCount == 0
		if recs[i].Nearest == recs[i].True && recs[i].Ties == 1 {
			dbrl++
		}
	}
	return linked, dbrl, nil
}

// knifeEdgeTolerance is the relative difference under which a record's margin counts as
// equal to ε: the search computes θ·(φ(i, j) − φ(i, t)) from the diffs, the pairwise core
// d_θ(i, j) − d_θ(i, t) from the distances (for the embedded operators the transformed
// direct form Σ_k ((Tq)_k − (Tr)_k)², whose rounding grows with ‖Tq‖·‖Tq − Tr‖, and for
// the bilinear form with Σ_ij |W_ij||x_i||x_j| ≤ m·‖x‖², not with the distance), and the
// roundings can fall either side of a margin that equals ε exactly (integer data, ε
// chosen as a margin). The scale is therefore ε, both distances and m times the squared
// norms of the three records.
const knifeEdgeTolerance = 1e-12

// reconcile compares the search's verdicts on the incumbent (linkedSet) with the pairwise
// core's (recountLinked) record by record. A record they disagree on has its margin taken
// from its nearest competitor (distances.Search with TopK): if the margin is within
// knifeEdgeTolerance of ε it keeps the search's verdict (both are right up to rounding),
// except that a margin of 0 or less is never a link, however small ε; any other
// disagreement is an internal error. It returns the number of records whose verdict was
// kept and the number the search links.
func (sv *solver) reconcile(p Problem, op distances.Operator, core []bool) (kept, searched int, err error) {
	search, searched := sv.linkedSet(sv.bestTheta)
	var disagree []int
	for x := range sv.d.recs {
		if search[x] != core[sv.d.recs[x].q] {
			disagree = append(disagree, x)
		}
	}
	if len(disagree) == 0 {
		return 0, searched, nil
	}
	// The disagreeing records' nearest competitors, by the core in one scan (a file
	// whose margins all equal ε can disagree on every record: a loop over all
	// references per record would be quadratic).
	m := len(p.Queries)
	sub := make([][]float64, m)
	truth := make([]int, len(disagree))
	for k := range m {
		sub[k] = make([]float64, len(disagree))
		for y, x := range disagree {
			sub[k][y] = p.Queries[k][sv.d.recs[x].q]
		}
	}
	for y, x := range disagree {
		truth[y] = sv.d.recs[x].t
	}
	near, err := distances.Search(sub, p.Refs, truth, op, distances.Settings{Threads: sv.threads, TopK: 2})
	if err != nil {
		return 0, searched, err
	}
	norm := func(x [][]float64, i int) float64 {
		s := 0.0
		for _, col := range x {
			s += col[i] * col[i]
		}
		return s
	}
	for y, x := range disagree {
		r := &sv.d.recs[x]
		res := &near[y]
		c := res.TopK[0]
		if c.Index == r.t {
			c = res.TopK[min(1, len(res.TopK)-1)]
		}
		worst := c.Distance - res.TrueDistance
		if c.Index == r.t { // a single reference: no competitor
			worst = math.Inf(1)
		}
		scale := sv.eps + math.Abs(res.TrueDistance) + math.Abs(c.Distance) +
			float64(m)*(norm(sub, y)+norm(p.Refs, r.t)+norm(p.Refs, c.Index))
		if math.Abs(worst-sv.eps) > knifeEdgeTolerance*scale || (search[x] && worst <= 0) {
			return kept, searched, fmt.Errorf("optimize: internal error: record %d (query %d): the search finds it linked = %v, the pairwise core %v, and its margin %g is not ε = %g up to rounding", x, r.q, search[x], core[r.q], worst, sv.eps)
		}
		kept++
	}
	return kept, searched, nil
}

// unsearched is the Result of a search stopped (time limit or ctx) before its rows were
// all prepared: the Euclidean parameters, or the first warm start (the best, see
// Settings.WarmStarts) when it links more, re-counted by the pairwise core, and the bound
// of the records found impossible so far (no node, no cut: an honest answer rather than
// a limit overrun by the reductions). The Euclidean distance is counted as the weighted
// mean's with equal weights, the same distance on the fast path; the warm start needs the
// family's own operator (the Choquet ones scan pair by pair), so it is re-counted only
// when familyRecount says its time is left.
func unsearched(ctx context.Context, p Problem, d *data, s Settings, start time.Time, familyRecount bool) (Result, error) {
	r := Result{Family: p.Family, N: len(d.recs), Epsilon: s.Epsilon, Status: TimeLimit, NotStarted: true}
	if s.WorkLimit > 0 {
		r.Status = WorkLimit
	}
	if ctx.Err() != nil {
		r.Status = Interrupted
	}
	r.Stats.Pairs = d.pairs
	wm, err := newSpace(WM, len(p.Queries))
	if err != nil {
		return r, err
	}
	if k := s.KnownEuclidean; k != nil {
		r.EuclideanLinks, r.DBRLLinks = k.Correct, k.DBRL
	} else if r.EuclideanLinks, r.DBRLLinks, err = recount(p, wm, wm.euclidean(), s.Epsilon, s.Threads); err != nil {
		return r, err
	}
	r.Params, r.CorrectLinks = d.sp.euclidean(), r.EuclideanLinks
	if len(s.WarmStarts) > 0 && familyRecount {
		correct, dbrl, err := recount(p, d.sp, s.WarmStarts[0], s.Epsilon, s.Threads)
		if err != nil {
			return r, err
		}
		if correct > r.CorrectLinks {
			r.Params, r.CorrectLinks, r.DBRLLinks = append([]float64(nil), s.WarmStarts[0]...), correct, dbrl
		}
	}
	r.Failures = r.N - r.CorrectLinks
	// The records found impossible fail, and in each group of identical query records
	// the members beyond its row's room (twinCuts) not among them: the solver's twinLB.
	impossible := make([]bool, len(d.recs))
	r.Bound = r.N
	for i := range d.recs {
		if impossible[i] = d.recs[i].impossible; impossible[i] {
			r.Bound--
		}
	}
	for _, row := range twinGroups(d) {
		r.Bound -= row.lb(impossible)
	}
	r.Bound = max(r.Bound, r.CorrectLinks)
	if r.Bound > 0 {
		r.Gap = float64(r.Bound-r.CorrectLinks) / float64(r.Bound)
	}
	r.Stats.Seconds = time.Since(start).Seconds()
	return r, nil
}

// result re-counts the incumbent with the pairwise core and assembles the Result.
func (sv *solver) result(p Problem) (Result, error) {
	sv.enter("final count")
	r := Result{Family: p.Family, N: len(sv.d.recs), Epsilon: sv.eps, Status: sv.status, Stats: sv.stats, EuclideanLinks: sv.euclideanLinks}
	r.Stats.Work = sv.clock.seconds()
	if sv.status == Optimal {
		// The same answer whichever optimal θ the search ended on (see canonicalTheta).
		linked, _ := sv.linkedSet(sv.bestTheta)
		if theta := sv.canonicalTheta(linked); theta != nil {
			copy(sv.bestTheta, theta)
		}
	}
	r.Params = append([]float64(nil), sv.bestTheta...)
	r.Failures = sv.bestFail
	core, dbrl, err := recountLinked(p, sv.d.sp, r.Params, sv.eps, sv.threads)
	if err != nil {
		return r, err
	}
	r.DBRLLinks = dbrl
	for _, l := range core {
		if l {
			r.CorrectLinks++
		}
	}
	// Record by record, not only the totals: two knife edges in opposite directions (or
	// a bug) would leave the totals equal.
	op, err := sv.d.sp.operator(r.Params)
	if err != nil {
		return r, fmt.Errorf("optimize: learned parameters: %w", err)
	}
	searched := 0
	if r.KnifeEdge, searched, err = sv.reconcile(p, op, core); err != nil {
		return r, err
	}
	if searched != r.N-r.Failures {
		return r, fmt.Errorf("optimize: internal error: the pairwise core counts %d links with margin ≥ ε, the search %d, its incumbent's rows %d", r.CorrectLinks, r.N-r.Failures, searched)
	}
	r.CorrectLinks = searched
	r.Bound = sv.boundLinks()
	// The cuts prove bounds at ε; a witness linking more records (margins within
	// rounding of ε, which the core and the search may count differently) raises the
	// bound to itself.
	r.Bound = max(r.Bound, r.CorrectLinks)
	if r.Bound > 0 {
		r.Gap = float64(r.Bound-r.CorrectLinks) / float64(r.Bound)
	}
	if sv.shortOfProof && r.Bound > r.CorrectLinks {
		r.Note, r.Unproven = sv.undecidedNote(), true
	}
	r.Stats.Seconds = time.Since(sv.start).Seconds()
	return r, nil
}

// undecidedNote says why a search that reached no limit ended without a proof: the
// tree's nodes it gave up, by cause, each node's bound kept in the reported one.
func (sv *solver) undecidedNote() string {
	var why []string
	for cause, n := range sv.givenUp {
		if n == 0 {
			continue
		}
		var text string
		switch giveUp(cause) {
		case giveUpKnifeEdge:
			text = fmt.Sprintf("a set of records whose best margin lies within %g of ε = %g (a knife edge, where the LPs' tolerances cannot tell linked from not; an ε a little away from the margins, e.g. the default, decides them)", knifeEdgeStep, sv.eps)
		case giveUpUnverified:
			text = "a set CLP found infeasible for which no certificate verified (CLP's ray and its elastic problem's duals, checked in floating point and exactly; an unscaled re-solve found no θ either: large feature values, as a Choquet measure's on heavy-tailed attributes, and margins near ε)"
		case giveUpNoCut:
			text = "an infeasible set whose certificate gave no cut that verifies"
		case giveUpFamily:
			text = "an LP whose θ, moved into the family (a monotone measure), broke its rows where no cut of the family mended it"
		case giveUpPSD:
			text = "a PSD game whose value lay within rounding of 0"
		default:
			text = "an LP that ended neither solved nor proven infeasible"
		}
		why = append(why, fmt.Sprintf("%d on %s", n, text))
	}
	return "no proof of the optimum, though no limit was reached: the search gave up nodes it could not decide, their bounds kept in the reported one (" + strings.Join(why, "; ") + "); a longer limit would not change that"
}

// roughly rounds d for a message: to seconds from 10 s, tenths from 1 s, else
// milliseconds (at least 1 ms).
func roughly(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return max(d.Round(time.Millisecond), time.Millisecond)
}
