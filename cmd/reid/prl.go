package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/linkage"
)

// prlHelp is appended to the help of `reid link`.
const prlHelp = `

--method prl runs probabilistic record linkage (Fellegi-Sunter) instead: every pair (or
every pair with equal --block keys) gets an agreement level per attribute, the pairs are
counted by agreement pattern, EM on the counts estimates m, u and the match proportion
(fixed at |true pairs| / |pairs| unless --estimate-p; --supervised takes them from the true
and false pairs: the worst case; EM starts twice, from m favouring the first level and
from the closest pairs taken as matches; a fit whose match class does not favour
agreement, Σ_k log(m_k(first level)/u_k(first level)) < 0, has its classes swapped
(label_switched, EM run again from there when p is fixed and the --max-iterations, shared
by the two runs, are not spent; when they are, the swapped classes are kept with a warning
that they are no EM estimate), and one still the wrong way round carries a warning; of the
two fits, one favouring agreement is kept over one that does not, then one without a
warning over one with, whatever their likelihoods, else the first unless the
second's log-likelihood is higher by more than the convergence tolerance: em_start), weights are log2(m/u) summed over attributes, and the
Fellegi-Sunter thresholds follow from --mu = P(link | non-match) and --lambda =
P(non-link | match) (0 is allowed: with EM, --mu 0 leaves no link and --lambda 0 no
non-link, the threshold being "none"). Records are linked three ways, each with its Reid:
threshold (exactly one pair above the upper threshold, and it is true), best (unique best
weight, weights within 1e-9 of each other, relative, counting as equal: EM's rounding
would otherwise split ties; the 'reid' field) and assignment (one-to-one, maximum total weight; when blocks
hold more records of one file than of the other, or the files differ in size, as many
records as possible are assigned and the others count as not linked: 'unassigned'; ties
are broken against the intruder: among optimal assignments, the fewest true links, each
attribute's weight rounded to 2^-16 bits so that totals equal in exact arithmetic are
equal). The
assignment starts from each record's --top-k best candidates (identical references count
once, as one candidate with room for all of them), then passes over the pairs add those
that would improve it until none is left: its status says when the LP dual certifies it
optimal over all compared pairs. After 20 passes without that certificate the lists are
doubled (up to 1,024) and the assignment solved again: the JSON's top_k is the length
last used, pricing_rounds the passes of every solve (the status counts the last one's).
--block names linked attributes (listed in --attrs when it is given), which become the
blocking keys and are not compared. Its keys are the values as read: equal numbers
share a key whatever the two files' means and sds, and missing values share one; a
numeric --block column with one value besides missing ones is still refused as constant.
A --block that leaves no pair, or too few, to fit the model is an error naming it. A
record whose true partner is in another block has no true_weight, and its true_rank is
the number of candidates in its block.
Comparison:
  --quantiles Q1,Q2   numeric bands on |dz| at these exact quantiles of all pairs (0.01,0.1;
                      nearest rank: the ⌈qN⌉-th smallest |dz| of the N pairs compared;
                      a level holds |dz| ≤ its threshold)
  --bands T1,T2       numeric bands at these |dz| thresholds instead
  --rank P1[,P2]      rank-window rule (agree when ranks differ by at most ⌊P % of n⌋, n
                      the records linked) for every numeric attribute, for rank-swapped
                      files; ranks within each file's records linked (under --records the
                      first N), tied values sharing the interval of their ranks, and two
                      values' distance the gap between their intervals
  categorical attributes agree when equal; a missing value is left out of its
  attribute's comparison (weight 0; no level of m and u).
  m and u are floored at 1e-6 and renormalised (a level no pair shows would otherwise
  give an infinite weight). The error rates behind the thresholds are estimated over the
  pairs compared: with EM from each pattern's posterior probability of being a match or
  not, with --supervised as the shares of the true and false pairs.
  dz is the difference of the two values divided by the original's standard deviation
  (both files on the original's scale), so equal values differ by exactly 0.
--quantiles, --bands and --rank exclude one another, --supervised excludes --estimate-p
and --max-iterations, and a flag of one method is refused with the other (the flags
marked "prl:" with dbrl, --operator and --params with prl) rather than ignored.
--records-out with --method prl: record, true, ties, true_rank and known as above (ranks
and ties by weight), and best (the best-weight candidate's row), best_weight,
true_weight, links and clerical (the record's pairs at or above the upper threshold and
strictly between the thresholds: a pair at the lower threshold, the weight of the
highest non-link pattern, is a non-link), assigned (its partner in the one-to-one assignment), and
correct_best, correct_threshold, correct_assignment (1 when that mode links it
correctly, else 0; correct_assignment is empty for a record left unassigned).`

// prlFlags are the flags of `reid link --method prl`.
type prlFlags struct {
	quantiles, bands, rank, block *string
	supervised, estimateP         *bool
	mu, lambda                    *float64
	topK, maxIter                 *int
	// quantilesGiven tells an explicit --quantiles from its default.
	quantilesGiven func() bool
}

// prlOnlyFlags are the flags of `reid link` that only --method prl uses: those of
// addPRLFlags.
func prlOnlyFlags() []string {
	return []string{"quantiles", "bands", "rank", "block", "supervised", "estimate-p", "mu", "lambda", "top-k", "max-iterations"}
}

func addPRLFlags(fs *flag.FlagSet) *prlFlags {
	return &prlFlags{
		quantiles:      fs.String("quantiles", "0.01,0.1", "prl: numeric bands at these `quantiles` of |dz| over all pairs"),
		bands:          fs.String("bands", "", "prl: numeric bands at these |dz| `thresholds` (instead of --quantiles)"),
		rank:           fs.String("rank", "", "prl: rank-window rule with windows of these `percents` of n for numeric attributes"),
		block:          fs.String("block", "", "prl: compare only pairs with equal values of these `attributes` (comma-separated; a name holding a comma in double quotes)"),
		supervised:     fs.Bool("supervised", false, "prl: m and u from the true and false pairs instead of EM"),
		estimateP:      fs.Bool("estimate-p", false, "prl: estimate the match proportion by EM"),
		mu:             fs.Float64("mu", 1e-5, "prl: error rate P(link | non-match) of the upper threshold (0: no false link)"),
		lambda:         fs.Float64("lambda", 0.05, "prl: error rate P(non-link | match) of the lower threshold (0: no missed match)"),
		topK:           fs.Int("top-k", 16, "prl: first number of candidates per record for the assignment"),
		maxIter:        fs.Int("max-iterations", 1000, "prl: EM iterations at most, per start (a re-run after the classes were swapped included)"),
		quantilesGiven: func() bool { return flagGiven(fs, "quantiles") },
	}
}

// linkOptions are the `reid link` flags shared with --method prl.
type linkOptions struct {
	format, direction, masking, out, recordsOut string
	records, threads                            int
}

// prlMode is one link mode in the JSON. reid is null when the mode could not be computed
// (status says why); unassigned counts the records the assignment leaves without a
// partner (they count as not re-identified).
type prlMode struct {
	Reid       *float64 `json:"reid"`
	Correct    int      `json:"correct"`
	Chosen     int      `json:"chosen"`
	Links      int      `json:"links"`
	Clerical   int      `json:"clerical"`
	FalseLinks int      `json:"false_links"`
	Unassigned int      `json:"unassigned,omitempty"`
	Status     string   `json:"status"`
}

type prlThresholds struct {
	Upper          *float64 `json:"upper"` // null: no pair is a link
	Lower          *float64 `json:"lower"` // null: no pair is a non-link
	Mu             float64  `json:"mu"`
	Lambda         float64  `json:"lambda"`
	MuAchieved     float64  `json:"mu_achieved"`
	LambdaAchieved float64  `json:"lambda_achieved"`
}

type prlComparison struct {
	Attribute  string    `json:"attribute"`
	Rule       string    `json:"rule"`
	Quantiles  []float64 `json:"quantiles,omitempty"`
	Thresholds []float64 `json:"thresholds"`
	Levels     int       `json:"levels"`
	// sd is the sd of the values compared, on their scale (ScaledSD), for quantile
	// bands: their cuts are reported divided by it, in |Δz|. 0: fixed bands (reported as
	// given: b·sd/sd would not always give b back), ranks, categories.
	sd float64
	// given, for fixed bands: the thresholds as the user gave them.
	given []float64
}

// prlReport is the JSON of `reid link --method prl`: the fields of `reid link` (reid is
// the best-weight mode's) plus the model and the three modes. Add fields, never rename.
type prlReport struct {
	linkReport
	Method          string               `json:"method"`
	Supervised      bool                 `json:"supervised"`
	Comparison      []prlComparison      `json:"comparison"`
	Pairs           uint64               `json:"pairs"`
	TruePairs       uint64               `json:"true_pairs"`
	Patterns        int                  `json:"patterns"`
	M               map[string][]float64 `json:"m"`
	U               map[string][]float64 `json:"u"`
	MatchProportion float64              `json:"match_proportion"`
	Iterations      int                  `json:"iterations"`
	Converged       bool                 `json:"converged"`
	LogLikelihood   float64              `json:"log_likelihood"`
	LabelSwitched   bool                 `json:"label_switched"`
	EMStart         string               `json:"em_start,omitempty"`
	Warning         string               `json:"warning,omitempty"`
	Thresholds      prlThresholds        `json:"thresholds"`
	ReidByMode      map[string]*float64  `json:"reid_by_mode"`
	Modes           map[string]prlMode   `json:"modes"`
	TopK            int                  `json:"top_k"`
	PricingRounds   int                  `json:"pricing_rounds"`
	// Block names the --block attributes the pairs were compared within (none: all).
	Block []string `json:"block,omitempty"`
}

func finite(x float64) *float64 {
	if math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func parseFloats(flagName, s string, check func(float64) bool) ([]float64, error) {
	var out []float64
	items, err := splitList(flagName, s)
	if err != nil {
		return nil, err
	}
	for _, f := range items {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !check(v) {
			return nil, usagef("--%s: bad value %q", flagName, f)
		}
		if len(out) > 0 && v <= out[len(out)-1] {
			return nil, usagef("--%s: values must increase", flagName)
		}
		out = append(out, v)
	}
	return out, nil
}

// runPRL is `reid link --method prl`.
func runPRL(e *env, pf *pairFlags, f *prlFlags, o linkOptions, args []string) error {
	if o.format != "text" && o.format != "json" {
		return usagef("--format must be text or json")
	}
	dir, err := linkage.ParseDirection(o.direction)
	if err != nil {
		return usagef("--direction: %v", err)
	}
	know, err := parseKnowledge(o.masking)
	if err != nil {
		return usagef("--masking: %v", err)
	}
	if err := checkRecords(o.records); err != nil {
		return err
	}
	if !(*f.mu >= 0 && *f.mu < 1) || !(*f.lambda >= 0 && *f.lambda < 1) {
		return usagef("--mu and --lambda must be in [0, 1)")
	}
	if *f.topK < 1 || *f.maxIter < 1 {
		return usagef("--top-k and --max-iterations must be positive")
	}
	quantiles, err := parseFloats("quantiles", *f.quantiles, func(v float64) bool { return v > 0 && v < 1 })
	if err != nil {
		return err
	}
	bands, err := parseFloats("bands", *f.bands, func(v float64) bool { return v >= 0 && !math.IsInf(v, 0) })
	if err != nil {
		return err
	}
	ranks, err := parseFloats("rank", *f.rank, func(v float64) bool { return v > 0 && v <= 100 })
	if err != nil {
		return err
	}
	if len(quantiles) == 0 && len(bands) == 0 && len(ranks) == 0 {
		return usagef("give --quantiles, --bands or --rank")
	}
	if o.recordsOut != "" {
		if _, err := datasets.OutputFormatOf(o.recordsOut); err != nil {
			return err
		}
	}
	if err := pf.positionalFiles(args); err != nil {
		return err
	}
	files, err := pf.open(e.stderr)
	if err != nil {
		return err
	}
	if err := files.firstRecordsPaired(o.records); err != nil {
		return err
	}
	start := time.Now()
	block, err := splitList("block", *f.block)
	if err != nil {
		return err
	}
	prob, comps, err := prlProblem(files, dir, block, quantiles, bands, ranks, o.records)
	if err != nil {
		return err
	}
	pass, add, finish := prlProgress(e, prob, dir, "prl")
	res, err := linkage.PRL(prob, linkage.PRLSettings{Threads: o.threads, Supervised: *f.supervised, EstimateP: *f.estimateP,
		Mu: *f.mu, Lambda: *f.lambda, ErrorRatesGiven: true, TopK: *f.topK, MaxIterations: *f.maxIter, Pass: pass, Progress: add})
	finish()
	var be *linkage.BlockingError
	if errors.As(err, &be) {
		return asInput(prlBlockingError(be, *f.block, dir))
	}
	var ae *linkage.AttributeError
	if errors.As(err, &ae) {
		// Of the pairs' differences: both files, one column.
		return asInput(&datasets.InputError{File: files.Original.Table.Source + " and " + files.Masked.Table.Source, Column: ae.Attribute, Err: ae.Err})
	}
	if err != nil {
		return asInput(err)
	}
	r := &prlReport{Method: "prl", Supervised: *f.supervised, Pairs: res.Patterns.Pairs, TruePairs: res.Patterns.TruePairs,
		Patterns: len(res.Patterns.Codes), M: map[string][]float64{}, U: map[string][]float64{},
		MatchProportion: res.Model.P, Iterations: res.Model.Iterations, Converged: res.Model.Converged,
		LogLikelihood: res.Model.LogLikelihood, LabelSwitched: res.Model.LabelSwitched, EMStart: res.Model.Start, Warning: emWarning(res.Model),
		ReidByMode: map[string]*float64{}, Modes: map[string]prlMode{}, TopK: res.TopK, PricingRounds: res.PricingRounds, Block: block}
	th := res.Thresholds
	r.Thresholds = prlThresholds{finite(th.Upper), finite(th.Lower), th.Mu, th.Lambda, th.MuAchieved, th.LambdaAchieved}
	for k, c := range comps {
		c.Thresholds = slices.Clone(res.Cuts[k])
		if c.Thresholds == nil {
			c.Thresholds = []float64{}
		}
		switch {
		case c.given != nil:
			c.Thresholds = slices.Clone(c.given)
		case c.sd != 0: // quantile bands: back to |Δz|
			for t := range c.Thresholds {
				c.Thresholds[t] /= c.sd
			}
		}
		r.Comparison = append(r.Comparison, c)
		r.M[c.Attribute], r.U[c.Attribute] = res.Model.M[k], res.Model.U[k]
	}
	for _, m := range res.Modes {
		reid := &m.Reid
		if m.Unavailable {
			reid = nil
		}
		r.ReidByMode[m.Mode] = reid
		r.Modes[m.Mode] = prlMode{reid, m.Correct, m.Chosen, m.Links, m.Clerical, m.FalseLinks, m.Unassigned, m.Status}
	}
	ms := res.Measures
	attrs := make([]string, len(comps))
	for k, c := range comps {
		attrs[k] = c.Attribute
	}
	r.linkReport = linkReport{runInputs: runInputs{Engine: "reid " + version, Attributes: attrs, N: ms.N}, Unmatched: ms.Unmatched,
		Direction: dir.String(), Operator: "prl", Reid: ms.Reid, Correct: ms.Correct, ReidSets: ms.ReidSets,
		ReidAtK: map[string]float64{}, Knowledge: know.String(), SetSizes: ms.SetSizes, RankCounts: ms.RankCounts}
	for k, v := range ms.ReidAtK {
		r.ReidAtK[strconv.Itoa(k)] = v
	}
	// warnings lists every warning, the EM fit's too (its own field, warning, is older).
	if r.Warning != "" {
		r.Warnings = append(r.Warnings, r.Warning)
	}
	r.Warnings = append(r.Warnings, pairingWarnings(files.Pairing, o.records)...)
	r.Warnings = append(r.Warnings, files.inputWarnings(o.records)...)
	if !slices.ContainsFunc(comps, func(c prlComparison) bool { return c.Rule != "equal" }) {
		// The numeric rules were asked for (--rank 5 on categorical files), and apply to
		// nothing: said, rather than taken in silence (not the default --quantiles).
		rules := [][2]string{{"rank", *f.rank}, {"bands", *f.bands}}
		if f.quantilesGiven() {
			rules = append([][2]string{{"quantiles", *f.quantiles}}, rules...)
		}
		for _, rule := range rules {
			if rule[1] != "" {
				r.Warnings = append(r.Warnings, fmt.Sprintf("--%s %s applies to numeric attributes, and every attribute linked on is categorical (compared by equality)", rule[0], rule[1]))
			}
		}
	}
	// K.Reid as in `reid link`.
	job := linkJob{files: files, knowledge: know}
	known, err := job.knownLinks()
	if err != nil {
		return err
	}
	knownOf := r.addKnown(len(res.Records), func(i int) bool { return res.Records[i].True >= 0 }, dir, prob.TrueMasked, known)
	r.KRReid = [2]float64{r.KReid, r.Reid}
	r.Original = inputFile{pathText(*pf.original), files.OriginalSHA256}
	r.Masked = inputFile{pathText(*pf.masked), files.MaskedSHA256}
	r.Intruder = files.Intruder
	if r.ReleasedSample = files.releasedSample(); r.ReleasedSample != nil {
		r.ReleasedSample.MaskedScale = "original" // PRL's |dz| is over the original's sd, whatever --masked-scale says
	}
	r.Seconds = time.Since(start).Seconds()
	return writeResults(e, o.out, func(w io.Writer) error {
		if o.format == "json" {
			return writeJSON(w, r)
		}
		return printPRL(w, r)
	}, recordsFile(o.recordsOut, prlRecordsTable(res, knownOf, newFileRows(files.Pairing, dir))))
}

// prlProgress reports PRL's progress one pass over the pairs at a time (counting the
// patterns, weighing the pairs, each further pass for the assignment's candidates), each
// out of the query records of prob in direction dir, labelled by run, so that no line
// goes past 100 %: how many passes the
// assignment needs is known only at its end. Without a terminal, a pass that starts once
// the run has taken plainEvery gets a line of its own, as its progress lines come only
// after plainEvery within the pass. PRL calls pass before a pass's goroutines start and
// after the previous pass's end, so add never sees a progress being replaced.
func prlProgress(e *env, prob linkage.PRLProblem, dir linkage.Direction, run string) (pass func(int, string), add func(int), finish func()) {
	nq := len(prob.TrueOriginal) // the query records: masked ones, or the other way
	if dir == linkage.OriginalToMasked {
		nq = len(prob.TrueMasked)
	}
	var cur *progress
	start := time.Now()
	finish = func() {
		if cur != nil {
			cur.Finish()
		}
	}
	pass = func(n int, what string) {
		finish()
		label := fmt.Sprintf("linking (%s), pass %d: %s", run, n, what)
		if el := time.Since(start); !e.interactive && el >= plainEvery {
			fmt.Fprintf(e.stderr, "reid: %s: started after %s\n", label, el.Round(time.Second))
		}
		cur = newProgress(e, label, int64(nq))
	}
	add = func(n int) { cur.Add(int64(n)) }
	return pass, add, finish
}

// prlBlockingError names the --block attributes of a blocking that leaves no pair, or too
// few, and suggests a coarser one.
func prlBlockingError(be *linkage.BlockingError, block string, dir linkage.Direction) error {
	q, r := "masked", "original"
	if dir == linkage.OriginalToMasked {
		q, r = r, q
	}
	return &prlWrapped{fmt.Sprintf("--block %s: the blocking leaves %s (%d distinct keys in the %s file, %d in the %s file; %d pairs with equal keys, %d of them true): block on a coarser attribute (fewer distinct values, unchanged by the masking), or drop --block",
		block, be.Reason, be.QueryBlocks, q, be.ReferenceBlocks, r, be.Pairs, be.TruePairs), be}
}

// prlWrapped is an error with its own message that still unwraps to its cause.
type prlWrapped struct {
	msg string
	err error
}

func (w *prlWrapped) Error() string { return w.msg }
func (w *prlWrapped) Unwrap() error { return w.err }

// prlProblem turns the paired, standardised files into a PRL problem: numeric attributes
// by bands (or the rank rule), categorical ones by equality on a dictionary common to both
// files; --block attributes become blocking keys, from the raw values, and are not compared.
func prlProblem(files *pairedFiles, dir linkage.Direction, block []string, quantiles, bands, ranks []float64, records int) (linkage.PRLProblem, []prlComparison, error) {
	p := files.Pairing
	ot, mt := files.Original.Table, files.Masked.Table
	isBlock := map[string]bool{}
	for _, b := range block {
		if ot.Index(b) < 0 {
			return linkage.PRLProblem{}, nil, usagef("--block: %q is not one of the linked attributes", b)
		}
		isBlock[b] = true
	}
	no, nm := ot.Rows(), mt.Rows()
	if records > 0 {
		no, nm = min(no, records), min(nm, records)
	}
	prob := linkage.PRLProblem{Direction: dir, TrueMasked: make([]int, no), TrueOriginal: make([]int, nm)}
	for i := range no {
		prob.TrueMasked[i] = p.TrueMasked[i]
		if prob.TrueMasked[i] >= nm {
			prob.TrueMasked[i] = -1
		}
	}
	for j := range nm {
		prob.TrueOriginal[j] = p.TrueOriginal[j]
		if prob.TrueOriginal[j] >= no {
			prob.TrueOriginal[j] = -1
		}
	}
	var comps []prlComparison
	keysO, keysM := make([]string, no), make([]string, nm)
	for x := range ot.Columns {
		oc, mc := &ot.Columns[x], mt.Column(ot.Columns[x].Name)
		a := linkage.PRLAttribute{Name: oc.Name, Original: make([]float64, no), Masked: make([]float64, nm)}
		if oc.HasMissing() {
			a.OriginalMissing = oc.Valid[:no]
		}
		if mc.HasMissing() {
			a.MaskedMissing = mc.Valid[:nm]
		}
		if a.OriginalMissing != nil { // Valid is true when present; the rule wants missing
			a.OriginalMissing = negate(a.OriginalMissing)
		}
		if a.MaskedMissing != nil {
			a.MaskedMissing = negate(a.MaskedMissing)
		}
		c := prlComparison{Attribute: oc.Name}
		if oc.Kind == datasets.Categorical {
			// A dictionary common to both files, by label.
			code := map[string]float64{}
			for i := range no {
				a.Original[i] = commonCode(code, oc, i)
			}
			for j := range nm {
				a.Masked[j] = commonCode(code, mc, j)
			}
			a.Rule = linkage.Rule{Kind: linkage.RuleEqual}
			c.Rule, c.Levels = "equal", 2
		} else {
			// Both files' raw values, scaled by the original's power of two (exact), so
			// that |Δ| is the raw difference and |Δz| = |Δ|/sd with the original's sd: a
			// per-file z-score gave equal values of an integer attribute (ages, counts) a
			// |Δz| that depended on the value whenever the masked file's mean or sd moved,
			// and even on one scale the difference of two scores carries the rounding of
			// both, so equal raw differences (rank-swapped amounts 4,000 apart) fell on both
			// sides of a quantile cut. The bands' thresholds are put on this scale, and
			// the cuts reported back in |Δz|. Ranks are unchanged by the scale.
			rawO, rawM := p.Original.Column(oc.Name), p.Masked.Column(oc.Name)
			for i := range no {
				a.Original[i] = files.Original.Scaled(x, rawO.Values[i])
			}
			for j := range nm {
				a.Masked[j] = files.Original.Scaled(x, rawM.Values[j])
			}
			sd := files.Original.ScaledSD(x)
			switch {
			case len(ranks) > 0:
				a.Rule = linkage.Rule{Kind: linkage.RuleRank, Thresholds: ranks}
				c.Rule, c.Quantiles = "rank", nil
				c.Levels = len(ranks) + 1
			case len(bands) > 0:
				scaled := make([]float64, len(bands))
				for k, b := range bands {
					scaled[k] = b * sd
				}
				a.Rule = linkage.Rule{Kind: linkage.RuleBands, Thresholds: scaled}
				c.Rule, c.Levels, c.given = "bands", len(bands)+1, bands
			default:
				a.Rule = linkage.Rule{Kind: linkage.RuleBands, Quantiles: quantiles}
				c.Rule, c.Quantiles, c.Levels, c.sd = "bands", quantiles, len(quantiles)+1, sd
			}
		}
		if isBlock[oc.Name] {
			// Keys from the raw values: z-scores on each file's own mean and sd gave equal
			// numbers unequal keys (even a permutation of the same values moves the last bits).
			rawO, rawM := p.Original.Column(oc.Name), p.Masked.Column(oc.Name)
			for i := range no {
				keysO[i] += blockKey(rawO, i) + "\x00"
			}
			for j := range nm {
				keysM[j] += blockKey(rawM, j) + "\x00"
			}
			continue
		}
		prob.Attributes = append(prob.Attributes, a)
		comps = append(comps, c)
	}
	if len(prob.Attributes) == 0 {
		return prob, nil, usagef("no attribute left to compare after --block")
	}
	if len(block) > 0 {
		ids := map[string]int{}
		id := func(s string) int {
			v, ok := ids[s]
			if !ok {
				v = len(ids)
				ids[s] = v
			}
			return v
		}
		prob.OriginalBlock, prob.MaskedBlock = make([]int, no), make([]int, nm)
		for i, k := range keysO {
			prob.OriginalBlock[i] = id(k)
		}
		for j, k := range keysM {
			prob.MaskedBlock[j] = id(k)
		}
	}
	return prob, comps, nil
}

// blockKey is row i's --block key: its label, or its number as read (−0 as 0, equal
// numbers being one key); "" when missing, so missing values block together.
func blockKey(c *datasets.Column, i int) string {
	if c.Kind != datasets.Numeric || c.Missing(i) {
		return c.String(i)
	}
	v := c.Values[i]
	if v == 0 {
		v = 0 // −0
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func negate(b []bool) []bool {
	out := make([]bool, len(b))
	for i, v := range b {
		out[i] = !v
	}
	return out
}

func commonCode(code map[string]float64, c *datasets.Column, i int) float64 {
	if c.Missing(i) {
		return 0
	}
	s := c.Levels[c.Codes[i]]
	v, ok := code[s]
	if !ok {
		v = float64(len(code))
		code[s] = v
	}
	return v
}

// prlRecordsTable is the --records-out file of --method prl: one row per linked record,
// 1-based rows of the files as in DBRL's (recordsOutHelp).
func prlRecordsTable(res *linkage.PRLResult, knownOf []int, rows fileRows) *datasets.Table {
	n := len(res.Records)
	names := []string{"record", "true", "best", "best_weight", "ties", "true_weight", "true_rank", "links", "clerical",
		"assigned", "correct_best", "correct_threshold", "correct_assignment", "known"}
	cols := make([]datasets.Column, len(names))
	for c, name := range names {
		cols[c] = datasets.Column{Name: name, Kind: datasets.Numeric, Values: make([]float64, n), Valid: make([]bool, n)}
	}
	set := func(c, i int, v float64, ok bool) {
		if ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			cols[c].Values[i], cols[c].Valid[i] = v, true
		}
	}
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	for i, r := range res.Records {
		set(0, i, rows.query(i), true)
		set(1, i, rows.ref(r.True), r.True >= 0)
		set(2, i, rows.ref(r.Best), r.Best >= 0)
		set(3, i, r.BestWeight, r.Best >= 0)
		set(4, i, float64(r.Ties), true)
		set(5, i, r.TrueWeight, r.True >= 0)
		set(6, i, float64(r.TrueRank), r.True >= 0)
		set(7, i, float64(r.Links), true)
		set(8, i, float64(r.Clerical), true)
		set(9, i, rows.ref(r.Assigned), r.Assigned >= 0)
		set(10, i, b2f(r.True >= 0 && r.Ties == 1 && r.Best == r.True), true)
		set(11, i, b2f(r.Links == 1 && r.TrueLinked), true)
		set(12, i, b2f(r.True >= 0 && r.Assigned == r.True), r.Assigned >= 0)
		set(13, i, float64(knownOf[i]+1), knownOf[i] >= 0)
	}
	return &datasets.Table{Source: "records", Columns: cols}
}

func printPRL(w io.Writer, r *prlReport) error {
	fmt.Fprintf(w, "probabilistic record linkage (Fellegi-Sunter, %s), %s, %s on %s%s, %s in %s\n",
		map[bool]string{true: "supervised m and u", false: "EM on pattern counts"}[r.Supervised], r.Direction, counted(r.N, "record"), counted(len(r.Attributes), "attribute"),
		unmatchedNote(r.Unmatched), counted(int(r.Pairs), "pair"), counted(r.Patterns, "pattern"))
	printReleasedSample(w, r.ReleasedSample, false)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Reid (best weight)\t%.4f\t(%s)\n", r.Reid, counted(r.Correct, "unique correct link"))
	fmt.Fprintf(tw, "Reid with anonymity sets\t%.4f\t\n", r.ReidSets)
	for _, mode := range []string{"threshold", "best", "assignment"} {
		m, ok := r.Modes[mode]
		switch {
		case !ok:
		case m.Reid == nil:
			fmt.Fprintf(tw, "Reid (%s)\tn/a\t(%s)\n", mode, m.Status)
		default:
			fmt.Fprintf(tw, "Reid (%s)\t%.4f\t(links %d, clerical %d, false links %d; %s)\n", mode, *m.Reid, m.Links, m.Clerical, m.FalseLinks, m.Status)
		}
	}
	fmt.Fprintf(tw, "K.Reid\t%.4f\t(%d known links; %s)\n", r.KReid, r.KnownLinks, r.Knowledge)
	fmt.Fprintf(tw, "KR.Reid\t(%.4f, %.4f)\t\n", r.KRReid[0], r.KRReid[1])
	fmt.Fprintf(tw, "match proportion\t%.4g\t(%d iterations, converged %v)\n", r.MatchProportion, r.Iterations, r.Converged)
	th := func(p *float64) string {
		if p == nil {
			return "none"
		}
		return fmt.Sprintf("%.3f", *p)
	}
	fmt.Fprintf(tw, "thresholds (weight, bits)\tupper %s, lower %s\t(mu %g achieved %.3g, lambda %g achieved %.3g)\n",
		th(r.Thresholds.Upper), th(r.Thresholds.Lower), r.Thresholds.Mu, r.Thresholds.MuAchieved, r.Thresholds.Lambda, r.Thresholds.LambdaAchieved)
	if err := tw.Flush(); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "attribute\trule\tthresholds\tm\tu")
	for _, c := range r.Comparison {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cell(c.Attribute), c.Rule, floats(c.Thresholds), floats(r.M[c.Attribute]), floats(r.U[c.Attribute]))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printWarnings(w, r.Warnings) // the EM fit's warning among them
	fmt.Fprintf(w, "time: %.2fs\n", r.Seconds)
	return nil
}

func floats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strings.Join(s, " ")
}

// emWarning is what a user of an EM fit should know: the guard's warning (the classes
// could not be oriented) and a fit stopped by --max-iterations before converging.
func emWarning(m linkage.EMResult) string {
	var w []string
	if m.Warning != "" {
		w = append(w, m.Warning)
	}
	if !m.Supervised && !m.Converged {
		w = append(w, fmt.Sprintf("EM stopped after %d iterations without converging", m.Iterations))
	}
	return strings.Join(w, "; ")
}
