package apigateway

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/oasrest"
)

// StageExport is what GetExport writes: the frozen configuration of a
// stage's deployment, described for package oasrest.
type StageExport struct {
	API        *oasrest.API
	Stage      string
	Deployment *Deployment
}

// ExportStage returns the description of the deployment stage serves.
func (s *Service) ExportStage(sc awswire.Scope, apiID, stage string) (*StageExport, error) {
	r, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	st, ok := r.Stages.Get(stage)
	if !ok {
		return nil, notFound("Invalid stage identifier specified")
	}
	d, ok := r.Deployments.Get(st.DeploymentID)
	if !ok || d.Frozen == nil {
		return nil, notFound("Invalid deployment identifier specified")
	}
	return &StageExport{API: Describe(d.Frozen), Stage: stage, Deployment: d}, nil
}

// Describe turns a configuration into the neutral description package
// oasrest writes (the inverse of the import).
func Describe(c *Config) *oasrest.API {
	a := c.API
	out := &oasrest.API{Name: a.Name, Description: a.Description, Version: a.Version, APIKeySource: a.APIKeySource,
		BinaryMediaTypes: slices.Clone(a.BinaryMediaTypes), MinimumCompressionSize: a.MinimumCompressionSize,
		DisableExecuteAPIEndpoint: a.DisableExecuteAPIEndpoint, Policy: a.Policy}
	if ec := a.EndpointConfiguration; ec != nil {
		out.EndpointTypes, out.VpcEndpointIDs = slices.Clone(ec.Types), slices.Clone(ec.VpcEndpointIDs)
	}
	prefix := strings.ReplaceAll(oasrest.ModelURLPrefix, oasrest.RestAPIIDPlaceholder, a.ID)
	for _, name := range slices.Sorted(c.Models.Keys()) {
		m, _ := c.Models.Get(name)
		out.Models = append(out.Models, oasrest.Model{Name: m.Name, Description: m.Description, ContentType: m.ContentType,
			Schema: strings.ReplaceAll(m.Schema, prefix, oasrest.ModelURLPrefix)})
	}
	validators := map[string]string{}
	for _, v := range c.Validators.All() {
		validators[v.ID] = v.Name
		out.Validators = append(out.Validators, oasrest.Validator{Name: v.Name, ValidateRequestBody: v.ValidateRequestBody,
			ValidateRequestParameters: v.ValidateRequestParameters})
	}
	authorizers := map[string]string{}
	for _, z := range c.Authorizers.All() {
		authorizers[z.ID] = z.Name
		out.Authorizers = append(out.Authorizers, oasrest.Authorizer{Name: z.Name, Type: z.Type, AuthType: z.AuthType,
			AuthorizerURI: z.AuthorizerURI, AuthorizerCredentials: z.AuthorizerCredentials, IdentitySource: z.IdentitySource,
			IdentityValidationExpression: z.IdentityValidationExpression, AuthorizerResultTTLInSeconds: z.AuthorizerResultTTLInSeconds,
			ProviderARNs: slices.Clone(z.ProviderARNs)})
	}
	for _, g := range c.GatewayResponses.All() {
		if g.DefaultResponse {
			continue
		}
		out.GatewayResponses = append(out.GatewayResponses, oasrest.GatewayResponse{ResponseType: g.ResponseType, StatusCode: g.StatusCode,
			ResponseParameters: maps.Clone(g.ResponseParameters), ResponseTemplates: maps.Clone(g.ResponseTemplates)})
	}
	for _, r := range ResourcesByPath(c.Resources) {
		dr := oasrest.Resource{Path: r.Path}
		for _, verb := range sortedMethodNames(r.Methods) {
			dr.Methods = append(dr.Methods, describeMethod(r.Methods[verb], validators, authorizers))
		}
		out.Resources = append(out.Resources, dr)
	}
	return out
}

func describeMethod(m *Method, validators, authorizers map[string]string) oasrest.Method {
	dm := oasrest.Method{HTTPMethod: m.HTTPMethod, OperationName: m.OperationName, AuthorizationType: m.AuthorizationType,
		Authorizer: authorizers[m.AuthorizerID], AuthorizationScopes: slices.Clone(m.AuthorizationScopes),
		APIKeyRequired: m.APIKeyRequired, Validator: validators[m.RequestValidatorID],
		RequestParameters: maps.Clone(m.RequestParameters), RequestModels: maps.Clone(m.RequestModels)}
	for _, code := range sortedKeys(m.MethodResponses) {
		mr := m.MethodResponses[code]
		dm.Responses = append(dm.Responses, oasrest.MethodResponse{StatusCode: code,
			ResponseParameters: maps.Clone(mr.ResponseParameters), ResponseModels: maps.Clone(mr.ResponseModels)})
	}
	if it := m.Integration; it != nil {
		timeout := it.TimeoutInMillis
		di := &oasrest.Integration{Type: it.Type, HTTPMethod: it.HTTPMethod, URI: it.URI, ConnectionType: it.ConnectionType,
			ConnectionID: it.ConnectionID, Credentials: it.Credentials, RequestParameters: maps.Clone(it.RequestParameters),
			RequestTemplates: maps.Clone(map[string]string(it.RequestTemplates)), PassthroughBehavior: it.PassthroughBehavior,
			ContentHandling: it.ContentHandling, TimeoutInMillis: &timeout, CacheKeyParameters: slices.Clone(it.CacheKeyParameters)}
		if it.TLSConfig != nil {
			v := it.TLSConfig.InsecureSkipVerification
			di.InsecureSkipVerification = &v
		}
		for _, code := range sortedKeys(it.IntegrationResponses) {
			ir := it.IntegrationResponses[code]
			di.Responses = append(di.Responses, oasrest.IntegrationResponse{StatusCode: code, SelectionPattern: ir.SelectionPattern,
				ResponseParameters: maps.Clone(ir.ResponseParameters), ResponseTemplates: maps.Clone(map[string]string(ir.ResponseTemplates)),
				ContentHandling: ir.ContentHandling})
		}
		dm.Integration = di
	}
	return dm
}

// ExportVersion is info.version of an API without a version: the date of
// the deployment, as AWS writes it.
func ExportVersion(d *Deployment) string {
	return time.UnixMilli(int64(d.CreatedDate)).UTC().Format("2006-01-02T15:04:05Z")
}
