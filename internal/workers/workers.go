// Package workers runs the goroutines of a parallel loop and re-raises a worker's panic
// on the goroutine that waits for them.
//
// A panic on a goroutine of its own ends the program at once with Go's exit code 2, which
// reid's exit-code contract gives to usage and input errors; raised again by Wait, on
// the goroutine that started the loop, it reaches the command's recover like a panic of
// sequential code (exit code 3, "internal error"), with the worker's stack.
// (golang.org/x/sync/errgroup propagated panics in v0.14.0 and reverted it in v0.16.0.)
package workers

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// A Group is a set of goroutines started by Go and waited for by Wait. The zero Group is
// ready to use; a Group must not be copied after first use.
type Group struct {
	wg     sync.WaitGroup
	mu     sync.Mutex
	failed chan struct{} // closed at the first panic; made by Failed or the panic
	first  *Panic
	// failing is set with first: Failing reads it without the lock, once per item.
	failing atomic.Bool
}

// Panic is the value Wait panics with: the first worker's panic value and its stack.
type Panic struct {
	Value any
	Stack []byte // the worker's goroutine at the panic
}

// Error returns the panic value followed by the worker's stack, so that a recover that
// prints the value shows where the worker failed, not only where Wait raised it.
func (p *Panic) Error() string {
	return fmt.Sprintf("%v\n\nworker goroutine's stack:\n%s", p.Value, p.Stack)
}

// Unwrap returns the panic value when it is an error.
func (p *Panic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Go calls f on a new goroutine. A panic of f is recovered and kept (the first one), and
// Failed's channel is closed. An f that calls runtime.Goexit ends as with a
// sync.WaitGroup: unnoticed (no code of reid's calls it; a test's t.FailNow belongs on the
// test's goroutine).
func (g *Group) Go(f func()) {
	g.wg.Go(func() {
		defer func() {
			if v := recover(); v != nil {
				g.fail(v)
			}
		}()
		f()
	})
}

func (g *Group) fail(v any) {
	p, ok := v.(*Panic) // a nested group's: its stack is the one that matters
	if !ok {
		p = &Panic{Value: v, Stack: debug.Stack()}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.first == nil {
		g.first = p
		g.failing.Store(true)
		if g.failed == nil {
			g.failed = make(chan struct{})
		}
		close(g.failed)
	}
}

// Failed returns a channel closed when a worker has panicked: a goroutine that feeds the
// workers selects on it so as not to wait for workers that are gone.
func (g *Group) Failed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failed == nil {
		g.failed = make(chan struct{})
	}
	return g.failed
}

// Failing reports whether a worker has panicked: a worker that takes item after item
// checks it between items, so that a failed loop ends without doing the rest of its work
// first (Wait raises the panic once every worker has returned).
func (g *Group) Failing() bool { return g.failing.Load() }

// ForEach calls f(i) for i = 0 … n−1 on up to threads goroutines (fewer than 1: one),
// each taking the next i, on the caller's goroutine alone when one is enough: for work
// items whose results go to places of their own, so that the order they run in does not
// matter. A panic of f is raised again on the caller's goroutine, after the items taken
// before it ended (no item is taken once one has failed).
func ForEach(n, threads int, f func(i int)) {
	threads = max(1, min(threads, n))
	if threads == 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var g Group
	for range threads {
		g.Go(func() {
			for i := int(next.Add(1) - 1); i < n && !g.Failing(); i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	g.Wait()
}

// Wait waits for every goroutine started by Go to return, then panics with a *Panic if
// one of them panicked.
func (g *Group) Wait() {
	g.wg.Wait()
	g.mu.Lock()
	p := g.first
	g.mu.Unlock()
	if p != nil {
		panic(p)
	}
}
