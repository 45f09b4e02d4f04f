package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/linkage"
)

func linkCommand() *command {
	return &command{
		Name:      "link",
		UsageLine: "reid link --original X --masked X' [--attrs A,B] [--method dbrl|prl] [--operator OP [--params FILE]] [--direction D] [--masking M] [--format json|text] [--out FILE] [--records-out FILE]",
		Short:     "re-identify records by distance-based record linkage and report Reid",
		Long: `
Link pairs an original file with its masked version (as 'reid check' does), links each
record of one file to its nearest record of the other (distance-based record linkage)
and reports the Reid family of measures:

  reid        share of records whose nearest record is unique and is the true one
              (a tie at the best distance is not a correct link)
  reid_sets   Reid with anonymity sets: 1/|A| credit when the true record is among the
              |A| records tied at the best distance
  reid_at_k   share of records whose true partner has fewer than k strictly closer
              candidates, k = 1, 2, 5, 10
  k_reid      K.Reid, the share of links the intruder knows are correct under --masking
  kr_reid     the pair (K.Reid, Reid)

Distances (--operator, on the records' differences of z-scores: their squares,
aggregated, or dᵀWd for bilinear and the Mahalanobis forms):
  euclidean                mean of the squared differences (default)
  wm, owa, bilinear, choquet  parameters from --params FILE (JSON; see package distances;
                           --params alone takes the operator the file names)
  mahalanobis              W from the covariance of the differences of true pairs
  mahalanobis-classical    W from the covariance of the original file

--direction masked-to-original (default) links each masked record to its nearest
original; original-to-masked links each original (intruder) record to the masked file.
--records N standardises over the whole files, then keeps the first N records of both (a
file of fewer records is used whole, with a warning).
The distances need numbers in both records: a categorical attribute, or a missing value
kept by --missing keep, is an error naming the file, column and row (choose the
attributes with --attrs; --method prl compares categories and missing values).

--masking states what the intruder knows about the masking, for K.Reid:
  rankswap:p=P   rank swapping with a window of P % of the records (0 < P <= 100)
  mdav:k=K       MDAV microaggregation with groups of K (2 <= K <= records)
  indrank:k=K    individual-ranking microaggregation with groups of K (2 <= K <= records)
  none           nothing (K.Reid = 0, the default)
When the masked file contradicts it (records no original is consistent with, or wrong
links made known), known_inconsistent and known_links_wrong count them and a warning
says so: K.Reid assumes the masking was done as stated.

The JSON (--format json) has the fields above plus n, direction, operator, knowledge,
correct, set_sizes, rank_counts and the inputs' SHA-256; the same inputs always give
byte-identical JSON. --records-out FILE (.csv, .parquet, .arrow; a device such as
/dev/stdout: CSV) writes one row per
linked record:` + recordsOutHelp + prlHelp,
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			pf := addPairFlags(fs)
			operator := fs.String("operator", "euclidean", "distance `operator`")
			params := fs.String("params", "", "operator parameters `file` (JSON)")
			direction := fs.String("direction", "masked-to-original", "masked-to-original or original-to-masked")
			masking := fs.String("masking", "none", "intruder's `knowledge` of the masking, for K.Reid")
			records := fs.Int("records", 0, "keep the first `N` records of both files after standardising (0: all; else at least 2)")
			format := fs.String("format", "text", "output format: text or json")
			out := fs.String("out", "", "write the results to this `file` instead of stdout")
			recordsOut := fs.String("records-out", "", "write per-record results to this `file`")
			threads := threadsFlag(fs)
			method := fs.String("method", "dbrl", "linkage `method`: dbrl (distance-based) or prl (probabilistic, Fellegi-Sunter)")
			prlf := addPRLFlags(fs)
			return func(args []string) error {
				given := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
				if err := checkMethodFlags(*method, given, prlf); err != nil {
					return err
				}
				if err := checkOutFiles(append(pf.inputs(args), *params), outPath{"records-out", *recordsOut}, outPath{"out", *out}); err != nil {
					return err
				}
				switch *method {
				case "prl":
					return runPRL(e, pf, prlf, linkOptions{format: *format, direction: *direction, masking: *masking,
						out: *out, recordsOut: *recordsOut, records: *records, threads: *threads}, args)
				case "dbrl":
				default:
					return usagef("--method must be dbrl or prl, not %q", *method)
				}
				if *format != "text" && *format != "json" {
					return usagef("--format must be text or json")
				}
				if *params != "" && !given["operator"] {
					// The file names its operator (distances.ReadParams reads it): --params
					// p.json alone said "--params does not go with --operator euclidean".
					*operator = ""
				}
				dir, err := linkage.ParseDirection(*direction)
				if err != nil {
					return usagef("--direction: %v", err)
				}
				know, err := parseKnowledge(*masking)
				if err != nil {
					return usagef("--masking: %v", err)
				}
				if err := checkRecords(*records); err != nil {
					return err
				}
				if *recordsOut != "" {
					if _, err := datasets.OutputFormatOf(*recordsOut); err != nil {
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
				job := linkJob{files: files, operator: *operator, paramsFile: *params, direction: dir,
					knowledge: know, records: *records, threads: *threads}
				report, perRecord, err := job.run(e)
				if err != nil {
					return err
				}
				report.Original = inputFile{pathText(*pf.original), files.OriginalSHA256}
				report.Masked = inputFile{pathText(*pf.masked), files.MaskedSHA256}
				report.Intruder = files.Intruder
				report.ReleasedSample = files.releasedSample()
				report.MaskedScale = files.maskedScaleInput()
				report.Warnings = append(report.Warnings, files.inputWarnings(*records)...)
				report.Warnings = append(report.Warnings, identifierWarnings(files.Pairing, *records)...)
				return writeResults(e, *out, func(w io.Writer) error {
					if *format == "json" {
						return writeJSON(w, report)
					}
					return printLink(w, report)
				}, recordsFile(*recordsOut, perRecord))
			}
		},
	}
}

// checkMethodFlags refuses the flags of the other linkage method, and the PRL flags
// that contradict each other: a flag given and silently ignored would report figures of
// a run other than the one asked for.
func checkMethodFlags(method string, given map[string]bool, prl *prlFlags) error {
	var wrong []string
	other := ""
	switch method {
	case "dbrl":
		wrong, other = prlOnlyFlags(), "prl"
	case "prl":
		wrong, other = dbrlOnlyFlags(), "dbrl"
	}
	for _, name := range wrong {
		if given[name] {
			return usagef("--%s is for --method %s only, and this is --method %s", name, other, method)
		}
	}
	if method != "prl" {
		return nil
	}
	// --rank, --bands and --quantiles are alternative comparisons of the numeric
	// attributes (--quantiles has a default: it counts when given, and not empty).
	var rules []string
	if given["quantiles"] && *prl.quantiles != "" {
		rules = append(rules, "--quantiles")
	}
	if *prl.bands != "" {
		rules = append(rules, "--bands")
	}
	if *prl.rank != "" {
		rules = append(rules, "--rank")
	}
	if len(rules) > 1 {
		return usagef("give one of --quantiles, --bands and --rank, not %s: each is a way of comparing the numeric attributes", strings.Join(rules, " and "))
	}
	if *prl.supervised {
		for _, name := range []string{"estimate-p", "max-iterations"} {
			if given[name] {
				return usagef("--%s tunes EM, which --supervised replaces (m, u and the match proportion come from the true pairs)", name)
			}
		}
	}
	return nil
}

// dbrlOnlyFlags are the flags of `reid link` that only --method dbrl uses.
func dbrlOnlyFlags() []string { return []string{"operator", "params"} }

// recordsFile is the per-record table of a linkage as an output file (none when path is
// empty).
func recordsFile(path string, records *datasets.Table) outFile {
	return outFile{path, func(f *os.File) error { return datasets.Encode(f, records, datasets.FormatAuto, path) }}
}

// writeJSON writes v as indented JSON, the one encoding of every command's machine
// output (stable field order from the struct, so equal results give equal bytes).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// pathText is a file's path in JSON: bytes that are not UTF-8 (a Latin-1 file name) are
// written \xNN, as the loader shows names and labels (datasets.LabelText), where
// encoding/json wrote U+FFFD.
type pathText string

func (p pathText) MarshalJSON() ([]byte, error) {
	return json.Marshal(datasets.LabelText(string(p)))
}

type inputFile struct {
	File   pathText `json:"file"`
	SHA256 string   `json:"sha256"`
}

// runInputs opens the JSON documents of link, PRL and learn: the engine, the files, the
// intruder's subset of the original, the attributes and the number of records linked.
type runInputs struct {
	Engine   string          `json:"engine"`
	Original inputFile       `json:"original"`
	Masked   inputFile       `json:"masked"`
	Intruder *intruderSubset `json:"intruder,omitempty"`
	// ReleasedSample is set when the masked file lacks some of the original's records.
	ReleasedSample *releasedSample `json:"released_sample,omitempty"`
	// MaskedScale is "original" under --masked-scale original (distances on the
	// original's means and sds), absent for the default, the masked file's own.
	MaskedScale string   `json:"masked_scale,omitempty"`
	Attributes  []string `json:"attributes"`
	N           int      `json:"n"`
}

// releasedSample says that the masked file lacks some of the original's records (by
// id): how many, how many of its own the original lacks (ids written differently in the
// two files look like that), and the scale of its z-scores (--masked-scale: "own" or
// "original"); the figures differ from those of a file holding every record.
type releasedSample struct {
	LeftOut     int    `json:"original_records_left_out"`
	MaskedOnly  int    `json:"masked_records_not_in_original,omitempty"`
	MaskedScale string `json:"masked_scale"`
}

// releasedSample is the runs' description of a masked file that lacks some of the
// original's records, nil when it holds them all.
func (f *pairedFiles) releasedSample() *releasedSample {
	if f.Pairing.LeftOut == 0 {
		return nil
	}
	return &releasedSample{LeftOut: f.Pairing.LeftOut, MaskedOnly: f.Pairing.MaskedOnly, MaskedScale: f.MaskedScale}
}

// maskedScaleInput is runInputs.MaskedScale: "original" under --masked-scale original,
// "" (absent) for the default.
func (f *pairedFiles) maskedScaleInput() string {
	if f.MaskedScale == "original" {
		return "original"
	}
	return ""
}

// releasedSampleText says in one sentence what releasedSample says, for text reports and
// warnings ("" for nil); withScale adds the scale of the distances' z-scores (not for
// PRL, which compares on the original's scale whatever --masked-scale says).
func releasedSampleText(rs *releasedSample, masked string, withScale bool) string {
	if rs == nil {
		return ""
	}
	w := fmt.Sprintf("%s lacks %d of the original's records", masked, rs.LeftOut)
	if rs.MaskedOnly > 0 {
		w += fmt.Sprintf(" and holds %d whose id the original lacks (ids written differently in the two files?)", rs.MaskedOnly)
	} else {
		w += " (a released sample)"
	}
	switch {
	case !withScale:
		return w
	case rs.MaskedScale == "original":
		return w + "; its z-scores use the original's means and sds (--masked-scale original)"
	}
	return w + "; its z-scores use its own means and sds, which in a sample differ from the whole's by chance (--masked-scale original uses the original's)"
}

// linkReport is the JSON document of `reid link`. Field names are a contract with users'
// scripts: add fields, never rename.
type linkReport struct {
	runInputs
	Unmatched  int                `json:"unmatched,omitempty"`
	Direction  string             `json:"direction"`
	Operator   string             `json:"operator"`
	Params     []float64          `json:"params,omitempty"`
	Reid       float64            `json:"reid"`
	Correct    int                `json:"correct"`
	ReidSets   float64            `json:"reid_sets"`
	ReidAtK    map[string]float64 `json:"reid_at_k"`
	KReid      float64            `json:"k_reid"`
	KnownLinks int                `json:"known_links"`
	KRReid     [2]float64         `json:"kr_reid"`
	Knowledge  string             `json:"knowledge"`
	// KnownLinksWrong counts the links the transparency attack made known that are not
	// the true ones (--masking does not describe the file; left out of known_links).
	KnownLinksWrong int `json:"known_links_wrong,omitempty"`
	// KnownInconsistent counts the masked records (of those measured) that no original
	// record is consistent with under --masking: the masking was not done as stated, and
	// K.Reid then means nothing.
	KnownInconsistent int             `json:"known_inconsistent,omitempty"`
	Warnings          []string        `json:"warnings,omitempty"`
	SetSizes          []linkage.Count `json:"set_sizes"`
	RankCounts        []linkage.Count `json:"rank_counts"`
	// maskingRefuted: the whole masked file contradicts --masking (the counts above are
	// over the records measured only); an audit's max_k_reid rule then fails.
	maskingRefuted bool
	// Seconds is for the text output only: timings would break byte-identical JSON.
	Seconds float64 `json:"-"`
}

type linkJob struct {
	// ctx, when set, stops the linkage (the audit's interrupt); nil: it runs to its end.
	ctx        context.Context
	files      *pairedFiles
	operator   string
	paramsFile string
	direction  linkage.Direction
	knowledge  linkage.Knowledge
	records    int
	threads    int
	// paramsScale is the --params file's "masked_scale" ("" when it has none).
	paramsScale string
}

func (j *linkJob) run(e *env) (*linkReport, *datasets.Table, error) {
	start := time.Now()
	p := j.files.Pairing
	om, mm, trueMasked, trueOriginal, err := j.files.standardised(j.records)
	if err != nil {
		return nil, nil, err
	}
	op, err := j.buildOperator(om, mm, trueMasked)
	if err != nil {
		return nil, nil, err
	}
	nq := len(mm[0])
	if j.direction == linkage.OriginalToMasked {
		nq = len(om[0])
	}
	prog := newProgress(e, "linking", int64(nq))
	ctx := j.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := linkage.DBRLContext(ctx, linkage.Problem{Original: om, Masked: mm, TrueMasked: trueMasked, TrueOriginal: trueOriginal,
		Operator: op, Direction: j.direction}, linkage.Settings{Threads: j.threads, Progress: func(n int) { prog.Add(int64(n)) }})
	prog.Finish()
	if err != nil {
		return nil, nil, err
	}
	known, err := j.knownLinks()
	if err != nil {
		return nil, nil, err
	}
	ms := res.Measures
	r := &linkReport{
		runInputs:  runInputs{Engine: "reid " + version, Attributes: p.Attributes, N: ms.N},
		Unmatched:  ms.Unmatched,
		Direction:  j.direction.String(),
		Operator:   op.Name(),
		Reid:       ms.Reid,
		Correct:    ms.Correct,
		ReidSets:   ms.ReidSets,
		ReidAtK:    map[string]float64{},
		Knowledge:  j.knowledge.String(),
		SetSizes:   ms.SetSizes,
		RankCounts: ms.RankCounts,
	}
	if op.Name() != "euclidean" {
		r.Params = op.Params()
	}
	if j.paramsScale != "" && j.paramsScale != j.files.MaskedScale {
		// Learned on one scale, used on the other: the parameters link differently (OWA
		// on 300 CENSUS mdav_k3 records learned on the original's scale: 201 links there,
		// 194 on the masked file's own).
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s was learned with --masked-scale %s and this run uses %s: the same parameters link other records on another scale; give --masked-scale %s to reproduce the learned links",
			j.paramsFile, j.paramsScale, j.files.MaskedScale, j.paramsScale))
	}
	for k, v := range ms.ReidAtK {
		r.ReidAtK[strconv.Itoa(k)] = v
	}
	knownOf := r.addKnown(len(res.Records), func(i int) bool { return res.Records[i].True >= 0 }, j.direction, trueMasked, known)
	r.KRReid = [2]float64{r.KReid, r.Reid}
	r.Seconds = time.Since(start).Seconds()
	return r, perRecordTable(res, knownOf, newFileRows(j.files.Pairing, j.direction)), nil
}

// addKnown sets K.Reid over the linked records (those whose masked record's original the
// intruder knows, known.Known being indexed by masked record) and the knowledge text, and
// returns for each linked record its known original or −1.
func (r *linkReport) addKnown(n int, hasTrue func(i int) bool, dir linkage.Direction, trueMasked []int, memo *knownMemo) []int {
	var known *linkage.KnownResult
	if memo != nil {
		known = memo.result
	}
	knownOf := make([]int, n)
	for i := range knownOf {
		knownOf[i] = -1
		maskedRow := i
		if dir == linkage.OriginalToMasked {
			maskedRow = trueMasked[i]
		}
		if !hasTrue(i) || known == nil || maskedRow < 0 {
			continue
		}
		if known.Known[maskedRow] >= 0 {
			knownOf[i] = known.Known[maskedRow]
			r.KnownLinks++
		}
		if memo.wrong[maskedRow] {
			r.KnownLinksWrong++ // over the same records as KnownLinks (--records)
		}
		if memo.inconsistent[maskedRow] {
			r.KnownInconsistent++
		}
	}
	// Either count refutes the stated masking (with the right method and parameter both
	// are 0). Without the second a wrong --masking gave K.Reid 0 in silence, and a
	// max_k_reid gate passed on it. The attack runs on the whole files, so what it found
	// outside the records measured (--records) refutes the masking too.
	var refuted []string
	if r.KnownLinksWrong > 0 {
		refuted = append(refuted, fmt.Sprintf("%d links its attack makes known are not the true ones", r.KnownLinksWrong))
	}
	if r.KnownInconsistent > 0 {
		refuted = append(refuted, fmt.Sprintf("no original record is consistent with it for %d of the %d masked records measured (a value no original record holds within the rank window, or no matching group mean)",
			r.KnownInconsistent, r.N))
	}
	if memo != nil {
		fileWrong, fileInconsistent := memo.wrongLinks, memo.result.Inconsistent
		if fileWrong > r.KnownLinksWrong || fileInconsistent > r.KnownInconsistent {
			refuted = append(refuted, fmt.Sprintf("in the whole masked file, %d wrong links made known and %d records consistent with no original", fileWrong, fileInconsistent))
		}
		r.maskingRefuted = fileWrong > 0 || fileInconsistent > 0
	}
	if len(refuted) > 0 {
		r.Warnings = append(r.Warnings, "--masking does not describe how the masked file was made: "+strings.Join(refuted, "; ")+
			" (with the right method and parameter there are none); K.Reid, which assumes it, counts only the true links made known: check the method and its parameter (a wider rank-swap window, another k)")
	}
	if r.N > 0 {
		r.KReid = float64(r.KnownLinks) / float64(r.N)
	}
	if known != nil && known.Reason != "" {
		r.Knowledge += " (" + known.Reason + ")"
	}
	return knownOf
}

// firstRecords keeps the first n records of both files (after standardising the whole
// files) and the true links among them.
func firstRecords(om, mm [][]float64, trueMasked, trueOriginal []int, n int) ([][]float64, [][]float64, []int, []int) {
	no, nm := min(n, len(om[0])), min(n, len(mm[0]))
	cut := func(x [][]float64, k int) [][]float64 {
		out := make([][]float64, len(x))
		for a := range x {
			out[a] = x[a][:k]
		}
		return out
	}
	tm := make([]int, no)
	for i := range tm {
		tm[i] = trueMasked[i]
		if tm[i] >= nm {
			tm[i] = -1
		}
	}
	to := make([]int, nm)
	for i := range to {
		to[i] = trueOriginal[i]
		if to[i] >= no {
			to[i] = -1
		}
	}
	return cut(om, no), cut(mm, nm), tm, to
}

func (j *linkJob) buildOperator(om, mm [][]float64, trueMasked []int) (distances.Operator, error) {
	m := len(om)
	attrs := j.files.Pairing.Attributes
	switch j.operator {
	case "euclidean":
		if j.paramsFile != "" {
			return nil, usagef("--params does not go with --operator euclidean")
		}
		return distances.NewEuclidean(m), nil
	case "mahalanobis", "mahalanobis-classical":
		if j.paramsFile != "" {
			return nil, usagef("--params does not go with --operator %s (it is computed from the data)", j.operator)
		}
		cov := distances.Covariance(om)
		source := "the covariance of " + j.files.Pairing.Original.Source
		if j.operator == "mahalanobis" {
			source = "the covariance of true-pair differences between " + j.files.Pairing.Original.Source + " and " + j.files.Pairing.Masked.Source
			// Only pairs present in both files (an intruder subset may drop some).
			var keep []int
			var origRows []int
			for i, t := range trueMasked {
				if t >= 0 {
					keep = append(keep, t)
					origRows = append(origRows, i)
				}
			}
			sub := make([][]float64, m)
			for a := range om {
				sub[a] = make([]float64, len(origRows))
				for x, i := range origRows {
					sub[a][x] = om[a][i]
				}
			}
			cov = distances.TruePairCovariance(sub, mm, keep)
		}
		op, err := distances.NewMahalanobis(cov)
		if err != nil {
			return nil, asInput(fmt.Errorf("%s: %w", source, err))
		}
		return op, nil
	case "wm", "owa", "bilinear", "choquet", "": // "": --params alone, the file's operator
		if j.paramsFile == "" {
			return nil, usagef("--operator %s needs --params FILE", j.operator)
		}
		data, err := os.ReadFile(j.paramsFile)
		if err != nil {
			return nil, &datasets.InputError{File: j.paramsFile, Err: err}
		}
		op, err := distances.ReadParams(bytes.NewReader(data), attrs)
		if err != nil {
			return nil, &datasets.InputError{File: j.paramsFile, Err: err}
		}
		j.paramsScale = distances.ParamsScale(data)
		if j.operator != "" && op.Name() != j.operator {
			return nil, &datasets.InputError{File: j.paramsFile, Err: fmt.Errorf("holds %s parameters, not %s", op.Name(), j.operator)}
		}
		return op, nil
	}
	return nil, usagef("unknown --operator %q (euclidean, wm, owa, bilinear, mahalanobis, mahalanobis-classical, choquet)", j.operator)
}

// knownLinks runs the transparency attack on the raw (unstandardised) values of the whole
// files: the intruder is assumed to hold the whole original.
func (j *linkJob) knownLinks() (*knownMemo, error) {
	p := j.files.Pairing
	if j.knowledge.Method == "" || j.knowledge.Method == "none" {
		return nil, nil
	}
	if m := j.files.known; m != nil && m.knowledge == j.knowledge {
		return m, nil
	}
	if p.OriginalRows != nil || len(p.TrueOriginal) != p.Original.Rows() || p.Original.Rows() != p.Masked.Rows() || p.LeftOut > 0 {
		// The attack re-runs the masking on the original as the owner did: its records
		// and their order (MDAV's ties) must be the file's.
		if p.OriginalRows != nil {
			return nil, usagef("--masking needs the whole original file in its order (no --intruder-ids or --sample)")
		}
		if p.LeftOut > 0 && p.Original.Rows() == p.Masked.Rows() {
			// As many records, not the same ones: ids of each file the other lacks.
			return nil, usagef("--masking needs the original and the masked file to hold the same records (%d of the original's %d ids are not in the masked file): the attack re-runs the masking on the whole original", p.LeftOut, p.Original.Rows())
		}
		return nil, usagef("--masking needs the original and the masked file to hold the same records (%d and %d here): the attack re-runs the masking on the whole original", p.Original.Rows(), p.Masked.Rows())
	}
	if n := p.Original.Rows(); j.knowledge.K > n {
		return nil, usagef("--masking %s:k=%d: k is more than the %d records", j.knowledge.Method, j.knowledge.K, n)
	}
	om, err := numericColumns(p.Original, nil, 0, knownUse())
	if err != nil {
		return nil, err
	}
	mm, err := numericColumns(p.Masked, nil, 0, knownUse())
	if err != nil {
		return nil, err
	}
	// The attack works in the original's record order; put the masked rows in it.
	aligned := make([][]float64, len(mm))
	for a := range mm {
		aligned[a] = make([]float64, len(p.TrueMasked))
		for i, t := range p.TrueMasked {
			aligned[a][i] = mm[a][t]
		}
	}
	kr, err := linkage.KnownLinks(om, aligned, j.knowledge)
	if err != nil {
		return nil, asInput(err)
	}
	// Back to masked record numbers: Known[masked row] = original row. A link made known
	// that is not the true one means the masking was not done as --masking says (e.g. a
	// larger swap window): it is no knowledge, so it is dropped and counted.
	byMasked := &linkage.KnownResult{Knowledge: kr.Knowledge, Reason: kr.Reason, Inconsistent: kr.Inconsistent, Known: make([]int, len(kr.Known)), Candidates: make([]int, len(kr.Known))}
	memo := &knownMemo{knowledge: j.knowledge, result: byMasked, wrong: make([]bool, len(kr.Known)), inconsistent: make([]bool, len(kr.Known))}
	for i, t := range p.TrueMasked {
		byMasked.Known[t] = kr.Known[i]
		byMasked.Candidates[t] = kr.Candidates[i]
		// An attack not run (kr.Reason, a method without one) refutes nothing.
		memo.inconsistent[t] = kr.Reason == "" && kr.Candidates[i] == 0
		if kr.Known[i] >= 0 && kr.Known[i] != i {
			// Candidates[t] stays 1, the attack's count: KnownResult's "Known is the
			// original when Candidates == 1" no longer holds here, and nothing reads it.
			byMasked.Known[t] = -1
			memo.wrong[t] = true
			memo.wrongLinks++
		}
	}
	j.files.known = memo
	return memo, nil
}

// knownUse is the use of the raw values by the transparency attack of K.Reid.
func knownUse() numericUse {
	return numericUse{
		what:        "K.Reid (--masking)",
		categorical: "choose numeric attributes with --attrs, or give --masking none",
		missing:     "leave the column out with --attrs, or give --masking none",
	}
}

// parseKnowledge reads --masking: "none", "rankswap:p=5", "mdav:k=3", "indrank:k=3".
func parseKnowledge(s string) (linkage.Knowledge, error) {
	method, rest, _ := strings.Cut(s, ":")
	k := linkage.Knowledge{Method: method}
	switch method {
	case "none", "":
		if rest != "" {
			return k, fmt.Errorf("%q: none takes no parameter", s)
		}
		k.Method = "none"
		return k, nil
	case "rankswap", "mdav", "indrank":
	default:
		return k, fmt.Errorf("unknown method %q (rankswap:p=P, mdav:k=K, indrank:k=K or none)", method)
	}
	name, value, ok := strings.Cut(rest, "=")
	if !ok {
		return k, fmt.Errorf("%q: want %s:%s=VALUE", s, method, map[bool]string{true: "p", false: "k"}[method == "rankswap"])
	}
	switch {
	case method == "rankswap" && name == "p":
		// As reid mask: p = 0 would be a masking that changed nothing.
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || !(v > 0 && v <= 100) {
			return k, fmt.Errorf("%q: p must be one number in (0, 100], got %q", s, value)
		}
		k.P = v
	case method != "rankswap" && name == "k":
		// As reid mask: groups of one record would be no microaggregation.
		v, err := strconv.Atoi(value)
		if err != nil || v < 2 {
			return k, fmt.Errorf("%q: k must be one integer from 2 to the number of records, got %q", s, value)
		}
		k.K = v
	default:
		return k, fmt.Errorf("%q: unknown parameter %q", s, name)
	}
	return k, nil
}

// fileRows maps the linkage's record indices to 1-based rows of the files: the query
// file's and the reference file's (the original's records, under --intruder-ids or
// --sample, are a subset of its rows: Pairing.OriginalRows). An index below 0 (no
// record) maps to 0, a cell its caller leaves empty.
type fileRows struct {
	query, ref func(i int) float64
}

func newFileRows(p *datasets.Pairing, dir linkage.Direction) fileRows {
	rowsOf := func(rows []int) func(int) float64 { // rows nil: the file's own order
		return func(i int) float64 {
			switch {
			case i < 0:
				return 0
			case rows != nil:
				i = rows[i]
			}
			return float64(i + 1)
		}
	}
	masked, original := rowsOf(nil), rowsOf(p.OriginalRows)
	if dir == linkage.OriginalToMasked {
		return fileRows{query: original, ref: masked}
	}
	return fileRows{query: masked, ref: original}
}

// recordsOutHelp documents the columns of --records-out (DBRL; PRL's in prlHelp).
const recordsOutHelp = `
  record            the linked record: its row in its file (1-based, header not counted;
                    masked-to-original: the masked file's, original-to-masked: the original's)
  true              its true partner's row in the other file (empty: none)
  nearest           the nearest reference's row (the first of ties in the references'
                    order: the file's, or the --intruder-ids list's)
  nearest_distance  the smallest distance (distances within 1e-12 relative of it are
                    ties, so the nearest row's own may differ in the last digits)
  ties              the number of references at the nearest distance
  true_distance     the true partner's distance
  true_rank         how many references are strictly nearer than the true partner (0: the
                    true partner is among the nearest; Reid@k counts true_rank < k)
  correct           1 when the link is correct (a unique nearest that is the true partner)
  reid_set          1/ties when the true partner is among the ties, else 0
  known             the original row K.Reid's attack makes known (empty: none)
Rows are the files' own rows also under --id (the ids are the link, not the numbering)
and under --intruder-ids or --sample (the original's rows of the records kept).`

// perRecordTable is the --records-out file: one row per linked record, 1-based rows of
// the files (recordsOutHelp). knownOf holds original records of the whole file (K.Reid
// needs it whole).
func perRecordTable(res *linkage.Result, knownOf []int, rows fileRows) *datasets.Table {
	n := len(res.Records)
	num := func(name string) datasets.Column {
		return datasets.Column{Name: name, Kind: datasets.Numeric, Values: make([]float64, n)}
	}
	cols := []datasets.Column{num("record"), num("true"), num("nearest"), num("nearest_distance"), num("ties"),
		num("true_distance"), num("true_rank"), num("correct"), num("reid_set"), num("known")}
	for _, c := range []int{1, 5, 6, 9} {
		cols[c].Valid = make([]bool, n)
	}
	for i, r := range res.Records {
		cols[0].Values[i] = rows.query(i)
		if r.True >= 0 {
			cols[1].Values[i], cols[1].Valid[i] = rows.ref(r.True), true
			cols[5].Values[i], cols[5].Valid[i] = r.TrueDistance, true
			cols[6].Values[i], cols[6].Valid[i] = float64(r.TrueRank), true
		}
		cols[2].Values[i] = rows.ref(r.Nearest)
		cols[3].Values[i] = r.NearestDistance
		cols[4].Values[i] = float64(r.Ties)
		cols[7].Values[i] = linkage.Reid(&res.Records[i])
		cols[8].Values[i] = linkage.ReidSet(&res.Records[i])
		if knownOf[i] >= 0 {
			cols[9].Values[i], cols[9].Valid[i] = float64(knownOf[i]+1), true
		}
	}
	return &datasets.Table{Source: "records", Columns: cols}
}

// unmatchedNote is the headline's mention of query records without a true partner (an
// intruder's record the release left out, a masked record outside the intruder's
// subset), which no Reid counts; empty when there are none.
func unmatchedNote(unmatched int) string {
	if unmatched == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d more without a true partner in the other file, not counted)", unmatched)
}

// printReleasedSample prints the text reports' line on a masked file that holds a
// sample of the original's records (nothing when it holds them all); withScale as in
// releasedSampleText.
func printReleasedSample(w io.Writer, rs *releasedSample, withScale bool) {
	if rs != nil {
		fmt.Fprintln(w, releasedSampleText(rs, "the masked file", withScale))
	}
}

func printLink(w io.Writer, r *linkReport) error {
	fmt.Fprintf(w, "distance-based record linkage, %s, %s distance, %s on %s%s\n",
		r.Direction, r.Operator, counted(r.N, "record"), counted(len(r.Attributes), "attribute"), unmatchedNote(r.Unmatched))
	printReleasedSample(w, r.ReleasedSample, true)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Reid\t%.4f\t(%s)\n", r.Reid, counted(r.Correct, "unique correct link"))
	fmt.Fprintf(tw, "Reid with anonymity sets\t%.4f\t\n", r.ReidSets)
	keys := make([]string, 0, len(r.ReidAtK))
	for k := range r.ReidAtK {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { x, _ := strconv.Atoi(keys[a]); y, _ := strconv.Atoi(keys[b]); return x < y })
	for _, k := range keys {
		fmt.Fprintf(tw, "Reid@%s\t%.4f\t\n", k, r.ReidAtK[k])
	}
	fmt.Fprintf(tw, "K.Reid\t%.4f\t(%d known links; %s)\n", r.KReid, r.KnownLinks, r.Knowledge)
	fmt.Fprintf(tw, "KR.Reid\t(%.4f, %.4f)\t\n", r.KRReid[0], r.KRReid[1])
	if err := tw.Flush(); err != nil {
		return err
	}
	var sets []string
	for _, c := range r.SetSizes {
		sets = append(sets, fmt.Sprintf("%d:%d", c.Value, c.Count))
	}
	fmt.Fprintf(w, "anonymity-set sizes (size:records): %s\n", strings.Join(sets, " "))
	printWarnings(w, r.Warnings)
	fmt.Fprintf(w, "time: %.2fs\n", r.Seconds)
	return nil
}

// cell is s as a text table shows it: quoted when it holds a control character (a tab
// or newline in a column name or category would break the table's columns or rows),
// as it is otherwise.
func cell(s string) string {
	if strings.ContainsFunc(s, unicode.IsControl) {
		return strconv.Quote(s)
	}
	return s
}

// printWarnings prints a text report's warnings (link's, PRL's), one line each.
func printWarnings(w io.Writer, warnings []string) {
	for _, warning := range warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
}
