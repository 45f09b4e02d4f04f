// Command reid measures how many records of a masked microdata file an intruder could
// re-identify, before the file is released.
//
// Usage:
//
//	reid <command> [flags] [arguments]
//
// Run "reid help" for the list of commands and "reid help <command>" for one command.
// Exit codes: 0 ok, 1 policy violated, 2 usage, input or output error (such as a full
// disk), 3 internal error, 130 interrupted (reid learn, audit and bench: the best results
// found were written; any other command whose output files were being written: they are
// whole; an audit that judged its run keeps its verdict).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/linkage"
	"github.com/reid-sdc/reid/optimize"
)

// version is the engine version written into every report.
const version = "0.1.0-dev"

// Exit codes are part of reid's interface with users' CI scripts.
const (
	exitOK       = 0
	exitPolicy   = 1
	exitInput    = 2
	exitInternal = 3
	// exitInterrupted (128 + SIGINT, the shell's convention) ends a run stopped by an
	// interrupt or SIGTERM after it wrote its results (reid learn, audit and bench:
	// status interrupted).
	exitInterrupted = 130
)

// A command is one subcommand, in the manner of cmd/go.
type command struct {
	Name      string
	UsageLine string // e.g. "reid mask [flags] INPUT"
	Short     string
	Long      string
	// Flags registers the command's flags on fs and returns the function that runs it
	// after parsing, with the positional arguments.
	Flags func(fs *flag.FlagSet, e *env) func(args []string) error
}

// env is what a command may touch: its output streams and how to report progress.
type env struct {
	stdout, stderr io.Writer
	// interactive is true when stderr is a terminal and CI is not set: progress bars are
	// drawn only then, plain lines otherwise.
	interactive bool
	// notify, when set, relays the interrupt signals to c (signal.Notify in main; tests
	// send on c themselves).
	notify func(c chan<- os.Signal)
	// releaseHold, set by writeHeld, ends at the end of the run the hold of the signals
	// that began with the first output written, and returns the first that came: the
	// run then ends with exit 130, as the signal asked. Held until then, a signal cannot
	// kill the summary printed after the files are in place (exit 143 with the files
	// written read as nothing written).
	releaseHold func() os.Signal
	// abort ends the process at a second interrupt (see interruptible), after the
	// command's temporary files are removed: by the signal itself in main (dieBy); tests
	// record it instead. Nil: the second interrupt only removes them.
	abort func(os.Signal)
}

// dieBy ends the process by signal s, as its default action would have: a shell reads the
// status of a process killed by SIGINT (130) or SIGTERM (143). Where a process cannot
// signal itself, it exits 130.
func dieBy(s os.Signal) {
	signal.Reset(s)
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(s) == nil {
		time.Sleep(time.Second) // the signal ends the process on its way
	}
	os.Exit(exitInterrupted)
}

// errWriter passes writes on to w until one fails, then keeps that error and returns it
// for every later write: output printed by many unchecked Fprintf calls is checked once,
// at its end. Safe for concurrent use, as os.Stdout is.
type errWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (ew *errWriter) Write(p []byte) (int, error) {
	ew.mu.Lock()
	defer ew.mu.Unlock()
	if ew.err != nil {
		return 0, ew.err
	}
	n, err := ew.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	ew.err = err
	return n, err
}

// Err returns the first write error, if any.
func (ew *errWriter) Err() error {
	ew.mu.Lock()
	defer ew.mu.Unlock()
	return ew.err
}

func commands() []*command {
	cmds := []*command{auditCommand(), benchCommand(), checkCommand(), linkCommand(), demoCommand(), maskCommand(), describeCommand(), versionCommand(), learnCommand(), uniquenessCommand()}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds
}

func main() {
	// A panic on the command's own goroutine is a bug: exit 3 (internal error) with the
	// stack, not Go's exit 2, which scripts read as an input error. A parallel loop's
	// worker's panic is raised again here by internal/workers, its stack in the value.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "reid: internal error (a bug: please report it with the command line): %v\n%s", r, debug.Stack())
			os.Exit(exitInternal)
		}
	}()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, interactive: stderrIsTerminal(),
		notify: notifyInterrupts, abort: dieBy}
	os.Exit(run(os.Args[1:], e))
}

// usageError is a mistake in the command line: exit code 2, with a hint to the help.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// interruptedError means a signal stopped the command: exit code 130. outcome, after the
// signal's name, says what the run left; empty, that it wrote its best results (learn,
// audit, bench).
type interruptedError struct {
	sig     os.Signal
	outcome string
}

// heldOutcome is the outcome of a run whose signal came while its outputs were written
// and was held until they were whole (see writeHeld): the command did all its work, and
// exit 130 is what a script that sent the signal expects of a run it stopped.
const heldOutcome = " while the output was written: it is whole; exit 130 as asked"

func (i *interruptedError) Error() string {
	if i.outcome == "" {
		return fmt.Sprintf("%v: stopped early; the results written are the best found, not proven", i.sig)
	}
	return fmt.Sprint(i.sig) + i.outcome
}

// policyError means the inputs were fine but violate the user's policy: exit code 1.
type policyError struct{ violations []string }

func (p *policyError) Error() string { return strings.Join(p.violations, "\n") }

// run executes one command line and returns the exit code. Errors are printed as one line
// on stderr prefixed with "reid: ".
func run(args []string, e *env) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitInput
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		// Help asked for is the command's output: lost to a full disk, it is exit 2 as
		// any other (GNU's rule for --help too).
		stdout := &errWriter{w: e.stdout}
		ce := *e
		ce.stdout = stdout
		code := help(args[1:], &ce)
		if werr := stdout.Err(); werr != nil && code == exitOK {
			fmt.Fprintf(e.stderr, "reid help: %s\n", oneLine(werr.Error()))
			return exitInput
		}
		return code
	}
	var cmd *command
	for _, c := range commands() {
		if c.Name == name {
			cmd = c
		}
	}
	if cmd == nil {
		fmt.Fprintf(e.stderr, "reid: unknown command %q; run 'reid help' for the list\n", name)
		return exitInput
	}
	// Results printed on stdout are results: losing them to a full disk is exit 2, not 0
	// (see the README's exit codes). Many print functions leave their last lines
	// unchecked; every write goes through stdout, checked when the command is done.
	stdout := &errWriter{w: e.stdout}
	ce := *e
	ce.stdout = stdout
	e = &ce
	fs := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runCmd := cmd.Flags(fs, e)
	fs.Usage = func() {}
	positional, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(e.stdout, cmd, fs)
		if werr := stdout.Err(); werr != nil {
			return report(werr, cmd, e)
		}
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "reid %s: %v; run 'reid help %s'\n", cmd.Name, err, cmd.Name)
		return exitInput
	}
	err = flagHints(runCmd(positional), cmd.Name, fs)
	if e.releaseHold != nil {
		if s := e.releaseHold(); s != nil && err == nil {
			err = &interruptedError{sig: s, outcome: heldOutcome}
		}
	}
	if werr := stdout.Err(); werr != nil && (err == nil || isVerdict(err)) {
		// A verdict (policy violated, interrupted) would say the results were written.
		err = werr
	}
	return report(err, cmd, e)
}

// isVerdict reports whether err ends a run whose results were all written: a policy
// violated, or an interrupt (also one held while the outputs were written).
func isVerdict(err error) bool {
	var pe *policyError
	var xe *interruptedError
	return errors.As(err, &pe) || errors.As(err, &xe)
}

// flagHints names, in an input error of the loader, what would take the input (the
// loader's own words say "choose a missing-value policy", "drop it"): for a missing
// value under the default --missing error, --missing keep where the command's measures
// take one (describe, uniqueness, mask, check, PRL), else what the distances need; for a
// constant column, --drop-constant where the command (name, its flags fs) has it; for a
// label in a column read as numbers, --types.
func flagHints(err error, name string, fs *flag.FlagSet) error {
	var ie *datasets.InputError
	if !errors.As(err, &ie) {
		return err
	}
	method := fs.Lookup("method")
	keepReads := slices.Contains([]string{"describe", "uniqueness", "mask", "check"}, name) ||
		name == "link" && method != nil && method.Value.String() == "prl"
	switch m := fs.Lookup("missing"); {
	case ie.Err == datasets.ErrMissingValue && m != nil && m.Value.String() == "error" && keepReads:
		ie.Err = hintedError{datasets.ErrMissingValue, "missing value (--missing keep reads it as missing, where the measure allows)"}
	case ie.Err == datasets.ErrMissingValue && m != nil && m.Value.String() == "error":
		// DBRL and the worst case: --missing keep would end in their own refusal.
		ie.Err = hintedError{datasets.ErrMissingValue, "missing value (the distances need a number in every record: leave the column out with --attrs, or impute it; --missing keep reads it for PRL and uniqueness only)"}
	case ie.Err == datasets.ErrSchemaMismatch && ie.Column != "" && fs.Lookup("types") != nil:
		// A column read as numbers in one file and as labels in the other (CSV infers
		// each file's types): one --types entry reads both alike.
		ie.Detail += fmt.Sprintf(" (--types %s:numeric or %s:categorical reads both files alike)", ie.Column, ie.Column)
	case ie.Err == datasets.ErrNotNumeric && ie.Column != "" && fs.Lookup("types") != nil && !typeGiven(fs, ie.Column):
		// A column CSV inferred as numbers (most of its first values are), with a label
		// further down: a column of codes or labels the user may not mean to link on, or
		// not even to mask (mask reads every column). Not when --types made it numeric
		// (a boolean column read as numbers): the user chose so.
		ie.Detail += fmt.Sprintf(" (--types %s:categorical reads the column as labels)", ie.Column)
	case ie.Err == datasets.ErrConstantColumn && fs.Lookup("drop-constant") != nil:
		ie.Err = hintedError{datasets.ErrConstantColumn, "constant column (--drop-constant leaves it out)"}
	}
	return err
}

// typeGiven reports whether the command's --types names column.
func typeGiven(fs *flag.FlagSet, column string) bool {
	types, _ := parseTypes(fs.Lookup("types").Value.String())
	_, ok := types[column]
	return ok
}

// hintedError is a sentinel error of the loader in the words of a command's flags.
type hintedError struct {
	sentinel error
	text     string
}

func (h hintedError) Error() string { return h.text }
func (h hintedError) Unwrap() error { return h.sentinel }

// report prints err and maps it to an exit code.
func report(err error, cmd *command, e *env) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	var ie *datasets.InputError
	var pe *policyError
	var xe *interruptedError
	switch {
	case errors.As(err, &xe):
		fmt.Fprintf(e.stderr, "reid %s: %v\n", cmd.Name, err)
		return exitInterrupted
	case errors.As(err, &pe):
		for _, v := range pe.violations {
			fmt.Fprintf(e.stderr, "reid %s: policy violated: %s\n", cmd.Name, v)
		}
		return exitPolicy
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "reid %s: %v; run 'reid help %s'\n", cmd.Name, err, cmd.Name)
		return exitInput
	case errors.As(err, &ie), errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission),
		// An output the file system refuses (full, over quota, read-only), or a reader
		// that went away (--out /dev/stdout | head), is the user's to mend, like an
		// unreadable input, not a fault of reid.
		errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EPIPE),
		// The file system's other refusals of an output (a rename onto a directory, a
		// path through a file, a file or name too large, a device's I/O error) too;
		// not any *os.PathError, which a bug (a write after Close) also makes.
		errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EEXIST),
		errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EFBIG), errors.Is(err, syscall.ENAMETOOLONG),
		errors.Is(err, syscall.EIO):
		fmt.Fprintf(e.stderr, "reid %s: %s\n", cmd.Name, oneLine(err.Error()))
		return exitInput
	case isInputError(err), errors.Is(err, optimize.ErrTooLarge), errors.Is(err, linkage.ErrNoTruth), errors.Is(err, optimize.ErrNoRecords):
		// No true pair among the records kept (--records, --intruder-ids): nothing to
		// measure, which the inputs decide.
		fmt.Fprintf(e.stderr, "reid %s: %s\n", cmd.Name, oneLine(err.Error()))
		return exitInput
	}
	fmt.Fprintf(e.stderr, "reid %s: internal error: %s\n", cmd.Name, oneLine(err.Error()))
	return exitInternal
}

// notifyInterrupts relays SIGINT and SIGTERM to c, each unless the process was started
// with it ignored (a shell's background job ignores SIGINT: Notify would make it stop on
// the terminal's Ctrl-C, and signal.Stop would leave the second one ignored).
func notifyInterrupts(c chan<- os.Signal) {
	var sigs []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) > 0 { // Notify with no signals would relay them all
		signal.Notify(c, sigs...)
	}
}

// interruptible returns a context that is cancelled at the first interrupt signal (see
// env.notify); a second interrupt aborts: the cleanups run (the command's temporary files,
// which a kill left behind: a tester's second SIGTERM while learn wrote its MPS model left
// .reid-learn-*/ with 6–49 MB of it), then env.abort ends the process. release stops
// listening and returns the signal received, if any (it may be called again, with the
// same answer).
func interruptible(e *env, cmd string, cleanups ...func()) (ctx context.Context, release func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	if e.notify == nil {
		return ctx, func() os.Signal { cancel(); return nil }
	}
	c := make(chan os.Signal, 2)
	e.notify(c)
	var got os.Signal // written before done is closed
	done, released := make(chan struct{}), make(chan struct{})
	var second sync.WaitGroup
	handle := func(s os.Signal) {
		got = s
		fmt.Fprintf(e.stderr, "reid %s: %v: stopping with the best results found (the same signal again aborts)\n", cmd, s)
		cancel()
		second.Add(1)
		go func() {
			defer second.Done()
			select {
			case s := <-c:
				for _, f := range cleanups {
					f()
				}
				if e.abort != nil {
					e.abort(s)
				}
			case <-released:
			}
		}()
	}
	select {
	case s := <-c:
		// A signal already relayed (one at the start; a test's, sent by notify itself)
		// takes effect before the work starts, not whenever a goroutine would run: under
		// load the audit's DBRL had started first.
		handle(s)
		close(done)
	default:
		go func() {
			defer close(done)
			select {
			case s := <-c:
				handle(s)
			case <-ctx.Done():
				// release stops the relay before it cancels: a signal that came before is
				// in c and counts, whichever case select chose.
				select {
				case s := <-c:
					handle(s)
				default:
				}
			}
		}()
	}
	var once sync.Once
	release = func() os.Signal {
		once.Do(func() {
			signal.Stop(c)
			cancel()
			<-done
			close(released)
			second.Wait()
		})
		return got
	}
	return ctx, release
}

// holdSignals defers SIGINT and SIGTERM (when the process takes them, see
// notifyInterrupts) until the returned function is first called, which returns the first
// one that came, or nil (as do later calls): for writing outputs that belong together,
// which a signal must not cut in two. Without e.notify (tests that send none), nothing
// is held.
func holdSignals(e *env) (release func() os.Signal) {
	if e.notify == nil {
		return func() os.Signal { return nil }
	}
	c := make(chan os.Signal, 1)
	e.notify(c)
	return func() os.Signal {
		signal.Stop(c)
		select {
		case s := <-c:
			return s
		default:
			return nil // nothing came, or the first call took it
		}
	}
}

// writeHeld runs write, which writes output files (each to a temporary file renamed into
// place), with SIGINT and SIGTERM held: a command killed between the two left its
// temporary file behind (a tester's Ctrl-C two seconds into reid mask's 28 MB of output
// left .out.csv.tmpN). The hold lasts until the command is done (run releases it): a
// signal that came after the writing began lets the command finish (its summary is a
// few lines) and the run then exits 130, not 0: the signal asked it to stop, and a
// script that sent it must not read a normal end.
//
// Outputs that are not regular files (a named pipe, /dev/stdout) are written directly
// and may block until a reader comes: no hold then, so that a signal still stops them.
func writeHeld(e *env, paths []string, write func() error) error {
	for _, p := range paths {
		// /dev/stdout follows to what it is: a pipe or terminal may block, a redirected
		// regular file does not, and the other outputs' renames still want the hold.
		if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
			return write()
		}
	}
	if e.releaseHold == nil {
		e.releaseHold = holdSignals(e)
	}
	return write()
}

// inputError marks an error of a lower package that is about the user's data or
// parameters rather than a bug (e.g. "k is larger than the number of records").
type inputError struct{ err error }

func (i *inputError) Error() string { return i.err.Error() }
func (i *inputError) Unwrap() error { return i.err }

func asInput(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err}
}

func isInputError(err error) bool {
	var ie *inputError
	return errors.As(err, &ie)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// threadsFlag defines --threads: the goroutines of the work, 0 for every core; a negative
// number is a usage error (it was taken as 0).
func threadsFlag(fs *flag.FlagSet) *int {
	n := new(int)
	fs.Func("threads", "number of goroutines (`n`; 0: all cores)", func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return fmt.Errorf("--threads must be 0 (all cores) or a positive number, not %q", s)
		}
		*n = v
		return nil
	})
	return n
}

// outPath is an output file named by a flag (flag without its dashes).
type outPath struct{ flag, path string }

// checkOutFiles refuses, with a usage error, an output path that cannot receive a file
// (see checkOutFile), one that is also an input of the command (os.SameFile, so another
// spelling or a link is caught too: the write would replace the data being read), and two
// flags naming the same file, the second of whose writes would replace the first.
// Commands call it before their work: a typo in an output path must not cost a long
// search, nor end it with an error after some outputs were written.
func checkOutFiles(inputs []string, outs ...outPath) error {
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := checkOutFile(o.flag, o.path); err != nil {
			return err
		}
		if in, same := sameFileAs(o.path, inputs); same {
			return usagef("--%s %s is the input file %s: it would be overwritten", o.flag, o.path, in)
		}
		key := outKey(o.path)
		if other, dup := seen[key]; dup {
			return usagef("--%s and --%s both name %s", other, o.flag, o.path)
		}
		seen[key] = o.flag
	}
	return nil
}

// outKey is the file an output path names, for telling two outputs apart: through
// symbolic links (of the file, or of its directory) and as an absolute path, so that
// "out.json" and "$PWD/out.json" are one file (the second write lost the first).
func outKey(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	} else if d, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(d, filepath.Base(path))
	}
	if p, err := filepath.Abs(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// sameFileAs returns the first of inputs that is the same file as path, when path exists.
func sameFileAs(path string, inputs []string) (string, bool) {
	out, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if fi, err := os.Stat(in); err == nil && os.SameFile(out, fi) {
			return in, true
		}
	}
	return "", false
}

// checkOutFile refuses, with a usage error, a path given to --flagName that cannot
// receive a file: a directory, or a path whose directory does not exist or is not a
// directory (files are written beside their path and renamed, see datasets.WriteAtomic,
// so the directory must exist; it is not created).
func checkOutFile(flagName, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("--%s %s is a directory, not a file", flagName, path)
	}
	if target, ok := linkIntoNowhere(path); ok {
		return usagef("--%s %s is a symbolic link to %s, whose directory does not exist", flagName, path, target)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err == nil && fi.IsDir() {
		return checkWritable(flagName, path, dir)
	}
	if err == nil || errors.Is(err, syscall.ENOTDIR) {
		return usagef("--%s %s: %s is not a directory", flagName, path, notDirectory(dir))
	}
	if errors.Is(err, os.ErrNotExist) {
		return usagef("--%s %s: directory %s does not exist", flagName, path, dir)
	}
	return usagef("--%s %s: %v", flagName, path, err)
}

// linkIntoNowhere reports whether path is a symbolic link whose target's directory does
// not exist (the write follows the link and makes its file beside the target), with the
// target.
func linkIntoNowhere(path string) (target string, ok bool) {
	target, err := os.Readlink(path)
	if err != nil {
		return "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	fi, err := os.Stat(filepath.Dir(target))
	return target, err != nil || !fi.IsDir()
}

// checkWritable refuses a regular file's directory in which no file can be made (a
// read-only mount, /proc): found after a search of minutes, the results were lost. A
// device or named pipe (/dev/stdout) is written directly and is not probed.
func checkWritable(flagName, path, dir string) error {
	switch filepath.Clean(path) {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0":
		// Written through its link, it replaced the file the shell read it from.
		return usagef("--%s %s: standard input is not an output", flagName, path)
	}
	if fd, ok := datasets.Descriptor(path); ok {
		// /dev/stdout redirected to a file: the probe went into /dev. A closed or
		// read-only descriptor is found now, not after the work.
		if err := datasets.CheckDescriptor(fd); err != nil {
			return usagef("--%s %s: %v", flagName, path, err)
		}
		return nil
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil
	}
	probe, err := os.CreateTemp(dir, ".reid-probe-*")
	if err != nil {
		return usagef("--%s %s: cannot create files in %s (%v)", flagName, path, dir, errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// checkOutDir refuses, with a usage error, a path given to --flagName that cannot be made
// a directory of outputs: an existing file, or a path below a file. A directory that does
// not exist yet is fine: the command creates it (os.MkdirAll) when it writes. Commands
// call it before their work, which would otherwise end with "mkdir: not a directory".
func checkOutDir(flagName, path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return usagef("--%s %s is a file, not a directory", flagName, path)
	case errors.Is(err, syscall.ENOTDIR):
		return usagef("--%s %s: %s is not a directory", flagName, path, notDirectory(path))
	case errors.Is(err, os.ErrNotExist):
		return nil
	}
	return usagef("--%s %s: %v", flagName, path, err)
}

// notDirectory returns the ancestor of path (or path itself) that exists and is not a
// directory, the one that makes path unusable, or path when none is found.
func notDirectory(path string) string {
	for p := filepath.Clean(path); ; {
		if fi, err := os.Stat(p); err == nil {
			if !fi.IsDir() {
				return p
			}
			return path
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		p = parent
	}
}

// outFile is one output file: its path and what goes in it.
type outFile struct {
	path  string
	write func(*os.File) error
}

// writeFiles writes every file or none: each is written to a temporary file beside its
// path (datasets.WriteAtomic), the next ones inside the previous one's write, so that the
// renames into place come only after all were written. When a rename fails after later
// files were renamed, those are removed: an error leaves none of the outputs behind,
// though a file that stood at one of those later paths before is then gone too (a
// rename into a checked directory failing is rare; keeping backups is not worth it).
func writeFiles(outs ...outFile) error {
	if len(outs) == 0 {
		return nil
	}
	first, rest := outs[0], outs[1:]
	restWritten := false
	err := datasets.WriteAtomic(first.path, func(f *os.File) error {
		if err := first.write(f); err != nil {
			return err
		}
		if err := writeFiles(rest...); err != nil {
			return err
		}
		restWritten = true
		return nil
	})
	if err != nil && restWritten {
		for _, o := range rest {
			// Only files renamed into place: never /dev/stdout (a link in /dev) or a
			// device, which were written through.
			if _, fd := datasets.Descriptor(o.path); fd {
				continue
			}
			// Through a symbolic link its target was written (datasets.WriteAtomic).
			if target, serr := filepath.EvalSymlinks(o.path); serr == nil {
				if fi, serr := os.Lstat(target); serr == nil && fi.Mode().IsRegular() {
					os.Remove(target)
				}
			}
		}
	}
	return err
}

// checkEpsilon refuses an --epsilon that is not a positive number: the margin of a
// correct link in the worst-case search (reid learn, reid audit).
func checkEpsilon(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return usagef("--epsilon must be a positive number")
	}
	return nil
}

// checkRecords refuses a --records that is negative or 1: one record has no other to be
// told apart from (README: fewer than two records are refused in every command), and
// PRL's EM needs pairs of both classes.
func checkRecords(n int) error {
	if n < 0 || n == 1 {
		return usagef("--records must be 0 (all) or at least 2, got %d", n)
	}
	return nil
}

// writeResults writes a command's results to out (stdout when out is empty) together
// with its other output files, those whose path is not empty: every file or none (see
// writeFiles).
func writeResults(e *env, out string, results func(io.Writer) error, others ...outFile) error {
	var outs []outFile
	for _, o := range others {
		if o.path != "" {
			outs = append(outs, o)
		}
	}
	if out != "" {
		outs = append(outs, outFile{out, func(f *os.File) error { return results(f) }})
	}
	var paths []string
	for _, o := range outs {
		paths = append(paths, o.path)
	}
	if err := writeHeld(e, paths, func() error { return writeFiles(outs...) }); err != nil {
		return err
	}
	if out == "" {
		return results(e.stdout)
	}
	return nil
}

// parseInterspersed lets flags follow positional arguments ("reid mask in.csv --k 3"),
// which the flag package alone does not. --attrs given empty is a usage error: left out
// it means every column, and a script whose variable came out empty must not mask or link
// on every column unasked. (The other lists' default is none, which an empty one means
// too: --keys "$KEYS" with KEYS empty skips uniqueness, as a script may intend.)
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 || rest[0] == "--" {
			if attrs := fs.Lookup("attrs"); attrs != nil && flagGiven(fs, "attrs") && strings.TrimSpace(attrs.Value.String()) == "" {
				return nil, usagef("--attrs is empty: give at least one column name, or leave the flag out for the default")
			}
			if len(rest) > 0 {
				rest = rest[1:] // after --, every argument is positional
			}
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `reid tells a data owner how many records of a masked microdata file an intruder
could re-identify, before the file is released.

Usage:

	reid <command> [flags] [arguments]

The commands are:

`)
	for _, c := range commands() {
		fmt.Fprintf(w, "\t%-10s %s\n", c.Name, c.Short)
	}
	fmt.Fprint(w, `
Use "reid help <command>" for more information about a command.
Exit codes: 0 ok, 1 policy violated, 2 usage, input or output error (such as a full
disk), 3 internal error, 130 interrupted (learn, audit, bench: after writing their best
results; demo; any other command whose output files were being written: after finishing
them).
`)
}

func help(args []string, e *env) int {
	if len(args) == 0 {
		printUsage(e.stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.Name == args[0] {
			fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
			c.Flags(fs, e)
			printCommandHelp(e.stdout, c, fs)
			return exitOK
		}
	}
	fmt.Fprintf(e.stderr, "reid help: unknown command %q\n", args[0])
	return exitInput
}

func printCommandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.UsageLine, strings.TrimSpace(c.Long))
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

func versionCommand() *command {
	return &command{
		Name:      "version",
		UsageLine: "reid version",
		Short:     "print the engine version",
		Long:      "Version prints the version of the reid engine, the one written into reports.",
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("version takes no arguments")
				}
				_, err := fmt.Fprintf(e.stdout, "reid %s\n", version)
				return err
			}
		},
	}
}
