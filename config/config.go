package config

import (
	"fmt"
	"log/slog"
	"math"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// State selects where resources live.
type State string

// The values of EMULATOR_STATE.
const (
	StateMemory     State = "memory"
	StatePersistent State = "persistent"
)

// Config is the whole configuration of one emulator process. It is fixed for
// the life of the process.
type Config struct {
	Host          string        // EMULATOR_HOST
	Port          int           // EMULATOR_PORT (0 picks a free port)
	State         State         // EMULATOR_STATE
	DataDir       string        // EMULATOR_DATA_DIR
	Debug         bool          // EMULATOR_DEBUG
	LogLevel      slog.Level    // EMULATOR_LOG_LEVEL
	DefaultRegion string        // EMULATOR_DEFAULT_REGION
	MaxBodyBytes  int           // EMULATOR_MAX_BODY_BYTES
	AskTimeout    time.Duration // EMULATOR_ASK_TIMEOUT
	ShutdownGrace time.Duration // EMULATOR_SHUTDOWN_GRACE
	// OwnerIdle is how long a resource's owner may serve no write before it
	// passivates (its actor stops; its snapshot stays readable); 0 never
	// passivates (EMULATOR_OWNER_IDLE).
	OwnerIdle time.Duration
	// StoreMaxBatch caps the writes committed with one fsync
	// (EMULATOR_STORE_MAX_BATCH); 1 syncs every write on its own.
	StoreMaxBatch int
	// FixedTime, when non-zero, freezes the clock (tests, reproducible runs).
	FixedTime time.Time
	// ExternalHostname is the host name clients reach the emulator by, used
	// in the addresses it hands out (an HTTP API's apiEndpoint is
	// "<id>.execute-api.<ExternalHostname>:<port>") (EMULATOR_EXTERNAL_HOSTNAME).
	ExternalHostname string
	// MaxExecutions caps the requests to deployed APIs served at once;
	// past it they answer 429 at once (EMULATOR_MAX_EXECUTIONS).
	MaxExecutions int
	// BackendMaxConns caps the connections the data plane holds to each
	// HTTP integration backend (EMULATOR_BACKEND_MAX_CONNS).
	BackendMaxConns int
	// MaxConns caps the connections open at once, MaxConnsPerIP those from
	// one address, WebSockets included; past either a new connection gets
	// 503 (429 per address) and is closed
	// (EMULATOR_MAX_CONNS, EMULATOR_MAX_CONNS_PER_IP).
	MaxConns      int
	MaxConnsPerIP int
	// WebSocketMaxConnections caps the open WebSocket connections, every
	// API together; past it an upgrade gets 429 LimitExceededException
	// (EMULATOR_WEBSOCKET_MAX_CONNECTIONS).
	WebSocketMaxConnections int
	// SQSMaxLongPolls caps the ReceiveMessage calls waiting for messages at
	// once, every queue together; past it a receive answers at once with
	// what is there (EMULATOR_SQS_MAX_LONG_POLLS).
	SQSMaxLongPolls int
	// LambdaMaxInvocations caps the function invocations in flight, every
	// function together (Lambda's account concurrency); past it an
	// invocation gets 429 TooManyRequestsException at once
	// (EMULATOR_LAMBDA_MAX_INVOCATIONS).
	LambdaMaxInvocations int
	// EnforceGatewayThrottle answers requests that usage plans, stages or
	// the account throttle, or that are over quota, with 429; without it
	// they are only counted (EMULATOR_ENFORCE_GATEWAY_THROTTLE).
	EnforceGatewayThrottle bool
	// AccountThrottleRate and AccountThrottleBurst are the API Gateway
	// account limit per region (EMULATOR_ACCOUNT_THROTTLE_RATE, _BURST).
	AccountThrottleRate  float64
	AccountThrottleBurst int
	// MetricsRetention is how long request metrics are kept
	// (EMULATOR_METRICS_RETENTION).
	MetricsRetention Retention
	// LambdaMaxConcurrency caps the running instances of each function
	// version (EMULATOR_LAMBDA_MAX_CONCURRENCY); LambdaIdleTimeout is how
	// long an idle instance is kept warm (EMULATOR_LAMBDA_IDLE_TIMEOUT).
	LambdaMaxConcurrency int
	LambdaIdleTimeout    time.Duration
	// WebSocket APIs' quotas: the largest frame and message a client may
	// send (EMULATOR_WEBSOCKET_FRAME_BYTES, _MESSAGE_BYTES), how long a
	// connection may stay idle and live (_IDLE_TIMEOUT, _MAX_AGE), and the
	// frames queued for one connection (_SEND_QUEUE).
	WebSocketFrameBytes   int
	WebSocketMessageBytes int
	WebSocketIdleTimeout  time.Duration
	WebSocketMaxAge       time.Duration
	WebSocketSendQueue    int
	// SESRequireVerified refuses mail from a sender that is not a verified
	// SES identity, as AWS's sandbox does (EMULATOR_SES_REQUIRE_VERIFIED).
	SESRequireVerified bool
	// UI serves the dashboard at /_emulator/ui (EMULATOR_UI).
	UI bool
	// UITraces is how many executed requests the dashboard's inspector
	// keeps, with their pipeline trace; 0 keeps none (EMULATOR_UI_TRACES).
	UITraces int
	// InitEnabled runs the init hooks (EMULATOR_INIT_ENABLED).
	InitEnabled bool
	// InitDirs are the init hook trees, scanned in this order; each holds
	// boot.d, start.d, ready.d and shutdown.d (EMULATOR_INIT_DIRS).
	InitDirs []string
	// InitTimeout bounds each init script (EMULATOR_INIT_TIMEOUT).
	InitTimeout time.Duration
}

// DefaultInitDirs are the init hook trees: the compatibility tree first,
// so that hooks mounted where other emulators look run before our own.
var DefaultInitDirs = []string{"/etc/compat/init", "/etc/emulator/init"}

// Default returns the configuration used when no variable is set.
func Default() Config {
	return Config{
		Host:          "127.0.0.1",
		Port:          4566,
		State:         StateMemory,
		DataDir:       "/var/lib/emulator",
		LogLevel:      slog.LevelInfo,
		DefaultRegion: "us-east-1",
		MaxBodyBytes:  10 << 20,
		AskTimeout:    10 * time.Second,
		ShutdownGrace: 5 * time.Second,
		OwnerIdle:     30 * time.Second,
		StoreMaxBatch: 256,
		// A public name that resolves to 127.0.0.1, with its subdomains.
		ExternalHostname: "localhost.localstack.cloud",
		MaxExecutions:    4096,
		BackendMaxConns:  512,
		MaxConns:         16384,
		MaxConnsPerIP:    4096,
		// AWS's default account limit.
		AccountThrottleRate:  10000,
		AccountThrottleBurst: 5000,
		MetricsRetention:     DefaultMetricsRetention,
		LambdaMaxConcurrency: 10,
		LambdaIdleTimeout:    5 * time.Minute,
		// Lambda's default account concurrency.
		LambdaMaxInvocations:    1000,
		WebSocketMaxConnections: 10000,
		SQSMaxLongPolls:         10000,
		// AWS's WebSocket quotas.
		WebSocketFrameBytes:   32 << 10,
		WebSocketMessageBytes: 128 << 10,
		WebSocketIdleTimeout:  10 * time.Minute,
		WebSocketMaxAge:       2 * time.Hour,
		WebSocketSendQueue:    256,
		SESRequireVerified:    true,
		UI:                    true,
		UITraces:              200,
		InitEnabled:           true,
		InitDirs:              slices.Clone(DefaultInitDirs),
		InitTimeout:           30 * time.Second,
	}
}

// Addr is the listen address.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// Error names the variable whose value is wrong.
type Error struct {
	Var    string
	Value  string
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s=%q: %s", e.Var, e.Value, e.Reason)
}

var (
	regionPattern   = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d$`)
	hostnamePattern = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)
)

// FromEnv builds a Config from lookup (os.LookupEnv in production) and
// validates it. The first wrong variable is reported as an *Error.
func FromEnv(lookup func(string) (string, bool)) (Config, error) {
	c := Default()
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		if !ok {
			return "", false
		}
		return strings.TrimSpace(v), true
	}
	if v, ok := get("EMULATOR_HOST"); ok {
		if !validHost(v) {
			return c, &Error{"EMULATOR_HOST", v, "must be an IP address such as 127.0.0.1 or 0.0.0.0, or a host name such as localhost"}
		}
		c.Host = strings.Trim(v, "[]")
	}
	if v, ok := get("EMULATOR_PORT"); ok {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return c, &Error{"EMULATOR_PORT", v, "must be a port number from 0 to 65535"}
		}
		c.Port = p
	}
	if v, ok := get("EMULATOR_STATE"); ok {
		switch State(strings.ToLower(v)) {
		case StateMemory, "":
			c.State = StateMemory
		case StatePersistent:
			c.State = StatePersistent
		default:
			return c, &Error{"EMULATOR_STATE", v, "must be memory or persistent"}
		}
	}
	if v, ok := get("EMULATOR_DATA_DIR"); ok {
		if v == "" {
			return c, &Error{"EMULATOR_DATA_DIR", v, "must not be empty"}
		}
		c.DataDir = v
	} else {
		c.DataDir = userDataDir(lookup)
	}
	if v, ok := get("EMULATOR_DEBUG"); ok {
		b, err := parseBool(v)
		if err != nil {
			return c, &Error{"EMULATOR_DEBUG", v, "must be true or false"}
		}
		c.Debug = b
	}
	if v, ok := get("EMULATOR_LOG_LEVEL"); ok {
		var lvl slog.Level
		if err := lvl.UnmarshalText([]byte(v)); err != nil || v == "" {
			return c, &Error{"EMULATOR_LOG_LEVEL", v, "must be debug, info, warn or error"}
		}
		c.LogLevel = lvl
	}
	if v, ok := get("EMULATOR_DEFAULT_REGION"); ok {
		if !regionPattern.MatchString(v) {
			return c, &Error{"EMULATOR_DEFAULT_REGION", v, "must be a region name such as us-east-1"}
		}
		c.DefaultRegion = v
	}
	if v, ok := get("EMULATOR_MAX_BODY_BYTES"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1024 || n > 1<<30 {
			return c, &Error{"EMULATOR_MAX_BODY_BYTES", v, "must be a byte count from 1024 to 1073741824"}
		}
		c.MaxBodyBytes = n
	}
	if v, ok := get("EMULATOR_EXTERNAL_HOSTNAME"); ok {
		if !hostnamePattern.MatchString(v) {
			return c, &Error{"EMULATOR_EXTERNAL_HOSTNAME", v, "must be a DNS host name such as localhost.localstack.cloud"}
		}
		c.ExternalHostname = strings.ToLower(v)
	}
	for _, d := range []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"EMULATOR_MAX_EXECUTIONS", &c.MaxExecutions, 1, 1 << 20},
		{"EMULATOR_BACKEND_MAX_CONNS", &c.BackendMaxConns, 1, 1 << 16},
		{"EMULATOR_ACCOUNT_THROTTLE_BURST", &c.AccountThrottleBurst, 1, 100000},
		{"EMULATOR_LAMBDA_MAX_CONCURRENCY", &c.LambdaMaxConcurrency, 1, 1000},
		{"EMULATOR_WEBSOCKET_FRAME_BYTES", &c.WebSocketFrameBytes, 1, 16 << 20},
		{"EMULATOR_WEBSOCKET_MESSAGE_BYTES", &c.WebSocketMessageBytes, 1, 64 << 20},
		{"EMULATOR_WEBSOCKET_SEND_QUEUE", &c.WebSocketSendQueue, 1, 1 << 16},
		{"EMULATOR_MAX_CONNS", &c.MaxConns, 1, 1 << 20},
		{"EMULATOR_MAX_CONNS_PER_IP", &c.MaxConnsPerIP, 1, 1 << 20},
		{"EMULATOR_WEBSOCKET_MAX_CONNECTIONS", &c.WebSocketMaxConnections, 1, 1 << 20},
		{"EMULATOR_SQS_MAX_LONG_POLLS", &c.SQSMaxLongPolls, 1, 1 << 20},
		{"EMULATOR_LAMBDA_MAX_INVOCATIONS", &c.LambdaMaxInvocations, 1, 100000},
		{"EMULATOR_UI_TRACES", &c.UITraces, 0, 100000},
	} {
		if v, ok := get(d.name); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < d.lo || n > d.hi {
				return c, &Error{d.name, v, fmt.Sprintf("must be a count from %d to %d", d.lo, d.hi)}
			}
			*d.dst = n
		}
	}
	if v, ok := get("EMULATOR_STORE_MAX_BATCH"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 4096 {
			return c, &Error{"EMULATOR_STORE_MAX_BATCH", v, "must be a count from 1 to 4096"}
		}
		c.StoreMaxBatch = n
	}
	if v, ok := get("EMULATOR_ENFORCE_GATEWAY_THROTTLE"); ok {
		b, err := parseBool(v)
		if err != nil {
			return c, &Error{"EMULATOR_ENFORCE_GATEWAY_THROTTLE", v, "must be true or false"}
		}
		c.EnforceGatewayThrottle = b
	}
	if v, ok := get("EMULATOR_ACCOUNT_THROTTLE_RATE"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0.01 && f <= 1e9) {
			return c, &Error{"EMULATOR_ACCOUNT_THROTTLE_RATE", v, "must be requests per second from 0.01 to 1000000000"}
		}
		c.AccountThrottleRate = f
	}
	if v, ok := get("EMULATOR_METRICS_RETENTION"); ok {
		hi, lo, err := ParseRetention(v)
		if err != nil {
			return c, &Error{"EMULATOR_METRICS_RETENTION", v, "must be <1-second retention>[,<1-minute retention>], each a duration or days, such as 3h,15d"}
		}
		c.MetricsRetention = Retention{hi, lo}
	}
	if v, ok := get("EMULATOR_UI"); ok {
		b, err := parseBool(v)
		if err != nil {
			return c, &Error{"EMULATOR_UI", v, "must be true or false"}
		}
		c.UI = b
	}
	if v, ok := get("EMULATOR_SES_REQUIRE_VERIFIED"); ok {
		b, err := parseBool(v)
		if err != nil {
			return c, &Error{"EMULATOR_SES_REQUIRE_VERIFIED", v, "must be true or false"}
		}
		c.SESRequireVerified = b
	}
	if v, ok := get("EMULATOR_INIT_ENABLED"); ok {
		b, err := parseBool(v)
		if err != nil {
			return c, &Error{"EMULATOR_INIT_ENABLED", v, "must be true or false"}
		}
		c.InitEnabled = b
	}
	if v, ok := get("EMULATOR_INIT_DIRS"); ok {
		dirs, err := parseDirs(v)
		if err != nil {
			return c, &Error{"EMULATOR_INIT_DIRS", v, err.Error()}
		}
		c.InitDirs = dirs
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{
		{"EMULATOR_ASK_TIMEOUT", &c.AskTimeout},
		{"EMULATOR_SHUTDOWN_GRACE", &c.ShutdownGrace},
		{"EMULATOR_INIT_TIMEOUT", &c.InitTimeout},
		{"EMULATOR_LAMBDA_IDLE_TIMEOUT", &c.LambdaIdleTimeout},
		{"EMULATOR_WEBSOCKET_IDLE_TIMEOUT", &c.WebSocketIdleTimeout},
	} {
		if v, ok := get(d.name); ok {
			t, err := ParseDuration(v)
			if err != nil || t <= 0 || t > time.Hour {
				return c, &Error{d.name, v, "must be a positive duration such as 10s (at most 1h)"}
			}
			*d.dst = t
		}
	}
	if v, ok := get("EMULATOR_OWNER_IDLE"); ok {
		t, err := parseIdle(v)
		if err != nil {
			return c, &Error{"EMULATOR_OWNER_IDLE", v, "must be a duration such as 30s (at most 24h), or 0 or off to never passivate"}
		}
		c.OwnerIdle = t
	}
	if v, ok := get("EMULATOR_WEBSOCKET_MAX_AGE"); ok {
		t, err := ParseDuration(v)
		if err != nil || t <= 0 || t > 24*time.Hour {
			return c, &Error{"EMULATOR_WEBSOCKET_MAX_AGE", v, "must be a positive duration such as 2h (at most 24h)"}
		}
		c.WebSocketMaxAge = t
	}
	if v, ok := get("EMULATOR_FIXED_TIME"); ok && v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return c, &Error{"EMULATOR_FIXED_TIME", v, "must be an RFC 3339 time such as 2026-01-02T15:04:05Z"}
		}
		c.FixedTime = t
	}
	return c, nil
}

// validHost accepts an IP address (IPv6 with or without brackets) or a
// DNS host name whose last label is not all digits, so that a mistyped
// address such as 999.1.1.1 is refused here rather than at listen time.
func validHost(v string) bool {
	if net.ParseIP(strings.Trim(v, "[]")) != nil {
		return true
	}
	if !hostnamePattern.MatchString(v) {
		return false
	}
	last := v[strings.LastIndexByte(v, '.')+1:]
	return strings.Trim(last, "0123456789") != ""
}

// ParseDuration accepts a Go duration ("30s", "1m") or plain seconds ("30").
func ParseDuration(v string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		// Refuse NaN, infinities and anything a Duration cannot hold.
		if !(n*float64(time.Second) >= math.MinInt64 && n*float64(time.Second) <= math.MaxInt64) {
			return 0, fmt.Errorf("duration %q out of range", v)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	return time.ParseDuration(v)
}

// parseIdle reads EMULATOR_OWNER_IDLE: a duration up to 24h, or 0 / off.
func parseIdle(v string) (time.Duration, error) {
	if strings.EqualFold(v, "off") {
		return 0, nil
	}
	t, err := ParseDuration(v)
	if err != nil || t < 0 || t > 24*time.Hour {
		return 0, fmt.Errorf("out of range")
	}
	return t, nil
}

// parseDirs splits a comma-separated list of directories. Empty entries (a
// trailing comma) are dropped and a repeated directory is kept once, so that
// no hook runs twice.
func parseDirs(v string) ([]string, error) {
	var dirs []string
	for _, d := range strings.Split(v, ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		if slices.ContainsFunc(dirs, func(x string) bool { return filepath.Clean(x) == filepath.Clean(d) }) {
			continue
		}
		dirs = append(dirs, d)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("must list at least one directory (EMULATOR_INIT_ENABLED=false runs no hooks)")
	}
	return dirs, nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off", "":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean")
}
