package actors

import "time"

// Timer runs a mutation in one owner at a time the owner chooses (a
// visibility timeout, a delay, a retention period ending), so that an
// owner keeps its own deadlines instead of a global sweeper scanning every
// owner. Only the owner calls At, Fired and Stop (from its mutations), so
// the timer needs no lock; when it fires, it Tells the owner its mutation,
// which runs in the mailbox like any other command. One Timer holds at
// most one pending time.Timer: the owner sets it to its earliest deadline.
type Timer[S any] struct {
	sys *System
	e   *Entry[S]
	fn  Mutation[S]
	t   *time.Timer
	at  time.Time // when t is set to fire; zero when it is not set
}

// NewTimer returns a stopped timer that, when it fires, runs fn in the
// owner at e.
func NewTimer[S any](sys *System, e *Entry[S], fn Mutation[S]) *Timer[S] {
	return &Timer[S]{sys: sys, e: e, fn: fn}
}

// At makes the timer fire at at, unless it is already set to fire no
// later.
func (t *Timer[S]) At(at time.Time) {
	if !t.at.IsZero() && !at.Before(t.at) {
		return
	}
	t.at = at
	d := time.Until(at)
	if d < 0 {
		d = 0
	}
	if t.t == nil {
		t.t = time.AfterFunc(d, t.fire)
		return
	}
	t.t.Reset(d)
}

func (t *Timer[S]) fire() { Tell(t.sys, t.e, t.fn) }

// Pending reports whether the timer is set to fire.
func (t *Timer[S]) Pending() bool { return !t.at.IsZero() }

// Fired tells the timer that its mutation runs: it is no longer set, and
// the next At sets it again.
func (t *Timer[S]) Fired() { t.at = time.Time{} }

// Stop stops the timer; a firing already under way still Tells its
// mutation, which finds nothing due.
func (t *Timer[S]) Stop() {
	if t.t != nil {
		t.t.Stop()
	}
	t.at = time.Time{}
}
