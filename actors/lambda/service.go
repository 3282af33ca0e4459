package lambda

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/functions"
	"github.com/cloudemu/emulator/store"
)

// storeService is the service segment of this package's store keys.
const storeService = "lambda"

// Record kinds, the kind segment of the store keys.
const (
	kindFunction = "function"
	kindCode     = "code"
)

// dirs are the directories of one account and region: functions by name
// (listed in name order, as ListFunctions pages them) and code packages by
// hex SHA-256.
type dirs struct {
	functions *actors.Directory[Function]
	codes     *actors.Directory[Code]
}

func newDirs() *dirs {
	return &dirs{functions: actors.NewDirectory[Function](), codes: actors.NewDirectory[Code]()}
}

// Runtime runs function code: *functions.Runtime is one; tests use fakes.
// InvokeWith MUST be safe for concurrent use and honour the function's
// timeout; its failures to invoke are *functions.Error values with Lambda's
// codes. Evict stops the execution environments of the function versions
// whose qualified ARN is arnPrefix or starts with arnPrefix+":" (every
// version of an unqualified ARN), or with arnPrefix when it ends in ":".
type Runtime interface {
	InvokeWith(ctx context.Context, fn functions.Function, in functions.Invocation) (functions.Result, error)
	Evict(arnPrefix string)
}

// Options configure a Service.
type Options struct {
	// Runtime runs invocations; nil answers Invoke with 501.
	Runtime Runtime
	// AsyncQueue bounds the Event invocations waiting to run (1000 when
	// 0); AsyncWorkers bounds how many run at once (4 when 0).
	AsyncQueue, AsyncWorkers int
}

// Service is the Lambda facade: reads come from published snapshots,
// writes run inside the owning actor.
type Service struct {
	sys     *actors.System
	store   store.Store
	now     func() time.Time
	log     *slog.Logger
	seq     actors.Seq
	scopes  *actors.Scopes[dirs]
	runtime Runtime
	async   *asyncQueue

	// life is cancelled by Detach: invocations started before a reset
	// or a shutdown stop waiting.
	mu     sync.Mutex
	life   context.Context
	cancel context.CancelFunc
}

// New returns an empty service. Call Restore before serving to load what
// the store holds.
func New(sys *actors.System, st store.Store, now func() time.Time, log *slog.Logger, opts Options) *Service {
	if opts.AsyncQueue <= 0 {
		opts.AsyncQueue = 1000
	}
	if opts.AsyncWorkers <= 0 {
		opts.AsyncWorkers = 4
	}
	s := &Service{sys: sys, store: st, now: now, log: log.With("component", "lambda"),
		scopes: actors.NewScopes(newDirs), runtime: opts.Runtime,
		async: &asyncQueue{limit: opts.AsyncQueue, workers: opts.AsyncWorkers}}
	s.life, s.cancel = context.WithCancel(context.Background())
	return s
}

func (s *Service) records() actors.Records {
	return actors.Records{Sys: s.sys, Store: s.store, Busy: s.busy}
}

func recordKey(sc awswire.Scope, kind, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kind, id)
}

func (s *Service) context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.life
}

// ---- restore, reset, counts ----

// Restore re-creates the owner of one persisted record. It is called at
// start, for every key of this service, before serving.
func (s *Service) Restore(key string, value []byte) error {
	account, region, service, kind, _, _, ok := store.ParseKey(key)
	if !ok || service != storeService {
		return fmt.Errorf("lambda: restore: foreign key %q", key)
	}
	d := s.scopes.Get(awswire.Scope{Account: account, Region: region})
	var err error
	switch kind {
	case kindFunction:
		_, err = actors.Restore(s.records(), "lambda."+kind, d.functions, value, func(f *Function) (string, string) {
			s.seq.Restored(f.Seq)
			return f.Name, ""
		})
	case kindCode:
		_, err = actors.Restore(s.records(), "lambda."+kind, d.codes, value, func(c *Code) (string, string) {
			c.Holders = map[string]int{}
			return c.Hash, ""
		})
	default:
		return fmt.Errorf("lambda: restore: unknown kind in %q", key)
	}
	if err != nil {
		return fmt.Errorf("lambda: restore %s: %w", key, err)
	}
	return nil
}

// RestoreDone rebuilds the code packages' holders from the restored
// functions and deletes, durably, the packages no function holds (a crash
// between a function's change and its package's check leaves them).
func (s *Service) RestoreDone() error {
	var err error
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		holders := map[string][]string{}
		for _, f := range d.functions.Snapshots(nil) {
			for _, h := range f.hashes() {
				holders[h] = append(holders[h], f.Name)
				if _, ok := d.codes.Get(h); !ok {
					s.log.Error("restored function runs code the store does not hold", "function", f.ARN, "code", h)
				}
			}
		}
		for _, c := range d.codes.Snapshots(nil) {
			names := holders[c.Hash]
			e, _, ok := d.codes.Entry(c.Hash)
			if !ok {
				continue
			}
			_, uerr := actors.Update(s.sys, e, func(cur *Code) (actors.Change[Code], error) {
				if len(names) == 0 {
					return actors.Change[Code]{End: true, Records: []actors.Record{actors.Del(codeKey(sc, c.Hash))}}, nil
				}
				h := make(map[string]int, len(names))
				for _, n := range names {
					h[n] = 0
				}
				return actors.Change[Code]{Next: &Code{CodeRecord: cur.CodeRecord, Holders: h}}, nil
			})
			if uerr != nil {
				err = fmt.Errorf("lambda: reconcile code %s: %w", c.Hash, uerr)
				return false
			}
		}
		return true
	})
	return err
}

// StoreService is the service segment of the keys Restore accepts.
func (s *Service) StoreService() string { return storeService }

// Detach forgets every owner and stops them all, drops the Event
// invocations still queued, stops waiting for running ones and evicts
// every execution environment. The caller wipes the store afterwards.
func (s *Service) Detach() {
	s.async.drop()
	s.mu.Lock()
	s.cancel()
	s.life, s.cancel = context.WithCancel(context.Background())
	s.mu.Unlock()
	var refs []actors.Ref
	s.scopes.Drain(func(_ awswire.Scope, d *dirs) bool {
		refs = append(refs, d.functions.Drain()...)
		refs = append(refs, d.codes.Drain()...)
		return true
	})
	s.sys.Stop(refs)
	s.evict("arn:")
}

// Counts reports how many functions and code packages each scope holds.
func (s *Service) Counts() map[awswire.Scope]map[string]int {
	out := map[awswire.Scope]map[string]int{}
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		if n := d.functions.Len(); n > 0 || d.codes.Len() > 0 {
			out[sc] = map[string]int{"functions": n, "codePackages": d.codes.Len()}
		}
		return true
	})
	return out
}

// CodeRecords reports the code packages sc holds (for tests and reports).
func (s *Service) CodeRecords(sc awswire.Scope) int {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return 0
	}
	return len(d.codes.Snapshots(nil))
}
