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
	msgResourceNotFound    = "Invalid Resource identifier specified"
	msgMethodNotFound      = "Invalid Method identifier specified"
	msgIntegrationNotFound = "Invalid Integration identifier specified"
	msgStatusNotFound      = "Invalid Response status code specified"
	msgParamNotFound       = "Invalid parameter name specified"
	msgContentTypeNotFound = "Content-Type specified was not found"
	msgPathPart            = "Resource's path part only allow a-zA-Z0-9._- and curly braces at the beginning and the end and an optional plus sign before the closing brace."
	msgHTTPMethod          = "Invalid HttpMethod specified. Valid options are GET,PUT,POST,DELETE,PATCH,OPTIONS,HEAD,ANY"
	msgAuthorizer          = "Invalid authorizer ID specified. Setting the authorization type to CUSTOM or COGNITO_USER_POOLS requires a valid authorizer."
	msgAuthorizationType   = "Invalid authorization type specified"
	msgValidator           = "Invalid Request Validator identifier specified"
	msgIntegrationMethod   = "Enumeration value for HttpMethod must be non-empty"
	msgHTTPURI             = "Invalid HTTP endpoint specified for URI"
	msgARN                 = "Invalid ARN specified in the request"
	msgARNPathAction       = "AWS ARN for integration must contain path or action"
	msgTimeout             = "Timeout should be between 50 ms and 29000 ms"
	msgPassthrough         = "Invalid PassthroughBehavior specified. Valid options are WHEN_NO_MATCH,WHEN_NO_TEMPLATES,NEVER"
	msgContentHandling     = "Invalid ContentHandlingStrategy specified. Valid options are CONVERT_TO_BINARY,CONVERT_TO_TEXT"
	msgConnectionType      = "Invalid ConnectionType specified. Valid options are INTERNET,VPC_LINK"
	msgConnectionID        = "Connection ID must be specified for the VPC_LINK connection type"
	msgTransferMode        = "Invalid ResponseTransferMode specified. Valid options are BUFFERED,STREAM"
)

// Integration defaults, as AWS sets them.
const (
	defaultTimeoutMillis = 29000
	minTimeoutMillis     = 50
	maxTimeoutMillis     = 29000
	defaultPassthrough   = "WHEN_NO_MATCH"
)

// ---- reads ----

// FindResource returns resource id of API apiID as published. A missing
// API is a missing resource, as AWS reports it.
func (s *Service) FindResource(sc awswire.Scope, apiID, id string) (*Resource, error) {
	a, ok := s.API(sc, apiID)
	if !ok {
		return nil, notFound(msgResourceNotFound)
	}
	r, ok := a.Resources.Get(id)
	if !ok {
		return nil, notFound(msgResourceNotFound)
	}
	return r, nil
}

// FindMethod returns a resource's method.
func (s *Service) FindMethod(sc awswire.Scope, apiID, iD, httpMethod string) (*Method, error) {
	r, err := s.FindResource(sc, apiID, iD)
	if err != nil {
		return nil, err
	}
	m, ok := r.Methods[httpMethod]
	if !ok {
		return nil, notFound(msgMethodNotFound)
	}
	return m, nil
}

// FindIntegration returns a method's integration.
func (s *Service) FindIntegration(sc awswire.Scope, apiID, iD, httpMethod string) (*Integration, error) {
	m, err := s.FindMethod(sc, apiID, iD, httpMethod)
	if err != nil {
		return nil, err
	}
	if m.Integration == nil {
		return nil, notFound(msgIntegrationNotFound)
	}
	return m.Integration, nil
}

// FindMethodResponse returns a method's response for status.
func (s *Service) FindMethodResponse(sc awswire.Scope, apiID, iD, httpMethod, status string) (*MethodResponse, error) {
	if err := checkStatusCode(status); err != nil {
		return nil, err
	}
	m, err := s.FindMethod(sc, apiID, iD, httpMethod)
	if err != nil {
		return nil, err
	}
	mr, ok := m.MethodResponses[status]
	if !ok {
		return nil, notFound(msgStatusNotFound)
	}
	return mr, nil
}

// FindIntegrationResponse returns an integration's response for status.
func (s *Service) FindIntegrationResponse(sc awswire.Scope, apiID, iD, httpMethod, status string) (*IntegrationResponse, error) {
	if err := checkStatusCode(status); err != nil {
		return nil, err
	}
	it, err := s.FindIntegration(sc, apiID, iD, httpMethod)
	if err != nil {
		return nil, err
	}
	ir, ok := it.IntegrationResponses[status]
	if !ok {
		return nil, notFound(msgStatusNotFound)
	}
	return ir, nil
}

// ---- mutations: helpers ----

// mutateTree runs fn on API apiID. Everything under a resource reports a
// missing API as a missing resource, as AWS does.
func mutateTree[R any](s *Service, sc awswire.Scope, apiID string, fn func(t *Tx) (R, error)) (R, error) {
	return mutateOr(s, sc, apiID, func() *awswire.Error { return notFound(msgResourceNotFound) }, fn)
}

func checkStatusCode(status string) error {
	var v Validation
	v.Pattern("statusCode", status, StatusCodePattern, StatusCodePatternText)
	return v.Err()
}

// nullPaths returns ops with a missing path spelled as AWS prints it.
func nullPaths(ops []PatchOp) []PatchOp {
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

// lookupMethod finds a resource and its method in the Tx's state;
// noMethod is the message for a missing method (it varies by operation).
func lookupMethod(t *Tx, iD, httpMethod, noMethod string) (*Resource, *Method, error) {
	r, ok := t.State().Resources.Get(iD)
	if !ok {
		return nil, nil, notFound(msgResourceNotFound)
	}
	m, ok := r.Methods[httpMethod]
	if !ok {
		return nil, nil, notFound("%s", noMethod)
	}
	return r, m, nil
}

// putMethod stores m as method httpMethod of r, on a copy of r.
func putMethod(t *Tx, r *Resource, httpMethod string, m *Method) {
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

// orNil returns m, or nil when it is empty: AWS drops a map member whose
// last entry a patch removed.
func orNil[M ~map[K]V, K comparable, V any](m M) M {
	if len(m) == 0 {
		return nil
	}
	return m
}

// ---- resources ----

var resourcePatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/parentId", []string{"replace"}},
	{"/pathPart", []string{"replace"}},
}}

// pathPartRe is what a path part may be: letters, digits and ._-: (AWS
// accepts the colon though its message does not say so), or one such name
// in braces, greedy with a + before the closing brace.
var pathPartRe = regexp.MustCompile(`^(?:[A-Za-z0-9._:-]+|\{[A-Za-z0-9._:-]+\+?\})$`)

func isVariablePart(p string) bool { return strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") }

func isGreedyPart(p string) bool { return isVariablePart(p) && strings.HasSuffix(p, "+}") }

func childPath(parentPath, part string) string {
	if parentPath == "/" {
		return "/" + part
	}
	return parentPath + "/" + part
}

// checkPlacement refuses a path part under parent that AWS refuses: a bad
// name, a child of a greedy resource, a sibling with the same name, a
// second variable sibling. self is the resource being placed ("" for a new
// one), which is not its own sibling. It looks the siblings up in the
// children index: its cost does not grow with their number.
func checkPlacement(c *Config, parent *Resource, part, self string) error {
	if !pathPartRe.MatchString(part) {
		return BadRequest(msgPathPart)
	}
	if isGreedyPart(parent.PathPart) {
		return BadRequest("Cannot create a child of a resource with a greedy path variable: %s", parent.PathPart)
	}
	if id, ok := c.Children.Get(childKey(parent.ID, part)); ok && id != self {
		return Conflict("Another resource with the same parent already has this name: %s", part)
	}
	if isVariablePart(part) {
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
			return nil, notFound(msgResourceNotFound)
		}
		if err := checkPlacement(&st.Config, parent, part, ""); err != nil {
			return nil, err
		}
		r := &Resource{
			ID:       NewID(6, st.Resources.Has),
			ParentID: parentID,
			PathPart: part,
			Path:     childPath(parent.Path, part),
		}
		t.PutResource(r)
		return r, nil
	})
}

// isDescendant reports whether id lies under ancestor.
func isDescendant(rs pmap.Map[*Resource], id, ancestor string) bool {
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
			return nil, notFound(msgResourceNotFound)
		}
		if err := resourcePatch.Check(nullPaths(ops)); err != nil {
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
					return nil, notFound(msgResourceNotFound)
				}
				if o.Val() == id || isDescendant(rs, o.Val(), id) {
					return nil, BadRequest("Resources cannot be cyclical.")
				}
				next.ParentID = o.Val()
			}
			parent, _ := rs.Get(next.ParentID)
			if err := checkPlacement(&st.Config, parent, next.PathPart, id); err != nil {
				return nil, err
			}
		}
		if next.ParentID == cur.ParentID && next.PathPart == cur.PathPart {
			return cur, nil
		}
		if isGreedyPart(next.PathPart) && len(childrenOf(&st.Config, id)) > 0 {
			return nil, BadRequest("Cannot create a child of a resource with a greedy path variable: %s", next.PathPart)
		}
		parent, _ := rs.Get(next.ParentID)
		next.Path = childPath(parent.Path, next.PathPart)
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
				c.Path = childPath(p.Path, c.PathPart)
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
			return struct{}{}, notFound(msgResourceNotFound)
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
