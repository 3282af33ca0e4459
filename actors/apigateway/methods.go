package apigateway

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

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

var httpMethods = map[string]bool{
	"GET": true, "PUT": true, "POST": true, "DELETE": true, "PATCH": true, "OPTIONS": true, "HEAD": true, "ANY": true,
}

// authorizationTypes are AWS's, and the spec's JWT, stored as sent.
var authorizationTypes = map[string]bool{
	"NONE": true, "AWS_IAM": true, "CUSTOM": true, "COGNITO_USER_POOLS": true, "JWT": true,
}

// needsAuthorizer reports whether a method of this type must name an
// authorizer of the API.
func needsAuthorizer(authType string) bool {
	return authType == "CUSTOM" || authType == "COGNITO_USER_POOLS"
}

// usesAuthorizer reports whether a method of this type keeps its
// authorizerId; AWS ignores it for the others.
func usesAuthorizer(authType string) bool {
	return needsAuthorizer(authType) || authType == "JWT"
}

var methodParamRe = regexp.MustCompile(`^method\.request\.(path|querystring|multivaluequerystring|header|multivalueheader)\.(\S+)$`)

// mappingError is AWS's error for parameter names or mapping expressions
// it cannot parse, each listed with its own message.
func mappingError(errs []string) error {
	return BadRequest("Invalid mapping expression specified: Validation Result: warnings : [], errors : [%s]", strings.Join(errs, ", "))
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}

// checkMethodParams checks method request parameter names: each a
// method.request.<location>.<name>, and no name in two locations.
func checkMethodParams(params map[string]bool) error {
	var bad []string
	seen := map[string]bool{}
	dup := false
	for _, k := range sortedKeys(params) {
		m := methodParamRe.FindStringSubmatch(k)
		if m == nil {
			bad = append(bad, "Invalid mapping expression specified: "+k)
			continue
		}
		dup = dup || seen[m[2]]
		seen[m[2]] = true
	}
	if len(bad) > 0 {
		return mappingError(bad)
	}
	if dup {
		return BadRequest("Parameter names must be unique across querystring, header and path")
	}
	return nil
}

func checkModels(st *RestAPI, models map[string]string) error {
	for _, ct := range sortedKeys(models) {
		if _, ok := st.Models.Get(models[ct]); !ok {
			return BadRequest("Invalid model identifier specified: %s", models[ct])
		}
	}
	return nil
}

// checkMethodAuth checks the final authorization of a method and drops an
// authorizerId its type ignores.
func checkMethodAuth(st *RestAPI, m *Method) error {
	if !usesAuthorizer(m.AuthorizationType) {
		m.AuthorizerID = ""
		return nil
	}
	if m.AuthorizerID == "" && !needsAuthorizer(m.AuthorizationType) {
		return nil
	}
	if _, ok := st.Authorizers.Get(m.AuthorizerID); !ok || m.AuthorizerID == "" {
		return BadRequest(msgAuthorizer)
	}
	return nil
}

// PutMethod creates a method on a resource.
func (s *Service) PutMethod(sc awswire.Scope, apiID, iD, httpMethod string, in MethodInput) (*Method, error) {
	if in.AuthorizationType == nil {
		var v Validation
		v.NotNull("putMethodInput.authorizationType", false)
		return nil, v.Err()
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Method, error) {
		st := t.State()
		r, ok := st.Resources.Get(iD)
		if !ok {
			return nil, notFound(msgResourceNotFound)
		}
		if !httpMethods[httpMethod] {
			return nil, BadRequest(msgHTTPMethod)
		}
		authType := strings.ToUpper(*in.AuthorizationType)
		if !authorizationTypes[authType] {
			return nil, BadRequest(msgAuthorizationType)
		}
		if err := checkMethodParams(in.RequestParameters); err != nil {
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
		if err := checkMethodAuth(st, m); err != nil {
			return nil, err
		}
		if m.RequestValidatorID != "" {
			if _, ok := st.Validators.Get(m.RequestValidatorID); !ok {
				return nil, BadRequest(msgValidator)
			}
		}
		if err := checkModels(st, m.RequestModels); err != nil {
			return nil, err
		}
		if _, ok := r.Methods[httpMethod]; ok {
			return nil, Conflict("Method already exists for this resource")
		}
		putMethod(t, r, httpMethod, m)
		return m, nil
	})
}

var methodPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/authorizationType", []string{"replace"}},
	{"/authorizerId", []string{"replace"}},
	{"/apiKeyRequired", []string{"replace"}},
	{"/operationName", []string{"replace"}},
	{"/requestValidatorId", []string{"replace"}},
	{"/requestParameters/*", []string{"add", "remove", "replace"}},
	{"/requestModels/*", []string{"add", "remove", "replace"}},
	{"/authorizationScopes", []string{"add", "remove"}},
}}

// patchBool reads a patch value as AWS does for booleans: "true" in any
// case is true, anything else false.
func patchBool(o PatchOp) bool { return strings.EqualFold(o.Val(), "true") }

// UpdateMethod patches a method.
func (s *Service) UpdateMethod(sc awswire.Scope, apiID, iD, httpMethod string, ops []PatchOp) (*Method, error) {
	var v Validation
	v.PatchOps("updateMethodInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Method, error) {
		st := t.State()
		r, m, err := lookupMethod(t, iD, httpMethod, msgMethodNotFound)
		if err != nil {
			return nil, err
		}
		if err := methodPatch.Check(nullPaths(ops)); err != nil {
			return nil, err
		}
		n := m.clone()
		n.RequestParameters = maps.Clone(m.RequestParameters)
		n.RequestModels = maps.Clone(m.RequestModels)
		n.AuthorizationScopes = slices.Clone(m.AuthorizationScopes)
		for _, o := range ops {
			if err := patchMethod(st, n, o); err != nil {
				return nil, err
			}
		}
		if err := checkMethodParams(n.RequestParameters); err != nil {
			return nil, err
		}
		if err := checkMethodAuth(st, n); err != nil {
			return nil, err
		}
		n.RequestParameters = orNil(n.RequestParameters)
		n.RequestModels = orNil(n.RequestModels)
		if len(n.AuthorizationScopes) == 0 {
			n.AuthorizationScopes = nil
		}
		putMethod(t, r, httpMethod, n)
		return n, nil
	})
}

func patchMethod(st *RestAPI, n *Method, o PatchOp) error {
	switch {
	case o.Path == "/authorizationType":
		a := strings.ToUpper(o.Val())
		if !authorizationTypes[a] {
			return BadRequest(msgAuthorizationType)
		}
		n.AuthorizationType = a
	case o.Path == "/authorizerId":
		// Checked once every operation is applied: it counts only if the
		// final type uses an authorizer.
		n.AuthorizerID = o.Val()
	case o.Path == "/apiKeyRequired":
		n.APIKeyRequired = patchBool(o)
	case o.Path == "/operationName":
		n.OperationName = o.Val()
	case o.Path == "/requestValidatorId":
		if o.Val() != "" {
			if _, ok := st.Validators.Get(o.Val()); !ok {
				return BadRequest(msgValidator)
			}
		}
		n.RequestValidatorID = o.Val()
	case strings.HasPrefix(o.Path, "/requestParameters/"):
		name := PathKey(o.Path, "/requestParameters/")
		if n.RequestParameters == nil {
			n.RequestParameters = map[string]bool{}
		}
		return patchMapEntry(n.RequestParameters, name, o, patchBool(o), msgParamNotFound)
	case strings.HasPrefix(o.Path, "/requestModels/"):
		if n.RequestModels == nil {
			n.RequestModels = map[string]string{}
		}
		err := patchMapEntry(n.RequestModels, PathKey(o.Path, "/requestModels/"), o, o.Val(), msgContentTypeNotFound)
		if err == nil && o.Op != "remove" {
			err = checkModels(st, map[string]string{"": o.Val()})
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

// patchMapEntry applies add, replace or remove of one key; replacing or
// removing a key that is not there is AWS's NotFound with missing.
func patchMapEntry[V any](m map[string]V, key string, o PatchOp, val V, missing string) error {
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
func (s *Service) DeleteMethod(sc awswire.Scope, apiID, iD, httpMethod string) error {
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		r, _, err := lookupMethod(t, iD, httpMethod, msgMethodNotFound)
		if err != nil {
			return struct{}{}, err
		}
		c := *r
		c.Methods = maps.Clone(r.Methods)
		delete(c.Methods, httpMethod)
		c.Methods = orNil(c.Methods)
		t.PutResource(&c)
		return struct{}{}, nil
	})
	return err
}
