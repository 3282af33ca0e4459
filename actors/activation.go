package actors

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/puzpuzpuz/xsync/v3"
)

// Idler is implemented by an owner, or by the state S a StateOwner
// publishes, that may have work under way outside its mailbox (timers
// set, long polls waiting): Idle reports, inside the owner, whether it may
// passivate now. An owner that does not implement it is idle whenever it
// has served no write for the system's idle time.
type Idler interface {
	Idle() bool
}

// The values of cell.sent that are not a count.
const (
	// cellPassive: no actor runs the owner; the next send activates it.
	cellPassive int64 = -1
	// cellEnded: the owner retired (deleted, or drained by a reset); sends
	// are answered ErrGone.
	cellEnded int64 = -2
	// cellActivating: a sender is starting the owner's actor; the others
	// wait for it.
	cellActivating int64 = -3
	// cellHeld: the owner's first change runs in its creator, without an
	// actor (Init); the others wait for it, as long as its store write.
	cellHeld int64 = -4
)

// cell is the part of a directory entry that runs its owner: the owner
// itself, kept while it is passive, and the actor running it while it is
// live. Passivation and activation are per cell, with no global lock:
//
//   - every command sent through the cell is counted in sent before it is
//     posted to the live actor and uncounted when the actor receives it;
//   - the actor passivates only from its own mailbox, by moving sent from
//     0 to cellPassive, so never with a command queued or on its way, and
//     a command sent before it was passivated always ran in it;
//   - a sender that finds the cell passive activates it, moving sent
//     from cellPassive to cellActivating first (two racing senders spawn
//     one actor; the loser waits the few microseconds a spawn takes), and
//     the commands sent afterwards reach the new actor, in the order they
//     were sent;
//   - the creator of a new owner may run its first change itself, holding
//     the cell (cellPassive to cellHeld and back): a create then spawns no
//     actor, and senders meanwhile wait, then activate it as usual.
//
// So at most one actor runs the owner at a time, and mutations keep their
// order across a passivation.
//
// A passive cell is what an idle owner costs besides its state, so it is
// kept small: what it spawns with is shared by every owner of its kind.
type cell struct {
	kind  *ownerKind
	owner Owner
	sent  atomic.Int64
	pid   atomic.Pointer[actor.PID]
}

// ownerKind is the system and the kind ("backup.vault") of owners.
type ownerKind struct {
	sys  *System
	name string
}

// kind returns the shared ownerKind of name.
func (s *System) kind(name string) *ownerKind {
	if k, ok := s.kinds.Load(name); ok {
		return k.(*ownerKind)
	}
	k, _ := s.kinds.LoadOrStore(name, &ownerKind{sys: s, name: name})
	return k.(*ownerKind)
}

// init makes c a passive cell for o: its actor starts at the first send.
func (c *cell) init(sys *System, kind string, o Owner) {
	c.kind, c.owner = sys.kind(kind), o
	c.sent.Store(cellPassive)
}

// acquire counts one command to send and returns the live actor to post it
// to, activating the owner when it is passive; false when it ended.
func (c *cell) acquire() (*actor.PID, bool) {
	spins := 0
	for {
		switch n := c.sent.Load(); n {
		case cellEnded:
			return nil, false
		case cellPassive:
			c.activate()
		case cellActivating:
			runtime.Gosched()
		case cellHeld:
			spins = waitHeld(spins)
		default:
			if c.sent.CompareAndSwap(n, n+1) {
				// Stored before sent left cellPassive, and kept while
				// this command is counted.
				return c.pid.Load(), true
			}
		}
	}
}

// waitHeld waits a little for a held cell: a yield at first, since a
// change in memory takes microseconds, then sleeps growing to 1 ms, since
// one that persists waits for the disk.
func waitHeld(spins int) int {
	if spins < 16 {
		runtime.Gosched()
	} else {
		time.Sleep(min(time.Duration(spins-15)*20*time.Microsecond, time.Millisecond))
	}
	return spins + 1
}

// hold moves a passive cell to held, for its creator to run a change in
// it; false when a sender activated it first.
func (c *cell) hold() bool { return c.sent.CompareAndSwap(cellPassive, cellHeld) }

// unhold ends a hold: passive, or ended when the change ended the owner.
func (c *cell) unhold(ended bool) {
	if ended {
		c.sent.Store(cellEnded)
	} else {
		c.sent.Store(cellPassive)
	}
}

// activate starts an actor for a passive owner, unless another sender
// does first. Spawning posts to a new mailbox and never waits.
func (c *cell) activate() {
	if !c.sent.CompareAndSwap(cellPassive, cellActivating) {
		return
	}
	sys := c.kind.sys
	c.pid.Store(sys.spawn(c.kind.name, c.owner, c))
	sys.activations.Add(1)
	c.sent.Store(0)
}

// received uncounts a command the actor received.
func (c *cell) received() {
	for {
		n := c.sent.Load()
		if n <= 0 || c.sent.CompareAndSwap(n, n-1) {
			return
		}
	}
}

// passivate moves a live cell with nothing on its way to passive; self is
// the actor doing it, which stops next.
func (c *cell) passivate(self *actor.PID) bool {
	if !c.sent.CompareAndSwap(0, cellPassive) {
		return false
	}
	c.pid.CompareAndSwap(self, nil)
	return true
}

// end marks the owner retired: every later send is answered ErrGone.
func (c *cell) end() { c.sent.Store(cellEnded) }

// live returns the actor running the owner, without activating it.
func (c *cell) live() Ref {
	if c.sent.Load() < 0 {
		return Ref{}
	}
	return Ref{c.pid.Load()}
}

// drain ends a passive cell at once, or returns the live actor, to be
// retired; its count is kept so that the actor does not passivate before
// the retirement reaches it.
func (c *cell) drain() (Ref, bool) {
	spins := 0
	for {
		switch n := c.sent.Load(); n {
		case cellEnded:
			return Ref{}, false
		case cellPassive:
			if c.sent.CompareAndSwap(cellPassive, cellEnded) {
				return Ref{}, false
			}
		case cellActivating:
			runtime.Gosched()
		case cellHeld:
			spins = waitHeld(spins)
		default:
			if c.sent.CompareAndSwap(n, n+1) {
				return Ref{c.pid.Load()}, true
			}
		}
	}
}

// post sends cmd through c and returns the future of its reply.
func (c *cell) post(s *System, cmd any) (actor.Future, bool) {
	pid, ok := c.acquire()
	if !ok {
		return nil, false
	}
	return s.root.RequestFuture(pid, request{cmd: cmd, counted: true}, s.timeout), true
}

// idleTick asks an actor to check whether it may passivate.
type idleTick struct{}

// PassivateAfter makes owners in entries passivate once they have served
// no command for d; 0 (the default) never passivates. Call it before any
// owner is spawned.
func (s *System) PassivateAfter(d time.Duration) {
	s.idle = d
	if d > 0 && s.sweep == nil {
		s.sweep = newIdleSweep(s)
	}
}

// Activations reports how many times an owner was started for a command
// (its first, or after a passivation) and how many times one passivated.
func (s *System) Activations() (activated, passivated uint64) {
	return s.activations.Load(), s.passivations.Load()
}

// idleSweep finds the idle owners: one goroutine per system looks at the
// live owners in cells every sweepEvery and tells each that has served
// nothing for the idle time to check (idleTick). One ticker for all
// owners, where a timer per owner would cost a runtime timer each, and
// leave the runtime's per-P timer heaps (never shrunk) sized for the most
// owners ever live, so that a reset of 100k owners would keep ~2 MB.
// An owner passivates between the idle time and the idle time plus two
// sweeps after its last command.
type idleSweep struct {
	sys  *System
	live *xsync.MapOf[*ownerActor, *actor.PID]
	done chan struct{}
}

// idleMarks are what the sweep and an actor share: the actor sets active
// on every command; the sweep clears it and keeps when it last saw it set.
type idleMarks struct {
	active     atomic.Bool
	quietSince atomic.Int64 // monoNow, by the sweep
}

// sweepEvery is how often the sweep looks: a quarter of the idle time,
// at least a millisecond and at most a second.
func sweepEvery(idle time.Duration) time.Duration {
	return min(max(idle/4, time.Millisecond), time.Second)
}

func newIdleSweep(s *System) *idleSweep {
	w := &idleSweep{sys: s, live: xsync.NewMapOf[*ownerActor, *actor.PID](), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *idleSweep) run() {
	t := time.NewTicker(sweepEvery(w.sys.idle))
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
			w.once()
		}
	}
}

// once tells every owner quiet for the idle time to check itself; the
// quiet time starts again, so that an owner that stays (busy, or commands
// on their way) is asked again an idle time later.
func (w *idleSweep) once() {
	now, idle := monoNow(), w.sys.idle
	w.live.Range(func(a *ownerActor, pid *actor.PID) bool {
		switch {
		case a.active.Swap(false):
			a.quietSince.Store(int64(now))
		case now-time.Duration(a.quietSince.Load()) >= idle:
			a.quietSince.Store(int64(now))
			w.sys.root.Send(pid, idleTick{})
		}
		return true
	})
}

func (w *idleSweep) stop() { close(w.done) }

// clockStart anchors the owners' monotonic idle clocks.
var clockStart = time.Now()

func monoNow() time.Duration { return time.Since(clockStart) }

// armIdle puts an actor in a cell under the idle sweep.
func (a *ownerActor) armIdle(ctx actor.Context) {
	if a.c == nil || a.sys.sweep == nil {
		return
	}
	a.swept = true
	a.quietSince.Store(int64(monoNow()))
	a.sys.sweep.live.Store(a, ctx.Self())
}

// checkIdle passivates the owner when it has served nothing since the
// sweep found it quiet, says it is idle, and has nothing on its way; else
// its quiet time starts again.
func (a *ownerActor) checkIdle(ctx actor.Context) {
	if !a.swept || a.retired || a.passive || a.active.Load() {
		return
	}
	if i, ok := a.o.(Idler); ok && !a.idleOwner(i) {
		a.active.Store(true)
		return
	}
	if !a.c.passivate(ctx.Self()) {
		// Commands on their way: they are activity.
		a.active.Store(true)
		return
	}
	a.passive = true
	a.sys.passivations.Add(1)
	a.unsweep()
	ctx.Stop(ctx.Self())
}

// idleOwner asks o whether it is idle; a panic counts as busy.
func (a *ownerActor) idleOwner(o Idler) (idle bool) {
	defer func() {
		if r := recover(); r != nil {
			a.sys.log.Error("owner panicked in Idle", "panic", r)
			idle = false
		}
	}()
	return o.Idle()
}

// unsweep takes the actor out of the idle sweep.
func (a *ownerActor) unsweep() {
	if a.swept {
		a.swept = false
		a.sys.sweep.live.Delete(a)
	}
}
