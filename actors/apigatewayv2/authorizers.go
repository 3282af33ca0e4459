package apigatewayv2

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// Authorizers: JWT (HTTP APIs only) and REQUEST (a Lambda function). They
// belong to the API's configuration, so a change redeploys auto-deploying
// stages; a route that names one keeps it from being deleted.

// Messages. R marks a real AWS v2 response (evidence §9), M moto's, v1
// API Gateway REST's words for the same rule; the others are worded in
// AWS's style, no real one being known.
const (
	authMsgInUse         = "Cannot delete authorizer '%s', is referenced in route: %s"                     // R
	authMsgPayloadNeeded = "AuthorizerPayloadFormatVersion is a required parameter for REQUEST authorizer" // M
	authMsgPayload       = "Invalid AuthorizerPayloadFormatVersion specified: %s. Valid options are 1.0, 2.0"
	authMsgSimple        = "EnableSimpleResponses is only supported for AuthorizerPayloadFormatVersion 2.0"
	authMsgName          = "Authorizer name must be non-empty" // v1
	authMsgNameLength    = "Authorizer name must be at most 128 characters"
	authMsgType          = "Invalid authorizer type specified: %s. Valid options are REQUEST,JWT"                                                       // v1
	authMsgTTL           = "Authorizer result TTL must be between 0 and 3600 seconds"                                                                   // v1
	authMsgURI           = "Invalid Authorizer URI: %s. Authorizer URI should be a valid API Gateway ARN that represents a Lambda function invocation." // v1
	authMsgJWTProtocol   = "JWT authorizers are supported only for HTTP APIs"
	authMsgIssuer        = "JwtConfiguration.Issuer is required for JWT authorizers"
	authMsgAudience      = "JwtConfiguration.Audience is required for JWT authorizers"
	authMsgJWTSources    = "JWT authorizers require exactly one identity source"
	authMsgSource        = "Invalid identity source expression: %s"                                  // v1
	authMsgCaching       = "Identity source must be specified when authorization caching is enabled" // v1
)

var (
	// authLambdaURIRe is a Lambda invocation as API Gateway names it.
	authLambdaURIRe = regexp.MustCompile(`^arn:aws[a-z-]*:apigateway:[a-z]{2}(-[a-z]+)+-\d+:lambda:path/\S+$`)
	// authJWTSourceRe is the one identity source of a JWT authorizer.
	authJWTSourceRe = regexp.MustCompile(`^\$request\.(header|querystring)\.[^\s,]+$`)
	// authHTTPSourceRe and authWSSourceRe are REQUEST identity sources:
	// selection expressions on HTTP APIs, mapping expressions on
	// WebSocket APIs.
	authHTTPSourceRe = regexp.MustCompile(`^\$(request\.(header|querystring)\.[^\s,]+|stageVariables\.[A-Za-z0-9._-]+|context\.[A-Za-z0-9._-]+)$`)
	authWSSourceRe   = regexp.MustCompile(`^(route\.request\.(header|querystring)\.[^\s,]+|stageVariables\.[A-Za-z0-9._-]+|context\.[A-Za-z0-9._-]+)$`)
)

// AuthorizerNotFound is the error for an unknown authorizer.
func AuthorizerNotFound() *awswire.Error {
	return NotFound("Authorizer", "Invalid Authorizer identifier specified")
}

// Authorizers returns the API's authorizers by name.
func (s *Service) Authorizers(sc awswire.Scope, apiID string) ([]*Authorizer, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	out := slices.Collect(api.Authorizers.Values())
	slices.SortFunc(out, func(a, b *Authorizer) int { return strings.Compare(AuthorizerKey(a), AuthorizerKey(b)) })
	return out, nil
}

// AuthorizerKey orders authorizers in lists: by name, then id.
func AuthorizerKey(a *Authorizer) string { return a.Name + "\x00" + a.AuthorizerID }

// Authorizer returns one authorizer of the API.
func (s *Service) Authorizer(sc awswire.Scope, apiID, id string) (*Authorizer, error) {
	api, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	a, ok := api.Authorizers.Get(id)
	if !ok {
		return nil, AuthorizerNotFound()
	}
	return a, nil
}

// CreateAuthorizer creates an authorizer.
func (s *Service) CreateAuthorizer(sc awswire.Scope, apiID string, in AuthorizerInput) (*Authorizer, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Authorizer, error) {
		a := &Authorizer{}
		authApply(a, in)
		if err := authCheck(t.State().API.ProtocolType, a); err != nil {
			return nil, err
		}
		a.AuthorizerID = NewID(6, func(id string) bool { _, taken := t.State().Authorizers.Get(id); return taken })
		t.PutAuthorizer(a)
		return a, nil
	})
}

// UpdateAuthorizer changes the members in sends and checks the result as
// a whole.
func (s *Service) UpdateAuthorizer(sc awswire.Scope, apiID, id string, in AuthorizerInput) (*Authorizer, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Authorizer, error) {
		cur, ok := t.State().Authorizers.Get(id)
		if !ok {
			return nil, AuthorizerNotFound()
		}
		a := *cur
		authApply(&a, in)
		if err := authCheck(t.State().API.ProtocolType, &a); err != nil {
			return nil, err
		}
		t.PutAuthorizer(&a)
		return &a, nil
	})
}

// DeleteAuthorizer deletes an authorizer no route uses.
func (s *Service) DeleteAuthorizer(sc awswire.Scope, apiID, id string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		api := t.State()
		a, ok := api.Authorizers.Get(id)
		if !ok {
			return struct{}{}, AuthorizerNotFound()
		}
		var users []string
		for _, r := range api.Routes.All() {
			if r.AuthorizerID == id {
				users = append(users, r.RouteKey)
			}
		}
		if len(users) > 0 {
			return struct{}{}, Conflict(authMsgInUse, a.Name, slices.Min(users))
		}
		t.DeleteAuthorizer(id)
		return struct{}{}, nil
	})
	return err
}

// authApply sets the members in sends on a (a copy the mutation owns).
// Slices and the JWT configuration are copied: the request's values must
// not be shared with what is published.
func authApply(a *Authorizer, in AuthorizerInput) {
	if in.Name != nil {
		a.Name = *in.Name
	}
	if in.AuthorizerType != nil {
		a.AuthorizerType = *in.AuthorizerType
	}
	if in.AuthorizerURI != nil {
		a.AuthorizerURI = *in.AuthorizerURI
	}
	if in.AuthorizerCredentialsARN != nil {
		a.AuthorizerCredentialsARN = *in.AuthorizerCredentialsARN
	}
	if in.AuthorizerPayloadFormatVersion != nil {
		a.AuthorizerPayloadFormatVersion = *in.AuthorizerPayloadFormatVersion
	}
	if in.AuthorizerResultTTLInSeconds != nil {
		ttl := *in.AuthorizerResultTTLInSeconds
		a.AuthorizerResultTTLInSeconds = &ttl
	}
	if in.EnableSimpleResponses != nil {
		a.EnableSimpleResponses = *in.EnableSimpleResponses
	}
	if in.IdentitySource != nil {
		a.IdentitySource = slices.Clone(in.IdentitySource)
	}
	if in.IdentityValidationExpression != nil {
		a.IdentityValidationExpression = *in.IdentityValidationExpression
	}
	if in.JWTConfiguration != nil {
		jc := JWTConfiguration{Issuer: in.JWTConfiguration.Issuer, Audience: slices.Clone(in.JWTConfiguration.Audience)}
		if jc.Issuer == "" && len(jc.Audience) == 0 {
			// Terraform sends {} when the block is removed.
			a.JWTConfiguration = nil
		} else {
			a.JWTConfiguration = &jc
		}
	}
}

// authCheck refuses an authorizer AWS refuses on an API of protocol.
func authCheck(protocol string, a *Authorizer) error {
	if a.Name == "" {
		return BadRequest(authMsgName)
	}
	if !validName(a.Name, 128) {
		return BadRequest(authMsgNameLength)
	}
	if ttl := a.AuthorizerResultTTLInSeconds; ttl != nil && (*ttl < 0 || *ttl > 3600) {
		return BadRequest(authMsgTTL)
	}
	switch a.AuthorizerType {
	case "JWT":
		return authCheckJWT(protocol, a)
	case "REQUEST":
		return authCheckRequest(protocol, a)
	}
	return BadRequest(authMsgType, depNullIfEmpty(a.AuthorizerType))
}

func authCheckJWT(protocol string, a *Authorizer) error {
	if protocol == "WEBSOCKET" {
		return BadRequest(authMsgJWTProtocol)
	}
	jc := a.JWTConfiguration
	if jc == nil || jc.Issuer == "" {
		return BadRequest(authMsgIssuer)
	}
	if len(jc.Audience) == 0 {
		return BadRequest(authMsgAudience)
	}
	if len(a.IdentitySource) != 1 {
		return BadRequest(authMsgJWTSources)
	}
	if src := a.IdentitySource[0]; !authJWTSourceRe.MatchString(src) {
		return BadRequest(authMsgSource, src)
	}
	return nil
}

func authCheckRequest(protocol string, a *Authorizer) error {
	if !authLambdaURIRe.MatchString(a.AuthorizerURI) {
		return BadRequest(authMsgURI, depNullIfEmpty(a.AuthorizerURI))
	}
	if protocol != "WEBSOCKET" {
		switch a.AuthorizerPayloadFormatVersion {
		case "":
			return BadRequest(authMsgPayloadNeeded)
		case "1.0", "2.0":
		default:
			return BadRequest(authMsgPayload, a.AuthorizerPayloadFormatVersion)
		}
		if a.EnableSimpleResponses && a.AuthorizerPayloadFormatVersion != "2.0" {
			return BadRequest(authMsgSimple)
		}
	}
	// Caching keys on the identity sources, so it needs at least one.
	if len(a.IdentitySource) == 0 && a.AuthorizerResultTTLInSeconds != nil && *a.AuthorizerResultTTLInSeconds > 0 {
		return BadRequest(authMsgCaching)
	}
	re := authHTTPSourceRe
	if protocol == "WEBSOCKET" {
		re = authWSSourceRe
	}
	for _, src := range a.IdentitySource {
		if !re.MatchString(src) {
			return BadRequest(authMsgSource, src)
		}
	}
	return nil
}
