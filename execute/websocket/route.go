package websocket

import (
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"time"

	"github.com/cloudemu/emulator/execute"
)

// authorizerTimeout bounds a Lambda authorizer's call.
const authorizerTimeout = 29 * time.Second

// Connect runs $connect for an upgrade request (the front checked the
// handshake): the stage, the route's Lambda authorizer, its integration.
// handled is false when the id names no WebSocket API, and the request
// goes on as any other. Otherwise conn is the accepted connection, which
// the front MUST Open once upgraded, or nil with resp the refusal.
func (x *Executor) Connect(req *execute.Request, resp *execute.Response) (conn *Conn, handled bool) {
	t, ok := x.resolve(req.APIID, req.Region, req.Stage)
	if !ok {
		if !x.Owns(req.APIID, req.Region) {
			return nil, false
		}
		refuse(resp, req.RequestID, 403, "ForbiddenException", `{"message":"Forbidden"}`)
		return nil, true
	}
	if t.api.API.DisableExecuteAPIEndpoint {
		refuse(resp, req.RequestID, 403, "ForbiddenException", `{"message":"Forbidden"}`)
		return nil, true
	}
	now := x.now()
	c := &Conn{ID: newID(), epoch: x.epoch.Load(), apiID: t.api.API.APIID, stage: strings.Clone(req.Stage), region: t.scope.Region,
		scope: t.scope, connectedAt: now, sourceIP: strings.Clone(req.SourceIP), domainName: strings.Clone(req.Host)}
	if ua, ok := req.Headers.Get("User-Agent"); ok {
		c.userAgent = strings.Clone(ua)
	}
	if _, err := netip.ParseAddr(c.sourceIP); err != nil {
		c.sourceIP = "127.0.0.1"
	}
	c.touch(now)
	rt := t.cfg.routes["$connect"]
	if rt == nil {
		return c, true
	}
	k := &call{x: x, c: c, t: t, rt: rt, eventType: "CONNECT", routeKey: "$connect", requestID: req.RequestID,
		at: now, req: req}
	if rt.authBad {
		refuse(resp, req.RequestID, 500, "AuthorizerConfigurationException", `{"message": "Internal server error"}`)
		return nil, true
	}
	if rt.auth != nil {
		status := k.authorize(rt.auth)
		switch status {
		case 200:
		case 401:
			refuse(resp, req.RequestID, 401, "UnauthorizedException", `{"message":"Unauthorized"}`)
			return nil, true
		case 403:
			refuse(resp, req.RequestID, 403, "AccessDeniedException", `{"message":"Forbidden"}`)
			return nil, true
		default:
			refuse(resp, req.RequestID, 500, "AuthorizerConfigurationException", `{"message": "Internal server error"}`)
			return nil, true
		}
	}
	if rt.integ == nil {
		return c, true
	}
	res := k.integrate(rt.integ)
	switch {
	case res.failed:
		refuse(resp, req.RequestID, 500, "InternalServerErrorException", `{"message": "Internal server error"}`)
		return nil, true
	case res.status < 200 || res.status > 299:
		// A $connect integration that answers anything but 2xx refuses
		// the connection with its status.
		resp.Reset()
		resp.Status = res.status
		resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
			execute.Header{Name: "x-amzn-RequestId", Value: req.RequestID})
		resp.Body = append(resp.Body, res.body...)
		return nil, true
	}
	if p, ok := res.headers.Get("Sec-WebSocket-Protocol"); ok && validProtocol(p) {
		c.protocol = p
	}
	return c, true
}

// refuse writes an upgrade's refusal.
func refuse(resp *execute.Response, requestID string, status int, errorType, body string) {
	resp.Reset()
	resp.Status = status
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
		execute.Header{Name: "x-amzn-RequestId", Value: requestID},
		execute.Header{Name: "x-amzn-ErrorType", Value: errorType})
	resp.Body = append(resp.Body, body...)
}

// authorizerEvent is a REQUEST authorizer's input for $connect
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-websocket-api-lambda-auth.html).
type authorizerEvent struct {
	Type                            string              `json:"type"`
	MethodArn                       string              `json:"methodArn"`
	Headers                         map[string]string   `json:"headers"`
	MultiValueHeaders               map[string][]string `json:"multiValueHeaders"`
	QueryStringParameters           map[string]string   `json:"queryStringParameters"`
	MultiValueQueryStringParameters map[string][]string `json:"multiValueQueryStringParameters"`
	StageVariables                  map[string]string   `json:"stageVariables"`
	RequestContext                  eventContext        `json:"requestContext"`
}

// authorize runs a REQUEST authorizer: 200 allowed, 401 (a missing
// identity source, or the function's "Unauthorized"), 403 (the policy
// does not allow $connect), 500 (the function failed or answered what is
// no authorizer's output).
func (k *call) authorize(a *authorizer) int {
	for _, s := range a.sources {
		if k.identityValue(s) == "" {
			return 401
		}
	}
	if k.x.functions == nil || a.function == "" {
		return 500
	}
	methodArn := "arn:aws:execute-api:" + k.t.scope.Region + ":" + k.t.scope.Account + ":" + k.t.api.API.APIID +
		"/" + k.c.stage + "/$connect"
	ev := authorizerEvent{Type: "REQUEST", MethodArn: methodArn, RequestContext: k.requestContext(),
		StageVariables: k.t.stage.StageVariables}
	ev.Headers, ev.MultiValueHeaders = k.headerMaps()
	ev.QueryStringParameters, ev.MultiValueQueryStringParameters = k.queryMaps()
	payload, _ := json.Marshal(ev)
	ctx, cancel := context.WithTimeout(context.Background(), authorizerTimeout)
	defer cancel()
	reply, err := k.x.functions.Invoke(ctx, k.t.scope, a.function, payload, authorizerTimeout)
	if err != nil {
		k.x.log.Info("authorizer failed", "requestId", k.requestID, "authorizer", a.id, "error", err)
		return 500
	}
	res, status := authorizeReply(reply, methodArn)
	if status == 200 {
		k.c.authorizer = res
	}
	return status
}

func (k *call) identityValue(s identitySource) string {
	switch s.where {
	case "header":
		v, _ := k.req.Headers.Get(s.name)
		return v
	case "querystring":
		for _, q := range k.queryParams() {
			if q.Name == s.name {
				return q.Last()
			}
		}
	case "stageVariables":
		return k.t.stage.StageVariables[s.name]
	}
	return ""
}

// Open registers an upgraded connection with its socket: from now on
// @connections reaches it.
func (x *Executor) Open(c *Conn, s Socket) {
	c.socket.Store(&socketBox{s})
	x.conns.Store(c.ID, c)
	// Connected before a Close that could not see it yet: it goes too.
	if x.epoch.Load() != c.epoch {
		_ = s.Close(1001, "Going away")
	}
}

// Message runs one message from the client: route selection, the route's
// integration, and its answer sent back when the route has a route
// response. The front calls it from the connection's reader, one message
// at a time; body is the message's (the executor may keep it).
func (x *Executor) Message(c *Conn, body []byte, binary bool) {
	now := x.now()
	c.touch(now)
	s := c.sock()
	if s == nil {
		return
	}
	t, ok := x.resolve(c.apiID, c.region, c.stage)
	requestID := newID()
	if !ok {
		_ = s.Send(errorFrame("Forbidden", c.ID, requestID), false)
		return
	}
	k := &call{x: x, c: c, t: t, eventType: "MESSAGE", requestID: requestID, messageID: newID(), at: now,
		body: body, binary: binary}
	// Route selection: the expression's value if a route has that key,
	// else $default; a message that is not JSON goes to $default.
	key := "$default"
	if v := k.json(); v != nil {
		if sel := t.cfg.selection.eval(v, string(body), nil); sel != "" {
			if _, ok := t.cfg.routes[sel]; ok {
				key = sel
			}
		}
	}
	rt := t.cfg.routes[key]
	if rt == nil || key == "$connect" || key == "$disconnect" {
		_ = s.Send(errorFrame("Forbidden", c.ID, requestID), false)
		return
	}
	k.rt, k.routeKey = rt, key
	if rt.integ == nil {
		_ = s.Send(errorFrame("Internal server error", c.ID, requestID), false)
		return
	}
	res := k.integrate(rt.integ)
	if res.failed {
		_ = s.Send(errorFrame("Internal server error", c.ID, requestID), false)
		return
	}
	if rt.respond {
		c.touch(x.now())
		_ = s.Send(res.body, false)
	}
}

// errorFrame is the frame API Gateway sends for a message it could not
// route or run, as AWS writes it:
// {"message": "Forbidden", "connectionId":"XDmENcnwIE0CFEQ=", "requestId":"XDmGEE2RoE0FRdQ="}.
func errorFrame(message, connectionID, requestID string) []byte {
	b := make([]byte, 0, 96)
	b = append(b, `{"message": "`...)
	b = append(b, message...)
	b = append(b, `", "connectionId":"`...)
	b = append(b, connectionID...)
	b = append(b, `", "requestId":"`...)
	b = append(b, requestID...)
	return append(b, `"}`...)
}

// Disconnect ends a connection once its socket closed: $disconnect runs
// (best effort, as on AWS) with the close code and reason, then it leaves
// the registry, so that Close, which waits for an empty registry, waits
// for the $disconnect integrations too. Calls after the first do nothing.
func (x *Executor) Disconnect(c *Conn, code int, reason string) {
	c.done.Do(func() {
		defer x.conns.Compute(c.ID, func(old *Conn, loaded bool) (*Conn, bool) {
			return old, !loaded || old == c
		})
		t, ok := x.resolve(c.apiID, c.region, c.stage)
		if !ok {
			return
		}
		rt := t.cfg.routes["$disconnect"]
		if rt == nil || rt.integ == nil {
			return
		}
		k := &call{x: x, c: c, t: t, rt: rt, eventType: "DISCONNECT", routeKey: "$disconnect", requestID: newID(),
			at: x.now(), disconnectCode: code, disconnectReason: reason}
		if res := k.integrate(rt.integ); res.failed {
			x.log.Debug("$disconnect integration failed", "connectionId", c.ID, "requestId", k.requestID)
		}
	})
}

// validProtocol reports a Sec-WebSocket-Protocol value of tokens (RFC
// 6455 §4.1, comma-separated): a function's answer goes into the
// handshake as it is, so it may not carry a line break.
func validProtocol(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < ' ' || c >= 0x7f || strings.IndexByte("()<>@;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return p != ""
}
