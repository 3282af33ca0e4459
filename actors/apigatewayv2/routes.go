package apigatewayv2

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cloudemu/emulator/awswire"
)

// Routes and route responses of an API. They live in the API's owner, so
// every check against the API's integrations, authorizers and other routes
// sees one consistent state; every change goes through the Tx, which
// redeploys auto-deploying stages.

// Route values AWS uses.
const (
	routeAuthNone     = "NONE"
	routeAuthIAM      = "AWS_IAM"
	routeAuthCustom   = "CUSTOM"
	routeAuthJWT      = "JWT"
	routeTargetPrefix = "integrations/"
	routeDefaultKey   = "$default"
	routeIDLength     = 7 // as AWS's route ids ("72jz1wk")
	responseIDLength  = 6 // as AWS's route response ids
)

// Messages for routes. Those marked R are real AWS answers; the others
// follow AWS's wording where no capture exists.
const (
	routeMsgNotFound         = "Invalid Route identifier specified"
	routeMsgKeyRequired      = "Route key is required"                       // R
	routeMsgPathParts        = "One or more path parts appear to be invalid" // R
	routeMsgKeyFormat        = "Invalid route key specified: %s. A route key is $default or an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS or ANY), a space and a path that starts with '/'"
	routeMsgKeyExists        = "Route with key %s already exists for this API"                                                                                      // R
	routeMsgKeyConflict      = "The provided route key \"%s\" has a conflicting variable on the same hierarchical level as \"%s\""                                  // R
	routeMsgCustomAuthorizer = "Invalid authorizer ID specified. Setting the authorization type to CUSTOM or COGNITO_USER_POOLS requires a valid authorizer."       // R
	routeMsgJWTAuthorizer    = "Invalid authorizer ID specified. Setting the authorization type to JWT requires a valid JWT authorizer."                            // R
	routeMsgAuthorizerOnly   = "Unable to update route. Authorizer type is invalid or null."                                                                        // R
	routeMsgScopes           = "Invalid Route authorization type specified. Authorization Scopes are only valid for COGNITO_USER_POOLS and JWT authorization types" // R
	routeMsgAuthType         = "Invalid authorization type specified. Must be one of [NONE, AWS_IAM, CUSTOM, JWT]"
	routeMsgAuthTypeWS       = "Invalid authorization type specified. JWT is supported only for HTTP APIs"
	routeMsgTargetFormat     = "Invalid target specified: %s. A target is integrations/{integrationId}"
	routeMsgTargetMissing    = "Invalid target specified: integration %s does not exist in this API"
	routeMsgManagedKey       = "The route key of a route created by quick create cannot be modified; update the API's routeKey instead"
	routeMsgWebSocketOnly    = "%s is supported only for WebSocket APIs"
	routeMsgOperationName    = "Operation name must be between 1 and 64 characters long"
	routeMsgParamName        = "Invalid request parameter name specified"
	routeMsgParamNotFound    = "Invalid request parameter name specified"
	routeMsgModel            = "Invalid model identifier specified: %s"
	respMsgNotFound          = "Invalid RouteResponse identifier specified"
	respMsgKeyRequired       = "Route response key is required"
	respMsgKeyExists         = "Route response with key %s already exists for this route"
	respMsgWebSocketOnly     = "Route responses are supported only for WebSocket APIs"
)

func routeNotFound() *awswire.Error    { return NotFound("Route", routeMsgNotFound) }
func responseNotFound() *awswire.Error { return NotFound("RouteResponse", respMsgNotFound) }

// ---- reads ----

// Route returns route routeID of API apiID as published.
func (s *Service) Route(sc awswire.Scope, apiID, routeID string) (*Route, error) {
	a, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	r, ok := a.Routes.Get(routeID)
	if !ok {
		return nil, routeNotFound()
	}
	return r, nil
}

// Routes returns the routes of API apiID sorted by id.
func (s *Service) Routes(sc awswire.Scope, apiID string) ([]*Route, error) {
	a, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	out := slices.Collect(a.Routes.Values())
	slices.SortFunc(out, func(x, y *Route) int { return cmp.Compare(x.RouteID, y.RouteID) })
	return out, nil
}

// RouteResponse returns a route's response.
func (s *Service) RouteResponse(sc awswire.Scope, apiID, routeID, id string) (*RouteResponse, error) {
	a, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	if _, ok := a.Routes.Get(routeID); !ok {
		return nil, routeNotFound()
	}
	rr, ok := a.RouteResponses.At(routeID).Get(id)
	if !ok {
		return nil, responseNotFound()
	}
	return rr, nil
}

// RouteResponses returns a route's responses sorted by id.
func (s *Service) RouteResponses(sc awswire.Scope, apiID, routeID string) ([]*RouteResponse, error) {
	a, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	if _, ok := a.Routes.Get(routeID); !ok {
		return nil, routeNotFound()
	}
	out := slices.Collect(a.RouteResponses.At(routeID).Values())
	slices.SortFunc(out, func(x, y *RouteResponse) int { return cmp.Compare(x.RouteResponseID, y.RouteResponseID) })
	return out, nil
}

// ---- routes ----

// CreateRoute adds a route to API apiID.
func (s *Service) CreateRoute(sc awswire.Scope, apiID string, in RouteInput) (*Route, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Route, error) {
		if in.RouteKey == nil || *in.RouteKey == "" {
			return nil, BadRequest(routeMsgKeyRequired)
		}
		r := &Route{AuthorizationType: routeAuthNone}
		if err := routeApply(t, r, &in, true); err != nil {
			return nil, err
		}
		r.RouteID = routeNewID(t)
		t.PutRoute(r)
		return r, nil
	})
}

// UpdateRoute changes the members of a route that in carries.
func (s *Service) UpdateRoute(sc awswire.Scope, apiID, routeID string, in RouteInput) (*Route, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Route, error) {
		cur, ok := t.State().Routes.Get(routeID)
		if !ok {
			return nil, routeNotFound()
		}
		r := *cur
		if in.RouteKey != nil && *in.RouteKey != cur.RouteKey && cur.APIGatewayManaged {
			return nil, BadRequest(routeMsgManagedKey)
		}
		if err := routeApply(t, &r, &in, false); err != nil {
			return nil, err
		}
		t.PutRoute(&r)
		return &r, nil
	})
}

// DeleteRoute deletes a route and its route responses.
func (s *Service) DeleteRoute(sc awswire.Scope, apiID, routeID string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		if _, ok := t.State().Routes.Get(routeID); !ok {
			return struct{}{}, routeNotFound()
		}
		t.DeleteRoute(routeID)
		return struct{}{}, nil
	})
	return err
}

// DeleteRouteRequestParameter removes one request parameter of a route.
func (s *Service) DeleteRouteRequestParameter(sc awswire.Scope, apiID, routeID, key string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		cur, ok := t.State().Routes.Get(routeID)
		if !ok {
			return struct{}{}, routeNotFound()
		}
		if _, ok := cur.RequestParameters[key]; !ok {
			return struct{}{}, NotFound("RequestParameter", routeMsgParamNotFound)
		}
		r := *cur
		r.RequestParameters = maps.Clone(cur.RequestParameters)
		delete(r.RequestParameters, key)
		t.PutRoute(&r)
		return struct{}{}, nil
	})
	return err
}

// routeNewID returns an unused route id.
func routeNewID(t *Tx) string {
	st := t.State()
	return NewID(routeIDLength, func(id string) bool { _, ok := st.Routes.Get(id); return ok })
}

// routeApply validates what in carries against the API as the mutation
// sees it and sets it on r, a copy the caller owns (its slices and maps
// are still shared: they are replaced, never changed).
func routeApply(t *Tx, r *Route, in *RouteInput, create bool) error {
	st := t.State()
	proto := st.API.ProtocolType
	ws := proto == apisWebSocket
	if in.RouteKey != nil {
		key := *in.RouteKey
		if err := routeCheckKey(proto, key); err != nil {
			return err
		}
		if err := routeCheckUnique(st, proto, key, r.RouteID); err != nil {
			return err
		}
		r.RouteKey = key
	}
	if in.Target != nil {
		if err := routeCheckTarget(st, *in.Target); err != nil {
			return err
		}
		r.Target = *in.Target
	}
	if err := routeApplyAuth(st, r, in, create); err != nil {
		return err
	}
	if in.APIKeyRequired != nil {
		if *in.APIKeyRequired && !ws {
			// Terraform always sends false, HTTP APIs included.
			return BadRequest(routeMsgWebSocketOnly, "apiKeyRequired")
		}
		r.APIKeyRequired = *in.APIKeyRequired
	}
	if in.OperationName != nil {
		if utf8.RuneCountInString(*in.OperationName) > 64 {
			return BadRequest(routeMsgOperationName)
		}
		r.OperationName = *in.OperationName
	}
	if p := in.ModelSelectionExpression; p != nil {
		if *p != "" && !ws {
			return BadRequest(routeMsgWebSocketOnly, "modelSelectionExpression")
		}
		r.ModelSelectionExpression = *p
	}
	if p := in.RouteResponseSelectionExpression; p != nil {
		if *p != "" && !ws {
			return BadRequest(routeMsgWebSocketOnly, "routeResponseSelectionExpression")
		}
		r.RouteResponseSelectionExpression = *p
	}
	if in.RequestModels != nil {
		if len(in.RequestModels) > 0 && !ws {
			return BadRequest(routeMsgWebSocketOnly, "requestModels")
		}
		if err := routeCheckModels(st, in.RequestModels); err != nil {
			return err
		}
		r.RequestModels = maps.Clone(in.RequestModels)
	}
	if in.RequestParameters != nil {
		if len(in.RequestParameters) > 0 && !ws {
			return BadRequest(routeMsgWebSocketOnly, "requestParameters")
		}
		// UpdateRoute adds to the parameters: Terraform removes the ones
		// it drops with DeleteRouteRequestParameter.
		params, err := routeMergeParams(r.RequestParameters, in.RequestParameters)
		if err != nil {
			return err
		}
		r.RequestParameters = params
	}
	return nil
}

// routeApplyAuth sets the authorization members: CUSTOM needs a REQUEST
// authorizer of the API, JWT a JWT one, scopes go with JWT only, and NONE
// or AWS_IAM detach the authorizer.
func routeApplyAuth(st *HTTPAPI, r *Route, in *RouteInput, create bool) error {
	typ := r.AuthorizationType
	if in.AuthorizationType != nil {
		typ = *in.AuthorizationType
		switch typ {
		case routeAuthNone, routeAuthIAM, routeAuthCustom:
		case routeAuthJWT:
			if st.API.ProtocolType == apisWebSocket {
				return BadRequest(routeMsgAuthTypeWS)
			}
		default:
			return BadRequest(routeMsgAuthType)
		}
	} else if !create && in.AuthorizerID != nil {
		// AWS refuses a new authorizer without the type it is for.
		return BadRequest(routeMsgAuthorizerOnly)
	}
	authID := r.AuthorizerID
	if in.AuthorizerID != nil {
		authID = *in.AuthorizerID
	}
	scopes := r.AuthorizationScopes
	if in.AuthorizationScopes != nil {
		scopes = slices.Clone(in.AuthorizationScopes)
	}
	switch typ {
	case routeAuthNone, routeAuthIAM, routeAuthCustom:
		if len(in.AuthorizationScopes) > 0 {
			return BadRequest(routeMsgScopes)
		}
		scopes = nil
		if typ != routeAuthCustom {
			authID = ""
			break
		}
		if a, ok := st.Authorizers.Get(authID); !ok || a.AuthorizerType != "REQUEST" {
			return BadRequest(routeMsgCustomAuthorizer)
		}
	case routeAuthJWT:
		if a, ok := st.Authorizers.Get(authID); !ok || a.AuthorizerType != routeAuthJWT {
			return BadRequest(routeMsgJWTAuthorizer)
		}
	}
	if len(scopes) == 0 {
		scopes = nil
	}
	r.AuthorizationType, r.AuthorizerID, r.AuthorizationScopes = typ, authID, scopes
	return nil
}

// routeCheckTarget checks that target is "" (no target) or names an
// integration of the API.
func routeCheckTarget(st *HTTPAPI, target string) error {
	if target == "" {
		return nil
	}
	id, ok := strings.CutPrefix(target, routeTargetPrefix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return BadRequest(routeMsgTargetFormat, target)
	}
	if _, ok := st.Integrations.Get(id); !ok {
		return BadRequest(routeMsgTargetMissing, id)
	}
	return nil
}

// routeCheckModels checks that every model named exists in the API.
func routeCheckModels(st *HTTPAPI, models map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(models)) {
		name := models[k]
		found := false
		for _, m := range st.Models.All() {
			if m.Name == name {
				found = true
				break
			}
		}
		if !found {
			return BadRequest(routeMsgModel, name)
		}
	}
	return nil
}

// routeMergeParams returns cur with add's parameters set; a parameter sent
// as null is not required.
func routeMergeParams(cur, add map[string]*ParameterConstraints) (map[string]*ParameterConstraints, error) {
	out := maps.Clone(cur)
	if out == nil {
		out = make(map[string]*ParameterConstraints, len(add))
	}
	for k, v := range add {
		if k == "" || strings.ContainsAny(k, " \t\r\n") {
			return nil, BadRequest(routeMsgParamName)
		}
		c := ParameterConstraints{}
		if v != nil {
			c = *v
		}
		out[k] = &c
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// ---- route keys ----

// routeMethods are the methods an HTTP route key may start with.
var routeMethods = []string{"ANY", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}

// routeCheckKey validates a route key for an API of protocol proto: for
// HTTP, $default or "METHOD /path" where each path part is a literal, a
// {variable}, or, last, a greedy {variable+}; for WebSocket, any key
// ($connect, $disconnect, $default or a custom one).
func routeCheckKey(proto, key string) error {
	if key == "" {
		return BadRequest(routeMsgKeyRequired)
	}
	if proto == apisWebSocket || key == routeDefaultKey {
		return nil
	}
	method, path, ok := strings.Cut(key, " ")
	if !ok || !slices.Contains(routeMethods, method) || !strings.HasPrefix(path, "/") {
		return BadRequest(routeMsgKeyFormat, key)
	}
	if !routeValidPath(path) {
		return BadRequest(routeMsgPathParts)
	}
	return nil
}

// routeValidPath reports whether every part of path (which starts with
// "/") is valid.
func routeValidPath(path string) bool {
	if path == "/" {
		return true
	}
	parts := strings.Split(path[1:], "/")
	seen := map[string]bool{}
	for i, p := range parts {
		if p == "" {
			return false
		}
		name, greedy, isVar := routePathVar(p)
		if !isVar {
			if !routeValidLiteral(p) {
				return false
			}
			continue
		}
		if name == "" || !routeValidVarName(name) || seen[name] || (greedy && i != len(parts)-1) {
			return false
		}
		seen[name] = true
	}
	return true
}

// routePathVar parses a path part: {name} or {name+}. A part that only
// starts or ends with a brace is not a variable (and not a valid literal).
func routePathVar(p string) (name string, greedy, isVar bool) {
	if len(p) < 2 || p[0] != '{' || p[len(p)-1] != '}' {
		return "", false, false
	}
	name = p[1 : len(p)-1]
	if n, ok := strings.CutSuffix(name, "+"); ok {
		return n, true, true
	}
	return name, false, true
}

func routeValidVarName(n string) bool {
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// routeValidLiteral allows the characters of a URI path segment (RFC
// 3986 pchar without percent-encoding); braces are not literals.
func routeValidLiteral(p string) bool {
	for _, c := range p {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("-._~!$&'()*+,;=:@", c):
		default:
			return false
		}
	}
	return true
}

// routeCheckUnique refuses a key another route (not self) has, and an HTTP
// path whose variable at some level has another name than an existing
// route's variable at that level under the same parent.
func routeCheckUnique(st *HTTPAPI, proto, key, self string) error {
	if st.RouteIndex.keyTaken(key, self) {
		return Conflict(routeMsgKeyExists, key)
	}
	if proto == apisWebSocket || key == routeDefaultKey {
		return nil
	}
	if other, ok := st.RouteIndex.clash(key, self); ok {
		return Conflict(routeMsgKeyConflict, key, other)
	}
	return nil
}

// ---- route responses ----

// CreateRouteResponse adds a response to a WebSocket route.
func (s *Service) CreateRouteResponse(sc awswire.Scope, apiID, routeID string, in RouteResponseInput) (*RouteResponse, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*RouteResponse, error) {
		st := t.State()
		if _, ok := st.Routes.Get(routeID); !ok {
			return nil, routeNotFound()
		}
		if st.API.ProtocolType != apisWebSocket {
			return nil, BadRequest(respMsgWebSocketOnly)
		}
		if in.RouteResponseKey == nil || *in.RouteResponseKey == "" {
			return nil, BadRequest(respMsgKeyRequired)
		}
		rr := &RouteResponse{}
		if err := responseApply(st, routeID, rr, &in); err != nil {
			return nil, err
		}
		rr.RouteResponseID = NewID(responseIDLength, func(id string) bool {
			_, ok := st.RouteResponses.At(routeID).Get(id)
			return ok
		})
		t.PutRouteResponse(routeID, rr)
		return rr, nil
	})
}

// UpdateRouteResponse changes the members of a route response that in
// carries.
func (s *Service) UpdateRouteResponse(sc awswire.Scope, apiID, routeID, id string, in RouteResponseInput) (*RouteResponse, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*RouteResponse, error) {
		st := t.State()
		if _, ok := st.Routes.Get(routeID); !ok {
			return nil, routeNotFound()
		}
		cur, ok := st.RouteResponses.At(routeID).Get(id)
		if !ok {
			return nil, responseNotFound()
		}
		rr := *cur
		if in.RouteResponseKey != nil && *in.RouteResponseKey == "" {
			return nil, BadRequest(respMsgKeyRequired)
		}
		if err := responseApply(st, routeID, &rr, &in); err != nil {
			return nil, err
		}
		t.PutRouteResponse(routeID, &rr)
		return &rr, nil
	})
}

// DeleteRouteResponse deletes a route response.
func (s *Service) DeleteRouteResponse(sc awswire.Scope, apiID, routeID, id string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		st := t.State()
		if _, ok := st.Routes.Get(routeID); !ok {
			return struct{}{}, routeNotFound()
		}
		if _, ok := st.RouteResponses.At(routeID).Get(id); !ok {
			return struct{}{}, responseNotFound()
		}
		t.DeleteRouteResponse(routeID, id)
		return struct{}{}, nil
	})
	return err
}

// responseApply validates what in carries and sets it on rr, a copy the
// caller owns.
func responseApply(st *HTTPAPI, routeID string, rr *RouteResponse, in *RouteResponseInput) error {
	if in.RouteResponseKey != nil {
		key := *in.RouteResponseKey
		for id, o := range st.RouteResponses.At(routeID).All() {
			if id != rr.RouteResponseID && o.RouteResponseKey == key {
				return Conflict(respMsgKeyExists, key)
			}
		}
		rr.RouteResponseKey = key
	}
	if in.ModelSelectionExpression != nil {
		rr.ModelSelectionExpression = *in.ModelSelectionExpression
	}
	if in.ResponseModels != nil {
		if err := routeCheckModels(st, in.ResponseModels); err != nil {
			return err
		}
		rr.ResponseModels = maps.Clone(in.ResponseModels)
		if len(rr.ResponseModels) == 0 {
			rr.ResponseModels = nil
		}
	}
	if in.ResponseParameters != nil {
		params, err := routeMergeParams(nil, in.ResponseParameters)
		if err != nil {
			return err
		}
		rr.ResponseParameters = params
	}
	return nil
}
