// Package actorstest builds what actor-level tests of a service need: a
// fresh actor system and store, torn down when the test ends.
package actorstest

import (
	"log/slog"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/store"
)

// Scope is the account and region actor-level tests act in.
var Scope = awswire.Scope{Account: awswire.DefaultAccount, Region: "us-east-1"}

// Env is what a service is built from in a test.
type Env struct {
	Sys   *actors.System
	Store store.Store
	Now   func() time.Time
	Log   *slog.Logger
}

// Option changes the test environment.
type Option func(*Env)

// WithStore uses st (a persistent store, or one shared with a restart).
func WithStore(st store.Store) Option { return func(e *Env) { e.Store = st } }

// WithClock uses now as the services' clock.
func WithClock(now func() time.Time) Option { return func(e *Env) { e.Now = now } }

// New returns a fresh actor system (Asks bounded by 5 s, logs discarded)
// on an in-memory store, shut down when the test ends.
func New(t testing.TB, opts ...Option) Env {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	e := Env{Sys: actors.NewSystem(log, 5*time.Second), Store: store.NewMemory(), Now: time.Now, Log: log}
	for _, o := range opts {
		o(&e)
	}
	t.Cleanup(e.Sys.Shutdown)
	return e
}
