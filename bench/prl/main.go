// Command prl benchmarks probabilistic record linkage (linkage.PRL) in one run: (1)
// pattern counting throughput in pairs per second next to the DBRL core's
// (distances.Search, Euclidean) on the same synthetic n × n data with 13 attributes; (2)
// the cost of one EM iteration on the pattern counts of 10^6 and of 10^9 pairs (8
// attributes, 3 levels), which depends on the number of patterns only; (3) end to end
// (load, standardise, exact quantile thresholds, comparison, EM) against a per-pair numpy
// EM (peer.py, Debian's python3-numpy) on CENSUS and EIA masked with additive noise, with
// the same thresholds, start and number of iterations, comparing the estimates.
//
//	go run ./bench/prl [-n 20000] [-big 31623] [-python /usr/bin/python3] [-data ../shared/datasets] [-only-peer]
package main

import (
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/linkage"
)

//go:embed peer.py
var peerScript []byte

func main() {
	n := flag.Int("n", 20000, "records of each synthetic file for the throughput comparison")
	big := flag.Int("big", 31623, "records of each file for the 10^9-pair EM run")
	python := flag.String("python", "/usr/bin/python3", "python with numpy")
	data := flag.String("data", "../shared/datasets", "shared data sets")
	skipPeer := flag.Bool("no-peer", false, "skip the numpy comparison")
	onlyPeer := flag.Bool("only-peer", false, "run only the numpy comparison")
	flag.Parse()
	fmt.Printf("GOMAXPROCS %d, %s\n\n", runtime.GOMAXPROCS(0), time.Now().UTC().Format("2006-01-02"))
	if !*onlyPeer {
		throughput(*n)
		emCost(*big)
	}
	if !*skipPeer {
		peer(*python, *data)
	}
}

// synthetic returns standardised-like original and masked files (masked = original +
// N(0, 0.1²) noise), column-major.
func synthetic(n, d int, seed uint64) (o, m [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	o, m = make([][]float64, d), make([][]float64, d)
	for k := range d {
		o[k], m[k] = make([]float64, n), make([]float64, n)
		for i := range n {
			o[k][i] = rng.NormFloat64()
			m[k][i] = o[k][i] + 0.1*rng.NormFloat64()
		}
	}
	return o, m
}

func problem(o, m [][]float64, quantiles []float64) linkage.PRLProblem {
	n := len(o[0])
	p := linkage.PRLProblem{TrueMasked: make([]int, n), TrueOriginal: make([]int, n)}
	for i := range n {
		p.TrueMasked[i], p.TrueOriginal[i] = i, i
	}
	for k := range o {
		p.Attributes = append(p.Attributes, linkage.PRLAttribute{Name: fmt.Sprint(k), Rule: linkage.Rule{Kind: linkage.RuleBands, Quantiles: quantiles},
			Original: o[k], Masked: m[k]})
	}
	return p
}

func throughput(n int) {
	o, m := synthetic(n, 13, 1)
	pairs := float64(n) * float64(n)
	p := problem(o, m, []float64{0.01, 0.1})
	// Thresholds first (exact quantiles), then counting with fixed thresholds.
	t0 := time.Now()
	_, cuts, err := linkage.CountPatterns(problem(o, m, []float64{0.01, 0.1}), 0)
	_ = cuts
	check(err)
	tq := time.Since(t0)
	for k := range p.Attributes {
		p.Attributes[k].Rule = linkage.Rule{Kind: linkage.RuleBands, Thresholds: cuts[k]}
	}
	t0 = time.Now()
	pc, _, err := linkage.CountPatterns(p, 0)
	check(err)
	tc := time.Since(t0)
	t0 = time.Now()
	_, err = distances.Search(m, o, p.TrueOriginal, distances.NewEuclidean(13), distances.Settings{})
	check(err)
	ts := time.Since(t0)
	fmt.Printf("## counting throughput, %d x %d synthetic records, 13 attributes, 3 levels (quantiles 0.01, 0.1)\n\n", n, n)
	fmt.Println("| step | time | pairs/s | ratio to DBRL core |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| DBRL core, distances.Search Euclidean | %.2f s | %.3g | 1 |\n", ts.Seconds(), pairs/ts.Seconds())
	fmt.Printf("| PRL pattern counting (%d patterns) | %.2f s | %.3g | %.2f× slower |\n", len(pc.Codes), tc.Seconds(), pairs/tc.Seconds(), tc.Seconds()/ts.Seconds())
	fmt.Printf("| PRL quantiles + counting | %.2f s | %.3g | %.2f× slower |\n\n", tq.Seconds(), pairs/tq.Seconds(), tq.Seconds()/ts.Seconds())
}

func emCost(big int) {
	fmt.Println("## one EM iteration: 10^6 versus 10^9 pairs (8 attributes, 3 levels, 6561 possible patterns)")
	fmt.Println()
	fmt.Println("| pairs | counting | patterns | 50 EM iterations | per iteration |")
	fmt.Println("|---|---|---|---|---|")
	for _, n := range []int{1000, big} {
		o, m := synthetic(n, 8, 2)
		p := problem(o, m, []float64{0.05, 0.3})
		t0 := time.Now()
		pc, _, err := linkage.CountPatterns(p, 0)
		check(err)
		tc := time.Since(t0)
		t0 = time.Now()
		r, err := linkage.EM(pc.Table(), linkage.EMSettings{P: 1 / float64(n), MaxIterations: 50, Tolerance: -1})
		check(err)
		te := time.Since(t0)
		fmt.Printf("| %.3g | %.2f s | %d | %.2f ms | %.1f µs |\n", float64(pc.Pairs), tc.Seconds(), len(pc.Codes),
			te.Seconds()*1e3, te.Seconds()*1e6/float64(r.Iterations))
	}
	fmt.Println()
}

type peerResult struct {
	Seconds        float64     `json:"seconds"`
	CompareSeconds float64     `json:"compare_seconds"`
	Pairs          float64     `json:"pairs"`
	Cuts           [][]float64 `json:"cuts"`
	M, U           [][]float64
}

func peer(python, data string) {
	script := filepath.Join(os.TempDir(), fmt.Sprintf("reid-prl-peer-%d.py", os.Getpid()))
	check(os.WriteFile(script, peerScript, 0o600))
	defer os.Remove(script)
	fmt.Println("## end to end against a per-pair numpy EM (same thresholds, start and iterations; p fixed at 1/n)")
	fmt.Println()
	fmt.Println("| data | pairs | Go end to end | of which EM | iterations | numpy per pair | of which comparison | speed-up | max |Δm|, |Δu| | max rel. Δ threshold |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, set := range []string{"census", "eia"} {
		orig := filepath.Join(data, set, "original.csv")
		masked := filepath.Join(data, set, "masked", "noise_additive_10.csv")
		if _, err := os.Stat(masked); err != nil {
			fmt.Printf("| %s | skipped: %v |\n", set, err)
			continue
		}
		t0 := time.Now()
		o, m := loadPair(orig, masked)
		p := problem(o, m, []float64{0.01, 0.1})
		pc, cuts, err := linkage.CountPatterns(p, 0)
		check(err)
		t1 := time.Now()
		r, err := linkage.EM(pc.Table(), linkage.EMSettings{P: float64(pc.TruePairs) / float64(pc.Pairs)})
		check(err)
		goTime := time.Since(t0)
		emTime := time.Since(t1)
		out, err := exec.Command(python, script, orig, masked, "0.01,0.1", fmt.Sprint(r.Iterations)).Output()
		check(err)
		var pr peerResult
		check(json.Unmarshal(out, &pr))
		maxD := 0.0
		for k := range r.M {
			for l := range r.M[k] {
				maxD = math.Max(maxD, math.Max(math.Abs(r.M[k][l]-pr.M[k][l]), math.Abs(r.U[k][l]-pr.U[k][l])))
			}
		}
		// The z-scores differ in the last bits (numpy sums differently), so the thresholds
		// agree to rounding, not bit for bit.
		relCut := 0.0
		for k := range cuts {
			for x := range cuts[k] {
				relCut = math.Max(relCut, math.Abs(cuts[k][x]-pr.Cuts[k][x])/cuts[k][x])
			}
		}
		fmt.Printf("| %s | %.3g | %.3f s | %.3f s | %d | %.2f s | %.2f s | **%.0f×** | %.1e | %.1e |\n", set, float64(pc.Pairs), goTime.Seconds(),
			emTime.Seconds(), r.Iterations, pr.Seconds, pr.CompareSeconds, pr.Seconds/goTime.Seconds(), maxD, relCut)
	}
	fmt.Println()
}

// loadPair loads an original and a masked file and z-scores both with the original's
// means and sds: reid link --method prl compares numeric attributes on the original's
// scale (|dz| the raw difference over the original's sd), and so does the peer.
func loadPair(origPath, maskedPath string) (o, m [][]float64) {
	ot, err := datasets.Load(origPath, datasets.LoadOptions{})
	check(err)
	mt, err := datasets.Load(maskedPath, datasets.LoadOptions{})
	check(err)
	zo, err := datasets.Standardize(ot, datasets.StandardizeOptions{})
	check(err)
	zm, err := datasets.StandardizeLike(mt, zo)
	check(err)
	o, err = zo.Table.NumericMatrix()
	check(err)
	m, err = zm.Table.NumericMatrix()
	check(err)
	return o, m
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/prl:", err)
		os.Exit(1)
	}
}
