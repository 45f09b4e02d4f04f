package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/datasets/synth"
	"github.com/reid-sdc/reid/optimize"
)

func benchCommand() *command {
	least, why := minRecords(benchMaskJobs())
	return &command{
		Name:      "bench",
		UsageLine: "reid bench [--datasets DIR] [--dataset NAME] [--records N] [--time-limit T | --work-limit W] [--seed S] [--threads N] [--csv FILE] [--md FILE]",
		Short:     "run the grid dataset × masking method × measure (the worst-case papers' tables)",
		Long: fmt.Sprintf(`
Bench runs, for every masked file of a data set, the measures of 'reid audit' and prints
one row per masking method and parameter with the columns of the worst-case record-linkage
papers: Euclidean DBRL, PRL (EM), the learned WM, OWA, bilinear and Choquet distances
(incumbent and proven bound; each file's searches get twice --time-limit in all, shared
by the families as by 'reid audit': the time a family leaves goes to the next; Choquet
n/a on more than 13 attributes), K.Reid (the masking read from the file name: mdav_kK,
indrank_kK, rankswap_pP, argus_rankswap_pP; none otherwise; n/a, with a note on
stderr, for a name that reads as no valid masking, such as mdav_k1, or a masking the file
contradicts), with times in seconds.

The data set is DIR/NAME/original.csv with DIR/NAME/masked/*.csv (--datasets, default
../shared/datasets; --dataset, default census; when either flag is given the data set must
exist, and an original.csv without masked files is an error; each masked file is linked
by row order on the original's columns it holds, so every one must load, hold the same
of them as the others, as many records, and no constant column: checked before any
work). When the defaults have no original.csv the synthetic generator makes --records
records (seed --seed) and masks them with MDAV k=3,5,10, individual ranking k=3 and rank
swapping p=5,15 (--records at least %d: below it some masking would change nothing).
On a data set's files --records N, when given, links and learns on the first N records
of each file, standardised over the whole files, as 'reid audit --records' does, for a
quick run (at least %[1]d too; a file of fewer records is used whole, with a warning);
not given, on every record.

The table is Markdown on stdout (or --md FILE); --csv FILE writes it as CSV, one row per
masked file with the columns, in this order: dataset, masked, masking, n,
dbrl_euclidean, prl_em, wm_incumbent, wm_bound, wm_status, owa_incumbent, owa_bound,
owa_status, bilinear, choquet, k_reid, seconds_dbrl, seconds_prl, seconds_wm,
seconds_owa, bilinear_incumbent, bilinear_bound, bilinear_status, choquet_incumbent,
choquet_bound, choquet_status, seconds_bilinear, seconds_choquet. The first version's
columns keep their places, the ones added since follow seconds_owa: bilinear and choquet
repeat bilinear_incumbent and choquet_incumbent. For each learned family F, F_incumbent
and F_bound are shares of n (n/a for a family not available or whose search never
started) and F_status how its search ended; n, dbrl_euclidean, k_reid and seconds_dbrl
are n/a for a DBRL not run, prl_em and seconds_prl for a PRL not run.

The learned figures count links with a margin of at least ε = %g, as 'reid learn'
does: on files whose true links have smaller margins they can be below the Euclidean
DBRL, which counts any margin. All figures but the times are reproducible with the same
seed when every worst-case search ends optimal (otherwise they depend on --time-limit),
and always with --work-limit W instead (counted work, twice W per file shared the same
way: the same table on every run, and on every machine of the same architecture with the
same build). An interrupt (Ctrl-C) or SIGTERM ends the current file's searches (status
interrupted; n/a for those not started) and its DBRL and PRL if still running (n/a),
writes the table of the files done and exits 130.`, least, optimize.DefaultEpsilon),
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			dsDir := fs.String("datasets", filepath.Join("..", "shared", "datasets"), "data sets `directory`")
			dsName := fs.String("dataset", "census", "data set `name` (a subdirectory of --datasets)")
			records := fs.Int("records", 1000, fmt.Sprintf("given, link on the first `N` records of each file of the data set (as reid audit --records; not given: all); the synthetic records made when the data set is absent (at least %d)", least))
			seed := fs.Uint64("seed", 1, "random seed of the synthetic data and masking")
			timeLimit := secondsOrDuration(10 * time.Second)
			fs.Var(&timeLimit, "time-limit", "worst-case search time: each masked file gets twice this `duration`, shared by the learned families")
			var workLimit secondsOrDuration
			fs.Var(&workLimit, "work-limit", "worst-case search `work` instead of time (work seconds; twice this per file): a reproducible table")
			csvOut := fs.String("csv", "", "write the table as CSV to this `file`")
			mdOut := fs.String("md", "", "write the Markdown table to this `file` instead of stdout")
			threads := threadsFlag(fs)
			return func(args []string) error {
				if len(args) != 0 {
					return usagef("bench takes no arguments")
				}
				if timeLimit <= 0 {
					return usagef("--time-limit must be positive")
				}
				if err := chooseLimit(fs, (*time.Duration)(&timeLimit), (*time.Duration)(&workLimit)); err != nil {
					return err
				}
				if 2*time.Duration(workLimit).Seconds() > maxSeconds {
					return usagef("--work-limit %v: each file gets twice it, more than %g work seconds (about 32 years)", time.Duration(workLimit), maxSeconds)
				}
				// Checked even when the data set exists: a value that can never work.
				if *records < least {
					return usagef("--records must be at least %d, got %d: %s", least, *records, why)
				}
				if err := checkOutFiles(nil, outPath{"csv", *csvOut}, outPath{"md", *mdOut}); err != nil {
					return err
				}
				b := benchJob{timeLimit: time.Duration(timeLimit), workLimit: time.Duration(workLimit).Seconds(), seed: *seed, threads: *threads}
				src := benchSource{dir: *dsDir, name: *dsName, dirGiven: flagGiven(fs, "datasets"), nameGiven: flagGiven(fs, "dataset")}
				first := 0 // all
				if flagGiven(fs, "records") {
					first = *records
				}
				files, cleanup, err := b.files(e, src, *records, first)
				if err != nil {
					return err
				}
				defer cleanup()
				// Once the data set's files are known: an output naming one of them would
				// replace it (the check above knew no input).
				var inputs []string
				for _, f := range files {
					inputs = append(inputs, f.original, f.masked)
				}
				if err := checkOutFiles(inputs, outPath{"csv", *csvOut}, outPath{"md", *mdOut}); err != nil {
					return err
				}
				if err := checkBenchFiles(files); err != nil {
					return err
				}
				ctx, release := interruptible(e, "bench")
				defer release() // error paths
				rows := []benchRow{}
				for _, f := range files {
					row, err := b.row(ctx, e, f)
					if err != nil {
						return err
					}
					rows = append(rows, row)
					fmt.Fprintf(e.stderr, "reid bench: %s done (%.1fs)\n", f.name, row.Seconds["total"])
					if ctx.Err() != nil {
						break // interrupted: the table of the files done, this one's searches marked
					}
				}
				sig := release()
				limit := fmt.Sprintf("time limit %s", 2*b.timeLimit)
				if b.workLimit > 0 {
					limit = fmt.Sprintf("work limit %g work %s", 2*b.workLimit, map[bool]string{true: "second", false: "seconds"}[2*b.workLimit == 1])
				}
				title := files[0].dataset
				// n from the first file's DBRL, which an interrupt may have stopped (the one
				// file of the table): no count then, not "0 records".
				if d := rows[0].DBRL; d != nil && files[0].first > 0 && d.N == files[0].first {
					title += fmt.Sprintf(", the first %d records of each file", d.N)
				} else if d != nil {
					title += fmt.Sprintf(", %d records", d.N)
				}
				title += fmt.Sprintf(", worst-case %s per file shared by the learned families, seed %d", limit, b.seed)
				if sig != nil {
					title += fmt.Sprintf("; interrupted after %d of %d files", len(rows), len(files))
				}
				markdown := func(w io.Writer) error { return writeBenchMarkdown(w, title, rows) }
				csvFile := outFile{*csvOut, func(f *os.File) error { return writeBenchCSV(f, rows) }}
				if err := writeResults(e, *mdOut, markdown, csvFile); err != nil {
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

type benchJob struct {
	timeLimit time.Duration
	workLimit float64 // work seconds (0: none; the time limit is then used)
	seed      uint64
	threads   int // goroutines of each measure (0: all cores)
}

// benchSource is where the data set is: --datasets and --dataset, and whether each was
// given on the command line (the synthetic fallback is for the defaults only).
type benchSource struct {
	dir, name           string
	dirGiven, nameGiven bool
}

type benchFile struct {
	dataset, name, original, masked, masking string
	attrs                                    []string
	// first is --records on a real data set: the first records of both files are linked
	// (auditJob.records; 0: all).
	first int
	// noKReid: the name reads as no valid masking (mdav_k1.csv): K.Reid is n/a, not the
	// 0 of masking none (for mdav_k1, an unmasked file, the truth is 1).
	noKReid bool
}

type benchRow struct {
	Dataset, File, Masking string
	// DBRL is the Euclidean DBRL masked to original, with n and K.Reid; nil when it did
	// not run (an interrupt stops it; no numeric attribute): n/a, not 0.
	DBRL *auditLinkage
	// PRL is nil when PRL did not run (an interrupt stops it): n/a, not 0.
	PRL               *float64
	WM, OWA           auditWorstCase
	Bilinear, Choquet auditWorstCase
	Seconds           map[string]float64
	// KReidNA: K.Reid was not measured (a name that reads as no valid masking, or a
	// masking the file contradicts): n/a, not 0.
	KReidNA bool
}

var knowledgeFromName = regexp.MustCompile(`^(?:argus_)?(mdav|indrank|rankswap)_([kp])(\d+(?:\.\d+)?)$`)

// maskingOf reads the intruder's knowledge from a masked file's name.
func maskingOf(name string) string {
	m := knowledgeFromName.FindStringSubmatch(strings.TrimSuffix(name, filepath.Ext(name)))
	if m == nil {
		return "none"
	}
	return m[1] + ":" + m[2] + "=" + m[3]
}

// files lists the grid's masked files: the data set's when present, each linked on its
// first records (0: all), else (the default data set absent, neither --datasets nor
// --dataset given) synthetic ones of records records.
func (b *benchJob) files(e *env, src benchSource, records, first int) ([]benchFile, func(), error) {
	orig, masked, err := benchDataset(src)
	if err != nil {
		return nil, nil, err
	}
	if orig != "" {
		var out []benchFile
		records := -1 // the original's, read once when a name gives a group size k
		for _, m := range masked {
			spec := maskingOf(filepath.Base(m))
			know, err := parseKnowledge(spec)
			if err == nil && know.K > 0 {
				if records < 0 {
					if records, err = countRecords(orig); err != nil {
						return nil, nil, err
					}
				}
				if know.K > records {
					err = fmt.Errorf("%q: k is more than the %d records", spec, records)
				}
			}
			if err != nil {
				// A name such as mdav_k1.csv reads as a masking that changes nothing, and
				// mdav_k61.csv on 60 records as one that cannot be: no K.Reid for it, said
				// now, rather than an error after the files before it.
				fmt.Fprintf(e.stderr, "reid bench: %s: its name reads as --masking %v; K.Reid is not measured (n/a)\n", filepath.Base(m), err)
				spec = "none"
			}
			out = append(out, benchFile{dataset: src.name, name: filepath.Base(m), original: orig, masked: m, masking: spec, first: first, noKReid: err != nil})
		}
		return out, func() {}, nil
	}
	orig = filepath.Join(src.dir, src.name, "original.csv")
	fmt.Fprintf(e.stderr, "reid bench: no %s; using %d synthetic records (seed %d)\n", orig, records, b.seed)
	tmp, err := os.MkdirTemp("", "reid-bench-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	tab, err := synth.Generate(synth.Settings{Records: records, Seed: b.seed})
	if err != nil {
		cleanup()
		return nil, nil, asInput(err)
	}
	orig = filepath.Join(tmp, "original.csv")
	if err := datasets.Write(orig, tab, datasets.FormatCSV); err != nil {
		cleanup()
		return nil, nil, err
	}
	var out []benchFile
	for _, j := range benchMaskJobs() {
		j.seed = b.seed
		t, err := datasets.Load(orig, datasets.LoadOptions{})
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		s, err := j.apply(t)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		file := j.method + "_k" + strconv.Itoa(j.k) + ".csv"
		if j.method == "rankswap" {
			file = "rankswap_p" + strconv.FormatFloat(j.p, 'g', -1, 64) + ".csv"
		}
		path := filepath.Join(tmp, file)
		if err := datasets.Write(path, t, datasets.FormatCSV); err != nil {
			cleanup()
			return nil, nil, err
		}
		out = append(out, benchFile{dataset: "synthetic", name: file, original: orig, masked: path, masking: maskingOf(file), attrs: s.Attributes})
	}
	return out, cleanup, nil
}

// benchDataset returns DIR/NAME/original.csv and its masked files, sorted, or no
// original when the data set is absent (no original.csv) and the synthetic fallback
// applies: only to the defaults (neither --datasets nor --dataset given). A data set
// named on the command line (either flag) that is absent, or one whose original has no
// masked file beside it, is an error before any work: either would otherwise be measured
// on synthetic data, a table of the wrong data exiting 0 (a mistyped --datasets did).
func benchDataset(src benchSource) (orig string, masked []string, err error) {
	dir, name := src.dir, src.name
	orig = filepath.Join(dir, name, "original.csv")
	if _, err := os.Stat(orig); err != nil {
		switch {
		case src.nameGiven:
			return "", nil, usagef("--dataset %s: no %s", name, orig)
		case src.dirGiven:
			return "", nil, usagef("--datasets %s: no %s", dir, orig)
		}
		return "", nil, nil
	}
	maskedDir := filepath.Join(dir, name, "masked")
	entries, err := os.ReadDir(maskedDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", nil, asInput(err) // e.g. masked is a file: the path error names it
	}
	for _, en := range entries { // sorted by name
		if !en.IsDir() && strings.HasSuffix(en.Name(), ".csv") {
			masked = append(masked, filepath.Join(maskedDir, en.Name()))
		}
	}
	if len(masked) == 0 {
		return "", nil, asInput(fmt.Errorf("%s: no masked files (want %s/masked/*.csv beside %s/original.csv)", maskedDir, name, name))
	}
	return orig, masked, nil
}

// checkBenchFiles refuses, before any file's work, a masked file that the audit would
// refuse after the files before it had been measured: one that shares no column with
// its original (the audit links on the original's columns that the masked file has too;
// its advice to give --attrs does not fit bench, which has no such flag), whose common
// columns do not load, hold another number of records (bench links by row order) or
// have no scale in either file (a constant column, which the audit's standardisation
// refuses). Every masked file must also hold the same of the original's columns: the
// table compares them on the same attributes, and a file lacking one was linked on the
// others in silence. The files are loaded here once more, on the columns the audit
// reads: small next to the searches.
func checkBenchFiles(files []benchFile) error {
	read := map[string][]string{} // the original, once
	columns := func(path string) ([]string, error) {
		if c, ok := read[path]; ok {
			return c, nil
		}
		c, err := datasets.ColumnNames(path, datasets.LoadOptions{})
		read[path] = c
		return c, err
	}
	checked := map[string]int{} // records, by path and columns
	check := func(path string, common []string) (int, error) {
		key := path + "\x00" + strings.Join(common, "\x00")
		if n, ok := checked[key]; ok {
			return n, nil
		}
		t, err := datasets.Load(path, datasets.LoadOptions{Columns: common})
		if err != nil {
			return 0, err
		}
		if _, err := datasets.Standardize(t, datasets.StandardizeOptions{}); err != nil {
			return 0, err
		}
		checked[key] = t.Rows()
		return t.Rows(), nil
	}
	var first []string // the first masked file's common columns
	var firstFile string
	for _, f := range files {
		if f.attrs != nil {
			continue // synthetic: bench chose the attributes, which both files have
		}
		orig, err := columns(f.original)
		if err != nil {
			return err
		}
		masked, err := columns(f.masked)
		if err != nil {
			return err
		}
		common := slices.DeleteFunc(slices.Clone(orig), func(c string) bool { return !slices.Contains(masked, c) })
		if len(common) == 0 {
			return &datasets.InputError{File: f.masked, Err: fmt.Errorf("no column in common with %s: nothing to link on", f.original)}
		}
		if first == nil {
			first, firstFile = common, f.masked
		} else if !slices.Equal(common, first) {
			return &datasets.InputError{File: f.masked, Err: fmt.Errorf("it holds the original's columns %s, %s holds %s: bench compares the masked files of a data set on the same attributes",
				datasets.QuoteList(common), firstFile, datasets.QuoteList(first))}
		}
		nOrig, err := check(f.original, common)
		if err != nil {
			return err
		}
		nMasked, err := check(f.masked, common)
		if err != nil {
			return err
		}
		if nOrig != nMasked {
			return &datasets.InputError{File: f.masked, Err: datasets.ErrRowMismatch,
				Detail: fmt.Sprintf("%d records here, %d in %s (bench links by row order, which needs equal counts)", nMasked, nOrig, f.original)}
		}
	}
	return nil
}

// benchMaskJobs are the maskings of the synthetic data set (seed set by the caller).
func benchMaskJobs() []maskJob {
	return []maskJob{{method: "mdav", k: 3}, {method: "mdav", k: 5}, {method: "mdav", k: 10}, {method: "indrank", k: 3},
		{method: "rankswap", p: 5}, {method: "rankswap", p: 15}}
}

// row runs the audit's measures (no uniqueness, no report files) on one masked file.
func (b *benchJob) row(ctx context.Context, e *env, f benchFile) (benchRow, error) {
	pf := addPairFlags(flag.NewFlagSet("bench", flag.ContinueOnError))
	// The names as a list: joined, a data set's name holding a comma or a quote would
	// be split or refused by --attrs' parsing.
	*pf.original, *pf.masked, pf.attrList, *pf.seed = f.original, f.masked, f.attrs, b.seed
	know, err := parseKnowledge(f.masking)
	if err != nil {
		return benchRow{}, err
	}
	a := auditJob{command: "bench", pf: pf, knowledge: know, maskingSpec: f.masking, timeLimit: 2 * b.timeLimit, workLimit: 2 * b.workLimit, records: f.first, threads: b.threads,
		prlEMOnly: true} // the grid's one PRL column
	rep, err := a.run(ctx, e)
	if ie := (*datasets.InputError)(nil); errors.As(err, &ie) && ie.File == f.masked {
		return benchRow{}, err // it names the file already
	}
	if err != nil {
		return benchRow{}, fmt.Errorf("%s: %w", f.name, err)
	}
	for _, w := range rep.Warnings {
		// The report's other warnings are the audit's; this one answers bench's own flag
		// (the files have fewer records than --records): audit's words, naming the files.
		switch {
		case strings.HasPrefix(w, "--records "):
			fmt.Fprintf(e.stderr, "reid bench: %s\n", w)
		case strings.Contains(w, "--masking does not describe"), strings.Contains(w, "no proof of the optimum"):
			// The masking's refutation, which the K.Reid note below points to, and a
			// family's time_limit that no limit caused.
			fmt.Fprintf(e.stderr, "reid bench: %s: %s\n", f.name, w)
		}
	}
	row := benchRow{Dataset: f.dataset, File: strings.TrimSuffix(f.name, ".csv"), Masking: f.masking, Seconds: map[string]float64{}, KReidNA: f.noKReid}
	if why := rep.Summary.KReidNotMeasured; why != "" {
		// The file contradicts the masking its name gives: as the audit's gate, no K.Reid.
		fmt.Fprintf(e.stderr, "reid bench: %s: K.Reid is not measured (n/a): %s\n", f.name, why)
		row.KReidNA = true
	}
	st := rep.Timings.Steps
	for _, l := range rep.Linkage {
		switch l.ID {
		case "dbrl/euclidean/masked-to-original":
			row.DBRL = &l
			row.Seconds["dbrl"] = st["dbrl/masked-to-original"]
		case "prl/em/masked-to-original":
			row.PRL = &l.Reid
			row.Seconds["prl"] = st["prl/em"]
		}
	}
	for _, w := range rep.WorstCase {
		switch w.Operator {
		case "wm":
			row.WM, row.Seconds["wm"] = w, st["worst_case/wm"]
		case "owa":
			row.OWA, row.Seconds["owa"] = w, st["worst_case/owa"]
		case "bilinear":
			row.Bilinear, row.Seconds["bilinear"] = w, st["worst_case/bilinear"]
		case "choquet":
			row.Choquet, row.Seconds["choquet"] = w, st["worst_case/choquet"]
		}
	}
	row.Seconds["total"] = rep.Timings.TotalSeconds
	return row, nil
}

func wcCell(w auditWorstCase) string {
	if !w.Available {
		return "n/a"
	}
	s := fmt.Sprintf("%.4f", w.IncumbentReid)
	if w.Status != "optimal" {
		s += fmt.Sprintf(" (≤ %.4f)", w.BoundReid)
	}
	return s
}

func writeBenchMarkdown(w io.Writer, title string, rows []benchRow) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Reid by masking method (%s). Learned distances: the incumbent's Reid (links with margin ≥ ε = %g, so it can fall below the Euclidean DBRL's, which counts any margin), with the proven bound in parentheses when the search stopped on its time or work limit.\n\n", title, optimize.DefaultEpsilon)
	b.WriteString("| masked file | K.Reid knowledge | Euclidean DBRL | PRL (EM) | learned WM | learned OWA | bilinear | Choquet | K.Reid | s DBRL | s PRL | s WM | s OWA | s bilinear | s Choquet |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		dbrl, kReid, dbrlSeconds := "n/a", "n/a", "–"
		if r.DBRL != nil {
			dbrl, kReid, dbrlSeconds = fmt.Sprintf("%.4f", r.DBRL.Reid), fmt.Sprintf("%.4f", r.DBRL.KReid), fmt.Sprintf("%.2f", r.Seconds["dbrl"])
		}
		if r.KReidNA {
			kReid = "n/a"
		}
		prl, prlSeconds := "n/a", "–"
		if r.PRL != nil {
			prl, prlSeconds = fmt.Sprintf("%.4f", *r.PRL), fmt.Sprintf("%.2f", r.Seconds["prl"])
		}
		// A '|' in a file's name would end its cell.
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f |\n", strings.ReplaceAll(r.File, "|", `\|`), r.Masking, dbrl, prl,
			wcCell(r.WM), wcCell(r.OWA), wcCell(r.Bilinear), wcCell(r.Choquet), kReid, dbrlSeconds, prlSeconds, r.Seconds["wm"], r.Seconds["owa"],
			r.Seconds["bilinear"], r.Seconds["choquet"])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeBenchCSV(w io.Writer, rows []benchRow) error {
	c := csv.NewWriter(w)
	c.Write([]string{"dataset", "masked", "masking", "n", "dbrl_euclidean", "prl_em", "wm_incumbent", "wm_bound", "wm_status",
		"owa_incumbent", "owa_bound", "owa_status", "bilinear", "choquet", "k_reid", "seconds_dbrl", "seconds_prl", "seconds_wm", "seconds_owa",
		"bilinear_incumbent", "bilinear_bound", "bilinear_status", "choquet_incumbent", "choquet_bound", "choquet_status", "seconds_bilinear", "seconds_choquet"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	// bilinear and choquet (the columns of the first version) hold the incumbent's Reid or
	// n/a; the _incumbent, _bound and _status columns were added with the learners. A
	// family without a result (not available, or interrupted before its search started)
	// has n/a, as in the Markdown: its zero values read as a proven bound of 0.
	cell := func(w auditWorstCase, v float64) string {
		if !w.Available {
			return "n/a"
		}
		return f(v)
	}
	for _, r := range rows {
		n, dbrl, kReid, dbrlSeconds := "n/a", "n/a", "n/a", "n/a"
		if r.DBRL != nil {
			n, dbrl, kReid, dbrlSeconds = strconv.Itoa(r.DBRL.N), f(r.DBRL.Reid), f(r.DBRL.KReid), f(r.Seconds["dbrl"])
		}
		if r.KReidNA {
			kReid = "n/a"
		}
		prl, prlSeconds := "n/a", "n/a"
		if r.PRL != nil {
			prl, prlSeconds = f(*r.PRL), f(r.Seconds["prl"])
		}
		c.Write([]string{r.Dataset, r.File, r.Masking, n, dbrl, prl, cell(r.WM, r.WM.IncumbentReid), cell(r.WM, r.WM.BoundReid), r.WM.Status,
			cell(r.OWA, r.OWA.IncumbentReid), cell(r.OWA, r.OWA.BoundReid), r.OWA.Status, cell(r.Bilinear, r.Bilinear.IncumbentReid), cell(r.Choquet, r.Choquet.IncumbentReid), kReid,
			dbrlSeconds, prlSeconds, f(r.Seconds["wm"]), f(r.Seconds["owa"]),
			cell(r.Bilinear, r.Bilinear.IncumbentReid), cell(r.Bilinear, r.Bilinear.BoundReid), r.Bilinear.Status,
			cell(r.Choquet, r.Choquet.IncumbentReid), cell(r.Choquet, r.Choquet.BoundReid), r.Choquet.Status,
			f(r.Seconds["bilinear"]), f(r.Seconds["choquet"])})
	}
	c.Flush()
	return c.Error()
}

// countRecords is the number of records of a data file.
func countRecords(path string) (int, error) {
	t, err := datasets.Load(path, datasets.LoadOptions{})
	if err != nil {
		return 0, err
	}
	return t.Rows(), nil
}
