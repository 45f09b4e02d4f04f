package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/datasets/mask"
	"github.com/reid-sdc/reid/datasets/synth"
	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/linkage"
)

func demoCommand() *command {
	least, why := minRecords(demoMaskJobs())
	return &command{
		Name:      "demo",
		UsageLine: "reid demo [--records N] [--seed S] [--dir DIR] [--format text|json] [--audit=false] [--work-limit W | --time-limit T] [--out DIR]",
		Short:     "run reid on the embedded synthetic data set",
		Long: fmt.Sprintf(`
Demo generates a realistic synthetic microdata file (income-like attributes and a few
categorical keys; see package datasets/synth), masks it twice (MDAV microaggregation with
k=3 and rank swapping with p=5), writes the three files as CSV to a temporary directory
(or --dir), reads them back, pairs each masked file with the original and prints what
reid measures on them.

Then it runs 'reid audit' on each masked file (with the masking known to the intruder,
linking on the masked attributes, the numeric ones (the categorical columns, left as
they were, would re-identify by PRL alone), keys age_band,sex,region, and --work-limit,
4 work seconds by default, or --time-limit for the worst-case search of each file) and
prints where each report was written (--out DIR/<masked file without .csv>/report.html,
e.g. reid-demo/mdav_k3/report.html; default reid-demo). --audit=false skips the audits.
--records must be at least %d (%s).

The same --records and --seed always give the same files and the same figures, on any
machine of the same architecture with the same build (with --time-limit instead of the default work limit, the worst-case figures of
the audits also depend on how far a search stopped by it got);
the JSON (--format json) names the files by their base names, and the directory by
--dir or "(temporary, removed)", so that it is the same from run to run.

An interrupt (Ctrl-C) or SIGTERM stops the demo after the step under way (an audit's
search within about a second), removes the temporary directory and exits 130; the files
already written to --dir and the reports already in --out stay, and the table, printed
before the audits begin, has been shown.`, least, why),
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			records := fs.Int("records", 2000, fmt.Sprintf("number of synthetic `records` (at least %d: %s)", least, why))
			seed := fs.Uint64("seed", 1, "random seed of the generator and the masking")
			dir := fs.String("dir", "", "keep the generated files in this `directory` (default: a temporary one, removed afterwards)")
			format := fs.String("format", "text", "output format: text or json")
			audit := fs.Bool("audit", true, "run reid audit on each masked file")
			var timeLimit secondsOrDuration
			fs.Var(&timeLimit, "time-limit", "worst-case search time per masked file (`duration`), instead of the work limit")
			workLimit := secondsOrDuration(4 * time.Second)
			fs.Var(&workLimit, "work-limit", "worst-case search work per masked file (`work` seconds): the same figures on every run")
			out := fs.String("out", "reid-demo", "write the audit reports into this `directory`")
			return func(args []string) error {
				if len(args) != 0 {
					return usagef("demo takes no arguments")
				}
				if *format != "text" && *format != "json" {
					return usagef("--format must be text or json")
				}
				if timeLimit < 0 || timeLimit == 0 && flagGiven(fs, "time-limit") {
					return usagef("--time-limit must be positive: the demo's searches need a limit")
				}
				if err := chooseLimit(fs, (*time.Duration)(&timeLimit), (*time.Duration)(&workLimit)); err != nil {
					return err
				}
				if timeLimit == 0 && workLimit <= 0 {
					return usagef("--work-limit must be positive")
				}
				if *records < least {
					return usagef("--records must be at least %d, got %d: %s", least, *records, why)
				}
				if *dir != "" {
					if err := checkOutDir("dir", *dir); err != nil {
						return err
					}
				}
				var ao *demoAudit
				if *audit {
					if err := checkOutDir("out", *out); err != nil {
						return err
					}
					ao = &demoAudit{timeLimit: time.Duration(timeLimit), workLimit: time.Duration(workLimit).Seconds(), out: *out}
				}
				// The text table as soon as the files are measured, before the audits; the
				// JSON, one document, at the end.
				measured := func(res *demoResult) error {
					if *format != "text" {
						return nil
					}
					return printDemo(e, res, *format)
				}
				res, err := runDemo(e, *records, *seed, *dir, ao, measured)
				if err != nil {
					return err
				}
				if *format != "text" {
					if err := printDemo(e, res, *format); err != nil {
						return err
					}
				}
				if *format == "text" {
					for _, a := range res.Audits {
						fmt.Fprintf(e.stdout, "\n%s\nreport written to %s\n", a.CI, a.Report)
					}
				}
				return nil
			}
		},
	}
}

// demoRow is one masked file's line of the demo table; JSON names are stable.
type demoRow struct {
	File       pathText `json:"file"`
	Method     string   `json:"method"`
	Parameters string   `json:"parameters"`
	Records    int      `json:"records"`
	Attributes int      `json:"attributes"`
	Changed    float64  `json:"changed_share"`
	MeanAbsDZ  float64  `json:"mean_abs_dz"`
	KAnonymity int      `json:"k_anonymity"`
	Reid       float64  `json:"reid"`
	ReidSets   float64  `json:"reid_sets"`
	KReid      float64  `json:"k_reid"`
	Knowledge  string   `json:"knowledge"`
}

type demoResult struct {
	Dir      string      `json:"dir"`
	Original string      `json:"original"`
	Records  int         `json:"records"`
	Seed     uint64      `json:"seed"`
	Masked   []demoRow   `json:"masked"`
	Audits   []demoAudit `json:"audits,omitempty"`
}

// demoAudit is the audit of one masked file: the options in, the report's place out.
type demoAudit struct {
	timeLimit time.Duration
	workLimit float64
	out       string
	File      pathText `json:"file"`
	Report    string   `json:"report"`
	CI        string   `json:"summary"`
}

// demoKeys are the synthetic data's categorical keys used for uniqueness.
var demoKeys = []string{"age_band", "sex", "region"}

// auditFile runs `reid audit` on one of the demo's masked files.
// shown is how the report names a file (a temporary directory's path would differ from
// run to run).
func (d *demoAudit) auditFile(ctx context.Context, e *env, originalPath, maskedPath, masking string, attrs []string, shown func(string) string) (demoAudit, error) {
	pf := addPairFlags(flag.NewFlagSet("audit", flag.ContinueOnError))
	*pf.original, *pf.masked, pf.attrList = originalPath, maskedPath, attrs
	know, err := parseKnowledge(masking)
	if err != nil {
		return demoAudit{}, err
	}
	a := auditJob{command: "demo", pf: pf, knowledge: know, maskingSpec: masking, keys: demoKeys, timeLimit: d.timeLimit, workLimit: d.workLimit}
	rep, err := a.run(ctx, e)
	if err != nil {
		return demoAudit{}, err
	}
	if ctx.Err() != nil {
		return demoAudit{}, ctx.Err() // interrupted: runDemo stops, no report of a cut run
	}
	rep.Inputs.Original.File, rep.Inputs.Masked.File = pathText(shown(originalPath)), pathText(shown(maskedPath))
	if rep.Uniqueness != nil {
		rep.Uniqueness.Sample.File = pathText(shown(string(rep.Uniqueness.Sample.File)))
	}
	dir := filepath.Join(d.out, strings.TrimSuffix(filepath.Base(maskedPath), ".csv"))
	if err := writeAuditFiles(dir, rep); err != nil {
		return demoAudit{}, err
	}
	return demoAudit{File: pathText(filepath.Base(maskedPath)), Report: filepath.Join(dir, "report.html"), CI: ciLine(rep)}, nil
}

// runDemo masks the synthetic data, measures each masked file, calls measured with the
// result so far, then audits each file (unless audit is nil). An interrupt (Ctrl-C,
// SIGTERM) stops it after the step under way (an audit's search within about a second),
// removes its temporary directory (a tester's Ctrl-C left original.csv and mdav_k3.csv
// in TMPDIR) and ends with exit 130; files already written to --dir or --out stay.
func runDemo(e *env, records int, seed uint64, dir string, audit *demoAudit, measured func(*demoResult) error) (res *demoResult, err error) {
	ctx, release := interruptible(e, "demo")
	defer func() {
		if sig := release(); sig != nil {
			res, err = nil, &interruptedError{sig: sig, outcome: ": stopped; the demo's temporary files are removed"}
		}
	}()
	keep := dir != ""
	if keep {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "reid-demo-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	original, err := synth.Generate(synth.Settings{Records: records, Seed: seed})
	if err != nil {
		return nil, asInput(err)
	}
	originalPath := filepath.Join(dir, "original.csv")
	if err := datasets.Write(originalPath, original, datasets.FormatCSV); err != nil {
		return nil, err
	}
	jobs := demoJobs(seed)
	// The JSON names the files by their base names (and a temporary directory by what
	// became of it): a temporary path would differ from run to run.
	res = &demoResult{Dir: dir, Original: filepath.Base(originalPath), Records: records, Seed: seed}
	shown := func(path string) string { return path }
	if !keep {
		res.Dir = "(temporary, removed)"
		shown = func(path string) string { return filepath.Join(res.Dir, filepath.Base(path)) }
	}
	prog := newProgress(e, "demo", int64(len(jobs)))
	defer prog.Finish()
	type maskedFile struct {
		path, masking string
		attrs         []string
	}
	var files []maskedFile
	for _, j := range jobs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Mask a fresh copy read from disk, as `reid mask` would.
		tab, err := datasets.Load(originalPath, datasets.LoadOptions{})
		if err != nil {
			return nil, err
		}
		summary, err := j.job.apply(tab)
		if err != nil {
			return nil, err
		}
		maskedPath := filepath.Join(dir, j.file)
		if err := datasets.Write(maskedPath, tab, datasets.FormatCSV); err != nil {
			return nil, err
		}
		know := linkage.Knowledge{Method: j.job.method, K: j.job.k, P: j.job.p}
		row, err := demoMeasure(originalPath, maskedPath, summary.Attributes, know)
		if err != nil {
			return nil, err
		}
		row.Method = j.job.method
		if j.job.method == "mdav" {
			row.Parameters = "k=" + strconv.Itoa(j.job.k)
		} else {
			row.Parameters = fmt.Sprintf("p=%g%%, seed=%d", j.job.p, j.job.seed)
		}
		res.Masked = append(res.Masked, row)
		masking := "mdav:k=" + strconv.Itoa(j.job.k)
		if j.job.method == "rankswap" {
			masking = "rankswap:p=" + strconv.FormatFloat(j.job.p, 'g', -1, 64)
		}
		files = append(files, maskedFile{maskedPath, masking, summary.Attributes})
	}
	// The table first, then the audits (the longer part): one interrupted during an
	// audit has shown the table (it printed nothing).
	if err := measured(res); err != nil {
		return nil, err
	}
	if audit == nil {
		prog.Add(int64(len(jobs)))
		return res, nil
	}
	for _, f := range files {
		a, err := audit.auditFile(ctx, e, originalPath, f.path, f.masking, f.attrs, shown)
		if err != nil {
			return nil, err
		}
		res.Audits = append(res.Audits, a)
		prog.Add(1)
	}
	return res, nil
}

// demoJob is one masking of the demo: the masked file's name and the job.
type demoJob struct {
	file string
	job  maskJob
}

// demoJobs are the demo's maskings of the synthetic file.
func demoJobs(seed uint64) []demoJob {
	return []demoJob{
		{"mdav_k3.csv", maskJob{method: "mdav", k: 3, seed: seed}},
		{"rankswap_p5.csv", maskJob{method: "rankswap", p: 5, seed: seed}},
	}
}

// demoMaskJobs are the jobs of demoJobs.
func demoMaskJobs() []maskJob {
	var jobs []maskJob
	for _, j := range demoJobs(0) {
		jobs = append(jobs, j.job)
	}
	return jobs
}

// minRecords returns the fewest records on which every one of jobs masks something, and
// why: rank swapping needs a window ⌊p·n/100⌋ of at least one rank, microaggregation
// (mdav, indrank) at least two groups of k records (with one group every attribute
// becomes constant, which linkage refuses). demo and bench check --records against it
// before they generate anything, rather than fail on a file of theirs.
func minRecords(jobs []maskJob) (int, string) {
	n, why := 2, []string{"linkage needs two records"}
	for _, j := range jobs {
		m, w := 0, ""
		switch j.method {
		case "rankswap":
			m = int(math.Ceil(100 / j.p))
			for mask.RankSwapWindow(j.p, m) < 1 {
				m++
			}
			w = fmt.Sprintf("rank swapping with p=%g needs %d records for a window of one rank", j.p, m)
		case "mdav", "indrank":
			m = 2 * j.k
			w = fmt.Sprintf("%s with k=%d needs %d records for two groups", j.method, j.k, m)
		}
		switch {
		case m > n:
			n, why = m, []string{w}
		case m == n:
			why = append(why, w)
		}
	}
	return n, strings.Join(why, ", ")
}

// demoMeasure reads an original and a masked file back, pairs them by row order on attrs
// and computes what exists so far: the share of values changed, the mean absolute change
// of the standardised values, and the k-anonymity level of the masked file on attrs (the
// size of its smallest group of identical records).
func demoMeasure(originalPath, maskedPath string, attrs []string, know linkage.Knowledge) (demoRow, error) {
	o, err := datasets.Load(originalPath, datasets.LoadOptions{Columns: attrs})
	if err != nil {
		return demoRow{}, err
	}
	m, err := datasets.Load(maskedPath, datasets.LoadOptions{Columns: attrs})
	if err != nil {
		return demoRow{}, err
	}
	p, err := datasets.Pair(o, m, datasets.PairOptions{Attributes: attrs})
	if err != nil {
		return demoRow{}, err
	}
	zo, err := datasets.Standardize(p.Original, datasets.StandardizeOptions{})
	if err != nil {
		return demoRow{}, err
	}
	// The masked file is standardised with the original's statistics here, so that Δz
	// measures the change in original standard deviations.
	row := demoRow{File: pathText(filepath.Base(maskedPath)), Records: p.Original.Rows(), Attributes: len(attrs)}
	changed, total, sumAbs := 0, 0, 0.0
	for j := range p.Original.Columns {
		ov, mv := p.Original.Columns[j].Values, p.Masked.Columns[j].Values
		for i := range ov {
			mi := p.TrueMasked[i]
			if ov[i] != mv[mi] {
				changed++
			}
			sumAbs += math.Abs(ov[i]-mv[mi]) / zo.SD[j]
			total++
		}
	}
	row.Changed = float64(changed) / float64(total)
	row.MeanAbsDZ = sumAbs / float64(total)
	row.KAnonymity = smallestGroup(p.Masked)

	// Distance-based record linkage, each masked record to its nearest original.
	zm, err := datasets.Standardize(p.Masked, datasets.StandardizeOptions{})
	if err != nil {
		return demoRow{}, err
	}
	om, _ := zo.Table.NumericMatrix()
	mm, _ := zm.Table.NumericMatrix()
	res, err := linkage.DBRL(linkage.Problem{Original: om, Masked: mm, TrueMasked: p.TrueMasked,
		TrueOriginal: p.TrueOriginal, Operator: distances.NewEuclidean(len(om))}, linkage.Settings{})
	if err != nil {
		return demoRow{}, err
	}
	row.Reid, row.ReidSets = res.Measures.Reid, res.Measures.ReidSets
	// K.Reid: the intruder knows the method and its parameter (row order is the truth).
	rawO, _ := p.Original.NumericMatrix()
	rawM, _ := p.Masked.NumericMatrix()
	kr, err := linkage.KnownLinks(rawO, rawM, know)
	if err != nil {
		return demoRow{}, err
	}
	row.KReid, row.Knowledge = kr.KReid(), know.String()
	return row, nil
}

// smallestGroup returns the number of records in the smallest class of identical records.
func smallestGroup(t *datasets.Table) int {
	counts := map[string]int{}
	var key strings.Builder
	for i := 0; i < t.Rows(); i++ {
		key.Reset()
		for j := range t.Columns {
			key.WriteString(t.Columns[j].String(i))
			key.WriteByte(0)
		}
		counts[key.String()]++
	}
	smallest := t.Rows()
	for _, c := range counts {
		smallest = min(smallest, c)
	}
	return smallest
}

func printDemo(e *env, r *demoResult, format string) error {
	if format == "json" {
		return writeJSON(e.stdout, r)
	}
	fmt.Fprintf(e.stdout, "reid demo: %d synthetic records (seed %d), files in %s\n\n", r.Records, r.Seed, r.Dir)
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "masked file\tmethod\tparameters\trecords\tattributes\tvalues changed\tmean |Δz|\tk-anonymity\tReid\tReid (sets)\tK.Reid")
	for _, m := range r.Masked {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%.1f%%\t%.3f\t%d\t%.4f\t%.4f\t%.4f\n", m.File, m.Method, m.Parameters, m.Records, m.Attributes, 100*m.Changed, m.MeanAbsDZ, m.KAnonymity, m.Reid, m.ReidSets, m.KReid)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprint(e.stdout, `
mean |Δz|: average absolute change of a value, in standard deviations of the original.
k-anonymity: size of the smallest group of identical masked records on those attributes.
Reid: share of masked records whose nearest original (Euclidean distance on z-scores) is
unique and true; Reid (sets): with anonymity sets; K.Reid: links the intruder knows are
correct, knowing the masking method and its parameter. The audit of each file below adds
PRL, the worst case (learned distances) and uniqueness; see README.md.
`)
	return nil
}
