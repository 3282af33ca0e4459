package compat

import (
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/inbox"
	"github.com/cloudemu/emulator/inithook"
)

// Edition is the edition the legacy health shape reports.
const Edition = "community"

// Emulation tiers of a service.
const (
	TierFull        = "full"
	TierPartial     = "partial"
	TierUnsupported = "unsupported"
)

// Service describes how much of one AWS service is emulated.
type Service struct {
	Name string
	// Full and Partial are the supported operations, fully and partly
	// emulated; every other operation of the model answers
	// NotImplementedException.
	Full, Partial []string
	// Operations is the number of operations in the service's model.
	Operations int
}

// Tier is the service's emulation tier.
func (s Service) Tier() string {
	switch {
	case len(s.Full)+len(s.Partial) == 0:
		return TierUnsupported
	case len(s.Partial) == 0 && len(s.Full) == s.Operations:
		return TierFull
	}
	return TierPartial
}

// Storage describes the resolved storage backend.
type Storage struct {
	State   string `json:"state"`   // memory or persistent
	Backend string `json:"backend"` // memory or bbolt
	DataDir string `json:"dataDir,omitempty"`
}

// Deps is what the endpoints read and act on.
type Deps struct {
	Version  string
	Started  time.Time
	Services []Service
	Storage  Storage
	// Reset wipes every resource, the persistent store too.
	Reset func() error
	// DockerSocket is the container runtime socket probed by health.
	DockerSocket string
	// Config is the effective configuration: its Debug serves the
	// /_emulator/debug family, and the debug config reports it.
	Config config.Config
	// Environ is the process environment (os.Environ()), read to tell
	// where each setting came from.
	Environ []string
	// Counts reports how many resources each service holds, per account
	// and region.
	Counts func() []ResourceCount
	// Init is the init hook runner whose status /_emulator/init reports.
	Init *inithook.Runner
	// Metrics writes what /_emulator/metrics serves (nil: nothing).
	Metrics MetricsWriter
	// Runtimes lists the function runtimes /_emulator/lambda/runtimes
	// reports (nil: none).
	Runtimes func() []Runtime
	// Inbox is the captured mail, short messages and pushes the inbox
	// endpoints read and clear (nil: always empty).
	Inbox *inbox.Inbox
	// PeekQueue reads a page of a queue's messages without consuming them:
	// at most limit after the message with id after (nil: no queue
	// exists).
	PeekQueue func(sc awswire.Scope, name, after string, limit int) (PeekedQueue, bool)
	// FunctionCode serves the zip a GetFunction Code.Location names,
	// given the URL's path members and its X-Amz-Date and
	// X-Amz-Signature (nil: no function code is served).
	FunctionCode func(account, region, hash, date, signature string) ([]byte, error)
}

// Route is one endpoint.
type Route struct {
	Method  string
	Path    string
	Handler restjson.Handler
}

// Routes returns every endpoint of the emulator family and its aliases.
func Routes(d Deps) []Route {
	h := &endpoints{d: d}
	var rs []Route
	for _, p := range []string{"/_emulator/health"} {
		rs = append(rs, Route{http.MethodGet, p, h.health}, Route{http.MethodHead, p, h.health})
	}
	for _, p := range []string{"/_compat/health", "/_localstack/health"} {
		rs = append(rs, Route{http.MethodGet, p, h.legacyHealth}, Route{http.MethodHead, p, h.legacyHealth})
	}
	for _, p := range []string{"/_emulator/reset", "/_compat/state/reset", "/_localstack/state/reset"} {
		rs = append(rs, Route{http.MethodPost, p, h.reset})
	}
	rs = append(rs, h.metricsRoutes()...)
	rs = append(rs, h.runtimesRoutes()...)
	rs = append(rs, Route{http.MethodGet, pathFunctionCode + "{account}/{region}/{hash}", h.functionCode})
	rs = append(rs, h.inboxRoutes()...)
	rs = append(rs, Route{http.MethodGet, pathPeek, h.peekOwn})
	rs = append(rs, h.peekAliasRoutes()...)
	rs = append(rs, initRoutes(d)...)
	rs = append(rs, h.debugRoutes()...)
	rs = append(rs, h.fallbackRoutes()...)
	return rs
}

type endpoints struct{ d Deps }

type serviceHealth struct {
	Tier           string   `json:"tier"`
	Full           []string `json:"full"`
	Partial        []string `json:"partial"`
	NotImplemented int      `json:"notImplemented"`
}

type runtimeHealth struct {
	// Required is false: the emulator runs nothing in containers, so a
	// missing runtime is a fact, not a fault.
	Required  bool   `json:"required"`
	Socket    string `json:"socket"`
	Connected bool   `json:"connected"`
	Note      string `json:"note"`
	// Error is a socket that exists and does not answer.
	Error string `json:"error,omitempty"`
}

// healthDoc is what /_emulator/health answers.
type healthDoc struct {
	Status           string                   `json:"status"`
	Version          string                   `json:"version"`
	Edition          string                   `json:"edition"`
	UptimeSeconds    int64                    `json:"uptimeSeconds"`
	Services         map[string]serviceHealth `json:"services"`
	Storage          Storage                  `json:"storage"`
	ContainerRuntime runtimeHealth            `json:"containerRuntime"`
}

func (h *endpoints) health(c *restjson.Call) error {
	return c.JSON(http.StatusOK, h.healthDoc())
}

func (h *endpoints) healthDoc() healthDoc {
	services := make(map[string]serviceHealth, len(h.d.Services))
	for _, s := range h.d.Services {
		full, partial := sorted(s.Full), sorted(s.Partial)
		services[s.Name] = serviceHealth{
			Tier: s.Tier(), Full: full, Partial: partial,
			NotImplemented: s.Operations - len(full) - len(partial),
		}
	}
	return healthDoc{
		Status:           "running",
		Version:          h.d.Version,
		Edition:          Edition,
		UptimeSeconds:    int64(time.Since(h.d.Started) / time.Second),
		Services:         services,
		Storage:          h.d.Storage,
		ContainerRuntime: probeRuntime(h.d.DockerSocket),
	}
}

// legacyHealth answers in the shape other emulators' health checks parse:
// services maps each name to "running" (served) or "disabled". With
// ?detailed=true it is the detailed health, which needs EMULATOR_DEBUG.
func (h *endpoints) legacyHealth(c *restjson.Call) error {
	if v, ok := c.Query("detailed"); ok && v != "false" && v != "0" {
		return h.gated([]string{pathDebugHealth}, (*endpoints).debugHealthRead)(c)
	}
	services := make(map[string]string, len(h.d.Services))
	for _, s := range h.d.Services {
		state := "running"
		if s.Tier() == TierUnsupported {
			state = "disabled"
		}
		services[s.Name] = state
	}
	return c.JSON(http.StatusOK, struct {
		Services map[string]string `json:"services"`
		Edition  string            `json:"edition"`
		Version  string            `json:"version"`
	}{services, Edition, h.d.Version})
}

func (h *endpoints) reset(c *restjson.Call) error {
	if err := h.d.Reset(); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		Status string `json:"status"`
	}{"reset"})
}

// probeRuntime reports whether the container runtime's socket answers.
// The dial is bounded so that a health check never hangs on it.
func probeRuntime(socket string) runtimeHealth {
	if host := os.Getenv("DOCKER_HOST"); strings.HasPrefix(host, "unix://") {
		socket = strings.TrimPrefix(host, "unix://")
	}
	r := runtimeHealth{Socket: socket, Note: "not needed: the emulator runs everything in its own process, functions as native processes"}
	if _, err := os.Stat(socket); err != nil {
		r.Note += "; no container runtime socket here"
		return r
	}
	conn, err := net.DialTimeout("unix", socket, 200*time.Millisecond)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	_ = conn.Close()
	r.Connected = true
	return r
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return out
}
