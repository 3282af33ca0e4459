package inithook

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	// maxDepth bounds how deep subdirectories of a stage directory are
	// scanned; maxScripts bounds how many scripts one Runner keeps.
	maxDepth   = 16
	maxScripts = 10000
	// waitDelay is how long a finished (or killed) script's output is
	// still read: a background process it started may hold the pipes open,
	// and must not keep the stage from completing.
	waitDelay = time.Second
)

// Script is one hook script and what became of it.
type Script struct {
	Stage Stage
	Name  string // the file name, as other emulators report it
	Path  string // the absolute path
	State State
	// Exited says the process ran to an exit status; ExitCode is it.
	Exited   bool
	ExitCode int
	// Error says why the script is ERROR.
	Error             string
	Started, Finished time.Time
}

// Report is a snapshot of every script found and of each stage.
type Report struct {
	// Enabled is false when EMULATOR_INIT_ENABLED=false: no script is run,
	// and each stage completes as the emulator passes it.
	Enabled bool
	// Completed says, by Stage, that every script of the stage has
	// finished (at once for a stage with no scripts, once it is reached).
	Completed [len(Stages)]bool
	// Scripts are in run order, stage by stage.
	Scripts []Script
}

// StageScripts returns the scripts of one stage.
func (r Report) StageScripts(s Stage) []Script {
	var out []Script
	for _, sc := range r.Scripts {
		if sc.Stage == s {
			out = append(out, sc)
		}
	}
	return out
}

// Options configure a Runner.
type Options struct {
	// Disabled runs no script.
	Disabled bool
	// Dirs are the init directories, scanned in this order.
	Dirs []string
	// Timeout bounds each script; past it the script's process group is
	// killed.
	Timeout time.Duration
	// Environ is the base environment of scripts; nil means the
	// emulator's own (os.Environ).
	Environ []string
	// Endpoint is the emulator's URL, given to scripts as AWS_ENDPOINT_URL
	// and EMULATOR_ENDPOINT; "" until known (see SetEndpoint).
	Endpoint string
	// Region fills AWS_DEFAULT_REGION and AWS_REGION unless set.
	Region string
	Log    *slog.Logger
}

// Runner finds the hook scripts and runs them stage by stage. Run calls are
// serialized; Status may be called at any time from any goroutine and never
// waits for a script.
type Runner struct {
	opts     Options
	log      *slog.Logger
	endpoint atomic.Pointer[string]

	runMu sync.Mutex // serializes Run; Status never takes it
	// Only Run (under runMu) and New touch these; readers get snapshots.
	scripts   []Script
	completed [len(Stages)]bool

	status atomic.Pointer[Report]
}

// New finds the scripts of every stage (so that the status lists those not
// run yet) and returns a Runner that has run none. Unreadable directories
// and skipped files are logged here, once.
func New(o Options) *Runner {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	r := &Runner{opts: o, log: o.Log.With("component", "inithook")}
	r.endpoint.Store(&o.Endpoint)
	if o.Disabled {
		r.log.Info("init hooks disabled (EMULATOR_INIT_ENABLED=false)")
	} else {
		r.discover()
	}
	r.publish()
	return r
}

// SetEndpoint sets the URL given to scripts of the stages still to run; the
// emulator calls it once it listens, when the port (0 in the
// configuration) is known.
func (r *Runner) SetEndpoint(url string) { r.endpoint.Store(&url) }

// Status returns the current snapshot. It must not be modified.
func (r *Runner) Status() *Report { return r.status.Load() }

// Run runs the scripts of stage one at a time, in order. A failing script
// is ERROR and the next one runs. When ctx ends, the running script's
// process group is killed (ERROR), the scripts after it stay UNKNOWN and
// the stage is not completed. Running a completed stage again does nothing.
func (r *Runner) Run(ctx context.Context, stage Stage) {
	r.runMu.Lock()
	defer r.runMu.Unlock()
	if r.completed[stage] {
		return
	}
	if !r.opts.Disabled {
		env := scriptEnv(r.opts.Environ, *r.endpoint.Load(), r.opts.Region)
		ran, failed := 0, 0
		for i := range r.scripts {
			if r.scripts[i].Stage != stage {
				continue
			}
			interrupted := ctx.Err() != nil
			if !interrupted {
				ok, killed := r.runOne(ctx, i, env)
				interrupted = killed
				if !ok {
					failed++
				}
			}
			if interrupted {
				r.log.Warn("init stage interrupted", "stage", stage.String(), "ran", ran)
				return
			}
			ran++
		}
		if ran > 0 {
			r.log.Info("init stage completed", "stage", stage.String(), "scripts", ran, "failed", failed)
		}
	}
	r.completed[stage] = true
	r.publish()
}

// runOne runs script i and reports whether it succeeded, and whether it
// was killed because ctx ended.
func (r *Runner) runOne(ctx context.Context, i int, env []string) (ok, interrupted bool) {
	s := &r.scripts[i]
	log := r.log.With("stage", s.Stage.String(), "script", s.Path)
	s.State, s.Started = StateRunning, time.Now()
	r.publish()
	log.Info("init script started")

	sctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	stdout := newLineWriter(log.With("stream", "stdout"))
	stderr := newLineWriter(log.With("stream", "stderr"))
	cmd := command(sctx, s.Path)
	cmd.Env = env
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	stdout.Flush()
	stderr.Flush()

	s.Finished = time.Now()
	if ps := cmd.ProcessState; ps != nil && ps.Exited() {
		s.Exited, s.ExitCode = true, ps.ExitCode()
	}
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay) && s.Exited && s.ExitCode == 0:
		// ErrWaitDelay: it exited 0 but left a process holding its output.
		s.State = StateSuccessful
	case ctx.Err() != nil:
		s.State, s.Error = StateError, "interrupted: the emulator is shutting down"
		interrupted = true
	case errors.Is(sctx.Err(), context.DeadlineExceeded):
		s.State, s.Error = StateError, fmt.Sprintf("timed out after %s; its process group was killed", r.opts.Timeout)
	case cmd.ProcessState == nil:
		s.State, s.Error = StateError, "cannot start: "+startError(err)
	default:
		s.State, s.Error = StateError, err.Error()
	}
	r.publish()
	took := s.Finished.Sub(s.Started).Round(time.Millisecond).String()
	if s.State == StateSuccessful {
		log.Info("init script finished", "state", string(s.State), "took", took)
	} else {
		log.Warn("init script failed", "state", string(s.State), "error", s.Error, "took", took)
	}
	return s.State == StateSuccessful, interrupted
}

// startError explains why a script could not start.
func startError(err error) string {
	if errors.Is(err, syscall.ENOEXEC) {
		// The file is run directly, so its first line must name an
		// interpreter.
		return err.Error() + " (the script needs a first line such as #!/bin/sh)"
	}
	return err.Error()
}

// publish stores a snapshot of the current states for Status.
func (r *Runner) publish() {
	rep := &Report{Enabled: !r.opts.Disabled, Completed: r.completed, Scripts: append([]Script(nil), r.scripts...)}
	r.status.Store(rep)
}

// discover finds every stage's scripts: for each stage, each init directory
// in order (the compatibility tree first), the stage directory's entries by
// name (byte order), a subdirectory's scripts at the subdirectory's place in
// that order (depth first).
func (r *Runner) discover() {
	for _, st := range Stages {
		for _, dir := range r.opts.Dirs {
			abs, err := filepath.Abs(dir)
			if err != nil {
				abs = dir
			}
			r.walk(st, filepath.Join(abs, st.Dir()), 0)
		}
	}
	level := slog.LevelInfo
	if len(r.scripts) == 0 {
		level = slog.LevelDebug // nothing to tell a user who has no hooks
	}
	r.log.Log(context.Background(), level, "init scripts found", "scripts", len(r.scripts), "dirs", strings.Join(r.opts.Dirs, ","))
}

func (r *Runner) walk(st Stage, dir string, depth int) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.log.Warn("init directory unreadable", "stage", st.String(), "dir", dir, "error", err.Error())
		}
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		skip := func(level slog.Level, reason string) {
			r.log.Log(context.Background(), level, "init file skipped", "stage", st.String(), "path", path, "reason", reason)
		}
		if strings.HasPrefix(name, ".") {
			// Hidden entries include a Kubernetes volume's ..data links,
			// which would run every script twice.
			skip(slog.LevelDebug, "hidden")
			continue
		}
		fi, err := os.Stat(path) // follows a link to a file
		if err != nil {
			skip(slog.LevelWarn, err.Error())
			continue
		}
		if fi.IsDir() {
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				// Not followed, so that a link cannot make a cycle.
				skip(slog.LevelWarn, "a link to a directory is not followed")
			case depth >= maxDepth:
				skip(slog.LevelWarn, fmt.Sprintf("nested deeper than %d directories", maxDepth))
			default:
				r.walk(st, path, depth+1)
			}
			continue
		}
		switch {
		case !fi.Mode().IsRegular():
			skip(slog.LevelInfo, "not a regular file")
		case filepath.Ext(name) != ".sh":
			level := slog.LevelInfo
			if filepath.Ext(name) == ".py" {
				level = slog.LevelWarn // other emulators run these; say why it does not run
			}
			skip(level, "only executable *.sh scripts run")
		case !executable(fi):
			skip(slog.LevelWarn, "no executable bit (chmod +x)")
		case len(r.scripts) >= maxScripts:
			skip(slog.LevelWarn, fmt.Sprintf("more than %d scripts", maxScripts))
		default:
			r.scripts = append(r.scripts, Script{Stage: st, Name: name, Path: path, State: StateUnknown})
		}
	}
}
