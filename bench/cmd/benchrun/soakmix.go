package main

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The soak's workload: fixtures (what the mix's requests read and execute,
// re-created after every reset) and the operations of the mix.

// soakFixtures are one generation of the soak's resources. gen is the
// number of resets started when they were made: a request whose fixtures
// are older than the latest reset may race it.
type soakFixtures struct {
	gen uint64
	// api is a REST API with a deployed MOCK method (mockPath); its
	// definition is what GetRestApi, UpdateRestApi and GetResources read
	// and write.
	api, mockPath string
	// keyedPath is a MOCK method that requires an API key: key is in a
	// usage plan whose limits the load stays far below, throttledKey in
	// one of 1 request a second (its 429s are expected).
	keyedPath, key, throttledKey string
	proxyPath                    string // HTTP_PROXY to the harness's backend
	functionPath                 string // AWS_PROXY to a function; "" without a runtime
	slots                        []*methodSlot
	vault                        string // a backup vault DescribeBackupVault reads
	queueURL                     string
}

// methodSlot is one (resource, verb) of the fixtures' slots API on which
// PutMethod and DeleteMethod alternate; its lock keeps two workers from
// writing it at once, so that every write is one that succeeds.
type methodSlot struct {
	mu     sync.Mutex
	path   string
	exists bool
}

// soakFunction is the function the function proxy method invokes: an
// interpreted runtime found on this machine and its code.
type soakFunction struct {
	runtime, handler string
	zip              []byte
	note             string // what runs it, for the report
}

// Every handler answers 200 unless the request carries the function-crash
// fault, when it kills its own process mid-invocation.
const (
	soakPythonHandler = `import os

def handler(event, context):
    for k, v in (event.get("headers") or {}).items():
        if k.lower() == "x-soak-fault" and v == "function-crash":
            os._exit(1)
    return {"statusCode": 200, "body": "{\"ok\": true}"}
`
	soakNodeHandler = `exports.handler = async (event) => {
  const h = event.headers || {};
  for (const k of Object.keys(h)) {
    if (k.toLowerCase() === "x-soak-fault" && h[k] === "function-crash") process.exit(1);
  }
  return { statusCode: 200, body: '{"ok": true}' };
};
`
)

// findSoakFunction picks python3, else node, from PATH (the emulator runs
// with the same environment); nil when neither is there.
func findSoakFunction() (*soakFunction, error) {
	for _, c := range []struct{ cmd, runtime, file, src string }{
		{"python3", "python3.12", "index.py", soakPythonHandler},
		{"node", "nodejs20.x", "index.js", soakNodeHandler},
	} {
		path, err := exec.LookPath(c.cmd)
		if err != nil {
			continue
		}
		z, err := zipFile(c.file, c.src)
		if err != nil {
			return nil, err
		}
		return &soakFunction{runtime: c.runtime, handler: "index.handler", zip: z, note: c.runtime + " run by " + path}, nil
	}
	return nil, nil
}

// zipFile is a zip holding one file.
func zipFile(name, content string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err == nil {
		_, err = io.WriteString(w, content)
	}
	if err == nil {
		err = zw.Close()
	}
	return buf.Bytes(), err
}

// soakFunctionPool is how many function invocations the soak has in flight
// at most; the emulator may run twice as many instances
// (EMULATOR_LAMBDA_MAX_CONCURRENCY), so that one finishing its answer while
// the next request arrives never finds the pool full, which API Gateway
// would answer 500.
const soakFunctionPool = 4

// proxyTimeout is the HTTP_PROXY integration's timeoutInMillis: a hanging
// backend (the backend-hang fault) is answered 504 after it.
const proxyTimeout = 2 * time.Second

// setupSoakFixtures creates one generation of fixtures.
func setupSoakFixtures(addr, backend string, fn *soakFunction, gen uint64) (*soakFixtures, error) {
	fx := &soakFixtures{gen: gen}
	mock, err := deployMock(addr, "soak-mock", false)
	if err != nil {
		return nil, fmt.Errorf("MOCK API: %w", err)
	}
	fx.api, fx.mockPath = mock.ID, mock.Path

	keyed, err := deployMock(addr, "soak-keyed", true)
	if err != nil {
		return nil, fmt.Errorf("keyed API: %w", err)
	}
	if err := addKeyPlan(addr, &keyed, generousRate, generousBurst, ""); err != nil {
		return nil, fmt.Errorf("usage plan: %w", err)
	}
	throttled := keyed
	throttled.Name = "soak-throttled"
	if err := addKeyPlan(addr, &throttled, 1, 1, ""); err != nil {
		return nil, fmt.Errorf("throttled usage plan: %w", err)
	}
	fx.keyedPath, fx.key, fx.throttledKey = keyed.Path, keyed.KeyValue, throttled.KeyValue

	id, err := deployREST(addr, "soak-proxy", "/{proxy+}", "ANY",
		`{"type":"HTTP_PROXY","httpMethod":"ANY","uri":"http://`+backend+`/{proxy}","timeoutInMillis":`+
			strconv.FormatInt(proxyTimeout.Milliseconds(), 10)+
			`,"requestParameters":{"integration.request.path.proxy":"method.request.path.proxy"}}`, "")
	if err == nil {
		err = generousStage(addr, id)
	}
	if err != nil {
		return nil, fmt.Errorf("HTTP_PROXY API: %w", err)
	}
	fx.proxyPath = "/restapis/" + id + "/dev/_user_request_/items/42"

	if fn != nil {
		arn, err := createSoakFunction(addr, "soak-function", fn)
		if err != nil {
			return nil, fmt.Errorf("function: %w", err)
		}
		id, err := deployREST(addr, "soak-function", "/pets/{proxy}", "GET",
			`{"type":"AWS_PROXY","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/`+
				arn+`/invocations"}`, "")
		if err == nil {
			err = generousStage(addr, id)
		}
		if err != nil {
			return nil, fmt.Errorf("function API: %w", err)
		}
		fx.functionPath = "/restapis/" + id + "/dev/_user_request_/pets/42"
	}

	if fx.slots, err = createSlots(addr); err != nil {
		return nil, fmt.Errorf("slots API: %w", err)
	}
	fx.vault = "soak-vault"
	if err := call(addr, "PUT", "/backup-vaults/"+fx.vault, `{}`, 200, nil); err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	urls, err := createQueues(addr, "soak", 1)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	fx.queueURL = urls[0]
	return fx, nil
}

// generousStage raises stage dev's method throttling of API id out of the
// load's way, as deployMock does.
func generousStage(addr, id string) error {
	return call(addr, "PATCH", "/restapis/"+id+"/stages/dev", fmt.Sprintf(`{"patchOperations":[`+
		`{"op":"replace","path":"/*/*/throttling/rateLimit","value":"%d"},`+
		`{"op":"replace","path":"/*/*/throttling/burstLimit","value":"%d"}]}`, generousRate, generousBurst), 200, nil)
}

// createSoakFunction creates fn through Lambda's CreateFunction and returns
// its ARN.
func createSoakFunction(addr, name string, fn *soakFunction) (string, error) {
	body, err := json.Marshal(map[string]any{
		"FunctionName": name,
		"Runtime":      fn.runtime,
		"Handler":      fn.handler,
		"Role":         "arn:aws:iam::000000000000:role/r",
		"Code":         map[string]string{"ZipFile": base64.StdEncoding.EncodeToString(fn.zip)},
		// Lambda's default of 3 s could cut a cold start on a loaded
		// machine; API Gateway's own limit is 29 s.
		"Timeout": 25,
	})
	if err != nil {
		return "", err
	}
	var out struct{ FunctionArn string }
	if err := call(addr, "POST", "/2015-03-31/functions", string(body), 201, &out); err != nil {
		return "", err
	}
	if out.FunctionArn == "" {
		return "", errors.New("CreateFunction answered no FunctionArn")
	}
	return out.FunctionArn, nil
}

// slotResources and slotVerbs make the slots: more than any -conns the
// soak is likely run with, so that workers seldom wait for one.
const slotResources = 8

var slotVerbs = []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "ANY"}

func createSlots(addr string) ([]*methodSlot, error) {
	r, err := createRestAPI(addr, "soak-slots")
	if err != nil {
		return nil, err
	}
	var slots []*methodSlot
	for i := range slotResources {
		var res struct {
			ID string `json:"id"`
		}
		if err := call(addr, "POST", "/restapis/"+r.ID+"/resources/"+r.RootResourceID,
			`{"pathPart":"r`+strconv.Itoa(i)+`"}`, 201, &res); err != nil {
			return nil, err
		}
		for _, v := range slotVerbs {
			slots = append(slots, &methodSlot{path: "/restapis/" + r.ID + "/resources/" + res.ID + "/methods/" + v})
		}
	}
	return slots, nil
}

// soakReq is what an operation prepared: the request is in the worker's
// req. after runs on a 2xx answer, release after any answer.
type soakReq struct {
	throttled bool   // the throttled key: a 429 is expected
	fault     string // the fault this request asks for, "" for none
	after     func(body []byte)
	release   func()
}

// soakOp is one kind of request of the mix.
type soakOp struct {
	name   string
	weight int
	// function marks the op that needs the function fixture.
	function bool
	build    func(w *soakWorker, fx *soakFixtures) soakReq
}

// soakOps is the mix: control-plane reads and writes, data-plane
// executions and SQS, by weight (out of about 100).
func soakOps() []soakOp {
	return []soakOp{
		{name: "GetRestApi", weight: 8, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setReq("GET", "/restapis/"+fx.api, "")
			return soakReq{}
		}},
		{name: "GetResources", weight: 4, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setReq("GET", "/restapis/"+fx.api+"/resources", "")
			return soakReq{}
		}},
		{name: "UpdateRestApi", weight: 3, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setReq("PATCH", "/restapis/"+fx.api,
				`{"patchOperations":[{"op":"replace","path":"/description","value":"soak `+strconv.FormatUint(w.s.seq.Add(1), 10)+`"}]}`)
			return soakReq{}
		}},
		{name: "CreateRestApi", weight: 3, build: func(w *soakWorker, _ *soakFixtures) soakReq {
			w.setReq("POST", "/restapis", `{"name":"soak-`+strconv.FormatUint(w.s.seq.Add(1), 10)+`"}`)
			return soakReq{}
		}},
		{name: "PutMethod/DeleteMethod", weight: 4, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			slot := fx.slots[w.s.seq.Add(1)%uint64(len(fx.slots))]
			slot.mu.Lock()
			if slot.exists {
				w.setReq("DELETE", slot.path, "")
			} else {
				w.setReq("PUT", slot.path, `{"authorizationType":"NONE","apiKeyRequired":false}`)
			}
			return soakReq{after: func([]byte) { slot.exists = !slot.exists }, release: slot.mu.Unlock}
		}},
		{name: "DescribeBackupVault", weight: 6, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setReq("GET", "/backup-vaults/"+fx.vault, "")
			return soakReq{}
		}},
		{name: "CreateBackupVault", weight: 3, build: func(w *soakWorker, _ *soakFixtures) soakReq {
			w.setReq("PUT", "/backup-vaults/soak-"+strconv.FormatUint(w.s.seq.Add(1), 36), `{}`)
			return soakReq{}
		}},
		{name: "CreateApiKey", weight: 2, build: func(w *soakWorker, _ *soakFixtures) soakReq {
			w.setReq("POST", "/apikeys", `{"name":"soak-`+strconv.FormatUint(w.s.seq.Add(1), 10)+`","enabled":true}`)
			return soakReq{}
		}},
		{name: "ExecuteMock", weight: 15, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setReq("GET", fx.mockPath, "")
			return soakReq{}
		}},
		{name: "ExecuteMockKeyed", weight: 10, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setReq("GET", fx.keyedPath, "")
			w.req.Header.Set("x-api-key", fx.key)
			return soakReq{}
		}},
		{name: "ExecuteMockThrottledKey", weight: 2, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setReq("GET", fx.keyedPath, "")
			w.req.Header.Set("x-api-key", fx.throttledKey)
			return soakReq{throttled: true}
		}},
		{name: "ExecuteHttpProxy", weight: 12, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setReq("GET", fx.proxyPath, "")
			f := w.s.faults.backend(w.rng)
			if f != "" {
				w.req.Header.Set(faultHeader, f)
			}
			return soakReq{fault: f}
		}},
		{name: "ExecuteFunctionProxy", weight: 6, function: true, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			select {
			case w.s.fnSem <- struct{}{}:
			default:
				// soakFunctionPool invocations in flight (cold starts, say):
				// a worker waiting here would starve the rest of the mix.
				w.s.fnBusy.Add(1)
				w.setReq("GET", fx.mockPath, "")
				return soakReq{}
			}
			w.setReq("GET", fx.functionPath, "")
			f := w.s.faults.function(w.rng)
			if f != "" {
				w.req.Header.Set(faultHeader, f)
			}
			return soakReq{fault: f, release: func() { <-w.s.fnSem }}
		}},
		{name: "SQS.SendMessage", weight: 8, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setSQS("SendMessage", sqsSendBody(fx.queueURL, sqsMessageBody))
			return soakReq{}
		}},
		{name: "SQS.ReceiveMessage", weight: 8, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			w.setSQS("ReceiveMessage", sqsReceiveBody(fx.queueURL, 0))
			return soakReq{after: func(body []byte) {
				if h := receiptHandle(body); h != nil {
					select {
					case w.s.handles <- sqsHandle{gen: fx.gen, queueURL: fx.queueURL, receipt: string(h)}:
					default: // full: the message comes back after its visibility timeout
					}
				}
			}}
		}},
		{name: "SQS.DeleteMessage", weight: 6, build: func(w *soakWorker, fx *soakFixtures) soakReq {
			for {
				select {
				case h := <-w.s.handles:
					if h.gen != fx.gen {
						continue // received before a reset: its queue is gone
					}
					w.setSQS("DeleteMessage", append(sqsDeletePrefix(h.queueURL), h.receipt+"}"...))
				default: // nothing received yet: send instead
					w.setSQS("SendMessage", sqsSendBody(fx.queueURL, sqsMessageBody))
				}
				return soakReq{}
			}
		}},
	}
}

// sqsHandle is a received message's receipt handle (a JSON string
// literal) and the generation of the queue it came from.
type sqsHandle struct {
	gen               uint64
	queueURL, receipt string
}

// faultHeader carries the fault a data-plane request asks for; the
// HTTP_PROXY integration passes it to the backend, the function proxy in
// the event.
const faultHeader = "X-Soak-Fault"

// The faults -faults may ask for, each with the share of its requests
// (HTTP_PROXY or function proxy) that carry it.
var (
	backendFaults  = []string{"backend-reset", "backend-garbage", "backend-hang", "backend-500"}
	functionFaults = []string{"function-crash"}
)

// faultPlan is the parsed -faults: the share of requests for each fault.
type faultPlan map[string]float64

// parseFaults reads "name=share,...", shares in [0, 1], each family's sum
// at most 1.
func parseFaults(s string) (faultPlan, error) {
	plan := faultPlan{}
	if strings.TrimSpace(s) == "" || s == "none" {
		return plan, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("-faults %q: want name=share", part)
		}
		known := false
		for _, f := range append(append([]string(nil), backendFaults...), functionFaults...) {
			known = known || f == name
		}
		if !known {
			return nil, fmt.Errorf("-faults: unknown fault %q (known: %s, %s)", name,
				strings.Join(backendFaults, ", "), strings.Join(functionFaults, ", "))
		}
		share, err := strconv.ParseFloat(v, 64)
		if err != nil || !(share >= 0 && share <= 1) {
			return nil, fmt.Errorf("-faults %s=%s: want a share between 0 and 1", name, v)
		}
		plan[name] = share
	}
	for _, family := range [][]string{backendFaults, functionFaults} {
		sum := 0.0
		for _, f := range family {
			sum += plan[f]
		}
		if sum > 1 {
			return nil, fmt.Errorf("-faults: the shares of %s add up to more than 1", strings.Join(family, ", "))
		}
	}
	return plan, nil
}

// pick returns the fault of one request of family, or "".
func (p faultPlan) pick(rng *rand.Rand, family []string) string {
	if len(p) == 0 {
		return ""
	}
	u := rng.Float64()
	for _, f := range family {
		if u < p[f] {
			return f
		}
		u -= p[f]
	}
	return ""
}

func (p faultPlan) backend(rng *rand.Rand) string  { return p.pick(rng, backendFaults) }
func (p faultPlan) function(rng *rand.Rand) string { return p.pick(rng, functionFaults) }

func (p faultPlan) String() string {
	var parts []string
	for _, f := range append(append([]string(nil), backendFaults...), functionFaults...) {
		if p[f] > 0 {
			parts = append(parts, f+"="+strconv.FormatFloat(p[f], 'g', -1, 64))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// hangFor bounds how long the backend holds a backend-hang request; the
// integration gives up after proxyTimeout.
const hangFor = 10 * time.Second

// soakBackend is the HTTP_PROXY integrations' backend, on loopback in this
// process: 200 with a small JSON body, or the fault the request asks for.
type soakBackend struct {
	addr string
	srv  *http.Server
}

func startSoakBackend() (*soakBackend, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	b := &soakBackend{addr: ln.Addr().String()}
	b.srv = &http.Server{Handler: http.HandlerFunc(serveSoakBackend), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

func (b *soakBackend) close() { _ = b.srv.Close() }

func serveSoakBackend(w http.ResponseWriter, r *http.Request) {
	switch r.Header.Get(faultHeader) {
	case "backend-reset", "backend-garbage":
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		if r.Header.Get(faultHeader) == "backend-garbage" {
			_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = conn.Write([]byte("HTTP/1.1 2x0 \x00\x01garbage\r\nContent-Length: -3\r\n\r\n\xff\xfe"))
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with a RST
		}
	case "backend-hang":
		t := time.NewTimer(hangFor)
		defer t.Stop()
		select {
		case <-r.Context().Done():
		case <-t.C:
		}
	case "backend-500":
		http.Error(w, `{"error":"backend-500"}`, http.StatusInternalServerError)
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}
}

// setReq fills the worker's request for the emulator's path.
func (w *soakWorker) setReq(method, path, body string) {
	w.req.Header.SetMethod(method)
	w.req.SetRequestURI(path)
	w.req.SetHost(w.s.addr)
	if body != "" {
		w.req.Header.SetContentType("application/json")
		w.req.SetBodyString(body)
	}
}

// setSQS fills the worker's request for SQS operation op.
func (w *soakWorker) setSQS(op string, body []byte) {
	sqsHeaders(w.req, op)
	w.req.SetHost(w.s.addr)
	w.req.SetBody(body)
}
