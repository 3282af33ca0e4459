package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Variable documents one EMULATOR_* variable: help output comes from this
// list, the README's configuration table is checked against it, and a
// variable not in it is reported as unknown.
type Variable struct {
	Name    string
	Default string
	Help    string
}

// Variables are the variables FromEnv reads, in the order help lists them.
var Variables = []Variable{
	{"EMULATOR_HOST", "127.0.0.1", "address to listen on (0.0.0.0 for every interface)"},
	{"EMULATOR_PORT", "4566", "port to listen on; 0 picks a free one (logged at start)"},
	{"EMULATOR_STATE", "memory", "memory, or persistent to keep state across restarts"},
	{"EMULATOR_DATA_DIR", "$XDG_DATA_HOME/emulator (root: /var/lib/emulator)", "where persistent state lives"},
	{"EMULATOR_LOG_LEVEL", "info", "debug (one line per request), info, warn or error"},
	{"EMULATOR_DEBUG", "false", "serve the /_emulator/debug endpoints"},
	{"EMULATOR_DEFAULT_REGION", "us-east-1", "region of requests that do not name one"},
	{"EMULATOR_EXTERNAL_HOSTNAME", "localhost.localstack.cloud", "host name in the endpoints the emulator hands out"},
	{"EMULATOR_MAX_BODY_BYTES", "10485760", "largest request body accepted (413 past it)"},
	{"EMULATOR_MAX_EXECUTIONS", "4096", "requests to deployed APIs served at once (429 past it)"},
	{"EMULATOR_BACKEND_MAX_CONNS", "512", "connections held to each HTTP integration backend"},
	{"EMULATOR_MAX_CONNS", "16384", "connections open at once, WebSockets included (503 and closed past it)"},
	{"EMULATOR_MAX_CONNS_PER_IP", "4096", "connections open at once from one address (429 and closed past it)"},
	{"EMULATOR_ENFORCE_GATEWAY_THROTTLE", "false", "answer throttled and over-quota gateway requests with 429 (else only count them)"},
	{"EMULATOR_ACCOUNT_THROTTLE_RATE", "10000", "API Gateway account limit per region: requests per second"},
	{"EMULATOR_ACCOUNT_THROTTLE_BURST", "5000", "API Gateway account limit per region: burst"},
	{"EMULATOR_LAMBDA_MAX_CONCURRENCY", "10", "running instances of each function version"},
	{"EMULATOR_LAMBDA_IDLE_TIMEOUT", "5m", "how long an idle function instance is kept warm"},
	{"EMULATOR_LAMBDA_MAX_INVOCATIONS", "1000", "function invocations in flight, every function together (429 past it)"},
	{"EMULATOR_WEBSOCKET_FRAME_BYTES", "32768", "largest WebSocket frame a client may send (closed with 1009 past it)"},
	{"EMULATOR_WEBSOCKET_MESSAGE_BYTES", "131072", "largest WebSocket message, and @connections payload"},
	{"EMULATOR_WEBSOCKET_IDLE_TIMEOUT", "10m", "how long a WebSocket connection may stay idle"},
	{"EMULATOR_WEBSOCKET_MAX_AGE", "2h", "how long a WebSocket connection may live"},
	{"EMULATOR_WEBSOCKET_SEND_QUEUE", "256", "frames queued for one WebSocket connection (LimitExceededException past it)"},
	{"EMULATOR_WEBSOCKET_MAX_CONNECTIONS", "10000", "open WebSocket connections, every API together (429 past it)"},
	{"EMULATOR_SQS_MAX_LONG_POLLS", "10000", "SQS receives waiting for messages at once (past it a receive does not wait)"},
	{"EMULATOR_SES_REQUIRE_VERIFIED", "true", "refuse SES mail from senders that are not verified identities (AWS's sandbox)"},
	{"EMULATOR_UI", "true", "serve the dashboard at /_emulator/ui"},
	{"EMULATOR_UI_TRACES", "200", "executed requests the dashboard's inspector keeps with their trace (0: none)"},
	{"EMULATOR_METRICS_RETENTION", "3h,15d", "how long request metrics are kept at 1-second and at 1-minute resolution"},
	{"EMULATOR_ASK_TIMEOUT", "10s", "longest wait for a resource's owner"},
	{"EMULATOR_SHUTDOWN_GRACE", "5s", "how long in-flight requests may finish at shutdown"},
	{"EMULATOR_OWNER_IDLE", "30s", "how long a resource's owner serves no write before it passivates (0 or off: never)"},
	{"EMULATOR_STORE_MAX_BATCH", "256", "writes committed with one fsync in persistent mode"},
	{"EMULATOR_INIT_ENABLED", "true", "run the init hooks"},
	{"EMULATOR_INIT_DIRS", strings.Join(DefaultInitDirs, ","), "init hook trees (boot.d, start.d, ready.d, shutdown.d)"},
	{"EMULATOR_INIT_TIMEOUT", "30s", "longest run of one init script"},
	{"EMULATOR_FIXED_TIME", "", "freeze the clock at this RFC 3339 time"},
}

// otherVariables are EMULATOR_* names read by other programs of the
// project, which may share the emulator's environment.
var otherVariables = []string{
	"EMULATOR_ENDPOINT", // cloudlocal, and the init hooks' environment
	"EMULATOR_TEST_LOG", // the test suites' log level
}

// Unknown returns a warning for each EMULATOR_* variable in environ (as
// os.Environ gives it) that nothing reads, naming the closest known name
// when one is near.
func Unknown(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "EMULATOR_") || slices.Contains(otherVariables, name) ||
			slices.ContainsFunc(Variables, func(v Variable) bool { return v.Name == name }) {
			continue
		}
		msg := fmt.Sprintf("%s is not a variable the emulator reads; it is ignored", name)
		if near := closest(name); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		out = append(out, msg)
	}
	return out
}

// closest is the known name at the smallest edit distance from name, if
// that distance is small enough to be a typo (and shorter than the known
// name's own part, so that a bare EMULATOR_ does not suggest EMULATOR_UI).
func closest(name string) string {
	best, bestD := "", 4
	for _, v := range Variables {
		if d := distance(name, v.Name); d < bestD && d < len(v.Name)-len("EMULATOR_") {
			best, bestD = v.Name, d
		}
	}
	return best
}

// distance is the Damerau-Levenshtein (optimal string alignment) distance,
// so that a swapped pair of letters (POTR) counts as one edit.
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// geteuid is replaced in tests.
var geteuid = os.Geteuid

// userDataDir is where persistent state lives when EMULATOR_DATA_DIR is
// not set: /var/lib/emulator for root (the container), else the user's
// data directory, which a normal user can create.
func userDataDir(lookup func(string) (string, bool)) string {
	if geteuid() == 0 {
		return "/var/lib/emulator"
	}
	if d, ok := lookup("XDG_DATA_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, "emulator")
	}
	if h, ok := lookup("HOME"); ok && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "share", "emulator")
	}
	return "/var/lib/emulator"
}
