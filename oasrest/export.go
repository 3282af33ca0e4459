package oasrest

import (
	"encoding/json"
	"strings"

	"sigs.k8s.io/yaml"
)

// ExportOptions says what document Export writes.
type ExportOptions struct {
	Swagger bool // Swagger 2.0; else OpenAPI 3.0.1
	YAML    bool
	// Integrations adds x-amazon-apigateway-integration; Authorizers the
	// authorizers' security schemes; APIGateway both and the API-level
	// extensions.
	Integrations, Authorizers, APIGateway bool
	Host                                  string // {id}.execute-api.{region}.amazonaws.com
	Stage                                 string
	Version                               string // info.version when the API has none
}

// Export writes api as an OpenAPI document, the way API Gateway exports a
// stage.
func Export(api *API, o ExportOptions) ([]byte, error) {
	if o.APIGateway {
		o.Integrations, o.Authorizers = true, true
	}
	e := exporter{api: api, o: o}
	b, err := json.MarshalIndent(e.document(), "", "  ")
	if err != nil || !o.YAML {
		return b, err
	}
	return yaml.JSONToYAML(b)
}

type exporter struct {
	api *API
	o   ExportOptions
}

type obj = map[string]any

func (e exporter) ref(name string) string {
	if e.o.Swagger {
		return "#/definitions/" + name
	}
	return "#/components/schemas/" + name
}

func (e exporter) document() obj {
	a := e.api
	info := obj{"title": a.Name}
	if a.Description != "" {
		info["description"] = a.Description
	}
	info["version"] = a.Version
	if a.Version == "" {
		info["version"] = e.o.Version
	}
	doc := obj{"info": info}
	if e.o.Swagger {
		doc["swagger"] = "2.0"
		doc["host"] = e.o.Host
		doc["basePath"] = "/" + e.o.Stage
		doc["schemes"] = []string{"https"}
	} else {
		doc["openapi"] = "3.0.1"
		doc["servers"] = []obj{{"url": "https://" + e.o.Host + "/{basePath}",
			"variables": obj{"basePath": obj{"default": e.o.Stage}}}}
	}
	paths := obj{}
	for _, r := range a.Resources {
		if len(r.Methods) == 0 {
			continue
		}
		item := obj{}
		for _, m := range r.Methods {
			op := e.operation(m)
			if m.HTTPMethod == "ANY" {
				item[anyMethodKey] = op
			} else {
				item[strings.ToLower(m.HTTPMethod)] = op
			}
		}
		paths[r.Path] = item
	}
	doc["paths"] = paths
	schemas := obj{}
	for _, m := range a.Models {
		var s any
		text := strings.ReplaceAll(m.Schema, `"`+ModelURLPrefix, `"`+e.ref(""))
		if json.Unmarshal([]byte(text), &s) != nil {
			continue // a model of another content type, not JSON
		}
		if sm, ok := s.(map[string]any); ok {
			delete(sm, "$schema")
		}
		schemas[m.Name] = s
	}
	sec := e.securitySchemes()
	if e.o.Swagger {
		if len(schemas) > 0 {
			doc["definitions"] = schemas
		}
		if len(sec) > 0 {
			doc["securityDefinitions"] = sec
		}
	} else {
		comp := obj{}
		if len(schemas) > 0 {
			comp["schemas"] = schemas
		}
		if len(sec) > 0 {
			comp["securitySchemes"] = sec
		}
		doc["components"] = comp
	}
	if e.o.APIGateway {
		e.apiExtensions(doc)
	}
	return doc
}

func (e exporter) apiExtensions(doc obj) {
	a := e.api
	if a.APIKeySource != "" {
		doc[extAPIKeySource] = a.APIKeySource
	}
	if len(a.BinaryMediaTypes) > 0 {
		doc[extBinaryMediaTypes] = a.BinaryMediaTypes
	}
	if a.MinimumCompressionSize != nil {
		doc[extMinCompression] = *a.MinimumCompressionSize
	}
	if len(a.EndpointTypes) > 0 {
		ec := obj{"types": a.EndpointTypes}
		if len(a.VpcEndpointIDs) > 0 {
			ec["vpcEndpointIds"] = a.VpcEndpointIDs
		}
		if a.DisableExecuteAPIEndpoint {
			ec["disableExecuteApiEndpoint"] = true
		}
		doc[extEndpointConfig] = ec
	}
	if a.Policy != "" {
		if json.Valid([]byte(a.Policy)) {
			doc[extPolicy] = json.RawMessage(a.Policy)
		} else {
			doc[extPolicy] = a.Policy
		}
	}
	if len(a.Validators) > 0 {
		vs := obj{}
		for _, v := range a.Validators {
			vs[v.Name] = obj{"validateRequestBody": v.ValidateRequestBody, "validateRequestParameters": v.ValidateRequestParameters}
		}
		doc[extValidators] = vs
	}
	if len(a.GatewayResponses) > 0 {
		gs := obj{}
		for _, g := range a.GatewayResponses {
			x := obj{}
			if g.StatusCode != "" {
				x["statusCode"] = g.StatusCode
			}
			if len(g.ResponseParameters) > 0 {
				x["responseParameters"] = g.ResponseParameters
			}
			if len(g.ResponseTemplates) > 0 {
				x["responseTemplates"] = g.ResponseTemplates
			}
			gs[g.ResponseType] = x
		}
		doc[extGatewayResponses] = gs
	}
}

// securitySchemes are the API key's scheme (when a method requires a key)
// and, with authorizers, one scheme per authorizer.
func (e exporter) securitySchemes() obj {
	sec := obj{}
	for _, r := range e.api.Resources {
		for _, m := range r.Methods {
			if m.APIKeyRequired {
				sec["api_key"] = obj{"type": "apiKey", "name": "x-api-key", "in": "header"}
			}
		}
	}
	if !e.o.Authorizers {
		return sec
	}
	for _, a := range e.api.Authorizers {
		az := obj{"type": strings.ToLower(a.Type)}
		set := func(k, v string) {
			if v != "" {
				az[k] = v
			}
		}
		set("authorizerUri", a.AuthorizerURI)
		set("authorizerCredentials", a.AuthorizerCredentials)
		set("identitySource", a.IdentitySource)
		set("identityValidationExpression", a.IdentityValidationExpression)
		if a.AuthorizerResultTTLInSeconds != nil {
			az["authorizerResultTtlInSeconds"] = *a.AuthorizerResultTTLInSeconds
		}
		if len(a.ProviderARNs) > 0 {
			az["providerARNs"] = a.ProviderARNs
		}
		header := "Unused"
		if h, ok := strings.CutPrefix(a.IdentitySource, "method.request.header."); ok && !strings.Contains(h, ",") {
			header = h
		}
		s := obj{"type": "apiKey", "name": header, "in": "header", extAuthorizer: az}
		if a.AuthType != "" {
			s[extAuthType] = a.AuthType
		}
		sec[a.Name] = s
	}
	return sec
}

func (e exporter) operation(m Method) obj {
	op := obj{}
	if m.OperationName != "" {
		op["operationId"] = m.OperationName
	}
	var params []obj
	for _, k := range sorted(m.RequestParameters) {
		rest, ok := strings.CutPrefix(k, "method.request.")
		if !ok {
			continue
		}
		loc, name, _ := strings.Cut(rest, ".")
		in := map[string]string{"path": "path", "querystring": "query", "header": "header"}[loc]
		if in == "" {
			continue
		}
		p := obj{"name": name, "in": in}
		if m.RequestParameters[k] || in == "path" {
			p["required"] = true
		}
		if e.o.Swagger {
			p["type"] = "string"
		} else {
			p["schema"] = obj{"type": "string"}
		}
		params = append(params, p)
	}
	if len(m.RequestModels) > 0 {
		if e.o.Swagger {
			cts := sorted(m.RequestModels)
			op["consumes"] = cts
			params = append(params, obj{"in": "body", "name": m.RequestModels[cts[0]], "required": true,
				"schema": obj{"$ref": e.ref(m.RequestModels[cts[0]])}})
		} else {
			content := obj{}
			for ct, model := range m.RequestModels {
				content[ct] = obj{"schema": obj{"$ref": e.ref(model)}}
			}
			op["requestBody"] = obj{"content": content, "required": true}
		}
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	responses := obj{}
	for _, r := range m.Responses {
		x := obj{"description": r.StatusCode + " response"}
		if len(r.ResponseParameters) > 0 {
			hs := obj{}
			for k := range r.ResponseParameters {
				if h, ok := strings.CutPrefix(k, "method.response.header."); ok {
					if e.o.Swagger {
						hs[h] = obj{"type": "string"}
					} else {
						hs[h] = obj{"schema": obj{"type": "string"}}
					}
				}
			}
			x["headers"] = hs
		}
		if len(r.ResponseModels) > 0 {
			cts := sorted(r.ResponseModels)
			if e.o.Swagger {
				x["schema"] = obj{"$ref": e.ref(r.ResponseModels[cts[0]])}
				op["produces"] = cts
			} else {
				content := obj{}
				for _, ct := range cts {
					content[ct] = obj{"schema": obj{"$ref": e.ref(r.ResponseModels[ct])}}
				}
				x["content"] = content
			}
		}
		responses[r.StatusCode] = x
	}
	op["responses"] = responses
	var security []obj
	if m.APIKeyRequired {
		security = append(security, obj{"api_key": []string{}})
	}
	if m.Authorizer != "" && e.o.Authorizers {
		scopes := m.AuthorizationScopes
		if scopes == nil {
			scopes = []string{}
		}
		security = append(security, obj{m.Authorizer: scopes})
	}
	if len(security) > 0 {
		op["security"] = security
	}
	if e.o.APIGateway && m.Validator != "" {
		op[extValidator] = m.Validator
	}
	if e.o.Integrations && m.Integration != nil {
		op[extIntegration] = integrationExtension(m.Integration)
	}
	return op
}

func integrationExtension(it *Integration) obj {
	x := obj{"type": strings.ToLower(it.Type)}
	set := func(k, v string) {
		if v != "" {
			x[k] = v
		}
	}
	set("httpMethod", it.HTTPMethod)
	set("uri", it.URI)
	set("connectionType", it.ConnectionType)
	set("connectionId", it.ConnectionID)
	set("credentials", it.Credentials)
	set("passthroughBehavior", strings.ToLower(it.PassthroughBehavior))
	set("contentHandling", it.ContentHandling)
	set("cacheNamespace", it.CacheNamespace)
	if it.TimeoutInMillis != nil {
		x["timeoutInMillis"] = *it.TimeoutInMillis
	}
	if len(it.CacheKeyParameters) > 0 {
		x["cacheKeyParameters"] = it.CacheKeyParameters
	}
	if len(it.RequestParameters) > 0 {
		x["requestParameters"] = it.RequestParameters
	}
	if len(it.RequestTemplates) > 0 {
		x["requestTemplates"] = it.RequestTemplates
	}
	if it.InsecureSkipVerification != nil {
		x["tlsConfig"] = obj{"insecureSkipVerification": *it.InsecureSkipVerification}
	}
	if len(it.Responses) > 0 {
		rs := obj{}
		for _, r := range it.Responses {
			y := obj{"statusCode": r.StatusCode}
			if len(r.ResponseParameters) > 0 {
				y["responseParameters"] = r.ResponseParameters
			}
			if len(r.ResponseTemplates) > 0 {
				y["responseTemplates"] = r.ResponseTemplates
			}
			if r.ContentHandling != "" {
				y["contentHandling"] = r.ContentHandling
			}
			key := "default"
			if r.SelectionPattern != nil && *r.SelectionPattern != "" {
				key = *r.SelectionPattern
			}
			rs[key] = y
		}
		x["responses"] = rs
	}
	return x
}
