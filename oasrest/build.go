package oasrest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The extensions of API Gateway this package reads.
const (
	extIntegration      = "x-amazon-apigateway-integration"
	extAPIKeySource     = "x-amazon-apigateway-api-key-source"
	extBinaryMediaTypes = "x-amazon-apigateway-binary-media-types"
	extMinCompression   = "x-amazon-apigateway-minimum-compression-size"
	extEndpointConfig   = "x-amazon-apigateway-endpoint-configuration"
	extValidators       = "x-amazon-apigateway-request-validators"
	extValidator        = "x-amazon-apigateway-request-validator"
	extGatewayResponses = "x-amazon-apigateway-gateway-responses"
	extAuthorizer       = "x-amazon-apigateway-authorizer"
	extAuthType         = "x-amazon-apigateway-authtype"
	extPolicy           = "x-amazon-apigateway-policy"
	extDocumentation    = "x-amazon-apigateway-documentation"
)

type builder struct {
	doc     *openapi3.T
	prefix  string // prepended to every path (basepath)
	api     *API
	schemes map[string]*openapi3.SecurityScheme
	// inline names the models made of inline schemas, by schema text, so
	// that one schema written in many places is one model.
	inline map[string]string
}

func build(doc *openapi3.T, prefix string) (*API, error) {
	b := &builder{doc: doc, prefix: prefix, api: &API{}, schemes: map[string]*openapi3.SecurityScheme{}, inline: map[string]string{}}
	if doc.Info != nil {
		b.api.Name = doc.Info.Title
		b.api.Description = doc.Info.Description
		b.api.Version = doc.Info.Version
	}
	steps := []func() error{b.extensions, b.models, b.security, b.paths}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	return b.api, nil
}

func bad(what string, err error) *Error {
	return importErrors("Invalid %s: %v", what, err)
}

func (b *builder) extensions() error {
	x := b.doc.Extensions
	a := b.api
	if _, err := ext(x, extAPIKeySource, &a.APIKeySource); err != nil {
		return bad(extAPIKeySource, err)
	}
	a.APIKeySource = strings.ToUpper(a.APIKeySource)
	if _, err := ext(x, extBinaryMediaTypes, &a.BinaryMediaTypes); err != nil {
		return bad(extBinaryMediaTypes, err)
	}
	var n int64
	if ok, err := ext(x, extMinCompression, &n); err != nil {
		return bad(extMinCompression, err)
	} else if ok {
		a.MinimumCompressionSize = &n
	}
	var ec struct {
		Types                     []string `json:"types"`
		VpcEndpointIDs            []string `json:"vpcEndpointIds"`
		DisableExecuteAPIEndpoint bool     `json:"disableExecuteApiEndpoint"`
	}
	if _, err := ext(x, extEndpointConfig, &ec); err != nil {
		return bad(extEndpointConfig, err)
	}
	for _, t := range ec.Types {
		a.EndpointTypes = append(a.EndpointTypes, strings.ToUpper(t))
	}
	a.VpcEndpointIDs, a.DisableExecuteAPIEndpoint = ec.VpcEndpointIDs, ec.DisableExecuteAPIEndpoint
	var vs map[string]struct {
		Body   bool `json:"validateRequestBody"`
		Params bool `json:"validateRequestParameters"`
	}
	if _, err := ext(x, extValidators, &vs); err != nil {
		return bad(extValidators, err)
	}
	for _, name := range sorted(vs) {
		a.Validators = append(a.Validators, Validator{Name: name, ValidateRequestBody: vs[name].Body, ValidateRequestParameters: vs[name].Params})
	}
	if _, err := ext(x, extValidator, &a.DefaultValidator); err != nil {
		return bad(extValidator, err)
	}
	if a.DefaultValidator != "" && !b.hasValidator(a.DefaultValidator) {
		return importErrors("Unable to find request validator '%s'", a.DefaultValidator)
	}
	var grs map[string]struct {
		StatusCode         json.RawMessage   `json:"statusCode"`
		ResponseParameters map[string]string `json:"responseParameters"`
		ResponseTemplates  map[string]string `json:"responseTemplates"`
	}
	if _, err := ext(x, extGatewayResponses, &grs); err != nil {
		return bad(extGatewayResponses, err)
	}
	for _, t := range sorted(grs) {
		g := grs[t]
		var status any
		if len(g.StatusCode) > 0 {
			_ = json.Unmarshal(g.StatusCode, &status)
		}
		st := ""
		if status != nil {
			st = fmtAny(status)
		}
		a.GatewayResponses = append(a.GatewayResponses, GatewayResponse{ResponseType: t, StatusCode: st,
			ResponseParameters: g.ResponseParameters, ResponseTemplates: g.ResponseTemplates})
	}
	if p, ok := x[extPolicy]; ok && p != nil {
		// AWS keeps the policy as the JSON text of the object written.
		text, err := json.Marshal(p)
		if err != nil {
			return bad(extPolicy, err)
		}
		if s, ok := p.(string); ok {
			text = []byte(s)
		}
		a.Policy = string(text)
	}
	// x-amazon-apigateway-documentation is accepted and not kept: the
	// emulator has no documentation parts.
	return nil
}

func (b *builder) hasValidator(name string) bool {
	return slices.ContainsFunc(b.api.Validators, func(v Validator) bool { return v.Name == name })
}

// models turns components/schemas (Swagger's definitions) into models.
func (b *builder) models() error {
	if b.doc.Components == nil {
		return nil
	}
	for _, name := range sorted(b.doc.Components.Schemas) {
		ref := b.doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			return importErrors("Unable to resolve the schema of model '%s'", name)
		}
		var s []byte
		var err error
		if ref.Ref != "" {
			// A model that is only another's name is that model's schema.
			s, err = json.Marshal(map[string]string{"$ref": ref.Ref})
		} else {
			s, err = json.Marshal(ref.Value)
		}
		if err != nil {
			return importErrors("Unable to read the schema of model '%s'", name)
		}
		schema, err := b.rewriteRefs(s)
		if err != nil {
			return importErrors("Unable to read the schema of model '%s'", name)
		}
		m := Model{Name: name, ContentType: "application/json", Schema: schema}
		if ref.Ref == "" {
			m.Description = ref.Value.Description
		}
		b.api.Models = append(b.api.Models, m)
	}
	return nil
}

// schemaModel names the model of a body's schema: the model a reference
// names, or for an inline schema a model made of it, named "MODEL" and six
// hexadecimal digits of the schema's digest, as API Gateway names the
// models it makes on import (the digits are API Gateway's own; here they
// are stable, so re-importing a document names the same models).
func (b *builder) schemaModel(s *openapi3.SchemaRef, ct string) (string, error) {
	if s == nil {
		return "", nil
	}
	if s.Ref != "" {
		name, ok := b.modelRef(s.Ref)
		if !ok {
			return "", errNotModel
		}
		return name, nil
	}
	if s.Value == nil {
		return "", nil
	}
	raw, err := json.Marshal(s.Value)
	if err != nil {
		return "", err
	}
	schema, err := b.rewriteRefs(raw)
	if err != nil {
		return "", err
	}
	ct = mediaType(ct)
	key := ct + "\x00" + schema
	if name, ok := b.inline[key]; ok {
		return name, nil
	}
	sum := sha256.Sum256([]byte(key))
	name := "MODEL" + hex.EncodeToString(sum[:3])
	for n := 4; b.hasModel(name) && n <= len(sum); n++ {
		name = "MODEL" + hex.EncodeToString(sum[:n]) // a longer digest where names meet
	}
	b.inline[key] = name
	b.api.Models = append(b.api.Models, Model{Name: name, Description: s.Value.Description, ContentType: ct, Schema: schema})
	return name, nil
}

func (b *builder) hasModel(name string) bool {
	return slices.ContainsFunc(b.api.Models, func(m Model) bool { return m.Name == name })
}

// errNotModel is a schema reference that names no model of the document.
var errNotModel = errors.New("oasrest: the reference names no model")

// modelRef is the model a document-local reference names: only a schema of
// components/schemas (Swagger's definitions) is a model. Another part of
// the document ("#", a path, a model's property) names none, and would
// export as a reference to a model the API does not have.
func (b *builder) modelRef(ref string) (string, bool) {
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok {
		// Swagger's, where the conversion to OpenAPI 3 left it.
		name, ok = strings.CutPrefix(ref, "#/definitions/")
	}
	if !ok || name == "" || strings.Contains(name, "/") || b.doc.Components == nil || b.doc.Components.Schemas[name] == nil {
		return "", false
	}
	return name, true
}

// rewriteRefs points the document-local references of a schema at the
// API's models.
func (b *builder) rewriteRefs(s []byte) (string, error) {
	var v any
	if err := json.Unmarshal(s, &v); err != nil {
		return "", err
	}
	var bad bool
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if r, ok := c.(string); ok && k == "$ref" && strings.HasPrefix(r, "#") {
					name, ok := b.modelRef(r)
					bad = bad || !ok
					x[k] = ModelURLPrefix + name
					continue
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	if bad {
		return "", errNotModel
	}
	out, err := json.Marshal(v)
	return string(out), err
}

// security reads the security schemes: Lambda and Cognito authorizers.
func (b *builder) security() error {
	if b.doc.Components == nil {
		return nil
	}
	for _, name := range sorted(b.doc.Components.SecuritySchemes) {
		ref := b.doc.Components.SecuritySchemes[name]
		if ref == nil || ref.Value == nil {
			return importErrors("Unable to resolve security scheme '%s'", name)
		}
		s := ref.Value
		b.schemes[name] = s
		var az struct {
			Type                         string   `json:"type"`
			AuthorizerURI                string   `json:"authorizerUri"`
			AuthorizerCredentials        string   `json:"authorizerCredentials"`
			IdentitySource               string   `json:"identitySource"`
			IdentityValidationExpression string   `json:"identityValidationExpression"`
			AuthorizerResultTTLInSeconds *int64   `json:"authorizerResultTtlInSeconds"`
			ProviderARNs                 []string `json:"providerARNs"`
		}
		ok, err := ext(s.Extensions, extAuthorizer, &az)
		if err != nil {
			return importErrors("Invalid %s of security scheme '%s': %v", extAuthorizer, name, err)
		}
		if !ok {
			continue
		}
		a := Authorizer{Name: name, Type: strings.ToUpper(az.Type), AuthorizerURI: az.AuthorizerURI,
			AuthorizerCredentials: az.AuthorizerCredentials, IdentitySource: az.IdentitySource,
			IdentityValidationExpression: az.IdentityValidationExpression,
			AuthorizerResultTTLInSeconds: az.AuthorizerResultTTLInSeconds, ProviderARNs: az.ProviderARNs}
		if a.Type == "" {
			a.Type = "TOKEN"
		}
		_, _ = ext(s.Extensions, extAuthType, &a.AuthType)
		if a.IdentitySource == "" && (a.Type == "TOKEN" || a.Type == "COGNITO_USER_POOLS") && s.In == "header" && s.Name != "" {
			a.IdentitySource = "method.request.header." + s.Name
		}
		b.api.Authorizers = append(b.api.Authorizers, a)
	}
	return nil
}

func (b *builder) authorizer(name string) *Authorizer {
	for i := range b.api.Authorizers {
		if b.api.Authorizers[i].Name == name {
			return &b.api.Authorizers[i]
		}
	}
	return nil
}

// paths turns each path into a resource (its parents too) and each
// operation into a method.
func (b *builder) paths() error {
	byPath := map[string]*Resource{"/": {Path: "/"}}
	if b.doc.Paths != nil {
		for _, p := range sorted(b.doc.Paths.Map()) {
			item := b.doc.Paths.Value(p)
			path := "/" + strings.Trim(b.prefix+"/"+strings.Trim(p, "/"), "/")
			for parent := path; ; {
				if _, ok := byPath[parent]; !ok {
					byPath[parent] = &Resource{Path: parent}
				}
				if parent == "/" {
					break
				}
				parent = parent[:strings.LastIndexByte(parent, '/')]
				if parent == "" {
					parent = "/"
				}
			}
			r := byPath[path]
			ops := item.Operations()
			for _, verb := range sorted(ops) {
				m, err := b.method(path, verb, item, ops[verb])
				if err != nil {
					return err
				}
				if m == nil {
					continue
				}
				if slices.ContainsFunc(r.Methods, func(o Method) bool { return o.HTTPMethod == m.HTTPMethod }) {
					return importErrors("Duplicate method '%s' for resource at path '%s'", m.HTTPMethod, path)
				}
				r.Methods = append(r.Methods, *m)
			}
		}
	}
	for _, p := range sorted(byPath) {
		b.api.Resources = append(b.api.Resources, *byPath[p])
	}
	return nil
}

var methods = map[string]bool{"GET": true, "PUT": true, "POST": true, "DELETE": true, "PATCH": true, "OPTIONS": true, "HEAD": true}

func (b *builder) method(path, verb string, item *openapi3.PathItem, op *openapi3.Operation) (*Method, error) {
	verb = strings.ToUpper(verb)
	if verb == "TRACE" && op.Extensions[anyMarker] == true {
		verb = "ANY"
	} else if !methods[verb] {
		b.api.Warnings = append(b.api.Warnings, fmt.Sprintf("Ignoring unsupported method '%s' of resource '%s'", verb, path))
		return nil, nil
	}
	where := fmt.Sprintf("resource '%s' and method '%s'", path, verb)
	m := &Method{HTTPMethod: verb, OperationName: op.OperationID, AuthorizationType: "NONE"}
	// Parameters: the operation's override the path's of the same place.
	params := map[string]*openapi3.Parameter{}
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, pr := range list {
			if pr == nil || pr.Value == nil {
				return nil, importErrors("Unable to resolve a parameter of %s", where)
			}
			params[pr.Value.In+"/"+pr.Value.Name] = pr.Value
		}
	}
	for _, k := range sorted(params) {
		p := params[k]
		loc := map[string]string{"path": "path", "query": "querystring", "header": "header"}[p.In]
		if loc == "" {
			continue
		}
		if m.RequestParameters == nil {
			m.RequestParameters = map[string]bool{}
		}
		m.RequestParameters["method.request."+loc+"."+p.Name] = p.Required || p.In == "path"
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		for _, ct := range sorted(rb.Value.Content) {
			name, err := b.schemaModel(rb.Value.Content[ct].Schema, ct)
			if err != nil {
				return nil, importErrors("Unable to read the request body schema of %s", where)
			}
			if name != "" {
				if m.RequestModels == nil {
					m.RequestModels = map[string]string{}
				}
				m.RequestModels[mediaType(ct)] = name
			}
		}
	}
	if op.Responses != nil {
		rs := op.Responses.Map()
		for _, code := range sorted(rs) {
			if code == "default" {
				continue
			}
			r := rs[code]
			if r == nil || r.Value == nil {
				return nil, importErrors("Unable to resolve response '%s' of %s", code, where)
			}
			mr := MethodResponse{StatusCode: code}
			for _, h := range sorted(r.Value.Headers) {
				if mr.ResponseParameters == nil {
					mr.ResponseParameters = map[string]bool{}
				}
				req := false
				if hv := r.Value.Headers[h]; hv != nil && hv.Value != nil {
					req = hv.Value.Required
				}
				mr.ResponseParameters["method.response.header."+h] = req
			}
			for _, ct := range sorted(r.Value.Content) {
				name, err := b.schemaModel(r.Value.Content[ct].Schema, ct)
				if err != nil {
					return nil, importErrors("Unable to read the schema of response '%s' of %s", code, where)
				}
				if name != "" {
					if mr.ResponseModels == nil {
						mr.ResponseModels = map[string]string{}
					}
					mr.ResponseModels[mediaType(ct)] = name
				}
			}
			m.Responses = append(m.Responses, mr)
		}
	}
	if err := b.auth(m, op, where); err != nil {
		return nil, err
	}
	if ok, err := ext(op.Extensions, extValidator, &m.Validator); err != nil {
		return nil, importErrors("Invalid %s of %s", extValidator, where)
	} else if ok && !b.hasValidator(m.Validator) {
		return nil, importErrors("Unable to find request validator '%s' for %s", m.Validator, where)
	}
	if m.Validator == "" {
		m.Validator = b.api.DefaultValidator
	}
	it, err := b.integration(op, where)
	if err != nil {
		return nil, err
	}
	m.Integration = it
	return m, nil
}

// auth applies the operation's security (the document's when it has none):
// the first requirement's schemes, as API Gateway does.
func (b *builder) auth(m *Method, op *openapi3.Operation, where string) error {
	reqs := b.doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 {
		return nil
	}
	req := reqs[0]
	for _, name := range sorted(req) {
		s, ok := b.schemes[name]
		if !ok {
			return importErrors("Unable to find security scheme '%s' for %s", name, where)
		}
		if a := b.authorizer(name); a != nil {
			m.Authorizer = name
			if a.Type == "COGNITO_USER_POOLS" {
				m.AuthorizationType = "COGNITO_USER_POOLS"
				m.AuthorizationScopes = req[name]
			} else {
				m.AuthorizationType = "CUSTOM"
			}
			continue
		}
		var authType string
		_, _ = ext(s.Extensions, extAuthType, &authType)
		switch {
		case strings.EqualFold(authType, "awsSigv4"):
			m.AuthorizationType = "AWS_IAM"
		case s.Type == "apiKey":
			m.APIKeyRequired = true
		}
	}
	return nil
}

type rawIntegration struct {
	Type                string         `json:"type"`
	HTTPMethod          string         `json:"httpMethod"`
	URI                 string         `json:"uri"`
	ConnectionType      string         `json:"connectionType"`
	ConnectionID        string         `json:"connectionId"`
	Credentials         string         `json:"credentials"`
	RequestParameters   map[string]any `json:"requestParameters"`
	RequestTemplates    map[string]any `json:"requestTemplates"`
	PassthroughBehavior string         `json:"passthroughBehavior"`
	ContentHandling     string         `json:"contentHandling"`
	TimeoutInMillis     *int64         `json:"timeoutInMillis"`
	CacheNamespace      string         `json:"cacheNamespace"`
	CacheKeyParameters  []string       `json:"cacheKeyParameters"`
	TLSConfig           *struct {
		InsecureSkipVerification *bool `json:"insecureSkipVerification"`
	} `json:"tlsConfig"`
	Responses map[string]struct {
		StatusCode         any               `json:"statusCode"`
		ResponseParameters map[string]string `json:"responseParameters"`
		ResponseTemplates  map[string]any    `json:"responseTemplates"`
		ContentHandling    string            `json:"contentHandling"`
	} `json:"responses"`
}

func (b *builder) integration(op *openapi3.Operation, where string) (*Integration, error) {
	var r rawIntegration
	ok, err := ext(op.Extensions, extIntegration, &r)
	if err != nil {
		return nil, importErrors("Invalid %s of %s: %v", extIntegration, where, err)
	}
	if !ok {
		return nil, nil
	}
	it := &Integration{Type: strings.ToUpper(r.Type), HTTPMethod: strings.ToUpper(r.HTTPMethod), URI: r.URI,
		ConnectionType: strings.ToUpper(r.ConnectionType), ConnectionID: r.ConnectionID, Credentials: r.Credentials,
		PassthroughBehavior: strings.ToUpper(r.PassthroughBehavior), ContentHandling: r.ContentHandling,
		TimeoutInMillis: r.TimeoutInMillis, CacheNamespace: r.CacheNamespace, CacheKeyParameters: r.CacheKeyParameters}
	if r.TLSConfig != nil {
		it.InsecureSkipVerification = r.TLSConfig.InsecureSkipVerification
	}
	for _, k := range sorted(r.RequestParameters) {
		s, ok := r.RequestParameters[k].(string)
		if !ok {
			// AWS's words for a mapping that is not a string.
			b.api.Warnings = append(b.api.Warnings, fmt.Sprintf("Invalid format for 'requestParameters'. Expected type string for property '%s' of %s but got '%s'",
				k, where, fmtAny(r.RequestParameters[k])))
			continue
		}
		if it.RequestParameters == nil {
			it.RequestParameters = map[string]string{}
		}
		it.RequestParameters[k] = s
	}
	it.RequestTemplates = templates(r.RequestTemplates)
	for _, pattern := range sorted(r.Responses) {
		x := r.Responses[pattern]
		ir := IntegrationResponse{StatusCode: fmtAny(x.StatusCode), ResponseParameters: x.ResponseParameters,
			ResponseTemplates: templates(x.ResponseTemplates), ContentHandling: x.ContentHandling}
		if x.StatusCode == nil {
			return nil, importErrors("Missing statusCode of integration response '%s' of %s", pattern, where)
		}
		if pattern != "default" {
			p := pattern
			ir.SelectionPattern = &p
		}
		it.Responses = append(it.Responses, ir)
	}
	return it, nil
}

// templates reads mapping templates; a template written as a JSON object
// (as some tools do) is that object's text.
func templates(in map[string]any) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		if v == nil {
			out[k] = ""
			continue
		}
		out[k] = fmtAny(v)
	}
	return out
}

// mediaType is the content type a model is mapped to: Swagger's converter
// says */* where a document names none, and API Gateway then maps
// application/json.
func mediaType(ct string) string {
	if ct == "*/*" {
		return "application/json"
	}
	return ct
}
