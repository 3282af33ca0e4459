package httpfront

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/actors"
	aapigw "github.com/cloudemu/emulator/actors/apigateway"
	av2 "github.com/cloudemu/emulator/actors/apigatewayv2"
	abackup "github.com/cloudemu/emulator/actors/backup"
	"github.com/cloudemu/emulator/compat"
	"github.com/cloudemu/emulator/config"
	hapigw "github.com/cloudemu/emulator/httpfront/apigateway"
	hv2 "github.com/cloudemu/emulator/httpfront/apigatewayv2"
	hbackup "github.com/cloudemu/emulator/httpfront/backup"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/httpfront/wire"
	"github.com/cloudemu/emulator/inithook"
	"github.com/cloudemu/emulator/store"
)

// Version is the emulator's version, set at build time with
// -ldflags "-X github.com/cloudemu/emulator/httpfront.Version=...".
var Version = "0.1.0-dev"

// Emulator is one emulator: its store, its owners and its HTTP front.
type Emulator struct {
	cfg    config.Config
	log    *slog.Logger
	store  store.Store
	sys    *actors.System
	backup *abackup.Service
	apigw  *aapigw.Service
	apigw2 *av2.Service
	server *Server
	hooks  *inithook.Runner // nil: no init hooks (in-process tests)

	shutdownOnce sync.Once
	shutdownErr  error
}

// Option adds something main owns to an Emulator.
type Option func(*Emulator)

// WithInit gives the emulator the init hook runner whose status it serves.
func WithInit(r *inithook.Runner) Option { return func(e *Emulator) { e.hooks = r } }

// Open builds an emulator from cfg: it opens the store, re-creates every
// persisted owner and builds the route table. It does not listen yet.
func Open(cfg config.Config, log *slog.Logger, opts ...Option) (*Emulator, error) {
	e := &Emulator{cfg: cfg, log: log}
	for _, o := range opts {
		o(e)
	}
	switch cfg.State {
	case config.StatePersistent:
		st, err := store.OpenBolt(cfg.DataDir, store.BoltOptions{MaxBatch: cfg.StoreMaxBatch, Logger: log.With("component", "store")})
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
	e.backup = abackup.New(e.sys, e.store, now, log)
	e.apigw = aapigw.New(e.sys, e.store, now, log)
	e.apigw2 = av2.New(e.sys, e.store, now, log)
	e.apigw2.SetEndpoint(executeAPIHost(cfg.ExternalHostname, cfg.Port))
	if err := e.restore(); err != nil {
		_ = e.store.Close()
		return nil, err
	}

	started := time.Now()
	extra := []ExtraRoute{}
	for _, r := range compat.Routes(compat.Deps{
		Init:         e.hooks,
		Version:      Version,
		Started:      started,
		Services:     services(),
		Storage:      compat.Storage{State: string(cfg.State), Backend: e.store.Backend(), DataDir: dataDir(cfg)},
		Reset:        e.Reset,
		DockerSocket: "/var/run/docker.sock",
		Config:       cfg,
		Environ:      os.Environ(),
		Counts:       e.counts,
	}) {
		extra = append(extra, ExtraRoute{Method: r.Method, Path: r.Path, Name: r.Path, Handler: r.Handler})
	}
	srv, err := NewServer(log, ServerOptions{
		DefaultRegion: cfg.DefaultRegion,
		MaxBodyBytes:  cfg.MaxBodyBytes,
		Handlers: map[wire.Service]map[string]restjson.Handler{
			wire.Backup:       hbackup.Handlers(e.backup),
			wire.APIGateway:   hapigw.Handlers(e.apigw),
			wire.APIGatewayV2: hv2.Handlers(e.apigw2),
		},
		Extra: extra,
	})
	if err != nil {
		_ = e.store.Close()
		return nil, err
	}
	e.server = srv
	return e, nil
}

func dataDir(cfg config.Config) string {
	if cfg.State == config.StatePersistent {
		return cfg.DataDir
	}
	return ""
}

// services describes each service's emulation for the health endpoint.
func services() []compat.Service {
	count := map[wire.Service]int{}
	for _, op := range wire.Operations {
		count[op.Service]++
	}
	describe := func(name string, svc wire.Service, handlers map[string]restjson.Handler, partial []string) compat.Service {
		out := compat.Service{Name: name, Operations: count[svc]}
		for op := range handlers {
			if slices.Contains(partial, op) {
				out.Partial = append(out.Partial, op)
			} else {
				out.Full = append(out.Full, op)
			}
		}
		return out
	}
	return []compat.Service{
		describe("backup", wire.Backup, hbackup.Handlers(nil), hbackup.Partial),
		describe("apigateway", wire.APIGateway, hapigw.Handlers(nil), hapigw.Partial),
		describe("apigatewayv2", wire.APIGatewayV2, hv2.Handlers(nil), hv2.Partial),
	}
}

// counts reports every service's resource counts per account and region,
// for the debug state.
func (e *Emulator) counts() []compat.ResourceCount {
	var out []compat.ResourceCount
	for _, svc := range []struct {
		name   string
		counts func() map[actors.Scope]map[string]int
	}{
		{"backup", e.backup.Counts},
		{"apigateway", e.apigw.Counts},
		{"apigatewayv2", e.apigw2.Counts},
	} {
		for sc, c := range svc.counts() {
			out = append(out, compat.ResourceCount{Service: svc.name, Account: sc.Account, Region: sc.Region, Resources: c})
		}
	}
	return out
}

// restorer is a service that re-creates its owners from the store.
type restorer interface {
	StoreService() string
	Restore(key string, value []byte) error
	RestoreDone() error
}

// restore re-creates every owner the store holds.
func (e *Emulator) restore() error {
	byName := map[string]restorer{}
	for _, r := range []restorer{e.backup, e.apigw, e.apigw2} {
		byName[r.StoreService()] = r
	}
	n := 0
	err := e.store.Load(func(key string, value []byte) error {
		_, _, service, _, _, _, ok := store.ParseKey(key)
		if !ok {
			return fmt.Errorf("httpfront: restore: malformed key %q", key)
		}
		r, ok := byName[service]
		if !ok {
			return fmt.Errorf("httpfront: restore: unknown service in key %q", key)
		}
		n++
		return r.Restore(key, value)
	})
	if err != nil {
		return err
	}
	for _, r := range byName {
		if err := r.RestoreDone(); err != nil {
			return err
		}
	}
	if n > 0 {
		e.log.Info("state restored", "records", n, "backend", e.store.Backend())
	}
	return nil
}

// Handler serves one request; for in-process tests.
func (e *Emulator) Handler() fasthttp.RequestHandler { return e.server.Handle }

// executeAPIHost is the address template of an API's execute-api host.
func executeAPIHost(hostname string, port int) string {
	return "{id}.execute-api." + hostname + ":" + strconv.Itoa(port)
}

// Serve answers requests on ln until Shutdown.
func (e *Emulator) Serve(ln net.Listener) error {
	// With port 0 the port is known only now.
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.Port != e.cfg.Port {
		e.apigw2.SetEndpoint(executeAPIHost(e.cfg.ExternalHostname, a.Port))
	}
	err := e.server.FastHTTP().Serve(ln)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// Reset wipes every resource of every service, the persistent store too.
func (e *Emulator) Reset() error {
	e.backup.Detach()
	e.apigw.Detach()
	e.apigw2.Detach()
	if err := e.store.Wipe(); err != nil {
		return fmt.Errorf("httpfront: reset: %w", err)
	}
	e.log.Info("state reset")
	return nil
}

// Shutdown drains in-flight requests (bounded by ctx), stops every owner and
// closes the store, which makes every acknowledged write durable. It is
// idempotent.
func (e *Emulator) Shutdown(ctx context.Context) error {
	e.shutdownOnce.Do(func() {
		if err := e.server.FastHTTP().ShutdownWithContext(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			e.shutdownErr = err
		}
		e.backup.Detach()
		e.apigw.Detach()
		e.apigw2.Detach()
		e.sys.Shutdown()
		if err := e.store.Close(); err != nil && e.shutdownErr == nil {
			e.shutdownErr = err
		}
	})
	return e.shutdownErr
}
