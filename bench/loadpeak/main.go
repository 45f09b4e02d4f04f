// Command loadpeak measures the loader's peak memory: it writes a rows × cols float64
// Parquet file (once), then loads it in a fresh child process and reports that process's
// peak resident set (VmHWM) against the size of the float64 columns, rows·cols·8 bytes.
//
//	go run ./bench/loadpeak [-rows 5000000] [-cols 13] [-file /tmp/reid-loadpeak.parquet]
//
// The target (issue: foundation) is a peak below 2× the columns' size.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/reid-sdc/reid/bench"
	"github.com/reid-sdc/reid/datasets"
)

func main() {
	rows := flag.Int("rows", 5_000_000, "number of records")
	cols := flag.Int("cols", 13, "number of float64 attributes")
	path := flag.String("file", os.TempDir()+"/reid-loadpeak.parquet", "Parquet file to write (once) and load")
	child := flag.Bool("child", false, "internal: load the file and report")
	flag.Parse()
	if *child {
		loadAndReport(*path)
		return
	}
	if err := ensureFile(*path, *rows, *cols); err != nil {
		fmt.Fprintln(os.Stderr, "loadpeak:", err)
		os.Exit(1)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadpeak:", err)
		os.Exit(1)
	}
	out, err := exec.Command(self, "-child", "-file", *path).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadpeak: child: %v\n%s", err, out)
		os.Exit(1)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 4 {
		fmt.Fprintf(os.Stderr, "loadpeak: unexpected child output %q\n", out)
		os.Exit(1)
	}
	hwm, _ := strconv.ParseFloat(fields[0], 64)
	base, _ := strconv.ParseFloat(fields[1], 64)
	loadedRows, _ := strconv.Atoi(fields[2])
	secs, _ := strconv.ParseFloat(fields[3], 64)
	colBytes := float64(loadedRows) * float64(*cols) * 8
	st, _ := os.Stat(*path)
	fmt.Printf("file %s: %d rows × %d float64 columns, %.0f MiB on disk\n", *path, loadedRows, *cols, float64(st.Size())/(1<<20))
	fmt.Printf("float64 columns: %.0f MiB\n", colBytes/(1<<20))
	fmt.Printf("peak resident (VmHWM) of the loading process: %.0f MiB (%.2f× the columns); before loading: %.0f MiB\n",
		hwm/(1<<20), hwm/colBytes, base/(1<<20))
	fmt.Printf("load time: %.2f s (%.1f M values/s)\n", secs, colBytes/8/secs/1e6)
}

func ensureFile(path string, rows, cols int) error {
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return nil
	}
	fmt.Fprintf(os.Stderr, "loadpeak: writing %s (%d × %d)...\n", path, rows, cols)
	rng := rand.New(rand.NewPCG(1, 2))
	t := &datasets.Table{Source: path}
	for j := 0; j < cols; j++ {
		v := make([]float64, rows)
		for i := range v {
			v[i] = rng.NormFloat64()*1000 + float64(j)
		}
		t.Columns = append(t.Columns, datasets.Column{Name: "v" + strconv.Itoa(j), Kind: datasets.Numeric, Values: v})
	}
	return datasets.Write(path, t, datasets.FormatParquet)
}

func loadAndReport(path string) {
	base := bench.PeakRSS()
	start := time.Now()
	t, err := datasets.Load(path, datasets.LoadOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("%d %d %d %f\n", bench.PeakRSS(), base, t.Rows(), secs)
}
