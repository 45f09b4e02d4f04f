package workers

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// waitPanic returns what g.Wait panicked with, or nil.
func waitPanic(g *Group) (v any) {
	defer func() { v = recover() }()
	g.Wait()
	return nil
}

func TestWaitRaisesTheWorkersPanic(t *testing.T) {
	var g Group
	var ran atomic.Int32
	for w := range 4 {
		g.Go(func() {
			ran.Add(1)
			if w == 2 {
				panic("worker 2 failed")
			}
		})
	}
	v := waitPanic(&g)
	p, ok := v.(*Panic)
	if !ok {
		t.Fatalf("Wait panicked with %T %v, want *Panic", v, v)
	}
	if p.Value != "worker 2 failed" {
		t.Errorf("panic value %v, want the worker's", p.Value)
	}
	// Wait waits for every worker, the panicking one's siblings included.
	if n := ran.Load(); n != 4 {
		t.Errorf("%d workers ran before Wait returned, want 4", n)
	}
	if !strings.Contains(string(p.Stack), "TestWaitRaisesTheWorkersPanic") {
		t.Errorf("stack does not show the worker's function:\n%s", p.Stack)
	}
	if !strings.Contains(p.Error(), "worker 2 failed") || !strings.Contains(p.Error(), "worker goroutine's stack") {
		t.Errorf("Error() = %q, want the value and the stack", p.Error())
	}
	select {
	case <-g.Failed():
	default:
		t.Error("Failed's channel is open after a panic")
	}
	if !g.Failing() {
		t.Error("Failing is false after a panic")
	}
}

// Workers that check Failing between items stop taking items once one of them panicked:
// the other worker's loop, endless but for Failing, ends. (It counted the items done
// after the panic against half of a fixed number, which a worker preempted while it
// unwound could exceed on a loaded machine: a clean-clone CI run failed so.)
func TestFailingStopsTheLoop(t *testing.T) {
	var g Group
	var stopped atomic.Bool
	deadline := time.Now().Add(time.Minute)
	g.Go(func() { panic("item 10") })
	g.Go(func() {
		for !g.Failing() {
			if time.Now().After(deadline) {
				return // Failing never came: stopped stays false
			}
		}
		stopped.Store(true)
	})
	if _, ok := waitPanic(&g).(*Panic); !ok {
		t.Fatal("Wait did not panic")
	}
	if !stopped.Load() {
		t.Error("the other worker's loop did not see Failing within a minute")
	}
}

func TestWaitWithoutPanic(t *testing.T) {
	var g Group
	var sum atomic.Int64
	for w := range 8 {
		g.Go(func() { sum.Add(int64(w)) })
	}
	if v := waitPanic(&g); v != nil {
		t.Fatalf("Wait panicked with %v", v)
	}
	if sum.Load() != 28 { // 0 + 1 + … + 7
		t.Errorf("sum %d, want 28", sum.Load())
	}
	select {
	case <-g.Failed():
		t.Error("Failed's channel closed without a panic")
	default:
	}
	if g.Failing() {
		t.Error("Failing without a panic")
	}
	var empty Group
	if v := waitPanic(&empty); v != nil {
		t.Errorf("an empty group's Wait panicked with %v", v)
	}
}

func TestNestedGroupKeepsTheInnerStack(t *testing.T) {
	inner := func() {
		var g Group
		g.Go(func() { panic(io.ErrUnexpectedEOF) })
		g.Wait()
	}
	var outer Group
	outer.Go(inner)
	p, ok := waitPanic(&outer).(*Panic)
	if !ok {
		t.Fatal("outer Wait did not panic with *Panic")
	}
	if _, nested := p.Value.(*Panic); nested {
		t.Error("the inner *Panic was wrapped again")
	}
	if !errors.Is(p, io.ErrUnexpectedEOF) {
		t.Errorf("errors.Is(%v, io.ErrUnexpectedEOF) = false", p.Value)
	}
	if !strings.Contains(string(p.Stack), "TestNestedGroupKeepsTheInnerStack.func1.1") {
		t.Errorf("stack is not the inner worker's:\n%s", p.Stack)
	}
}

// A feeder that selects on Failed does not hang when every worker it feeds is gone.
func TestFeederStopsWhenWorkersFail(t *testing.T) {
	var g Group
	next := make(chan int)
	for range 3 {
		g.Go(func() {
			for i := range next {
				panic(fmt.Sprint("record ", i%1)) // every worker fails on its first record
			}
		})
	}
	done := make(chan any)
	go func() {
	feed:
		for i := range 1000 {
			select {
			case next <- i:
			case <-g.Failed():
				break feed
			}
		}
		close(next)
		done <- waitPanic(&g)
	}()
	select {
	case v := <-done:
		if p, ok := v.(*Panic); !ok || p.Value != "record 0" {
			t.Errorf("Wait panicked with %v, want record 0", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the feeder hung after its workers panicked")
	}
}

func ExampleGroup() {
	squares := make([]int, 5)
	var g Group
	for w := range 2 {
		g.Go(func() {
			for i := w; i < len(squares); i += 2 {
				squares[i] = i * i
			}
		})
	}
	g.Wait() // a worker's panic would be raised here, on this goroutine
	fmt.Println(squares)
	// Output: [0 1 4 9 16]
}

// TestForEach: every item is done exactly once, whatever the number of goroutines (0
// and more than the items included), and a panic of one item is raised by ForEach.
func TestForEach(t *testing.T) {
	for _, threads := range []int{0, 1, 2, 7, 100} {
		const n = 50
		var done [n]atomic.Int32
		ForEach(n, threads, func(i int) { done[i].Add(1) })
		for i := range done {
			if d := done[i].Load(); d != 1 {
				t.Errorf("threads %d: item %d done %d times", threads, i, d)
			}
		}
	}
	got := func() (v any) {
		defer func() { v = recover() }()
		ForEach(20, 3, func(i int) {
			if i == 13 {
				panic("item 13")
			}
		})
		return nil
	}()
	if p, ok := got.(*Panic); !ok || p.Value != "item 13" {
		t.Errorf("ForEach raised %v, want the panic of item 13", got)
	}
}
