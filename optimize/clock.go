package optimize

import "time"

// clock is what a search measures its limit and the shares of it that its phases get
// (budget) against: the wall time since the search started, or, under
// Settings.WorkLimit, the work its own steps have counted (LP iterations, line-search
// rows, margins evaluated), in units of about a nanosecond of one core of the machine
// the costs below were measured on. The work is counted either way (Stats.Work). Counted work makes a search that stops at its limit
// repeat exactly (the same steps, the same answer) on any machine, any load and any
// number of threads, as the deterministic work limits of MILP solvers do; wall time
// cannot, since how far each phase gets in its share decides what comes next.
type clock struct {
	start time.Time
	// counting is set under a work limit: the clock then reads units, the work counted
	// so far.
	counting bool
	units    int64
}

// now is the clock's reading: the time since the start, or the work counted so far.
func (c *clock) now() time.Duration {
	if c.counting {
		return time.Duration(c.units)
	}
	return time.Since(c.start)
}

// add counts units of work. Only the goroutine that runs the search adds: steps that run
// on several goroutines add their total after joining, so the count does not depend on
// the threads.
func (c *clock) add(units int64) { c.units += units }

// The costs of the counted steps, in work units (about nanoseconds on an AMD EPYC core,
// bench/README "Work limit"): they need only be roughly proportional to time, so that the
// phases' shares of a work limit are close to their shares of the same time limit.
const (
	// workPerSolve is the fixed cost of an LP solve (setting up, the certificate).
	workPerSolve = 2_000
	// workPerNonZero is the cost of an iteration of CLP's master per non-zero of its
	// matrix; workPerPivot the cost of an iteration of another CLP model per row and
	// column (θ-LPs); workPerOp the cost of an operation of an LP that counts them (the
	// simplex games, the PSD game, the master's packing LP).
	workPerNonZero = 9
	workPerPivot   = 12
	workPerOp      = 1
	// workPerValue is the cost of a multiply-add over a stored row value (margins, a line
	// search's row clipped).
	workPerValue = 1
)
