package optimize

import (
	"testing"
	"time"
)

// budget.part: no limit without a deadline; the time to the end split equally among the
// steps left; spent once the end has passed.
func TestBudgetPart(t *testing.T) {
	if stop, ok := (budget{}).part(3); !ok || !stop.IsZero() {
		t.Errorf("no deadline: stop %v ok %v, want zero and true", stop, ok)
	}
	now := time.Now()
	stop, ok := budget{now.Add(10 * time.Second)}.part(4)
	if d := stop.Sub(now); !ok || d < 2*time.Second || d > 3*time.Second {
		t.Errorf("10 s for 4 steps: the next stops after %v (ok %v), want about 2.5 s", d, ok)
	}
	if _, ok := (budget{now.Add(-time.Second)}).part(1); ok {
		t.Error("a budget whose end has passed is not spent")
	}
	sv := &solver{deadline: now.Add(8 * time.Second)}
	if d := sv.newBudget(0.5).end.Sub(now); d < 3*time.Second || d > 5*time.Second {
		t.Errorf("half of 8 s ends after %v, want about 4 s", d)
	}
}
