package apigatewayv2

import (
	"maps"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cloudemu/emulator/awswire"
)

// The Api resource: creation (with quick create), update and the CORS
// configuration. Its children (routes, integrations, stages) live in the
// same owner, so quick create writes all of them in the API's first
// mutation.

// Protocols and the defaults AWS fills in.
const (
	apisHTTP      = "HTTP"
	apisWebSocket = "WEBSOCKET"
	// apisRouteSelection is the HTTP route selection expression as AWS
	// returns it; the model's documentation spells it with braces, and
	// both spellings are accepted (and stored as sent).
	apisRouteSelection       = "$request.method $request.path"
	apisRouteSelectionBraced = "${request.method} ${request.path}"
	apisAPIKeySelection      = "$request.header.x-api-key"
	apisAPIKeyByAuthorizer   = "$context.authorizer.usageIdentifierKey"
	apisDefaultIPAddressType = "ipv4"
	// apisCustomIDTag is the tag that, on CreateApi, sets the new API's id,
	// as LocalStack lets users pin ids.
	apisCustomIDTag = "_custom_id_"
	// apisDefaultStage and apisDefaultRoute are quick create's names.
	apisDefaultStage = "$default"
	apisDefaultRoute = "$default"
	// apisQuickTimeout is the timeout of quick create's integration.
	apisQuickTimeout = 30000
)

// Messages for the Api resource. The CORS one is a real AWS answer; the
// protocol one is moto's; the others follow AWS's wording where no
// capture exists.
const (
	apisMsgNameRequired     = "Name is required"
	apisMsgNameLength       = "Name must be between 1 and 128 characters long"
	apisMsgProtocolRequired = "Protocol type is required"
	apisMsgProtocol         = "Invalid protocol specified. Must be one of [HTTP, WEBSOCKET]"
	apisMsgDescription      = "Description must be at most 1024 characters long"
	apisMsgVersion          = "Version must be between 1 and 64 characters long"
	apisMsgRSERequired      = "RouteSelectionExpression is required for WEBSOCKET protocol"
	apisMsgRSEHTTP          = "Invalid route selection expression specified. For HTTP APIs it must be ${request.method} ${request.path}"
	apisMsgAPIKeySelection  = "Invalid API key selection expression specified. Must be one of [$request.header.x-api-key, $context.authorizer.usageIdentifierKey]"
	apisMsgIPAddressType    = "Invalid IP address type specified. Must be one of [ipv4, dualstack]"
	apisMsgQuickHTTPOnly    = "Quick create (target, routeKey, credentialsArn) is supported only for HTTP APIs"
	apisMsgQuickNeedsTarget = "routeKey and credentialsArn are part of quick create and require a target"
	apisMsgQuickNotCreated  = "The API was not created with quick create: it has no managed integration to update"
	apisMsgTarget           = "Invalid target specified. Must be a fully qualified http(s) URL or a Lambda function ARN"
	apisMsgCredentials      = "Invalid ARN specified in the request"
	apisMsgCORSHTTPOnly     = "CORS configuration is supported only for HTTP APIs"
	apisMsgCORSCredentials  = "allow-credentials is not supported if 'allow-origin' is *"
	apisMsgCORSMaxAge       = "Invalid maxAge specified. It must be between -1 and 86400"
	apisMsgCORSMethod       = "Invalid allowMethods specified. Each method must be between 1 and 64 characters long"
	apisMsgCustomID         = "Invalid " + apisCustomIDTag + " tag: the id must be 1 to 128 letters, digits, '-' or '_'"
)

var apisCustomIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// APIInput is the body of CreateApi and UpdateApi: a nil member was not
// sent. UpdateApi ignores protocolType and tags, which it does not take.
type APIInput struct {
	APIKeySelectionExpression *string           `json:"apiKeySelectionExpression"`
	CorsConfiguration         *Cors             `json:"corsConfiguration"`
	CredentialsARN            *string           `json:"credentialsArn"`
	Description               *string           `json:"description"`
	DisableSchemaValidation   *bool             `json:"disableSchemaValidation"`
	DisableExecuteAPIEndpoint *bool             `json:"disableExecuteApiEndpoint"`
	IPAddressType             *string           `json:"ipAddressType"`
	Name                      *string           `json:"name"`
	ProtocolType              *string           `json:"protocolType"`
	RouteKey                  *string           `json:"routeKey"`
	RouteSelectionExpression  *string           `json:"routeSelectionExpression"`
	Tags                      map[string]string `json:"tags"`
	Target                    *string           `json:"target"`
	Version                   *string           `json:"version"`
}

// quick reports whether the input carries any quick create member.
func (in *APIInput) quick() bool {
	return in.Target != nil || in.RouteKey != nil || in.CredentialsARN != nil
}

// NewAPI validates a CreateApi request and creates the API; with a target
// (quick create) it also creates, in the same write, the managed
// integration, its route and the auto-deploying $default stage with its
// first deployment.
func (s *Service) NewAPI(sc awswire.Scope, in APIInput) (*HTTPAPI, error) {
	if in.Name == nil || *in.Name == "" {
		return nil, BadRequest(apisMsgNameRequired)
	}
	if in.ProtocolType == nil || *in.ProtocolType == "" {
		return nil, BadRequest(apisMsgProtocolRequired)
	}
	proto := *in.ProtocolType
	if proto != apisHTTP && proto != apisWebSocket {
		return nil, BadRequest(apisMsgProtocol)
	}
	api := API{
		APIKeySelectionExpression: apisAPIKeySelection,
		CreatedDate:               awswire.ISOTime(s.Now().UnixMilli()),
		IPAddressType:             apisDefaultIPAddressType,
		ProtocolType:              proto,
		Tags:                      map[string]string{},
	}
	if err := apisApply(&api, &in); err != nil {
		return nil, err
	}
	switch {
	case in.RouteSelectionExpression != nil && *in.RouteSelectionExpression != "":
		// apisApply checked it.
	case proto == apisWebSocket:
		return nil, BadRequest(apisMsgRSERequired)
	default:
		api.RouteSelectionExpression = apisRouteSelection
	}
	if err := CheckTags(in.Tags); err != nil {
		return nil, err
	}
	if len(in.Tags) > 0 {
		api.Tags = maps.Clone(in.Tags)
	}
	if id, ok := in.Tags[apisCustomIDTag]; ok {
		if !apisCustomIDRe.MatchString(id) {
			return nil, BadRequest(apisMsgCustomID)
		}
		api.APIID = id
	}
	var q *apisQuick
	if in.quick() {
		if in.Target == nil {
			return nil, BadRequest(apisMsgQuickNeedsTarget)
		}
		var err error
		if q, err = apisQuickFrom(&in, apisDefaultRoute); err != nil {
			return nil, err
		}
	}
	return s.CreateAPI(sc, api, func(t *Tx) error {
		if q != nil {
			q.create(t)
		}
		return nil
	})
}

// UpdateAPI changes the members of the API that in carries. Quick create's
// members update the managed integration and route.
func (s *Service) UpdateAPI(sc awswire.Scope, id string, in APIInput) (API, error) {
	return Mutate(s, sc, id, func(t *Tx) (API, error) {
		a := t.State().API
		if err := apisApply(&a, &in); err != nil {
			return API{}, err
		}
		if in.quick() {
			if err := apisQuickUpdate(t, &in); err != nil {
				return API{}, err
			}
		}
		// A request that changes nothing writes nothing and does not
		// redeploy auto-deploying stages.
		if !reflect.DeepEqual(a, t.State().API) {
			t.SetAPI(a)
		}
		return a, nil
	})
}

// DeleteCORS removes the API's CORS configuration; an API without one is
// left as it is.
func (s *Service) DeleteCORS(sc awswire.Scope, id string) error {
	_, err := Mutate(s, sc, id, func(t *Tx) (struct{}, error) {
		a := t.State().API
		if a.CorsConfiguration == nil {
			return struct{}{}, nil
		}
		a.CorsConfiguration = nil
		t.SetAPI(a)
		return struct{}{}, nil
	})
	return err
}

// apisApply validates the members in carries that CreateApi and UpdateApi
// share and sets them on a (whose protocol is set). It never changes what
// a points to: a may share them with a published state.
func apisApply(a *API, in *APIInput) error {
	http := a.ProtocolType == apisHTTP
	if in.Name != nil {
		if !validName(*in.Name, 128) {
			return BadRequest(apisMsgNameLength)
		}
		a.Name = *in.Name
	}
	if in.Description != nil {
		if utf8.RuneCountInString(*in.Description) > 1024 {
			return BadRequest(apisMsgDescription)
		}
		a.Description = *in.Description
	}
	if in.Version != nil {
		// An empty version clears it: Terraform sends "" to restore an
		// unset version after a reimport.
		if utf8.RuneCountInString(*in.Version) > 64 {
			return BadRequest(apisMsgVersion)
		}
		a.Version = *in.Version
	}
	if p := in.RouteSelectionExpression; p != nil && *p != "" {
		// AWS accepts the HTTP default on WebSocket APIs (Terraform sends
		// it), so WebSocket expressions are not checked further.
		if http && *p != apisRouteSelection && *p != apisRouteSelectionBraced {
			return BadRequest(apisMsgRSEHTTP)
		}
		a.RouteSelectionExpression = *p
	}
	if p := in.APIKeySelectionExpression; p != nil && *p != "" {
		if *p != apisAPIKeySelection && *p != apisAPIKeyByAuthorizer {
			return BadRequest(apisMsgAPIKeySelection)
		}
		a.APIKeySelectionExpression = *p
	}
	if p := in.IPAddressType; p != nil && *p != "" {
		if *p != "ipv4" && *p != "dualstack" {
			return BadRequest(apisMsgIPAddressType)
		}
		a.IPAddressType = *p
	}
	if in.DisableExecuteAPIEndpoint != nil {
		a.DisableExecuteAPIEndpoint = *in.DisableExecuteAPIEndpoint
	}
	if in.DisableSchemaValidation != nil {
		a.DisableSchemaValidation = *in.DisableSchemaValidation
	}
	if in.CorsConfiguration != nil {
		if !http {
			return BadRequest(apisMsgCORSHTTPOnly)
		}
		c, err := apisCheckCORS(in.CorsConfiguration)
		if err != nil {
			return err
		}
		a.CorsConfiguration = c
	}
	if in.quick() && !http {
		return BadRequest(apisMsgQuickHTTPOnly)
	}
	return nil
}

// apisCheckCORS validates a CORS configuration and returns a copy of it
// that shares nothing with the request.
func apisCheckCORS(c *Cors) (*Cors, error) {
	if c.MaxAge != nil && (*c.MaxAge < -1 || *c.MaxAge > 86400) {
		return nil, BadRequest(apisMsgCORSMaxAge)
	}
	for _, m := range c.AllowMethods {
		if n := utf8.RuneCountInString(m); n < 1 || n > 64 {
			return nil, BadRequest(apisMsgCORSMethod)
		}
	}
	if c.AllowCredentials != nil && *c.AllowCredentials && slices.Contains(c.AllowOrigins, "*") {
		return nil, BadRequest(apisMsgCORSCredentials)
	}
	out := Cors{
		AllowHeaders:  slices.Clone(c.AllowHeaders),
		AllowMethods:  slices.Clone(c.AllowMethods),
		AllowOrigins:  slices.Clone(c.AllowOrigins),
		ExposeHeaders: slices.Clone(c.ExposeHeaders),
	}
	if c.AllowCredentials != nil {
		v := *c.AllowCredentials
		out.AllowCredentials = &v
	}
	if c.MaxAge != nil {
		v := *c.MaxAge
		out.MaxAge = &v
	}
	return &out, nil
}

// apisQuick is a validated quick create: the managed integration's backend
// and the managed route's key.
type apisQuick struct {
	target, credentials, routeKey string
	integrationType               string
	method, payloadFormat         string
}

// apisQuickFrom validates the quick create members of in; routeKey is the
// key to use when in has none.
func apisQuickFrom(in *APIInput, routeKey string) (*apisQuick, error) {
	q := &apisQuick{routeKey: routeKey}
	if in.Target != nil {
		q.target = *in.Target
		typ, method, pfv, ok := apisTargetKind(q.target)
		if !ok {
			return nil, BadRequest(apisMsgTarget)
		}
		q.integrationType, q.method, q.payloadFormat = typ, method, pfv
	}
	if in.CredentialsARN != nil {
		if !strings.HasPrefix(*in.CredentialsARN, "arn:") {
			return nil, BadRequest(apisMsgCredentials)
		}
		q.credentials = *in.CredentialsARN
	}
	if in.RouteKey != nil {
		if err := routeCheckKey(apisHTTP, *in.RouteKey); err != nil {
			return nil, err
		}
		q.routeKey = *in.RouteKey
	}
	return q, nil
}

// apisTargetKind tells what integration quick create makes of target: a
// Lambda function (ARN, or API Gateway's Lambda invocation URI) is an
// AWS_PROXY integration posting payload 2.0, a URL an HTTP_PROXY one
// passing any method with payload 1.0, as AWS creates them.
func apisTargetKind(target string) (typ, method, payloadFormat string, ok bool) {
	if strings.HasPrefix(target, "arn:") {
		parts := strings.SplitN(target, ":", 6)
		if len(parts) == 6 && parts[1] != "" && (parts[2] == "lambda" || parts[2] == "apigateway" && strings.HasPrefix(parts[4], "lambda")) {
			return "AWS_PROXY", "POST", "2.0", true
		}
		return "", "", "", false
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(target) > 2048 {
		return "", "", "", false
	}
	return "HTTP_PROXY", "ANY", "1.0", true
}

// create puts quick create's integration, route and $default stage. The
// stage auto-deploys, so the commit of this mutation gives it its first
// deployment (one deployment, as AWS makes).
func (q *apisQuick) create(t *Tx) {
	st := t.State()
	integ := &Integration{
		APIGatewayManaged:    true,
		ConnectionType:       "INTERNET",
		CredentialsARN:       q.credentials,
		IntegrationID:        NewID(7, func(id string) bool { _, ok := st.Integrations.Get(id); return ok }),
		IntegrationMethod:    q.method,
		IntegrationType:      q.integrationType,
		IntegrationURI:       q.target,
		PayloadFormatVersion: q.payloadFormat,
		TimeoutInMillis:      apisQuickTimeout,
		Seq:                  t.svc.seq.Next(), // the first integration: creation order
	}
	t.PutIntegration(integ)
	t.PutRoute(&Route{
		APIGatewayManaged: true,
		AuthorizationType: routeAuthNone,
		RouteID:           routeNewID(t),
		RouteKey:          q.routeKey,
		Target:            routeTargetPrefix + integ.IntegrationID,
	})
	if _, ok := st.Stages.Get(apisDefaultStage); ok {
		return
	}
	detailed := false
	t.PutStage(&Stage{
		APIGatewayManaged:    true,
		AutoDeploy:           true,
		CreatedDate:          t.Stamp(),
		DefaultRouteSettings: &RouteSettings{DetailedMetricsEnabled: &detailed},
		LastUpdatedDate:      t.Stamp(),
		RouteSettings:        map[string]*RouteSettings{},
		StageName:            apisDefaultStage,
		StageVariables:       map[string]string{},
		Tags:                 map[string]string{},
	})
}

// apisQuickUpdate applies UpdateApi's quick create members: the target and
// credentials go to the managed integration, the route key to the managed
// route (re-created if it was deleted). A target can be changed but not
// removed.
func apisQuickUpdate(t *Tx, in *APIInput) error {
	st := t.State()
	var integ *Integration
	for _, i := range st.Integrations.All() {
		if i.APIGatewayManaged {
			integ = i
			break
		}
	}
	if integ == nil {
		return BadRequest(apisMsgQuickNotCreated)
	}
	target := routeTargetPrefix + integ.IntegrationID
	var route *Route
	for _, r := range st.Routes.All() {
		if r.APIGatewayManaged && r.Target == target {
			route = r
			break
		}
	}
	cur := apisDefaultRoute
	if route != nil {
		cur = route.RouteKey
	}
	q, err := apisQuickFrom(in, cur)
	if err != nil {
		return err
	}
	if in.Target != nil || in.CredentialsARN != nil {
		next := *integ
		if in.Target != nil {
			next.IntegrationURI = q.target
			next.IntegrationType, next.IntegrationMethod, next.PayloadFormatVersion = q.integrationType, q.method, q.payloadFormat
		}
		if in.CredentialsARN != nil {
			next.CredentialsARN = q.credentials
		}
		t.PutIntegration(&next)
	}
	if in.RouteKey == nil && route != nil {
		return nil
	}
	next := Route{APIGatewayManaged: true, AuthorizationType: routeAuthNone, RouteID: routeNewID(t), Target: target}
	if route != nil {
		next = *route
	}
	if err := routeCheckUnique(st, apisHTTP, q.routeKey, next.RouteID); err != nil {
		return err
	}
	next.RouteKey = q.routeKey
	t.PutRoute(&next)
	return nil
}

// Tag limits of API Gateway v2: keys of 1 to 128 characters, values of at
// most 1600 (the model's StringWithLengthBetween1And1600, documented as
// 0 to 1600), at most 50 tags, no "aws:" prefix.
