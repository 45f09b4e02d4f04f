package optimize

import (
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/reid-sdc/reid/internal/workers"
)

// TestRecomputedRows: past the stored-rows budget the rows of WM and OWA records are
// dropped after their filter and recomputed where read. Every recomputed row equals the
// stored one to the bit, and Learn takes the same path with either (same parameters,
// links, bound, nodes and LP iterations), so large files trade speed, not answers, for
// memory.
func TestRecomputedRows(t *testing.T) {
	for _, c := range []struct {
		file   string
		n      int
		family Family
	}{
		{"rankswap_p15", 60, WM},
		{"noise_additive_50", 60, OWA},
	} {
		p := census(t, c.file, c.n)
		p.Family = c.family
		sp, err := newSpace(p.Family, len(p.Queries))
		if err != nil {
			t.Fatal(err)
		}
		never := func() bool { return false }
		stored, _, err := prepareUntil(p, sp, DefaultEpsilon, 2, never, rowBudget{math.MaxInt64, math.MaxInt64})
		if err != nil {
			t.Fatal(err)
		}
		lazy, _, err := prepareUntil(p, sp, DefaultEpsilon, 2, never, rowBudget{math.MaxInt64, 1})
		if err != nil {
			t.Fatal(err)
		}
		recomputed := 0
		for i := range stored.recs {
			s, l := &stored.recs[i], &lazy.recs[i]
			if !reflect.DeepEqual(s.candRef, l.candRef) || s.impossible != l.impossible {
				t.Fatalf("%s %v record %d: candidates differ", c.file, c.family, i)
			}
			if l.cand == nil && l.ncand() > 0 {
				recomputed++
			}
			for j := range s.ncand() {
				a, b := stored.candRow(s, j, nil), lazy.candRow(l, j, nil)
				for k := range a {
					if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
						t.Fatalf("%s %v record %d row %d: %v recomputed as %v", c.file, c.family, i, j, a, b)
					}
				}
			}
		}
		if recomputed < len(lazy.recs)/2 {
			t.Fatalf("%s %v: only %d of %d records' rows recomputed", c.file, c.family, recomputed, len(lazy.recs))
		}
		want, err := Learn(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Learn(p, Settings{storedRowsBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %v: %d links, bound %d, %d nodes, %d LP iterations", c.file, c.family, want.CorrectLinks, want.Bound, want.Stats.Nodes, want.Stats.LPIterations)
		if !reflect.DeepEqual(want.Params, got.Params) || want.CorrectLinks != got.CorrectLinks || want.Bound != got.Bound ||
			want.Stats.Nodes != got.Stats.Nodes || want.Stats.LPIterations != got.Stats.LPIterations {
			t.Errorf("%s %v: recomputed rows: %d links, bound %d, %d nodes, %d LP iterations; stored: %d, %d, %d, %d",
				c.file, c.family, got.CorrectLinks, got.Bound, got.Stats.Nodes, got.Stats.LPIterations,
				want.CorrectLinks, want.Bound, want.Stats.Nodes, want.Stats.LPIterations)
		}
	}
}

// panickySpace is a family whose reductions panic on one record: a bug in a worker.
type panickySpace struct {
	space
	at int
}

func (s panickySpace) prepare(d *data, r *rec, w *prepWorker) {
	if r.q == s.at {
		panic("prepare: record " + strconv.Itoa(r.q))
	}
	s.space.prepare(d, r, w)
}

// TestPrepareRaisesWorkersPanic: a panic in a worker preparing rows is raised again on
// the goroutine that called prepareUntil (so the binary ends with exit code 3, not Go's
// 2), after the feeder stopped, whichever record fails and with any number of workers:
// the feeder must not wait on an unbuffered channel no worker reads any more.
func TestPrepareRaisesWorkersPanic(t *testing.T) {
	const n = 40
	x := [][]float64{make([]float64, n), make([]float64, n)}
	for i := range n {
		x[0][i], x[1][i] = float64(i), float64(i*i%7)
	}
	p := Problem{Queries: x, Refs: x, Truth: identity(n), Family: WM}
	for _, threads := range []int{1, 2, 4} {
		for _, at := range []int{0, n / 2, n - 1} {
			sp, err := newSpace(WM, 2)
			if err != nil {
				t.Fatal(err)
			}
			got := func() (v any) {
				defer func() { v = recover() }()
				prepareUntil(p, panickySpace{sp, at}, DefaultEpsilon, threads, func() bool { return false }, rowBudget{math.MaxInt64, storedRowsBytes})
				return nil
			}()
			want := "prepare: record " + strconv.Itoa(at)
			if p, ok := got.(*workers.Panic); !ok || p.Value != want {
				t.Errorf("threads %d, record %d: prepareUntil panicked with %v, want a *workers.Panic of %q", threads, at, got, want)
			}
		}
	}
}
