package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
)

// baselineName is the scenario every other is compared with.
const baselineName = "bare"

// scenario is one target of "benchrun compare". To add one, append it to
// the list in scenarios().
type scenario struct {
	Name string
	// Emulator runs the scenario against its own instance of the -emulator
	// binary, started with EMULATOR_HOST, EMULATOR_PORT and Env, and ready
	// once GET /_emulator/health answers 200. Without -emulator the scenario
	// is skipped with a note. When false, it runs against the bare server.
	Emulator bool
	// Env is extra KEY=VALUE environment for the emulator instance.
	Env []string
	// Setup, if set, runs once against addr before any measured run, e.g. to
	// create the resources that Build's request reads.
	Setup func(ctx context.Context, addr string) error
	// Build fills the request that is sent over and over (see bench.Target).
	Build func(req *fasthttp.Request)
	// Vary, if set, changes the request before every send (see bench.Target).
	Vary func(req *fasthttp.Request)
	// DataDir runs the emulator with EMULATOR_STATE=persistent in a fresh
	// temporary directory, removed afterwards.
	DataDir bool
	// Proxy runs the scenario against the bare reverse proxy (serve-bare
	// -proxy-to the bare server) instead of the bare server.
	Proxy bool
	// Backend, if set, is Setup for scenarios that need an HTTP backend:
	// it gets the bare server's address too.
	Backend func(ctx context.Context, addr, backend string) error
	// Baseline names the scenario this one's ratio is taken against
	// (default: bare).
	Baseline string
	// Step, if set, is an operation of several requests sent in place of
	// Build's request (see bench.Target); Per says what one operation is.
	Step func(c bench.Doer, req *fasthttp.Request, resp *fasthttp.Response) (int, error)
	Per  string
	// Refill, if set, runs before every measured run, unmeasured, to put
	// back what runs consume (SQSReceiveDelete's messages): window is the
	// run's warm-up plus duration, rate the best rate this target has
	// measured so far (0 before its first run).
	Refill func(ctx context.Context, addr string, window time.Duration, rate float64) error
	// Moto, if set, returns the same scenario (with its own state: queue
	// URLs differ) to run against a fresh moto_server as well when compare
	// has -moto BIN. Its row is Name+"@moto" and the emulator row's ratio
	// is taken against it.
	Moto func() scenario
	// ScalesFrom names the scenario whose rate this one's is compared with
	// under the table (16 queues against 1), for the emulator and for moto.
	ScalesFrom string
}

// scenarios returns the registered scenarios, baseline first.
func scenarios() []scenario {
	return []scenario{
		{
			// The ceiling: the smallest request to a handler doing nothing.
			Name:  baselineName,
			Build: get("/"),
		},
		{
			// What parsing an SDK-sized request costs before any emulator
			// work: a CreateBackupVault as aws-sdk-go-v2 sends it (restJson1
			// PUT, SigV4 headers, small JSON body), answered by the bare
			// handler. The floor for any emulator write call.
			Name:  "bare-sdk-put",
			Build: sdkPut,
		},
		{
			// DescribeBackupVault as the SDK sends it: a read served from the
			// vault owner's published snapshot.
			Name:     "DescribeBackupVault",
			Emulator: true,
			Setup:    createVault("bench-vault"),
			Build:    sdkGet("/backup-vaults/bench-vault"),
		},
		createVaultMemory(),
		createRestAPIs(),
		createAPIKeys(),
		{
			// The same in persistent mode with the store's group commit.
			Name:     "CreateBackupVault/persistent",
			Emulator: true,
			DataDir:  true,
			Build:    sdkPut,
			Vary:     newVaultName(),
		},
		{
			// The same with one fsync per write, to show what batching buys.
			Name:     "CreateBackupVault/persistent-batch=1",
			Emulator: true,
			DataDir:  true,
			Env:      []string{"EMULATOR_STORE_MAX_BATCH=1"},
			Build:    sdkPut,
			Vary:     newVaultName(),
		},
		getRestAPI(),
		getV2API(),
		getResources(500),
		putMethod("PutMethod/apis=1", 1, false),
		putMethod("PutMethod/apis=16", 16, false),
		putMethod("PutMethod/apis=1/persistent", 1, true),
		putMethod("PutMethod/apis=16/persistent", 16, true),
		executeMock(),
		executeMockOpen(),
		executeMockKeyed(),
		executeMockKeyedWatched(),
		executeMockKeyedUIOff(),
		{
			// The ceiling of a reverse proxy: a fasthttp server forwarding
			// through a HostClient to the bare server.
			Name:  "bare-proxy",
			Proxy: true,
			Build: get("/items/42"),
		},
		executeHTTPProxy(),
		executeHTTPAPIProxy(),
		executeHTTPAPIJWT(),
		executeLambdaProxy(),
		sqsSendMessage(1, false),
		sqsSendMessage(16, false),
		sqsReceiveDelete(1, false),
		sqsReceiveDelete(16, false),
		sqsSendMessage(1, true),
		sqsSendMessage(16, true),
		sqsReceiveDelete(1, true),
		sqsReceiveDelete(16, true),
	}
}

// deployREST creates a REST API with one method at path, its integration
// (integration JSON), a 200 response (response JSON, when not empty), and a
// stage dev; it returns the API id.
func deployREST(addr, name, path, verb, integration, response string) (string, error) {
	return deployRESTMethod(addr, name, path, verb,
		`{"authorizationType":"NONE","requestParameters":{"method.request.path.proxy":true}}`, integration, response)
}

// deployRESTMethod is deployREST with the PutMethod body (method JSON) as
// given.
func deployRESTMethod(addr, name, path, verb, method, integration, response string) (string, error) {
	r, err := createRestAPI(addr, name)
	if err != nil {
		return "", err
	}
	parent := r.RootResourceID
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		var res struct {
			ID string `json:"id"`
		}
		if err := call(addr, "POST", "/restapis/"+r.ID+"/resources/"+parent, `{"pathPart":"`+part+`"}`, 201, &res); err != nil {
			return "", err
		}
		parent = res.ID
	}
	m := "/restapis/" + r.ID + "/resources/" + parent + "/methods/" + verb
	steps := []struct{ path, body string }{
		{m, method},
		{m + "/integration", integration},
	}
	if response != "" {
		steps = append(steps, struct{ path, body string }{m + "/responses/200", `{}`},
			struct{ path, body string }{m + "/integration/responses/200", response})
	}
	for _, st := range steps {
		if err := call(addr, "PUT", st.path, st.body, 201, nil); err != nil {
			return "", err
		}
	}
	return r.ID, call(addr, "POST", "/restapis/"+r.ID+"/deployments", `{"stageName":"dev"}`, 201, nil)
}

// executeMock is a request to a deployed MOCK method with a small response
// template, in the documented path form.
func executeMock() scenario {
	var path string
	return scenario{
		Name:     "ExecuteMock",
		Emulator: true,
		Setup: func(_ context.Context, addr string) error {
			id, err := deployREST(addr, "bench-mock", "/pets/{proxy}", "GET",
				`{"type":"MOCK","requestTemplates":{"application/json":"{\"statusCode\": 200}"}}`,
				`{"responseTemplates":{"application/json":"{\"id\": \"$input.params('proxy')\", \"stage\": \"$context.stage\"}"}}`)
			path = "/restapis/" + id + "/dev/_user_request_/pets/42"
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
		},
	}
}

// Limits that never bind in a benchmark: the account's (the highest the
// emulator accepts for the burst) and the stage's method throttling, which
// otherwise defaults to AWS's 10,000 requests a second in bursts of 5,000.
const (
	generousRate  = 1000000
	generousBurst = 100000
)

// throttleEnv runs an emulator that answers throttled requests with 429 and
// whose account limit never binds.
var throttleEnv = []string{
	"EMULATOR_ENFORCE_GATEWAY_THROTTLE=true",
	"EMULATOR_ACCOUNT_THROTTLE_RATE=" + strconv.Itoa(generousRate),
	"EMULATOR_ACCOUNT_THROTTLE_BURST=" + strconv.Itoa(generousBurst),
}

// mockTemplate is ExecuteMock's response template.
const mockTemplate = `{"responseTemplates":{"application/json":"{\"id\": \"$input.params('proxy')\", \"stage\": \"$context.stage\"}"}}`

// mockAPI is a deployed MOCK method (ExecuteMock's), with its key and plan
// when it requires one.
type mockAPI struct {
	ID, Name string
	// Path is the data-plane request's path.
	Path string
	// KeyID, KeyValue and PlanID are set by addKeyPlan.
	KeyID, KeyValue, PlanID string
}

// deployMock deploys ExecuteMock's API as name, its GET requiring an API
// key when keyed, and raises the stage's method throttling to
// generousRate/generousBurst (PATCH /*/*/throttling/...).
func deployMock(addr, name string, keyed bool) (mockAPI, error) {
	method := `{"authorizationType":"NONE","requestParameters":{"method.request.path.proxy":true}}`
	if keyed {
		method = `{"authorizationType":"NONE","apiKeyRequired":true,"requestParameters":{"method.request.path.proxy":true}}`
	}
	id, err := deployRESTMethod(addr, name, "/pets/{proxy}", "GET", method,
		`{"type":"MOCK","requestTemplates":{"application/json":"{\"statusCode\": 200}"}}`, mockTemplate)
	if err != nil {
		return mockAPI{}, err
	}
	m := mockAPI{ID: id, Name: name, Path: "/restapis/" + id + "/dev/_user_request_/pets/42"}
	err = call(addr, "PATCH", "/restapis/"+id+"/stages/dev", fmt.Sprintf(`{"patchOperations":[`+
		`{"op":"replace","path":"/*/*/throttling/rateLimit","value":"%d"},`+
		`{"op":"replace","path":"/*/*/throttling/burstLimit","value":"%d"}]}`, generousRate, generousBurst), 200, nil)
	return m, err
}

// addKeyPlan creates an API key and a usage plan on m's stage with the
// plan's throttle (rate, burst) and, when quota is not empty, that quota
// JSON, then links the key, which fills the key's bucket: from here on it
// holds burst tokens until the first request.
func addKeyPlan(addr string, m *mockAPI, rate float64, burst int64, quota string) error {
	m.KeyValue = "bench-key-" + m.Name + "-0123456789"
	var key, plan struct {
		ID string `json:"id"`
	}
	if err := call(addr, "POST", "/apikeys", `{"name":"`+m.Name+`","enabled":true,"value":"`+m.KeyValue+`"}`, 201, &key); err != nil {
		return err
	}
	body := `{"name":"` + m.Name + `","apiStages":[{"apiId":"` + m.ID + `","stage":"dev"}],` +
		`"throttle":{"rateLimit":` + strconv.FormatFloat(rate, 'f', -1, 64) + `,"burstLimit":` + strconv.FormatInt(burst, 10) + `}`
	if quota != "" {
		body += `,"quota":` + quota
	}
	if err := call(addr, "POST", "/usageplans", body+"}", 201, &plan); err != nil {
		return err
	}
	m.KeyID, m.PlanID = key.ID, plan.ID
	return call(addr, "POST", "/usageplans/"+plan.ID+"/keys", `{"keyId":"`+key.ID+`","keyType":"API_KEY"}`, 201, nil)
}

// executeMockOpen is ExecuteMock (no key, no plan) on an emulator that
// enforces throttling, with the stage's and the account's limits out of
// the way: the yardstick of ExecuteMockKeyed, in the same conditions.
func executeMockOpen() scenario {
	var path string
	return scenario{
		Name:     "ExecuteMockOpen",
		Emulator: true,
		Env:      throttleEnv,
		Setup: func(_ context.Context, addr string) error {
			m, err := deployMock(addr, "bench-mock-open", false)
			path = m.Path
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
		},
	}
}

// executeMockKeyed is ExecuteMockOpen's method requiring an API key, sent
// with one that a usage plan covers: throttle generousRate/generousBurst,
// so that no request is refused, and a monthly quota of a billion. Every
// request looks the key up, finds its plan and takes from the plan's
// bucket, its quota, the stage's bucket and the account's.
func executeMockKeyed() scenario {
	var path, key string
	return scenario{
		Name:     "ExecuteMockKeyed",
		Emulator: true,
		Env:      throttleEnv,
		Baseline: "ExecuteMockOpen",
		Setup: func(_ context.Context, addr string) error {
			m, err := deployMock(addr, "bench-mock-keyed", true)
			if err == nil {
				err = addKeyPlan(addr, &m, generousRate, generousBurst, `{"limit":1000000000,"period":"MONTH"}`)
			}
			path, key = m.Path, m.KeyValue
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
			req.Header.Set("x-api-key", key)
		},
	}
}

// executeHTTPProxy is a request to a deployed HTTP_PROXY method whose
// backend is the bare server, measured against the bare reverse proxy to
// the same backend.
func executeHTTPProxy() scenario {
	var path string
	return scenario{
		Name:     "ExecuteHttpProxy",
		Emulator: true,
		Baseline: "bare-proxy",
		Backend: func(_ context.Context, addr, backend string) error {
			id, err := deployREST(addr, "bench-proxy", "/{proxy+}", "ANY",
				`{"type":"HTTP_PROXY","httpMethod":"ANY","uri":"http://`+backend+`/{proxy}",`+
					`"requestParameters":{"integration.request.path.proxy":"method.request.path.proxy"}}`, "")
			path = "/restapis/" + id + "/dev/_user_request_/items/42"
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
		},
	}
}

// sdkHeaders sets the headers aws-sdk-go-v2 sends with every Backup call.
func sdkHeaders(req *fasthttp.Request) {
	req.Header.Set("User-Agent", "aws-sdk-go-v2/1.41.0 ua/2.1 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/backup#1.54.0 m/E")
	req.Header.Set("X-Amz-Date", "20250101T000000Z")
	req.Header.Set("X-Amz-Content-Sha256", strings.Repeat("ab", 32))
	req.Header.Set("Amz-Sdk-Invocation-Id", "3f1d6a6e-6c1b-4b7e-9d47-0b1d1c2e3f4a")
	req.Header.Set("Amz-Sdk-Request", "attempt=1; max=3")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/backup/aws4_request, "+
		"SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-content-sha256;x-amz-date, "+
		"Signature="+strings.Repeat("0f", 32))
}

func sdkGet(path string) func(*fasthttp.Request) {
	return func(req *fasthttp.Request) {
		req.Header.SetMethod(fasthttp.MethodGet)
		req.SetRequestURI(path)
		sdkHeaders(req)
	}
}

// createVault returns a Setup that creates one vault and checks the answer.
func createVault(name string) func(context.Context, string) error {
	return func(ctx context.Context, addr string) error {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.Header.SetMethod(fasthttp.MethodPut)
		req.SetRequestURI("http://" + addr + "/backup-vaults/" + name)
		if err := fasthttp.DoTimeout(req, resp, 5*time.Second); err != nil {
			return err
		}
		if resp.StatusCode() != fasthttp.StatusOK {
			return fmt.Errorf("create vault %s: %d %s", name, resp.StatusCode(), resp.Body())
		}
		return nil
	}
}

// newVaultName returns a Vary that gives every request its own vault name,
// unique across workers and runs.
func newVaultName() func(*fasthttp.Request) {
	var seq atomic.Uint64
	prefix := "/backup-vaults/b" + strconv.FormatInt(time.Now().UnixNano()%1e6, 36) + "-"
	return func(req *fasthttp.Request) {
		var buf [64]byte
		b := append(buf[:0], prefix...)
		b = strconv.AppendUint(b, seq.Add(1), 36)
		req.URI().SetPathBytes(b)
	}
}

// createVaultMemory is CreateBackupVault in memory, a new vault each
// request: its first change runs in the creating request (actors.Init),
// no owner actor is spawned. Its moto twin does the same against moto.
func createVaultMemory() scenario {
	build := func() scenario {
		return scenario{Name: "CreateBackupVault/memory", Emulator: true, Build: sdkPut, Vary: newVaultName()}
	}
	sc := build()
	sc.Moto = build
	return sc
}

// createRestAPIs is CreateRestApi as the SDK sends it, a new API (its own
// name) each request, with a moto twin.
func createRestAPIs() scenario {
	return namedCreate("CreateRestApi/memory", "/restapis", "bench-api-", `,"description":"benchmark"`)
}

// createAPIKeys is CreateApiKey as the SDK sends it, a new enabled key
// (its own name) each request, with a moto twin.
func createAPIKeys() scenario {
	return namedCreate("CreateApiKey/memory", "/apikeys", "bench-key-", `,"enabled":true`)
}

// namedCreate POSTs {"name": prefix+n, ...extra} to an API Gateway path,
// n counting up.
func namedCreate(name, path, prefix, extra string) scenario {
	build := func() scenario {
		var seq atomic.Uint64
		stamp := strconv.FormatInt(time.Now().UnixNano()%1e6, 36) + "-"
		return scenario{
			Name:     name,
			Emulator: true,
			Build: func(req *fasthttp.Request) {
				req.Header.SetMethod(fasthttp.MethodPost)
				req.SetRequestURI(path)
				req.Header.SetContentType("application/json")
				apigwHeaders(req)
			},
			Vary: func(req *fasthttp.Request) {
				var buf [96]byte
				b := append(buf[:0], `{"name":"`...)
				b = append(b, prefix...)
				b = append(b, stamp...)
				b = strconv.AppendUint(b, seq.Add(1), 36)
				b = append(b, '"')
				b = append(b, extra...)
				b = append(b, '}')
				req.SetBody(b)
			},
		}
	}
	sc := build()
	sc.Moto = build
	return sc
}

func get(path string) func(*fasthttp.Request) {
	return func(req *fasthttp.Request) {
		req.Header.SetMethod(fasthttp.MethodGet)
		req.SetRequestURI(path)
	}
}

// sdkPut builds a request with the headers and size of a real SDK call. The
// signature is fixed: the bare handler does not check it.
func sdkPut(req *fasthttp.Request) {
	req.Header.SetMethod(fasthttp.MethodPut)
	req.SetRequestURI("/backup-vaults/bench-vault")
	req.Header.SetContentType("application/json")
	sdkHeaders(req)
	req.SetBodyString(`{"BackupVaultTags":{"team":"platform","env":"bench"},"CreatorRequestId":"bench-0001","EncryptionKeyArn":"arn:aws:kms:us-east-1:000000000000:key/11111111-2222-3333-4444-555555555555"}`)
}

// apigwHeaders sets the headers aws-sdk-go-v2 sends with every API Gateway
// call.
func apigwHeaders(req *fasthttp.Request) {
	sdkHeaders(req)
	req.Header.Set("User-Agent", "aws-sdk-go-v2/1.41.0 ua/2.1 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/apigateway#1.40.2 m/E")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/apigateway/aws4_request, "+
		"SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;host;x-amz-date, Signature="+strings.Repeat("0f", 32))
}

// call sends one setup request and decodes its JSON reply into out (a
// *[]byte takes the reply as it came).
func call(addr, method, path, body string, want int, out any) error {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(method)
	req.SetRequestURI("http://" + addr + path)
	if body != "" {
		req.Header.SetContentType("application/json")
		req.SetBodyString(body)
	}
	if err := fasthttp.DoTimeout(req, resp, 10*time.Second); err != nil {
		return err
	}
	if resp.StatusCode() != want {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode(), resp.Body())
	}
	switch o := out.(type) {
	case nil:
	case *[]byte:
		*o = append([]byte(nil), resp.Body()...)
	default:
		return json.Unmarshal(resp.Body(), out)
	}
	return nil
}

type restAPIReply struct {
	ID             string `json:"id"`
	RootResourceID string `json:"rootResourceId"`
}

func createRestAPI(addr, name string) (restAPIReply, error) {
	var r restAPIReply
	err := call(addr, "POST", "/restapis", `{"name":"`+name+`"}`, 201, &r)
	return r, err
}

// getRestAPI is GetRestApi as the SDK sends it: a read of the API owner's
// published state.
func getRestAPI() scenario {
	var path string
	return scenario{
		Name:     "GetRestApi",
		Emulator: true,
		Setup: func(_ context.Context, addr string) error {
			r, err := createRestAPI(addr, "bench-api")
			path = "/restapis/" + r.ID
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
			apigwHeaders(req)
		},
	}
}

// getResources lists an API of n resources (docs/apigateway.md: GetResources returns
// everything, unpaginated).
func getResources(n int) scenario {
	var path string
	return scenario{
		Name:     "GetResources/resources=" + strconv.Itoa(n),
		Emulator: true,
		Setup: func(_ context.Context, addr string) error {
			r, err := createRestAPI(addr, "bench-resources")
			if err != nil {
				return err
			}
			// A tree: 20 top-level resources with 24 children each, plus the root.
			parents := []string{}
			for i := 0; len(parents) < 20 && i < n-1; i++ {
				var res struct {
					ID string `json:"id"`
				}
				if err := call(addr, "POST", "/restapis/"+r.ID+"/resources/"+r.RootResourceID,
					fmt.Sprintf(`{"pathPart":"p%d"}`, i), 201, &res); err != nil {
					return err
				}
				parents = append(parents, res.ID)
			}
			for i := len(parents); i < n-1; i++ {
				parent := parents[i%len(parents)]
				if err := call(addr, "POST", "/restapis/"+r.ID+"/resources/"+parent,
					fmt.Sprintf(`{"pathPart":"c%d"}`, i), 201, nil); err != nil {
					return err
				}
			}
			path = "/restapis/" + r.ID + "/resources"
			return nil
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
			apigwHeaders(req)
		},
	}
}

// putMethod writes methods on `apis` APIs: each connection owns one
// (resource, verb) slot of one API and alternates PutMethod (201) and
// DeleteMethod (204) on it, so every request is a write through the API's
// owner (a second PutMethod on an existing method is a 409, as on AWS).
// With one API every write queues behind one owner; with 16 the owners
// work in parallel.
func putMethod(name string, apis int, persistent bool) scenario {
	verbs := []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "ANY"}
	const resourcesPerAPI = 4 // 4 resources x 8 verbs: a slot for each of 32 connections
	var (
		slots   []string       // ".../resources/{id}/methods/{verb}", interleaving the APIs
		slotOf  map[string]int // slot index by path
		exists  []atomic.Bool  // whether the slot's method exists now
		next    atomic.Uint64
		created sync.Once
	)
	return scenario{
		Name:     name,
		Emulator: true,
		DataDir:  persistent,
		Setup: func(_ context.Context, addr string) error {
			byAPI := make([][]string, apis)
			for i := range apis {
				r, err := createRestAPI(addr, fmt.Sprintf("bench-put-%d", i))
				if err != nil {
					return err
				}
				for j := range resourcesPerAPI {
					var res struct {
						ID string `json:"id"`
					}
					if err := call(addr, "POST", "/restapis/"+r.ID+"/resources/"+r.RootResourceID,
						fmt.Sprintf(`{"pathPart":"r%d"}`, j), 201, &res); err != nil {
						return err
					}
					for _, v := range verbs {
						byAPI[i] = append(byAPI[i], "/restapis/"+r.ID+"/resources/"+res.ID+"/methods/"+v)
					}
				}
			}
			for k := range byAPI[0] {
				for i := range apis {
					slots = append(slots, byAPI[i][k])
				}
			}
			created.Do(func() {
				slotOf = make(map[string]int, len(slots))
				for i, p := range slots {
					slotOf[p] = i
				}
				exists = make([]atomic.Bool, len(slots))
			})
			return nil
		},
		Build: func(req *fasthttp.Request) {
			req.SetRequestURI("/")
			req.Header.SetContentType("application/json")
			apigwHeaders(req)
		},
		// Each connection's request starts at "/" (every run copies Build's
		// request) and takes the next slot; within a run no two connections
		// share one. A slot's method exists or not across runs: the next
		// write is the one that succeeds.
		Vary: func(req *fasthttp.Request) {
			i, ok := slotOf[string(req.URI().PathOriginal())]
			if !ok {
				i = int((next.Add(1) - 1) % uint64(len(slots)))
				req.URI().SetPath(slots[i])
			}
			if exists[i].Load() {
				req.Header.SetMethod(fasthttp.MethodDelete)
				req.ResetBody()
			} else {
				req.Header.SetMethod(fasthttp.MethodPut)
				req.SetBodyString(`{"authorizationType":"NONE","apiKeyRequired":false}`)
			}
			exists[i].Store(!exists[i].Load())
		},
	}
}

// getV2API is GetApi (API Gateway v2) as the SDK sends it: a read of the
// API owner's published state.
func getV2API() scenario {
	var path string
	return scenario{
		Name:     "GetApi",
		Emulator: true,
		Setup: func(_ context.Context, addr string) error {
			var r struct {
				ID string `json:"apiId"`
			}
			err := call(addr, "POST", "/v2/apis", `{"name":"bench-http","protocolType":"HTTP"}`, 201, &r)
			path = "/v2/apis/" + r.ID
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
			apigwHeaders(req)
		},
	}
}
