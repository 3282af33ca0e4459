package config_test

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudemu/emulator/config"
)

// env is a lookup over a fixed set of variables.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

func TestDefault(t *testing.T) {
	want := config.Config{
		Host:          "127.0.0.1",
		Port:          4566,
		State:         config.StateMemory,
		DataDir:       "/var/lib/emulator",
		Debug:         false,
		LogLevel:      slog.LevelInfo,
		DefaultRegion: "us-east-1",
		MaxBodyBytes:  10 << 20,
		AskTimeout:    10 * time.Second,
		ShutdownGrace: 5 * time.Second,
		OwnerIdle:     30 * time.Second,
		StoreMaxBatch: 256,
		// ExternalHostname resolves to 127.0.0.1 with every subdomain.
		ExternalHostname: "localhost.localstack.cloud",
		MaxExecutions:    4096,
		BackendMaxConns:  512,
		MaxConns:         16384,
		MaxConnsPerIP:    4096,
		// AWS's default account limit.
		AccountThrottleRate:     10000,
		AccountThrottleBurst:    5000,
		MetricsRetention:        config.Retention{High: 3 * time.Hour, Low: 15 * 24 * time.Hour},
		LambdaMaxConcurrency:    10,
		LambdaIdleTimeout:       5 * time.Minute,
		LambdaMaxInvocations:    1000,
		WebSocketMaxConnections: 10000,
		SQSMaxLongPolls:         10000,
		WebSocketFrameBytes:     32768,
		WebSocketMessageBytes:   131072,
		WebSocketIdleTimeout:    10 * time.Minute,
		WebSocketMaxAge:         2 * time.Hour,
		WebSocketSendQueue:      256,
		SESRequireVerified:      true,
		UI:                      true,
		UITraces:                200,
		InitEnabled:             true,
		InitDirs:                []string{"/etc/compat/init", "/etc/emulator/init"},
		InitTimeout:             30 * time.Second,
	}
	if got := config.Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() = %+v, want %+v", got, want)
	}
	if got := config.Default().Addr(); got != "127.0.0.1:4566" {
		t.Errorf("Addr() = %q", got)
	}
	// No variable set gives the defaults.
	got, err := config.FromEnv(env(nil))
	if err != nil {
		t.Fatalf("FromEnv(empty) = %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromEnv(empty) = %+v, want %+v", got, want)
	}
}

func TestAddr(t *testing.T) {
	for _, tc := range []struct {
		host string
		port int
		want string
	}{
		{"127.0.0.1", 4566, "127.0.0.1:4566"},
		{"0.0.0.0", 0, "0.0.0.0:0"},
		{"::1", 8080, "[::1]:8080"},
		{"localhost", 65535, "localhost:65535"},
	} {
		t.Run("host="+tc.host, func(t *testing.T) {
			c := config.Default()
			c.Host, c.Port = tc.host, tc.port
			if got := c.Addr(); got != tc.want {
				t.Errorf("Addr() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFromEnvValid(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		value string
		check func(config.Config) bool
	}{
		{"EMULATOR_HOST", "0.0.0.0", func(c config.Config) bool { return c.Host == "0.0.0.0" }},
		{"EMULATOR_HOST", "localhost", func(c config.Config) bool { return c.Host == "localhost" }},
		{"EMULATOR_HOST", "::1", func(c config.Config) bool { return c.Host == "::1" }},
		{"EMULATOR_HOST", " 10.0.0.1\n", func(c config.Config) bool { return c.Host == "10.0.0.1" }},
		{"EMULATOR_PORT", "0", func(c config.Config) bool { return c.Port == 0 }},
		{"EMULATOR_PORT", "1", func(c config.Config) bool { return c.Port == 1 }},
		{"EMULATOR_PORT", "65535", func(c config.Config) bool { return c.Port == 65535 }},
		{"EMULATOR_PORT", " 8080 ", func(c config.Config) bool { return c.Port == 8080 }},
		{"EMULATOR_STATE", "memory", func(c config.Config) bool { return c.State == config.StateMemory }},
		{"EMULATOR_STATE", "MEMORY", func(c config.Config) bool { return c.State == config.StateMemory }},
		{"EMULATOR_STATE", "", func(c config.Config) bool { return c.State == config.StateMemory }},
		{"EMULATOR_STATE", "persistent", func(c config.Config) bool { return c.State == config.StatePersistent }},
		{"EMULATOR_STATE", "Persistent", func(c config.Config) bool { return c.State == config.StatePersistent }},
		{"EMULATOR_DATA_DIR", "/tmp/emu", func(c config.Config) bool { return c.DataDir == "/tmp/emu" }},
		{"EMULATOR_DATA_DIR", "relative/dir", func(c config.Config) bool { return c.DataDir == "relative/dir" }},
		{"EMULATOR_DEBUG", "1", func(c config.Config) bool { return c.Debug }},
		{"EMULATOR_DEBUG", "true", func(c config.Config) bool { return c.Debug }},
		{"EMULATOR_DEBUG", "TRUE", func(c config.Config) bool { return c.Debug }},
		{"EMULATOR_DEBUG", "yes", func(c config.Config) bool { return c.Debug }},
		{"EMULATOR_DEBUG", "on", func(c config.Config) bool { return c.Debug }},
		{"EMULATOR_DEBUG", "0", func(c config.Config) bool { return !c.Debug }},
		{"EMULATOR_DEBUG", "false", func(c config.Config) bool { return !c.Debug }},
		{"EMULATOR_DEBUG", "no", func(c config.Config) bool { return !c.Debug }},
		{"EMULATOR_DEBUG", "off", func(c config.Config) bool { return !c.Debug }},
		{"EMULATOR_DEBUG", "", func(c config.Config) bool { return !c.Debug }},
		{"EMULATOR_LOG_LEVEL", "debug", func(c config.Config) bool { return c.LogLevel == slog.LevelDebug }},
		{"EMULATOR_LOG_LEVEL", "info", func(c config.Config) bool { return c.LogLevel == slog.LevelInfo }},
		{"EMULATOR_LOG_LEVEL", "warn", func(c config.Config) bool { return c.LogLevel == slog.LevelWarn }},
		{"EMULATOR_LOG_LEVEL", "error", func(c config.Config) bool { return c.LogLevel == slog.LevelError }},
		{"EMULATOR_LOG_LEVEL", "DEBUG", func(c config.Config) bool { return c.LogLevel == slog.LevelDebug }},
		{"EMULATOR_LOG_LEVEL", "info+2", func(c config.Config) bool { return c.LogLevel == slog.LevelInfo+2 }},
		{"EMULATOR_DEFAULT_REGION", "us-east-1", func(c config.Config) bool { return c.DefaultRegion == "us-east-1" }},
		{"EMULATOR_DEFAULT_REGION", "eu-west-2", func(c config.Config) bool { return c.DefaultRegion == "eu-west-2" }},
		{"EMULATOR_DEFAULT_REGION", "ap-southeast-5", func(c config.Config) bool { return c.DefaultRegion == "ap-southeast-5" }},
		{"EMULATOR_DEFAULT_REGION", "us-gov-west-1", func(c config.Config) bool { return c.DefaultRegion == "us-gov-west-1" }},
		{"EMULATOR_MAX_BODY_BYTES", "1024", func(c config.Config) bool { return c.MaxBodyBytes == 1024 }},
		{"EMULATOR_MAX_BODY_BYTES", "10485760", func(c config.Config) bool { return c.MaxBodyBytes == 10<<20 }},
		{"EMULATOR_MAX_BODY_BYTES", "1073741824", func(c config.Config) bool { return c.MaxBodyBytes == 1<<30 }},
		{"EMULATOR_STORE_MAX_BATCH", "1", func(c config.Config) bool { return c.StoreMaxBatch == 1 }},
		{"EMULATOR_STORE_MAX_BATCH", "256", func(c config.Config) bool { return c.StoreMaxBatch == 256 }},
		{"EMULATOR_STORE_MAX_BATCH", "4096", func(c config.Config) bool { return c.StoreMaxBatch == 4096 }},
		{"EMULATOR_MAX_EXECUTIONS", "64", func(c config.Config) bool { return c.MaxExecutions == 64 }},
		{"EMULATOR_BACKEND_MAX_CONNS", "8", func(c config.Config) bool { return c.BackendMaxConns == 8 }},
		{"EMULATOR_MAX_CONNS", "100", func(c config.Config) bool { return c.MaxConns == 100 }},
		{"EMULATOR_MAX_CONNS_PER_IP", "10", func(c config.Config) bool { return c.MaxConnsPerIP == 10 }},
		{"EMULATOR_WEBSOCKET_MAX_CONNECTIONS", "5", func(c config.Config) bool { return c.WebSocketMaxConnections == 5 }},
		{"EMULATOR_SQS_MAX_LONG_POLLS", "1", func(c config.Config) bool { return c.SQSMaxLongPolls == 1 }},
		{"EMULATOR_LAMBDA_MAX_INVOCATIONS", "100000", func(c config.Config) bool { return c.LambdaMaxInvocations == 100000 }},
		{"EMULATOR_ASK_TIMEOUT", "30s", func(c config.Config) bool { return c.AskTimeout == 30*time.Second }},
		{"EMULATOR_ASK_TIMEOUT", "30", func(c config.Config) bool { return c.AskTimeout == 30*time.Second }},
		{"EMULATOR_ASK_TIMEOUT", "1.5", func(c config.Config) bool { return c.AskTimeout == 1500*time.Millisecond }},
		{"EMULATOR_ASK_TIMEOUT", "500ms", func(c config.Config) bool { return c.AskTimeout == 500*time.Millisecond }},
		{"EMULATOR_OWNER_IDLE", "0", func(c config.Config) bool { return c.OwnerIdle == 0 }},
		{"EMULATOR_OWNER_IDLE", "OFF", func(c config.Config) bool { return c.OwnerIdle == 0 }},
		{"EMULATOR_OWNER_IDLE", "2m", func(c config.Config) bool { return c.OwnerIdle == 2*time.Minute }},
		{"EMULATOR_OWNER_IDLE", "5", func(c config.Config) bool { return c.OwnerIdle == 5*time.Second }},
		{"EMULATOR_ASK_TIMEOUT", "1h", func(c config.Config) bool { return c.AskTimeout == time.Hour }},
		{"EMULATOR_ASK_TIMEOUT", "1ns", func(c config.Config) bool { return c.AskTimeout == time.Nanosecond }},
		{"EMULATOR_SHUTDOWN_GRACE", "2m", func(c config.Config) bool { return c.ShutdownGrace == 2*time.Minute }},
		{"EMULATOR_SHUTDOWN_GRACE", "3600", func(c config.Config) bool { return c.ShutdownGrace == time.Hour }},
		{"EMULATOR_SHUTDOWN_GRACE", "0.25", func(c config.Config) bool { return c.ShutdownGrace == 250*time.Millisecond }},
		{"EMULATOR_FIXED_TIME", "2026-01-02T15:04:05Z", func(c config.Config) bool { return c.FixedTime.Equal(fixed) }},
		{"EMULATOR_FIXED_TIME", "2026-01-02T17:04:05+02:00", func(c config.Config) bool { return c.FixedTime.Equal(fixed) }},
		{"EMULATOR_FIXED_TIME", "", func(c config.Config) bool { return c.FixedTime.IsZero() }},
		{"EMULATOR_INIT_ENABLED", "false", func(c config.Config) bool { return !c.InitEnabled }},
		{"EMULATOR_INIT_ENABLED", "0", func(c config.Config) bool { return !c.InitEnabled }},
		{"EMULATOR_INIT_ENABLED", "TRUE", func(c config.Config) bool { return c.InitEnabled }},
		{"EMULATOR_INIT_DIRS", "/a", func(c config.Config) bool { return slices.Equal(c.InitDirs, []string{"/a"}) }},
		{"EMULATOR_INIT_DIRS", "/b,/a", func(c config.Config) bool { return slices.Equal(c.InitDirs, []string{"/b", "/a"}) }},
		{"EMULATOR_INIT_DIRS", " /a , rel/b ,", func(c config.Config) bool { return slices.Equal(c.InitDirs, []string{"/a", "rel/b"}) }},
		{"EMULATOR_INIT_DIRS", "/a,/b,/a/", func(c config.Config) bool { return slices.Equal(c.InitDirs, []string{"/a", "/b"}) }},
		{"EMULATOR_INIT_TIMEOUT", "45", func(c config.Config) bool { return c.InitTimeout == 45*time.Second }},
		{"EMULATOR_INIT_TIMEOUT", "2m", func(c config.Config) bool { return c.InitTimeout == 2*time.Minute }},
		{"EMULATOR_INIT_TIMEOUT", "0.5", func(c config.Config) bool { return c.InitTimeout == 500*time.Millisecond }},
	} {
		t.Run(fmt.Sprintf("var=%s/value=%q", tc.name, tc.value), func(t *testing.T) {
			c, err := config.FromEnv(env(map[string]string{tc.name: tc.value}))
			if err != nil {
				t.Fatalf("FromEnv: %v", err)
			}
			if !tc.check(c) {
				t.Errorf("FromEnv(%s=%q) = %+v", tc.name, tc.value, c)
			}
			// Every other field keeps its default.
			d := config.Default()
			if c.Host != d.Host && tc.name != "EMULATOR_HOST" ||
				c.Port != d.Port && tc.name != "EMULATOR_PORT" ||
				c.AskTimeout != d.AskTimeout && tc.name != "EMULATOR_ASK_TIMEOUT" ||
				c.MaxBodyBytes != d.MaxBodyBytes && tc.name != "EMULATOR_MAX_BODY_BYTES" ||
				c.InitEnabled != d.InitEnabled && tc.name != "EMULATOR_INIT_ENABLED" ||
				!slices.Equal(c.InitDirs, d.InitDirs) && tc.name != "EMULATOR_INIT_DIRS" ||
				c.InitTimeout != d.InitTimeout && tc.name != "EMULATOR_INIT_TIMEOUT" {
				t.Errorf("FromEnv(%s=%q) changed another field: %+v", tc.name, tc.value, c)
			}
		})
	}
}

func TestFromEnvAll(t *testing.T) {
	c, err := config.FromEnv(env(map[string]string{
		"EMULATOR_HOST":              "0.0.0.0",
		"EMULATOR_PORT":              "0",
		"EMULATOR_STATE":             "persistent",
		"EMULATOR_DATA_DIR":          "/data",
		"EMULATOR_DEBUG":             "true",
		"EMULATOR_LOG_LEVEL":         "warn",
		"EMULATOR_DEFAULT_REGION":    "eu-north-1",
		"EMULATOR_MAX_BODY_BYTES":    "2048",
		"EMULATOR_STORE_MAX_BATCH":   "1",
		"EMULATOR_ASK_TIMEOUT":       "2s",
		"EMULATOR_SHUTDOWN_GRACE":    "7",
		"EMULATOR_FIXED_TIME":        "2026-01-02T15:04:05Z",
		"EMULATOR_EXTERNAL_HOSTNAME": "Emulator.Example.Test",
		"EMULATOR_INIT_ENABLED":      "false",
		"EMULATOR_INIT_DIRS":         "/hooks/one,/hooks/two",
		"EMULATOR_INIT_TIMEOUT":      "90",
		"EMULATOR_MAX_EXECUTIONS":    "100",
		"EMULATOR_BACKEND_MAX_CONNS": "16",
		"EMULATOR_UNKNOWN":           "ignored",

		"EMULATOR_ENFORCE_GATEWAY_THROTTLE":  "true",
		"EMULATOR_ACCOUNT_THROTTLE_RATE":     "0.5",
		"EMULATOR_ACCOUNT_THROTTLE_BURST":    "7",
		"EMULATOR_METRICS_RETENTION":         "30m,2d",
		"EMULATOR_LAMBDA_MAX_CONCURRENCY":    "3",
		"EMULATOR_LAMBDA_IDLE_TIMEOUT":       "30s",
		"EMULATOR_WEBSOCKET_FRAME_BYTES":     "1000",
		"EMULATOR_WEBSOCKET_MESSAGE_BYTES":   "4000",
		"EMULATOR_WEBSOCKET_IDLE_TIMEOUT":    "30s",
		"EMULATOR_WEBSOCKET_MAX_AGE":         "3h",
		"EMULATOR_WEBSOCKET_SEND_QUEUE":      "8",
		"EMULATOR_MAX_CONNS":                 "300",
		"EMULATOR_MAX_CONNS_PER_IP":          "30",
		"EMULATOR_WEBSOCKET_MAX_CONNECTIONS": "40",
		"EMULATOR_SQS_MAX_LONG_POLLS":        "50",
		"EMULATOR_LAMBDA_MAX_INVOCATIONS":    "60",
		"EMULATOR_SES_REQUIRE_VERIFIED":      "false",
		"EMULATOR_UI":                        "false",
		"EMULATOR_UI_TRACES":                 "0",
		"EMULATOR_OWNER_IDLE":                "off",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Config{
		Host: "0.0.0.0", Port: 0, State: config.StatePersistent, DataDir: "/data", Debug: true,
		LogLevel: slog.LevelWarn, DefaultRegion: "eu-north-1", MaxBodyBytes: 2048, StoreMaxBatch: 1,
		AskTimeout: 2 * time.Second, ShutdownGrace: 7 * time.Second,
		FixedTime:        time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC),
		ExternalHostname: "emulator.example.test",
		MaxExecutions:    100,
		BackendMaxConns:  16,
		MaxConns:         300,
		MaxConnsPerIP:    30,

		EnforceGatewayThrottle:  true,
		AccountThrottleRate:     0.5,
		AccountThrottleBurst:    7,
		MetricsRetention:        config.Retention{High: 30 * time.Minute, Low: 48 * time.Hour},
		LambdaMaxConcurrency:    3,
		LambdaIdleTimeout:       30 * time.Second,
		WebSocketFrameBytes:     1000,
		WebSocketMessageBytes:   4000,
		WebSocketIdleTimeout:    30 * time.Second,
		WebSocketMaxAge:         3 * time.Hour,
		WebSocketSendQueue:      8,
		SESRequireVerified:      false,
		UITraces:                0,
		LambdaMaxInvocations:    60,
		WebSocketMaxConnections: 40,
		SQSMaxLongPolls:         50,

		InitEnabled: false,
		InitDirs:    []string{"/hooks/one", "/hooks/two"},
		InitTimeout: 90 * time.Second,
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("FromEnv = %+v\nwant %+v", c, want)
	}
}

func TestFromEnvInvalid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value string
	}{
		{"EMULATOR_HOST", ""},
		{"EMULATOR_HOST", "   "},
		{"EMULATOR_HOST", "my host"},
		{"EMULATOR_HOST", "http://localhost"},
		{"EMULATOR_HOST", "999.1.1.1"},
		{"EMULATOR_HOST", "127.0.0.1.5"},
		{"EMULATOR_HOST", "localhost:4566"},
		{"EMULATOR_PORT", ""},
		{"EMULATOR_PORT", "-1"},
		{"EMULATOR_PORT", "65536"},
		{"EMULATOR_PORT", "http"},
		{"EMULATOR_PORT", "80.5"},
		{"EMULATOR_PORT", "99999999999999999999"},
		{"EMULATOR_STATE", "disk"},
		{"EMULATOR_STATE", "mem"},
		{"EMULATOR_DATA_DIR", ""},
		{"EMULATOR_DATA_DIR", " \t"},
		{"EMULATOR_DEBUG", "maybe"},
		{"EMULATOR_DEBUG", "2"},
		{"EMULATOR_DEBUG", "y"},
		{"EMULATOR_LOG_LEVEL", ""},
		{"EMULATOR_LOG_LEVEL", "verbose"},
		{"EMULATOR_LOG_LEVEL", "trace"},
		{"EMULATOR_LOG_LEVEL", "info+"},
		{"EMULATOR_DEFAULT_REGION", ""},
		{"EMULATOR_DEFAULT_REGION", "US-EAST-1"},
		{"EMULATOR_DEFAULT_REGION", "useast1"},
		{"EMULATOR_DEFAULT_REGION", "us-east"},
		{"EMULATOR_DEFAULT_REGION", "us-east-1a"},
		{"EMULATOR_DEFAULT_REGION", "us-east-1/x"},
		{"EMULATOR_MAX_BODY_BYTES", ""},
		{"EMULATOR_MAX_BODY_BYTES", "1023"},
		{"EMULATOR_MAX_BODY_BYTES", "1073741825"},
		{"EMULATOR_MAX_BODY_BYTES", "10MB"},
		{"EMULATOR_MAX_BODY_BYTES", "-1"},
		{"EMULATOR_STORE_MAX_BATCH", ""},
		{"EMULATOR_STORE_MAX_BATCH", "0"},
		{"EMULATOR_EXTERNAL_HOSTNAME", "bad host!"},
		{"EMULATOR_EXTERNAL_HOSTNAME", "-leading.dash"},
		{"EMULATOR_EXTERNAL_HOSTNAME", ""},
		{"EMULATOR_STORE_MAX_BATCH", "4097"},
		{"EMULATOR_STORE_MAX_BATCH", "many"},
		{"EMULATOR_MAX_EXECUTIONS", "0"},
		{"EMULATOR_MAX_EXECUTIONS", "lots"},
		{"EMULATOR_BACKEND_MAX_CONNS", "0"},
		{"EMULATOR_BACKEND_MAX_CONNS", "70000"},
		{"EMULATOR_MAX_CONNS", "0"},
		{"EMULATOR_MAX_CONNS", "2000000"},
		{"EMULATOR_MAX_CONNS_PER_IP", "0"},
		{"EMULATOR_MAX_CONNS_PER_IP", "all"},
		{"EMULATOR_WEBSOCKET_MAX_CONNECTIONS", "-1"},
		{"EMULATOR_SQS_MAX_LONG_POLLS", "0"},
		{"EMULATOR_LAMBDA_MAX_INVOCATIONS", "0"},
		{"EMULATOR_LAMBDA_MAX_INVOCATIONS", "100001"},
		{"EMULATOR_ENFORCE_GATEWAY_THROTTLE", "maybe"},
		{"EMULATOR_SES_REQUIRE_VERIFIED", "sometimes"},
		{"EMULATOR_ACCOUNT_THROTTLE_RATE", "0"},
		{"EMULATOR_ACCOUNT_THROTTLE_RATE", "fast"},
		{"EMULATOR_ACCOUNT_THROTTLE_RATE", "NaN"},
		{"EMULATOR_ACCOUNT_THROTTLE_BURST", "0"},
		{"EMULATOR_ACCOUNT_THROTTLE_BURST", "100001"},
		{"EMULATOR_METRICS_RETENTION", "forever"},
		{"EMULATOR_LAMBDA_MAX_CONCURRENCY", "0"},
		{"EMULATOR_LAMBDA_IDLE_TIMEOUT", "2h"},
		{"EMULATOR_WEBSOCKET_FRAME_BYTES", "0"},
		{"EMULATOR_WEBSOCKET_SEND_QUEUE", "lots"},
		{"EMULATOR_WEBSOCKET_IDLE_TIMEOUT", "2h"},
		{"EMULATOR_WEBSOCKET_MAX_AGE", "25h"},
		{"EMULATOR_WEBSOCKET_MAX_AGE", "0s"},
		{"EMULATOR_METRICS_RETENTION", "2d,1d"},
		{"EMULATOR_METRICS_RETENTION", "3h,100d"},
		{"EMULATOR_METRICS_RETENTION", "1h,2h,3h"},
		{"EMULATOR_ASK_TIMEOUT", ""},
		{"EMULATOR_ASK_TIMEOUT", "bad"},
		{"EMULATOR_OWNER_IDLE", "-1s"},
		{"EMULATOR_OWNER_IDLE", "25h"},
		{"EMULATOR_OWNER_IDLE", "never"},
		{"EMULATOR_OWNER_IDLE", ""},
		{"EMULATOR_ASK_TIMEOUT", "0"},
		{"EMULATOR_ASK_TIMEOUT", "0s"},
		{"EMULATOR_ASK_TIMEOUT", "-1s"},
		{"EMULATOR_ASK_TIMEOUT", "-5"},
		{"EMULATOR_ASK_TIMEOUT", "2h"},
		{"EMULATOR_ASK_TIMEOUT", "3601"},
		{"EMULATOR_ASK_TIMEOUT", "1e300"},
		{"EMULATOR_ASK_TIMEOUT", "NaN"},
		{"EMULATOR_ASK_TIMEOUT", "Inf"},
		{"EMULATOR_SHUTDOWN_GRACE", "soon"},
		{"EMULATOR_SHUTDOWN_GRACE", "0"},
		{"EMULATOR_SHUTDOWN_GRACE", "61m"},
		{"EMULATOR_FIXED_TIME", "2026-01-02"},
		{"EMULATOR_FIXED_TIME", "yesterday"},
		{"EMULATOR_FIXED_TIME", "1767366245"},
		{"EMULATOR_INIT_ENABLED", "sometimes"},
		{"EMULATOR_INIT_DIRS", ""},
		{"EMULATOR_INIT_DIRS", " , ,"},
		{"EMULATOR_INIT_TIMEOUT", ""},
		{"EMULATOR_INIT_TIMEOUT", "0"},
		{"EMULATOR_INIT_TIMEOUT", "-30"},
		{"EMULATOR_INIT_TIMEOUT", "forever"},
		{"EMULATOR_INIT_TIMEOUT", "2h"},
	} {
		t.Run(fmt.Sprintf("var=%s/value=%q", tc.name, tc.value), func(t *testing.T) {
			_, err := config.FromEnv(env(map[string]string{tc.name: tc.value}))
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("FromEnv(%s=%q) = %v, want a *config.Error", tc.name, tc.value, err)
			}
			if ce.Var != tc.name {
				t.Errorf("Error.Var = %q, want %q", ce.Var, tc.name)
			}
			if ce.Value != strings.TrimSpace(tc.value) {
				t.Errorf("Error.Value = %q, want %q", ce.Value, strings.TrimSpace(tc.value))
			}
			if ce.Reason == "" {
				t.Errorf("Error.Reason is empty")
			}
			if !strings.HasPrefix(ce.Error(), tc.name+"=") {
				t.Errorf("Error() = %q does not name %s", ce.Error(), tc.name)
			}
		})
	}
}

func TestFromEnvInvalidAmongValid(t *testing.T) {
	// One wrong variable among valid ones is the one reported.
	vars := map[string]string{
		"EMULATOR_HOST":           "0.0.0.0",
		"EMULATOR_PORT":           "4566",
		"EMULATOR_STATE":          "memory",
		"EMULATOR_DEFAULT_REGION": "us-west-2",
		"EMULATOR_ASK_TIMEOUT":    "5s",
	}
	for _, bad := range []string{"EMULATOR_PORT", "EMULATOR_STATE", "EMULATOR_DEFAULT_REGION", "EMULATOR_ASK_TIMEOUT"} {
		t.Run("var="+bad, func(t *testing.T) {
			v := map[string]string{}
			for k, x := range vars {
				v[k] = x
			}
			v[bad] = "not valid"
			_, err := config.FromEnv(env(v))
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Var != bad {
				t.Errorf("FromEnv = %v, want an error for %s", err, bad)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"30s", 30 * time.Second},
		{"30", 30 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{"0.001", time.Millisecond},
		{"0", 0},
		{"-2", -2 * time.Second},
		{"1m30s", 90 * time.Second},
		{"250ms", 250 * time.Millisecond},
		{"1h", time.Hour},
	} {
		t.Run(fmt.Sprintf("in=%q", tc.in), func(t *testing.T) {
			got, err := config.ParseDuration(tc.in)
			if err != nil || got != tc.want {
				t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
	for _, in := range []string{"bad", "", "30 s", "s", "1.5.2", "10MB"} {
		t.Run(fmt.Sprintf("in=%q", in), func(t *testing.T) {
			if got, err := config.ParseDuration(in); err == nil {
				t.Errorf("ParseDuration(%q) = %v, want an error", in, got)
			}
		})
	}
}

func TestParseDurationNonFinite(t *testing.T) {
	for _, in := range []string{"NaN", "Inf", "-Inf", "infinity", "1e300", "1e10"} {
		t.Run(fmt.Sprintf("in=%q", in), func(t *testing.T) {
			if got, err := config.ParseDuration(in); err == nil {
				t.Errorf("ParseDuration(%q) = %v (%d), want an error", in, got, int64(got))
			}
		})
	}
}
