package optimize

import (
	"cmp"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPerfCase runs one case when REID_PERF=file:n:family:seconds is set (for profiling):
// REID_PERF=rankswap_p15:100:wm:30 go test -run TestPerfCase -cpuprofile cpu.out ./optimize
// REID_PERF_CLP_MASTER=1 solves the master with CLP whatever N (to compare engines);
// REID_PERF_SEED sets Settings.Seed (the line search's kicks), REID_PERF_THREADS
// Settings.Threads; REID_PERF_WORK=1 makes the seconds a work limit (Settings.WorkLimit).
func TestPerfCase(t *testing.T) {
	spec := os.Getenv("REID_PERF")
	if spec == "" {
		t.Skip("REID_PERF not set")
	}
	parts := strings.Split(spec, ":")
	if len(parts) != 4 {
		t.Fatalf("REID_PERF=%q: want file:n:family:seconds", spec)
	}
	n, _ := strconv.Atoi(parts[1])
	f, err := ParseFamily(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	sec, _ := strconv.ParseFloat(parts[3], 64)
	seed, _ := strconv.ParseInt(os.Getenv("REID_PERF_SEED"), 10, 64)
	p := census(t, parts[0], n)
	p.Family = f
	start := time.Now()
	s := Settings{TimeLimit: time.Duration(sec * float64(time.Second))}
	if os.Getenv("REID_PERF_WORK") != "" {
		s = Settings{WorkLimit: sec}
	}
	s.clpMaster, s.Seed = os.Getenv("REID_PERF_CLP_MASTER") != "", seed
	s.Threads, _ = strconv.Atoi(os.Getenv("REID_PERF_THREADS"))
	s.Progress = func(r Report) {
		t.Logf("%6.1fs inc %d bound %d gap %.3f nodes %d", r.Elapsed.Seconds(), r.Incumbent, r.Bound, r.Gap, r.Nodes)
	}
	res, err := Learn(p, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v links %d bound %d gap %.3f in %v; %+v", spec, res.Status, res.CorrectLinks, res.Bound, res.Gap, time.Since(start).Round(time.Millisecond), res.Stats)
}

// BenchmarkBlockBounds times the block phase (blocks.go) of a whole CENSUS file, after the
// one-record checks, with the blocks of a batch searched on one goroutine and on two; both
// must end with the same rows. REID_BENCH_BLOCKS=file:family (default
// noise_correlated_50:owa):
// go test -run XXX -bench BlockBounds -benchtime 1x ./optimize
func BenchmarkBlockBounds(b *testing.B) {
	spec := cmp.Or(os.Getenv("REID_BENCH_BLOCKS"), "noise_correlated_50:owa")
	file, family, _ := strings.Cut(spec, ":")
	f, err := ParseFamily(family)
	if err != nil {
		b.Fatal(err)
	}
	p := census(b, file, 1080)
	p.Family = f
	lb := map[int]int{}
	for _, threads := range []int{1, 2} {
		b.Run("threads="+strconv.Itoa(threads), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				sv := testSolver(b, p, DefaultEpsilon, 0)
				sv.threads = threads
				sv.twinCuts()
				sv.checkAlone()
				b.StartTimer()
				sv.blockBounds()
				b.StopTimer()
				lb[threads] = sv.blockLB()
				b.ReportMetric(float64(sv.stats.Blocks), "blocks")
				b.ReportMetric(float64(len(sv.d.recs)-lb[threads]), "bound")
				b.StartTimer()
			}
		})
	}
	if lb[1] != lb[2] {
		b.Errorf("block bounds differ: %d failures on one goroutine, %d on two", lb[1], lb[2])
	}
}
