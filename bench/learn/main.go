// Command learn benchmarks reid's worst-case MILP engine (optimize.Learn) against COIN-OR
// CBC on the same exported full models, with the same time limit, on the first N records
// of the CENSUS masked files (standardised over the whole files, masked-to-original), and
// prints a Markdown table for bench/README.md.
//
//	go run ./bench/learn [-data ../shared/datasets/census] [-files a,b] [-n 50,100] [-family wm,owa]
//	                     [-limit 60s | -work 60] [-cbc-limit 600s] [-cbc=false]
//
// -work W gives reid a limit of W work seconds (optimize.Settings.WorkLimit) instead of
// -limit: its rows repeat on any load, where a time limit's depend on the machine's speed
// that day (the reid s column stays wall time).
//
// CBC runs single-threaded on the model reid exports (-cbc=false skips it; models of more
// than -cbc-max records are not exported, their full model being too large).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/optimize"
)

func main() {
	dir := flag.String("data", "../shared/datasets/census", "CENSUS folder (original.csv, masked/)")
	files := flag.String("files", "", "masked files, comma-separated (default: every file of masked/)")
	ns := flag.String("n", "50", "record counts, comma-separated (0: all)")
	families := flag.String("family", "wm", "families, comma-separated (wm, owa)")
	limit := flag.Duration("limit", 60*time.Second, "reid time limit")
	work := flag.Float64("work", 0, "reid work limit in work seconds, instead of -limit (0: use -limit)")
	cbcLimit := flag.Duration("cbc-limit", 600*time.Second, "CBC time limit")
	useCBC := flag.Bool("cbc", true, "run CBC on the exported full model")
	cbcMax := flag.Int("cbc-max", 200, "largest N for which CBC runs")
	gapTarget := flag.Float64("gap", 0.05, "report the time at which reid's gap first reached this")
	// reid learn's default --seed, so that the table measures what users run.
	seed := flag.Int64("seed", 1, "seed of the line search's kicks (reid learn's default: 1)")
	flag.Parse()
	var names []string
	if *files != "" {
		names = strings.Split(*files, ",")
	} else {
		ents, err := os.ReadDir(filepath.Join(*dir, "masked"))
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".csv") {
				names = append(names, strings.TrimSuffix(e.Name(), ".csv"))
			}
		}
	}
	orig := load(filepath.Join(*dir, "original.csv"))
	tmp, err := os.MkdirTemp("", "reid-bench-learn")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("| file | N | family | reid s | reid status | reid links | reid bound | gap | s to gap ≤ %g %% | nodes | cuts | CBC s | CBC status | CBC links | CBC bound |\n", 100**gapTarget)
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, name := range names {
		masked := load(filepath.Join(*dir, "masked", name+".csv"))
		for _, nstr := range strings.Split(*ns, ",") {
			n, err := strconv.Atoi(nstr)
			if err != nil {
				log.Fatal(err)
			}
			if n == 0 || n > len(orig[0]) {
				n = len(orig[0])
			}
			for _, fam := range strings.Split(*families, ",") {
				f, err := optimize.ParseFamily(fam)
				if err != nil {
					log.Fatal(err)
				}
				p := optimize.Problem{Queries: cut(masked, n), Refs: cut(orig, n), Truth: identity(n), Family: f}
				reached := "–"
				s := optimize.Settings{TimeLimit: *limit, Seed: *seed}
				if *work > 0 {
					s.TimeLimit, s.WorkLimit = 0, *work
				}
				s.Progress = func(r optimize.Report) {
					if reached == "–" && r.Gap <= *gapTarget {
						reached = fmt.Sprintf("%.1f", r.Elapsed.Seconds())
					}
				}
				mps := ""
				if *useCBC && n <= *cbcMax {
					mps = filepath.Join(tmp, fmt.Sprintf("%s_%d_%s.mps", name, n, fam))
					s.ExportMPS = mps
				}
				start := time.Now()
				res, err := optimize.Learn(p, s)
				if err != nil {
					log.Fatalf("%s n=%d %s: %v", name, n, fam, err)
				}
				secs := time.Since(start).Seconds()
				cbcCols := "| – | – | – | – |"
				if mps != "" {
					cbcCols = runCBC(mps, *cbcLimit, n)
					os.Remove(mps)
				}
				if reached == "–" && res.Gap <= *gapTarget {
					reached = fmt.Sprintf("%.1f", secs)
				}
				fmt.Printf("| %s | %d | %s | %.1f | %s | %d | %d | %.1f %% | %s | %d | %d %s\n", name, n, fam, secs, res.Status,
					res.CorrectLinks, res.Bound, 100*res.Gap, reached, res.Stats.Nodes, res.Stats.Cuts, cbcCols)
			}
		}
	}
}

// runCBC solves the model with CBC (one thread) and returns its table cells.
func runCBC(mps string, limit time.Duration, n int) string {
	sol := mps + ".sol"
	start := time.Now()
	out, err := exec.Command("cbc", mps, "sec", strconv.Itoa(int(limit.Seconds())), "threads", "1", "solve", "solu", sol).CombinedOutput()
	secs := time.Since(start).Seconds()
	if err != nil {
		return fmt.Sprintf("| %.1f | error: %v | – | – |", secs, err)
	}
	f, err := os.Open(sol)
	if err != nil {
		return fmt.Sprintf("| %.1f | no solution | – | – |", secs)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	status := "time_limit"
	if strings.HasPrefix(line, "Optimal") {
		status = "optimal"
	}
	links := "–"
	if i := strings.LastIndex(strings.TrimSpace(line), " "); i >= 0 {
		if v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSpace(line)[i:]), 64); err == nil {
			links = strconv.Itoa(n - int(v+0.5))
		}
	}
	// Best possible (lower bound on failures) from the log.
	bound := "–"
	if status == "optimal" {
		bound = links
	} else {
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "Best possible") {
				fs := strings.Fields(l)
				if v, err := strconv.ParseFloat(fs[len(fs)-1], 64); err == nil {
					bound = strconv.Itoa(n - int(v-1e-6+0.999999))
				}
			}
		}
	}
	return fmt.Sprintf("| %.1f | %s | %s | %s |", secs, status, links, bound)
}

func load(path string) [][]float64 {
	tab, err := datasets.Load(path, datasets.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	z, err := datasets.Standardize(tab, datasets.StandardizeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	x, err := z.Table.NumericMatrix()
	if err != nil {
		log.Fatal(err)
	}
	return x
}

func cut(x [][]float64, n int) [][]float64 {
	out := make([][]float64, len(x))
	for k := range x {
		out[k] = x[k][:n]
	}
	return out
}

func identity(n int) []int {
	t := make([]int, n)
	for i := range t {
		t[i] = i
	}
	return t
}
