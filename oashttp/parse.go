package oashttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Extensions read on import.
const (
	extIntegration  = "x-amazon-apigateway-integration"
	extAnyMethod    = "x-amazon-apigateway-any-method"
	extAuthorizer   = "x-amazon-apigateway-authorizer"
	extAuthType     = "x-amazon-apigateway-authtype"
	extCORS         = "x-amazon-apigateway-cors"
	extVersion      = "x-amazon-apigateway-importexport-version"
	extDisableExec  = "x-amazon-apigateway-disable-execute-api-endpoint"
	extPrefix       = "x-amazon-apigateway-"
	defaultRouteKey = "$default"
)

// MaxDocument is the largest document Parse reads, in bytes: AWS's import
// limit for an API definition file.
const MaxDocument = 6 << 20

// BasePath modes of ImportApi's basepath query parameter.
const (
	BasePathIgnore  = "ignore"
	BasePathPrepend = "prepend"
	BasePathSplit   = "split"
)

// Error is a document AWS refuses to import; Where names the part of the
// document that failed ("" for the whole document).
type Error struct {
	Where string
	Msg   string
}

func (e *Error) Error() string {
	if e.Where == "" {
		return e.Msg
	}
	return e.Msg + " at " + e.Where
}

func fail(where, format string, args ...any) *Error {
	return &Error{Where: where, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads an OpenAPI 3.0 document (JSON or YAML) into the HTTP API it
// describes. basePath is "", ignore, prepend or split. Every failure is an
// *Error.
func Parse(data []byte, basePath string) (api *API, err error) {
	defer func() {
		// A hostile document must never take the emulator down: the
		// loader is third-party code.
		if r := recover(); r != nil {
			api, err = nil, fail("", "Unable to parse the API definition: %v", r)
		}
	}()
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fail("", "The API definition is empty")
	}
	if len(data) > MaxDocument {
		return nil, fail("", "The API definition is larger than %d bytes", MaxDocument)
	}
	switch basePath {
	case "", BasePathIgnore, BasePathPrepend, BasePathSplit:
	default:
		return nil, fail("basepath", "Invalid basepath %q: must be one of [ignore, prepend, split]", basePath)
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fail("", "Unable to parse the API definition: %s", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0") {
		return nil, fail("openapi", "Only OpenAPI 3.0 definitions are supported (found openapi %q)", doc.OpenAPI)
	}
	p := &parser{doc: doc, api: &API{}, integrations: map[string]int{}}
	if err := p.top(); err != nil {
		return nil, err
	}
	prefix := p.basePrefix(basePath)
	if err := p.authorizers(); err != nil {
		return nil, err
	}
	if err := p.paths(prefix); err != nil {
		return nil, err
	}
	return p.api, nil
}

type parser struct {
	doc          *openapi3.T
	api          *API
	integrations map[string]int // canonical JSON → index
	schemes      map[string]scheme
}

// scheme is what a security scheme means to a route.
type scheme struct {
	authType   string // JWT, CUSTOM, AWS_IAM
	authorizer string
}

func (p *parser) warn(format string, args ...any) {
	p.api.Warnings = append(p.api.Warnings, fmt.Sprintf(format, args...))
}

// decodeExt decodes an extension's value (already JSON-shaped) into v.
func decodeExt(where string, raw any, v any) error {
	b, err := json.Marshal(raw)
	if err != nil {
		return fail(where, "Unable to read the extension")
	}
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fail(where+"."+te.Field, "Invalid value: expected %s", te.Type)
		}
		return fail(where, "Invalid value: %s", err)
	}
	return nil
}

func (p *parser) top() error {
	d := p.doc
	if d.Info == nil || strings.TrimSpace(d.Info.Title) == "" {
		return fail("info.title", "The API definition has no title")
	}
	p.api.Name = d.Info.Title
	p.api.Description = d.Info.Description
	p.api.Version = d.Info.Version
	for _, k := range sortedKeys(d.Extensions) {
		v := d.Extensions[k]
		switch k {
		case extCORS:
			var c CORS
			if err := decodeExt(k, v, &c); err != nil {
				return err
			}
			p.api.CORS = &c
		case extVersion:
			s, ok := v.(string)
			if !ok {
				return fail(k, "Invalid value: expected a string")
			}
			if s != "1.0" {
				return fail(k, "Unsupported import/export version %q: must be 1.0", s)
			}
			p.api.ImportExportVersion = s
		case extDisableExec:
			b, ok := v.(bool)
			if !ok {
				return fail(k, "Invalid value: expected a boolean")
			}
			p.api.DisableExecuteAPIEndpoint = &b
		default:
			if strings.HasPrefix(k, extPrefix) {
				p.warn("Unsupported extension %s: ignored", k)
			}
		}
	}
	if len(d.Servers) > 0 && d.Servers[0] != nil {
		p.api.ServerURL = serverURL(d.Servers[0])
	}
	return nil
}

// serverURL is a server's URL with each variable's default.
func serverURL(s *openapi3.Server) string {
	u := s.URL
	for name, v := range s.Variables {
		if v != nil {
			u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
		}
	}
	return u
}

// basePrefix is what prefixes every route's path under mode: the server
// URL's path (prepend) or that path less its first segment (split).
func (p *parser) basePrefix(mode string) string {
	if mode == "" || mode == BasePathIgnore || p.api.ServerURL == "" {
		return ""
	}
	path := p.api.ServerURL
	if u, err := url.Parse(path); err == nil && u.Host != "" {
		path = u.Path
	}
	path = "/" + strings.Trim(path, "/")
	if mode == BasePathSplit {
		rest := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 2)
		path = "/"
		if len(rest) == 2 {
			path += rest[1]
		}
	}
	return strings.TrimSuffix(path, "/")
}

// authorizerExt is x-amazon-apigateway-authorizer.
type authorizerExt struct {
	Type                           string          `json:"type"`
	IdentitySource                 json.RawMessage `json:"identitySource"`
	AuthorizerURI                  string          `json:"authorizerUri"`
	AuthorizerCredentials          string          `json:"authorizerCredentials"`
	AuthorizerPayloadFormatVersion string          `json:"authorizerPayloadFormatVersion"`
	EnableSimpleResponses          *bool           `json:"enableSimpleResponses"`
	AuthorizerResultTTLInSeconds   *int32          `json:"authorizerResultTtlInSeconds"`
	JWTConfiguration               *struct {
		Issuer   string   `json:"issuer"`
		Audience []string `json:"audience"`
	} `json:"jwtConfiguration"`
}

// identitySources reads identitySource: a comma-separated string (AWS's
// export) or a list.
func identitySources(where string, raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fail(where, "Invalid identitySource: expected a string or a list of strings")
	}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			list = append(list, part)
		}
	}
	return list, nil
}

func (p *parser) authorizers() error {
	p.schemes = map[string]scheme{}
	if p.doc.Components == nil {
		return nil
	}
	ss := p.doc.Components.SecuritySchemes
	for _, name := range sortedKeys(ss) {
		ref := ss[name]
		where := "components.securitySchemes." + name
		if ref == nil || ref.Value == nil {
			return fail(where, "Unresolved security scheme")
		}
		ext := ref.Value.Extensions
		if raw, ok := ext[extAuthorizer]; ok {
			w := where + "." + extAuthorizer
			var ae authorizerExt
			if err := decodeExt(w, raw, &ae); err != nil {
				return err
			}
			ids, err := identitySources(w+".identitySource", ae.IdentitySource)
			if err != nil {
				return err
			}
			a := Authorizer{Name: name, IdentitySource: ids}
			switch strings.ToLower(ae.Type) {
			case "jwt":
				a.Type = "JWT"
				if ae.JWTConfiguration != nil {
					a.Issuer, a.Audience = ae.JWTConfiguration.Issuer, ae.JWTConfiguration.Audience
				}
				p.schemes[name] = scheme{authType: "JWT", authorizer: name}
			case "request":
				a.Type = "REQUEST"
				a.URI = ae.AuthorizerURI
				a.Credentials = ae.AuthorizerCredentials
				a.PayloadFormatVersion = ae.AuthorizerPayloadFormatVersion
				a.EnableSimpleResponses = ae.EnableSimpleResponses
				a.ResultTTLInSeconds = ae.AuthorizerResultTTLInSeconds
				p.schemes[name] = scheme{authType: "CUSTOM", authorizer: name}
			default:
				return fail(w+".type", "Unsupported authorizer type %q: must be jwt or request", ae.Type)
			}
			p.api.Authorizers = append(p.api.Authorizers, a)
			continue
		}
		if t, _ := ext[extAuthType].(string); strings.EqualFold(t, "awsSigv4") {
			p.schemes[name] = scheme{authType: "AWS_IAM"}
			continue
		}
		p.warn("Unsupported security scheme %s: ignored", name)
	}
	return nil
}

// methods in the order routes are listed.
var methods = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "CONNECT"}

func (p *parser) paths(prefix string) error {
	if p.doc.Paths == nil {
		return nil
	}
	all := p.doc.Paths.Map()
	for _, path := range sortedKeys(all) {
		item := all[path]
		where := "paths." + path
		if item == nil {
			continue
		}
		if item.Ref != "" {
			// AWS does not follow a path item's $ref, and a cycle of them
			// would describe nothing.
			return fail(where, "Unsupported $ref %s on a path item", item.Ref)
		}
		if path != defaultRouteKey && !strings.HasPrefix(path, "/") {
			return fail(where, "Invalid path: it must start with /")
		}
		ops := item.Operations()
		for _, m := range methods {
			op, ok := ops[m]
			if !ok || op == nil {
				continue
			}
			if path == defaultRouteKey {
				return fail(where+"."+strings.ToLower(m), "The $default route takes only "+extAnyMethod)
			}
			if err := p.route(where+"."+strings.ToLower(m), m+" "+prefix+path, op.OperationID, op.Extensions, op.Security); err != nil {
				return err
			}
		}
		if raw, ok := item.Extensions[extAnyMethod]; ok {
			w := where + "." + extAnyMethod
			var anyOp struct {
				OperationID string                         `json:"operationId"`
				Security    *openapi3.SecurityRequirements `json:"security"`
			}
			if err := decodeExt(w, raw, &anyOp); err != nil {
				return err
			}
			ext, _ := raw.(map[string]any)
			key := "ANY " + prefix + path
			if path == defaultRouteKey {
				key = defaultRouteKey
			}
			if err := p.route(w, key, anyOp.OperationID, ext, anyOp.Security); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *parser) route(where, key, opID string, ext map[string]any, sec *openapi3.SecurityRequirements) error {
	r := Route{Key: key, Integration: -1, AuthorizationType: "NONE", OperationName: opID}
	if raw, ok := ext[extIntegration]; ok {
		i, err := p.integration(where+"."+extIntegration, raw)
		if err != nil {
			return err
		}
		r.Integration = i
	}
	if sec == nil {
		sec = &p.doc.Security
	}
	for _, req := range *sec {
		names := sortedKeys(req)
		if len(names) == 0 {
			continue
		}
		if len(names) > 1 {
			p.warn("Route %s names more than one security scheme: only %s is used", key, names[0])
		}
		s, ok := p.schemes[names[0]]
		if !ok {
			if _, known := p.componentScheme(names[0]); known {
				break // warned about once, as unsupported
			}
			return fail(where+".security", "Unknown security scheme %s", names[0])
		}
		r.AuthorizationType, r.Authorizer = s.authType, s.authorizer
		if s.authType == "JWT" {
			r.Scopes = req[names[0]]
		}
		break
	}
	p.api.Routes = append(p.api.Routes, r)
	return nil
}

func (p *parser) componentScheme(name string) (*openapi3.SecuritySchemeRef, bool) {
	if p.doc.Components == nil {
		return nil, false
	}
	s, ok := p.doc.Components.SecuritySchemes[name]
	return s, ok
}

func (p *parser) integration(where string, raw any) (int, error) {
	var in Integration
	if err := decodeExt(where, raw, &in); err != nil {
		return 0, err
	}
	switch t := strings.ToUpper(in.Type); t {
	case "AWS_PROXY", "HTTP_PROXY":
		in.Type = t
	case "":
		return 0, fail(where+".type", "The integration has no type")
	default:
		return 0, fail(where+".type", "Unsupported integration type %q: HTTP APIs take aws_proxy and http_proxy", in.Type)
	}
	in.ConnectionType = strings.ToUpper(in.ConnectionType)
	in.HTTPMethod = strings.ToUpper(in.HTTPMethod)
	// AWS creates one integration per distinct definition, shared by the
	// routes that repeat it.
	b, err := json.Marshal(in)
	if err != nil {
		return 0, fail(where, "Unable to read the integration")
	}
	if i, ok := p.integrations[string(b)]; ok {
		return i, nil
	}
	p.api.Integrations = append(p.api.Integrations, in)
	i := len(p.api.Integrations) - 1
	p.integrations[string(b)] = i
	return i, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return slices.Clip(keys)
}
