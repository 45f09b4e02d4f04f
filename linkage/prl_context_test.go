package linkage

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestPRLContextStops: a context done during a pass over the pairs ends that pass at the
// goroutines' next block of query records, and PRLContext returns no result and an error
// wrapping context.Canceled, whichever pass the cancel comes in (1 counts the patterns, 2
// weighs the pairs); an uncancelled context gives PRL's result.
func TestPRLContextStops(t *testing.T) {
	const n, threads = 3000, 2
	p := randomPRL(11, n, false)
	for _, at := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		pass, done := 0, 0
		s := PRLSettings{Threads: threads,
			Pass: func(k int, _ string) { pass = k },
			Progress: func(records int) {
				mu.Lock()
				defer mu.Unlock()
				if pass == at {
					done += records
					cancel()
				}
			}}
		res, err := PRLContext(ctx, p, s)
		cancel()
		if res != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled in pass %d: result %v, error %v", at, res != nil, err)
		}
		// After the cancel each goroutine ends the block it holds, at most.
		if limit := (threads + 1) * prlQueryBlock; done > limit {
			t.Errorf("cancelled in pass %d: %d query records compared after it began, want at most %d", at, done, limit)
		}
		if pass != at {
			t.Errorf("cancelled in pass %d: a later pass (%d) started", at, pass)
		}
	}
	// Done before the call: no pass starts (an interrupted audit began its four PRL
	// runs' first passes, 48 s on a tester's million records).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	started := 0
	res, err := PRLContext(ctx, p, PRLSettings{Threads: threads, Pass: func(int, string) { started++ }})
	if res != nil || !errors.Is(err, context.Canceled) || started != 0 {
		t.Errorf("done before: result %v, error %v, %d passes started", res != nil, err, started)
	}
	want, err := PRL(p, PRLSettings{Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	got, err := PRLContext(context.Background(), p, PRLSettings{Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	if got.Measures.Correct != want.Measures.Correct || len(got.Patterns.Codes) != len(want.Patterns.Codes) {
		t.Errorf("PRLContext %d correct, %d patterns; PRL %d, %d", got.Measures.Correct, len(got.Patterns.Codes), want.Measures.Correct, len(want.Patterns.Codes))
	}
}
