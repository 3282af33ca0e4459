package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// ErrGone is returned by Ask when the owner stopped before it could answer
// (it was deleted): callers map it to their service's not-found error.
var ErrGone = errors.New("actors: owner is gone")

// ErrNoAnswer is returned by Ask when the owner did not answer within the
// system's Ask timeout: callers map it to their service's busy error.
var ErrNoAnswer = errors.New("actors: owner did not answer in time")

// ErrPanic is returned by Ask when the owner panicked while handling the
// command. The owner survives (its state is as before the command, since
// owners validate before they commit) and the panic is logged once.
var ErrPanic = errors.New("actors: owner failed while handling the command")

// Owner is the state machine one actor runs. Handle is called for one
// command at a time, never concurrently, from the actor's goroutine. It MUST
// NOT block except on its own store write, and MUST NOT keep cmd's slices
// beyond copying them.
type Owner interface {
	Handle(cmd any) (reply any, err error)
}

// Finisher is implemented by owners that end themselves (a delete): once
// Finished reports true after a command, the actor stops.
type Finisher interface {
	Finished() bool
}

// Ref names an owner's actor.
type Ref struct{ pid *actor.PID }

// Valid reports whether r names an actor.
func (r Ref) Valid() bool { return r.pid != nil }

// System is the actor system with the project's logger and Ask timeout.
type System struct {
	sys        *actor.ActorSystem
	root       *actor.RootContext
	timeout    time.Duration
	log        *slog.Logger
	dispatcher *dispatcher
	// idle is how long an owner in an entry serves nothing before it
	// passivates; 0 never passivates.
	idle  time.Duration
	sweep *idleSweep // nil when owners never passivate
	// activations and passivations count owners started for a command
	// and owners passivated.
	activations, passivations atomic.Uint64
	kinds                     sync.Map // kind name → *ownerKind
	stops                     stops
	lingering                 lingering
	slots                     replySlots
}

// dispatcher runs mailboxes on long-lived goroutines whose stacks have
// already grown. protoactor's default starts a goroutine per scheduling,
// and an owner that is spawned, asked once and left idle pays for a new
// goroutine and its stack growth on every message.
type dispatcher struct {
	idle chan func()
	done chan struct{}
}

// dispatcherWorkers is how many goroutines wait for work; beyond them,
// work gets a goroutine of its own as with the default dispatcher.
const dispatcherWorkers = 64

// throughput is how many messages a mailbox processes before it yields.
const throughput = 300

func newDispatcher() *dispatcher {
	d := &dispatcher{idle: make(chan func()), done: make(chan struct{})}
	for range dispatcherWorkers {
		go func() {
			for {
				select {
				case fn := <-d.idle:
					fn()
				case <-d.done:
					return
				}
			}
		}()
	}
	return d
}

// Schedule hands fn to an idle worker, or to a new goroutine when none is
// idle (a worker may be waiting on its owner's store write), so that it
// never blocks and never queues work behind a busy worker.
func (d *dispatcher) Schedule(fn func()) {
	select {
	case d.idle <- fn:
	default:
		go fn()
	}
}

// Throughput implements actor.Dispatcher.
func (d *dispatcher) Throughput() int { return throughput }

// NewSystem starts an actor system that logs through log and bounds every
// Ask by askTimeout.
func NewSystem(log *slog.Logger, askTimeout time.Duration) *System {
	alog := log.With("component", "actors")
	// protoactor's own information (the system id, started and stopped
	// processes) is for whoever debugs the emulator, not its users.
	plog := slog.New(demoted{alog.Handler()})
	as := actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return plog }),
		actor.WithDeadLetterRequestLogging(false),
	)
	return &System{sys: as, root: as.Root, timeout: askTimeout, log: alog, dispatcher: newDispatcher(), slots: newReplySlots()}
}

// demoted logs records below warn at debug level.
type demoted struct{ slog.Handler }

func (d demoted) Enabled(ctx context.Context, l slog.Level) bool {
	if l < slog.LevelWarn {
		l = slog.LevelDebug
	}
	return d.Handler.Enabled(ctx, l)
}

func (d demoted) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		r.Level = slog.LevelDebug
	}
	return d.Handler.Handle(ctx, r)
}

func (d demoted) WithAttrs(as []slog.Attr) slog.Handler { return demoted{d.Handler.WithAttrs(as)} }
func (d demoted) WithGroup(name string) slog.Handler    { return demoted{d.Handler.WithGroup(name)} }

// AskTimeout is the bound on every Ask.
func (s *System) AskTimeout() time.Duration { return s.timeout }

// request is a command for an owner; counted when it was sent through the
// owner's cell (see cell).
type request struct {
	cmd     any
	counted bool
}

type response struct {
	v   any
	err error
}

// linger is how long a finished owner keeps answering before it stops.
// protoactor drops the messages still queued when an actor stops, which
// would leave their Asks waiting for the full timeout; an Ask that looked
// the owner up just before its deletion reaches it well within this time
// and is answered ErrGone by the owner itself.
const linger = time.Second

type ownerActor struct {
	o       Owner
	sys     *System
	retired bool
	// c is the cell the actor runs the owner of, nil for an owner spawned
	// on its own; the rest is its passivation (activation.go).
	c       *cell
	passive bool
	swept   bool // under the idle sweep
	idleMarks
	endTo *actor.PID // told once the owner has ended (stopMsg)
}

// retireMsg retires an owner: it answers what is queued before it, then
// answers ErrGone to everything, and stops after the linger. In a batch,
// the Stop that retired it ends it (stopMsg) instead of a timer of its own.
type retireMsg struct{ batch bool }

func (a *ownerActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		a.armIdle(ctx)
	case *actor.Stopping:
		a.unsweep()
	case *actor.Stopped:
		// Out of the registry by now: what is sent to it from here on
		// reaches the dead letter, which answers.
		if a.endTo != nil {
			ctx.Send(a.endTo, response{})
		}
	case *actor.Restarting:
		return
	case idleTick:
		a.checkIdle(ctx)
	case request:
		if m.counted && a.c != nil {
			a.c.received()
		}
		if a.swept && !a.active.Load() {
			a.active.Store(true)
		}
		// A passivated actor runs nothing more: only a command sent by
		// Ref, not through the entry, can reach it, and the entry may run
		// a new actor already.
		if a.retired || a.passive {
			ctx.Respond(response{nil, ErrGone})
			return
		}
		v, err := a.handle(m.cmd)
		ctx.Respond(response{v, err})
		if f, ok := a.o.(Finisher); ok && f.Finished() {
			a.retire(ctx)
		}
	case retireMsg:
		// A passivated actor's cell may already run a new actor: a late
		// retirement of this one is not the owner's.
		switch {
		case a.passive:
		case m.batch:
			a.markRetired() // Stop ends it after the linger
		default:
			a.retire(ctx)
		}
		if ctx.Sender() != nil {
			ctx.Respond(response{})
		}
	case stopMsg:
		a.endTo = ctx.Sender()
		ctx.Stop(ctx.Self())
	default:
		a.sys.log.Error("owner received an unknown message", "type", fmt.Sprintf("%T", m))
	}
}

// retire makes the owner answer ErrGone from now on and stop after the
// linger, so that an Ask that found it just before it ended is answered
// rather than dropped with the mailbox.
func (a *ownerActor) retire(ctx actor.Context) {
	if a.retired {
		return
	}
	a.markRetired()
	self, root := ctx.Self(), a.sys.root
	a.sys.lingering.add(func() { root.Poison(self) })
}

// markRetired makes the owner answer ErrGone from now on and drops its
// state, which nothing reads any more, and leaves the idle sweep.
func (a *ownerActor) markRetired() {
	a.retired, a.o = true, nil
	if a.c != nil {
		a.c.end()
	}
	a.unsweep()
}

// handle runs one command, turning a panic into ErrPanic so that the owner
// keeps its state (a supervisor restart would discard it).
func (a *ownerActor) handle(cmd any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			a.sys.log.Error("owner panicked", "command", fmt.Sprintf("%T", cmd), "panic", r, "stack", string(debug.Stack()))
			v, err = nil, ErrPanic
		}
	}()
	return a.o.Handle(cmd)
}

// Spawn starts an actor that runs o. kind prefixes the actor's generated
// name ("backup.vault"); user input never becomes part of a name.
func (s *System) Spawn(kind string, o Owner) Ref { return Ref{s.spawn(kind, o, nil)} }

// spawn starts an actor that runs o, for c when it is not nil.
func (s *System) spawn(kind string, o Owner, c *cell) *actor.PID {
	props := actor.PropsFromProducer(func() actor.Actor { return &ownerActor{o: o, sys: s, c: c} },
		actor.WithDispatcher(s.dispatcher))
	return s.root.SpawnPrefix(props, kind+"-")
}

// Ask sends cmd to ref and waits at most the Ask timeout for its reply.
func Ask[R any](s *System, ref Ref, cmd any) (R, error) {
	return answer[R](s.ask(ref.pid, request{cmd: cmd}))
}

// askCell sends cmd through c (activating its owner) and waits at most the
// Ask timeout for its reply.
func askCell[R any](s *System, c *cell, cmd any) (R, error) {
	pid, ok := c.acquire()
	if !ok {
		var zero R
		return zero, ErrGone
	}
	return answer[R](s.ask(pid, request{cmd: cmd, counted: true}))
}

func answer[R any](r response, err error) (R, error) {
	var zero R
	if err != nil {
		return zero, err
	}
	if r.err != nil {
		return zero, r.err
	}
	if r.v == nil {
		return zero, nil
	}
	v, ok := r.v.(R)
	if !ok {
		return zero, fmt.Errorf("actors: ask: reply is %T, want %T", r.v, zero)
	}
	return v, nil
}

func unexpectedReply(m any) error { return fmt.Errorf("actors: ask: unexpected reply %T", m) }

// Pending is a command sent with Tell, whose outcome may be waited for.
type Pending struct {
	f    actor.Future
	gone bool // the owner had ended when the command was sent
}

// tellCell sends cmd through c (activating its owner).
func (s *System) tellCell(c *cell, cmd any) Pending {
	f, ok := c.post(s, cmd)
	return Pending{f: f, gone: !ok}
}

// Wait waits, at most the Ask timeout from when the command was sent, for
// the command to have run, and returns its error (ErrGone when the owner
// had already ended, ErrNoAnswer when it did not answer in time). It MUST
// NOT be called inside an owner.
func (p Pending) Wait() error {
	if p.gone {
		return ErrGone
	}
	if p.f == nil {
		return nil
	}
	res, err := p.f.Result()
	switch {
	case errors.Is(err, actor.ErrDeadLetter):
		return ErrGone
	case errors.Is(err, actor.ErrTimeout):
		return ErrNoAnswer
	case err != nil:
		return fmt.Errorf("actors: tell: %w", err)
	}
	if r, ok := res.(response); ok {
		return r.err
	}
	return nil
}

// WaitAll waits for every pending command and returns the first error
// other than ErrGone (an owner that ended meanwhile has nothing left to
// change).
func WaitAll(ps []Pending) error {
	var first error
	for _, p := range ps {
		if err := p.Wait(); err != nil && !IsGone(err) && first == nil {
			first = err
		}
	}
	return first
}

// Stop retires every ref and waits until each has answered everything
// queued before the retirement; from then on none of them runs a command
// (they answer ErrGone) and all of them end after the linger. It works a
// window of owners at a time, with one barrier per window rather than a
// future per owner, so that retiring 100k owners allocates little.
func (s *System) Stop(refs []Ref) {
	pids := make([]*actor.PID, 0, len(refs))
	for _, r := range refs {
		if r.pid != nil {
			pids = append(pids, r.pid)
		}
	}
	// The owners of a window work through their mailboxes concurrently.
	for w := range slices.Chunk(pids, stopWindow) {
		s.answered(w, retireMsg{batch: true})
	}
	s.endAfterLinger(pids)
}

// StopAsync retires ref without waiting.
func (s *System) StopAsync(ref Ref) {
	if ref.pid != nil {
		s.root.Send(ref.pid, retireMsg{})
	}
}

// Shutdown marks the system stopped and ends the dispatcher's workers;
// work scheduled later (a lingering owner's stop) gets its own goroutine.
// Owners must have been stopped first.
func (s *System) Shutdown() {
	if s.sweep != nil {
		s.sweep.stop()
	}
	s.sys.Shutdown()
	close(s.dispatcher.done)
}
