package rest

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/vtl/gateway"
)

// integrate runs the integration request, the integration and the
// integration response (§2.6–2.9).
func (inv *invocation) integrate() {
	integ := inv.m.integ
	if integ == nil {
		inv.trace("Execution failed due to configuration error: No integration defined for method")
		inv.traceStep(execute.StepIntegration, "error", "no integration defined for the method")
		inv.fail(errInternal)
		return
	}
	if integ.restricted {
		inv.trace("Execution failed due to configuration error: a header mapping targets a header API Gateway sets itself")
		inv.traceStep(execute.StepIntegration, "error", "a header mapping targets a header API Gateway sets itself")
		inv.fail(errInternal)
		return
	}
	switch integ.kind {
	case "MOCK":
		inv.mock(integ)
	case "HTTP":
		inv.http(integ, false)
	case "HTTP_PROXY":
		inv.http(integ, true)
	default:
		if f := inv.ex.functions; f != nil && integ.function {
			inv.function(f, integ)
			return
		}
		if inv.tr != nil {
			inv.traceStep(execute.StepIntegration, "error", integ.kind+": not emulated here (no function runtime, or another service)")
		}
		inv.fail(errUnsupportedIntegration(integ.kind))
	}
}

// requestBody is the integration request body of a non-proxy integration:
// the request template chosen by Content-Type, or the method request body
// as the passthrough behaviour allows, then contentHandling. ok is false
// when the request was answered.
func (inv *invocation) requestBody(integ *integration) (body []byte, templated, ok bool) {
	ct := inv.contentType()
	t := integ.templates[ct]
	if t == nil {
		switch integ.passthrough {
		case "NEVER":
			inv.traceStep(execute.StepRequestTemplate, "unsupported media type", "no template for "+ct+", passthrough NEVER")
			inv.fail(errUnsupportedMedia)
			return nil, false, false
		case "WHEN_NO_TEMPLATES":
			if len(integ.templates) > 0 {
				inv.traceStep(execute.StepRequestTemplate, "unsupported media type",
					"no template for "+ct+", passthrough WHEN_NO_TEMPLATES")
				inv.fail(errUnsupportedMedia)
				return nil, false, false
			}
		}
		body = inv.req.Body
		if inv.tr != nil {
			inv.traceStep(execute.StepRequestTemplate, "passthrough", string(body))
		}
	} else if t.static {
		body, templated = t.out, true
		if inv.tr != nil {
			inv.traceStep(execute.StepRequestTemplate, "static", string(body))
		}
	} else {
		var start time.Time
		if inv.tr != nil {
			start = inv.ex.now()
		}
		out, err := inv.render(t, inv.req.Body)
		if err != nil {
			inv.ex.log.Warn("request template failed", "requestId", inv.req.RequestID, "api", inv.req.APIID,
				"route", inv.m.httpMethod+" "+inv.m.resourcePath, "error", err)
			inv.trace("Execution failed due to configuration error: the request template failed: " + err.Error())
			if inv.tr != nil {
				inv.traceTimed(execute.StepRequestTemplate, "failed", ct+": "+err.Error(), inv.ex.now().Sub(start))
			}
			inv.fail(errInternal)
			return nil, true, false
		}
		body, templated = []byte(out), true
		if inv.tr != nil {
			inv.traceTimed(execute.StepRequestTemplate, "rendered", out, inv.ex.now().Sub(start))
		}
	}
	body, ok = convert(body, isBinary(inv.dep.binary, ct), false, integ.contentHandling)
	if !ok {
		inv.fail(errConvert)
		return nil, templated, false
	}
	return body, templated, true
}

// mock answers with the status the request template names (§5); the
// endpoint body is empty.
func (inv *invocation) mock(integ *integration) {
	body, templated, ok := inv.requestBody(integ)
	if !ok {
		return
	}
	status := 200
	if t := integ.templates[inv.contentType()]; t != nil && t.static && templated {
		// A constant template: its status was read once.
		if !t.mockOK {
			inv.trace("Execution failed due to configuration error: Unable to parse statusCode. It should be an integer that is defined in the request template.")
			inv.traceStep(execute.StepIntegration, "error", "MOCK: no statusCode in the request template")
			inv.fail(errInternal)
			return
		}
		status = t.mockStatus
	} else if templated || len(body) > 0 {
		s, ok := gateway.MockStatus(string(body))
		switch {
		case ok:
			status = s
		case templated:
			inv.trace("Execution failed due to configuration error: Unable to parse statusCode. It should be an integer that is defined in the request template.")
			inv.traceStep(execute.StepIntegration, "error", "MOCK: no statusCode in the request template")
			inv.fail(errInternal)
			return
		}
	}
	inv.integrationStatus = status
	if inv.tr != nil {
		inv.traceStep(execute.StepIntegration, strconv.Itoa(status), "MOCK")
	}
	br := &inv.backendResp
	br.Status, br.Headers, br.Body = status, br.Headers[:0], br.Body[:0]
	inv.respond(integ, strconv.Itoa(status))
}

// http calls an HTTP backend: mapped (HTTP) or proxied (HTTP_PROXY).
func (inv *invocation) http(integ *integration, proxy bool) {
	req := inv.req
	br := &inv.backendReq
	br.Headers = br.Headers[:0]
	if proxy {
		br.Body = req.Body
		for _, h := range req.Headers {
			if !isHop(h.Name) && !strings.EqualFold(h.Name, "Host") && !strings.EqualFold(h.Name, "X-Amzn-Trace-Id") &&
				!strings.EqualFold(h.Name, "X-Amzn-Apigateway-Api-Id") {
				br.Headers = append(br.Headers, h)
			}
		}
	} else {
		body, _, ok := inv.requestBody(integ)
		if !ok {
			return
		}
		br.Body = body
	}
	target, ok := inv.endpointURL(integ, proxy)
	if !ok {
		if inv.tr != nil {
			inv.traceStep(execute.StepIntegration, "invalid endpoint", integ.kind+" "+target)
		}
		inv.fail(errBadEndpoint)
		return
	}
	br.URL = target
	br.Method = integ.httpMethod
	if br.Method == "" || br.Method == "ANY" {
		br.Method = req.Method
	}
	br.Timeout = integ.timeout
	br.InsecureSkipVerify = integ.insecureTLS
	mapped := func(name string) bool {
		for _, p := range integ.params {
			if p.where == "header" && strings.EqualFold(p.name, name) {
				return true
			}
		}
		return false
	}
	for _, p := range integ.params {
		if p.where != "header" && p.where != "multivalueheader" {
			continue
		}
		if v, ok := inv.sourceValue(p.src); ok {
			br.Headers = br.Headers.Set(p.name, v)
		}
	}
	if !proxy {
		if !mapped("Accept") {
			br.Headers = append(br.Headers, execute.Header{Name: "Accept", Value: "application/json"})
		}
		if !mapped("User-Agent") {
			br.Headers = append(br.Headers, execute.Header{Name: "User-Agent", Value: "AmazonAPIGateway_" + req.APIID})
		}
		if len(br.Body) > 0 && !mapped("Content-Type") {
			br.Headers = append(br.Headers, execute.Header{Name: "Content-Type", Value: "application/json"})
		}
	}
	br.Headers = append(br.Headers, execute.Header{Name: "X-Amzn-Apigateway-Api-Id", Value: req.APIID},
		execute.Header{Name: "X-Amzn-Trace-Id", Value: inv.traceHeader()})

	if inv.log != nil {
		inv.trace("Endpoint request URI: " + target)
		inv.trace("Endpoint request headers: " + javaHeaders(br.Headers))
		inv.trace("Endpoint request body after transformations: " + string(br.Body))
		inv.trace("Sending request to " + target)
	}
	inv.integrationStart = inv.ex.now()
	err := inv.ex.backend.Do(br, &inv.backendResp)
	inv.integrationLatency = inv.ex.now().Sub(inv.integrationStart)
	if inv.tr != nil {
		inv.traceHTTP(integ, br, err)
	}
	switch {
	case err == nil:
	case errors.Is(err, execute.ErrBackendTimeout):
		inv.fail(errTimeout)
		return
	case errors.Is(err, execute.ErrBackendUnreachable):
		inv.fail(errUnreachable)
		return
	case errors.Is(err, execute.ErrBackendMalformed):
		inv.ex.log.Info("integration answer malformed", "requestId", req.RequestID, "url", target, "error", err)
		inv.fail(errMalformedEndpoint)
		return
	default:
		inv.ex.log.Info("integration request failed", "requestId", req.RequestID, "url", target, "error", err)
		inv.fail(errBadEndpoint)
		return
	}
	resp := &inv.backendResp
	inv.integrationStatus = resp.Status
	if inv.log != nil {
		inv.trace("Received response. Status: " + strconv.Itoa(resp.Status) + ", Integration latency: " +
			strconv.FormatInt(inv.integrationLatency.Milliseconds(), 10) + " ms")
		inv.trace("Endpoint response headers: " + javaHeaders(resp.Headers))
		inv.trace("Endpoint response body before transformations: " + string(resp.Body))
	}
	if proxy {
		inv.proxyResponse()
		return
	}
	inv.respond(integ, strconv.Itoa(resp.Status))
}

// endpointURL builds the backend URL: stage variables substituted, path
// placeholders filled from the path mappings, then the query strings of
// the URI, of the mappings and (proxy) of the client, in that order (H-05).
// ok is false for a URL that is not an absolute http(s) URL.
func (inv *invocation) endpointURL(integ *integration, proxy bool) (string, bool) {
	uri := integ.uri
	if strings.Contains(uri, "${stageVariables.") {
		uri = execute.SubstituteStageVariables(uri, inv.vars)
	}
	if strings.IndexByte(uri, '{') >= 0 {
		uri = inv.fillPlaceholders(uri, integ)
	}
	var b strings.Builder
	b.WriteString(uri)
	sep := byte('?')
	if strings.IndexByte(uri, '?') >= 0 {
		sep = '&'
		if strings.HasSuffix(uri, "?") || strings.HasSuffix(uri, "&") {
			sep = 0
		}
	}
	add := func(kv string) {
		if sep != 0 {
			b.WriteByte(sep)
		}
		sep = '&'
		b.WriteString(kv)
	}
	for _, p := range integ.params {
		if p.where != "querystring" && p.where != "multivaluequerystring" {
			continue
		}
		v, ok := inv.sourceValue(p.src)
		if !ok {
			continue
		}
		if p.where == "multivaluequerystring" {
			for _, one := range strings.Split(v, ",") {
				add(url.QueryEscape(p.name) + "=" + url.QueryEscape(one))
			}
			continue
		}
		add(url.QueryEscape(p.name) + "=" + url.QueryEscape(v))
	}
	if proxy && inv.req.RawQuery != "" {
		add(inv.req.RawQuery)
	}
	out := b.String()
	return out, execute.ValidEndpoint(out)
}

// fillPlaceholders replaces {name} in the URI with the value mapped to
// integration.request.path.name: path parameters as the client sent them
// (greedy ones keep their slashes), other sources escaped.
func (inv *invocation) fillPlaceholders(uri string, integ *integration) string {
	return execute.FillPlaceholders(uri, func(name string) (string, bool) {
		for _, p := range integ.params {
			if p.where == "path" && p.name == name {
				v, ok := inv.sourceValue(p.src)
				if ok && !(p.src.kind == srcRequest && p.src.where == "path") {
					v = url.PathEscape(v)
				}
				return v, ok
			}
		}
		return "", false
	})
}

// respond is the integration response and method response of a non-proxy
// integration (§2.8–2.9): the response selected by selection, its header
// mappings, its template chosen by Accept, the overrides, the payload
// conversion.
func (inv *invocation) respond(integ *integration, selection string) {
	called := integ.kind != "MOCK"
	var ir *integrationResponse
	for _, r := range integ.responses {
		if r.patternErr == nil && r.pattern.Matches(selection) {
			ir = r
			break
		}
	}
	if ir == nil {
		ir = integ.fallback
	}
	if inv.tr != nil {
		inv.traceSelection(ir, selection)
	}
	if ir == nil {
		inv.trace("Execution failed due to configuration error: No match for output mapping and no default output mapping configured. Endpoint Response Status Code: " + selection)
		if !called {
			e := *errNoOutputMapping
			e.afterIntegration = false
			inv.fail(&e)
			return
		}
		inv.fail(errNoOutputMapping)
		return
	}
	resp := inv.resp
	resp.Reset()
	resp.Status = ir.status
	resp.Headers = append(resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"})
	for _, p := range ir.params {
		if p.where != "header" {
			continue
		}
		if v, ok := inv.sourceValue(p.src); ok {
			resp.Headers = setResponseHeader(resp.Headers, p.name, v)
		}
	}
	body := inv.backendResp.Body
	if len(ir.templates) > 0 {
		t := pickTemplate(ir.templates, inv.accept())
		out, err := "", error(nil)
		var start time.Time
		if inv.tr != nil {
			start = inv.ex.now()
		}
		if t.static {
			body = t.out
		} else {
			out, err = inv.render(t, body)
		}
		if inv.tr != nil {
			inv.traceResponseTemplate(t, out, err, inv.ex.now().Sub(start))
		}
		if err != nil {
			inv.ex.log.Warn("response template failed", "requestId", inv.req.RequestID, "api", inv.req.APIID,
				"route", inv.m.httpMethod+" "+inv.m.resourcePath, "error", err)
			inv.trace("Execution failed due to configuration error: the response template failed: " + err.Error())
			e := *errInternal
			e.afterIntegration = called
			inv.fail(&e)
			return
		}
		if !t.static {
			body = []byte(out)
		}
	}
	if inv.ctx != nil {
		ov := inv.ctx.overrides()
		if ov.Status != 0 {
			resp.Status = ov.Status
		}
		if len(ov.ResponseHeaders) > 0 {
			for _, k := range sortedKeys(ov.ResponseHeaders) {
				resp.Headers = setResponseHeader(resp.Headers, k, ov.ResponseHeaders[k])
			}
		}
	}
	backendType, _ := inv.backendResp.Headers.Get("Content-Type")
	body, ok := convert(body, isBinary(inv.dep.binary, mediaType(backendType)), isBinary(inv.dep.binary, inv.accept()),
		ir.contentHandling)
	if !ok {
		inv.fail(errConvert)
		return
	}
	resp.Body = append(resp.Body, body...)
	inv.status = resp.Status
	inv.enrich(called)
	inv.traceResponse()
	inv.trace("Successfully completed execution")
}

// setResponseHeader sets a method response header from a mapping: the
// headers API Gateway keeps for itself go to x-amzn-Remapped-{name}, and
// Transfer-Encoding is dropped (recorded X-01).
func setResponseHeader(h execute.Headers, name, value string) execute.Headers {
	if strings.EqualFold(name, "Transfer-Encoding") {
		return h
	}
	return h.Set(execute.Remapped(name, false), value)
}

// proxyResponse passes the backend's answer through (HTTP_PROXY): status,
// headers (those API Gateway keeps renamed x-amzn-Remapped-*), body.
func (inv *invocation) proxyResponse() {
	inv.traceStep(execute.StepIntegrationResponse, "passthrough", "HTTP_PROXY: the backend's answer as it is")
	br := &inv.backendResp
	resp := inv.resp
	resp.Reset()
	resp.Status = br.Status
	for _, h := range br.Headers {
		if strings.EqualFold(h.Name, "Transfer-Encoding") {
			continue
		}
		resp.Headers = append(resp.Headers, execute.Header{Name: execute.Remapped(h.Name, true), Value: h.Value})
	}
	ct, _ := br.Headers.Get("Content-Type")
	body := br.Body
	if !isBinary(inv.dep.binary, mediaType(ct)) && !isBinary(inv.dep.binary, inv.accept()) {
		body = validUTF8(body)
	}
	resp.Body = append(resp.Body, body...)
	inv.status = resp.Status
	inv.enrich(false)
	inv.traceResponse()
	inv.trace("Successfully completed execution")
}
