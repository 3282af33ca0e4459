package apigatewayv2

import (
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/oashttp"
)

// ExportApi: an HTTP API's configuration (live, or a stage's deployment)
// as the neutral description oashttp writes as OpenAPI.

const (
	exportMsgHTTPOnly     = "Export is supported only for HTTP APIs"
	exportMsgNotDeployed  = "The stage %s has no deployment to export"
	exportBasePathVarious = "/{basePath}"
)

// Export is what ExportAPI answers: the description and where it is
// served.
type Export struct {
	API *oashttp.API
	// ServerURL ends in {basePath}; BasePath is that variable's default.
	ServerURL string
	BasePath  string
}

// ExportAPI describes HTTP API id: its live configuration, or the one
// stageName's deployment froze.
func (s *Service) ExportAPI(sc awswire.Scope, id, stageName string) (*Export, error) {
	a, err := s.readAPI(sc, id)
	if err != nil {
		return nil, err
	}
	if a.API.ProtocolType != apisHTTP {
		return nil, BadRequest(exportMsgHTTPOnly)
	}
	cfg := &a.Config
	basePath := ""
	if stageName != "" {
		st, ok := a.Stages.Get(stageName)
		if !ok {
			return nil, StageNotFound()
		}
		d, ok := a.Deployments.Get(st.DeploymentID)
		if !ok || d.Frozen == nil {
			return nil, BadRequest(exportMsgNotDeployed, stageName)
		}
		cfg = d.Frozen
		if stageName != apisDefaultStage {
			basePath = stageName
		}
	}
	return &Export{API: exportConfig(cfg), ServerURL: a.API.APIEndpoint + exportBasePathVarious, BasePath: basePath}, nil
}

// exportConfig is cfg as oashttp describes it: routes by key, integrations
// in creation order, authorizers by name.
func exportConfig(cfg *Config) *oashttp.API {
	api := cfg.API
	out := &oashttp.API{Name: api.Name, Description: api.Description, Version: api.Version, ImportExportVersion: "1.0"}
	if api.DisableExecuteAPIEndpoint {
		v := true
		out.DisableExecuteAPIEndpoint = &v
	}
	if c := api.CorsConfiguration; c != nil {
		out.CORS = &oashttp.CORS{AllowCredentials: c.AllowCredentials, AllowHeaders: c.AllowHeaders, AllowMethods: c.AllowMethods,
			AllowOrigins: c.AllowOrigins, ExposeHeaders: c.ExposeHeaders, MaxAge: c.MaxAge}
	}
	var its []*Integration
	for _, it := range cfg.Integrations.All() {
		its = append(its, it)
	}
	its = bySeq(its, func(i *Integration) uint64 { return i.Seq }, func(i *Integration) string { return i.IntegrationID })
	index := map[string]int{}
	for _, it := range its {
		index[it.IntegrationID] = len(out.Integrations)
		d := oashttp.Integration{Type: it.IntegrationType, Subtype: it.IntegrationSubtype, HTTPMethod: it.IntegrationMethod,
			URI: it.IntegrationURI, PayloadFormatVersion: it.PayloadFormatVersion, ConnectionType: it.ConnectionType,
			ConnectionID: it.ConnectionID, Credentials: it.CredentialsARN, Description: it.Description,
			RequestParameters: it.RequestParameters, ResponseParameters: it.ResponseParameters}
		if it.TimeoutInMillis != 0 {
			v := it.TimeoutInMillis
			d.TimeoutInMillis = &v
		}
		if it.TLSConfig != nil {
			d.TLSConfig = &oashttp.TLSConfig{ServerNameToVerify: it.TLSConfig.ServerNameToVerify}
		}
		out.Integrations = append(out.Integrations, d)
	}
	names := map[string]string{}
	for _, a := range cfg.Authorizers.All() {
		names[a.AuthorizerID] = a.Name
		d := oashttp.Authorizer{Name: a.Name, Type: a.AuthorizerType, URI: a.AuthorizerURI, Credentials: a.AuthorizerCredentialsARN,
			PayloadFormatVersion: a.AuthorizerPayloadFormatVersion, IdentitySource: a.IdentitySource,
			ResultTTLInSeconds: a.AuthorizerResultTTLInSeconds}
		if a.AuthorizerType == "REQUEST" {
			v := a.EnableSimpleResponses
			d.EnableSimpleResponses = &v
		}
		if j := a.JWTConfiguration; j != nil {
			d.Issuer, d.Audience = j.Issuer, j.Audience
		}
		out.Authorizers = append(out.Authorizers, d)
	}
	slices.SortFunc(out.Authorizers, func(a, b oashttp.Authorizer) int { return strings.Compare(a.Name, b.Name) })
	for _, r := range cfg.Routes.All() {
		d := oashttp.Route{Key: r.RouteKey, Integration: -1, AuthorizationType: r.AuthorizationType,
			Authorizer: names[r.AuthorizerID], Scopes: r.AuthorizationScopes, OperationName: r.OperationName}
		if id, ok := strings.CutPrefix(r.Target, routeTargetPrefix); ok {
			if i, ok := index[id]; ok {
				d.Integration = i
			}
		}
		out.Routes = append(out.Routes, d)
	}
	slices.SortFunc(out.Routes, func(a, b oashttp.Route) int { return strings.Compare(a.Key, b.Key) })
	return out
}
