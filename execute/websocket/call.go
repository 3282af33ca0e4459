package websocket

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/vtl"
	"github.com/cloudemu/emulator/vtl/gateway"
)

// call is one run of a route: $connect, a message or $disconnect.
type call struct {
	x  *Executor
	c  *Conn
	t  target
	rt *route

	eventType            string // CONNECT, MESSAGE, DISCONNECT
	routeKey             string
	requestID, messageID string
	at                   time.Time
	body                 []byte
	binary               bool
	// parsed is the body as JSON (nil: not JSON), read once.
	parsed     vtl.Value
	parsedDone bool
	// req is the upgrade request ($connect only).
	req   *execute.Request
	query []execute.QueryParam

	disconnectCode   int
	disconnectReason string
}

// result is what an integration answered.
type result struct {
	status  int
	body    []byte
	headers execute.Headers
	// failed: the integration could not answer (API Gateway's "Internal
	// server error").
	failed bool
}

func (k *call) json() vtl.Value {
	if !k.parsedDone {
		k.parsedDone = true
		if !k.binary {
			if v, err := vtl.ParseJSON(k.body); err == nil {
				k.parsed = v
			}
		}
	}
	return k.parsed
}

func (k *call) header(name string) string {
	if k.req == nil {
		return ""
	}
	v, _ := k.req.Headers.Get(name)
	return v
}

// integrate runs the route's integration.
func (k *call) integrate(in *integration) result {
	switch in.kind {
	case "MOCK":
		status, body := 200, []byte(nil)
		if tmpl, ok := k.requestTemplate(in); ok {
			out, err := k.render(tmpl, k.body)
			if err != nil {
				return result{failed: true}
			}
			if status, ok = gateway.MockStatus(out); !ok {
				return result{failed: true}
			}
			// A MOCK has no backend: what its request template made is
			// the integration's answer, which response templates read as
			// $input (docs/websocket.md).
			body = []byte(out)
		}
		return k.respond(in, status, strconv.Itoa(status), body)
	case "HTTP", "HTTP_PROXY":
		return k.http(in)
	case "AWS_PROXY", "AWS":
		return k.function(in)
	}
	return result{failed: true}
}

// requestTemplate selects the request template: the one keyed by the
// integration's templateSelectionExpression, else "$default".
func (k *call) requestTemplate(in *integration) (string, bool) {
	if len(in.templates) == 0 {
		return "", false
	}
	key := "$default"
	if in.templateSel != nil {
		key = in.templateSel.eval(k.json(), string(k.body), k.header)
	}
	if t, ok := in.templates[key]; ok {
		return t, true
	}
	t, ok := in.templates["$default"]
	return t, ok
}

// respond applies the integration response that the status (or a
// function error's message) selects: its response template renders the
// answer; without one the answer goes as it is.
func (k *call) respond(in *integration, status int, selector string, body []byte) result {
	res := result{status: status, body: body}
	var ir *integrationResponse
	for _, r := range in.responses {
		if r.re == nil || r.re.MatchString(selector) {
			ir = r
			break
		}
	}
	if ir == nil || len(ir.templates) == 0 {
		return res
	}
	key := "$default"
	if ir.templateSel != nil {
		var parsed vtl.Value
		if v, err := vtl.ParseJSON(body); err == nil {
			parsed = v
		}
		key = ir.templateSel.eval(parsed, string(body), nil)
	}
	tmpl, ok := ir.templates[key]
	if !ok {
		if tmpl, ok = ir.templates["$default"]; !ok {
			return res
		}
	}
	out, err := k.render(tmpl, body)
	if err != nil {
		return result{failed: true}
	}
	res.body = []byte(out)
	return res
}

// render renders a mapping template with $input over body and the
// WebSocket $context.
func (k *call) render(src string, body []byte) (string, error) {
	t, err := vtl.CompileCached(src)
	if err != nil {
		return "", err
	}
	var headers, query map[string]string
	if k.req != nil {
		headers = map[string]string{}
		for _, h := range k.req.Headers {
			headers[h.Name] = h.Value
		}
		query = map[string]string{}
		for _, q := range k.queryParams() {
			query[q.Name] = q.Last()
		}
	}
	return t.Render(gateway.Vars(gateway.Request{Body: body, Headers: headers, QueryParams: query,
		StageVariables: k.t.stage.StageVariables, Context: k.context()}), vtl.DefaultLimits)
}

func (k *call) queryParams() []execute.QueryParam {
	if k.query == nil && k.req != nil && k.req.RawQuery != "" {
		k.query = execute.ParseQuery(k.req.RawQuery)
	}
	return k.query
}

// context is $context as WebSocket mapping templates read it
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/websocket-api-mapping-template-reference.html).
func (k *call) context() *vtl.Map {
	c := k.c
	m := gateway.NewContext(gateway.Context{AccountID: k.t.scope.Account, APIID: k.t.api.API.APIID,
		DomainName: c.domainName, ExtendedRequestID: k.requestID, RequestID: k.requestID,
		RequestTime: k.at.UTC().Format(requestTimeLayout), RequestTimeEpoch: k.at.UnixMilli(), Stage: c.stage,
		Identity: gateway.Identity{SourceIP: c.sourceIP, UserAgent: c.userAgent}})
	m.Put("connectionId", c.ID)
	m.Put("connectedAt", c.connectedAt.UnixMilli())
	m.Put("eventType", k.eventType)
	m.Put("routeKey", k.routeKey)
	m.Put("messageDirection", "IN")
	if k.messageID != "" {
		m.Put("messageId", k.messageID)
	}
	if a := c.authorizer; a != nil {
		am := vtl.NewMap(len(a.context) + 1)
		am.Put("principalId", a.principalID)
		for name, v := range a.context {
			am.Put(name, contextText(v))
		}
		m.Put("authorizer", am)
	}
	return m
}

const requestTimeLayout = "02/Jan/2006:15:04:05 -0700"

// http runs an HTTP or HTTP_PROXY integration: the message (or the
// rendered request template, for HTTP) is the backend request's body.
func (k *call) http(in *integration) result {
	if k.x.backend == nil {
		return result{failed: true}
	}
	body := k.body
	if in.kind == "HTTP" {
		if tmpl, ok := k.requestTemplate(in); ok {
			out, err := k.render(tmpl, k.body)
			if err != nil {
				return result{failed: true}
			}
			body = []byte(out)
		}
	}
	req := &execute.BackendRequest{Method: in.method, URL: execute.SubstituteStageVariables(in.uri, k.t.stage.StageVariables),
		Body: body, Timeout: in.timeout,
		Headers: execute.Headers{{Name: "Content-Type", Value: "application/json"}}}
	if k.eventType == "CONNECT" {
		for _, h := range k.req.Headers {
			if !execute.IsHopHeader(h.Name) && !strings.EqualFold(h.Name, "Host") && !strings.HasPrefix(strings.ToLower(h.Name), "sec-websocket-") {
				req.Headers = append(req.Headers, h)
			}
		}
		if k.req.RawQuery != "" {
			if strings.Contains(req.URL, "?") {
				req.URL += "&" + k.req.RawQuery
			} else {
				req.URL += "?" + k.req.RawQuery
			}
		}
	}
	req.Headers = append(req.Headers, execute.Header{Name: "connectionId", Value: k.c.ID})
	var resp execute.BackendResponse
	if err := k.x.backend.Do(req, &resp); err != nil {
		k.x.log.Debug("HTTP integration failed", "requestId", k.requestID, "error", err)
		return result{failed: true}
	}
	out := append([]byte(nil), resp.Body...)
	if in.kind == "HTTP_PROXY" {
		return result{status: resp.Status, body: out, headers: copyHeaders(resp.Headers)}
	}
	return k.respond(in, resp.Status, strconv.Itoa(resp.Status), out)
}

func copyHeaders(h execute.Headers) execute.Headers {
	out := make(execute.Headers, 0, len(h))
	for _, f := range h {
		out = append(out, execute.Header{Name: strings.Clone(f.Name), Value: strings.Clone(f.Value)})
	}
	return out
}

// function runs an AWS_PROXY integration (the WebSocket event) or an AWS
// one (the rendered request template).
func (k *call) function(in *integration) result {
	f := k.x.functions
	if f == nil || in.function == "" {
		return result{failed: true}
	}
	var payload []byte
	if in.kind == "AWS_PROXY" {
		payload = k.event()
	} else {
		payload = k.body
		if tmpl, ok := k.requestTemplate(in); ok {
			out, err := k.render(tmpl, k.body)
			if err != nil {
				return result{failed: true}
			}
			payload = []byte(out)
		}
		if len(payload) == 0 {
			payload = []byte("{}")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), in.timeout)
	defer cancel()
	reply, err := f.Invoke(ctx, k.t.scope, execute.SubstituteStageVariables(in.function, k.t.stage.StageVariables), payload, in.timeout)
	if err != nil {
		k.x.log.Info("function integration failed", "requestId", k.requestID, "function", in.function, "error", err)
		return result{failed: true}
	}
	if in.kind == "AWS" {
		if reply.Error != "" {
			msg := execute.FunctionErrorMessage(reply.Payload)
			for _, r := range in.responses {
				if r.re != nil && r.re.MatchString(msg) {
					return k.respond(in, 200, msg, reply.Payload)
				}
			}
			return result{failed: true}
		}
		return k.respond(in, 200, "200", reply.Payload)
	}
	if reply.Error != "" {
		return result{failed: true}
	}
	return proxyAnswer(reply.Payload)
}

// proxyAnswer reads a function's answer to a WebSocket event: an object
// with statusCode, body (base64 when isBase64Encoded) and headers; any
// other answer is sent as it is, status 200.
func proxyAnswer(payload []byte) result {
	var a struct {
		StatusCode      *int              `json:"statusCode"`
		Body            *string           `json:"body"`
		IsBase64Encoded bool              `json:"isBase64Encoded"`
		Headers         map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(payload, &a); err != nil || (a.StatusCode == nil && a.Body == nil) {
		return result{status: 200, body: append([]byte(nil), payload...)}
	}
	res := result{status: 200}
	if a.StatusCode != nil {
		res.status = *a.StatusCode
	}
	if a.Body != nil {
		res.body = []byte(*a.Body)
		if a.IsBase64Encoded {
			if b, err := base64.StdEncoding.DecodeString(*a.Body); err == nil {
				res.body = b
			}
		}
	}
	for name, v := range a.Headers {
		res.headers = append(res.headers, execute.Header{Name: name, Value: v})
	}
	return res
}

// contextText is an authorizer context value as API Gateway passes it on:
// strings as they are, numbers and booleans as their text.
func contextText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// eventContext is the requestContext of a WebSocket event.
type eventContext struct {
	RouteKey             string         `json:"routeKey"`
	DisconnectStatusCode *int           `json:"disconnectStatusCode,omitempty"`
	MessageID            string         `json:"messageId,omitempty"`
	DisconnectReason     *string        `json:"disconnectReason,omitempty"`
	EventType            string         `json:"eventType"`
	ExtendedRequestID    string         `json:"extendedRequestId"`
	RequestTime          string         `json:"requestTime"`
	MessageDirection     string         `json:"messageDirection"`
	Stage                string         `json:"stage"`
	ConnectedAt          int64          `json:"connectedAt"`
	RequestTimeEpoch     int64          `json:"requestTimeEpoch"`
	Identity             eventIdentity  `json:"identity"`
	RequestID            string         `json:"requestId"`
	DomainName           string         `json:"domainName"`
	ConnectionID         string         `json:"connectionId"`
	APIID                string         `json:"apiId"`
	Authorizer           map[string]any `json:"authorizer,omitempty"`
}

type eventIdentity struct {
	UserAgent string `json:"userAgent,omitempty"`
	SourceIP  string `json:"sourceIp"`
}

// proxyEvent is what an AWS_PROXY integration's function receives
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-websocket-api-integration-requests.html).
type proxyEvent struct {
	Headers                         map[string]string   `json:"headers,omitempty"`
	MultiValueHeaders               map[string][]string `json:"multiValueHeaders,omitempty"`
	QueryStringParameters           map[string]string   `json:"queryStringParameters,omitempty"`
	MultiValueQueryStringParameters map[string][]string `json:"multiValueQueryStringParameters,omitempty"`
	StageVariables                  map[string]string   `json:"stageVariables,omitempty"`
	RequestContext                  eventContext        `json:"requestContext"`
	Body                            *string             `json:"body,omitempty"`
	IsBase64Encoded                 bool                `json:"isBase64Encoded"`
}

func (k *call) requestContext() eventContext {
	c := k.c
	ec := eventContext{RouteKey: k.routeKey, MessageID: k.messageID, EventType: k.eventType,
		ExtendedRequestID: k.requestID, RequestTime: k.at.UTC().Format(requestTimeLayout), MessageDirection: "IN",
		Stage: c.stage, ConnectedAt: c.connectedAt.UnixMilli(), RequestTimeEpoch: k.at.UnixMilli(),
		Identity: eventIdentity{UserAgent: c.userAgent, SourceIP: c.sourceIP}, RequestID: k.requestID,
		DomainName: c.domainName, ConnectionID: c.ID, APIID: k.t.api.API.APIID}
	if k.eventType == "DISCONNECT" {
		code, reason := k.disconnectCode, k.disconnectReason
		ec.DisconnectStatusCode, ec.DisconnectReason = &code, &reason
	}
	if a := c.authorizer; a != nil {
		ec.Authorizer = map[string]any{"principalId": a.principalID}
		for name, v := range a.context {
			ec.Authorizer[name] = v
		}
	}
	return ec
}

// event is the AWS_PROXY event of the call.
func (k *call) event() []byte {
	ev := proxyEvent{RequestContext: k.requestContext(), StageVariables: k.t.stage.StageVariables}
	switch k.eventType {
	case "CONNECT":
		ev.Headers, ev.MultiValueHeaders = k.headerMaps()
		ev.QueryStringParameters, ev.MultiValueQueryStringParameters = k.queryMaps()
	case "DISCONNECT":
		ev.Headers = map[string]string{"Host": k.c.domainName}
		ev.MultiValueHeaders = map[string][]string{"Host": {k.c.domainName}}
	case "MESSAGE":
		body := string(k.body)
		if k.binary {
			body = base64.StdEncoding.EncodeToString(k.body)
			ev.IsBase64Encoded = true
		}
		ev.Body = &body
	}
	b, _ := json.Marshal(ev)
	return b
}

func (k *call) headerMaps() (map[string]string, map[string][]string) {
	one, many := map[string]string{}, map[string][]string{}
	for _, h := range k.req.Headers {
		if _, ok := one[h.Name]; !ok {
			one[h.Name] = h.Value
		}
		many[h.Name] = append(many[h.Name], h.Value)
	}
	return one, many
}

func (k *call) queryMaps() (map[string]string, map[string][]string) {
	q := k.queryParams()
	if len(q) == 0 {
		return nil, nil
	}
	one, many := map[string]string{}, map[string][]string{}
	for _, p := range q {
		one[p.Name] = p.Last()
		many[p.Name] = p.Values
	}
	return one, many
}
