// Command pairwise benchmarks the pairwise core, distances.Search: pairs per second for each
// operator, the fraction of this machine's limit for the squared-Euclidean kernel, and the
// ratio to scikit-learn's pairwise_distances_argmin_min on the same data, all measured in
// one invocation (the machine is shared, so only ratios taken together are meaningful).
//
//	go run ./bench/pairwise [-n 20000,50000] [-d 13] [-ops euclidean,wm,bilinear,mahalanobis,owa,choquet]
//	                        [-reps 5] [-peer=true] [-python /usr/bin/python3] [-big 200000]
//	                        [-generic=true] [-diagnose=true] [-budget 2m] [-seed 1] [-noise 0.3]
//
// Data: M references with correlated attributes and N = M queries that are the references
// plus noise·N(0, 1) (truth[i] = i), each file standardised on its own; operators with
// random non-trivial parameters (see buildOps). Embedder operators run best of -reps (more
// while other processes disturb the run), their main runs taking turns, one of each
// operator per round; OWA and Choquet run once, after a pilot whose extrapolation must fit
// in -budget.
//
// The limit: the kernel evaluates |q − r|² = |q|² + |r|² − 2·q·r with d fused multiply-adds
// per pair, 8 float64 pairs per 512-bit FMA, so
//
//	limit = cores · FMA ports (2) · 8 lanes · clock / d   pairs per second,
//
// where the clock is the larger of a calibrated chain of dependent one-cycle integer
// operations and the measured register-only zmm FMA rate divided by cores · ports (a core
// cannot retire more than `ports` FMAs per cycle). The report also gives the fraction of
// the measured zmm FMA rate itself.
//
// The peer (peer.py, embedded) needs Debian's python3-sklearn; it runs with
// OPENBLAS_CORETYPE=SkylakeX (Debian's OpenBLAS 0.3.21 does not recognise Sapphire Rapids
// and would fall back to Haswell kernels) and as many OpenMP/OpenBLAS threads as
// GOMAXPROCS. The 200,000 × 200,000 Euclidean run (-big) executes in a child process
// (this binary re-executed with -child-big), which reports its own peak resident set
// (VmHWM) at the end.
package main

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/reid-sdc/reid/bench"
	"github.com/reid-sdc/reid/distances"
)

//go:embed peer.py
var peerScript []byte

type config struct {
	sizes    []int
	d        int
	ops      []string
	reps     int
	peer     bool
	python   string
	big      int
	seed     uint64
	budget   time.Duration
	pilot    int
	noise    float64
	diagnose bool
	generic  bool
}

func main() {
	var cfg config
	sizes := flag.String("n", "20000,50000", "comma-separated N (= M): queries and references")
	flag.IntVar(&cfg.d, "d", 13, "attributes")
	ops := flag.String("ops", allOps, "comma-separated operators")
	flag.IntVar(&cfg.reps, "reps", 5, "repetitions of each accelerated run (best is kept); OWA and Choquet run once")
	flag.BoolVar(&cfg.peer, "peer", true, "run the scikit-learn peer")
	flag.StringVar(&cfg.python, "python", "/usr/bin/python3", "Python interpreter with Debian's python3-sklearn")
	flag.IntVar(&cfg.big, "big", 200_000, "N = M of the peak-memory Euclidean run in a child process (0: skip)")
	flag.Uint64Var(&cfg.seed, "seed", 1, "seed of the generated data and operators")
	flag.DurationVar(&cfg.budget, "budget", 2*time.Minute, "skip an OWA/Choquet run whose time, extrapolated from a pilot, exceeds this")
	flag.IntVar(&cfg.pilot, "pilot", 1000, "queries in the OWA/Choquet pilot run")
	flag.Float64Var(&cfg.noise, "noise", 0.3, "standard deviation of the masking noise added to the references")
	flag.BoolVar(&cfg.generic, "generic", true, "also time Euclidean on the portable Go kernel")
	flag.BoolVar(&cfg.diagnose, "diagnose", true, "also time Euclidean with 1 thread and without truth (breakdown rows)")
	childBig := flag.Int("child-big", 0, "internal: run the peak-memory search of this size and report")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatal(err)
		}
		defer pprof.StopCPUProfile()
	}

	if *childBig > 0 {
		runBigChild(*childBig, cfg.d, cfg.seed, cfg.noise)
		return
	}
	var err error
	if cfg.sizes, err = parseSizes(*sizes); err != nil {
		fatal(err)
	}
	for _, op := range strings.Split(*ops, ",") {
		if op = strings.TrimSpace(op); op != "" {
			if !knownOp(op) {
				fatal(fmt.Errorf("unknown operator %q", op))
			}
			cfg.ops = append(cfg.ops, op)
		}
	}
	if cfg.d < 2 || cfg.reps < 1 {
		fatal(errors.New("need -d ≥ 2 and -reps ≥ 1"))
	}
	run(&cfg)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "pairwise:", err)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pairwise: "+format+"\n", args...)
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("no sizes")
	}
	return out, nil
}

// row is one line of the result table.
type row struct {
	n       int
	op      string
	variant string // kernel / settings
	t       timing // best time; for a skipped run, the extrapolated time
	pairsPS float64
	skipped bool
	note    string
	target  bool // a row the targets apply to
	setup   bool // a fixed-cost row: time only
}

type peerResult struct {
	Seconds     float64          `json:"seconds"`
	Others      float64          `json:"others"`
	Runs        int              `json:"runs"`
	Sklearn     string           `json:"sklearn"`
	Numpy       string           `json:"numpy"`
	Python      string           `json:"python"`
	Threadpools []map[string]any `json:"threadpools"`
	index       []int            // nearest reference of each query (last repetition)
	err         error
	agreement   agreement
}

// linkStats summarises the Euclidean results: how realistic the generated masking is.
type linkStats struct {
	n        int
	linked   int // true partner in the anonymity set
	meanRank float64
}

func run(cfg *config) {
	threads := runtime.GOMAXPROCS(0)
	logf("measuring the clock and the zmm FMA throughput...")
	mach := measureMachine(threads)
	limit := mach.limit(cfg.d)
	logf("clock %.3f GHz (dependent adds: %.3f GHz), zmm FMA %.2f per ns on %d cores; limit %.3g pairs/s",
		mach.clockGHz, mach.chainGHz, mach.fmaPerNs, threads, limit)

	var rows []row
	peers := map[int]*peerResult{}
	links := map[int]linkStats{}
	for _, n := range cfg.sizes {
		logf("N = M = %d, d = %d: generating data", n, cfg.d)
		data := generate(n, n, cfg.d, cfg.seed, cfg.noise)
		ops, err := buildOps(cfg.ops, cfg.d, cfg.seed, data)
		if err != nil {
			fatal(err)
		}
		// One untimed search first: the first timed operator was otherwise 5-15 % slower
		// than the same operator timed later in the run (runs with the order of -ops
		// permuted), a warm-up the best of several runs did not remove.
		for _, op := range ops {
			if _, embedded := op.(distances.Embedder); embedded {
				if _, err := distances.Search(data.queries, data.refs, data.truth, op, distances.Settings{}); err != nil {
					fatal(err)
				}
				break
			}
		}
		var ourEuclid []distances.QueryResult
		add := func(op, variant, note string, t timing, target bool) {
			logf("  %-11s %-38s %.3f s (best of %d; other load %s cores)", op, variant, t.secs, t.runs, load(t.others))
			rows = append(rows, row{n: n, op: op, variant: variant, t: t, pairsPS: pairs(n, n) / t.secs, note: note, target: target})
		}
		// The main rows' runs take turns (one run of each embedder operator per round), so
		// that each operator's best is taken over the same stretch of time: on this shared
		// host a busy spell of a few seconds otherwise fell on all the runs of one operator.
		var embedders []distances.Operator
		for _, op := range ops {
			if _, embedded := op.(distances.Embedder); embedded {
				embedders = append(embedders, op)
			}
		}
		mainRes, mainTimes := timeSearchesInTurn(data, embedders, cfg.reps, 3*cfg.reps)
		x := 0 // the index in embedders of the next embedder op, which keeps ops' order
		for _, op := range ops {
			name := op.Name()
			if _, embedded := op.(distances.Embedder); !embedded {
				// OWA and Choquet: the sorting-network kernel, then the pair-by-pair path
				// it replaced (Settings.Generic), in the same run for their ratio.
				rows = append(rows, timePairwise(cfg, data, op, n, distances.Settings{}, "sorting network on blocks, all cores"))
				rows = append(rows, timePairwise(cfg, data, op, n, distances.Settings{Generic: true}, "pair by pair, all cores"))
				continue
			}
			res, t := mainRes[x], mainTimes[x]
			x++
			add(name, "accelerated, all cores", "", t, name != "mahalanobis")
			if name != "euclidean" {
				continue
			}
			ourEuclid = res
			links[n] = summarise(res)
			if cfg.generic {
				_, t = timeSearch(data, op, distances.Settings{Generic: true}, cfg.reps, 3*cfg.reps, true)
				add(name, "portable Go kernel, all cores", "", t, false)
			}
			if cfg.diagnose {
				_, t = timeSearch(data, op, distances.Settings{Threads: 1}, cfg.reps, 3*cfg.reps, true)
				add(name, "accelerated, 1 thread", "thread scaling", t, false)
				_, t = timeSearch(data, op, distances.Settings{}, cfg.reps, 3*cfg.reps, false)
				add(name, "accelerated, all cores, truth = nil", "no rank of the true partner", t, false)
				t = timeSetup(data, op, cfg.reps)
				logf("  %-11s %-38s %.3f s", name, "setup (N×8 + 8×M searches)", t.secs)
				rows = append(rows, row{n: n, op: name, variant: "setup only: Search of N×8 plus 8×M", t: t, note: "transform of both files, per-query work; pairs/s not meaningful", setup: true})
			}
		}
		if cfg.peer {
			logf("  sklearn peer...")
			p := runPeer(cfg, data)
			if p.err == nil && ourEuclid != nil {
				p.agreement = compareNearest(data, ourEuclid, p.index)
			}
			if p.err != nil {
				logf("  sklearn peer failed: %v", p.err)
			} else {
				logf("  sklearn: %.3f s (best of %d; other load %s cores)", p.Seconds, p.Runs, load(p.Others))
			}
			peers[n] = p
		}
	}

	var big *bigResult
	if cfg.big > 0 {
		logf("peak-memory run: %d × %d × %d Euclidean in a child process...", cfg.big, cfg.big, cfg.d)
		b, err := runBig(cfg)
		if err != nil {
			logf("big run failed: %v", err)
		}
		big = b
	}
	report(cfg, mach, limit, rows, peers, links, big)
}

func summarise(res []distances.QueryResult) linkStats {
	s := linkStats{n: len(res)}
	for i := range res {
		if res[i].TrueInTies() {
			s.linked++
		}
		s.meanRank += float64(res[i].TrueRank)
	}
	s.meanRank /= float64(max(1, len(res)))
	return s
}

func pairs(n, m int) float64 { return float64(n) * float64(m) }

// noisyCores is the load of other processes (cores) above which a repetition counts as
// disturbed: timeSearch then runs extra repetitions.
const noisyCores = 0.1

// minLoadSecs is the shortest run over which the other processes' load is measured
// (/proc/stat counts in 10 ms ticks per core, so over 0.1 s the load is known to about
// 0.1 core per core). It was 0.2 s, which left the N = 20,000 searches (0.14 s since the
// kernel filters in registers) without a load figure and so without the extra runs that
// a disturbed best run calls for.
const minLoadSecs = 0.1

// timing is the best of several timed runs and the other processes' load during it.
type timing struct {
	secs   float64
	others float64 // cores kept busy by other processes (−1: unknown)
	runs   int
}

// timeSearch runs Search reps times (more while the best run was disturbed by other
// processes, up to maxRuns) and returns the results of the last run and the best time.
func timeSearch(data *dataset, op distances.Operator, s distances.Settings, reps, maxRuns int, withTruth bool) ([]distances.QueryResult, timing) {
	truth := data.truth
	if !withTruth {
		truth = nil
	}
	best := timing{secs: math.Inf(1)}
	var res []distances.QueryResult
	for best.runs < reps || (best.others > noisyCores && best.runs < maxRuns) {
		res = nil
		runtime.GC()
		a := sampleCPU()
		start := time.Now()
		r, err := distances.Search(data.queries, data.refs, truth, op, s)
		secs := time.Since(start).Seconds()
		b := sampleCPU()
		if err != nil {
			fatal(err)
		}
		res = r
		best.runs++
		if secs < best.secs {
			best.secs, best.others = secs, othersLoad(a, b)
			if secs < minLoadSecs {
				best.others = math.NaN() // below the resolution of /proc/stat; no extra runs
			}
		}
	}
	return res, best
}

// timeSearchesInTurn times Search (all cores, with truth) of each operator in rounds, one
// run of each per round, until each has reps runs and, while its best run was disturbed
// by other processes, up to maxRuns; it returns each operator's last results and best time.
func timeSearchesInTurn(data *dataset, ops []distances.Operator, reps, maxRuns int) ([][]distances.QueryResult, []timing) {
	res := make([][]distances.QueryResult, len(ops))
	best := make([]timing, len(ops))
	for x := range best {
		best[x].secs = math.Inf(1)
	}
	for {
		more := false
		for x, op := range ops {
			b := &best[x]
			if b.runs >= reps && !(b.others > noisyCores && b.runs < maxRuns) {
				continue
			}
			more = true
			res[x] = nil
			r, t := timeSearch(data, op, distances.Settings{}, 1, 1, true)
			res[x] = r
			b.runs++
			if t.secs < b.secs {
				b.secs, b.others = t.secs, t.others
			}
		}
		if !more {
			return res, best
		}
	}
}

// timeSetup measures the fixed cost of a Search that does not depend on N·M: the sum of
// the best times of Search(all queries, 8 references) and Search(8 queries, all
// references), i.e. transforming both files, allocating the results and the per-query and
// per-block bookkeeping, with a negligible 8·(N + M) pairs.
func timeSetup(data *dataset, op distances.Operator, reps int) timing {
	const few = 8
	fewRefs := &dataset{n: data.n, m: few, d: data.d, queries: data.queries, refs: make([][]float64, data.d)}
	fewQueries := data.head(few)
	for k := range fewRefs.refs {
		fewRefs.refs[k] = data.refs[k][:few]
	}
	_, a := timeSearch(fewRefs, op, distances.Settings{}, reps, reps, false)
	_, b := timeSearch(fewQueries, op, distances.Settings{}, reps, reps, true)
	return timing{secs: a.secs + b.secs, others: math.NaN(), runs: a.runs}
}

// timePairwise times a pair-by-pair operator once, after a pilot on cfg.pilot queries
// whose extrapolation decides whether the full run fits in the budget.
func timePairwise(cfg *config, data *dataset, op distances.Operator, n int, s distances.Settings, variant string) row {
	name := op.Name()
	r := row{n: n, op: name, variant: variant}
	if p := min(cfg.pilot, data.n); p < data.n {
		sub := data.head(p)
		_, t := timeSearch(sub, op, s, 1, 1, true)
		est := t.secs * float64(data.n) / float64(p)
		logf("  %-11s pilot of %d queries: %.3f s, full run estimated %.0f s", name, p, t.secs, est)
		if est > cfg.budget.Seconds() {
			r.skipped = true
			r.t = timing{secs: est, others: t.others, runs: 0}
			r.pairsPS = pairs(p, data.m) / t.secs
			r.note = fmt.Sprintf("**not run**: estimated %.0f s > %s; pairs/s from a %s-query pilot", est, cfg.budget, comma(p))
			return r
		}
	}
	_, t := timeSearch(data, op, s, 1, 1, true)
	logf("  %-11s %-38s %.3f s (other load %s cores)", name, r.variant, t.secs, load(t.others))
	r.t, r.pairsPS = t, pairs(data.n, data.m)/t.secs
	r.note = "one run"
	return r
}

// ---------------------------------------------------------------------------------------
// Data and operators.

// dataset is a reference file and its masked version, column-major (x[attr][record]),
// each standardised on its own (mean 0, standard deviation 1 per attribute).
type dataset struct {
	n, m, d int
	queries [][]float64
	refs    [][]float64
	truth   []int
}

// head returns the dataset restricted to its first p queries (sharing the columns).
func (ds *dataset) head(p int) *dataset {
	q := make([][]float64, ds.d)
	for k := range q {
		q[k] = ds.queries[k][:p]
	}
	return &dataset{n: p, m: ds.m, d: ds.d, queries: q, refs: ds.refs, truth: ds.truth[:p]}
}

// generate draws m references with correlated attributes (a common factor with random
// loadings in [0, 0.8] plus independent normal noise), masks them by adding noise·N(0, 1)
// to every value (the first n records are the queries, truth[i] = i), and standardises
// both files. It is deterministic for a given seed.
func generate(n, m, d int, seed uint64, noise float64) *dataset {
	if n > m {
		panic("generate: more queries than references")
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	load := make([]float64, d)
	for k := range load {
		load[k] = 0.8 * rng.Float64()
	}
	refs := make([][]float64, d)
	queries := make([][]float64, d)
	for k := range refs {
		refs[k] = make([]float64, m)
		queries[k] = make([]float64, n)
	}
	for j := 0; j < m; j++ {
		f := rng.NormFloat64()
		for k := 0; k < d; k++ {
			refs[k][j] = load[k]*f + rng.NormFloat64()
		}
	}
	for k := 0; k < d; k++ {
		for i := 0; i < n; i++ {
			queries[k][i] = refs[k][i] + noise*rng.NormFloat64()
		}
		standardise(refs[k])
		standardise(queries[k])
	}
	truth := make([]int, n)
	for i := range truth {
		truth[i] = i
	}
	return &dataset{n: n, m: m, d: d, queries: queries, refs: refs, truth: truth}
}

func standardise(x []float64) {
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(len(x)))
	if sd == 0 {
		sd = 1
	}
	for i, v := range x {
		x[i] = (v - mean) / sd
	}
}

const allOps = "euclidean,wm,bilinear,mahalanobis,owa,choquet"

func knownOp(name string) bool {
	switch name {
	case "euclidean", "wm", "bilinear", "mahalanobis", "owa", "choquet":
		return true
	}
	return false
}

// buildOps returns the requested operators with random non-trivial parameters drawn from
// seed (the same for every N).
func buildOps(names []string, d int, seed uint64, data *dataset) ([]distances.Operator, error) {
	var ops []distances.Operator
	for _, name := range names {
		// Each operator draws from its own stream, so its parameters do not depend on
		// which other operators are benchmarked.
		rng := rand.New(rand.NewPCG(seed, opStream(name)))
		var op distances.Operator
		var err error
		switch name {
		case "euclidean":
			op = distances.NewEuclidean(d)
		case "wm":
			op, err = distances.NewWeightedMean(randomSimplex(rng, d))
		case "bilinear":
			op, err = distances.NewBilinear(randomPSD(rng, d))
		case "mahalanobis":
			// The record-linkage variant: Σ of the differences between true pairs.
			op, err = distances.NewMahalanobis(distances.TruePairCovariance(data.refs, data.queries, data.truth))
		case "owa":
			op, err = distances.NewOWA(randomSimplex(rng, d))
		case "choquet":
			var mu []float64
			if mu, err = randomMeasure(rng, d); err == nil {
				op, err = distances.NewChoquet(mu, d)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// opStream is the random stream of an operator's parameters: an FNV-1a hash of its name.
func opStream(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// randomSimplex returns d weights in [0.25, 1.25) normalised to sum 1: non-uniform, none
// negligible.
func randomSimplex(rng *rand.Rand, d int) []float64 {
	w := make([]float64, d)
	s := 0.0
	for i := range w {
		w[i] = 0.25 + rng.Float64()
		s += w[i]
	}
	for i := range w {
		w[i] /= s
	}
	return w
}

// randomPSD returns W = AᵀA/trace(AᵀA) for a d×d standard normal A: positive definite
// with full-rank correlations between the attributes.
func randomPSD(rng *rand.Rand, d int) *mat.SymDense {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var w mat.SymDense
	w.SymOuterK(1, a.T())
	tr := 0.0
	for i := 0; i < d; i++ {
		tr += w.At(i, i)
	}
	w.ScaleSym(1/tr, &w)
	return &w
}

// randomMeasure returns a fuzzy measure on d attributes (bitmask-indexed, len 2^d) that is
// neither additive nor symmetric: μ = ½·max(P₁, P₂) + ½·Bel, where P₁ and P₂ are additive
// measures of random simplex weights and Bel is the belief function of random masses on
// 2d random focal sets of 1 to 4 attributes (and on the whole set). Maxima of measures,
// belief functions and convex combinations of measures are monotone measures with μ(∅) = 0
// and μ(V) = 1, which NewChoquet verifies again.
func randomMeasure(rng *rand.Rand, d int) ([]float64, error) {
	if d > distances.MaxChoquetAttributes {
		return nil, fmt.Errorf("choquet: d = %d > %d", d, distances.MaxChoquetAttributes)
	}
	p1 := distances.AdditiveMeasure(randomSimplex(rng, d))
	p2 := distances.AdditiveMeasure(randomSimplex(rng, d))
	full := 1<<d - 1
	mass := make([]float64, 1<<d)
	total := 0.0
	for range 2 * d {
		size := 1 + rng.IntN(4)
		mask := 0
		for bits.OnesCount(uint(mask)) < size {
			mask |= 1 << rng.IntN(d)
		}
		v := rng.Float64()
		mass[mask] += v
		total += v
	}
	mass[full] += 0.2 * total
	total *= 1.2
	// Bel(A) = Σ_{B⊆A} m(B): the zeta transform over subsets, one attribute at a time.
	bel := mass
	for i := range bel {
		bel[i] /= total
	}
	for k := 0; k < d; k++ {
		for mask := range bel {
			if mask&(1<<k) != 0 {
				bel[mask] += bel[mask&^(1<<k)]
			}
		}
	}
	mu := make([]float64, 1<<d)
	for mask := range mu {
		mu[mask] = 0.5*math.Max(p1[mask], p2[mask]) + 0.5*bel[mask]
	}
	mu[0], mu[full] = 0, 1
	if isAdditive(mu, d) || isSymmetric(mu, d) {
		return nil, errors.New("choquet: the random measure happens to be additive or symmetric; change -seed")
	}
	return mu, nil
}

// isAdditive reports whether μ(A) = Σ_{i∈A} μ({i}) for every A (to 1e-9).
func isAdditive(mu []float64, d int) bool {
	for mask := 1; mask < 1<<d; mask++ {
		sum := 0.0
		for rest := mask; rest != 0; rest &= rest - 1 {
			sum += mu[rest&-rest]
		}
		if math.Abs(sum-mu[mask]) > 1e-9 {
			return false
		}
	}
	return true
}

// isSymmetric reports whether μ(A) depends only on |A| (to 1e-9).
func isSymmetric(mu []float64, d int) bool {
	bySize := make([]float64, d+1)
	seen := make([]bool, d+1)
	for mask := 0; mask < 1<<d; mask++ {
		k := bits.OnesCount(uint(mask))
		if !seen[k] {
			bySize[k], seen[k] = mu[mask], true
		} else if math.Abs(bySize[k]-mu[mask]) > 1e-9 {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------------------
// Machine limit.

type machine struct {
	cores    int
	clockGHz float64 // the clock the limit uses: the larger of chainGHz and fmaPerNs/(cores·ports)
	chainGHz float64 // measured: cycles per ns of a dependent one-cycle chain
	fmaPerNs float64 // measured zmm FMAs per ns, all cores at once
	ports    int     // FMA ports per core assumed by the limit
	nominal  float64 // GHz from /proc/cpuinfo
	model    string
	asm      bool
	avx512   bool
}

// limit is the pairs/s bound of the expanded squared-Euclidean kernel: d FMAs per pair,
// 8 pairs per zmm FMA, ports FMAs per cycle per core.
func (mc *machine) limit(d int) float64 {
	return float64(mc.cores) * float64(mc.ports) * 8 * mc.clockGHz * 1e9 / float64(d)
}

func measureMachine(cores int) machine {
	mc := machine{cores: cores, ports: 2, asm: haveAsm}
	mc.model, mc.nominal, mc.avx512 = cpuinfo()
	mc.clockGHz = mc.nominal
	if !mc.asm {
		return mc
	}
	// Short runs (a few ms each), many of them, on every core at once (a core running
	// alone could be clocked higher than loaded ones); the fastest run of any core is the
	// one least disturbed by other processes.
	const chainIters = 1 << 20 // 8 Mi cycles, about 4 ms
	best := parallelBest(cores, 60, func() { addChainLoop(chainIters) })
	mc.clockGHz = 8 * chainIters / best.Seconds() / 1e9
	if mc.avx512 {
		const fmaIters = 1 << 18 // 6 Mi FMAs: about 3 Mi cycles at 2 per cycle
		best = parallelBest(cores, 60, func() { zmmFMALoop(fmaIters) })
		mc.fmaPerNs = float64(cores) * 24 * fmaIters / float64(best.Nanoseconds())
		// A core retires at most `ports` FMAs per cycle, so the FMA rate bounds the clock
		// from below; take the larger estimate (the stricter limit).
		mc.chainGHz = mc.clockGHz
		mc.clockGHz = max(mc.clockGHz, mc.fmaPerNs/float64(cores*mc.ports))
	}
	return mc
}

// parallelBest runs f on n goroutines locked to OS threads at once, reps times, and
// returns the shortest single run.
func parallelBest(n, reps int, f func()) time.Duration {
	best := time.Duration(math.MaxInt64)
	var mu sync.Mutex
	for range reps {
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				t := time.Now()
				f()
				d := time.Since(t)
				mu.Lock()
				best = min(best, d)
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	return best
}

func cpuinfo() (model string, ghz float64, avx512 bool) {
	ghz = 2.0
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown", ghz, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	seenMHz := false
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "model name":
			model = val
		case "cpu MHz":
			if mhz, err := strconv.ParseFloat(val, 64); err == nil && mhz > 0 && !seenMHz {
				ghz, seenMHz = mhz/1000, true
			}
		case "flags":
			avx512 = avx512 || strings.Contains(" "+val+" ", " avx512f ")
		}
	}
	return model, ghz, avx512
}

// ---------------------------------------------------------------------------------------
// The scikit-learn peer.

func runPeer(cfg *config, data *dataset) *peerResult {
	p := &peerResult{}
	dir, err := os.MkdirTemp("", "reid-pairwise-")
	if err != nil {
		p.err = err
		return p
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "peer.py")
	qPath, rPath := filepath.Join(dir, "queries.f64"), filepath.Join(dir, "refs.f64")
	idxPath := filepath.Join(dir, "nearest.i64")
	for _, w := range []struct {
		path string
		cols [][]float64
	}{{qPath, data.queries}, {rPath, data.refs}} {
		if err := writeRowMajor(w.path, w.cols); err != nil {
			p.err = err
			return p
		}
	}
	if err := os.WriteFile(script, peerScript, 0o644); err != nil {
		p.err = err
		return p
	}
	cmd := exec.Command(cfg.python, script, qPath, rPath,
		strconv.Itoa(data.n), strconv.Itoa(data.m), strconv.Itoa(data.d), strconv.Itoa(cfg.reps), idxPath)
	threads := strconv.Itoa(runtime.GOMAXPROCS(0))
	cmd.Env = append(os.Environ(),
		// Debian's OpenBLAS misdetects this CPU; pin its best kernel, and use every core as ours.
		"OPENBLAS_CORETYPE=SkylakeX",
		"OPENBLAS_NUM_THREADS="+threads,
		"OMP_NUM_THREADS="+threads,
		"MKL_NUM_THREADS="+threads,
	)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		p.err = fmt.Errorf("%s: %w", cfg.python, err)
		return p
	}
	if err := json.Unmarshal(out, p); err != nil {
		p.err = fmt.Errorf("peer output %q: %w", out, err)
		return p
	}
	raw, err := os.ReadFile(idxPath)
	if err != nil {
		p.err = err
		return p
	}
	if len(raw) != 8*data.n {
		p.err = fmt.Errorf("peer wrote %d bytes of indices for %d queries", len(raw), data.n)
		return p
	}
	p.index = make([]int, data.n)
	for i := range p.index {
		p.index[i] = int(int64(binary.LittleEndian.Uint64(raw[8*i:])))
	}
	return p
}

// writeRowMajor writes column-major columns as a row-major little-endian float64 matrix.
func writeRowMajor(path string, cols [][]float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var b [8]byte
	for i := range cols[0] {
		for k := range cols {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(cols[k][i]))
			w.Write(b[:])
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// agreement compares our Euclidean nearest references with the peer's.
type agreement struct {
	queries     int
	disagree    int // different nearest index
	ties        int // …of which both candidates are at the same direct-form distance (tolerance)
	oursNear    int // …of which ours is strictly nearer in the direct form (peer rounding)
	peerNear    int // …of which the peer's is strictly nearer (a bug of ours), or invalid
	oursMissing int // …of which we report no nearest reference (a bug of ours)
	maxRelGap   float64
}

// compareNearest classifies every query whose nearest reference differs between ours and
// the peer's by the direct-form squared distances Σ_k (q_k − r_k)² of the two candidates.
// An exact tie is a disagreement only when the peer breaks it differently from our lowest
// index rule.
func compareNearest(data *dataset, ours []distances.QueryResult, peer []int) agreement {
	a := agreement{queries: len(ours)}
	for i, r := range ours {
		j := peer[i]
		if j == r.Nearest {
			continue
		}
		a.disagree++
		switch {
		case j < 0 || j >= data.m:
			a.peerNear++ // no valid peer answer
			continue
		case r.Nearest < 0 || r.Nearest >= data.m:
			a.oursMissing++
			continue
		}
		do, dp := direct(data, i, r.Nearest), direct(data, i, j)
		gap := math.Abs(do-dp) / math.Max(do, math.SmallestNonzeroFloat64)
		a.maxRelGap = math.Max(a.maxRelGap, gap)
		switch {
		case gap <= distances.TieTolerance:
			a.ties++
		case do < dp:
			a.oursNear++
		default:
			a.peerNear++
		}
	}
	return a
}

func direct(data *dataset, i, j int) float64 {
	s := 0.0
	for k := 0; k < data.d; k++ {
		x := data.queries[k][i] - data.refs[k][j]
		s += x * x
	}
	return s
}

// ---------------------------------------------------------------------------------------
// The peak-memory run.

type bigResult struct {
	N       int     `json:"n"`
	HWM     int64   `json:"hwm_bytes"`
	Before  int64   `json:"hwm_before_search_bytes"`
	Seconds float64 `json:"seconds"`
	Found   int     `json:"true_partner_in_ties"`
	Others  float64 `json:"others"`
}

func runBig(cfg *config) (*bigResult, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-child-big", strconv.Itoa(cfg.big), "-d", strconv.Itoa(cfg.d),
		"-seed", strconv.FormatUint(cfg.seed, 10), "-noise", strconv.FormatFloat(cfg.noise, 'g', -1, 64))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("child: %w", err)
	}
	var b bigResult
	if err := json.Unmarshal(out, &b); err != nil {
		return nil, fmt.Errorf("child output %q: %w", out, err)
	}
	return &b, nil
}

// runBigChild generates an n × n × d dataset, searches it under the Euclidean distance
// with every core and reports its own peak resident set as JSON on stdout.
func runBigChild(n, d int, seed uint64, noise float64) {
	data := generate(n, n, d, seed, noise)
	before := bench.PeakRSS()
	a := sampleCPU()
	start := time.Now()
	res, err := distances.Search(data.queries, data.refs, data.truth, distances.NewEuclidean(d), distances.Settings{})
	secs := time.Since(start).Seconds()
	others := othersLoad(a, sampleCPU())
	if err != nil {
		fatal(err)
	}
	found := 0
	for _, r := range res {
		if r.TrueInTies() {
			found++
		}
	}
	b := bigResult{N: n, HWM: bench.PeakRSS(), Before: before, Seconds: secs, Found: found, Others: others}
	if err := json.NewEncoder(os.Stdout).Encode(b); err != nil {
		fatal(err)
	}
}

// ---------------------------------------------------------------------------------------
// Report.

func report(cfg *config, mc machine, limit float64, rows []row, peers map[int]*peerResult, links map[int]linkStats, big *bigResult) {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "### Pairwise core, d = %d, %s (%d cores), %s\n\n", cfg.d, mc.model, mc.cores, time.Now().UTC().Format("2006-01-02"))
	if fp := sourceFingerprint(); fp != "" {
		fmt.Fprintf(w, "Measured code: %s, %s.\n", fp, runtime.Version())
	}
	fmt.Fprintf(w, "Limit of the squared-Euclidean kernel: %d cores × %d FMA ports × 8 lanes × %.2f GHz / %d FMA per pair = **%s pairs/s**.\n",
		mc.cores, mc.ports, mc.clockGHz, cfg.d, si(limit))
	if mc.asm && mc.fmaPerNs > 0 {
		fmt.Fprintf(w, "Clock: %.2f GHz, the larger of two measurements taken on every core at once (fastest of 60 short runs): a dependent chain of one-cycle integer operations ran at %.2f GHz, and register-only zmm FMAs at %.2f per ns, i.e. %.2f per cycle per core at %.2f GHz (at most %d per cycle, so at least %.2f GHz). /proc/cpuinfo says %.2f GHz: the vCPUs run above it.\n",
			mc.clockGHz, mc.chainGHz, mc.fmaPerNs, mc.fmaPerNs/mc.chainGHz/float64(mc.cores), mc.chainGHz, mc.ports, mc.fmaPerNs/float64(mc.cores*mc.ports), mc.nominal)
	} else if mc.asm {
		fmt.Fprintf(w, "Clock measured by a dependent chain of one-cycle integer operations on every core at once: %.2f GHz (/proc/cpuinfo: %.2f GHz).\n", mc.clockGHz, mc.nominal)
	} else {
		fmt.Fprintf(w, "Clock not measured on this architecture: %.2f GHz from /proc/cpuinfo.\n", mc.nominal)
	}
	fmt.Fprintf(w, "Times are the best of %d runs (more, up to %d, while other processes kept more than %.1f core busy); the runs of the \"accelerated, all cores\" rows take turns, one run of each operator per round; OWA and Choquet run once. \"other load\" is the cores other processes (and the hypervisor) took during the kept run, from /proc/stat.\n",
		cfg.reps, 3*cfg.reps, noisyCores)
	peak := mc.fmaPerNs * 1e9 * 8 / float64(cfg.d) // pairs/s at the measured zmm FMA rate
	if peak > 0 {
		fmt.Fprintf(w, "\"%% of FMA peak\" divides by the pairs/s that the measured zmm FMA rate would give, %.2f FMA/ns × 8 / %d = %s pairs/s: what AVX-512 code gets on this machine at its clock under AVX-512 load.\n", mc.fmaPerNs, cfg.d, si(peak))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| N = M | operator | kernel, settings | time (s) | pairs/s | % of limit | % of FMA peak | ÷ sklearn | other load | target (≥ 3× sklearn and ≥ 50 % of limit) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, n := range cfg.sizes {
		p := peers[n]
		var peerPS float64
		if p != nil && p.err == nil && p.Seconds > 0 {
			peerPS = pairs(n, n) / p.Seconds
		}
		for _, r := range rows {
			if r.n != n {
				continue
			}
			if r.setup {
				fmt.Fprintf(w, "| %s | %s | %s | %.3f | – | – | – | – | %s | |\n", comma(n), r.op, r.variant+"; "+r.note, r.t.secs, load(r.t.others))
				continue
			}
			timeCol := fmt.Sprintf("%.3f", r.t.secs)
			if r.skipped {
				timeCol = fmt.Sprintf("(≈ %.0f)", r.t.secs)
			}
			ratio, tgt := "–", ""
			if peerPS > 0 {
				ratio = fmt.Sprintf("%.2f×", r.pairsPS/peerPS)
			}
			frac := r.pairsPS / limit
			if r.target {
				switch {
				case peerPS == 0:
					tgt = fmt.Sprintf("%s (no peer)", mark(frac >= 0.5))
				default:
					tgt = mark(r.pairsPS/peerPS >= 3 && frac >= 0.5)
				}
			} else if r.op == "owa" || r.op == "choquet" {
				tgt = "reported"
			}
			variant := r.variant
			if r.note != "" {
				variant += "; " + r.note
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.1f %% | %s | %s | %s | %s |\n",
				comma(n), r.op, variant, timeCol, si(r.pairsPS), 100*frac, pct(r.pairsPS, peak), ratio, load(r.t.others), tgt)
		}
		if p != nil {
			if p.err != nil {
				fmt.Fprintf(w, "| %s | sklearn | failed: %v | | | | | | | |\n", comma(n), p.err)
			} else {
				fmt.Fprintf(w, "| %s | sklearn euclidean | `pairwise_distances_argmin_min`, %d threads | %.3f | %s | %.1f %% | %s | 1× | %s | |\n",
					comma(n), runtime.GOMAXPROCS(0), p.Seconds, si(peerPS), 100*peerPS/limit, pct(peerPS, peak), load(p.Others))
			}
		}
	}
	fmt.Fprintln(w)
	for _, n := range cfg.sizes {
		if l, ok := links[n]; ok {
			fmt.Fprintf(w, "N = %s, Euclidean: the true partner is in the anonymity set of %.1f %% of the queries; mean rank of the true partner %.2f.\n",
				comma(n), 100*float64(l.linked)/float64(l.n), l.meanRank)
		}
		p := peers[n]
		if p == nil || p.err != nil || p.agreement.queries == 0 {
			continue
		}
		a := p.agreement
		fmt.Fprintf(w, "N = %s: nearest reference, ours (Euclidean) vs sklearn: %d of %d differ", comma(n), a.disagree, a.queries)
		if a.disagree > 0 {
			fmt.Fprintf(w, " (%d ties within the tie tolerance broken differently, %d where ours is strictly nearer in the direct form, %d where sklearn's is, %d where ours is missing; largest relative gap %.2g)",
				a.ties, a.oursNear, a.peerNear, a.oursMissing, a.maxRelGap)
		}
		fmt.Fprintln(w, ".")
	}
	for _, n := range cfg.sizes {
		if p := peers[n]; p != nil && p.err == nil {
			pools, _ := json.Marshal(p.Threadpools)
			fmt.Fprintf(w, "\nPeer: Python %s, scikit-learn %s, NumPy %s; thread pools %s; OPENBLAS_CORETYPE=SkylakeX, OMP/OPENBLAS threads %d.\n",
				p.Python, p.Sklearn, p.Numpy, pools, runtime.GOMAXPROCS(0))
			break
		}
	}
	if big != nil {
		fmt.Fprintf(w, "\nPeak memory: %s × %s × %d Euclidean search in a child process: VmHWM **%.0f MiB** (%.0f MiB before the search; target < 1024 MiB: %s); %.1f s, %s pairs/s (other load %s); true partner in the anonymity set for %.1f %% of the queries.\n",
			comma(big.N), comma(big.N), cfg.d, float64(big.HWM)/(1<<20), float64(big.Before)/(1<<20), mark(big.HWM < 1<<30),
			big.Seconds, si(pairs(big.N, big.N)/big.Seconds), load(big.Others), 100*float64(big.Found)/float64(big.N))
	}
}

// sourceFingerprint identifies the measured version of package distances (its files are
// edited without commits): the first 12 hex digits of a SHA-256 over the names and
// contents of its non-test .go and .s files, read from the source tree this command was
// built from. Empty when the tree is not there.
func sourceFingerprint() string {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	root := filepath.Join(filepath.Dir(self), "..", "..", "distances")
	h := sha256.New()
	files := 0
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != root && e.Name() == "asm" {
				return filepath.SkipDir // the generator, a separate module
			}
			return nil
		}
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") || !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".s")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
		files++
		return nil
	})
	if err != nil || files == 0 {
		return ""
	}
	return fmt.Sprintf("distances sources sha256 %x (%d files)", h.Sum(nil)[:6], files)
}

func pct(v, of float64) string {
	if of <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", 100*v/of)
}

func load(cores float64) string {
	if cores < 0 || math.IsNaN(cores) {
		return "n/a" // unknown, or a run too short for /proc/stat's resolution
	}
	return fmt.Sprintf("%.2f", cores)
}

func mark(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// si formats a rate with an SI prefix and three significant digits.
func si(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3g G", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3g M", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3g k", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

// comma formats an integer with thousands separators.
func comma(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
