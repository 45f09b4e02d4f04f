package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/linkage"
	"github.com/reid-sdc/reid/optimize"
	"gonum.org/v1/gonum/mat"
)

func learnCommand() *command {
	return &command{
		Name:      "learn",
		UsageLine: "reid learn --operator wm|owa|bilinear|choquet|choquet2 --original X --masked X' [--attrs A,B] [--direction D] [--records N] [--time-limit T | --work-limit W] [--epsilon E] [--export-mps FILE] [--params-out FILE] [--format json|text] [--out FILE]",
		Short:     "learn the worst-case distance of a family (exact MILP) and report its correct links",
		Long: `
Learn answers "what is the worst case?" for a family of distances: the most records any
intruder using a distance of the family could re-identify, knowing the original file, the
masking and the true links. It learns the distance's parameters θ with the mixed-integer
program of Abril, Navarro-Arribas & Torra (Information Fusion 13(4), 2012):

  minimise Σ K_i  subject to  θ·(φ(i,j) − φ(i,t(i))) + C_i K_i ≥ ε  for every record i
  and every competitor j ≠ t(i), θ in the family, K_i ∈ {0,1}

solved exactly on the whole file by combinatorial Benders branch and cut on CLP (package
optimize): dominance, row generation by the pairwise core, covering cuts from irreducible
infeasible sets. A record counts as linked when its true partner is closer than every
other candidate by at least ε (--epsilon, default 1e-4).

Operators (--operator): wm (weighted mean of the attribute diffs), owa (ordered weighted
average), bilinear (xᵀWx with W symmetric positive semi-definite of trace 1, its θ-LPs solved as
games over rank-one matrices; Abril, Torra & Navarro-Arribas, Information Fusion 26, 2015),
choquet (Choquet integral of the diffs: the 2^m − 2 free values of a monotone fuzzy
measure, m ≤ 13 attributes; Abril, Navarro-Arribas & Torra, Annals of OR 195, 2012) and choquet2
(the Choquet integral of a 2-additive measure, Grabisch 1997: Möbius masses of the
attributes and pairs, m + m(m−1)/2 parameters, m ≤ 20; params are the masses, and
--params-out writes the full measure, for reid link --operator choquet). The files
are paired and standardised as by 'reid link'; --direction and --records N (standardise
the whole files, keep the first N records) are the same.

The families are nested: WM ⊂ bilinear (W diagonal), WM ⊂ choquet2 ⊂ Choquet (additive
and 2-additive μ), OWA ⊂ Choquet (symmetric μ). For bilinear, choquet2 and choquet,
learn first learns the families below (--hierarchy=false skips this), each with a quarter
of --time-limit or --work-limit (2 minutes without either: they are warm starts, whose
proofs on files with many near ties would never end; the requested family's own search
gets what they leave) and started from those learned before it that it contains
(choquet2 from WM only: an OWA is no 2-additive measure in general), starts the search
from their optima, and checks the invariants
Reid(Choquet) ≥ max(Reid(WM), Reid(OWA), Reid(choquet2)), Reid(choquet2) ≥ Reid(WM) and
Reid(bilinear) ≥ Reid(WM) on every proven bound: a violation is an internal error (exit 3).

--time-limit stops the search (e.g. 10m; default none) with status time_limit, the best
parameters found and the proven bound. An interrupt (Ctrl-C) or SIGTERM stops it the
same way within about a second, with status interrupted, and learn exits with code 130
after writing its results (a second interrupt aborts at once, removing what --export-mps
had begun to write; a reid started with
SIGINT ignored, as a script's background job is, keeps ignoring it: send SIGTERM). Without a time limit the
search runs until it proves its optimum, which on files with many near ties may not
happen in hours: give a time limit or interrupt it.

--work-limit W stops the search instead after W work seconds (e.g. 600 or 10m): work
the search counts in its own steps (LP iterations, line-search rows, margins evaluated),
about a second of one core each (a step under way ends first, so the work counted can pass
W by a step, about a millisecond). Its phases get their shares of it as of a time limit,
so the search takes the same steps on every run, load and number of threads (and
machine of the same architecture with the same build: the counts follow the
floating-point path), and stops with status work_limit and the same answer: the limit for CI gates whose
figures must repeat. Under --time-limit how far each phase gets decides the next, and
two runs can end with different links and bounds. The JSON's work is the work the
requested family's search counted (also without a work limit; each warm-start family's
is in hierarchy): without the hierarchy, what a work limit needs to reach as far; with
it, each lower family gets a quarter of the limit.

--export-mps FILE writes the full model (every record, every competitor, integer K) in
free MPS, for any MILP solver to check reid: columns T1 … Tp are params in their order
(below; auxiliary columns follow: bilinear's one, numbered m² + 1, choquet2's one per
pair), K1 … KN the records (K_i = 1: record i
given up, so the solver's objective is N − links), rows R<i>_<j> record i's row for
competitor j; its size is N(M−1) rows, so keep it for a few hundred records (Choquet adds
m·2^(m−1) − 2m monotonicity rows, 53,222 on 13 attributes: export it on fewer attributes). For bilinear the PSD constraint on W is not linear: the file holds the
2×2-minor rows and the eigenvector cuts the search found, a relaxation, whose optimum is
an upper bound on the links (a solver may link more with a W that is not PSD). With an
export the reductions run to their end whatever the time limit. --params-out FILE
writes the learned parameters in the format of 'reid link --params'.

params, the learned parameters (text output: WM by name, OWA as w1 …; bilinear and
the Choquet families print eigenvalues or Shapley values instead), in this order: wm, one weight per
attribute in the order of attributes, summing to 1; owa, one weight per rank, w1 weighing
the largest attribute diff, summing to 1; bilinear, the upper triangle of W row by row
(W11, W12 … W1m, W22 … Wmm; the distance is Σ W_ii x_i² + 2 Σ_{i<j} W_ij x_i x_j), trace
1; choquet, μ of the 2^m − 1 non-empty attribute sets by bitmask (attribute i is bit
i − 1: {1}, {2}, {1,2}, {3} …; the last is μ(all) = 1); choquet2, the Möbius masses of the
attributes a_1 … a_m, then of the pairs a_12, a_13 … a_(m−1)m, summing to 1. --params-out
writes them as a file naming the attributes; 'reid link --params FILE', given the run's
pairing flags again (--direction, --records, --attrs, --masked-scale: the file records
only the scale, and link warns when that differs), counts dbrl_links as its correct.

The JSON (--format json) has engine, original and masked (files and SHA-256), attributes,
direction, operator, params, epsilon, n, correct_links (records linked
with margin ≥ ε under params, re-counted by the pairwise core: n − Σ K), reid
(correct_links / n), knife_edge_records (when present: records whose margin equals ε up to rounding, on which
the search's and the core's arithmetic disagree; they keep the search's verdict; a
margin within rounding of ε, about 1e-12 of it relative, may count either way, in the
bound's proof too: floating point cannot tell), dbrl_links (plain
DBRL: true partner the unique nearest), euclidean_links (plain DBRL with the Euclidean
distance) and euclidean_correct_links (its links with margin ≥ ε, which correct_links is
never below), bound (proven upper bound on correct_links), gap ((bound − correct_links) /
bound), status (optimal, time_limit, work_limit or interrupted; time_limit too, with
unproven true and a warning, when no limit was reached but sets of records the LPs could
not decide leave the proof undecided: best margins within 1e-9 of ε, CLP certificates
that do not verify, as on a Choquet measure over heavy-tailed attributes, or a θ the
family's cuts do not mend; the warning counts the nodes given up by cause, and a longer
limit does not help there), warnings (when present:
what the figures do not cover, e.g. true links with margins below ε), seed; and the
search's diagnostics, to compare runs, not to act on: nodes, cuts, rows_generated,
lp_iterations, family_cuts, swaps (both 0 where the family has none), twin_groups
(groups of identical records with different true partners: at most one of each can be
linked, which the bound uses from the start; microaggregated files), clique_rows (rows
over sets of records no two of which can be linked together), blocks and block_nodes
(files with 200 records not ruled out from the start: the blocks of records whose own
optima, searched first, bound the file's links, in passes of fewer and larger blocks
while every block is proven, and the nodes of their searches),
neighbourhoods (on the same files: the neighbourhoods of the incumbent searched exactly
after the blocks, some linked records released and some unlinked ones opened), work
(work seconds counted), time_limit or work_limit (the limit asked for: time_limit a
duration such as "1m30s", work_limit a number of work seconds) and seconds; for
bilinear eigenvalues (of the learned W, ascending), psd_strategies (the rank-one
strategies its θ-LP games generated; family_cuts is 0: their W is PSD by construction) and
swaps (moves of the local search, from any of its starting points, that linked one
record more, some by giving up a linked record of a twin group for another member of its
group); for choquet shapley (each attribute's Shapley value: its average weight in
the learned measure), interaction (each pair's Shapley interaction index: > 0 the pair
re-identifies together more than apart, < 0 redundant) and family_cuts (monotonicity rows
added); with the hierarchy, hierarchy (the lower families' results). Every field but
seconds is identical for the same inputs and seed without a limit, and under
--work-limit whatever the status; under --time-limit a stopped search's figures depend
on how far it got, and one proven optimal may end on other optimal parameters.`,
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			pf := addPairFlags(fs)
			operator := fs.String("operator", "wm", "operator family: wm, owa, bilinear, choquet or choquet2")
			hierarchy := fs.Bool("hierarchy", true, "for bilinear, choquet2 and choquet, learn the families below first, warm-start from them and check the invariants")
			direction := fs.String("direction", "masked-to-original", "masked-to-original or original-to-masked")
			records := fs.Int("records", 0, "keep the first `N` records of both files after standardising (0: all; else at least 2)")
			timeLimit := new(time.Duration)
			fs.Var((*secondsOrDuration)(timeLimit), "time-limit", "stop the search after this `duration` (e.g. 90s, 10m, or plain seconds; 0: no limit)")
			workLimit := new(time.Duration)
			fs.Var((*secondsOrDuration)(workLimit), "work-limit", "stop the search after this much counted `work` (work seconds, e.g. 600 or 10m): the same answer on every run")
			epsilon := fs.Float64("epsilon", optimize.DefaultEpsilon, "margin `ε` a correct link needs")
			exportMPS := fs.String("export-mps", "", "write the full model (bilinear: a linear relaxation) to this MPS `file`")
			paramsOut := fs.String("params-out", "", "write the learned parameters to this `file` (JSON, for reid link --params)")
			format := fs.String("format", "text", "output format: text or json")
			out := fs.String("out", "", "write the results to this `file` instead of stdout")
			threads := threadsFlag(fs)
			return func(args []string) error {
				if *format != "text" && *format != "json" {
					return usagef("--format must be text or json")
				}
				fam, err := optimize.ParseFamily(*operator)
				if err != nil {
					return usagef("--operator: %v", err)
				}
				dir, err := linkage.ParseDirection(*direction)
				if err != nil {
					return usagef("--direction: %v", err)
				}
				if err := checkRecords(*records); err != nil {
					return err
				}
				if *timeLimit < 0 {
					return usagef("--time-limit must not be negative (0: no limit)")
				}
				if err := chooseLimit(fs, timeLimit, workLimit); err != nil {
					return err
				}
				if err := checkEpsilon(*epsilon); err != nil {
					return err
				}
				if err := checkOutFiles(pf.inputs(args), outPath{"export-mps", *exportMPS}, outPath{"params-out", *paramsOut}, outPath{"out", *out}); err != nil {
					return err
				}
				if err := pf.positionalFiles(args); err != nil {
					return err
				}
				files, err := pf.open(e.stderr)
				if err != nil {
					return err
				}
				// The search writes the model into a directory of its own beside
				// --export-mps; it is moved into place with the other outputs, or removed
				// with them when learn fails.
				mps, cleanups := "", []func(){} // cleanups: a second interrupt's
				if *exportMPS != "" {
					dir := filepath.Dir(*exportMPS)
					if _, fd := datasets.Descriptor(*exportMPS); fd {
						dir = "" // not /dev: the model is copied to the descriptor
					}
					tmp, err := os.MkdirTemp(dir, ".reid-learn-*")
					if err != nil {
						return err
					}
					remove := func() { os.RemoveAll(tmp) }
					defer remove()
					cleanups = append(cleanups, remove)
					mps = filepath.Join(tmp, filepath.Base(*exportMPS))
				}
				job := learnJob{files: files, family: fam, direction: dir, records: *records, threads: *threads, hierarchy: *hierarchy,
					settings: optimize.Settings{Epsilon: *epsilon, TimeLimit: *timeLimit, WorkLimit: workLimit.Seconds(), Seed: int64(*pf.seed), Threads: *threads, ExportMPS: mps}}
				ctx, release := interruptible(e, "learn", cleanups...)
				r, op, err := job.run(ctx, e)
				sig := release()
				if err != nil {
					return err
				}
				r.Original = inputFile{pathText(*pf.original), files.OriginalSHA256}
				r.Masked = inputFile{pathText(*pf.masked), files.MaskedSHA256}
				r.Intruder = files.Intruder
				r.ReleasedSample = files.releasedSample()
				r.MaskedScale = files.maskedScaleInput()
				r.Warnings = append(r.Warnings, files.inputWarnings(*records)...)
				results := func(w io.Writer) error {
					if *format == "json" {
						return writeJSON(w, r)
					}
					return printLearn(w, r)
				}
				var model outFile
				if mps != "" {
					// No model is written when there was nothing to search.
					if _, err := os.Stat(mps); err == nil {
						model = outFile{*exportMPS, func(f *os.File) error { return copyFile(f, mps) }}
					}
				}
				params := outFile{*paramsOut, func(f *os.File) error {
					return distances.WriteParamsScale(f, op, files.Pairing.Attributes, files.MaskedScale)
				}}
				if err := writeResults(e, *out, results, model, params); err != nil {
					return err
				}
				if sig != nil {
					return &interruptedError{sig: sig}
				}
				return nil
			}
		},
	}
}

// learnReport is the JSON document of `reid learn`. Field names are a contract with users'
// scripts: add fields, never rename. Only seconds depends on the run.
type learnReport struct {
	runInputs
	// Unmatched counts the query records without a true partner, left out of the search.
	Unmatched    int       `json:"unmatched,omitempty"`
	Direction    string    `json:"direction"`
	Operator     string    `json:"operator"`
	Params       []float64 `json:"params"`
	Epsilon      float64   `json:"epsilon"`
	CorrectLinks int       `json:"correct_links"`
	// KnifeEdgeRecords counts the records whose margin equals ε up to rounding, where the
	// search's and the pairwise core's arithmetic disagree (correct_links keeps the
	// search's verdict on them).
	KnifeEdgeRecords int     `json:"knife_edge_records,omitempty"`
	Reid             float64 `json:"reid"`
	DBRLLinks        int     `json:"dbrl_links"`
	EuclideanLinks   int     `json:"euclidean_links"`
	// EuclideanCorrectLinks counts the Euclidean distance's links by the criterion of
	// correct_links (margin ≥ ε), the figure correct_links is never below;
	// euclidean_links counts plain DBRL's (unique nearest, any margin).
	EuclideanCorrectLinks int     `json:"euclidean_correct_links"`
	Bound                 int     `json:"bound"`
	Gap                   float64 `json:"gap"`
	Status                string  `json:"status"`
	// Unproven: status time_limit though no limit was reached (optimize.Result.Unproven:
	// sets of records the LPs could not decide; the warning says why).
	Unproven      bool `json:"unproven,omitempty"`
	Nodes         int  `json:"nodes"`
	Cuts          int  `json:"cuts"`
	RowsGenerated int  `json:"rows_generated"`
	LPIterations  int  `json:"lp_iterations"`
	FamilyCuts    int  `json:"family_cuts"`
	// PSDStrategies counts the rank-one strategies the bilinear θ-LP games generated.
	PSDStrategies int `json:"psd_strategies,omitempty"`
	// TwinGroups is the number of groups of identical records (different true partners)
	// of which at most one can be linked: the bound starts from them.
	TwinGroups int `json:"twin_groups"`
	// CliqueRows counts the master's rows over cliques of records no two of which can be
	// linked together.
	CliqueRows int `json:"clique_rows"`
	// Swaps counts the better parameters found by the swap search on twin groups
	// (bilinear): a record given up for another member of its group.
	Swaps int `json:"swaps"`
	// Blocks counts the blocks of records searched on their own first: each block's
	// proven bound on its links is a row of the file's master. BlockNodes counts the
	// nodes of their searches.
	Blocks     int `json:"blocks"`
	BlockNodes int `json:"block_nodes"`
	// Neighbourhoods counts the neighbourhoods of the incumbent searched after the
	// blocks (each exactly unless its time ran out): a few linked records released, a
	// few unlinked ones opened, the rest kept linked.
	Neighbourhoods int `json:"neighbourhoods"`
	// Eigenvalues of the learned W (bilinear), ascending.
	Eigenvalues []float64 `json:"eigenvalues,omitempty"`
	// Shapley and Interaction describe a learned Choquet measure.
	Shapley     []attributeValue `json:"shapley,omitempty"`
	Interaction []pairValue      `json:"interaction,omitempty"`
	// Warnings are what a reader of the numbers must know, one sentence each.
	Warnings  []string         `json:"warnings,omitempty"`
	Hierarchy []hierarchyEntry `json:"hierarchy,omitempty"`
	TimeLimit string           `json:"time_limit,omitempty"`
	// WorkLimit is --work-limit in work seconds (0: none), Work the work the search
	// counted (optimize.Stats.Work).
	WorkLimit float64 `json:"work_limit,omitempty"`
	Work      float64 `json:"work"`
	Seed      int64   `json:"seed"`
	Seconds   float64 `json:"seconds"`
}

type attributeValue struct {
	Attribute string  `json:"attribute"`
	Value     float64 `json:"value"`
}

type pairValue struct {
	Attributes [2]string `json:"attributes"`
	Value      float64   `json:"value"`
}

// hierarchyEntry is a lower family's result, learned to warm-start the requested one.
type hierarchyEntry struct {
	Operator     string    `json:"operator"`
	Params       []float64 `json:"params"`
	CorrectLinks int       `json:"correct_links"`
	Bound        int       `json:"bound"`
	Gap          float64   `json:"gap"`
	Status       string    `json:"status"`
	Work         float64   `json:"work"`
	Seconds      float64   `json:"seconds"`
}

// lowerFamilyLimit is the time of each lower family of the hierarchy when learn has no
// time limit.
const lowerFamilyLimit = 2 * time.Minute

// minWorkLimit is the least work limit, in work seconds, a search gets when the ones
// before it (a hierarchy's lower families, an audit's operators) used up its share.
const minWorkLimit = 1e-3

// chooseLimit settles a command's --time-limit and --work-limit: it refuses a negative
// work limit, one past the optimiser's largest (given as a duration: plain seconds are
// bounded by the flag), and both given and positive; the one given replaces the other's
// default (audit's and bench's minute of time, demo's 4 work seconds).
func chooseLimit(fs *flag.FlagSet, timeLimit, workLimit *time.Duration) error {
	if *workLimit < 0 || *workLimit == 0 && flagGiven(fs, "work-limit") {
		// 0 is not "no limit" here: a CI variable left empty or 0 fell back to the
		// default time limit, a gate whose figures then flap.
		return usagef("--work-limit must be positive (for no limit, give --time-limit 0 where the command takes it)")
	}
	if workLimit.Seconds() > maxSeconds {
		return usagef("--work-limit %v is more than %g work seconds (about 32 years)", *workLimit, maxSeconds)
	}
	timeGiven := flagGiven(fs, "time-limit") && *timeLimit > 0
	workGiven := flagGiven(fs, "work-limit") && *workLimit > 0
	switch {
	case timeGiven && workGiven:
		return usagef("--work-limit and --time-limit: give one (a work limit makes the answer repeat; a time limit bounds the wall time)")
	case timeGiven:
		*workLimit = 0
	case workGiven:
		*timeLimit = 0
	}
	return nil
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

type learnJob struct {
	files     *pairedFiles
	family    optimize.Family
	hierarchy bool
	// lower are the results of the families below learned by run (hierarchy), result
	// the family's own.
	lower     []optimize.Result
	result    optimize.Result
	direction linkage.Direction
	records   int
	threads   int
	settings  optimize.Settings
	// lowerLimit overrides lowerFamilyLimit (tests).
	lowerLimit time.Duration
	// euclideanLinks, when set, is plain DBRL's count of correct links under the
	// Euclidean distance on these files, records and direction (the audit has it); run
	// counts it otherwise.
	euclideanLinks *int
}

func (j *learnJob) run(ctx context.Context, e *env) (*learnReport, distances.Operator, error) {
	p := j.files.Pairing
	// The report echoes the limit asked for: the family's own search gets what the lower
	// families left of it, which varies from run to run.
	requested, requestedWork := j.settings.TimeLimit, j.settings.WorkLimit
	om, mm, trueMasked, trueOriginal, err := j.files.standardised(j.records)
	if err != nil {
		return nil, nil, err
	}
	queries, refs, truth := mm, om, trueOriginal
	if j.direction == linkage.OriginalToMasked {
		queries, refs, truth = om, mm, trueMasked
	}
	// A line at least every plainEvery: the searches' reports, and between them (the
	// reductions and re-counts of a family on a large file, 10 s on EIA) which family is
	// being prepared, so that a CI log never looks stalled.
	// phase is the search's step under way (optimize.Report.Phase), empty before the
	// family's first report: its reductions.
	var lineMu sync.Mutex
	began, lastLine, family, phase := time.Now(), time.Now(), j.family, ""
	setFamily := func(f optimize.Family) { lineMu.Lock(); family, phase = f, ""; lineMu.Unlock() }
	j.settings.Progress = func(r optimize.Report) {
		lineMu.Lock()
		defer lineMu.Unlock()
		phase = r.Phase
		if now := time.Now(); now.Sub(lastLine) >= plainEvery {
			lastLine = now
			work := ""
			if j.settings.WorkLimit > 0 {
				work = fmt.Sprintf(" (%.0f work seconds)", r.Work)
			}
			step := ""
			if r.Phase != "" {
				step = " (" + r.Phase + ")"
			}
			fmt.Fprintf(e.stderr, "reid: learning %v%s: %d links found, bound %d (gap %.1f%%), %d nodes, %s%s\n",
				family, step, r.Incumbent, r.Bound, 100*r.Gap, r.Nodes, r.Elapsed.Round(time.Second), work)
		}
	}
	heartbeat := time.NewTicker(plainEvery)
	stopBeat := make(chan struct{})
	beatDone := make(chan struct{})
	go func() {
		defer close(beatDone)
		for {
			select {
			case <-stopBeat:
				return
			case now := <-heartbeat.C:
				lineMu.Lock()
				if now.Sub(lastLine) >= plainEvery {
					lastLine = now
					step := phase
					if step == "" {
						// Before the family's first report: its reductions, or, when they
						// stopped at the limit, the re-count of the starting point (a full
						// pass of the pairwise core: 15 s on 100,000 records).
						step = "reductions or re-count"
					}
					fmt.Fprintf(e.stderr, "reid: learning %v: %s under way, %s in all\n", family, step, now.Sub(began).Round(time.Second))
				}
				lineMu.Unlock()
			}
		}
	}()
	defer func() {
		heartbeat.Stop()
		close(stopBeat)
		<-beatDone
	}()
	if j.family == optimize.Choquet && len(p.Attributes) > optimize.MaxFullChoquetAttributes {
		return nil, nil, usagef("--operator choquet learns all 2^m − 2 measure values for at most %d attributes, got %d: choose fewer with --attrs, or use choquet2", optimize.MaxFullChoquetAttributes, len(p.Attributes))
	}
	if j.family == optimize.Choquet2 && len(p.Attributes) > distances.MaxChoquetAttributes {
		return nil, nil, usagef("--operator choquet2 is evaluated through its measure, for at most %d attributes, got %d: choose fewer with --attrs", distances.MaxChoquetAttributes, len(p.Attributes))
	}
	prob := optimize.Problem{Queries: queries, Refs: refs, Truth: truth}
	// The Euclidean distance's plain DBRL links, first and within the time limit: a
	// full pass of the pairwise core (10 s on 60,000 records) after the search overran
	// the limit by that much, and the audit's families by four times that.
	euclideanLinks := j.euclideanLinks
	spent := "" // a warning when the Euclidean linkage took the whole time limit
	if euclideanLinks == nil {
		start := time.Now()
		// Named in the heartbeat's lines, which called it the reductions (15 s of them on
		// a tester's 100,000 records, where the reductions had not begun).
		lineMu.Lock()
		phase = "the Euclidean linkage"
		lineMu.Unlock()
		eu, err := linkage.DBRL(linkage.Problem{Original: om, Masked: mm, TrueMasked: trueMasked, TrueOriginal: trueOriginal,
			Operator: distances.NewEuclidean(len(om)), Direction: j.direction}, linkage.Settings{Threads: j.threads})
		lineMu.Lock()
		phase = ""
		lineMu.Unlock()
		if err != nil {
			return nil, nil, err
		}
		euclideanLinks = &eu.Measures.Correct
		if j.settings.TimeLimit > 0 {
			took := time.Since(start)
			if took >= j.settings.TimeLimit {
				// The searches' own notes then speak of a limit of 1 ms (a tester's 5 s on
				// 100,000 records): say what took the rest.
				spent = fmt.Sprintf("the Euclidean linkage of every pair (%d × %d records) took %v of the time limit of %v, leaving the search none: give a longer time limit (the search's reductions and re-count then still take their own time)",
					len(queries[0]), len(refs[0]), took.Round(100*time.Millisecond), requested)
			}
			j.settings.TimeLimit = max(j.settings.TimeLimit-took, time.Millisecond)
		}
	}
	var lower []optimize.Result
	if j.hierarchy {
		start := time.Now()
		settings := j.settings
		settings.ExportMPS = ""
		for _, g := range j.family.Lower() {
			switch {
			case j.settings.WorkLimit > 0:
				settings.WorkLimit = j.settings.WorkLimit / 4
			case j.settings.TimeLimit > 0:
				settings.TimeLimit = max(j.settings.TimeLimit/4, time.Millisecond)
			default:
				// No limit asked: the family's own search runs to its proof, but a lower
				// family is only its warm start, and on files with many near ties its
				// proof never comes.
				settings.TimeLimit = cmp.Or(j.lowerLimit, lowerFamilyLimit)
			}
			prob.Family = g
			setFamily(g)
			// Each lower family starts from the ones below it learned so far (choquet2
			// from WM and OWA), as the audit does: under a time limit its incumbent then
			// never falls below theirs.
			warm, err := g.WarmStarts(lower)
			if err != nil {
				return nil, nil, err
			}
			settings.WarmStarts = warm
			res, err := optimize.LearnContext(ctx, prob, settings)
			if err != nil {
				return nil, nil, err
			}
			lower = append(lower, res)
		}
		warm, err := j.family.WarmStarts(lower)
		if err != nil {
			return nil, nil, err
		}
		j.settings.WarmStarts = append(j.settings.WarmStarts, warm...)
		if j.settings.TimeLimit > 0 && len(lower) > 0 {
			j.settings.TimeLimit = max(j.settings.TimeLimit-time.Since(start), time.Millisecond)
		}
		if j.settings.WorkLimit > 0 {
			// What the lower families counted, not their time: the same on every run.
			for _, l := range lower {
				j.settings.WorkLimit -= l.Stats.Work
			}
			j.settings.WorkLimit = max(j.settings.WorkLimit, minWorkLimit)
		}
	}
	prob.Family = j.family
	setFamily(j.family)
	res, err := optimize.LearnContext(ctx, prob, j.settings)
	if err != nil {
		return nil, nil, err
	}
	j.lower, j.result = lower, res
	if err := optimize.CheckHierarchy(append(lower, res)); err != nil {
		return nil, nil, err // a wrong proof: an internal error (exit 3)
	}
	op, err := j.family.Operator(res.Params)
	if err != nil {
		return nil, nil, err
	}
	r := &learnReport{
		runInputs:             runInputs{Engine: "reid " + version, Attributes: p.Attributes, N: res.N},
		Unmatched:             len(truth) - res.N,
		Direction:             j.direction.String(),
		Operator:              j.family.String(),
		Params:                res.Params,
		Epsilon:               res.Epsilon,
		CorrectLinks:          res.CorrectLinks,
		KnifeEdgeRecords:      res.KnifeEdge,
		DBRLLinks:             res.DBRLLinks,
		EuclideanLinks:        *euclideanLinks,
		EuclideanCorrectLinks: res.EuclideanLinks,
		Bound:                 res.Bound,
		Gap:                   res.Gap,
		Status:                res.Status.String(),
		Unproven:              res.Unproven,
		Nodes:                 res.Stats.Nodes,
		Cuts:                  res.Stats.Cuts,
		RowsGenerated:         res.Stats.RowsGenerated,
		LPIterations:          res.Stats.LPIterations,
		FamilyCuts:            res.Stats.FamilyCuts,
		PSDStrategies:         res.Stats.PSDStrategies,
		TwinGroups:            res.Stats.TwinGroups,
		CliqueRows:            res.Stats.CliqueRows,
		Swaps:                 res.Stats.Swaps,
		Blocks:                res.Stats.Blocks,
		BlockNodes:            res.Stats.BlockNodes,
		Neighbourhoods:        res.Stats.Neighbourhoods,
		Seed:                  j.settings.Seed,
		WorkLimit:             requestedWork,
		Work:                  res.Stats.Work,
		Seconds:               res.Stats.Seconds,
	}
	if res.N > 0 {
		r.Reid = float64(res.CorrectLinks) / float64(res.N)
	}
	for _, l := range lower {
		r.Hierarchy = append(r.Hierarchy, hierarchyEntry{Operator: l.Family.String(), Params: l.Params, CorrectLinks: l.CorrectLinks,
			Bound: l.Bound, Gap: l.Gap, Status: l.Status.String(), Work: l.Stats.Work, Seconds: l.Stats.Seconds})
		if l.Note != "" {
			r.Warnings = append(r.Warnings, l.Family.String()+" (warm start): "+l.Note)
		}
	}
	describeParams(r, op, p.Attributes)
	if spent != "" {
		r.Warnings = append(r.Warnings, spent)
	}
	if res.Note != "" {
		r.Warnings = append(r.Warnings, res.Note)
	}
	if plain := max(r.DBRLLinks, r.EuclideanLinks); plain > r.Bound {
		// The bound counts links with margin ≥ ε; plain DBRL counts any margin.
		r.Warnings = append(r.Warnings, marginWarning(plain, r.Bound, r.Epsilon))
	}
	if requested > 0 {
		r.TimeLimit = requested.String()
	}
	return r, op, nil
}

// copyFile copies the file at path into w.
func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// describeParams adds what makes learned parameters interpretable: the eigenvalues of a
// bilinear W, the Shapley values and pairwise interaction indices of a Choquet measure.
func describeParams(r *learnReport, op distances.Operator, attrs []string) {
	switch o := op.(type) {
	case *distances.Bilinear:
		var eig mat.EigenSym
		if eig.Factorize(o.Matrix(), false) {
			r.Eigenvalues = eig.Values(nil)
		}
	case *distances.Choquet:
		m := o.Attributes()
		for k, v := range distances.ShapleyValues(o.Measure(), m) {
			r.Shapley = append(r.Shapley, attributeValue{attrs[k], v})
		}
		in := distances.InteractionIndices(o.Measure(), m)
		for k := range m {
			for l := k + 1; l < m; l++ {
				r.Interaction = append(r.Interaction, pairValue{[2]string{attrs[k], attrs[l]}, in[k][l]})
			}
		}
	}
}

// marginWarning says that plain DBRL (any margin) re-identifies plain records where the
// worst case proves at most bound links with margin ≥ eps: the file's true links have
// margins below ε, which the search does not count (heavy-tailed attributes, z-scored).
func marginWarning(plain, bound int, eps float64) string {
	return fmt.Sprintf("plain DBRL re-identifies %s with a distance of the family, more than the proven bound %d on links with margin ≥ ε = %g: at least %d true %s here %s below ε, which the worst-case search does not count; rerun with a smaller --epsilon (e.g. %.3g) to bound them", counted(plain, "record"), bound, eps, plain-bound, plural(plain-bound, "link", "links"), plural(plain-bound, "has a margin", "have margins"), eps/1000)
}

func printLearn(w io.Writer, r *learnReport) error {
	fmt.Fprintf(w, "worst-case %s distance (exact MILP), %s, %s on %s%s, ε = %g\n",
		r.Operator, r.Direction, counted(r.N, "record"), counted(len(r.Attributes), "attribute"), unmatchedNote(r.Unmatched), r.Epsilon)
	printReleasedSample(w, r.ReleasedSample, true)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "status\t%s\t\n", r.Status)
	fmt.Fprintf(tw, "correct links\t%d\t(margin ≥ ε; Reid %.4f)\n", r.CorrectLinks, r.Reid)
	if r.KnifeEdgeRecords > 0 {
		fmt.Fprintf(tw, "on a knife edge\t%d\t(margin = ε up to rounding; the search's verdict kept)\n", r.KnifeEdgeRecords)
	}
	fmt.Fprintf(tw, "proven bound\t%d\t(Reid ≤ %.4f; gap %.2f%%)\n", r.Bound, float64(r.Bound)/float64(max(r.N, 1)), 100*r.Gap)
	fmt.Fprintf(tw, "DBRL links\t%d\t(learned parameters, unique nearest)\n", r.DBRLLinks)
	// Both criteria: on heavy-tailed files many plain links have margins below ε, and
	// the plain count alone reads as if the worst case linked fewer than Euclidean.
	fmt.Fprintf(tw, "Euclidean links\t%d\t(unique nearest; %d with margin ≥ ε)\n", r.EuclideanLinks, r.EuclideanCorrectLinks)
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Status != optimize.Optimal.String() && r.Bound > r.CorrectLinks {
		// What a reader of a stopped search most needs: the answer is an interval.
		advice := "a longer --time-limit may narrow it"
		switch {
		case r.Unproven:
			// The search stopped on sets it could not decide (the warning).
			advice = "no limit stopped it: see the warning"
		case r.WorkLimit > 0:
			advice = "a longer --work-limit may narrow it"
		}
		fmt.Fprintf(w, "the worst case of the %s family lies between %d and %d links (Reid %.4f to %.4f): %s\n",
			r.Operator, r.CorrectLinks, r.Bound, r.Reid, float64(r.Bound)/float64(max(r.N, 1)), advice)
	}
	for _, h := range r.Hierarchy {
		fmt.Fprintf(w, "%s (warm start): %d links, bound %d, %s\n", h.Operator, h.CorrectLinks, h.Bound, h.Status)
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	switch r.Operator {
	case "wm", "owa":
		params := make([]string, len(r.Params))
		for k, v := range r.Params {
			name := fmt.Sprintf("w%d", k+1)
			if r.Operator == "wm" && k < len(r.Attributes) {
				name = cell(r.Attributes[k])
			}
			params[k] = fmt.Sprintf("%s=%.4g", name, v)
		}
		fmt.Fprintf(w, "params: %s\n", strings.Join(params, " "))
	case "bilinear":
		ev := make([]string, len(r.Eigenvalues))
		for k, v := range r.Eigenvalues {
			ev[k] = fmt.Sprintf("%.4g", v)
		}
		fmt.Fprintf(w, "eigenvalues of W: %s (params: the upper triangle of W; --params-out writes it)\n", strings.Join(ev, " "))
	case "choquet", "choquet2":
		sh := append([]attributeValue(nil), r.Shapley...)
		sort.SliceStable(sh, func(a, b int) bool { return sh[a].Value > sh[b].Value })
		parts := make([]string, len(sh))
		for k, v := range sh {
			parts[k] = fmt.Sprintf("%s=%.3f", cell(v.Attribute), v.Value)
		}
		fmt.Fprintf(w, "Shapley values: %s\n", strings.Join(parts, " "))
		in := append([]pairValue(nil), r.Interaction...)
		sort.SliceStable(in, func(a, b int) bool { return math.Abs(in[a].Value) > math.Abs(in[b].Value) })
		parts = parts[:0]
		for _, v := range in[:min(5, len(in))] {
			parts = append(parts, fmt.Sprintf("%s×%s=%+.3f", cell(v.Attributes[0]), cell(v.Attributes[1]), v.Value))
		}
		fmt.Fprintf(w, "strongest interactions: %s\n", strings.Join(parts, " "))
	}
	fmt.Fprintf(w, "search: %d nodes, %d cuts, %d rows generated, %d LP iterations, %.2f work seconds, %.2fs\n",
		r.Nodes, r.Cuts, r.RowsGenerated, r.LPIterations, r.Work, r.Seconds)
	return nil
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// counted is n and noun, plural but for one: "1 attribute", "13 attributes".
func counted(n int, noun string) string {
	many := noun + "s"
	if strings.HasSuffix(noun, "s") {
		many = noun + "es" // class, classes
	}
	return fmt.Sprintf("%d %s", n, plural(n, noun, many))
}
