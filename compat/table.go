package compat

import (
	"net/http"
	"strings"

	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Availability is how the emulator answers a compatibility path.
type Availability string

// The availabilities of a Row.
const (
	// Served paths answer on every request, with no flag.
	Served Availability = "served"
	// Debug paths answer only when EMULATOR_DEBUG=true; otherwise 404.
	Debug Availability = "debug"
	// ReadOnly paths answer GET when EMULATOR_DEBUG=true and refuse every
	// write with 400, because the configuration is fixed for the process.
	ReadOnly Availability = "read-only"
	// NotServedYet paths belong to a service a later version adds; until
	// then they answer 404 naming their replacement, so that nothing
	// pretends to work.
	NotServedYet Availability = "not-served-yet"
	// NoReplacement paths answer 404 saying why nothing replaces them.
	NoReplacement Availability = "no-replacement"
	// Replaced paths answer 404 naming the emulator endpoint to call
	// instead, which is served.
	Replaced Availability = "replaced"
)

// Row is one compatibility path and how it is answered.
type Row struct {
	// Path is the spec's spelling, under /_compat or /_cloud. A segment
	// {name} matches one path segment, a last segment {name...} any rest
	// (none included). Every row also answers under its legacy spelling
	// (see Spellings).
	Path string
	// Query, when set, is a query the path is also asked with instead of
	// Path ("detailed=true" on the legacy health).
	Query string
	// Methods are the methods the path answers; a 404 row answers every
	// method the same way.
	Methods []string
	Availability
	// Replacement names the emulator's own endpoints that serve what the
	// path served, empty when none does.
	Replacement []string
	// Note says why there is no replacement, or what else to know.
	Note string
	// ServedBy names the file whose routes answer a Served row; the router
	// test checks that they do.
	ServedBy string
	// handler answers a Debug or ReadOnly row's reads.
	handler func(*endpoints, *restjson.Call) error
}

const (
	getOnly = http.MethodGet
	anyOf   = "any"
)

// Rows is every compatibility path of docs/endpoints.md, and the variants other
// emulators' suites call, with how each is answered. It is the one source
// of the routes, of the 404 fallback and of the README table.
var Rows = []Row{
	{Path: "/_compat/health", Methods: []string{http.MethodGet, http.MethodHead}, Availability: Served,
		Replacement: []string{"/_emulator/health"}, ServedBy: "compat.go",
		Note: "Legacy shape: `services`, `edition`, `version`."},
	{Path: "/_compat/health/detailed", Query: "detailed=true", Methods: []string{getOnly}, Availability: Debug,
		Replacement: []string{"/_emulator/debug/health"}, handler: (*endpoints).debugHealthRead,
		Note: "The detailed form of the health."},
	{Path: "/_compat/init", Methods: []string{http.MethodGet, http.MethodHead}, Availability: Served,
		Replacement: []string{"/_emulator/init"}, ServedBy: "init.go",
		Note: "Members `completed` and `scripts`."},
	{Path: "/_compat/init/{stage}", Methods: []string{http.MethodGet, http.MethodHead}, Availability: Served,
		Replacement: []string{"/_emulator/init/{stage}"}, ServedBy: "init.go",
		Note: "`{stage}` is `boot`, `start`, `ready` or `shutdown`."},
	{Path: "/_compat/state/reset", Methods: []string{http.MethodPost}, Availability: Served,
		Replacement: []string{"/_emulator/reset"}, ServedBy: "compat.go",
		Note: "Answers `{\"status\":\"reset\"}`."},
	{Path: "/_compat/info", Methods: []string{getOnly}, Availability: Debug,
		Replacement: []string{"/_emulator/debug/config"}, handler: (*endpoints).debugConfigRead},
	{Path: "/_compat/state", Methods: []string{getOnly}, Availability: Debug,
		Replacement: []string{"/_emulator/debug/state"}, handler: (*endpoints).debugStateRead},
	{Path: "/_compat/diagnose", Methods: []string{getOnly}, Availability: Debug,
		Replacement: []string{"/_emulator/debug/state", "/_emulator/debug/config"}, handler: (*endpoints).diagnoseRead,
		Note: "Both documents in one: `config` and `state`."},
	{Path: "/_compat/config", Methods: []string{getOnly}, Availability: ReadOnly,
		Replacement: []string{"/_emulator/debug/config"}, handler: (*endpoints).debugConfigRead,
		Note: "Configuration is fixed for the process: POST, PUT, PATCH and DELETE answer 400."},
	{Path: "/_compat/usage", Methods: []string{getOnly}, Availability: Served,
		Replacement: []string{"/_emulator/metrics"}, ServedBy: "metrics.go",
		Note: "The request metrics, throttle counts and per-key usage in Prometheus text format."},
	{Path: "/_compat/state/save", Methods: []string{anyOf}, Availability: NoReplacement,
		Note: "Persistence is incremental: with `EMULATOR_STATE=persistent` every change is on disk when acknowledged, so there is nothing to save or load."},
	{Path: "/_compat/state/load", Methods: []string{anyOf}, Availability: NoReplacement,
		Note: "Persistence is incremental: with `EMULATOR_STATE=persistent` every change is on disk when acknowledged, so there is nothing to save or load."},
	{Path: "/_compat/state/{service}/save", Methods: []string{anyOf}, Availability: NoReplacement,
		Note: "Persistence is incremental: with `EMULATOR_STATE=persistent` every change is on disk when acknowledged, so there is nothing to save or load."},
	{Path: "/_compat/state/{service}/load", Methods: []string{anyOf}, Availability: NoReplacement,
		Note: "Persistence is incremental: with `EMULATOR_STATE=persistent` every change is on disk when acknowledged, so there is nothing to save or load."},
	{Path: "/_compat/state/{service}/reset", Methods: []string{http.MethodPost}, Availability: Replaced,
		Replacement: []string{"/_emulator/reset"},
		Note:        "There is no reset of one service: `POST /_emulator/reset` resets every service."},
	{Path: "/_cloud/ses", Methods: []string{http.MethodGet, http.MethodDelete}, Availability: Served,
		Replacement: []string{"/_emulator/ses/inbox/messages"}, ServedBy: "inbox.go",
		Note: "Captured mail: `{\"messages\":[…]}` with `Id`, `Timestamp`, `Source`, `Destination`, `Subject`, `Body` (`text_part`, `html_part`), `Template`, `TemplateData`; no `Region` or `RawData`. Query `id`, `email` (the source); DELETE (all, or `id`) answers 204."},
	{Path: "/_compat/ses", Methods: []string{http.MethodGet, http.MethodDelete}, Availability: Served,
		Replacement: []string{"/_emulator/ses/inbox/messages"}, ServedBy: "inbox.go",
		Note: "As `/_cloud/ses`."},
	{Path: "/_cloud/sqs/messages", Methods: []string{getOnly, http.MethodPost}, Availability: Served,
		Replacement: []string{"/_emulator/sqs/messages?QueueUrl=", "GET /{account}/{queue}"}, ServedBy: "sqspeek.go",
		Note: "Queue peek: the queue's messages as `ReceiveMessage` answers them (XML, or JSON when asked in JSON), consuming nothing; `QueueUrl` in the query or the form; `ShowInvisible`, `ShowDelayed` add messages in flight and delayed."},
	{Path: "/_compat/sqs/messages", Methods: []string{getOnly, http.MethodPost}, Availability: Served,
		Replacement: []string{"/_emulator/sqs/messages?QueueUrl=", "GET /{account}/{queue}"}, ServedBy: "sqspeek.go",
		Note: "As `/_cloud/sqs/messages`."},
	{Path: "/_cloud/sqs/messages/{region}/{account}/{queue}", Methods: []string{getOnly}, Availability: Served,
		Replacement: []string{"/_emulator/sqs/messages?QueueUrl=", "GET /{account}/{queue}"}, ServedBy: "sqspeek.go",
		Note: "Queue peek by region, account and name."},
	{Path: "/_compat/sqs/messages/{region}/{account}/{queue}", Methods: []string{getOnly}, Availability: Served,
		Replacement: []string{"/_emulator/sqs/messages?QueueUrl=", "GET /{account}/{queue}"}, ServedBy: "sqspeek.go",
		Note: "As `/_cloud/sqs/messages/{region}/{account}/{queue}`."},
	{Path: "/_cloud/sns/sms-messages", Methods: []string{http.MethodGet, http.MethodDelete}, Availability: Served,
		Replacement: []string{"/_emulator/ses/inbox/messages?kind=sms"}, ServedBy: "inbox.go",
		Note: "The inbox entries with `kind` = `sms`: `{\"sms_messages\":{phone:[…]},\"region\":…}`. Query `accountId`, `region`, `phoneNumber`; DELETE answers 204."},
	{Path: "/_compat/sns/sms-messages", Methods: []string{http.MethodGet, http.MethodDelete}, Availability: Served,
		Replacement: []string{"/_emulator/ses/inbox/messages?kind=sms"}, ServedBy: "inbox.go",
		Note: "As `/_cloud/sns/sms-messages`."},
	{Path: "/_cloud/sns/platform-endpoint-messages", Methods: []string{http.MethodGet, http.MethodDelete}, Availability: Served,
		Replacement: []string{"/_emulator/ses/inbox/messages?kind=push"}, ServedBy: "inbox.go",
		Note: "The inbox entries with `kind` = `push`: `{\"platform_endpoint_messages\":{arn:[…]},\"region\":…}`. Query `accountId`, `region`, `endpointArn`; DELETE answers 204."},
	{Path: "/_compat/sns/platform-endpoint-messages", Methods: []string{http.MethodGet, http.MethodDelete}, Availability: Served,
		Replacement: []string{"/_emulator/ses/inbox/messages?kind=push"}, ServedBy: "inbox.go",
		Note: "As `/_cloud/sns/platform-endpoint-messages`."},
	{Path: "/_cloud/lambda/runtimes", Methods: []string{getOnly}, Availability: Served,
		Replacement: []string{"/_emulator/lambda/runtimes"}, ServedBy: "runtimes.go",
		Note: "`Runtimes` lists the runtimes whose functions run here; `details` says how each runs (interpreter and version), or why it does not."},
	{Path: "/_cloud/execute-api/{id}/{stage}/{path...}", Methods: []string{anyOf}, Availability: Served,
		Replacement: []string{"/restapis/{id}/{stage}/_user_request_/{path...}", "http://{id}.execute-api.<EMULATOR_EXTERNAL_HOSTNAME>:<port>/{stage}/{path...}"},
		Note:        "Request execution against deployed stages: every form runs the same pipeline.", ServedBy: ServedByDataPlane},
	{Path: "/_cloud/sns/subscription-tokens/{arn...}", Methods: []string{anyOf}, Availability: NoReplacement,
		Note: "The subscription token is not exposed."},
	{Path: "/_cloud/dynamodb/expired", Methods: []string{http.MethodDelete}, Availability: NoReplacement,
		Note: "TTL expiry has no manual trigger."},
}

// ServedByDataPlane marks the rows the HTTP front hands to the data plane
// before any route is looked up (httpfront/execute.go).
const ServedByDataPlane = "httpfront/execute.go"

// Compatibility families: the spec's names and the legacy names existing
// suites call.
const (
	prefixCompat     = "/_compat/"
	prefixCloud      = "/_cloud/"
	prefixLocalstack = "/_localstack/"
	prefixAWS        = "/_aws/"
	prefixEmulator   = "/_emulator/"
)

// Spellings returns every path a row's path answers as: the spec's spelling
// first, then the legacy one (/_compat/X is also /_localstack/X, /_cloud/X
// is also /_aws/X).
func Spellings(path string) []string {
	switch {
	case strings.HasPrefix(path, prefixCompat):
		return []string{path, prefixLocalstack + path[len(prefixCompat):]}
	case strings.HasPrefix(path, prefixCloud):
		return []string{path, prefixAWS + path[len(prefixCloud):]}
	}
	return []string{path}
}

// specSpelling maps a legacy path to the spec's spelling.
func specSpelling(path string) string {
	switch {
	case strings.HasPrefix(path, prefixLocalstack):
		return prefixCompat + path[len(prefixLocalstack):]
	case strings.HasPrefix(path, prefixAWS):
		return prefixCloud + path[len(prefixAWS):]
	}
	return path
}

// maxSegments bounds the segments matched, so that a hostile path costs
// nothing.
const maxSegments = 64

// match reports whether path matches pattern: {name} is one non-empty
// segment, a last {name...} any rest.
func match(pattern, path string) bool {
	for i := 0; i < maxSegments; i++ {
		pseg, prest, pmore := strings.Cut(strings.TrimPrefix(pattern, "/"), "/")
		if strings.HasSuffix(pseg, "...}") && !pmore {
			return true
		}
		if path == "" {
			return false
		}
		seg, rest, more := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		if strings.HasPrefix(pseg, "{") {
			if seg == "" {
				return false
			}
		} else if seg != pseg {
			return false
		}
		if !pmore {
			return !more
		}
		if !more {
			// The path ends; only a trailing rest label still matches.
			return strings.HasPrefix(prest, "{") && strings.HasSuffix(prest, "...}") && !strings.Contains(prest, "/")
		}
		pattern, path = prest, rest
	}
	return false
}

// rowFor returns the row path (in any spelling) answers as, if any.
func rowFor(path string) (*Row, bool) {
	p := specSpelling(path)
	for i := range Rows {
		if match(Rows[i].Path, p) {
			return &Rows[i], true
		}
	}
	return nil, false
}

// replacedBy returns the not-yet-served row whose replacement path is, for
// requests to an /_emulator endpoint a later version adds.
func replacedBy(path string) (*Row, bool) {
	for i := range Rows {
		r := &Rows[i]
		if r.Availability != NotServedYet {
			continue
		}
		for _, rep := range r.Replacement {
			if strings.HasPrefix(rep, prefixEmulator) && match(rep, path) {
				return r, true
			}
		}
	}
	return nil, false
}
