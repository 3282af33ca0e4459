package functions

import (
	"log/slog"
	"time"
)

// Config sets up a Runtime. The zero value of a field means its default.
type Config struct {
	MaxConcurrency int           // instances per function version (EMULATOR_LAMBDA_MAX_CONCURRENCY; default 10)
	MaxInvocations int           // invocations in flight, every function together (EMULATOR_LAMBDA_MAX_INVOCATIONS; default 1000)
	IdleTimeout    time.Duration // reap idle instances after (EMULATOR_LAMBDA_IDLE_TIMEOUT; default 5m)
	WorkDir        string        // where code is unpacked, one dir per code SHA-256 (default: a temp dir removed by Close)
	EndpointURL    string        // AWS_ENDPOINT_URL given to functions (the emulator's address)
	Log            *slog.Logger  // function stdout/stderr lines go here tagged function= requestId=

	// InitTimeout bounds a cold start's init phase: from the process's
	// start to its first call for an invocation (Lambda's 10 s).
	InitTimeout time.Duration
	// Python and Node are the interpreters the python3.x and nodejs*.x
	// runtimes use, looked up in PATH (default "python3" and "node").
	Python, Node string
}

// Defaults.
const (
	DefaultMaxConcurrency = 10
	DefaultMaxInvocations = 1000 // Lambda's default account concurrency
	DefaultIdleTimeout    = 5 * time.Minute
	DefaultInitTimeout    = 10 * time.Second
)

func (c Config) withDefaults() Config {
	if c.MaxConcurrency <= 0 {
		c.MaxConcurrency = DefaultMaxConcurrency
	}
	if c.MaxInvocations <= 0 {
		c.MaxInvocations = DefaultMaxInvocations
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.InitTimeout <= 0 {
		c.InitTimeout = DefaultInitTimeout
	}
	if c.Python == "" {
		c.Python = "python3"
	}
	if c.Node == "" {
		c.Node = "node"
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}
