package websocket

import (
	"encoding/json"
	"path"
	"strings"
)

// authResult is what a Lambda authorizer answered, read.
type authResult struct {
	principalID string
	allow, deny []statementResources
	context     map[string]any
}

// statementResources are the resources of a statement whose actions
// include execute-api:Invoke.
type statementResources []string

// authorizerAnswer is a Lambda authorizer's output
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-lambda-authorizer-output.html).
type authorizerAnswer struct {
	PrincipalID    any `json:"principalId"`
	PolicyDocument struct {
		Statement json.RawMessage `json:"Statement"`
	} `json:"policyDocument"`
	Context map[string]any `json:"context"`
}

type policyStatement struct {
	Effect   string          `json:"Effect"`
	Action   json.RawMessage `json:"Action"`
	Resource json.RawMessage `json:"Resource"`
}

// parseAuthorizerAnswer reads a Lambda authorizer's answer; ok is false
// when it is not one (API Gateway then answers 500).
func parseAuthorizerAnswer(payload []byte) (*authResult, bool) {
	var a authorizerAnswer
	if err := json.Unmarshal(payload, &a); err != nil || a.PolicyDocument.Statement == nil {
		return nil, false
	}
	var stmts []policyStatement
	if err := json.Unmarshal(a.PolicyDocument.Statement, &stmts); err != nil {
		var one policyStatement
		if err := json.Unmarshal(a.PolicyDocument.Statement, &one); err != nil {
			return nil, false
		}
		stmts = []policyStatement{one}
	}
	res := &authResult{context: a.Context}
	switch p := a.PrincipalID.(type) {
	case string:
		res.principalID = p
	case nil:
	default:
		b, _ := json.Marshal(p)
		res.principalID = string(b)
	}
	for _, s := range stmts {
		if !invokes(stringList(s.Action)) {
			continue
		}
		r := statementResources(stringList(s.Resource))
		switch strings.ToLower(s.Effect) {
		case "allow":
			res.allow = append(res.allow, r)
		case "deny":
			res.deny = append(res.deny, r)
		}
	}
	return res, true
}

// stringList reads a policy member that is a string or a list of them.
func stringList(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

// invokes reports whether actions include execute-api:Invoke (IAM matches
// actions case-insensitively, with wildcards).
func invokes(actions []string) bool {
	for _, a := range actions {
		if ok, _ := path.Match(strings.ToLower(a), "execute-api:invoke"); ok {
			return true
		}
	}
	return false
}

// allows reports whether the policy allows arn: an explicit deny wins.
func (r *authResult) allows(arn string) bool {
	for _, d := range r.deny {
		if d.matches(arn) {
			return false
		}
	}
	for _, a := range r.allow {
		if a.matches(arn) {
			return true
		}
	}
	return false
}

func (s statementResources) matches(arn string) bool {
	for _, p := range s {
		if wildcardMatch(p, arn) {
			return true
		}
	}
	return false
}

// wildcardMatch matches IAM's resource wildcards: '*' any run of
// characters ('/' included), '?' one character.
func wildcardMatch(pattern, s string) bool {
	px, sx := 0, 0
	star, mark := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && (pattern[px] == '?' || pattern[px] == s[sx]):
			px++
			sx++
		case px < len(pattern) && pattern[px] == '*':
			star, mark = px, sx
			px++
		case star >= 0:
			px = star + 1
			mark++
			sx = mark
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}
