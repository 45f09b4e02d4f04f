package optimize

import (
	"testing"
	"time"
)

// budget.part: no limit without a deadline; the time to the end split equally among the
// steps left; spent once the end has passed. On a counting clock (a work limit) the
// readings are exact.
func TestBudgetPart(t *testing.T) {
	if stop, ok := (budget{}).part(3); !ok || stop != 0 {
		t.Errorf("no deadline: stop %v ok %v, want zero and true", stop, ok)
	}
	work := &clock{counting: true, units: 1000}
	if stop, ok := (budget{work, 1000 + 10*time.Second}).part(4); !ok || stop != 1000+2500*time.Millisecond {
		t.Errorf("10 work seconds for 4 steps: the next stops at %v (ok %v), want 2.5 s after 1 µs", stop, ok)
	}
	work.units += int64(11 * time.Second)
	if _, ok := (budget{work, 1000 + 10*time.Second}).part(1); ok {
		t.Error("a budget whose end has passed is not spent")
	}
	sv := &solver{clock: clock{counting: true, units: int64(2 * time.Second)}, deadline: 10 * time.Second}
	if end := sv.newBudget(0.5).end; end != 6*time.Second {
		t.Errorf("half of the 8 work seconds left ends at %v, want 6 s", end)
	}
	wall := &solver{clock: clock{start: time.Now()}, deadline: 8 * time.Second}
	if end := wall.newBudget(0.5).end; end < 3*time.Second || end > 5*time.Second {
		t.Errorf("half of 8 s ends after %v, want about 4 s", end)
	}
}
