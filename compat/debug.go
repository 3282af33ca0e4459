package compat

import (
	"cmp"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// The /_emulator/debug family; it answers only when EMULATOR_DEBUG=true.
const (
	pathDebugHealth = "/_emulator/debug/health"
	pathDebugConfig = "/_emulator/debug/config"
	pathDebugState  = "/_emulator/debug/state"
)

// ResourceCount is how many resources of each kind one service holds in
// one account and region.
type ResourceCount struct {
	Service   string         `json:"service"`
	Account   string         `json:"account"`
	Region    string         `json:"region"`
	Resources map[string]int `json:"resources"`
}

// debugRoutes are the /_emulator/debug endpoints and every Debug or
// ReadOnly row of the table, under each spelling.
func (h *endpoints) debugRoutes() []Route {
	rs := []Route{
		{getOnly, pathDebugHealth, h.gated(nil, (*endpoints).debugHealthRead)},
		{getOnly, pathDebugConfig, h.gated(nil, (*endpoints).debugConfigRead)},
		{getOnly, pathDebugState, h.gated(nil, (*endpoints).debugStateRead)},
	}
	for i := range Rows {
		r := &Rows[i]
		if r.handler == nil {
			continue
		}
		for _, p := range Spellings(r.Path) {
			rs = append(rs, Route{getOnly, p, h.gated(r.Replacement, r.handler)})
		}
	}
	return rs
}

// gated serves read only when EMULATOR_DEBUG=true; otherwise a 404 that
// says how to enable it, naming the endpoints the path stands for.
func (h *endpoints) gated(replacement []string, read func(*endpoints, *restjson.Call) error) restjson.Handler {
	return func(c *restjson.Call) error {
		if !h.d.Config.Debug {
			return debugDisabled(c, replacement)
		}
		return read(h, c)
	}
}

type runtimeInfo struct {
	GoVersion     string `json:"goVersion"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
	PID           int    `json:"pid"`
	NumCPU        int    `json:"numCPU"`
	GOMAXPROCS    int    `json:"gomaxprocs"`
	Goroutines    int    `json:"goroutines"`
	StartedAt     string `json:"startedAt"`
	UptimeSeconds int64  `json:"uptimeSeconds"`
	Memory        struct {
		HeapAllocBytes uint64 `json:"heapAllocBytes"`
		HeapObjects    uint64 `json:"heapObjects"`
		SysBytes       uint64 `json:"sysBytes"`
		NumGC          uint32 `json:"numGC"`

		// HeapLiveBytes is the heap the last collection found live: unlike
		// HeapAlloc it does not swing with the garbage made since.
		HeapLiveBytes uint64 `json:"heapLiveBytes"`
	} `json:"memory"`
}

func (h *endpoints) runtimeInfo() runtimeInfo {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	ri := runtimeInfo{
		GoVersion:     runtime.Version(),
		OS:            runtime.GOOS,
		Arch:          runtime.GOARCH,
		PID:           os.Getpid(),
		NumCPU:        runtime.NumCPU(),
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		Goroutines:    runtime.NumGoroutine(),
		StartedAt:     h.d.Started.UTC().Format(time.RFC3339),
		UptimeSeconds: int64(time.Since(h.d.Started) / time.Second),
	}
	ri.Memory.HeapAllocBytes = ms.HeapAlloc
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		ri.Memory.HeapLiveBytes = live[0].Value.Uint64()
	}
	ri.Memory.HeapObjects = ms.HeapObjects
	ri.Memory.SysBytes = ms.Sys
	ri.Memory.NumGC = ms.NumGC
	return ri
}

// debugHealthRead is the detailed health: /_emulator/health plus the
// runtime and every setting's value.
func (h *endpoints) debugHealthRead(c *restjson.Call) error {
	settings, _ := h.settings()
	summary := make(map[string]string, len(settings))
	for _, s := range settings {
		summary[s.Name] = s.Value
	}
	return c.JSON(200, struct {
		healthDoc
		Runtime runtimeInfo       `json:"runtime"`
		Config  map[string]string `json:"config"`
	}{h.healthDoc(), h.runtimeInfo(), summary})
}

// Setting is one EMULATOR_* variable as the debug config reports it.
type Setting struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Default string `json:"default"`
	// Source is "environment", "default", or "override" (a flag or the
	// embedding program set it).
	Source string `json:"source"`
}

// Unrecognized is an EMULATOR_* variable of the environment that is no
// setting.
type Unrecognized struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type configDoc struct {
	Version       string         `json:"version"`
	Edition       string         `json:"edition"`
	UptimeSeconds int64          `json:"uptimeSeconds"`
	Settings      []Setting      `json:"settings"`
	Unrecognized  []Unrecognized `json:"unrecognized"`
	Redaction     string         `json:"redaction"`
}

func (h *endpoints) configDoc() configDoc {
	settings, unknown := h.settings()
	return configDoc{
		Version:       h.d.Version,
		Edition:       Edition,
		UptimeSeconds: int64(time.Since(h.d.Started) / time.Second),
		Settings:      settings,
		Unrecognized:  unknown,
		Redaction:     "values of variables whose name contains " + strings.Join(secretWords, ", ") + " are shown as " + redacted,
	}
}

func (h *endpoints) debugConfigRead(c *restjson.Call) error {
	return c.JSON(200, h.configDoc())
}

type stateDoc struct {
	Scopes []ResourceCount           `json:"scopes"`
	Totals map[string]map[string]int `json:"totals"`
}

func (h *endpoints) stateDoc() stateDoc {
	var scopes []ResourceCount
	if h.d.Counts != nil {
		scopes = h.d.Counts()
	}
	if scopes == nil {
		scopes = []ResourceCount{}
	}
	slices.SortFunc(scopes, func(a, b ResourceCount) int {
		return cmp.Or(cmp.Compare(a.Service, b.Service), cmp.Compare(a.Account, b.Account), cmp.Compare(a.Region, b.Region))
	})
	totals := map[string]map[string]int{}
	for _, s := range scopes {
		t := totals[s.Service]
		if t == nil {
			t = map[string]int{}
			totals[s.Service] = t
		}
		for k, n := range s.Resources {
			t[k] += n
		}
	}
	return stateDoc{Scopes: scopes, Totals: totals}
}

func (h *endpoints) debugStateRead(c *restjson.Call) error {
	return c.JSON(200, h.stateDoc())
}

// diagnoseRead is the state and the configuration in one document.
func (h *endpoints) diagnoseRead(c *restjson.Call) error {
	return c.JSON(200, struct {
		Version string    `json:"version"`
		Config  configDoc `json:"config"`
		State   stateDoc  `json:"state"`
	}{h.d.Version, h.configDoc(), h.stateDoc()})
}

// settingFields maps each EMULATOR_* variable to its config.Config field.
// A test checks that every field and every variable config.go reads is
// here.
var settingFields = []struct{ Var, Field string }{
	{"EMULATOR_HOST", "Host"},
	{"EMULATOR_PORT", "Port"},
	{"EMULATOR_STATE", "State"},
	{"EMULATOR_DATA_DIR", "DataDir"},
	{"EMULATOR_DEBUG", "Debug"},
	{"EMULATOR_UI", "UI"},
	{"EMULATOR_UI_TRACES", "UITraces"},
	{"EMULATOR_LOG_LEVEL", "LogLevel"},
	{"EMULATOR_DEFAULT_REGION", "DefaultRegion"},
	{"EMULATOR_MAX_BODY_BYTES", "MaxBodyBytes"},
	{"EMULATOR_ASK_TIMEOUT", "AskTimeout"},
	{"EMULATOR_SHUTDOWN_GRACE", "ShutdownGrace"},
	{"EMULATOR_OWNER_IDLE", "OwnerIdle"},
	{"EMULATOR_STORE_MAX_BATCH", "StoreMaxBatch"},
	{"EMULATOR_MAX_EXECUTIONS", "MaxExecutions"},
	{"EMULATOR_BACKEND_MAX_CONNS", "BackendMaxConns"},
	{"EMULATOR_FIXED_TIME", "FixedTime"},
	{"EMULATOR_EXTERNAL_HOSTNAME", "ExternalHostname"},
	{"EMULATOR_INIT_ENABLED", "InitEnabled"},
	{"EMULATOR_INIT_DIRS", "InitDirs"},
	{"EMULATOR_INIT_TIMEOUT", "InitTimeout"},
	{"EMULATOR_ENFORCE_GATEWAY_THROTTLE", "EnforceGatewayThrottle"},
	{"EMULATOR_ACCOUNT_THROTTLE_RATE", "AccountThrottleRate"},
	{"EMULATOR_ACCOUNT_THROTTLE_BURST", "AccountThrottleBurst"},
	{"EMULATOR_METRICS_RETENTION", "MetricsRetention"},
	{"EMULATOR_LAMBDA_MAX_CONCURRENCY", "LambdaMaxConcurrency"},
	{"EMULATOR_LAMBDA_IDLE_TIMEOUT", "LambdaIdleTimeout"},
	{"EMULATOR_WEBSOCKET_FRAME_BYTES", "WebSocketFrameBytes"},
	{"EMULATOR_WEBSOCKET_MESSAGE_BYTES", "WebSocketMessageBytes"},
	{"EMULATOR_WEBSOCKET_IDLE_TIMEOUT", "WebSocketIdleTimeout"},
	{"EMULATOR_WEBSOCKET_MAX_AGE", "WebSocketMaxAge"},
	{"EMULATOR_WEBSOCKET_SEND_QUEUE", "WebSocketSendQueue"},
	{"EMULATOR_SES_REQUIRE_VERIFIED", "SESRequireVerified"},
	{"EMULATOR_MAX_CONNS", "MaxConns"},
	{"EMULATOR_MAX_CONNS_PER_IP", "MaxConnsPerIP"},
	{"EMULATOR_WEBSOCKET_MAX_CONNECTIONS", "WebSocketMaxConnections"},
	{"EMULATOR_SQS_MAX_LONG_POLLS", "SQSMaxLongPolls"},
	{"EMULATOR_LAMBDA_MAX_INVOCATIONS", "LambdaMaxInvocations"},
}

// secretWords mark a variable whose value the debug endpoints never show.
var secretWords = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL"}

const redacted = "<redacted>"

// isSecret reports whether a variable's value must be redacted.
func isSecret(name string) bool {
	up := strings.ToUpper(name)
	return slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(up, w) })
}

func redact(name, value string) string {
	if value != "" && isSecret(name) {
		return redacted
	}
	return value
}

// settings lists every setting with its effective value and where it came
// from, and the EMULATOR_* variables of the environment that are none.
func (h *endpoints) settings() ([]Setting, []Unrecognized) {
	env := map[string]string{}
	for _, kv := range h.d.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	// The configuration the environment alone gives tells a setting a
	// flag overrode from one the environment set.
	fromEnv, envErr := config.FromEnv(lookup)
	eff, def, envv := reflect.ValueOf(h.d.Config), reflect.ValueOf(config.Default()), reflect.ValueOf(fromEnv)
	known := make(map[string]bool, len(settingFields))
	out := make([]Setting, 0, len(settingFields))
	for _, sf := range settingFields {
		known[sf.Var] = true
		f := eff.FieldByName(sf.Field)
		if !f.IsValid() {
			continue // the test catches a renamed field
		}
		value := formatValue(f)
		_, set := lookup(sf.Var)
		source := "default"
		switch {
		case envErr == nil && value != formatValue(envv.FieldByName(sf.Field)):
			source = "override"
		case set:
			source = "environment"
		case value != formatValue(def.FieldByName(sf.Field)):
			source = "override"
		}
		out = append(out, Setting{
			Name:    sf.Var,
			Value:   redact(sf.Var, value),
			Default: formatValue(def.FieldByName(sf.Field)),
			Source:  source,
		})
	}
	unknown := []Unrecognized{}
	for k, v := range env {
		if strings.HasPrefix(k, "EMULATOR_") && !known[k] {
			unknown = append(unknown, Unrecognized{Name: k, Value: redact(k, v)})
		}
	}
	slices.SortFunc(unknown, func(a, b Unrecognized) int { return cmp.Compare(a.Name, b.Name) })
	return out, unknown
}

// formatValue writes a setting's value as its variable would spell it.
func formatValue(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	switch x := v.Interface().(type) {
	case time.Time:
		if x.IsZero() {
			return ""
		}
		return x.UTC().Format(time.RFC3339)
	case slog.Level:
		return strings.ToLower(x.String())
	case []string:
		return strings.Join(x, ",")
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v.Interface())
}
