package apigatewayv2

import (
	"errors"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/oashttp"
)

// ImportApi and ReimportApi: an OpenAPI description (read by oashttp)
// becomes an HTTP API's routes, integrations and authorizers in one write
// of its owner, each checked by the rules CreateRoute, CreateIntegration
// and CreateAuthorizer apply, so an imported API is one built by hand.

const (
	importMsgWarnings = "Warnings found during import:\n\t%s"
	importMsgHTTPOnly = "Reimport is supported only for HTTP APIs"
	importMsgAt       = "%s (at %s)"
	// importAPIParts are where the Api's own members come from.
	importAPIParts = "info, x-amazon-apigateway-cors"
)

// ImportError turns a document oashttp refused into the BadRequestException
// AWS answers, naming where the document failed.
func ImportError(err error) error {
	var e *oashttp.Error
	if errors.As(err, &e) {
		return BadRequest("%s", e.Error())
	}
	return err
}

// importAPIInput is the Api part of the description, as CreateApi takes it.
func importAPIInput(doc *oashttp.API) APIInput {
	proto := apisHTTP
	name, desc, version := doc.Name, doc.Description, doc.Version
	in := APIInput{Name: &name, Description: &desc, Version: &version, ProtocolType: &proto,
		DisableExecuteAPIEndpoint: doc.DisableExecuteAPIEndpoint}
	if c := doc.CORS; c != nil {
		in.CorsConfiguration = &Cors{AllowCredentials: c.AllowCredentials, AllowHeaders: c.AllowHeaders, AllowMethods: c.AllowMethods,
			AllowOrigins: c.AllowOrigins, ExposeHeaders: c.ExposeHeaders, MaxAge: c.MaxAge}
	}
	return in
}

func importCheckWarnings(doc *oashttp.API, failOnWarnings bool) error {
	if failOnWarnings && len(doc.Warnings) > 0 {
		return BadRequest(importMsgWarnings, strings.Join(doc.Warnings, "\n\t"))
	}
	return nil
}

// ImportAPI creates an HTTP API from doc. With failOnWarnings, a document
// AWS would warn about is refused.
func (s *Service) ImportAPI(sc awswire.Scope, doc *oashttp.API, failOnWarnings bool) (*HTTPAPI, error) {
	if err := importCheckWarnings(doc, failOnWarnings); err != nil {
		return nil, err
	}
	in := importAPIInput(doc)
	api := API{
		APIKeySelectionExpression: apisAPIKeySelection,
		CreatedDate:               awswire.ISOTime(s.Now().UnixMilli()),
		IPAddressType:             apisDefaultIPAddressType,
		ProtocolType:              apisHTTP,
		RouteSelectionExpression:  apisRouteSelection,
		Tags:                      map[string]string{},
		Warnings:                  slices.Clone(doc.Warnings),
	}
	if err := apisApply(&api, &in); err != nil {
		return nil, at(err, importAPIParts)
	}
	return s.CreateAPI(sc, api, func(t *Tx) error { return importConfig(t, doc) })
}

// ReimportAPI replaces the routes, integrations and authorizers of HTTP API
// id with doc's, and its name, description, version and CORS; the id,
// stages, deployments and tags stay.
func (s *Service) ReimportAPI(sc awswire.Scope, id string, doc *oashttp.API, failOnWarnings bool) (API, error) {
	if err := importCheckWarnings(doc, failOnWarnings); err != nil {
		return API{}, err
	}
	return Mutate(s, sc, id, func(t *Tx) (API, error) {
		st := t.State()
		if st.API.ProtocolType != apisHTTP {
			return API{}, BadRequest(importMsgHTTPOnly)
		}
		for rid := range st.Routes.All() {
			t.DeleteRoute(rid)
		}
		for iid := range st.Integrations.All() {
			t.DeleteIntegration(iid)
		}
		for aid := range st.Authorizers.All() {
			t.DeleteAuthorizer(aid)
		}
		a := st.API
		a.CorsConfiguration = nil
		a.Warnings = slices.Clone(doc.Warnings)
		in := importAPIInput(doc)
		if err := apisApply(&a, &in); err != nil {
			return API{}, at(err, importAPIParts)
		}
		t.SetAPI(a)
		if err := importConfig(t, doc); err != nil {
			return API{}, err
		}
		return a, nil
	})
}

// at names the part of the document a refused resource came from.
func at(err error, where string) error {
	var e *awswire.Error
	if errors.As(err, &e) {
		return BadRequest(importMsgAt, e.Message, where)
	}
	return err
}

// importConfig adds doc's authorizers, integrations and routes to the API
// being written by t.
func importConfig(t *Tx, doc *oashttp.API) error {
	authIDs := map[string]string{}
	for _, d := range doc.Authorizers {
		in := AuthorizerInput{Name: &d.Name, AuthorizerType: &d.Type, IdentitySource: d.IdentitySource,
			AuthorizerResultTTLInSeconds: d.ResultTTLInSeconds, EnableSimpleResponses: d.EnableSimpleResponses}
		if d.URI != "" {
			in.AuthorizerURI = &d.URI
		}
		if d.Credentials != "" {
			in.AuthorizerCredentialsARN = &d.Credentials
		}
		if d.PayloadFormatVersion != "" {
			in.AuthorizerPayloadFormatVersion = &d.PayloadFormatVersion
		}
		if d.Issuer != "" || len(d.Audience) > 0 {
			in.JWTConfiguration = &JWTConfiguration{Issuer: d.Issuer, Audience: d.Audience}
		}
		a := &Authorizer{}
		authApply(a, in)
		if err := authCheck(apisHTTP, a); err != nil {
			return at(err, "components.securitySchemes."+d.Name)
		}
		a.AuthorizerID = NewID(6, func(id string) bool { _, taken := t.State().Authorizers.Get(id); return taken })
		t.PutAuthorizer(a)
		authIDs[d.Name] = a.AuthorizerID
	}
	integrationIDs := make([]string, len(doc.Integrations))
	for i, d := range doc.Integrations {
		in := IntegrationInput{IntegrationType: &d.Type, RequestParameters: d.RequestParameters,
			ResponseParameters: d.ResponseParameters, TimeoutInMillis: d.TimeoutInMillis}
		for _, m := range []struct {
			dst **string
			v   string
		}{
			{&in.IntegrationMethod, d.HTTPMethod}, {&in.IntegrationURI, d.URI}, {&in.PayloadFormatVersion, d.PayloadFormatVersion},
			{&in.ConnectionType, d.ConnectionType}, {&in.ConnectionID, d.ConnectionID}, {&in.CredentialsARN, d.Credentials},
			{&in.Description, d.Description}, {&in.IntegrationSubtype, d.Subtype},
		} {
			if m.v != "" {
				v := m.v
				*m.dst = &v
			}
		}
		if d.TLSConfig != nil {
			in.TLSConfig = &TLSConfig{ServerNameToVerify: d.TLSConfig.ServerNameToVerify}
		}
		it := &Integration{}
		if err := apply(t, it, in, true); err != nil {
			return at(err, "integration of "+importRouteOf(doc, i))
		}
		it.IntegrationID = NextIntegrationID(t.State())
		it.Seq = nextSeq(t)
		t.PutIntegration(it)
		integrationIDs[i] = it.IntegrationID
	}
	for _, d := range doc.Routes {
		in := RouteInput{RouteKey: &d.Key, AuthorizationType: &d.AuthorizationType, AuthorizationScopes: d.Scopes}
		if d.Integration >= 0 {
			target := routeTargetPrefix + integrationIDs[d.Integration]
			in.Target = &target
		}
		if d.Authorizer != "" {
			id := authIDs[d.Authorizer]
			in.AuthorizerID = &id
		}
		if d.OperationName != "" {
			in.OperationName = &d.OperationName
		}
		r := &Route{AuthorizationType: routeAuthNone}
		if err := routeApply(t, r, &in, true); err != nil {
			return at(err, "route "+d.Key)
		}
		r.RouteID = routeNewID(t)
		t.PutRoute(r)
	}
	return nil
}

// importRouteOf names the first route using integration i.
func importRouteOf(doc *oashttp.API, i int) string {
	for _, r := range doc.Routes {
		if r.Integration == i {
			return "route " + r.Key
		}
	}
	return "the document"
}
