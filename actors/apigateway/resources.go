package apigateway

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// The resource tree of a REST API: resources, their methods, each method's
// integration, method responses and integration responses. All of it lives
// in the API's state; every change copies what it touches and goes through
// the Tx, so deployments and readers keep the state they hold.

// Messages API Gateway answers for the resource tree.
const (
	resMsgResourceNotFound    = "Invalid Resource identifier specified"
	resMsgMethodNotFound      = "Invalid Method identifier specified"
	resMsgIntegrationNotFound = "Invalid Integration identifier specified"
	resMsgStatusNotFound      = "Invalid Response status code specified"
	resMsgParamNotFound       = "Invalid parameter name specified"
	resMsgContentTypeNotFound = "Content-Type specified was not found"
	resMsgPathPart            = "Resource's path part only allow a-zA-Z0-9._- and curly braces at the beginning and the end and an optional plus sign before the closing brace."
	resMsgHTTPMethod          = "Invalid HttpMethod specified. Valid options are GET,PUT,POST,DELETE,PATCH,OPTIONS,HEAD,ANY"
	resMsgAuthorizer          = "Invalid authorizer ID specified. Setting the authorization type to CUSTOM or COGNITO_USER_POOLS requires a valid authorizer."
	resMsgAuthorizationType   = "Invalid authorization type specified"
	resMsgValidator           = "Invalid Request Validator identifier specified"
	resMsgIntegrationMethod   = "Enumeration value for HttpMethod must be non-empty"
	resMsgHTTPURI             = "Invalid HTTP endpoint specified for URI"
	resMsgARN                 = "Invalid ARN specified in the request"
	resMsgARNPathAction       = "AWS ARN for integration must contain path or action"
	resMsgTimeout             = "Timeout should be between 50 ms and 29000 ms"
	resMsgPassthrough         = "Invalid PassthroughBehavior specified. Valid options are WHEN_NO_MATCH,WHEN_NO_TEMPLATES,NEVER"
	resMsgContentHandling     = "Invalid ContentHandlingStrategy specified. Valid options are CONVERT_TO_BINARY,CONVERT_TO_TEXT"
	resMsgConnectionType      = "Invalid ConnectionType specified. Valid options are INTERNET,VPC_LINK"
	resMsgConnectionID        = "Connection ID must be specified for the VPC_LINK connection type"
	resMsgTransferMode        = "Invalid ResponseTransferMode specified. Valid options are BUFFERED,STREAM"
)

// Integration defaults, as AWS sets them.
const (
	resDefaultTimeoutMillis = 29000
	resMinTimeoutMillis     = 50
	resMaxTimeoutMillis     = 29000
	resDefaultPassthrough   = "WHEN_NO_MATCH"
)

// ---- reads ----

// FindResource returns resource id of API apiID as published. A missing
// API is a missing resource, as AWS reports it.
func (s *Service) FindResource(sc awswire.Scope, apiID, id string) (*Resource, error) {
	a, ok := s.API(sc, apiID)
	if !ok {
		return nil, notFound(resMsgResourceNotFound)
	}
	r, ok := a.Resources.Get(id)
	if !ok {
		return nil, notFound(resMsgResourceNotFound)
	}
	return r, nil
}

// FindMethod returns a resource's method.
func (s *Service) FindMethod(sc awswire.Scope, apiID, resID, httpMethod string) (*Method, error) {
	r, err := s.FindResource(sc, apiID, resID)
	if err != nil {
		return nil, err
	}
	m, ok := r.Methods[httpMethod]
	if !ok {
		return nil, notFound(resMsgMethodNotFound)
	}
	return m, nil
}

// FindIntegration returns a method's integration.
func (s *Service) FindIntegration(sc awswire.Scope, apiID, resID, httpMethod string) (*Integration, error) {
	m, err := s.FindMethod(sc, apiID, resID, httpMethod)
	if err != nil {
		return nil, err
	}
	if m.Integration == nil {
		return nil, notFound(resMsgIntegrationNotFound)
	}
	return m.Integration, nil
}

// FindMethodResponse returns a method's response for status.
func (s *Service) FindMethodResponse(sc awswire.Scope, apiID, resID, httpMethod, status string) (*MethodResponse, error) {
	if err := resCheckStatusCode(status); err != nil {
		return nil, err
	}
	m, err := s.FindMethod(sc, apiID, resID, httpMethod)
	if err != nil {
		return nil, err
	}
	mr, ok := m.MethodResponses[status]
	if !ok {
		return nil, notFound(resMsgStatusNotFound)
	}
	return mr, nil
}

// FindIntegrationResponse returns an integration's response for status.
func (s *Service) FindIntegrationResponse(sc awswire.Scope, apiID, resID, httpMethod, status string) (*IntegrationResponse, error) {
	if err := resCheckStatusCode(status); err != nil {
		return nil, err
	}
	it, err := s.FindIntegration(sc, apiID, resID, httpMethod)
	if err != nil {
		return nil, err
	}
	ir, ok := it.IntegrationResponses[status]
	if !ok {
		return nil, notFound(resMsgStatusNotFound)
	}
	return ir, nil
}

// ---- mutations: helpers ----

// mutateTree runs fn on API apiID. Everything under a resource reports a
// missing API as a missing resource, as AWS does.
func mutateTree[R any](s *Service, sc awswire.Scope, apiID string, fn func(t *Tx) (R, error)) (R, error) {
	return mutateOr(s, sc, apiID, func() *awswire.Error { return notFound(resMsgResourceNotFound) }, fn)
}

func resCheckStatusCode(status string) error {
	var v Validation
	v.Pattern("statusCode", status, StatusCodePattern, StatusCodePatternText)
	return v.Err()
}

// resNullPaths returns ops with a missing path spelled as AWS prints it.
func resNullPaths(ops []PatchOp) []PatchOp {
	if !slices.ContainsFunc(ops, func(o PatchOp) bool { return o.Path == "" }) {
		return ops
	}
	out := slices.Clone(ops)
	for i := range out {
		if out[i].Path == "" {
			out[i].Path = "null"
		}
	}
	return out
}

// resLookupMethod finds a resource and its method in the Tx's state;
// noMethod is the message for a missing method (it varies by operation).
func resLookupMethod(t *Tx, resID, httpMethod, noMethod string) (*Resource, *Method, error) {
	r, ok := t.State().Resources.Get(resID)
	if !ok {
		return nil, nil, notFound(resMsgResourceNotFound)
	}
	m, ok := r.Methods[httpMethod]
	if !ok {
		return nil, nil, notFound("%s", noMethod)
	}
	return r, m, nil
}

// resPutMethod stores m as method httpMethod of r, on a copy of r.
func resPutMethod(t *Tx, r *Resource, httpMethod string, m *Method) {
	c := *r
	c.Methods = maps.Clone(r.Methods)
	if c.Methods == nil {
		c.Methods = map[string]*Method{}
	}
	c.Methods[httpMethod] = m
	t.PutResource(&c)
}

// clone is a shallow copy; whoever changes a map or slice of it replaces it.
func (m *Method) clone() *Method {
	c := *m
	return &c
}

func (it *Integration) clone() *Integration {
	c := *it
	return &c
}

// resOrNil returns m, or nil when it is empty: AWS drops a map member whose
// last entry a patch removed.
func resOrNil[M ~map[K]V, K comparable, V any](m M) M {
	if len(m) == 0 {
		return nil
	}
	return m
}

// ---- resources ----

var resResourcePatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/parentId", []string{"replace"}},
	{"/pathPart", []string{"replace"}},
}}

// resPathPartRe is what a path part may be: letters, digits and ._-: (AWS
// accepts the colon though its message does not say so), or one such name
// in braces, greedy with a + before the closing brace.
var resPathPartRe = regexp.MustCompile(`^(?:[A-Za-z0-9._:-]+|\{[A-Za-z0-9._:-]+\+?\})$`)

func resIsVariablePart(p string) bool { return strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") }

func resIsGreedyPart(p string) bool { return resIsVariablePart(p) && strings.HasSuffix(p, "+}") }

func resChildPath(parentPath, part string) string {
	if parentPath == "/" {
		return "/" + part
	}
	return parentPath + "/" + part
}

// resCheckPlacement refuses a path part under parent that AWS refuses: a bad
// name, a child of a greedy resource, a sibling with the same name, a
// second variable sibling. self is the resource being placed ("" for a new
// one), which is not its own sibling. It looks the siblings up in the
// children index: its cost does not grow with their number.
func resCheckPlacement(c *Config, parent *Resource, part, self string) error {
	if !resPathPartRe.MatchString(part) {
		return BadRequest(resMsgPathPart)
	}
	if resIsGreedyPart(parent.PathPart) {
		return BadRequest("Cannot create a child of a resource with a greedy path variable: %s", parent.PathPart)
	}
	if id, ok := c.Children.Get(childKey(parent.ID, part)); ok && id != self {
		return Conflict("Another resource with the same parent already has this name: %s", part)
	}
	if resIsVariablePart(part) {
		// Variable parts start with "{": they are the parent's children
		// under that prefix, in order.
		for k, id := range c.Children.Prefix(childKey(parent.ID, "{")) {
			if id != self {
				return BadRequest("A sibling (%s) of this resource already has a variable path part -- only one is allowed",
					k[len(parent.ID)+1:])
			}
		}
	}
	return nil
}

// CreateResource creates a child of parentID; pathPart nil is a request
// without one.
func (s *Service) CreateResource(sc awswire.Scope, apiID, parentID string, pathPart *string) (*Resource, error) {
	if pathPart == nil {
		var v Validation
		v.NotNull("createResourceInput.pathPart", false)
		return nil, v.Err()
	}
	part := *pathPart
	return Mutate(s, sc, apiID, func(t *Tx) (*Resource, error) {
		st := t.State()
		parent, ok := st.Resources.Get(parentID)
		if !ok {
			return nil, notFound(resMsgResourceNotFound)
		}
		if err := resCheckPlacement(&st.Config, parent, part, ""); err != nil {
			return nil, err
		}
		r := &Resource{
			ID:       NewID(6, st.Resources.Has),
			ParentID: parentID,
			PathPart: part,
			Path:     resChildPath(parent.Path, part),
		}
		t.PutResource(r)
		return r, nil
	})
}

// resIsDescendant reports whether id lies under ancestor.
func resIsDescendant(rs pmap.Map[*Resource], id, ancestor string) bool {
	for steps := 0; steps <= rs.Len(); steps++ {
		r, ok := rs.Get(id)
		if !ok || r.ParentID == "" {
			return false
		}
		if r.ParentID == ancestor {
			return true
		}
		id = r.ParentID
	}
	return false
}

// UpdateResource renames (/pathPart) or moves (/parentId) a resource; the
// paths of the resource and of everything under it follow.
func (s *Service) UpdateResource(sc awswire.Scope, apiID, id string, ops []PatchOp) (*Resource, error) {
	var v Validation
	v.PatchOps("updateResourceInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Resource, error) {
		st := t.State()
		rs := st.Resources
		cur, ok := rs.Get(id)
		if !ok {
			return nil, notFound(resMsgResourceNotFound)
		}
		if err := resResourcePatch.Check(resNullPaths(ops)); err != nil {
			return nil, err
		}
		next := *cur
		for _, o := range ops {
			switch o.Path {
			case "/pathPart":
				if cur.ParentID == "" {
					return nil, BadRequest("Root resource cannot update its pathPart.")
				}
				next.PathPart = o.Val()
			case "/parentId":
				if cur.ParentID == "" {
					return nil, BadRequest("Root resource cannot update its parentId.")
				}
				if !rs.Has(o.Val()) {
					return nil, notFound(resMsgResourceNotFound)
				}
				if o.Val() == id || resIsDescendant(rs, o.Val(), id) {
					return nil, BadRequest("Resources cannot be cyclical.")
				}
				next.ParentID = o.Val()
			}
			parent, _ := rs.Get(next.ParentID)
			if err := resCheckPlacement(&st.Config, parent, next.PathPart, id); err != nil {
				return nil, err
			}
		}
		if next.ParentID == cur.ParentID && next.PathPart == cur.PathPart {
			return cur, nil
		}
		if resIsGreedyPart(next.PathPart) && len(childrenOf(&st.Config, id)) > 0 {
			return nil, BadRequest("Cannot create a child of a resource with a greedy path variable: %s", next.PathPart)
		}
		parent, _ := rs.Get(next.ParentID)
		next.Path = resChildPath(parent.Path, next.PathPart)
		t.PutResource(&next)
		// Every descendant's path changes with it: each is copied and
		// written, parents before children.
		queue := []*Resource{&next}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, kid := range childrenOf(&st.Config, p.ID) {
				k, _ := rs.Get(kid)
				c := *k
				c.Path = resChildPath(p.Path, c.PathPart)
				t.PutResource(&c)
				queue = append(queue, &c)
			}
		}
		return &next, nil
	})
}

// DeleteResource deletes a resource and everything under it, methods
// included.
func (s *Service) DeleteResource(sc awswire.Scope, apiID, id string) error {
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		st := t.State()
		cur, ok := st.Resources.Get(id)
		if !ok {
			return struct{}{}, notFound(resMsgResourceNotFound)
		}
		if cur.ParentID == "" {
			return struct{}{}, BadRequest("Root resource cannot be deleted.")
		}
		doomed := []string{id}
		for i := 0; i < len(doomed); i++ {
			doomed = append(doomed, childrenOf(&st.Config, doomed[i])...)
		}
		for _, d := range doomed {
			t.DeleteResource(d)
		}
		return struct{}{}, nil
	})
	return err
}

// ---- methods ----

// MethodInput is the body of PutMethod.
type MethodInput struct {
	AuthorizationType   *string           `json:"authorizationType"`
	AuthorizerID        string            `json:"authorizerId"`
	APIKeyRequired      bool              `json:"apiKeyRequired"`
	OperationName       string            `json:"operationName"`
	RequestParameters   map[string]bool   `json:"requestParameters"`
	RequestModels       map[string]string `json:"requestModels"`
	RequestValidatorID  string            `json:"requestValidatorId"`
	AuthorizationScopes []string          `json:"authorizationScopes"`
}

var resHttpMethods = map[string]bool{
	"GET": true, "PUT": true, "POST": true, "DELETE": true, "PATCH": true, "OPTIONS": true, "HEAD": true, "ANY": true,
}

// resAuthorizationTypes are AWS's, and the spec's JWT, stored as sent.
var resAuthorizationTypes = map[string]bool{
	"NONE": true, "AWS_IAM": true, "CUSTOM": true, "COGNITO_USER_POOLS": true, "JWT": true,
}

// resNeedsAuthorizer reports whether a method of this type must name an
// authorizer of the API.
func resNeedsAuthorizer(authType string) bool {
	return authType == "CUSTOM" || authType == "COGNITO_USER_POOLS"
}

// resUsesAuthorizer reports whether a method of this type keeps its
// authorizerId; AWS ignores it for the others.
func resUsesAuthorizer(authType string) bool {
	return resNeedsAuthorizer(authType) || authType == "JWT"
}

var resMethodParamRe = regexp.MustCompile(`^method\.request\.(path|querystring|multivaluequerystring|header|multivalueheader)\.(\S+)$`)

// resMappingError is AWS's error for parameter names or mapping expressions
// it cannot parse, each listed with its own message.
func resMappingError(errs []string) error {
	return BadRequest("Invalid mapping expression specified: Validation Result: warnings : [], errors : [%s]", strings.Join(errs, ", "))
}

func resSortedKeys[M ~map[string]V, V any](m M) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}

// resCheckMethodParams checks method request parameter names: each a
// method.request.<location>.<name>, and no name in two locations.
func resCheckMethodParams(params map[string]bool) error {
	var bad []string
	seen := map[string]bool{}
	dup := false
	for _, k := range resSortedKeys(params) {
		m := resMethodParamRe.FindStringSubmatch(k)
		if m == nil {
			bad = append(bad, "Invalid mapping expression specified: "+k)
			continue
		}
		dup = dup || seen[m[2]]
		seen[m[2]] = true
	}
	if len(bad) > 0 {
		return resMappingError(bad)
	}
	if dup {
		return BadRequest("Parameter names must be unique across querystring, header and path")
	}
	return nil
}

func resCheckModels(st *RestAPI, models map[string]string) error {
	for _, ct := range resSortedKeys(models) {
		if _, ok := st.Models.Get(models[ct]); !ok {
			return BadRequest("Invalid model identifier specified: %s", models[ct])
		}
	}
	return nil
}

// resCheckMethodAuth checks the final authorization of a method and drops an
// authorizerId its type ignores.
func resCheckMethodAuth(st *RestAPI, m *Method) error {
	if !resUsesAuthorizer(m.AuthorizationType) {
		m.AuthorizerID = ""
		return nil
	}
	if m.AuthorizerID == "" && !resNeedsAuthorizer(m.AuthorizationType) {
		return nil
	}
	if _, ok := st.Authorizers.Get(m.AuthorizerID); !ok || m.AuthorizerID == "" {
		return BadRequest(resMsgAuthorizer)
	}
	return nil
}

// PutMethod creates a method on a resource.
func (s *Service) PutMethod(sc awswire.Scope, apiID, resID, httpMethod string, in MethodInput) (*Method, error) {
	if in.AuthorizationType == nil {
		var v Validation
		v.NotNull("putMethodInput.authorizationType", false)
		return nil, v.Err()
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Method, error) {
		st := t.State()
		r, ok := st.Resources.Get(resID)
		if !ok {
			return nil, notFound(resMsgResourceNotFound)
		}
		if !resHttpMethods[httpMethod] {
			return nil, BadRequest(resMsgHTTPMethod)
		}
		authType := strings.ToUpper(*in.AuthorizationType)
		if !resAuthorizationTypes[authType] {
			return nil, BadRequest(resMsgAuthorizationType)
		}
		if err := resCheckMethodParams(in.RequestParameters); err != nil {
			return nil, err
		}
		m := &Method{
			HTTPMethod:          httpMethod,
			AuthorizationType:   authType,
			AuthorizerID:        in.AuthorizerID,
			APIKeyRequired:      in.APIKeyRequired,
			RequestValidatorID:  in.RequestValidatorID,
			OperationName:       in.OperationName,
			RequestParameters:   in.RequestParameters,
			RequestModels:       in.RequestModels,
			AuthorizationScopes: in.AuthorizationScopes,
		}
		if err := resCheckMethodAuth(st, m); err != nil {
			return nil, err
		}
		if m.RequestValidatorID != "" {
			if _, ok := st.Validators.Get(m.RequestValidatorID); !ok {
				return nil, BadRequest(resMsgValidator)
			}
		}
		if err := resCheckModels(st, m.RequestModels); err != nil {
			return nil, err
		}
		if _, ok := r.Methods[httpMethod]; ok {
			return nil, Conflict("Method already exists for this resource")
		}
		resPutMethod(t, r, httpMethod, m)
		return m, nil
	})
}

var resMethodPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/authorizationType", []string{"replace"}},
	{"/authorizerId", []string{"replace"}},
	{"/apiKeyRequired", []string{"replace"}},
	{"/operationName", []string{"replace"}},
	{"/requestValidatorId", []string{"replace"}},
	{"/requestParameters/*", []string{"add", "remove", "replace"}},
	{"/requestModels/*", []string{"add", "remove", "replace"}},
	{"/authorizationScopes", []string{"add", "remove"}},
}}

// resPatchBool reads a patch value as AWS does for booleans: "true" in any
// case is true, anything else false.
func resPatchBool(o PatchOp) bool { return strings.EqualFold(o.Val(), "true") }

// UpdateMethod patches a method.
func (s *Service) UpdateMethod(sc awswire.Scope, apiID, resID, httpMethod string, ops []PatchOp) (*Method, error) {
	var v Validation
	v.PatchOps("updateMethodInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Method, error) {
		st := t.State()
		r, m, err := resLookupMethod(t, resID, httpMethod, resMsgMethodNotFound)
		if err != nil {
			return nil, err
		}
		if err := resMethodPatch.Check(resNullPaths(ops)); err != nil {
			return nil, err
		}
		n := m.clone()
		n.RequestParameters = maps.Clone(m.RequestParameters)
		n.RequestModels = maps.Clone(m.RequestModels)
		n.AuthorizationScopes = slices.Clone(m.AuthorizationScopes)
		for _, o := range ops {
			if err := resPatchMethod(st, n, o); err != nil {
				return nil, err
			}
		}
		if err := resCheckMethodParams(n.RequestParameters); err != nil {
			return nil, err
		}
		if err := resCheckMethodAuth(st, n); err != nil {
			return nil, err
		}
		n.RequestParameters = resOrNil(n.RequestParameters)
		n.RequestModels = resOrNil(n.RequestModels)
		if len(n.AuthorizationScopes) == 0 {
			n.AuthorizationScopes = nil
		}
		resPutMethod(t, r, httpMethod, n)
		return n, nil
	})
}

func resPatchMethod(st *RestAPI, n *Method, o PatchOp) error {
	switch {
	case o.Path == "/authorizationType":
		a := strings.ToUpper(o.Val())
		if !resAuthorizationTypes[a] {
			return BadRequest(resMsgAuthorizationType)
		}
		n.AuthorizationType = a
	case o.Path == "/authorizerId":
		// Checked once every operation is applied: it counts only if the
		// final type uses an authorizer.
		n.AuthorizerID = o.Val()
	case o.Path == "/apiKeyRequired":
		n.APIKeyRequired = resPatchBool(o)
	case o.Path == "/operationName":
		n.OperationName = o.Val()
	case o.Path == "/requestValidatorId":
		if o.Val() != "" {
			if _, ok := st.Validators.Get(o.Val()); !ok {
				return BadRequest(resMsgValidator)
			}
		}
		n.RequestValidatorID = o.Val()
	case strings.HasPrefix(o.Path, "/requestParameters/"):
		name := PathKey(o.Path, "/requestParameters/")
		if n.RequestParameters == nil {
			n.RequestParameters = map[string]bool{}
		}
		return resPatchMapEntry(n.RequestParameters, name, o, resPatchBool(o), resMsgParamNotFound)
	case strings.HasPrefix(o.Path, "/requestModels/"):
		if n.RequestModels == nil {
			n.RequestModels = map[string]string{}
		}
		err := resPatchMapEntry(n.RequestModels, PathKey(o.Path, "/requestModels/"), o, o.Val(), resMsgContentTypeNotFound)
		if err == nil && o.Op != "remove" {
			err = resCheckModels(st, map[string]string{"": o.Val()})
		}
		return err
	case o.Path == "/authorizationScopes":
		n.AuthorizationScopes = slices.DeleteFunc(n.AuthorizationScopes, func(s string) bool { return s == o.Val() })
		if o.Op == "add" {
			n.AuthorizationScopes = append(n.AuthorizationScopes, o.Val())
		}
	}
	return nil
}

// resPatchMapEntry applies add, replace or remove of one key; replacing or
// removing a key that is not there is AWS's NotFound with missing.
func resPatchMapEntry[V any](m map[string]V, key string, o PatchOp, val V, missing string) error {
	_, ok := m[key]
	switch o.Op {
	case "add":
		m[key] = val
	case "replace":
		if !ok {
			return notFound("%s", missing)
		}
		m[key] = val
	case "remove":
		if !ok {
			return notFound("%s", missing)
		}
		delete(m, key)
	}
	return nil
}

// DeleteMethod deletes a method with its integration and responses.
func (s *Service) DeleteMethod(sc awswire.Scope, apiID, resID, httpMethod string) error {
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		r, _, err := resLookupMethod(t, resID, httpMethod, resMsgMethodNotFound)
		if err != nil {
			return struct{}{}, err
		}
		c := *r
		c.Methods = maps.Clone(r.Methods)
		delete(c.Methods, httpMethod)
		c.Methods = resOrNil(c.Methods)
		t.PutResource(&c)
		return struct{}{}, nil
	})
	return err
}

// ---- integrations ----

// IntegrationInput is the body of PutIntegration.
type IntegrationInput struct {
	Type                 *string           `json:"type"`
	HTTPMethod           string            `json:"httpMethod"`
	URI                  string            `json:"uri"`
	ConnectionType       string            `json:"connectionType"`
	ConnectionID         string            `json:"connectionId"`
	Credentials          string            `json:"credentials"`
	RequestParameters    map[string]string `json:"requestParameters"`
	RequestTemplates     map[string]string `json:"requestTemplates"`
	PassthroughBehavior  string            `json:"passthroughBehavior"`
	CacheNamespace       string            `json:"cacheNamespace"`
	CacheKeyParameters   []string          `json:"cacheKeyParameters"`
	ContentHandling      string            `json:"contentHandling"`
	TimeoutInMillis      *int32            `json:"timeoutInMillis"`
	TLSConfig            *TLSConfig        `json:"tlsConfig"`
	ResponseTransferMode string            `json:"responseTransferMode"`
	IntegrationTarget    string            `json:"integrationTarget"`
}

// resIntegrationKinds maps each accepted type to the AWS type whose rules it
// follows: the spec's CLOUD types behave as AWS's.
var resIntegrationKinds = map[string]string{
	"HTTP": "HTTP", "HTTP_PROXY": "HTTP_PROXY", "AWS": "AWS", "AWS_PROXY": "AWS_PROXY", "MOCK": "MOCK",
	"CLOUD": "AWS", "CLOUD_PROXY": "AWS_PROXY",
}

var (
	resContentHandlings   = []string{"CONVERT_TO_BINARY", "CONVERT_TO_TEXT"}
	resConnectionTypes    = []string{"INTERNET", "VPC_LINK"}
	resTransferModes      = []string{"BUFFERED", "STREAM"}
	resPassthroughs       = []string{"WHEN_NO_MATCH", "WHEN_NO_TEMPLATES", "NEVER"}
	resHttpURIRe          = regexp.MustCompile(`^(?i:https?)://[^/\s?#]+`)
	resArnRe              = regexp.MustCompile(`^arn:[^:]+:[^:]+:[^:]*:[^:]*:.+`)
	resIntegrationARNRe   = regexp.MustCompile(`^arn:[^:]+:apigateway:[^:]*:([^:]+):(?:path|action)/`)
	resIntegrationParamRe = regexp.MustCompile(`^integration\.request\.(path|querystring|multivaluequerystring|header|multivalueheader)\.\S+$`)
	resContentTypeRe      = regexp.MustCompile(`^[^/\s]+/[^/\s]+`)
)

// PutIntegration sets (or replaces) a method's integration.
func (s *Service) PutIntegration(sc awswire.Scope, apiID, resID, httpMethod string, in IntegrationInput) (*Integration, error) {
	var v Validation
	switch {
	case in.Type == nil:
		v.NotNull("putIntegrationInput.type", false)
	case resIntegrationKinds[*in.Type] == "":
		v.Enum("putIntegrationInput.type", *in.Type, "HTTP", "MOCK", "AWS_PROXY", "HTTP_PROXY", "AWS")
	}
	if in.ConnectionType != "" {
		v.Enum("putIntegrationInput.connectionType", in.ConnectionType, resConnectionTypes...)
	}
	if in.ContentHandling != "" {
		v.Enum("putIntegrationInput.contentHandling", in.ContentHandling, resContentHandlings...)
	}
	if in.ResponseTransferMode != "" {
		v.Enum("putIntegrationInput.responseTransferMode", in.ResponseTransferMode, resTransferModes...)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Integration, error) {
		r, m, err := resLookupMethod(t, resID, httpMethod, resMsgMethodNotFound)
		if err != nil {
			return nil, err
		}
		it := &Integration{
			Type:                 *in.Type,
			HTTPMethod:           in.HTTPMethod,
			URI:                  in.URI,
			ConnectionType:       in.ConnectionType,
			ConnectionID:         in.ConnectionID,
			Credentials:          in.Credentials,
			RequestParameters:    in.RequestParameters,
			RequestTemplates:     Templates(in.RequestTemplates),
			PassthroughBehavior:  in.PassthroughBehavior,
			ContentHandling:      in.ContentHandling,
			TimeoutInMillis:      resDefaultTimeoutMillis,
			CacheNamespace:       in.CacheNamespace,
			CacheKeyParameters:   in.CacheKeyParameters,
			TLSConfig:            in.TLSConfig,
			ResponseTransferMode: in.ResponseTransferMode,
			IntegrationTarget:    in.IntegrationTarget,
		}
		if in.TimeoutInMillis != nil {
			it.TimeoutInMillis = int64(*in.TimeoutInMillis)
		}
		if it.PassthroughBehavior == "" {
			it.PassthroughBehavior = resDefaultPassthrough
		}
		if it.CacheNamespace == "" {
			it.CacheNamespace = r.ID
		}
		if it.CacheKeyParameters == nil {
			it.CacheKeyParameters = []string{}
		}
		resSettleIntegration(it)
		if err := resCheckIntegration(m, it); err != nil {
			return nil, err
		}
		n := m.clone()
		n.Integration = it
		resPutMethod(t, r, httpMethod, n)
		return it, nil
	})
}

// resSettleIntegration applies what AWS derives: MOCK keeps no URI; HTTP
// integrations are INTERNET unless told otherwise.
func resSettleIntegration(it *Integration) {
	kind := resIntegrationKinds[it.Type]
	if kind == "MOCK" {
		it.URI = ""
	}
	if it.ConnectionType == "" && (kind == "HTTP" || kind == "HTTP_PROXY") {
		it.ConnectionType = "INTERNET"
	}
}

// resCheckIntegration checks an integration as it is about to be stored, in
// the order AWS reports problems.
func resCheckIntegration(m *Method, it *Integration) error {
	kind := resIntegrationKinds[it.Type]
	if it.HTTPMethod == "" && kind != "MOCK" {
		return BadRequest(resMsgIntegrationMethod)
	}
	switch kind {
	case "HTTP", "HTTP_PROXY":
		if !resHttpURIRe.MatchString(it.URI) {
			return BadRequest(resMsgHTTPURI)
		}
	case "AWS_PROXY":
		svc := ""
		if sm := resIntegrationARNRe.FindStringSubmatch(it.URI); sm != nil {
			svc = sm[1]
		} else if strings.Contains(it.URI, ":lambda:") {
			svc = "lambda"
		} else if strings.Contains(it.URI, ":firehose:") {
			svc = "firehose"
		}
		if svc != "lambda" && svc != "firehose" {
			return BadRequest("Integrations of type '%s' currently only supports Lambda function and Firehose stream invocations.", it.Type)
		}
		fallthrough
	case "AWS":
		if !resArnRe.MatchString(it.URI) {
			return BadRequest(resMsgARN)
		}
		if !resIntegrationARNRe.MatchString(it.URI) {
			return BadRequest(resMsgARNPathAction)
		}
	}
	if !slices.Contains(resPassthroughs, it.PassthroughBehavior) {
		return BadRequest(resMsgPassthrough)
	}
	if it.TimeoutInMillis < resMinTimeoutMillis || it.TimeoutInMillis > resMaxTimeoutMillis {
		return BadRequest(resMsgTimeout)
	}
	if it.ConnectionType == "VPC_LINK" && it.ConnectionID == "" {
		return BadRequest(resMsgConnectionID)
	}
	if err := resCheckContentTypes(it.RequestTemplates); err != nil {
		return err
	}
	return resCheckIntegrationParams(m, it)
}

// resCheckContentTypes checks the content types that key templates.
func resCheckContentTypes(templates Templates) error {
	var bad []string
	for _, ct := range resSortedKeys(templates) {
		if !resContentTypeRe.MatchString(ct) {
			bad = append(bad, "Invalid content type specified: "+ct)
		}
	}
	if len(bad) > 0 {
		return BadRequest("Validation Result: warnings : [], errors : [%s]", strings.Join(bad, ", "))
	}
	return nil
}

// resCheckIntegrationParams checks the integration request parameter names
// and that each method request parameter they (or the cache keys) use is
// declared on the method, as AWS requires.
func resCheckIntegrationParams(m *Method, it *Integration) error {
	var bad []string
	for _, k := range resSortedKeys(it.RequestParameters) {
		if !resIntegrationParamRe.MatchString(k) {
			bad = append(bad, "Invalid mapping expression specified: "+k)
		}
	}
	if len(bad) > 0 {
		return resMappingError(bad)
	}
	undeclared := func(expr string) bool {
		if !resMethodParamRe.MatchString(expr) {
			return false
		}
		_, ok := m.RequestParameters[expr]
		return !ok
	}
	for _, k := range resSortedKeys(it.RequestParameters) {
		if v := it.RequestParameters[k]; undeclared(v) {
			bad = append(bad, "Invalid mapping expression parameter specified: "+v)
		}
	}
	for _, p := range it.CacheKeyParameters {
		if undeclared(p) {
			bad = append(bad, "Invalid mapping expression parameter specified: "+p)
		}
	}
	if len(bad) > 0 {
		return resMappingError(bad)
	}
	return nil
}

var resIntegrationPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/uri", []string{"replace"}},
	{"/httpMethod", []string{"replace"}},
	{"/passthroughBehavior", []string{"replace"}},
	{"/timeoutInMillis", []string{"replace"}},
	{"/contentHandling", []string{"replace"}},
	{"/cacheNamespace", []string{"replace"}},
	{"/cacheKeyParameters/*", []string{"add", "remove", "replace"}},
	{"/connectionType", []string{"replace"}},
	{"/connectionId", []string{"replace"}},
	{"/credentials", []string{"replace"}},
	{"/requestParameters/*", []string{"add", "remove", "replace"}},
	{"/requestTemplates/*", []string{"add", "remove", "replace"}},
	{"/tlsConfig/insecureSkipVerification", []string{"replace"}},
	{"/responseTransferMode", []string{"replace"}},
	{"/integrationTarget", []string{"replace"}},
}}

// UpdateIntegration patches a method's integration.
func (s *Service) UpdateIntegration(sc awswire.Scope, apiID, resID, httpMethod string, ops []PatchOp) (*Integration, error) {
	var v Validation
	v.PatchOps("updateIntegrationInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Integration, error) {
		r, m, err := resLookupMethod(t, resID, httpMethod, resMsgIntegrationNotFound)
		if err != nil {
			return nil, err
		}
		if m.Integration == nil {
			return nil, notFound(resMsgIntegrationNotFound)
		}
		if err := resIntegrationPatch.Check(resNullPaths(ops)); err != nil {
			return nil, err
		}
		n := m.Integration.clone()
		n.RequestParameters = maps.Clone(n.RequestParameters)
		n.RequestTemplates = maps.Clone(n.RequestTemplates)
		n.CacheKeyParameters = slices.Clone(n.CacheKeyParameters)
		for _, o := range ops {
			if err := resPatchIntegration(n, o); err != nil {
				return nil, err
			}
		}
		n.RequestParameters = resOrNil(n.RequestParameters)
		n.RequestTemplates = resOrNil(n.RequestTemplates)
		if n.CacheKeyParameters == nil {
			n.CacheKeyParameters = []string{}
		}
		resSettleIntegration(n)
		if err := resCheckIntegration(m, n); err != nil {
			return nil, err
		}
		nm := m.clone()
		nm.Integration = n
		resPutMethod(t, r, httpMethod, nm)
		return n, nil
	})
}

func resPatchIntegration(n *Integration, o PatchOp) error {
	val := o.Val()
	switch {
	case o.Path == "/uri":
		n.URI = val
	case o.Path == "/httpMethod":
		n.HTTPMethod = val
	case o.Path == "/passthroughBehavior":
		n.PassthroughBehavior = val
	case o.Path == "/timeoutInMillis":
		ms, err := ParseInt(o)
		if err != nil {
			return err
		}
		n.TimeoutInMillis = ms
	case o.Path == "/contentHandling":
		if val != "" && !slices.Contains(resContentHandlings, val) {
			return BadRequest(resMsgContentHandling)
		}
		n.ContentHandling = val
	case o.Path == "/cacheNamespace":
		n.CacheNamespace = val
	case o.Path == "/connectionType":
		if val != "" && !slices.Contains(resConnectionTypes, val) {
			return BadRequest(resMsgConnectionType)
		}
		n.ConnectionType = val
	case o.Path == "/connectionId":
		n.ConnectionID = val
	case o.Path == "/credentials":
		n.Credentials = val
	case o.Path == "/responseTransferMode":
		if val != "" && !slices.Contains(resTransferModes, val) {
			return BadRequest(resMsgTransferMode)
		}
		n.ResponseTransferMode = val
	case o.Path == "/integrationTarget":
		n.IntegrationTarget = val
	case o.Path == "/tlsConfig/insecureSkipVerification":
		n.TLSConfig = &TLSConfig{InsecureSkipVerification: resPatchBool(o)}
	case strings.HasPrefix(o.Path, "/cacheKeyParameters/"):
		p := PathKey(o.Path, "/cacheKeyParameters/")
		has := slices.Contains(n.CacheKeyParameters, p)
		switch {
		case o.Op == "add" && !has:
			n.CacheKeyParameters = append(n.CacheKeyParameters, p)
		case o.Op != "add" && !has:
			return notFound(resMsgParamNotFound)
		case o.Op == "remove":
			n.CacheKeyParameters = slices.DeleteFunc(n.CacheKeyParameters, func(s string) bool { return s == p })
		}
	case strings.HasPrefix(o.Path, "/requestParameters/"):
		if n.RequestParameters == nil {
			n.RequestParameters = map[string]string{}
		}
		return resPatchMapEntry(n.RequestParameters, PathKey(o.Path, "/requestParameters/"), o, val, resMsgParamNotFound)
	case strings.HasPrefix(o.Path, "/requestTemplates/"):
		if n.RequestTemplates == nil {
			n.RequestTemplates = Templates{}
		}
		return resPatchMapEntry(n.RequestTemplates, PathKey(o.Path, "/requestTemplates/"), o, val, resMsgContentTypeNotFound)
	}
	return nil
}

// DeleteIntegration deletes a method's integration and its responses.
func (s *Service) DeleteIntegration(sc awswire.Scope, apiID, resID, httpMethod string) error {
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		r, m, err := resLookupMethod(t, resID, httpMethod, resMsgIntegrationNotFound)
		if err != nil {
			return struct{}{}, err
		}
		if m.Integration == nil {
			return struct{}{}, notFound(resMsgIntegrationNotFound)
		}
		n := m.clone()
		n.Integration = nil
		resPutMethod(t, r, httpMethod, n)
		return struct{}{}, nil
	})
	return err
}

// ---- method responses ----

// MethodResponseInput is the body of PutMethodResponse.
type MethodResponseInput struct {
	ResponseParameters map[string]bool   `json:"responseParameters"`
	ResponseModels     map[string]string `json:"responseModels"`
}

var resResponseParamRe = regexp.MustCompile(`^method\.response\.header\.\S+$`)

// resCheckResponseParamNames checks method response parameter names (the
// keys of both method and integration response parameters).
func resCheckResponseParamNames(keys []string) error {
	var bad []string
	for _, k := range keys {
		if !resResponseParamRe.MatchString(k) {
			bad = append(bad, "Invalid mapping expression specified: "+k)
		}
	}
	if len(bad) > 0 {
		return resMappingError(bad)
	}
	return nil
}

// PutMethodResponse declares a method's response for a status code.
func (s *Service) PutMethodResponse(sc awswire.Scope, apiID, resID, httpMethod, status string, in MethodResponseInput) (*MethodResponse, error) {
	if err := resCheckStatusCode(status); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*MethodResponse, error) {
		st := t.State()
		r, m, err := resLookupMethod(t, resID, httpMethod, resMsgMethodNotFound)
		if err != nil {
			return nil, err
		}
		if err := resCheckResponseParamNames(resSortedKeys(in.ResponseParameters)); err != nil {
			return nil, err
		}
		if err := resCheckModels(st, in.ResponseModels); err != nil {
			return nil, err
		}
		if _, ok := m.MethodResponses[status]; ok {
			return nil, Conflict("Response already exists for this resource")
		}
		mr := &MethodResponse{StatusCode: status, ResponseParameters: in.ResponseParameters, ResponseModels: in.ResponseModels}
		n := m.clone()
		n.MethodResponses = maps.Clone(m.MethodResponses)
		if n.MethodResponses == nil {
			n.MethodResponses = map[string]*MethodResponse{}
		}
		n.MethodResponses[status] = mr
		resPutMethod(t, r, httpMethod, n)
		return mr, nil
	})
}

var resMethodResponsePatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/responseParameters/*", []string{"add", "remove", "replace"}},
	{"/responseModels/*", []string{"add", "remove", "replace"}},
}}

// UpdateMethodResponse patches a method response.
func (s *Service) UpdateMethodResponse(sc awswire.Scope, apiID, resID, httpMethod, status string, ops []PatchOp) (*MethodResponse, error) {
	var v Validation
	v.PatchOps("updateMethodResponseInput", ops)
	v.Pattern("statusCode", status, StatusCodePattern, StatusCodePatternText)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*MethodResponse, error) {
		st := t.State()
		r, m, err := resLookupMethod(t, resID, httpMethod, resMsgMethodNotFound)
		if err != nil {
			return nil, err
		}
		mr, ok := m.MethodResponses[status]
		if !ok {
			return nil, notFound(resMsgStatusNotFound)
		}
		if err := resMethodResponsePatch.Check(resNullPaths(ops)); err != nil {
			return nil, err
		}
		n := *mr
		n.ResponseParameters = maps.Clone(mr.ResponseParameters)
		n.ResponseModels = maps.Clone(mr.ResponseModels)
		for _, o := range ops {
			var err error
			switch {
			case strings.HasPrefix(o.Path, "/responseParameters/"):
				name := PathKey(o.Path, "/responseParameters/")
				if o.Op == "add" {
					if err := resCheckResponseParamNames([]string{name}); err != nil {
						return nil, err
					}
				}
				if n.ResponseParameters == nil {
					n.ResponseParameters = map[string]bool{}
				}
				err = resPatchMapEntry(n.ResponseParameters, name, o, resPatchBool(o), resMsgParamNotFound)
			case strings.HasPrefix(o.Path, "/responseModels/"):
				if n.ResponseModels == nil {
					n.ResponseModels = map[string]string{}
				}
				err = resPatchMapEntry(n.ResponseModels, PathKey(o.Path, "/responseModels/"), o, o.Val(), resMsgContentTypeNotFound)
				if err == nil && o.Op != "remove" {
					err = resCheckModels(st, map[string]string{"": o.Val()})
				}
			}
			if err != nil {
				return nil, err
			}
		}
		n.ResponseParameters = resOrNil(n.ResponseParameters)
		n.ResponseModels = resOrNil(n.ResponseModels)
		nm := m.clone()
		nm.MethodResponses = maps.Clone(m.MethodResponses)
		nm.MethodResponses[status] = &n
		resPutMethod(t, r, httpMethod, nm)
		return &n, nil
	})
}

// DeleteMethodResponse deletes a method response.
func (s *Service) DeleteMethodResponse(sc awswire.Scope, apiID, resID, httpMethod, status string) error {
	if err := resCheckStatusCode(status); err != nil {
		return err
	}
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		r, m, err := resLookupMethod(t, resID, httpMethod, resMsgMethodNotFound)
		if err != nil {
			return struct{}{}, err
		}
		if _, ok := m.MethodResponses[status]; !ok {
			return struct{}{}, notFound(resMsgStatusNotFound)
		}
		n := m.clone()
		n.MethodResponses = maps.Clone(m.MethodResponses)
		delete(n.MethodResponses, status)
		n.MethodResponses = resOrNil(n.MethodResponses)
		resPutMethod(t, r, httpMethod, n)
		return struct{}{}, nil
	})
	return err
}

// ---- integration responses ----

// IntegrationResponseInput is the body of PutIntegrationResponse.
type IntegrationResponseInput struct {
	SelectionPattern   *string           `json:"selectionPattern"`
	ResponseParameters map[string]string `json:"responseParameters"`
	ResponseTemplates  map[string]string `json:"responseTemplates"`
	ContentHandling    string            `json:"contentHandling"`
}

// resWithIntegrationResponses stores a method whose integration has the
// responses irs.
func resWithIntegrationResponses(t *Tx, r *Resource, httpMethod string, m *Method, irs map[string]*IntegrationResponse) {
	it := m.Integration.clone()
	it.IntegrationResponses = resOrNil(irs)
	n := m.clone()
	n.Integration = it
	resPutMethod(t, r, httpMethod, n)
}

// PutIntegrationResponse sets (or replaces) an integration's response for
// a status code. AWS does not require the method response to exist.
func (s *Service) PutIntegrationResponse(sc awswire.Scope, apiID, resID, httpMethod, status string, in IntegrationResponseInput) (*IntegrationResponse, error) {
	var v Validation
	v.Pattern("statusCode", status, StatusCodePattern, StatusCodePatternText)
	if in.ContentHandling != "" {
		v.Enum("putIntegrationResponseInput.contentHandling", in.ContentHandling, resContentHandlings...)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*IntegrationResponse, error) {
		r, m, err := resLookupMethod(t, resID, httpMethod, resMsgMethodNotFound)
		if err != nil {
			return nil, err
		}
		if m.Integration == nil {
			return nil, notFound(resMsgIntegrationNotFound)
		}
		if err := resCheckContentTypes(in.ResponseTemplates); err != nil {
			return nil, err
		}
		if err := resCheckResponseParamNames(resSortedKeys(in.ResponseParameters)); err != nil {
			return nil, err
		}
		ir := &IntegrationResponse{
			StatusCode:         status,
			SelectionPattern:   in.SelectionPattern,
			ResponseParameters: in.ResponseParameters,
			ResponseTemplates:  Templates(in.ResponseTemplates),
			ContentHandling:    in.ContentHandling,
		}
		irs := maps.Clone(m.Integration.IntegrationResponses)
		if irs == nil {
			irs = map[string]*IntegrationResponse{}
		}
		irs[status] = ir
		resWithIntegrationResponses(t, r, httpMethod, m, irs)
		return ir, nil
	})
}

var resIntegrationResponsePatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/selectionPattern", []string{"replace"}},
	{"/contentHandling", []string{"replace"}},
	{"/responseParameters/*", []string{"add", "remove", "replace"}},
	{"/responseTemplates/*", []string{"add", "remove", "replace"}},
}}

// resLookupIntegrationResponse finds an integration response in the Tx's
// state; a missing method is reported as a missing integration, as AWS
// does for the operations that change an existing response.
func resLookupIntegrationResponse(t *Tx, resID, httpMethod, status string) (*Resource, *Method, *IntegrationResponse, error) {
	r, m, err := resLookupMethod(t, resID, httpMethod, resMsgIntegrationNotFound)
	if err != nil {
		return nil, nil, nil, err
	}
	if m.Integration == nil {
		return nil, nil, nil, notFound(resMsgIntegrationNotFound)
	}
	ir, ok := m.Integration.IntegrationResponses[status]
	if !ok {
		return nil, nil, nil, notFound(resMsgStatusNotFound)
	}
	return r, m, ir, nil
}

// UpdateIntegrationResponse patches an integration response.
func (s *Service) UpdateIntegrationResponse(sc awswire.Scope, apiID, resID, httpMethod, status string, ops []PatchOp) (*IntegrationResponse, error) {
	var v Validation
	v.PatchOps("updateIntegrationResponseInput", ops)
	v.Pattern("statusCode", status, StatusCodePattern, StatusCodePatternText)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*IntegrationResponse, error) {
		r, m, ir, err := resLookupIntegrationResponse(t, resID, httpMethod, status)
		if err != nil {
			return nil, err
		}
		if err := resIntegrationResponsePatch.Check(resNullPaths(ops)); err != nil {
			return nil, err
		}
		n := *ir
		n.ResponseParameters = maps.Clone(ir.ResponseParameters)
		n.ResponseTemplates = maps.Clone(ir.ResponseTemplates)
		for _, o := range ops {
			var err error
			switch {
			case o.Path == "/selectionPattern":
				p := o.Val()
				n.SelectionPattern = &p
			case o.Path == "/contentHandling":
				if o.Val() != "" && !slices.Contains(resContentHandlings, o.Val()) {
					return nil, BadRequest(resMsgContentHandling)
				}
				n.ContentHandling = o.Val()
			case strings.HasPrefix(o.Path, "/responseParameters/"):
				name := PathKey(o.Path, "/responseParameters/")
				if o.Op == "add" {
					if err := resCheckResponseParamNames([]string{name}); err != nil {
						return nil, err
					}
				}
				if n.ResponseParameters == nil {
					n.ResponseParameters = map[string]string{}
				}
				err = resPatchMapEntry(n.ResponseParameters, name, o, o.Val(), resMsgParamNotFound)
			case strings.HasPrefix(o.Path, "/responseTemplates/"):
				ct := PathKey(o.Path, "/responseTemplates/")
				if o.Op == "add" {
					if err := resCheckContentTypes(Templates{ct: ""}); err != nil {
						return nil, err
					}
				}
				if n.ResponseTemplates == nil {
					n.ResponseTemplates = Templates{}
				}
				err = resPatchMapEntry(n.ResponseTemplates, ct, o, o.Val(), resMsgContentTypeNotFound)
			}
			if err != nil {
				return nil, err
			}
		}
		n.ResponseParameters = resOrNil(n.ResponseParameters)
		n.ResponseTemplates = resOrNil(n.ResponseTemplates)
		irs := maps.Clone(m.Integration.IntegrationResponses)
		irs[status] = &n
		resWithIntegrationResponses(t, r, httpMethod, m, irs)
		return &n, nil
	})
}

// DeleteIntegrationResponse deletes an integration response.
func (s *Service) DeleteIntegrationResponse(sc awswire.Scope, apiID, resID, httpMethod, status string) error {
	if err := resCheckStatusCode(status); err != nil {
		return err
	}
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		r, m, _, err := resLookupIntegrationResponse(t, resID, httpMethod, status)
		if err != nil {
			return struct{}{}, err
		}
		irs := maps.Clone(m.Integration.IntegrationResponses)
		delete(irs, status)
		resWithIntegrationResponses(t, r, httpMethod, m, irs)
		return struct{}{}, nil
	})
	return err
}
