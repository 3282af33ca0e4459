package rest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/jsonread"
)

// Lambda authorizers (docs/apigateway-execution.md §2.3): a TOKEN
// authorizer gets the token of one header, a REQUEST one the request; the
// function answers a principal, a policy, a context and, for usage plans,
// an API key. The policy is evaluated against the method's ARN; the answer
// is cached per stage and identity for the authorizer's TTL.

// authorizerTimeout bounds a Lambda authorizer's call.
const authorizerTimeout = 29 * time.Second

// maxAuthCache bounds how many authorizer answers are cached in all.
const maxAuthCache = 10000

// authorizer is an authorizer compiled with its configuration.
type authorizer struct {
	id, kind string // TOKEN, REQUEST (Lambda); COGNITO_USER_POOLS
	target   lambdaTarget
	// sources are the identity sources, in order (TOKEN: one header).
	sources []identitySource
	// validation is a TOKEN authorizer's identityValidationExpression,
	// matched against the whole token; validationErr when it does not
	// compile.
	validation    *regexp.Regexp
	validationErr error
	// ttl is how long answers are cached (0: not cached).
	ttl time.Duration
}

// identitySource is one identity source: method.request.{header,
// multivalueheader, querystring, multivaluequerystring}.name,
// stageVariables.name or context.name.
type identitySource struct{ where, name string }

func compileAuthorizer(a *apigateway.Authorizer) *authorizer {
	out := &authorizer{id: a.ID, kind: a.Type, target: parseLambdaURI(a.AuthorizerURI),
		ttl: time.Duration(apigateway.AuthorizerTTL(a)) * time.Second}
	for _, src := range strings.Split(a.IdentitySource, ",") {
		src = strings.TrimSpace(src)
		switch {
		case src == "":
		case strings.HasPrefix(src, "method.request."):
			where, name, _ := strings.Cut(strings.TrimPrefix(src, "method.request."), ".")
			out.sources = append(out.sources, identitySource{where, name})
		case strings.HasPrefix(src, "stageVariables."), strings.HasPrefix(src, "context."):
			where, name, _ := strings.Cut(src, ".")
			out.sources = append(out.sources, identitySource{where, name})
		}
	}
	if expr := a.IdentityValidationExpression; expr != "" && a.Type == "TOKEN" {
		out.validation, out.validationErr = regexp.Compile(`^(?:` + expr + `)$`)
	}
	return out
}

// authResult is what a Lambda authorizer answered, read. It is immutable:
// the cache shares it between requests.
type authResult struct {
	principalID string
	statements  []policyStatement
	// context is the answer's context, its values as text, in order.
	context  execute.Headers
	usageKey string
	// policy is the policy document as the function gave it, compact.
	policy string
}

// policyStatement is one statement of the policy, its actions lowercased
// when read (IAM matches actions case-insensitively).
type policyStatement struct {
	allow              bool
	actions, resources []string
}

// authorize is the authorizer slot (§2.3). AWS_IAM accepts any signed
// request (credentials are not checked); a Lambda authorizer (CUSTOM) runs
// through the Function; Cognito authorizers, and Lambda ones while no
// Function is plugged in, answer AUTHORIZER_CONFIGURATION_ERROR.
func (inv *invocation) authorize() *gatewayError {
	switch inv.m.authorization {
	case "", "NONE":
		return nil
	case "AWS_IAM":
		if inv.req.Signed {
			inv.traceStep(execute.StepAuthorizer, "allowed", "AWS_IAM: a signed request (credentials are not checked)")
			return nil
		}
		inv.traceStep(execute.StepAuthorizer, "missing signature", "AWS_IAM: the request is not signed")
		inv.traceDecision(execute.DecisionForbidden)
		return errMissingToken
	case "CUSTOM":
		a, f := inv.m.authorizer, inv.ex.functions
		if a == nil || f == nil || (a.kind != "TOKEN" && a.kind != "REQUEST") {
			inv.traceStep(execute.StepAuthorizer, "error", "the authorizer is not emulated (no function runtime, or a Cognito authorizer)")
			return errAuthorizer
		}
		methodArn := inv.methodArn()
		res, e := inv.authorizerResult(f, a, methodArn, true)
		if e != nil {
			inv.traceAuthorizer(a, e)
			return e
		}
		inv.auth = res
		e = res.decide(methodArn)
		inv.traceAuthorizer(a, e)
		return e
	default:
		inv.traceStep(execute.StepAuthorizer, "error", "unsupported authorization type")
		return errAuthorizer
	}
}

// methodArn is the ARN of the method the request calls, as authorizers
// get it and policies name it: arn:aws:execute-api:{region}:{account}:
// {apiId}/{stage}/{METHOD}/{path}, the path as the client sent it.
func (inv *invocation) methodArn() string {
	return "arn:aws:execute-api:" + inv.scope.Region + ":" + inv.scope.Account + ":" + inv.api.API.ID + "/" +
		inv.req.Stage + "/" + inv.req.Method + eventPath(inv.req.Path)
}

// identity reads the authorizer's identity sources: the token (TOKEN) and
// the cache key of all of them (the token; a REQUEST authorizer's values
// joined by NUL). ok is false when one is missing or empty, or the token
// fails the validation expression: 401. The key may alias the request:
// the cache keeps a copy.
func (inv *invocation) identity(a *authorizer) (token, key string, ok bool) {
	if a.kind == "TOKEN" {
		if len(a.sources) > 0 {
			token = inv.identityValue(a.sources[0])
		}
		if token == "" || (a.validation != nil && !a.validation.MatchString(token)) {
			return "", "", false
		}
		return token, token, true
	}
	for i, s := range a.sources {
		v := inv.identityValue(s)
		if v == "" {
			return "", "", false
		}
		if i == 0 {
			key = v
		} else {
			key += "\x00" + v
		}
	}
	return "", key, true
}

func (inv *invocation) identityValue(s identitySource) string {
	switch s.where {
	case "header":
		v, _ := inv.req.Headers.Get(s.name)
		return v
	case "multivalueheader":
		return strings.Join(inv.req.Headers.Values(s.name), ",")
	case "querystring", "multivaluequerystring":
		for _, q := range inv.queryParams() {
			if q.Name == s.name {
				if s.where == "querystring" {
					return q.Last()
				}
				return strings.Join(q.Values, ",")
			}
		}
	case "stageVariables":
		return inv.vars[s.name]
	case "context":
		v, _ := inv.contextValue(s.name)
		return v
	}
	return ""
}

// authorizerResult runs Lambda authorizer a for the request, or takes its
// cached answer when cache allows: the answer, or the gateway error that
// ends the request (401 for a missing identity or the function's
// "Unauthorized", AUTHORIZER_CONFIGURATION_ERROR for a function that
// fails or answers what is not an authorizer's output).
func (inv *invocation) authorizerResult(f Function, a *authorizer, methodArn string, cache bool) (*authResult, *gatewayError) {
	if inv.log != nil {
		inv.trace("Starting authorizer: " + a.id + " for request: " + inv.req.RequestID)
	}
	if a.target.function == "" || a.validationErr != nil {
		inv.trace("Execution failed due to configuration error: Invalid authorizer configuration")
		return nil, errAuthorizerFailed
	}
	token, key, ok := inv.identity(a)
	if !ok {
		inv.traceUnauthorized()
		return nil, errUnauthorized
	}
	var ck authKey
	cache = cache && a.ttl > 0 && inv.stage != nil
	if cache {
		ck = authKey{scope: inv.scope, api: inv.api.API.ID, stage: inv.stage.StageName, authorizer: a.id, identity: key}
		if res := inv.ex.auths.get(ck, a, inv.ex.now()); res != nil {
			inv.authCached = true
			return res, nil
		}
		// A miss: the identity, which may alias the request or a buffer
		// the call reuses, is copied for the cache now.
		ck.identity = strings.Clone(ck.identity)
	}
	var payload []byte
	if a.kind == "TOKEN" {
		payload = append(inv.payload[:0], `{"type":"TOKEN","methodArn":`...)
		payload = awswire.AppendString(payload, methodArn)
		payload = append(payload, `,"authorizationToken":`...)
		payload = awswire.AppendString(payload, token)
		payload = append(payload, '}')
	} else {
		payload = inv.appendProxyEvent(inv.payload[:0], methodArn)
	}
	inv.payload = payload
	name := a.target.name(inv.vars)
	if inv.log != nil {
		uri := a.target.invokeURI(name)
		inv.trace("Endpoint request URI: " + uri)
		inv.trace("Endpoint request body after transformations: " + string(payload))
		inv.trace("Sending request to " + uri)
	}
	start := inv.ex.now()
	reply, timedOut, err := inv.invoke(f, name, payload, authorizerTimeout)
	inv.authLatency = inv.ex.now().Sub(start)
	switch {
	case timedOut:
		inv.trace("Execution failed due to a timeout error")
		return nil, errAuthorizerFailed
	case err != nil:
		inv.ex.log.Info("authorizer failed", "requestId", inv.req.RequestID, "authorizer", a.id, "function", name, "error", err)
		inv.trace("Execution failed due to configuration error: " + err.Error())
		return nil, errAuthorizerFailed
	case reply.Error != "":
		if execute.FunctionErrorMessage(reply.Payload) == "Unauthorized" {
			inv.traceUnauthorized()
			return nil, errUnauthorized
		}
		inv.trace("Execution failed due to configuration error: Authorizer error")
		return nil, errAuthorizerFailed
	}
	if inv.log != nil {
		inv.trace("Authorizer result body before parsing: " + string(reply.Payload))
	}
	res, ok := parseAuthorizerOutput(reply.Payload)
	if !ok {
		if inv.log != nil {
			inv.trace("Execution failed due to configuration error: Invalid JSON in response: " + string(reply.Payload))
		}
		return nil, errAuthorizerFailed
	}
	if inv.log != nil {
		inv.trace("Using valid authorizer policy for principal: " + res.principalID)
	}
	if cache {
		// ck's other strings are the snapshot's.
		now := inv.ex.now()
		inv.ex.auths.put(ck, authEntry{a: a, res: res, expires: now.Add(a.ttl)}, now)
	}
	return res, nil
}

func (inv *invocation) traceUnauthorized() {
	if inv.log != nil {
		inv.trace("Unauthorized request: " + inv.req.RequestID)
	}
}

// decide evaluates the policy against methodArn (§2.3): a matching Deny
// wins, else a matching Allow admits, else the request is denied.
func (r *authResult) decide(methodArn string) *gatewayError {
	allowed := false
	for _, s := range r.statements {
		if !s.matches(methodArn) {
			continue
		}
		if !s.allow {
			return errExplicitDeny
		}
		allowed = true
	}
	if allowed {
		return nil
	}
	return errImplicitDeny
}

// matches reports whether the statement applies to invoking methodArn:
// an action matching execute-api:Invoke (case-insensitive) and a resource
// matching the ARN, each with IAM's wildcards (* any run, ? one character).
func (s policyStatement) matches(methodArn string) bool {
	return slices.ContainsFunc(s.actions, func(a string) bool { return execute.WildcardMatch(a, "execute-api:invoke") }) &&
		slices.ContainsFunc(s.resources, func(r string) bool { return execute.WildcardMatch(r, methodArn) })
}

// parseAuthorizerOutput reads a Lambda authorizer's answer
// (api-gateway-lambda-authorizer-output): principalId (required),
// policyDocument (required, with a Statement: one or a list, each with
// Effect Allow or Deny, Action and Resource: one or a list), context (an
// object of strings, numbers and booleans, read as text) and
// usageIdentifierKey. Other members are ignored. ok is false for anything
// else.
func parseAuthorizerOutput(payload []byte) (*authResult, bool) {
	r := &authResult{}
	var doc []byte
	principal := false
	ok := jsonread.EachMember(payload, func(key, v []byte) bool {
		switch string(key) {
		case "principalId":
			s, k, ok := jsonread.ScalarText(v)
			principal = k != jsonread.Null
			r.principalID = s
			return ok
		case "policyDocument":
			doc = v
		case "context":
			switch jsonread.KindOf(v) {
			case jsonread.Null:
				return true
			case jsonread.Object:
			default:
				return false
			}
			r.context = r.context[:0]
			return jsonread.EachMember(v, func(name, cv []byte) bool {
				s, k, ok := jsonread.ScalarText(cv)
				if ok && k != jsonread.Null {
					r.context = putInPlace(r.context, string(name), s)
				}
				return ok
			})
		case "usageIdentifierKey":
			s, _, ok := jsonread.ScalarText(v)
			r.usageKey = s
			return ok
		}
		return true
	})
	if !ok || !principal || jsonread.KindOf(doc) != jsonread.Object {
		return nil, false
	}
	found := false
	ok = jsonread.EachMember(doc, func(key, v []byte) bool {
		if string(key) != "Statement" {
			return true
		}
		found = true
		r.statements = r.statements[:0]
		switch jsonread.KindOf(v) {
		case jsonread.Object:
			return r.addStatement(v)
		case jsonread.Array:
			return jsonread.EachElement(v, r.addStatement)
		}
		return false
	})
	if !ok || !found {
		return nil, false
	}
	var b bytes.Buffer
	if json.Compact(&b, doc) != nil {
		return nil, false
	}
	r.policy = b.String()
	return r, true
}

func (r *authResult) addStatement(v []byte) bool {
	var s policyStatement
	effect := ""
	ok := jsonread.EachMember(v, func(key, v []byte) bool {
		var ok bool
		switch string(key) {
		case "Effect":
			var k jsonread.Kind
			effect, k, ok = jsonread.ScalarText(v)
			return ok && k == jsonread.String
		case "Action":
			s.actions, ok = stringList(v)
			return ok
		case "Resource":
			s.resources, ok = stringList(v)
			return ok
		}
		return true
	})
	if !ok || (effect != "Allow" && effect != "Deny") || len(s.actions) == 0 || len(s.resources) == 0 {
		return false
	}
	s.allow = effect == "Allow"
	for i, a := range s.actions {
		s.actions[i] = strings.ToLower(a)
	}
	r.statements = append(r.statements, s)
	return true
}

// putInPlace sets name to value: where it is when h has it (a member
// given twice keeps its first place and its last value), else at the end.
func putInPlace(h execute.Headers, name, value string) execute.Headers {
	for i := range h {
		if h[i].Name == name {
			h[i].Value = value
			return h
		}
	}
	return append(h, execute.Header{Name: name, Value: value})
}

// stringList reads a string or a list of strings.
func stringList(v []byte) ([]string, bool) {
	switch jsonread.KindOf(v) {
	case jsonread.String:
		s, _, ok := jsonread.ScalarText(v)
		return []string{s}, ok
	case jsonread.Array:
		var out []string
		ok := jsonread.EachElement(v, func(e []byte) bool {
			s, k, ok := jsonread.ScalarText(e)
			out = append(out, s)
			return ok && k == jsonread.String
		})
		return out, ok
	}
	return nil, false
}

// value is $context.authorizer.{name}: the principal, the authorizer
// call's latency, or a context key.
func (r *authResult) value(name string, latency time.Duration) (string, bool) {
	switch name {
	case "principalId":
		return r.principalID, true
	case "integrationLatency":
		return strconv.FormatInt(latency.Milliseconds(), 10), true
	}
	for _, c := range r.context {
		if c.Name == name {
			return c.Value, true
		}
	}
	return "", false
}

// appendEventAuthorizer appends requestContext.authorizer as a Lambda
// proxy event carries it: the principal, the authorizer call's latency,
// then the context, its values as text.
func (r *authResult) appendEventAuthorizer(dst []byte, latencyMillis int64) []byte {
	dst = append(dst, `{"principalId":`...)
	dst = awswire.AppendString(dst, r.principalID)
	dst = append(dst, `,"integrationLatency":`...)
	dst = strconv.AppendInt(dst, latencyMillis, 10)
	for _, c := range r.context {
		if c.Name == "principalId" || c.Name == "integrationLatency" {
			continue
		}
		dst = append(dst, ',')
		dst = awswire.AppendString(dst, c.Name)
		dst = append(dst, ':')
		dst = awswire.AppendString(dst, c.Value)
	}
	return append(dst, '}')
}

// authKey names one cached answer: a stage's authorizer for one identity.
type authKey struct {
	scope                            awswire.Scope
	api, stage, authorizer, identity string
}

// authEntry is a cached answer of authorizer a (compiled from one
// deployment: a redeployed authorizer does not take its predecessor's
// answers).
type authEntry struct {
	a       *authorizer
	res     *authResult
	expires time.Time
}

// authCache holds authorizers' answers for their TTL, at most max of them.
type authCache struct {
	mu  sync.Mutex
	max int
	m   map[authKey]authEntry
}

func newAuthCache(max int) *authCache {
	return &authCache{max: max, m: map[authKey]authEntry{}}
}

func (c *authCache) get(k authKey, a *authorizer, now time.Time) *authResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return nil
	}
	if e.a != a || !now.Before(e.expires) {
		delete(c.m, k)
		return nil
	}
	return e.res
}

func (c *authCache) put(k authKey, e authEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for key, old := range c.m {
			if !now.Before(old.expires) {
				delete(c.m, key)
			}
		}
		// Still full: forget an eighth, at random (map order).
		for key := range c.m {
			if len(c.m) < c.max-c.max/8 {
				break
			}
			delete(c.m, key)
		}
	}
	c.m[k] = e
}

// flush forgets every answer cached for an API's stage.
func (c *authCache) flush(sc awswire.Scope, apiID, stage string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.m {
		if k.scope == sc && k.api == apiID && k.stage == stage {
			delete(c.m, k)
		}
	}
}

// FlushAuthorizerCache forgets the Lambda authorizer answers cached for a
// stage (FlushStageAuthorizersCache).
func (e *Executor) FlushAuthorizerCache(sc awswire.Scope, apiID, stage string) {
	e.auths.flush(sc, apiID, stage)
}
