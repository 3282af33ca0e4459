package httpevent

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/jsonread"
)

// Lambda (REQUEST) authorizers of HTTP APIs (docs:
// http-api-lambda-authorizer): the function gets the request (payload
// format 1.0 or 2.0) and answers either {"isAuthorized": bool, "context":
// {...}} (2.0 with enableSimpleResponses) or an IAM policy {"principalId",
// "policyDocument", "context"} evaluated against the route's ARN.

// Outcome is how an authorizer decided a request, and what the client is
// answered when it is not Allowed.
type Outcome uint8

const (
	// Allowed lets the request through.
	Allowed Outcome = iota
	// Forbidden is a denial: isAuthorized false, or a policy that does not
	// allow the route (an explicit Deny, or no matching Allow).
	Forbidden
	// Unauthorized is a function that failed with the message
	// "Unauthorized" (AWS's convention for Lambda authorizers), or, for
	// the executor, missing identity sources (docs: "the client receives
	// a 401 error").
	Unauthorized
	// Failed is an authorizer that could not be called, failed otherwise,
	// or answered in an invalid format (docs: "clients receive a 500
	// Internal Server Error").
	Failed
)

// Status is the HTTP status the client is answered with.
func (o Outcome) Status() int {
	switch o {
	case Forbidden:
		return 403
	case Unauthorized:
		return 401
	case Failed:
		return 500
	}
	return 200
}

// Body is the JSON body the client is answered with ("" for Allowed).
func (o Outcome) Body() string {
	switch o {
	case Forbidden:
		return `{"message":"Forbidden"}`
	case Unauthorized:
		return `{"message":"Unauthorized"}`
	case Failed:
		return InternalErrorBody
	}
	return ""
}

// ErrUnauthorized is an authorizer function that failed with the message
// "Unauthorized".
var ErrUnauthorized = errors.New("httpevent: the authorizer answered Unauthorized")

// OutcomeOf is the outcome of an error ReadAuthorizerAnswer returned:
// Unauthorized for ErrUnauthorized, else Failed.
func OutcomeOf(err error) Outcome {
	if errors.Is(err, ErrUnauthorized) {
		return Unauthorized
	}
	return Failed
}

// AuthorizerAnswer is a Lambda authorizer's answer, read. It is immutable
// and owns its memory: a cache may share it between requests (an IAM
// policy is decided again for each route ARN; docs: the cached answer
// serves every route using the authorizer).
type AuthorizerAnswer struct {
	// PrincipalID is the policy answer's principalId ("" for simple
	// answers).
	PrincipalID string
	// Context is the answer's context, compact JSON; nil when it gave
	// none. Its values are kept as the function wrote them (strings,
	// numbers, booleans, lists and maps: the docs' examples use all five).
	Context []byte

	simple, authorized bool
	statements         []statement
}

// context is the answer's context when it is a JSON object (an answer
// built by hand may hold anything).
func (a *AuthorizerAnswer) context() ([]byte, bool) {
	if len(a.Context) == 0 {
		return nil, false
	}
	ctx, ok := jsonread.Check(a.Context)
	return ctx, ok && ctx[0] == '{'
}

// ContextValue is the context's member name as $context.authorizer.name
// reads it: a string's value, other values as their JSON text; ok is
// false when there is no such member.
func (a *AuthorizerAnswer) ContextValue(name string) (string, bool) {
	ctx, ok := a.context()
	if !ok {
		return "", false
	}
	value, found := "", false
	it := jsonread.NewIter(ctx)
	for {
		k, v, ok := it.Next()
		if !ok {
			return value, found
		}
		if jsonread.KeyIs(k, name) {
			found = true
			if jsonread.KindOf(v) == jsonread.String {
				value = string(jsonread.AppendUnquoted(nil, v))
			} else {
				value = string(v)
			}
		}
	}
}

// statement is one policy statement, its actions lowercased (IAM matches
// actions case-insensitively).
type statement struct {
	allow              bool
	actions, resources []string
}

// ReadAuthorizerAnswer reads a Lambda authorizer's reply: a simple answer
// when simple (enableSimpleResponses), else an IAM policy. Errors:
// ErrUnauthorized (the function failed with "Unauthorized"), ErrFunction
// (it failed otherwise), ErrInvalidResponse (not the format's answer).
//
// A simple answer needs isAuthorized, a JSON boolean (a string "false"
// must not allow). A policy answer needs principalId and a policyDocument
// with a Statement (one or a list, each with Effect Allow or Deny, Action
// and Resource: one or a list), as REST APIs do (execute/rest's
// parseAuthorizerOutput). context, when present, is an object. Other
// members are ignored.
func ReadAuthorizerAnswer(reply execute.FunctionReply, simple bool) (*AuthorizerAnswer, error) {
	if reply.Error != "" {
		if errorMessage(reply.Payload) == "Unauthorized" {
			return nil, ErrUnauthorized
		}
		return nil, ErrFunction
	}
	payload, ok := jsonread.Check(reply.Payload)
	if !ok || payload[0] != '{' {
		return nil, ErrInvalidResponse
	}
	a := &AuthorizerAnswer{simple: simple}
	var isAuthorized, principal, doc, ctx []byte
	it := jsonread.NewIter(payload)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		switch {
		case jsonread.KeyIs(k, "isAuthorized"):
			isAuthorized = v
		case jsonread.KeyIs(k, "principalId"):
			principal = v
		case jsonread.KeyIs(k, "policyDocument"):
			doc = v
		case jsonread.KeyIs(k, "context"):
			ctx = v
		}
	}
	switch jsonread.KindOf(ctx) {
	case jsonread.Null:
	case jsonread.Object:
		var b bytes.Buffer
		if json.Compact(&b, ctx) != nil {
			return nil, ErrInvalidResponse
		}
		a.Context = b.Bytes()
	default:
		return nil, ErrInvalidResponse
	}
	if simple {
		switch string(isAuthorized) {
		case "true":
			a.authorized = true
		case "false":
		default:
			return nil, ErrInvalidResponse
		}
		return a, nil
	}
	if jsonread.KindOf(principal) == jsonread.Null || jsonread.KindOf(doc) != jsonread.Object {
		return nil, ErrInvalidResponse
	}
	p, _, ok := jsonread.AppendScalar(nil, principal)
	if !ok {
		return nil, ErrInvalidResponse
	}
	a.PrincipalID = string(p)
	found := false
	it = jsonread.NewIter(doc)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		if !jsonread.KeyIs(k, "Statement") {
			continue
		}
		found = true
		a.statements = a.statements[:0]
		switch jsonread.KindOf(v) {
		case jsonread.Object:
			if !a.addStatement(v) {
				return nil, ErrInvalidResponse
			}
		case jsonread.Array:
			es := jsonread.NewIter(v)
			for {
				_, e, ok := es.Next()
				if !ok {
					break
				}
				if jsonread.KindOf(e) != jsonread.Object || !a.addStatement(e) {
					return nil, ErrInvalidResponse
				}
			}
		default:
			return nil, ErrInvalidResponse
		}
	}
	if !found {
		return nil, ErrInvalidResponse
	}
	return a, nil
}

func (a *AuthorizerAnswer) addStatement(v []byte) bool {
	var s statement
	effect := ""
	it := jsonread.NewIter(v)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		switch {
		case jsonread.KeyIs(k, "Effect"):
			if jsonread.KindOf(v) != jsonread.String {
				return false
			}
			effect = string(jsonread.AppendUnquoted(nil, v))
		case jsonread.KeyIs(k, "Action"):
			if s.actions, ok = stringList(v); !ok {
				return false
			}
		case jsonread.KeyIs(k, "Resource"):
			if s.resources, ok = stringList(v); !ok {
				return false
			}
		}
	}
	if (effect != "Allow" && effect != "Deny") || len(s.actions) == 0 || len(s.resources) == 0 {
		return false
	}
	s.allow = effect == "Allow"
	for i, act := range s.actions {
		s.actions[i] = strings.ToLower(act)
	}
	a.statements = append(a.statements, s)
	return true
}

// stringList reads a string or a list of strings.
func stringList(v []byte) ([]string, bool) {
	switch jsonread.KindOf(v) {
	case jsonread.String:
		return []string{string(jsonread.AppendUnquoted(nil, v))}, true
	case jsonread.Array:
		var out []string
		it := jsonread.NewIter(v)
		for {
			_, e, ok := it.Next()
			if !ok {
				return out, true
			}
			if jsonread.KindOf(e) != jsonread.String {
				return nil, false
			}
			out = append(out, string(jsonread.AppendUnquoted(nil, e)))
		}
	}
	return nil, false
}

// errorMessage is a function error's errorMessage, "" when it has none.
func errorMessage(payload []byte) string {
	v, ok := jsonread.Check(payload)
	if !ok || v[0] != '{' {
		return ""
	}
	msg := ""
	it := jsonread.NewIter(v)
	for {
		k, v, ok := it.Next()
		if !ok {
			return msg
		}
		if jsonread.KeyIs(k, "errorMessage") && jsonread.KindOf(v) == jsonread.String {
			msg = string(jsonread.AppendUnquoted(nil, v))
		}
	}
}

// Decide decides a request to routeArn: a simple answer by isAuthorized;
// a policy as IAM does, a matching Deny winning over any Allow and no
// matching Allow denying.
func (a *AuthorizerAnswer) Decide(routeArn string) Outcome {
	if a.simple {
		if a.authorized {
			return Allowed
		}
		return Forbidden
	}
	allowed := false
	for _, s := range a.statements {
		if !s.matches(routeArn) {
			continue
		}
		if !s.allow {
			return Forbidden
		}
		allowed = true
	}
	if allowed {
		return Allowed
	}
	return Forbidden
}

// matches reports whether the statement applies to invoking routeArn: an
// action matching execute-api:Invoke (case-insensitive) and a resource
// matching the ARN, each with IAM's wildcards.
func (s statement) matches(routeArn string) bool {
	return slices.ContainsFunc(s.actions, func(a string) bool { return execute.WildcardMatch(a, "execute-api:invoke") }) &&
		slices.ContainsFunc(s.resources, func(r string) bool { return execute.WildcardMatch(r, routeArn) })
}

// Authorize reads an authorizer's reply and decides a request to
// routeArn: ReadAuthorizerAnswer then Decide, errors as their outcome.
// The answer is nil unless it was read.
func Authorize(reply execute.FunctionReply, simple bool, routeArn string) (*AuthorizerAnswer, Outcome) {
	a, err := ReadAuthorizerAnswer(reply, simple)
	if err != nil {
		return nil, OutcomeOf(err)
	}
	return a, a.Decide(routeArn)
}

// RouteARN is the ARN a Lambda authorizer gets (routeArn, 1.0's methodArn)
// and its policy names: arn:aws:execute-api:{region}:{account}:
// {apiId}/{stage}/{METHOD}/{path}, path being the request's path after
// the stage ("$default" is named so) without its leading slash (docs:
// http-api-lambda-authorizer, ".../abcdef123/test/GET/request").
func RouteARN(region, account, apiID, stage, method, path string) string {
	path = strings.TrimPrefix(path, "/")
	var b strings.Builder
	b.Grow(len("arn:aws:execute-api:::///") + len(region) + len(account) + len(apiID) + len(stage) + len(method) + len(path) + 1)
	b.WriteString("arn:aws:execute-api:")
	b.WriteString(region)
	b.WriteByte(':')
	b.WriteString(account)
	b.WriteByte(':')
	b.WriteString(apiID)
	b.WriteByte('/')
	b.WriteString(stage)
	b.WriteByte('/')
	b.WriteString(method)
	b.WriteByte('/')
	b.WriteString(path)
	return b.String()
}
