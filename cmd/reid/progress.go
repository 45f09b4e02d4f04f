package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// stderrIsTerminal reports whether progress bars can be drawn: stderr is a terminal and
// the CI variable is not "true" (CI logs want plain lines).
func stderrIsTerminal() bool {
	if os.Getenv("CI") == "true" {
		return false
	}
	return term.IsTerminal(int(os.Stderr.Fd()))
}

// progress reports the advance of long work on stderr: a progressbar/v3 bar on a terminal,
// otherwise a plain line at most every plainEvery.
type progress struct {
	mu        sync.Mutex
	e         *env
	bar       *progressbar.ProgressBar
	label     string
	total     int64
	done      int64
	started   time.Time
	lastPlain time.Time
}

const plainEvery = 5 * time.Second

func newProgress(e *env, label string, total int64) *progress {
	p := &progress{e: e, label: label, total: total, started: time.Now()}
	p.lastPlain = p.started
	if e.interactive {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(e.stderr),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
	}
	return p
}

// Add records n more units of work done; safe for concurrent use.
func (p *progress) Add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.bar != nil {
		p.bar.Add64(n)
		return
	}
	if now := time.Now(); now.Sub(p.lastPlain) >= plainEvery {
		p.lastPlain = now
		fmt.Fprintf(p.e.stderr, "reid: %s: %d/%d (%.0f%%) after %s\n", p.label, p.done, p.total,
			100*float64(p.done)/float64(max(p.total, 1)), now.Sub(p.started).Round(time.Second))
	}
}

// Finish ends the report.
func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}

// secondsOrDuration is a flag value that reads a Go duration ("90s", "10m") or a plain
// number of seconds ("90"), since CI scripts often pass the latter.
type secondsOrDuration time.Duration

// maxSeconds bounds a plain number of seconds, which larger ones would overflow a
// Duration, and a work limit (chooseLimit), the optimiser's largest.
const maxSeconds = 1e9

func (d *secondsOrDuration) String() string { return time.Duration(*d).String() }

func (d *secondsOrDuration) Set(s string) error {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.Abs(v) > maxSeconds {
			return fmt.Errorf("%s seconds is more than %g (about 32 years)", s, maxSeconds)
		}
		*d = secondsOrDuration(v * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 90s or 10m, or seconds")
	}
	*d = secondsOrDuration(v)
	return nil
}
