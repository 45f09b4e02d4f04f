package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/linkage"
	"github.com/reid-sdc/reid/optimize"
	"github.com/reid-sdc/reid/uniqueness"
)

// auditSchemaVersion is the version of the audit report's JSON schema
// (docs/report-schema.json). Bump it when a field is renamed or removed; adding a field
// keeps it.
const auditSchemaVersion = "1.0"

func auditCommand() *command {
	return &command{
		Name:      "audit",
		UsageLine: "reid audit --original X --masked X' [--attrs A,B] [--keys K1,K2 [--population P]] [--masking M] [--policy FILE] [--time-limit T | --work-limit W] [--epsilon E] [--out DIR]",
		Short:     "run every measure on a masked file, write the report and check a policy",
		Long: `
Audit is the job to run before releasing a masked file, and the one a CI pipeline runs on
every masked file. It pairs the files as 'reid check' does, on the original's columns
that the masked file has too, but the id (a warning names the ones left out), unless
--attrs chooses, and runs:

  DBRL        distance-based record linkage, Euclidean distance, both directions, on the
              numeric attributes (distances need numbers)
  PRL         probabilistic record linkage (Fellegi-Sunter), EM and supervised (worst case),
              both directions, on every attribute: categorical ones agree when equal;
              linking by best weight, and masked to original also by one-to-one
              assignment (prl/em-assignment/...), as reid link --method prl does
  K.Reid      the links the intruder knows are correct, under --masking
  worst case  the learned distances of the WM, OWA, bilinear and Choquet families (exact
              MILP, anytime) on the numeric attributes: --time-limit is split between the
              operators (or --work-limit, counted work instead of time: then every
              figure of the report repeats exactly, run after run); each reports its
              incumbent, proven bound, gap and status. Bilinear and Choquet start from
              the WM and OWA optima; on more than 13 attributes the 2-additive Choquet
              integral (choquet2, up to 20) replaces the full one.
              An interrupt (Ctrl-C or SIGTERM) ends the searches with status
              interrupted (a family not yet started has no bound: the summary's
              worst_case_reid_bound is then 1) and stops DBRL and PRL, which are then
              not reported (a warning says so); the report is still written, and audit
              exits 130 without judging the policy.
  uniqueness  with --keys: sample and population uniques, P(PU|SU), record risk and
              k-anonymity of the masked file on those keys (--population counts F_j;
              without it the masked file is its own population, and P(PU|SU) is 1
              whenever a sample unique exists, undefined without one: reid uniqueness
              --weights estimates it from sampling weights)

With --missing keep, PRL leaves a missing value out of its comparison (weight 0) and uniqueness
counts it as a category of its own; DBRL and the worst case need numbers, so a missing
value in a numeric attribute is an error naming it (leave that attribute out with
--attrs, or impute it).

It prints a summary and writes into --out DIR (default reid-audit): report.json (the
versioned report, schema in docs/report-schema.json), report.md and report.html
(self-contained, with SVG charts).

--policy FILE (JSON) sets thresholds: max_reid (any linkage method), max_worst_case_reid
(with worst_case_by: bound, the default, or incumbent: both count links with margin ≥ ε,
--epsilon, default 1e-4; the plain DBRL Reid of a distance of the families counts when it
is larger, and a warning says when it exceeds the bound), max_k_reid, max_p_pu_given_su and
min_k. An unknown key is an error (exit 2). When a threshold is exceeded the command
exits 1 and prints one line per violated rule with the measure, its value and the
threshold; it exits 0 otherwise. The last line of stdout is a one-line summary for CI logs.
--records N keeps the first N records of both files after standardising, for quick runs of
linkage and worst case (uniqueness always counts the whole masked file).`,
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			pf := addPairFlags(fs)
			fs.Lookup("attrs").Usage = "comma-separated `attributes` to link on (default: the original's columns that the masked file has too, but the id); a name holding a comma in double quotes"
			masking := fs.String("masking", "none", "intruder's `knowledge` of the masking, for K.Reid (rankswap:p=P, mdav:k=K, indrank:k=K, none)")
			keys := fs.String("keys", "", "comma-separated key `attributes` for uniqueness (linked on too when the original has them, unless --attrs); a name holding a comma in double quotes")
			population := fs.String("population", "", "population `file` for uniqueness (F_j counted in it)")
			policyFile := fs.String("policy", "", "policy `file` (JSON) with the thresholds of the gate")
			timeLimit := secondsOrDuration(time.Minute)
			fs.Var(&timeLimit, "time-limit", "time for the worst-case search, split between the operators (`duration`, e.g. 30s, 2m; 0: no limit, the searches run to their proofs, which can take hours)")
			var workLimit secondsOrDuration
			fs.Var(&workLimit, "work-limit", "counted `work` for the worst-case search instead of time (work seconds, e.g. 240 or 4m), split between the operators: the same report on every run")
			out := fs.String("out", "reid-audit", "write report.json, report.md and report.html into this `directory`")
			records := fs.Int("records", 0, "keep the first `N` records of both files after standardising (0: all; else at least 2)")
			threads := threadsFlag(fs)
			epsilon := fs.Float64("epsilon", optimize.DefaultEpsilon, "margin `ε` a correct link of the worst-case search needs (as reid learn's)")
			return func(args []string) error {
				know, err := parseKnowledge(*masking)
				if err != nil {
					return usagef("--masking: %v", err)
				}
				if err := checkRecords(*records); err != nil {
					return err
				}
				if timeLimit < 0 {
					return usagef("--time-limit must not be negative (0: no limit)")
				}
				if err := chooseLimit(fs, (*time.Duration)(&timeLimit), (*time.Duration)(&workLimit)); err != nil {
					return err
				}
				if err := checkEpsilon(*epsilon); err != nil {
					return err
				}
				if *population != "" && *keys == "" {
					return usagef("--population needs --keys")
				}
				if err := pf.positionalFiles(args); err != nil {
					return err
				}
				if err := checkOutDir("out", *out); err != nil {
					return err
				}
				var pol *policy
				if *policyFile != "" {
					if pol, err = readPolicy(*policyFile); err != nil {
						return err
					}
					if err := pol.needs(know, *keys != ""); err != nil {
						return err
					}
				}
				// Made now, not after the search: a directory that cannot be made or take
				// a file (a read-only place) must not cost the whole time limit.
				made, err := makeOutDir(*out)
				if err != nil {
					return usagef("--out %s: %v", *out, err)
				}
				removeMade := func() { // only the directories made, and only if still empty
					for _, d := range made {
						os.Remove(d)
					}
				}
				unlock, err := lockOutDir(*out)
				if err != nil {
					// Not removeMade: the audit holding the lock may have made the same
					// directories a moment before (both saw them missing).
					return err
				}
				defer unlock()
				if err := prepareOutDir(*out, append(pf.inputs(args), *population, *policyFile)); err != nil {
					removeMade() // the lock (an open descriptor) does not keep a directory
					return err
				}
				keyList, err := splitList("keys", *keys)
				if err != nil {
					return err
				}
				a := auditJob{pf: pf, knowledge: know, maskingSpec: *masking, keys: keyList, population: *population,
					timeLimit: time.Duration(timeLimit), workLimit: time.Duration(workLimit).Seconds(), epsilon: *epsilon, records: *records, threads: *threads}
				ctx, release := interruptible(e, "audit")
				rep, err := a.run(ctx, e)
				// A signal while the reports are written waits for them: killed between two
				// renames, the directory held an old report.json beside a new report.html.
				// The hold starts before the interrupt's relay stops, leaving no moment
				// with the default handler; after an interrupt there is none, so that the
				// second signal aborts, as the first one's message promised.
				held := holdSignals(e)
				sig := release()
				if sig != nil || err != nil {
					held() // released at once: a later call reports nothing
				}
				if err != nil {
					removeMade()
					return err
				}
				rep.Interrupted = sig != nil
				if pol != nil && sig == nil {
					// Not on unfinished searches: a pass there would be no pass.
					rep.Policy = pol.check(rep, *policyFile)
				}
				err = writeAuditFiles(*out, rep)
				if late := held(); late != nil && err == nil {
					// The work was done and judged: the verdict stands.
					fmt.Fprintf(e.stderr, "reid audit: %v while the reports were written: they are whole, the verdict stands\n", late)
				}
				if err != nil {
					return err
				}
				// Before the verdicts: a policy violated or an interrupt would claim the
				// summary, the CI log's line, was printed.
				if err := printAudit(e.stdout, rep, *out); err != nil {
					return fmt.Errorf("the reports in %s are written, but the summary could not be printed: %w", *out, err)
				}
				if sig != nil {
					return &interruptedError{sig: sig}
				}
				if rep.Policy != nil && !rep.Policy.Pass {
					var lines []string
					for _, v := range rep.Policy.Violations {
						lines = append(lines, v.Message)
					}
					return &policyError{lines}
				}
				return nil
			}
		},
	}
}

// auditInput is one input file of the report.
type auditInput struct {
	File    pathText `json:"file"`
	SHA256  string   `json:"sha256"`
	Records int      `json:"records"`
}

type auditInputs struct {
	Original   auditInput  `json:"original"`
	Masked     auditInput  `json:"masked"`
	Population *auditInput `json:"population"`
}

type auditOptions struct {
	Attributes []string `json:"attributes"`
	// DistanceAttributes are the numeric ones among Attributes: DBRL and the worst case
	// link on them, PRL on all.
	DistanceAttributes []string `json:"distance_attributes"`
	ID                 string   `json:"id,omitempty"`
	Keys               []string `json:"keys"`
	Masking            string   `json:"masking"`
	TimeLimit          string   `json:"time_limit"`
	// WorkLimit is --work-limit in work seconds (0: none; the time limit is then 0s).
	WorkLimit    float64   `json:"work_limit,omitempty"`
	Epsilon      float64   `json:"epsilon"`
	Records      int       `json:"records"`
	PRLQuantiles []float64 `json:"prl_quantiles"`
	// Intruder is the subset of the original the intruder holds (absent: all of it).
	Intruder *intruderSubset `json:"intruder,omitempty"`
	// ReleasedSample: the masked file lacks some of the original's records.
	ReleasedSample *releasedSample `json:"released_sample,omitempty"`
	// MaskedScale is --masked-scale: own or original (DBRL and the worst case).
	MaskedScale string `json:"masked_scale"`
}

// auditLinkage is one linkage run (DBRL or PRL, one direction).
type auditLinkage struct {
	ID         string `json:"id"`
	Method     string `json:"method"`
	Direction  string `json:"direction"`
	Operator   string `json:"operator"`
	Supervised bool   `json:"supervised,omitempty"`
	Comparison string `json:"comparison,omitempty"`
	N          int    `json:"n"`
	// Unmatched counts the query records without a true partner, in no Reid.
	Unmatched  int                `json:"unmatched,omitempty"`
	Correct    int                `json:"correct"`
	Reid       float64            `json:"reid"`
	ReidSets   float64            `json:"reid_sets"`
	ReidAtK    map[string]float64 `json:"reid_at_k"`
	KReid      float64            `json:"k_reid"`
	KnownLinks int                `json:"known_links"`
	// KnownLinksWrong: links the attack made known that are not true (--masking does not
	// describe the file); not in known_links.
	KnownLinksWrong int `json:"known_links_wrong,omitempty"`
	// KnownInconsistent: masked records no original is consistent with under --masking
	// (the masking was not done as stated): K.Reid is not measured, and max_k_reid fails.
	KnownInconsistent int    `json:"known_inconsistent,omitempty"`
	Knowledge         string `json:"knowledge"`
	// maskingRefuted: the whole masked file contradicts --masking, also where --records
	// measured none of its contradicting records.
	maskingRefuted bool
	SetSizes       []linkage.Count `json:"set_sizes"`
	RankCounts     []linkage.Count `json:"rank_counts"`
	// Warning (PRL with EM): why the fit may not be the maximum-likelihood one, as
	// reid link --method prl reports it.
	Warning string `json:"warning,omitempty"`
	// Assignment (PRL, masked to original): the same run's one-to-one assignment of
	// maximum total weight, as reid link --method prl makes it; reid is best-weight.
	Assignment *auditAssignment `json:"assignment,omitempty"`
	// assignmentNote, for a warning: why the assignment was not computed, or that it is
	// not certified optimal over all pairs.
	assignmentNote string
}

// auditAssignment is a PRL run's one-to-one assignment (ties broken against the
// intruder): its correct links and their share, and how its optimality is known.
type auditAssignment struct {
	Correct    int     `json:"correct"`
	Reid       float64 `json:"reid"`
	Status     string  `json:"status"`
	Unassigned int     `json:"unassigned,omitempty"`
}

// assignmentID names a PRL run's assignment where an id is wanted (max_reid_source, the
// tables): prl/em-assignment/masked-to-original.
func (l auditLinkage) assignmentID() string {
	return strings.Replace(l.ID, "/"+l.Direction, "-assignment/"+l.Direction, 1)
}

// auditWorstCase is one operator family of the worst-case search.
type auditWorstCase struct {
	Operator      string  `json:"operator"`
	Available     bool    `json:"available"`
	Reason        string  `json:"reason,omitempty"`
	Status        string  `json:"status"`
	Direction     string  `json:"direction,omitempty"`
	N             int     `json:"n"`
	Incumbent     int     `json:"incumbent"`
	IncumbentReid float64 `json:"incumbent_reid"`
	// KnifeEdgeRecords as in reid learn: margins equal to ε up to rounding.
	KnifeEdgeRecords int       `json:"knife_edge_records,omitempty"`
	Bound            int       `json:"bound"`
	BoundReid        float64   `json:"bound_reid"`
	Gap              float64   `json:"gap"`
	DBRLLinks        int       `json:"dbrl_links"`
	Params           []float64 `json:"params"`
}

// auditMeasure is one figure with the name of its definition; the flat list the policy
// and users' scripts read.
type auditMeasure struct {
	Name       string  `json:"name"`
	Source     string  `json:"source"`
	Definition string  `json:"definition"`
	Value      float64 `json:"value"`
}

type auditSummary struct {
	MaxReid                float64  `json:"max_reid"`
	MaxReidSource          string   `json:"max_reid_source"`
	WorstCaseReidIncumbent *float64 `json:"worst_case_reid_incumbent"`
	WorstCaseReidBound     *float64 `json:"worst_case_reid_bound"`
	// WorstCaseReidDBRL is the largest share of records that a family's learned
	// parameters re-identify by plain DBRL (the true partner the unique nearest, any
	// margin), as max_reid counts them: it can exceed worst_case_reid_incumbent, which
	// counts links with margin ≥ ε only, and a reader comparing max_reid with the worst
	// case needs the count on max_reid's terms.
	WorstCaseReidDBRL *float64 `json:"worst_case_reid_dbrl"`
	MaxKReid          float64  `json:"max_k_reid"`
	// KReidNotMeasured, when present, says why max_k_reid is no measurement: the masked
	// file contradicts --masking (a max_k_reid rule fails then; a script reading the
	// summary alone read the 0 as a measured K.Reid).
	KReidNotMeasured string   `json:"k_reid_not_measured,omitempty"`
	PPUGivenSU       *float64 `json:"p_pu_given_su"`
	KMin             *int     `json:"k_min"`
}

// auditReport is report.json. Field names are a contract (docs/report-schema.json): add
// fields, never rename. Everything but timings is identical for the same inputs when the
// worst-case search ends before its time limit.
type auditReport struct {
	SchemaVersion string            `json:"schema_version"`
	Engine        string            `json:"engine"`
	Inputs        auditInputs       `json:"inputs"`
	Options       auditOptions      `json:"options"`
	Seed          uint64            `json:"seed"`
	Linkage       []auditLinkage    `json:"linkage"`
	WorstCase     []auditWorstCase  `json:"worst_case"`
	Uniqueness    *uniquenessReport `json:"uniqueness"`
	Measures      []auditMeasure    `json:"measures"`
	Summary       auditSummary      `json:"summary"`
	Policy        *policyResult     `json:"policy"`
	Timings       auditTimings      `json:"timings"`
	// Interrupted is set when a signal stopped the worst-case searches: their statuses
	// say interrupted, and the policy (null) was not judged.
	Interrupted bool `json:"interrupted,omitempty"`
	// Warnings are what a reader of the numbers must know (one sentence each).
	Warnings []string `json:"warnings,omitempty"`

	charts auditChartData
}

type auditTimings struct {
	TotalSeconds float64            `json:"total_seconds"`
	Steps        map[string]float64 `json:"steps"`
}

// auditChartData is what the charts need beyond the JSON.
type auditChartData struct {
	prlTrue, prlOther []weightCount // PRL (EM) weights of true pairs and of other pairs
	recordRisk        []float64     // per-record risk of uniqueness
	classSizes        []int         // f_j of each key class
}

type weightCount struct {
	Weight float64
	Count  uint64
}

// Definitions of the measures, named in the report.
const (
	defReid           = "reid: share of query records whose nearest candidate is unique and is the true partner (ties are not correct links)"
	defReidSets       = "reid_sets: Reid with anonymity sets, 1/|A| credit when the true partner is among the |A| candidates tied at the best score"
	defReidAssignment = "reid_assignment: share of query records that the one-to-one assignment of maximum total PRL weight (ties broken against the intruder) gives their true partner"
	defKReid          = "k_reid: share of records whose link the intruder knows is correct, knowing the masking method and parameter"
	defWCInc          = "worst_case_reid_incumbent: correct links (margin >= epsilon) of the best distance of the family found, over n"
	defWCBound        = "worst_case_reid_bound: proven upper bound on the correct links (margin >= epsilon) of any distance of the family, over n"
	defWCDBRL         = "worst_case_reid_dbrl: records the best distance of the family found re-identifies by plain DBRL (unique nearest, any margin, as reid counts them), over n"
	defWCDBRLEu       = "worst_case_reid_dbrl: records the Euclidean distance, a member of every family, re-identifies by plain DBRL masked to original (unique nearest, any margin), over n"
	defPPU            = "p_pu_given_su: share of sample uniques on the keys that are population uniques, P(PU|SU)"
	defRate           = "reidentification_rate: mean record risk E[1/F_j | f_j] over the records"
	defKMin           = "k_min: size of the smallest key class of the masked file (the file is k_min-anonymous)"
)

type auditJob struct {
	// command names the command in progress lines: "bench" and "demo" run audits too,
	// whose lines said "reid audit:" ("" is "audit").
	command     string
	pf          *pairFlags
	knowledge   linkage.Knowledge
	maskingSpec string
	keys        []string
	population  string
	timeLimit   time.Duration
	// workLimit is --work-limit in work seconds (0: none), split between the operators
	// as the time limit is.
	workLimit float64
	epsilon   float64
	records   int
	threads   int
	// prlEMOnly runs PRL masked to original, EM, best weight only: what bench reports.
	prlEMOnly bool
	// maxRowBytes, when positive, replaces the searches' 2 GiB bound on their rows
	// (optimize.Settings.MaxRowBytes; tests).
	maxRowBytes int64
}

var prlQuantiles, prlBands = []float64{0.01, 0.1}, []float64{0.1, 0.5}

// prlFallback is the comparison of the audit's PRL when the quantile bands are not usable;
// prlCategorical, when no attribute is numeric.
const (
	prlFallback    = "bands at |dz| 0.1, 0.5"
	prlCategorical = "categorical attributes, agreeing when equal"
)

func (a *auditJob) run(ctx context.Context, e *env) (*auditReport, error) {
	start := time.Now()
	// ε as the searches use it, also in the report: demo and bench leave it unset.
	a.epsilon = cmp.Or(a.epsilon, optimize.DefaultEpsilon)
	steps := map[string]float64{}
	step := func(name string, t time.Time) { steps[name] = time.Since(t).Seconds() }

	t := time.Now()
	leftOut, maskedOnly, err := a.defaultAttributes()
	if err != nil {
		return nil, err
	}
	files, err := a.pf.open(e.stderr)
	if err != nil {
		return nil, err
	}
	if err := files.firstRecordsPaired(a.records); err != nil {
		return nil, err
	}
	// PRL compares every attribute; the distances (DBRL, the worst case) only numbers.
	// Before, the audit linked every method on the numeric attributes alone: a file of
	// categorical keys masked by PRAM passed with Reid 0 where PRL on its keys links half.
	dist, categorical, err := files.numericView()
	if err != nil {
		return nil, err
	}
	if len(dist.Pairing.Attributes) == 0 && a.knowledge.Method != "" && a.knowledge.Method != "none" {
		// K.Reid comes with DBRL, which has nothing to run on: a max_k_reid rule would
		// pass on a measure never taken.
		return nil, usagef("--masking %s: K.Reid re-runs the masking on numeric attributes, and every attribute here is categorical", a.maskingSpec)
	}
	step("load", t)
	pf := a.pf
	r := &auditReport{
		SchemaVersion: auditSchemaVersion,
		Engine:        "reid " + version,
		Inputs: auditInputs{
			Original: auditInput{pathText(*pf.original), files.OriginalSHA256, files.OriginalRecords},
			Masked:   auditInput{pathText(*pf.masked), files.MaskedSHA256, files.MaskedRecords},
		},
		Options: auditOptions{Attributes: files.Pairing.Attributes, DistanceAttributes: dist.Pairing.Attributes, ID: *pf.id, Keys: a.keys, Masking: a.maskingSpec,
			TimeLimit: a.timeLimit.String(), WorkLimit: a.workLimit, Epsilon: a.epsilon, Records: a.records, PRLQuantiles: prlQuantiles,
			Intruder: files.Intruder, ReleasedSample: files.releasedSample(), MaskedScale: files.MaskedScale},
		Seed:      *pf.seed,
		Linkage:   []auditLinkage{},
		WorstCase: []auditWorstCase{},
		Measures:  []auditMeasure{},
	}
	if r.Options.Keys == nil {
		r.Options.Keys = []string{}
	}
	if r.Options.DistanceAttributes == nil {
		r.Options.DistanceAttributes = []string{}
	}
	if len(leftOut) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("not linked on: %s, columns of the original that the masked file does not have", strings.Join(leftOut, ", ")))
	}
	if len(maskedOnly) > 0 {
		// The intruder's file is the original: a column it lacks links nothing.
		r.Warnings = append(r.Warnings, fmt.Sprintf("not linked on: %s, columns of the masked file that the original does not have", strings.Join(maskedOnly, ", ")))
	}
	switch {
	case len(categorical) > 0 && len(dist.Pairing.Attributes) == 0:
		r.Warnings = append(r.Warnings, fmt.Sprintf("no numeric attribute: DBRL and the worst case (distances) were not run; PRL compared the categorical attributes %s", strings.Join(categorical, ", ")))
	case len(categorical) > 0:
		r.Warnings = append(r.Warnings, fmt.Sprintf("DBRL and the worst case link on the numeric attributes only (%d of %d); the categorical ones (%s) are compared by PRL", len(dist.Pairing.Attributes), len(files.Pairing.Attributes), strings.Join(categorical, ", ")))
	}
	r.Warnings = append(r.Warnings, pairingWarnings(files.Pairing, a.records)...)
	r.Warnings = append(r.Warnings, files.inputWarnings(a.records)...)
	if w := leftOutWarning(files, a.records); w != "" {
		r.Warnings = append(r.Warnings, w)
	}

	// Uniqueness of the masked file on the keys, first: its inputs (--keys, --population)
	// are checked here, before minutes of worst-case search.
	if len(a.keys) > 0 {
		t = time.Now()
		if err := a.uniqueness(r); err != nil {
			return nil, err
		}
		step("uniqueness", t)
		if a.population == "" && files.Pairing.LeftOut > 0 {
			// Without a population file the masked file is taken as the population
			// (F_j = f_j); a sample of the original has its population at hand.
			r.Warnings = append(r.Warnings, fmt.Sprintf("uniqueness: %s holds a sample of the original's records, and without --population each key class of it counts as the population's; --population %s counts them in the original (when the keys were not masked)", files.Pairing.Masked.Source, *a.pf.original))
		}
	}

	// DBRL, Euclidean, both directions, with K.Reid.
	var euclidean *int // masked to original: the worst-case families' Euclidean links
	for _, dir := range []linkage.Direction{linkage.MaskedToOriginal, linkage.OriginalToMasked} {
		if len(dist.Pairing.Attributes) == 0 {
			break
		}
		t = time.Now()
		job := linkJob{ctx: ctx, files: dist, operator: "euclidean", direction: dir, knowledge: a.knowledge, records: a.records, threads: a.threads}
		lr, _, err := job.run(e)
		if err != nil && ctx.Err() != nil {
			// An interrupt: on hundreds of thousands of records DBRL takes minutes.
			r.Warnings = append(r.Warnings, "dbrl/euclidean/"+dir.String()+" not run: interrupted")
			continue
		}
		if err != nil {
			return nil, err
		}
		r.Linkage = append(r.Linkage, fromLinkReport("dbrl", false, lr))
		for _, w := range lr.Warnings {
			if !slices.Contains(r.Warnings, w) { // both directions run the same attack
				r.Warnings = append(r.Warnings, w)
			}
		}
		if dir == linkage.MaskedToOriginal {
			euclidean = &lr.Correct
		}
		step("dbrl/"+dir.String(), t)
	}

	// PRL, EM and supervised, in both directions as DBRL, each linking by best weight;
	// masked to original also by one-to-one assignment, which on files of one record per
	// person can link more (max_reid is over every linkage the audit runs). Not the other
	// way: over the same compared pairs an optimal assignment is one whichever file
	// queries, and it costs passes over all pairs (a minute on Adult's 30,162 records).
prl:
	for _, dir := range []linkage.Direction{linkage.MaskedToOriginal, linkage.OriginalToMasked} {
		for _, sup := range []bool{false, true} {
			if a.prlEMOnly && (sup || dir != linkage.MaskedToOriginal) {
				continue
			}
			t = time.Now()
			run := "prl/" + prlFit(sup) // the masked-to-original runs keep their names of old
			if dir != linkage.MaskedToOriginal {
				run += "/" + dir.String()
			}
			lk, weights, err := a.prl(ctx, e, files, dist, dir, sup)
			if err != nil && ctx.Err() != nil {
				// An interrupt: PRL on 30,000 records takes half a minute, which the user
				// who pressed Ctrl-C should not wait for; the report says what was not
				// measured.
				r.Warnings = append(r.Warnings, run+" not run: interrupted")
				continue // the next run returns at once, with its own warning
			}
			if errors.Is(err, linkage.ErrPatternSpace) {
				if len(r.Linkage) == 0 {
					// No numeric attribute for DBRL either: no linkage measured at all.
					return nil, asInput(fmt.Errorf("no linkage method can run: the attributes are categorical (no distance) and PRL cannot count their agreement patterns: %w; choose fewer attributes with --attrs", err))
				}
				// Some 40 attributes of three levels: the audit's other measures stand.
				r.Warnings = append(r.Warnings, fmt.Sprintf("prl not run: %v (--attrs)", err))
				break prl
			}
			if err != nil {
				return nil, err
			}
			r.Linkage = append(r.Linkage, lk)
			// Both directions fit EM on the same pairs: one warning of a fit, one of bands.
			if w := "prl/em: " + lk.Warning; lk.Warning != "" && !slices.Contains(r.Warnings, w) {
				r.Warnings = append(r.Warnings, w)
			}
			if !sup && dir == linkage.MaskedToOriginal {
				r.charts.prlTrue, r.charts.prlOther = weights[0], weights[1]
				if lk.Comparison == prlFallback {
					// options.prl_quantiles says what was tried; this says what was used.
					r.Warnings = append(r.Warnings, "prl: the bands at quantiles 0.01, 0.1 of |dz| (the absolute differences of z-scores over all pairs) were not usable (attributes with many equal differences), so PRL compared with bands at |dz| 0.1, 0.5; reid link --method prl --bands 0.1,0.5 reproduces it")
				}
			}
			if lk.assignmentNote != "" {
				r.Warnings = append(r.Warnings, lk.assignmentID()+": "+lk.assignmentNote)
			}
			step(run, t)
		}
	}

	// Worst case, the time limit shared by the four families: each gets an equal share of
	// what is left, so an operator that overruns its share shortens the next. Bilinear and
	// Choquet start from the lifted WM and OWA optima (the hierarchy), and the invariants
	// between the four are checked at the end.
	// On more than 13 attributes the full Choquet measure is out of reach: the 2-additive
	// one (choquet2) is learned instead, up to 20 attributes.
	fams := []optimize.Family{optimize.WM, optimize.OWA, optimize.Bilinear, optimize.Choquet}
	nattrs := len(dist.Pairing.Attributes)
	var noChoquet *auditWorstCase
	if nattrs == 0 {
		for _, fam := range fams {
			r.WorstCase = append(r.WorstCase, auditWorstCase{Operator: fam.String(), Available: false, Status: "not_available",
				Reason: "no numeric attribute: the families are distances on numbers", Params: []float64{}})
		}
		fams = nil
	} else if nattrs > optimize.MaxFullChoquetAttributes {
		reason := fmt.Sprintf("the Choquet learner fits all 2^m − 2 measure values for at most %d attributes; this audit links on %d (choose fewer with --attrs)", optimize.MaxFullChoquetAttributes, nattrs)
		if nattrs <= distances.MaxChoquetAttributes {
			reason += "; the 2-additive Choquet integral (choquet2) is learned instead"
			fams[3] = optimize.Choquet2
		} else {
			reason += fmt.Sprintf("; nor is the 2-additive Choquet integral (choquet2), learned for at most %d", distances.MaxChoquetAttributes)
			fams = fams[:3]
		}
		// Listed after the families learned, in the hierarchy's order (it came first).
		noChoquet = &auditWorstCase{Operator: "choquet", Available: false, Status: "not_available", Reason: reason, Params: []float64{}}
	}
	deadline := time.Now().Add(a.timeLimit)
	workLeft := a.workLimit
	var learned []optimize.Result
	command := cmp.Or(a.command, "audit")
	for i, fam := range fams {
		t = time.Now()
		per := time.Duration(0) // no limit
		if a.timeLimit > 0 {
			// 95 % of the share: the job's own work around the search (standardising, the
			// Euclidean DBRL) and the last checks between two LP solves stay inside it.
			per = max(time.Until(deadline)/time.Duration(len(fams)-i)*95/100, time.Millisecond)
		}
		perWork := 0.0
		if a.workLimit > 0 {
			// What the operators before counted, not their time: the same on every run.
			perWork = max(workLeft/float64(len(fams)-i), minWorkLimit)
		}
		if ctx.Err() != nil {
			// Interrupted before this family's search: it is not started at all, where
			// its reductions and re-counts took seconds each on a large file (30 s from
			// the signal to the exit on 30,000 records).
			// bound_reid 1, the trivial bound, as the summary and the measures say: a
			// script reading the families' bounds read 0 for one never searched.
			r.WorstCase = append(r.WorstCase, auditWorstCase{Operator: fam.String(), Available: false, Status: "interrupted",
				Reason: "interrupted before the search started", BoundReid: 1, Params: []float64{}})
			continue
		}
		// A line per family on stderr: the searches are most of an audit's time, and
		// their own progress lines come only every plainEvery.
		switch {
		case per > 0:
			fmt.Fprintf(e.stderr, "reid %s: worst case %v (its share of the time limit: %v)\n", command, fam, per.Round(time.Millisecond))
		case perWork > 0:
			fmt.Fprintf(e.stderr, "reid %s: worst case %v (its share of the work limit: %.3f work seconds)\n", command, fam, perWork)
		default:
			fmt.Fprintf(e.stderr, "reid %s: worst case %v\n", command, fam)
		}
		warm, err := fam.WarmStarts(learned)
		if err != nil {
			return nil, err
		}
		settings := optimize.Settings{Epsilon: a.epsilon, TimeLimit: per, WorkLimit: perWork, Seed: int64(*pf.seed), Threads: a.threads, WarmStarts: warm,
			MaxRowBytes: a.maxRowBytes}
		if len(learned) > 0 && learned[0].NotStarted && euclidean != nil {
			// Every family counts the same Euclidean links: a search that cannot start
			// (a large file, a short share) reports them without a pass of its own. Only
			// counts made by the recount are passed on: a search that started counted
			// them on its own rows, which can differ where a margin equals ε exactly.
			settings.KnownEuclidean = &optimize.EuclideanCounts{Correct: learned[0].EuclideanLinks, DBRL: *euclidean}
		}
		job := learnJob{files: dist, family: fam, direction: linkage.MaskedToOriginal, records: a.records, threads: a.threads, settings: settings,
			euclideanLinks: euclidean}
		lr, _, err := job.run(ctx, e)
		if errors.Is(err, optimize.ErrTooLarge) {
			// A family whose rows would not fit (Choquet's, on 4,000 records of 13
			// attributes: a tester's audit ended with exit 2 and no report after the
			// other searches): reported not available, as Choquet on too many attributes
			// is, and the audit goes on.
			reason := oneLine(err.Error())
			r.WorstCase = append(r.WorstCase, auditWorstCase{Operator: fam.String(), Available: false, Status: "not_available", Reason: reason, Params: []float64{}})
			r.Warnings = append(r.Warnings, fmt.Sprintf("worst_case/%v not searched: %s (audit fewer records with --records); the worst-case figures cover the other families", fam, reason))
			continue
		}
		if err != nil {
			return nil, err
		}
		learned = append(learned, job.result)
		workLeft -= job.result.Stats.Work
		wc := auditWorstCase{Operator: lr.Operator, Available: true, Status: lr.Status, Direction: lr.Direction, N: lr.N,
			Incumbent: lr.CorrectLinks, IncumbentReid: lr.Reid, Bound: lr.Bound, BoundReid: share(lr.Bound, lr.N), Gap: lr.Gap,
			DBRLLinks: lr.DBRLLinks, Params: lr.Params, KnifeEdgeRecords: lr.KnifeEdgeRecords}
		if lr.Status == "interrupted" && job.result.NotStarted {
			// Interrupted in its reductions: the figures are the starting point's (the
			// Euclidean incumbent, the bound n), and reason says why, as for a family
			// not started at all.
			wc.Reason = job.result.Note
		}
		r.WorstCase = append(r.WorstCase, wc)
		// Each family's own warnings (plain DBRL above its ε-bound, a search that could
		// not start), named by the family.
		for _, w := range lr.Warnings {
			r.Warnings = append(r.Warnings, lr.Operator+": "+w)
		}
		step("worst_case/"+lr.Operator, t)
		// The share depends on how long the previous operator ran: a timing, not a result.
		steps["worst_case/"+lr.Operator+"/time_limit"] = per.Seconds()
		// The work counted: under a time limit it varies as the time does.
		steps["worst_case/"+lr.Operator+"/work"] = job.result.Stats.Work
		if perWork > 0 {
			steps["worst_case/"+lr.Operator+"/work_limit"] = perWork
		}
	}
	if noChoquet != nil {
		r.WorstCase = append(r.WorstCase, *noChoquet)
	}
	if ns := notStarted(r.WorstCase); len(ns) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("worst_case_reid_bound is 1: nothing bounds the families never started (interrupted): %s", strings.Join(ns, ", ")))
	}
	if err := optimize.CheckHierarchy(learned); err != nil {
		return nil, err // a wrong proof: an internal error (exit 3)
	}

	r.fillMeasures()
	r.Timings = auditTimings{TotalSeconds: time.Since(start).Seconds(), Steps: steps}
	return r, nil
}

// defaultAttributes sets --attrs, when not given, to the original's columns that the
// masked file has too, but the id: a release often drops columns (a direct identifier),
// and the masked file may add its own, which Pair would refuse or, with missing cells,
// the loader. It returns the original's columns left out and the masked file's columns
// the original lacks (but the id). Only the files' headers (or schemas) are read.
func (a *auditJob) defaultAttributes() (leftOut, maskedOnly []string, err error) {
	if a.pf.attrList != nil {
		return nil, nil, nil // given as a list (bench, demo)
	}
	if attrs, err := splitList("attrs", *a.pf.attrs); attrs != nil || err != nil {
		return nil, nil, err
	}
	opts, err := a.pf.load.options()
	if err != nil {
		return nil, nil, err
	}
	original, err := datasets.ColumnNames(*a.pf.original, opts)
	if err != nil {
		return nil, nil, err
	}
	masked, err := datasets.ColumnNames(*a.pf.masked, opts)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range masked {
		if c != *a.pf.id && !slices.Contains(original, c) {
			maskedOnly = append(maskedOnly, c)
		}
	}
	var attrs []string
	for _, c := range original {
		switch {
		case c == *a.pf.id:
		case slices.Contains(masked, c):
			attrs = append(attrs, c)
		default:
			leftOut = append(leftOut, c)
		}
	}
	if len(attrs) == 0 {
		return nil, nil, &datasets.InputError{File: *a.pf.masked, Err: fmt.Errorf("no column of %s but the id to link on (give --attrs)", *a.pf.original)}
	}
	a.pf.attrList = attrs
	return leftOut, maskedOnly, nil
}

// prlFit names how a PRL run fitted m and u: em, or supervised (from the true pairs).
func prlFit(supervised bool) string {
	if supervised {
		return "supervised"
	}
	return "em"
}

func fromLinkReport(method string, supervised bool, lr *linkReport) auditLinkage {
	id := method + "/" + lr.Operator + "/" + lr.Direction
	if method == "prl" {
		id = "prl/" + prlFit(supervised) + "/" + lr.Direction
	}
	return auditLinkage{ID: id, Method: method, Direction: lr.Direction, Operator: lr.Operator, Supervised: supervised,
		N: lr.N, Unmatched: lr.Unmatched, Correct: lr.Correct, Reid: lr.Reid, ReidSets: lr.ReidSets, ReidAtK: lr.ReidAtK, KReid: lr.KReid,
		KnownLinks: lr.KnownLinks, KnownLinksWrong: lr.KnownLinksWrong, KnownInconsistent: lr.KnownInconsistent, maskingRefuted: lr.maskingRefuted, Knowledge: lr.Knowledge, SetSizes: nonNilCounts(lr.SetSizes), RankCounts: nonNilCounts(lr.RankCounts)}
}

// leftOutWarning is releasedSampleText for the audit, with how many of the intruder's
// records the original-to-masked Reids count; empty when the masked file has every
// original record. Under --records (records > 0) the Reids count the first records of
// the original whose partner is among the first records of the masked file.
func leftOutWarning(f *pairedFiles, records int) string {
	p := f.Pairing
	w := releasedSampleText(f.releasedSample(), p.Masked.Source, true)
	if w == "" {
		return ""
	}
	// Each direction's queries without a partner among the records linked count in no
	// Reid: the intruder's records the release left out, the masked records the original
	// lacks, and under --records those whose partner is past the first records.
	for _, d := range []struct {
		truth []int
		first string // under --records: counted, queries, records
		whole string // without: counted, queries
	}{
		{p.TrueMasked, "the original-to-masked Reids count the %d of the intruder's first %d records whose partner is among the first %d masked records",
			"the original-to-masked Reids count the %d of the intruder's %d records that it has"},
		{p.TrueOriginal, "the masked-to-original Reids count the %d of its first %d records whose original is among the intruder's first %d",
			"the masked-to-original Reids count the %d of its %d records whose original the intruder has"},
	} {
		queries, counted := countedQueries(d.truth, records)
		switch {
		case counted < queries && records > 0:
			w += "; " + fmt.Sprintf(d.first, counted, queries, records)
		case counted < queries:
			w += "; " + fmt.Sprintf(d.whole, counted, queries)
		}
	}
	return w
}

func nonNilCounts(c []linkage.Count) []linkage.Count {
	if c == nil {
		return []linkage.Count{}
	}
	return c
}

// prl runs probabilistic record linkage as 'reid link --method prl' does with its default
// settings, in direction dir, and returns the run (masked to original with its one-to-one
// assignment, unless prlEMOnly) and the weights of true and other pairs for the chart.
// K.Reid's attack re-runs the masking on the numeric attributes, dist.
func (a *auditJob) prl(ctx context.Context, e *env, files, dist *pairedFiles, dir linkage.Direction, supervised bool) (auditLinkage, [2][]weightCount, error) {
	var weights [2][]weightCount
	// Bands at quantiles of |Δz| first; when an attribute has too many equal differences
	// for that (discrete values), fixed bands on |Δz| instead.
	var res *linkage.PRLResult
	var prob linkage.PRLProblem
	comparison := ""
	for _, c := range []struct {
		quantiles, bands []float64
		text             string
	}{{prlQuantiles, nil, "bands at quantiles 0.01, 0.1 of |dz|"}, {nil, prlBands, prlFallback}} {
		var err error
		var comps []prlComparison
		prob, comps, err = prlProblem(files, dir, nil, c.quantiles, c.bands, nil, a.records)
		if err != nil {
			return auditLinkage{}, weights, err
		}
		if !slices.ContainsFunc(comps, func(pc prlComparison) bool { return pc.Rule != "equal" }) {
			c.text = prlCategorical // no numeric attribute: no band of |dz| applies
		}
		// As reid link --method prl reports it, named by the run (four of them).
		pass, add, finish := prlProgress(e, prob, dir, "prl/"+prlFit(supervised)+", "+dir.String())
		res, err = linkage.PRLContext(ctx, prob, linkage.PRLSettings{Threads: a.threads, Supervised: supervised,
			NoAssignment: dir != linkage.MaskedToOriginal || a.prlEMOnly, Pass: pass, Progress: add})
		finish()
		if err == nil {
			comparison = c.text
			break
		}
		if c.bands != nil || ctx.Err() != nil {
			return auditLinkage{}, weights, asInput(err)
		}
	}
	ms := res.Measures
	lr := &linkReport{runInputs: runInputs{N: ms.N}, Unmatched: ms.Unmatched, Direction: dir.String(), Operator: "prl", Reid: ms.Reid, Correct: ms.Correct, ReidSets: ms.ReidSets,
		ReidAtK: map[string]float64{}, Knowledge: a.knowledge.String(), SetSizes: ms.SetSizes, RankCounts: ms.RankCounts}
	for k, v := range ms.ReidAtK {
		lr.ReidAtK[strconv.Itoa(k)] = v
	}
	job := linkJob{files: dist, knowledge: a.knowledge}
	known, err := job.knownLinks()
	if err != nil {
		return auditLinkage{}, weights, err
	}
	lr.addKnown(len(res.Records), func(i int) bool { return res.Records[i].True >= 0 }, dir, prob.TrueMasked, known)
	pc := res.Patterns
	for p := range pc.Codes {
		w := res.Weight[p]
		if pc.True[p] > 0 {
			weights[0] = append(weights[0], weightCount{w, pc.True[p]})
		}
		if other := pc.Count[p] - pc.True[p]; other > 0 {
			weights[1] = append(weights[1], weightCount{w, other})
		}
	}
	lk := fromLinkReport("prl", supervised, lr)
	lk.Comparison = comparison
	if !supervised {
		lk.Warning = emWarning(res.Model)
	}
	for _, m := range res.Modes {
		if m.Mode != linkage.ModeAssignment {
			continue
		}
		if !m.Unavailable {
			lk.Assignment = &auditAssignment{Correct: m.Correct, Reid: m.Reid, Status: m.Status, Unassigned: m.Unassigned}
		}
		if !m.Certified {
			lk.assignmentNote = m.Status // not computed, or not certified over all pairs
		}
	}
	return lk, weights, nil
}

func (a *auditJob) uniqueness(r *auditReport) error {
	job, err := newUniquenessJob(a.keys, nil, nil)
	if err != nil {
		return err
	}
	lo, err := a.pf.load.options()
	if err != nil {
		return err
	}
	// --types may name columns of the original only (checked when the files were paired).
	if lo, err = ownTypes(lo, *a.pf.masked); err != nil {
		return err
	}
	opts := uniqueness.Options{Keys: job.keys, Estimator: uniqueness.BFExact, K: uniqueness.DefaultK, L: uniqueness.DefaultL,
		T: uniqueness.DefaultT, List: uniqueness.DefaultList, Workers: a.threads}
	rep, res, err := job.run(*a.pf.masked, a.population, "", lo, opts)
	if err != nil {
		return err
	}
	r.Uniqueness = rep
	if rep.Population != nil {
		r.Inputs.Population = &auditInput{rep.Population.File, rep.Population.SHA256, rep.Population.Records}
	}
	r.charts.recordRisk = res.Primary.Risk
	r.charts.classSizes = res.Classes.Freq
	return nil
}

// fillMeasures builds the flat list of measures and the summary.
func (r *auditReport) fillMeasures() {
	add := func(name, source, def string, v float64) {
		r.Measures = append(r.Measures, auditMeasure{name, source, def, v})
	}
	s := &r.Summary
	s.MaxReid = -1
	s.KReidNotMeasured = kReidRefuted(r)
	kDef := ""
	if s.KReidNotMeasured != "" {
		// The list is what scripts read: its 0 must say it is none (schema 1.0 keeps
		// the value a number).
		kDef = "; NOT MEASURED: " + s.KReidNotMeasured
	}
	for _, l := range r.Linkage {
		add("reid", l.ID, defReid, l.Reid)
		add("reid_sets", l.ID, defReidSets, l.ReidSets)
		add("k_reid", l.ID, defKReid+" ("+l.Knowledge+")"+kDef, l.KReid)
		if l.Reid > s.MaxReid {
			s.MaxReid, s.MaxReidSource = l.Reid, l.ID
		}
		if as := l.Assignment; as != nil {
			add("reid_assignment", l.assignmentID(), defReidAssignment, as.Reid)
			if as.Reid > s.MaxReid {
				s.MaxReid, s.MaxReidSource = as.Reid, l.assignmentID()
			}
		}
		s.MaxKReid = math.Max(s.MaxKReid, l.KReid)
	}
	if s.MaxReid < 0 {
		s.MaxReid = 0
	}
	for _, w := range r.WorstCase {
		src := "worst_case/" + w.Operator
		if !w.Available {
			if w.Status == "interrupted" {
				// Never searched: n is its only bound, and the list, which scripts read
				// for the largest, must not say less.
				add("worst_case_reid_bound", src, defWCBound+"; NOT SEARCHED (interrupted before it started): 1, the trivial bound", 1)
			}
			continue
		}
		add("worst_case_reid_incumbent", src, defWCInc, w.IncumbentReid)
		add("worst_case_reid_bound", src, defWCBound, w.BoundReid)
		dbrl := share(w.DBRLLinks, w.N)
		add("worst_case_reid_dbrl", src, defWCDBRL, dbrl)
		if s.WorstCaseReidDBRL == nil || dbrl > *s.WorstCaseReidDBRL {
			s.WorstCaseReidDBRL = &dbrl
		}
		if s.WorstCaseReidIncumbent == nil || w.IncumbentReid > *s.WorstCaseReidIncumbent {
			v := w.IncumbentReid
			s.WorstCaseReidIncumbent = &v
		}
		if s.WorstCaseReidBound == nil || w.BoundReid > *s.WorstCaseReidBound {
			v := w.BoundReid
			s.WorstCaseReidBound = &v
		}
	}
	if len(notStarted(r.WorstCase)) > 0 {
		// A family interrupted before its search has no bound but the trivial one: the
		// largest of the others' would claim a proof for it.
		v := 1.0
		s.WorstCaseReidBound = &v
	}
	if s.WorstCaseReidDBRL != nil {
		// The Euclidean distance is in every family: what it re-identifies is part of the
		// worst case, on plain DBRL's terms, whatever the learned parameters do.
		for _, l := range r.Linkage {
			if l.Method == "dbrl" && l.Operator == "euclidean" && l.Direction == linkage.MaskedToOriginal.String() {
				add("worst_case_reid_dbrl", l.ID, defWCDBRLEu, l.Reid)
				if l.Reid > *s.WorstCaseReidDBRL {
					v := l.Reid
					s.WorstCaseReidDBRL = &v
				}
			}
		}
	}
	if u := r.Uniqueness; u != nil {
		// No sample unique: P(PU|SU) is undefined (null in the summary, as in the
		// uniqueness section); the list's value stays a number (schema 1.0), 0, no
		// unique being there to re-identify, and its definition says so.
		ppu, def := 0.0, defPPU+"; no sample uniques: undefined, 0 taken (no unique to re-identify)"
		if u.PPUGivenSU != nil {
			ppu, def = *u.PPUGivenSU, defPPU
			s.PPUGivenSU = &ppu
		}
		add("p_pu_given_su", "uniqueness/"+u.Model, def, ppu)
		add("reidentification_rate", "uniqueness/"+u.Model, defRate, u.ReidentificationRate)
		add("k_min", "uniqueness", defKMin, float64(u.KMin))
		k := u.KMin
		s.KMin = &k
	}
}

// notStarted returns the families an interrupt stopped before their searches began.
func notStarted(wc []auditWorstCase) []string {
	var names []string
	for _, w := range wc {
		if !w.Available && w.Status == "interrupted" {
			names = append(names, w.Operator)
		}
	}
	return names
}

// unavailable is the status text of a family that reports no figures.
func (c auditWorstCase) unavailable() string {
	if c.Status == "interrupted" {
		return "not started (interrupted)"
	}
	return "not available"
}

// makeOutDir makes dir and its missing parents, and returns those it made, deepest
// first (for removing them again after an error: none is left behind).
func makeOutDir(dir string) (made []string, err error) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	return made, os.MkdirAll(dir, 0o755)
}

// auditReportNames are the files an audit writes into --out.
func auditReportNames() []string { return []string{"report.json", "report.md", "report.html"} }

// prepareOutDir checks that files can be made in the audit's --out directory (a
// read-only mount was found only when the reports were written, after the whole search),
// refuses a report path that is one of the inputs (as every output flag is), and removes
// the reports of an earlier run there: this run's failure must not leave them looking
// current (a CI job that uploads the directory whatever the outcome published an old
// PASS). A report that is a symbolic link keeps its link: its target is removed, and
// the write makes it anew (datasets.WriteAtomic); a named pipe or device is written
// directly and is left alone.
func prepareOutDir(dir string, inputs []string) error {
	if err := checkWritable("out", filepath.Join(dir, "report.json"), dir); err != nil {
		return err
	}
	// Found now, not by the write after the whole search: a report path that is an input,
	// a directory, or a symbolic link into a directory that does not exist.
	for _, name := range auditReportNames() {
		path := filepath.Join(dir, name)
		if in, same := sameFileAs(path, inputs); same {
			return usagef("--out %s: its %s is the input file %s: it would be overwritten", dir, name, in)
		}
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return usagef("--out %s: its %s is a directory", dir, name)
		}
		if target, ok := linkIntoNowhere(path); ok {
			return usagef("--out %s: its %s is a symbolic link to %s, whose directory does not exist", dir, name, target)
		}
	}
	for _, name := range auditReportNames() {
		path := filepath.Join(dir, name)
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(path); err != nil {
			return usagef("--out %s: cannot remove the earlier %s: %v", dir, name, errors.Unwrap(err))
		}
	}
	return nil
}

func writeAuditFiles(dir string, r *auditReport) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := auditReportNames()
	return writeFiles(
		outFile{filepath.Join(dir, names[0]), func(f *os.File) error { return writeReportJSON(f, r) }},
		outFile{filepath.Join(dir, names[1]), func(f *os.File) error { return writeReportMarkdown(f, r) }},
		outFile{filepath.Join(dir, names[2]), func(f *os.File) error { return writeReportHTML(f, r) }})
}

func writeReportJSON(w io.Writer, r *auditReport) error {
	return writeJSON(w, r)
}

// linkageRow is a row of the report's linkage tables and chart: a linkage run, or a PRL
// run's one-to-one assignment, which has no anonymity sets, ranks or K.Reid of its own
// (nil: shown as -).
type linkageRow struct {
	id                       string
	n                        int
	reid                     float64
	reidSets, reidAt5, kReid *float64
}

// linkageRows lists the linkage runs of r, each PRL assignment after its run.
func linkageRows(r *auditReport) []linkageRow {
	var rows []linkageRow
	for _, l := range r.Linkage {
		row := linkageRow{id: l.ID, n: l.N, reid: l.Reid, reidSets: &l.ReidSets, kReid: &l.KReid}
		if v, ok := l.ReidAtK["5"]; ok {
			row.reidAt5 = &v
		}
		rows = append(rows, row)
		if as := l.Assignment; as != nil {
			rows = append(rows, linkageRow{id: l.assignmentID(), n: l.N, reid: as.Reid})
		}
	}
	return rows
}

func optF(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.4f", *v)
}

// printAudit prints the summary, where the report is (in out) and the CI line, the last.
func printAudit(stdout io.Writer, r *auditReport, out string) error {
	w := &errWriter{w: stdout}
	first := ""
	if n := r.Options.Records; n > 0 && (n < r.Inputs.Masked.Records || n < r.Inputs.Original.Records) {
		// The files' sizes alone read as if every record had been linked.
		first = fmt.Sprintf(", the first %d of each linked (--records)", n)
	}
	fmt.Fprintf(w, "reid audit: %s (%d records) against %s (%d records)%s, %s\n",
		r.Inputs.Masked.File, r.Inputs.Masked.Records, r.Inputs.Original.File, r.Inputs.Original.Records, first, attributeCounts(r.Options))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nlinkage\tn\tReid\tReid (sets)\tK.Reid")
	for _, row := range linkageRows(r) {
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t%s\t%s\n", row.id, row.n, row.reid, optF(row.reidSets), optF(row.kReid))
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nworst case\tstatus\tincumbent (margin ≥ ε)\tbound\tgap\tDBRL links (any margin)")
	for _, c := range r.WorstCase {
		if !c.Available {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\n", c.Operator, c.unavailable())
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d (%.4f)\t%d (%.4f)\t%.1f%%\t%d\n", c.Operator, c.Status, c.Incumbent, c.IncumbentReid, c.Bound, c.BoundReid, 100*c.Gap, c.DBRLLinks)
	}
	tw.Flush()
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	if u := r.Uniqueness; u != nil {
		fmt.Fprintf(w, "\nuniqueness on %s (%s): %d classes, %d sample uniques, P(PU|SU) %s, re-identification rate %.4f, k_min %d\n",
			strings.Join(r.Options.Keys, ","), u.Model, u.Classes, u.SampleUniques, optF(u.PPUGivenSU), u.ReidentificationRate, u.KMin)
	}
	if p := r.Policy; p != nil {
		fmt.Fprintf(w, "\npolicy %s: %d rules checked, %d violated\n", p.File, len(p.Rules), len(p.Violations))
		for _, v := range p.Violations {
			fmt.Fprintf(w, "  VIOLATED %s\n", v.Message)
		}
	}
	fmt.Fprintf(w, "\ntime: %.2fs\n", r.Timings.TotalSeconds)
	fmt.Fprintf(w, "report: %s\n", filepath.Join(out, "report.html"))
	fmt.Fprintln(w, ciLine(r))
	return w.Err()
}

// attributeCounts says how many attributes the audit links on, and how many of them the
// distances use when the categorical ones are left to PRL.
func attributeCounts(o auditOptions) string {
	n, d := len(o.Attributes), len(o.DistanceAttributes)
	if d == n {
		return counted(n, "attribute")
	}
	return fmt.Sprintf("%s (%d numeric for DBRL and the worst case)", counted(n, "attribute"), d)
}

// ciLine is the one-line summary for CI logs.
func ciLine(r *auditReport) string {
	s := r.Summary
	verdict := "DONE (no policy)"
	if r.Interrupted {
		verdict = "INTERRUPTED (no policy judged)"
	} else if p := r.Policy; p != nil {
		verdict = "PASS"
		if !p.Pass {
			verdict = fmt.Sprintf("FAIL (%d of %d rules violated)", len(p.Violations), len(p.Rules))
		}
	}
	maxReid := fmt.Sprintf("%.4f (%s)", s.MaxReid, s.MaxReidSource)
	if s.MaxReidSource == "" {
		// No linkage ran (an interrupt before DBRL): 0 would read as a measurement.
		maxReid = "- (not measured)"
	}
	line := fmt.Sprintf("reid audit %s: %s max_reid=%s worst_case_reid_bound=%s worst_case_reid_incumbent=%s max_k_reid=%.4f",
		verdict, filepath.Base(string(r.Inputs.Masked.File)), maxReid, optF(s.WorstCaseReidBound), optF(s.WorstCaseReidIncumbent), s.MaxKReid)
	if s.KMin != nil {
		line += fmt.Sprintf(" p_pu_given_su=%s k_min=%d", optF(s.PPUGivenSU), *s.KMin)
	}
	if s.WorstCaseReidDBRL != nil {
		// Last, so that the fields before it keep their places for scripts that split
		// the line.
		line += " worst_case_reid_dbrl=" + optF(s.WorstCaseReidDBRL)
	}
	if s.KReidNotMeasured != "" {
		line += " k_reid_measured=false" // last too
	}
	return line
}
