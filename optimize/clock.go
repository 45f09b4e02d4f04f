package optimize

import "time"

// clock is what a search measures its limit and the shares of it that its phases get
// (budget) against: the wall time since the search started, or, under
// Settings.WorkLimit, the work its own steps have counted (LP iterations, line-search
// rows, margins evaluated), in units of about a nanosecond of one core of the machine
// the costs below were measured on. The work is counted either way (Stats.Work).
// Counted work makes a search that stops at its limit repeat exactly (the same steps,
// the same answer) under any load and any number of threads, and on any machine of the
// same architecture with the same build (the counts follow the floating-point path,
// which fused multiply-adds or another CLP could change), as the deterministic work
// limits of MILP solvers do; wall time cannot, since how far each phase gets in its
// share decides what comes next.
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

// seconds is the work counted so far, in work seconds.
func (c *clock) seconds() float64 { return float64(c.units) / float64(time.Second) }

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
	// workPerMasterNonZero is the cost of an iteration of CLP's master per non-zero of
	// its matrix, where its rows and columns fitted neither of two 1,080-record profiles
	// (9.2 and 9.4 ns); an iteration of CLP's θ-LPs costs workPerPivot per row and
	// column and workPerNonZero per non-zero (fitted to the Choquet θ-LPs, 8,191 sparse
	// columns, and the 2-additive ones, 91 dense columns: 7.0 and 2.4 ns per non-zero
	// alone); workPerOp is the cost of an operation of an LP that counts them (the
	// simplex games, the PSD game, the master's packing LP).
	workPerMasterNonZero = 9
	workPerPivot         = 6
	workPerNonZero       = 2
	workPerOp            = 1
	// maxWorkLimit is the largest work limit, in work seconds (about 32 years): its
	// reading fits the clock's int64 nanoseconds with room to spare.
	maxWorkLimit = 1e9
	// workPerValue is the cost of a multiply-add over a stored row value (margins, a line
	// search's row clipped).
	workPerValue = 1
	// workPerGradValue is the cost of a row value computed from the records and
	// multiply-added into the smooth ascent's gradient (soft.go): the bilinear feature
	// difference x_k·x_l − y_k·y_l about three multiply-adds, its addition one. Measured
	// on CENSUS mdav_k3 (1,080 records, one goroutine), an evaluation with every row in
	// the gradient then counts 0.53 work seconds for 0.92 s, where the passes of margins
	// and the LPs of the same search count one work second for 1.2 to 1.9 s.
	workPerGradValue = 4
)

// marginsWork is the work of the margins of every candidate row of r: per row θ's
// dimensions where the margin is a dot product over the row (WM, OWA, the 2-additive
// Choquet integral, the bilinear form's stored features), but twice the attributes for
// the Choquet integral, whose margin walks one chain of m sets of its 2^m − 1.
func marginsWork(d *data, r *rec) int64 {
	perRow := d.sp.dim()
	if c, ok := d.sp.(*choquetSpace); ok {
		perRow = 2 * c.m
	}
	return int64(r.ncand()) * int64(perRow) * workPerValue
}

// linkWork is the work linkedSet counts for record r: the vectorised dot products, and
// the first row below ε ends a record, a quarter of the margins (CPU profile,
// noise_correlated_10 WM). The estimates of what a step will count use it too.
func linkWork(d *data, r *rec) int64 { return marginsWork(d, r) / 4 }

// scanWork is the work of all of record r's margins, vectorised (worstMargins, the
// separation oracle violations): half their count.
func scanWork(d *data, r *rec) int64 { return marginsWork(d, r) / 2 }

// linkedWork is the work linkedSet counts on d: linkWork of every record not proven
// impossible.
func linkedWork(d *data) int64 {
	var w int64
	for i := range d.recs {
		if !d.recs[i].impossible {
			w += linkWork(d, &d.recs[i])
		}
	}
	return w
}

// worstWork is the work worstMargins counts on d: scanWork of every record.
func worstWork(d *data) int64 {
	var w int64
	for i := range d.recs {
		w += scanWork(d, &d.recs[i])
	}
	return w
}

// fits reports whether a step of units of work, known before it runs, ends by the
// reading at (zero: no limit) of a counting clock c. Under a work limit the steps whose
// work is known in advance (a pass of margins over every record, a batch of lines, a
// smooth ascent's evaluation) are checked before they run, not after: on the bilinear form,
// which keeps every competitor as a row, one such pass over 4,092 records is 0.14 to
// 0.6 work seconds, and checked after it, it ran a search of a 0.1 limit to 0.29 and
// a 0.5 one to 1.43. On a clock that reads time, fits is true: a step's time is not known
// before it runs, and the limit is checked after it, as it always was.
func (c *clock) fits(units int64, at time.Duration) bool {
	return !c.counting || at == 0 || c.now()+time.Duration(units) <= at
}
