package oashttp

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// ExportOptions say how Export writes the document.
type ExportOptions struct {
	// ServerURL is the servers entry's URL, ending in "/{basePath}";
	// BasePath is that variable's default (the stage, or "").
	ServerURL string
	BasePath  string
	// YAML writes YAML instead of JSON.
	YAML bool
	// IncludeExtensions writes the x-amazon-apigateway-* extensions; without
	// them ANY and $default routes, which only an extension can say, are
	// left out.
	IncludeExtensions bool
}

// Export writes api as an OpenAPI 3.0 document the way API Gateway exports
// an HTTP API.
func Export(api *API, o ExportOptions) ([]byte, error) {
	info := map[string]any{"title": api.Name, "version": api.Version}
	if api.Description != "" {
		info["description"] = api.Description
	}
	doc := map[string]any{"openapi": "3.0.1", "info": info}
	if o.ServerURL != "" {
		doc["servers"] = []any{map[string]any{
			"url":       o.ServerURL,
			"variables": map[string]any{"basePath": map[string]any{"default": o.BasePath}},
		}}
	}
	paths := map[string]any{}
	for _, r := range api.Routes {
		method, path, ok := strings.Cut(r.Key, " ")
		if r.Key == defaultRouteKey {
			method, path, ok = "ANY", defaultRouteKey, true
		}
		if !ok {
			continue
		}
		op, opKey := exportOperation(api, r, o.IncludeExtensions), strings.ToLower(method)
		if method == "ANY" {
			if !o.IncludeExtensions {
				continue
			}
			opKey = extAnyMethod
		}
		if path != defaultRouteKey {
			if params := pathParameters(path); len(params) > 0 {
				op["parameters"] = params
			}
		}
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		item[opKey] = op
	}
	doc["paths"] = paths
	if schemes := exportSchemes(api, o.IncludeExtensions); len(schemes) > 0 {
		doc["components"] = map[string]any{"securitySchemes": schemes}
	}
	if o.IncludeExtensions {
		doc[extVersion] = "1.0"
		if api.CORS != nil {
			doc[extCORS] = api.CORS
		}
		if d := api.DisableExecuteAPIEndpoint; d != nil && *d {
			doc[extDisableExec] = true
		}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("oashttp: export: %w", err)
	}
	if o.YAML {
		if b, err = yaml.JSONToYAML(b); err != nil {
			return nil, fmt.Errorf("oashttp: export: %w", err)
		}
	}
	return b, nil
}

func exportOperation(api *API, r Route, ext bool) map[string]any {
	op := map[string]any{
		"responses": map[string]any{"default": map[string]any{"description": "Default response for " + r.Key}},
	}
	if r.OperationName != "" {
		op["operationId"] = r.OperationName
	}
	switch r.AuthorizationType {
	case "JWT", "CUSTOM":
		scopes := r.Scopes
		if scopes == nil {
			scopes = []string{}
		}
		op["security"] = []any{map[string]any{r.Authorizer: scopes}}
	case "AWS_IAM":
		op["security"] = []any{map[string]any{sigv4Scheme: []string{}}}
	}
	if ext && r.Integration >= 0 && r.Integration < len(api.Integrations) {
		in := api.Integrations[r.Integration]
		in.Type = strings.ToLower(in.Type)
		op[extIntegration] = in
	}
	return op
}

// sigv4Scheme is the security scheme AWS_IAM routes name on export.
const sigv4Scheme = "sigv4"

func exportSchemes(api *API, ext bool) map[string]any {
	out := map[string]any{}
	for _, a := range api.Authorizers {
		ae := map[string]any{"identitySource": strings.Join(a.IdentitySource, ", ")}
		var s map[string]any
		switch a.Type {
		case "JWT":
			s = map[string]any{"type": "oauth2", "flows": map[string]any{}}
			ae["type"] = "jwt"
			jc := map[string]any{}
			if a.Issuer != "" {
				jc["issuer"] = a.Issuer
			}
			if len(a.Audience) > 0 {
				jc["audience"] = a.Audience
			}
			ae["jwtConfiguration"] = jc
		default:
			s = map[string]any{"type": "apiKey", "name": headerName(a.IdentitySource), "in": "header"}
			ae["type"] = "request"
			ae["authorizerUri"] = a.URI
			if a.Credentials != "" {
				ae["authorizerCredentials"] = a.Credentials
			}
			if a.PayloadFormatVersion != "" {
				ae["authorizerPayloadFormatVersion"] = a.PayloadFormatVersion
			}
			if a.EnableSimpleResponses != nil {
				ae["enableSimpleResponses"] = *a.EnableSimpleResponses
			}
			if a.ResultTTLInSeconds != nil {
				ae["authorizerResultTtlInSeconds"] = *a.ResultTTLInSeconds
			}
		}
		if ext {
			s[extAuthorizer] = ae
		}
		out[a.Name] = s
	}
	for _, r := range api.Routes {
		if r.AuthorizationType == "AWS_IAM" {
			s := map[string]any{"type": "apiKey", "name": "Authorization", "in": "header"}
			if ext {
				s[extAuthType] = "awsSigv4"
			}
			out[sigv4Scheme] = s
			break
		}
	}
	return out
}

// headerName is the first header an identity source reads, as the apiKey
// scheme's name ("Unused" when it reads none, as AWS exports it).
func headerName(sources []string) string {
	for _, s := range sources {
		if h, ok := strings.CutPrefix(strings.TrimSpace(s), "$request.header."); ok {
			return h
		}
	}
	return "Unused"
}

// pathParameters lists a path's variables as OpenAPI path parameters.
func pathParameters(path string) []any {
	var out []any
	for _, seg := range strings.Split(path, "/") {
		if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
			out = append(out, map[string]any{
				"name": seg[1 : len(seg)-1], "in": "path", "required": true,
				"schema": map[string]any{"type": "string"},
			})
		}
	}
	return out
}
