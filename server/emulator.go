package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/compat"
	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/httpfront"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/inithook"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/store"
	"github.com/cloudemu/emulator/ui"
)

// Version is the emulator's version, set at build time with
// -ldflags "-X github.com/cloudemu/emulator/server.Version=...".
var Version = "0.1.0-dev"

// Emulator is one emulator: its store, its services and its HTTP front.
type Emulator struct {
	cfg      config.Config
	log      *slog.Logger
	store    store.Store
	sys      *actors.System
	services []Service
	server   *httpfront.Server
	hooks    *inithook.Runner // nil: no init hooks (in-process tests)
	metrics  *metrics.Regions
	inbox    *inbox.Inbox
	// inspector keeps the newest executed requests' traces for the
	// dashboard (nil: off); dashboard is nil when EMULATOR_UI=false.
	inspector *execute.Inspector
	dashboard *ui.Dashboard
	port      atomic.Int64

	shutdownOnce sync.Once
	shutdownErr  error
	releasing    sync.Mutex // held while a reset's memory goes back to the OS
	resets       httpfront.Resets
}

// Option adds something main owns to an Emulator.
type Option func(*Emulator)

// WithInit gives the emulator the init hook runner whose status it serves.
func WithInit(r *inithook.Runner) Option { return func(e *Emulator) { e.hooks = r } }

// Open builds an emulator from cfg: it opens the store, builds every
// registered service, re-creates every persisted owner and builds the route
// table. It does not listen yet.
func Open(cfg config.Config, log *slog.Logger, opts ...Option) (*Emulator, error) {
	e := &Emulator{cfg: cfg, log: log}
	for _, o := range opts {
		o(e)
	}
	switch cfg.State {
	case config.StatePersistent:
		st, err := store.OpenBolt(cfg.DataDir, store.BoltOptions{MaxBatch: cfg.StoreMaxBatch, Logger: log})
		if err != nil {
			return nil, &config.Error{Var: "EMULATOR_DATA_DIR", Value: cfg.DataDir, Reason: err.Error()}
		}
		e.store = st
	default:
		e.store = store.NewMemory()
	}
	now := time.Now
	if !cfg.FixedTime.IsZero() {
		fixed := cfg.FixedTime
		now = func() time.Time { return fixed }
	}
	e.sys = actors.NewSystem(log, cfg.AskTimeout)
	e.sys.PassivateAfter(cfg.OwnerIdle)
	e.inbox = inbox.New(inbox.DefaultLimit)
	if cfg.UI {
		e.inspector = execute.NewInspector(cfg.UITraces)
	}
	e.port.Store(int64(cfg.Port))
	e.metrics = metrics.NewRegions(metrics.Config{HighResRetention: cfg.MetricsRetention.High,
		LowResRetention: cfg.MetricsRetention.Low, Now: now})
	env := Env{Sys: e.sys, Store: e.store, Now: now, Log: log, Config: cfg, Metrics: e.metrics,
		Functions: &functionInvoker{}, Accounts: &accountBuckets{}, Queues: &queueDeliverer{},
		Admission: execute.NewAdmission(cfg.MaxExecutions), Inbox: e.inbox, Inspector: e.inspector}
	for _, build := range registry {
		e.services = append(e.services, build(env))
	}
	if err := e.restore(); err != nil {
		_ = e.store.Close()
		return nil, err
	}

	var peek func(awswire.Scope, string, string, int) (compat.PeekedQueue, bool)
	var download func(account, region, hash, date, signature string) ([]byte, error)
	for _, s := range e.services {
		if s.PeekQueue != nil {
			peek = s.PeekQueue
		}
		if s.DownloadCode != nil {
			download = s.DownloadCode
		}
	}
	deps := compat.Deps{
		Init:         e.hooks,
		Version:      Version,
		Started:      time.Now(),
		Services:     e.describe(),
		Storage:      compat.Storage{State: string(cfg.State), Backend: e.store.Backend(), DataDir: dataDir(cfg)},
		Reset:        e.Reset,
		DockerSocket: "/var/run/docker.sock",
		Config:       cfg,
		Environ:      os.Environ(),
		Counts:       e.counts,
		Metrics:      e.writeMetrics,
		Runtimes:     e.runtimes,
		Inbox:        e.inbox,
		PeekQueue:    peek,
		FunctionCode: download,
	}
	var extra []httpfront.ExtraRoute
	for _, r := range compat.Routes(deps) {
		extra = append(extra, httpfront.ExtraRoute{Method: r.Method, Path: r.Path, Name: r.Path, Handler: r.Handler})
	}
	if cfg.UI {
		e.dashboard = ui.New(e.dashboardDeps(deps))
		for _, r := range e.dashboard.Routes() {
			extra = append(extra, httpfront.ExtraRoute{Method: r.Method, Path: r.Path, Name: r.Path,
				Handler: func(c *restjson.Call) error { r.Handler(c.Ctx); return nil }})
		}
	}
	handlers := map[awswire.Service]map[string]restjson.Handler{}
	rpc := map[awswire.Service]map[string]awsrpc.Handler{}
	var kinds []execute.Owned
	for _, s := range e.services {
		handlers[s.Wire] = s.Handlers
		if s.RPC != nil {
			rpc[s.Wire] = s.RPC
		}
		if s.Execute != nil {
			kinds = append(kinds, *s.Execute)
		}
	}
	var exec execute.Handler
	if len(kinds) > 0 {
		exec = execute.Route(kinds...)
	}
	srv, err := httpfront.NewServer(log, httpfront.ServerOptions{
		DefaultRegion: cfg.DefaultRegion,
		MaxBodyBytes:  cfg.MaxBodyBytes,
		Handlers:      handlers,
		RPC:           rpc,
		QueuePeek:     compat.PeekHandler(deps),
		Extra:         extra,
		Execute:       exec,
		WebSocket:     webSockets(e.services),
		MaxConns:      cfg.MaxConns,
		MaxConnsPerIP: cfg.MaxConnsPerIP,
		MaxWebSockets: cfg.WebSocketMaxConnections,
		Resets:        &e.resets,
		CloudWatch: func(sc awswire.Scope) *metrics.Store {
			return e.metrics.Of(sc.Account, sc.Region)
		},
	})
	if err != nil {
		_ = e.store.Close()
		return nil, err
	}
	e.server = srv
	return e, nil
}

// ServiceNames lists the emulated services in the order health reports them.
func (e *Emulator) ServiceNames() []string {
	names := make([]string, len(e.services))
	for i, s := range e.services {
		names[i] = s.Name
	}
	return names
}

func dataDir(cfg config.Config) string {
	if cfg.State == config.StatePersistent {
		return cfg.DataDir
	}
	return ""
}

// describe tells health how much of each service is emulated.
func (e *Emulator) describe() []compat.Service {
	count := map[awswire.Service]int{}
	for _, op := range awswire.Operations {
		count[op.Service]++
	}
	partial := map[string]bool{}
	out := make([]compat.Service, 0, len(e.services))
	for _, s := range e.services {
		clear(partial)
		for _, op := range s.Partial {
			partial[op] = true
		}
		d := compat.Service{Name: s.Name, Operations: count[s.Wire]}
		for op := range s.Handlers {
			if partial[op] {
				d.Partial = append(d.Partial, op)
			} else {
				d.Full = append(d.Full, op)
			}
		}
		for op := range s.RPC {
			if partial[op] {
				d.Partial = append(d.Partial, op)
			} else {
				d.Full = append(d.Full, op)
			}
		}
		out = append(out, d)
	}
	return out
}

// counts reports every service's resource counts per account and region,
// for the debug state.
func (e *Emulator) counts() []compat.ResourceCount {
	var out []compat.ResourceCount
	for _, s := range e.services {
		for sc, c := range s.Owners.Counts() {
			out = append(out, compat.ResourceCount{Service: s.Name, Account: sc.Account, Region: sc.Region, Resources: c})
		}
	}
	return out
}

// restore re-creates every owner the store holds.
func (e *Emulator) restore() error {
	byName := map[string]Owners{}
	for _, s := range e.services {
		byName[s.Owners.StoreService()] = s.Owners
	}
	n := 0
	began := time.Now()
	next := began.Add(2 * time.Second)
	err := e.store.Load(func(key string, value []byte) error {
		// A large store takes seconds: say that it is being read.
		if n&4095 == 0 && n > 0 && time.Now().After(next) {
			e.log.Info("restoring state", "records", n, "elapsed", time.Since(began).Round(time.Millisecond).String())
			next = time.Now().Add(2 * time.Second)
		}
		_, _, service, _, _, _, ok := store.ParseKey(key)
		if !ok {
			return fmt.Errorf("emulator: restore: malformed key %q", key)
		}
		o, ok := byName[service]
		if !ok {
			return fmt.Errorf("emulator: restore: unknown service in key %q", key)
		}
		n++
		return o.Restore(key, value)
	})
	if err != nil {
		return err
	}
	for _, s := range e.services {
		if err := s.Owners.RestoreDone(); err != nil {
			return err
		}
	}
	if n > 0 {
		e.log.Info("state restored", "records", n, "elapsed", time.Since(began).Round(time.Millisecond).String())
	}
	return nil
}

// Handler serves one request; for in-process tests.
func (e *Emulator) Handler() fasthttp.RequestHandler { return e.server.Handle }

// Serve answers requests on ln until Shutdown.
func (e *Emulator) Serve(ln net.Listener) error {
	// With port 0 the port is known only now.
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		e.port.Store(int64(a.Port))
		if a.Port != e.cfg.Port {
			for _, s := range e.services {
				if s.Listening != nil {
					s.Listening(a.Port)
				}
			}
		}
	}
	err := e.server.Serve(ln)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// runtimes lists the function runtimes of every service that runs them.
func (e *Emulator) runtimes() []compat.Runtime {
	var out []compat.Runtime
	for _, s := range e.services {
		if s.Runtimes == nil {
			continue
		}
		for _, r := range s.Runtimes() {
			out = append(out, compat.Runtime{Name: r.Name, Available: r.Available, Interpreter: r.Interpreter,
				Version: r.Version, How: r.How, Problem: r.Problem})
		}
	}
	return out
}

// writeMetrics writes /_emulator/metrics.
func (e *Emulator) writeMetrics(w io.Writer) error {
	usage := func() []metrics.KeyUsage {
		var out []metrics.KeyUsage
		for _, s := range e.services {
			if s.Usage != nil {
				out = append(out, s.Usage()...)
			}
		}
		return out
	}
	return e.metrics.WritePrometheus(w, metrics.PrometheusHooks{Enforced: e.cfg.EnforceGatewayThrottle, Usage: usage})
}

// detach forgets and retires every owner of every service.
func (e *Emulator) detach() {
	for _, s := range e.services {
		s.Owners.Detach()
	}
}

// Inbox is the mail, short messages and pushes captured since the start or
// the last reset.
func (e *Emulator) Inbox() *inbox.Inbox { return e.inbox }

// Reset wipes every resource of every service, the persistent store too.
// Once the retired owners have ended, a large reset hands its memory back
// to the operating system (see release).
func (e *Emulator) Reset() error {
	e.resets.Begin()
	defer e.resets.End()
	heap := heapObjects()
	e.closeSockets()
	e.detach()
	e.metrics.Reset()
	e.inbox.Reset()
	e.inspector.Reset()
	for _, s := range e.services {
		if s.FunctionRuntime != nil {
			if rt := s.FunctionRuntime(); rt != nil {
				rt.ForgetActivity() // after the owners' evictions: no record survives
			}
		}
	}
	if err := e.store.Wipe(); err != nil {
		return fmt.Errorf("emulator: reset: %w", err)
	}
	e.sys.AfterStops(func() { e.release(heap) })
	e.log.Info("state reset")
	return nil
}

// releaseAbove is the heap (live and not yet collected) above which a
// reset hands memory back to the operating system: below it, a forced
// collection per reset would cost a test suite that resets between cases
// more than the few megabytes it returns.
const releaseAbove = 32 << 20

// release runs after a reset's owners have ended, off the request path:
// it compacts what the actor system keeps of them and, after a large
// reset, collects and returns the freed memory to the operating system
// (the runtime would otherwise hold it for minutes). GOMEMLIMIT still
// bounds the heap in between.
func (e *Emulator) release(heapBefore uint64) {
	compacted := e.sys.Compact()
	if heapBefore < releaseAbove && !compacted {
		return
	}
	// One at a time: a second reset meanwhile is covered by this one.
	if !e.releasing.TryLock() {
		return
	}
	defer e.releasing.Unlock()
	start := time.Now()
	debug.FreeOSMemory()
	e.log.Debug("reset memory released", "heapBefore", heapBefore, "heapAfter", heapObjects(), "took", time.Since(start))
}

// heapObjects is the heap's objects, live and not yet collected, read
// without stopping the world.
func heapObjects() uint64 {
	s := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// closeSockets closes every open WebSocket connection (fasthttp's
// shutdown leaves hijacked connections alone), running their $disconnect.
func (e *Emulator) closeSockets() {
	for _, s := range e.services {
		if s.Sockets != nil {
			_ = s.Sockets.Close()
		}
	}
}

// Shutdown drains in-flight requests (bounded by ctx), stops every owner and
// closes the store, which makes every acknowledged write durable. It is
// idempotent.
func (e *Emulator) Shutdown(ctx context.Context) error {
	e.shutdownOnce.Do(func() {
		if e.dashboard != nil {
			e.dashboard.Close() // its live feeds would hold the drain
		}
		if err := e.server.FastHTTP().ShutdownWithContext(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			e.shutdownErr = err
		}
		// Before the owners go: $disconnect runs against the API.
		e.closeSockets()
		e.detach()
		for _, s := range e.services {
			if s.Close == nil {
				continue
			}
			if err := s.Close(); err != nil && e.shutdownErr == nil {
				e.shutdownErr = err
			}
		}
		e.sys.Shutdown()
		if err := e.store.Close(); err != nil && e.shutdownErr == nil {
			e.shutdownErr = err
		}
	})
	return e.shutdownErr
}
