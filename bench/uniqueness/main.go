// Command uniqueness measures reid's key-combination counting (uniqueness.Count) against
// pandas' groupby on the same data, in one run: it generates rows × keys categorical
// codes, counts them with reid, hands the same codes to pandas (Debian's python3-pandas,
// run by /usr/bin/python3) and prints the times and their ratio.
//
//	go run ./bench/uniqueness [-rows 10000000] [-runs 3] [-python /usr/bin/python3]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/uniqueness"
)

// The 8 keys: cardinalities of a typical household-survey key (sex, age group, region,
// marital status, education, occupation, household size, citizenship).
var cards = []int{2, 18, 50, 6, 12, 40, 9, 4}

// scenario is one distribution of the keys: category c of a key with C categories has
// probability ∝ (c+1)^(−s). s = 0.8 spreads the rows over most combinations (most
// classes are unique), s = 2 concentrates them (few, large classes).
type scenario struct {
	name string
	s    float64
}

var scenarios = []scenario{{"spread (zipf 0.8)", 0.8}, {"concentrated (zipf 2)", 2}}

func main() {
	rows := flag.Int("rows", 10_000_000, "number of rows")
	runs := flag.Int("runs", 3, "timed runs of each tool (the best is kept)")
	python := flag.String("python", "/usr/bin/python3", "the python with pandas")
	flag.Parse()
	dir, err := os.MkdirTemp("", "reid-bench-uniqueness")
	check(err)
	defer os.RemoveAll(dir)

	fmt.Printf("reid uniqueness counting vs pandas groupby: %d rows × %d categorical keys, GOMAXPROCS %d, best of %d (reid: 2×%d, before and after pandas)\n\n",
		*rows, len(cards), runtime.GOMAXPROCS(0), *runs, *runs)
	fmt.Println("| scenario | classes | sample uniques | reid Count | pandas groupby(sort=False).size() | ratio (pandas / reid) |")
	fmt.Println("|---|---|---|---|---|---|")
	for si, sc := range scenarios {
		tab := generate(*rows, sc.s, uint64(si+1))
		keys := make([]uniqueness.Key, len(cards))
		for k := range keys {
			keys[k] = uniqueness.Key{Name: tab.Columns[k].Name}
		}
		var classes *uniqueness.Classes
		best := math.Inf(1)
		timeReid := func() {
			for r := 0; r < *runs; r++ {
				runtime.GC()
				start := time.Now()
				classes, err = uniqueness.Count(tab, nil, keys, 0)
				check(err)
				best = math.Min(best, time.Since(start).Seconds())
			}
		}
		// reid, pandas, reid again: the machine is shared, and interleaving lets both
		// tools meet the same quiet and busy spells.
		timeReid()
		files := writeCodes(dir, tab)
		pdTime, pdClasses, pdUniques, pdVersion := runPandas(*python, files, *runs)
		pandasVersion = pdVersion
		timeReid()
		if pdClasses != classes.Len() || pdUniques != classes.Uniques() {
			fmt.Fprintf(os.Stderr, "mismatch: reid %d classes %d uniques, pandas %d %d\n", classes.Len(), classes.Uniques(), pdClasses, pdUniques)
			os.Exit(1)
		}
		fmt.Printf("| %s | %d | %d | %.3f s (%.1f M rows/s) | %.3f s (%.1f M rows/s) | **%.1f×** |\n", sc.name, classes.Len(), classes.Uniques(),
			best, float64(*rows)/best/1e6, pdTime, float64(*rows)/pdTime/1e6, pdTime/best)
		for _, f := range files {
			os.Remove(f)
		}
	}
	fmt.Printf("\npandas %s (%s); reid: uniqueness.Count, classes of every row included.\n", pandasVersion, *python)
}

var pandasVersion string

// generate makes a table of categorical keys with a deterministic generator (SplitMix64).
func generate(rows int, s float64, seed uint64) *datasets.Table {
	tab := &datasets.Table{Source: "generated"}
	x := seed * 0x9e3779b97f4a7c15
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	for k, c := range cards {
		cdf := make([]float64, c)
		sum := 0.0
		for i := range cdf {
			sum += math.Pow(float64(i+1), -s)
			cdf[i] = sum
		}
		levels := make([]string, c)
		for i := range levels {
			levels[i] = strconv.Itoa(i)
		}
		codes := make([]int32, rows)
		for i := range codes {
			u := float64(next()>>11) / (1 << 53) * sum
			j := 0
			for j < c-1 && cdf[j] <= u {
				j++
			}
			codes[i] = int32(j)
		}
		tab.Columns = append(tab.Columns, datasets.Column{Name: fmt.Sprintf("k%d", k), Kind: datasets.Categorical, Codes: codes, Levels: levels})
	}
	return tab
}

// writeCodes writes each key as raw int8 codes for numpy.fromfile.
func writeCodes(dir string, tab *datasets.Table) []string {
	var files []string
	for _, c := range tab.Columns {
		p := filepath.Join(dir, c.Name+".i8")
		f, err := os.Create(p)
		check(err)
		w := bufio.NewWriterSize(f, 1<<20)
		for _, v := range c.Codes {
			check(w.WriteByte(byte(int8(v))))
		}
		check(w.Flush())
		check(f.Close())
		files = append(files, p)
	}
	return files
}

const pandasScript = `
import sys, time, numpy as np, pandas as pd
runs = int(sys.argv[1])
files = sys.argv[2:]
df = pd.DataFrame({f"k{i}": np.fromfile(f, dtype=np.int8) for i, f in enumerate(files)})
keys = list(df.columns)
best = float("inf")
for _ in range(runs):
    t = time.perf_counter()
    s = df.groupby(keys, sort=False).size()
    best = min(best, time.perf_counter() - t)
print(best, len(s), int((s == 1).sum()), pd.__version__)
`

func runPandas(python string, files []string, runs int) (float64, int, int, string) {
	args := append([]string{"-c", pandasScript, strconv.Itoa(runs)}, files...)
	out, err := exec.Command(python, args...).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "pandas (%s): %v; install it with apt-get install -y python3-pandas\n", python, err)
		os.Exit(1)
	}
	f := strings.Fields(string(out))
	if len(f) < 4 {
		fmt.Fprintf(os.Stderr, "pandas: unexpected output %q\n", out)
		os.Exit(1)
	}
	t, _ := strconv.ParseFloat(f[0], 64)
	n, _ := strconv.Atoi(f[1])
	u, _ := strconv.Atoi(f[2])
	return t, n, u, f[3]
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
