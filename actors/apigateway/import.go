package apigateway

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/oasrest"
)

// ImportMode is how PutRestApi applies a document to an existing API.
type ImportMode string

// The modes of PutRestApi; ImportRestApi builds a new API as overwrite
// would.
const (
	ImportMerge     ImportMode = "merge"
	ImportOverwrite ImportMode = "overwrite"
)

// importError is AWS's wording for a document it read but could not
// import: every refusal is a 400 naming where it failed.
func importError(err error, format string, args ...any) error {
	msg := err.Error()
	var e *awswire.Error
	if errors.As(err, &e) {
		msg = e.Message
	}
	return BadRequest("Errors found during import:\n\t%s: %s", fmt.Sprintf(format, args...), msg)
}

// ImportRestAPI creates a REST API from a parsed OpenAPI document (see
// package oasrest): the API, its resources, methods, integrations, models,
// authorizers, validators and gateway responses, in one write of the new
// API's owner. A document the rules of the individual calls refuse creates
// nothing.
func (s *Service) ImportRestAPI(sc awswire.Scope, doc *oasrest.API) (*RestAPI, error) {
	in := RestAPIInput{Name: &doc.Name, Version: doc.Version, BinaryMediaTypes: doc.BinaryMediaTypes,
		MinimumCompressionSize: doc.MinimumCompressionSize, APIKeySource: doc.APIKeySource,
		DisableExecuteAPIEndpoint: doc.DisableExecuteAPIEndpoint, Policy: doc.Policy}
	if doc.Description != "" {
		in.Description = &doc.Description
	}
	if len(doc.EndpointTypes) > 0 || len(doc.VpcEndpointIDs) > 0 {
		in.EndpointConfiguration = &EndpointConfiguration{Types: doc.EndpointTypes, VpcEndpointIDs: doc.VpcEndpointIDs}
	}
	api, err := s.checkRestAPI(in)
	if err != nil {
		return nil, importError(err, "Unable to create the API '%s'", doc.Name)
	}
	return s.CreateRestAPI(sc, api, func(t *Tx) error {
		DefaultModels(t)
		return applyDocument(t, doc, ImportOverwrite)
	})
}

// PutRestAPI applies a document to API id: overwrite replaces its
// configuration with the document's, merge adds and replaces what the
// document has and keeps the rest. Stages and deployments stay.
func (s *Service) PutRestAPI(sc awswire.Scope, id string, mode ImportMode, doc *oasrest.API) (*RestAPI, error) {
	if mode != ImportMerge && mode != ImportOverwrite {
		return nil, BadRequest("Invalid mode specified: %s. Valid options are merge,overwrite", mode)
	}
	return Mutate(s, sc, id, func(t *Tx) (*RestAPI, error) {
		a := t.State().API
		if mode == ImportOverwrite {
			clearConfig(t)
			if doc.Name != "" {
				a.Name = doc.Name
			}
			a.Description, a.Version = doc.Description, doc.Version
			a.BinaryMediaTypes = slices.Clone(doc.BinaryMediaTypes)
			a.MinimumCompressionSize = doc.MinimumCompressionSize
			a.APIKeySource = "HEADER"
		} else {
			if doc.Description != "" {
				a.Description = doc.Description
			}
			if doc.Version != "" {
				a.Version = doc.Version
			}
			for _, mt := range doc.BinaryMediaTypes {
				if !slices.Contains(a.BinaryMediaTypes, mt) {
					a.BinaryMediaTypes = append(slices.Clip(a.BinaryMediaTypes), mt)
				}
			}
			if doc.MinimumCompressionSize != nil {
				a.MinimumCompressionSize = doc.MinimumCompressionSize
			}
		}
		if doc.Policy != "" {
			if err := checkPolicy(doc.Policy); err != nil {
				return nil, importError(err, "Unable to update the API")
			}
			a.Policy = doc.Policy
		}
		switch doc.APIKeySource {
		case "":
		case "HEADER", "AUTHORIZER":
			a.APIKeySource = doc.APIKeySource
		default:
			return nil, importError(BadRequest("Invalid API Key Source specified. Valid options are HEADER,AUTHORIZER"), "Unable to update the API")
		}
		if n := a.MinimumCompressionSize; n != nil && (*n < 0 || *n > 10485760) {
			return nil, importError(BadRequest("Invalid minimum compression size, must be between 0 and 10485760"), "Unable to update the API")
		}
		t.SetAPI(a)
		if mode == ImportOverwrite {
			DefaultModels(t)
		}
		if err := applyDocument(t, doc, mode); err != nil {
			return nil, err
		}
		return t.State(), nil
	})
}

// clearConfig removes every resource but the root (whose methods go too),
// model, authorizer, validator and gateway response of the API.
func clearConfig(t *Tx) {
	st := t.State()
	rootID := st.API.RootResourceID
	for id, r := range st.Resources.All() {
		if id == rootID {
			c := *r
			c.Methods = nil
			t.PutResource(&c)
			continue
		}
		t.DeleteResource(id)
	}
	for name := range st.Models.All() {
		t.DeleteModel(name)
	}
	for id := range st.Authorizers.All() {
		t.DeleteAuthorizer(id)
	}
	for id := range st.Validators.All() {
		t.DeleteValidator(id)
	}
	for rt := range st.GatewayResponses.All() {
		t.DeleteGatewayResponse(rt)
	}
}

// applyDocument puts the document's configuration into t, each part
// checked by the rules of the call that would have created it.
func applyDocument(t *Tx, doc *oasrest.API, mode ImportMode) error {
	if err := importModels(t, doc); err != nil {
		return err
	}
	validatorIDs, err := importValidators(t, doc)
	if err != nil {
		return err
	}
	authorizerIDs, err := importAuthorizers(t, doc)
	if err != nil {
		return err
	}
	if err := importGatewayResponses(t, doc); err != nil {
		return err
	}
	return importResources(t, doc, mode, validatorIDs, authorizerIDs)
}

func importModels(t *Tx, doc *oasrest.API) error {
	prefix := strings.ReplaceAll(oasrest.ModelURLPrefix, oasrest.RestAPIIDPlaceholder, t.State().API.ID)
	// Model ids in use, gathered once: a document may hold thousands.
	taken := map[string]bool{}
	for _, m := range t.State().Models.All() {
		taken[m.ID] = true
	}
	// All models first: their schemas may name one another, in any order
	// and in cycles.
	for _, dm := range doc.Models {
		m := &Model{Name: dm.Name, Description: dm.Description, ContentType: dm.ContentType,
			Schema: strings.ReplaceAll(dm.Schema, oasrest.ModelURLPrefix, prefix)}
		if !modelNameRe.MatchString(m.Name) {
			return importError(BadRequest("Model name must be alphanumeric: %s", m.Name), "Unable to create model '%s'", m.Name)
		}
		if old, ok := t.State().Models.Get(m.Name); ok {
			m.ID = old.ID
		} else {
			m.ID = NewID(6, func(id string) bool { return taken[id] })
		}
		taken[m.ID] = true
		t.PutModel(m)
	}
	for _, dm := range doc.Models {
		m, _ := t.State().Models.Get(dm.Name)
		node, err := checkModelSchema(m.ContentType, m.Schema)
		if err == nil && node != nil {
			err = checkModelRefs(t.State(), node)
		}
		if err != nil {
			return importError(err, "Unable to create model '%s'", m.Name)
		}
	}
	return nil
}

func importValidators(t *Tx, doc *oasrest.API) (map[string]string, error) {
	ids := map[string]string{}
	for _, v := range t.State().Validators.All() {
		ids[v.Name] = v.ID
	}
	for _, dv := range doc.Validators {
		v := &RequestValidator{ID: ids[dv.Name], Name: dv.Name, ValidateRequestBody: dv.ValidateRequestBody,
			ValidateRequestParameters: dv.ValidateRequestParameters}
		if v.ID == "" {
			v.ID = NewID(6, func(id string) bool { _, ok := t.State().Validators.Get(id); return ok })
		}
		ids[v.Name] = v.ID
		t.PutValidator(v)
	}
	return ids, nil
}

func importAuthorizers(t *Tx, doc *oasrest.API) (map[string]string, error) {
	ids := map[string]string{}
	for _, a := range t.State().Authorizers.All() {
		ids[a.Name] = a.ID
	}
	for _, da := range doc.Authorizers {
		a := &Authorizer{ID: ids[da.Name], Name: da.Name, Type: da.Type, AuthType: da.AuthType,
			AuthorizerURI: da.AuthorizerURI, AuthorizerCredentials: da.AuthorizerCredentials,
			IdentitySource: da.IdentitySource, IdentityValidationExpression: da.IdentityValidationExpression,
			AuthorizerResultTTLInSeconds: da.AuthorizerResultTTLInSeconds, ProviderARNs: slices.Clone(da.ProviderARNs)}
		if !slices.Contains(authorizerTypes, a.Type) {
			return nil, importError(BadRequest("Invalid authorizer type specified: %s. Valid options are %s", a.Type, strings.Join(authorizerTypes, ",")),
				"Unable to create authorizer '%s'", a.Name)
		}
		if a.AuthType == "" {
			a.AuthType = defaultAuthorizerAuthType(a.Type)
		}
		if err := checkAuthorizer(a); err != nil {
			return nil, importError(err, "Unable to create authorizer '%s'", a.Name)
		}
		if a.ID == "" {
			a.ID = NewID(6, authorizerIDTaken(t.State()))
		}
		ids[a.Name] = a.ID
		t.PutAuthorizer(a)
	}
	return ids, nil
}

func importGatewayResponses(t *Tx, doc *oasrest.API) error {
	for _, dg := range doc.GatewayResponses {
		where := fmt.Sprintf("Unable to put gateway response '%s'", dg.ResponseType)
		if !IsGatewayResponseType(dg.ResponseType) {
			return importError(BadRequest("Invalid response type specified: %s", dg.ResponseType), "%s", where)
		}
		if dg.StatusCode != "" && !StatusCodePattern.MatchString(dg.StatusCode) {
			return importError(BadRequest("Invalid status code specified: %s", dg.StatusCode), "%s", where)
		}
		g := DefaultGatewayResponse(dg.ResponseType)
		g.DefaultResponse = false
		if dg.StatusCode != "" {
			g.StatusCode = dg.StatusCode
		}
		if dg.ResponseParameters != nil {
			g.ResponseParameters = maps.Clone(dg.ResponseParameters)
		}
		if dg.ResponseTemplates != nil {
			g.ResponseTemplates = maps.Clone(dg.ResponseTemplates)
		}
		t.PutGatewayResponse(g)
	}
	return nil
}

// importResources finds or creates each resource by path (parents come
// first in the document's list) and puts its methods.
func importResources(t *Tx, doc *oasrest.API, mode ImportMode, validatorIDs, authorizerIDs map[string]string) error {
	byPath := map[string]*Resource{}
	for _, r := range t.State().Resources.All() {
		byPath[r.Path] = r
	}
	for _, dr := range doc.Resources {
		r, ok := byPath[dr.Path]
		if !ok {
			parentPath, part := dr.Path[:strings.LastIndexByte(dr.Path, '/')], dr.Path[strings.LastIndexByte(dr.Path, '/')+1:]
			if parentPath == "" {
				parentPath = "/"
			}
			parent, ok := byPath[parentPath]
			if !ok {
				return importError(notFound(msgResourceNotFound), "Unable to create resource at path '%s'", dr.Path)
			}
			if err := checkPlacement(&t.State().Config, parent, part, ""); err != nil {
				return importError(err, "Unable to create resource at path '%s'", dr.Path)
			}
			r = &Resource{ID: NewID(10, func(id string) bool { _, ok := t.State().Resources.Get(id); return ok }),
				ParentID: parent.ID, PathPart: part, Path: childPath(parent.Path, part)}
			t.PutResource(r)
			byPath[r.Path] = r
		}
		if len(dr.Methods) == 0 {
			continue
		}
		c := *r
		c.Methods = maps.Clone(r.Methods)
		if c.Methods == nil {
			c.Methods = map[string]*Method{}
		}
		for _, dm := range dr.Methods {
			m, err := importMethod(t, &c, dm, validatorIDs, authorizerIDs)
			if err != nil {
				return err
			}
			c.Methods[dm.HTTPMethod] = m
		}
		t.PutResource(&c)
		byPath[c.Path] = &c
	}
	return nil
}

func importMethod(t *Tx, r *Resource, dm oasrest.Method, validatorIDs, authorizerIDs map[string]string) (*Method, error) {
	st := t.State()
	where := fmt.Sprintf("Unable to put method '%s' on resource at path '%s'", dm.HTTPMethod, r.Path)
	m := &Method{HTTPMethod: dm.HTTPMethod, AuthorizationType: dm.AuthorizationType, APIKeyRequired: dm.APIKeyRequired,
		OperationName: dm.OperationName, RequestParameters: maps.Clone(dm.RequestParameters),
		RequestModels: maps.Clone(dm.RequestModels), AuthorizationScopes: slices.Clone(dm.AuthorizationScopes)}
	if dm.Authorizer != "" {
		m.AuthorizerID = authorizerIDs[dm.Authorizer]
	}
	if dm.Validator != "" {
		m.RequestValidatorID = validatorIDs[dm.Validator]
	}
	if !httpMethods[m.HTTPMethod] {
		return nil, importError(BadRequest(msgHTTPMethod), "%s", where)
	}
	if !authorizationTypes[m.AuthorizationType] {
		return nil, importError(BadRequest(msgAuthorizationType), "%s", where)
	}
	if err := checkMethodParams(m.RequestParameters); err != nil {
		return nil, importError(err, "%s", where)
	}
	if err := checkMethodAuth(st, m); err != nil {
		return nil, importError(err, "%s", where)
	}
	if err := checkModels(st, m.RequestModels); err != nil {
		return nil, importError(err, "%s", where)
	}
	for _, dr := range dm.Responses {
		rw := fmt.Sprintf("Unable to put method response '%s' of method '%s' on resource at path '%s'", dr.StatusCode, m.HTTPMethod, r.Path)
		if err := checkStatusCode(dr.StatusCode); err != nil {
			return nil, importError(err, "%s", rw)
		}
		if err := checkResponseParamNames(sortedKeys(dr.ResponseParameters)); err != nil {
			return nil, importError(err, "%s", rw)
		}
		if err := checkModels(st, dr.ResponseModels); err != nil {
			return nil, importError(err, "%s", rw)
		}
		if m.MethodResponses == nil {
			m.MethodResponses = map[string]*MethodResponse{}
		}
		m.MethodResponses[dr.StatusCode] = &MethodResponse{StatusCode: dr.StatusCode,
			ResponseParameters: maps.Clone(dr.ResponseParameters), ResponseModels: maps.Clone(dr.ResponseModels)}
	}
	if dm.Integration != nil {
		it, err := importIntegration(r, m, dm.Integration)
		if err != nil {
			return nil, err
		}
		m.Integration = it
	}
	return m, nil
}

func importIntegration(r *Resource, m *Method, di *oasrest.Integration) (*Integration, error) {
	where := fmt.Sprintf("Unable to put integration on '%s' for resource at path '%s'", m.HTTPMethod, r.Path)
	if integrationKinds[di.Type] == "" {
		return nil, importError(BadRequest("Invalid integration type specified: %s. Valid options are HTTP,MOCK,AWS_PROXY,HTTP_PROXY,AWS",
			nullIfEmpty(di.Type)), "%s", where)
	}
	for _, v := range []struct {
		name, val string
		ok        []string
	}{
		{"connectionType", di.ConnectionType, connectionTypes},
		{"contentHandling", di.ContentHandling, contentHandlings},
	} {
		if v.val != "" && !slices.Contains(v.ok, v.val) {
			return nil, importError(BadRequest("Invalid %s specified: %s. Valid options are %s", v.name, v.val, strings.Join(v.ok, ",")), "%s", where)
		}
	}
	it := &Integration{Type: di.Type, HTTPMethod: di.HTTPMethod, URI: di.URI, ConnectionType: di.ConnectionType,
		ConnectionID: di.ConnectionID, Credentials: di.Credentials, RequestParameters: maps.Clone(di.RequestParameters),
		RequestTemplates: Templates(maps.Clone(di.RequestTemplates)), PassthroughBehavior: di.PassthroughBehavior,
		ContentHandling: di.ContentHandling, TimeoutInMillis: defaultTimeoutMillis, CacheNamespace: di.CacheNamespace,
		CacheKeyParameters: slices.Clone(di.CacheKeyParameters)}
	if di.TimeoutInMillis != nil {
		it.TimeoutInMillis = *di.TimeoutInMillis
	}
	if it.PassthroughBehavior == "" {
		it.PassthroughBehavior = defaultPassthrough
	}
	if it.CacheNamespace == "" {
		it.CacheNamespace = r.ID
	}
	if it.CacheKeyParameters == nil {
		it.CacheKeyParameters = []string{}
	}
	if di.InsecureSkipVerification != nil {
		it.TLSConfig = &TLSConfig{InsecureSkipVerification: *di.InsecureSkipVerification}
	}
	settleIntegration(it)
	if err := checkIntegration(m, it); err != nil {
		return nil, importError(err, "%s", where)
	}
	for _, dr := range di.Responses {
		rw := fmt.Sprintf("Unable to put integration response '%s' on '%s' for resource at path '%s'", dr.StatusCode, m.HTTPMethod, r.Path)
		if !StatusCodePattern.MatchString(dr.StatusCode) {
			return nil, importError(BadRequest("Invalid status code specified: %s", dr.StatusCode), "%s", rw)
		}
		if dr.ContentHandling != "" && !slices.Contains(contentHandlings, dr.ContentHandling) {
			return nil, importError(BadRequest("Invalid contentHandling specified: %s", dr.ContentHandling), "%s", rw)
		}
		if err := checkContentTypes(dr.ResponseTemplates); err != nil {
			return nil, importError(err, "%s", rw)
		}
		if err := checkResponseParamNames(sortedKeys(dr.ResponseParameters)); err != nil {
			return nil, importError(err, "%s", rw)
		}
		if it.IntegrationResponses == nil {
			it.IntegrationResponses = map[string]*IntegrationResponse{}
		}
		it.IntegrationResponses[dr.StatusCode] = &IntegrationResponse{StatusCode: dr.StatusCode, SelectionPattern: dr.SelectionPattern,
			ResponseParameters: maps.Clone(dr.ResponseParameters), ResponseTemplates: Templates(maps.Clone(dr.ResponseTemplates)),
			ContentHandling: dr.ContentHandling}
	}
	return it, nil
}
