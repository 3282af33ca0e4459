package apigatewayv2

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// This file owns an API's integrations and integration responses: their
// validation as AWS applies it, their mutations (inside the API's owner,
// through the Tx) and their reads (from the published state). Messages
// AWS is known to send are quoted; where none is recorded, the wording
// follows the nearest one API Gateway does send (docs/apigatewayv2-evidence.md).

// Protocol types.
const (
	hTTP = "HTTP"
	wS   = "WEBSOCKET"
)

// integrationKinds maps each accepted integration type to the AWS type it
// stands for: the spec's CLOUD_PROXY and CLOUD are AWS_PROXY and AWS.
var integrationKinds = map[string]string{
	"AWS": "AWS", "AWS_PROXY": "AWS_PROXY", "HTTP": "HTTP", "HTTP_PROXY": "HTTP_PROXY", "MOCK": "MOCK",
	"CLOUD": "AWS", "CLOUD_PROXY": "AWS_PROXY",
}

// Integration defaults and limits, by protocol (A: the model's
// TimeoutInMillis documentation).
const (
	timeoutHTTP      = 30000
	timeoutWebSocket = 29000
	minTimeout       = 50
	defaultMock      = "${integration.response.statuscode}"
)

// Messages. The first three are real AWS answers (R); Method to ARN are
// the REST API's (v1) answers for the same members, and so is Timeout
// (with the v2 bounds); PayloadRequired is LocalStack's (M); the others
// are this emulator's, in the same style.
const (
	msgHTTPProxyOnly   = "Currently, an API with a protocol type of HTTP may only be associated with proxy integrations (AWS_PROXY, HTTP_PROXY)"
	msgProxyPost       = "HttpMethod must be POST for %s IntegrationType"
	msgReferenced      = "Cannot delete Integration because it is referenced by the following Routes with Ids: [%s]"
	msgType            = "Invalid IntegrationType specified. Valid options are AWS,AWS_PROXY,HTTP,HTTP_PROXY,MOCK"
	msgMethod          = "Invalid HttpMethod specified. Valid options are GET,PUT,POST,DELETE,PATCH,OPTIONS,HEAD,ANY"
	msgPassthrough     = "Invalid PassthroughBehavior specified. Valid options are WHEN_NO_MATCH,WHEN_NO_TEMPLATES,NEVER"
	msgContentHandling = "Invalid ContentHandlingStrategy specified. Valid options are CONVERT_TO_BINARY,CONVERT_TO_TEXT"
	msgConnectionType  = "Invalid ConnectionType specified. Valid options are INTERNET,VPC_LINK"
	msgConnectionID    = "Connection ID must be specified for the VPC_LINK connection type"
	msgHTTPURI         = "Invalid HTTP endpoint specified for URI"
	msgARN             = "Invalid ARN specified in the request"
	msgPrivateURI      = "Invalid integration URI specified. For a private integration, specify the ARN of an Application Load Balancer listener, Network Load Balancer listener, or AWS Cloud Map service"
	msgTimeout         = "Timeout should be between 50 ms and %d ms"
	msgPayloadRequired = "PayloadFormatVersion is a required parameter for integration"
	msgPayloadValues   = "Invalid PayloadFormatVersion specified. Valid options are 1.0,2.0"
	msgURIRequired     = "IntegrationUri is a required parameter for integration"
	msgManaged         = "Cannot delete Integration %s because it is managed by API Gateway"
)

var (
	integrationMethods = []string{"GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS", "HEAD", "ANY"}
	// subtypes are the AWS service integrations of HTTP APIs (A: the
	// integration subtype reference).
	subtypes = []string{
		"EventBridge-PutEvents", "SQS-SendMessage", "SQS-ReceiveMessage", "SQS-DeleteMessage", "SQS-PurgeQueue",
		"AppConfig-GetConfiguration", "Kinesis-PutRecord", "StepFunctions-StartExecution",
		"StepFunctions-StartSyncExecution", "StepFunctions-StopExecution",
	}
	passthroughs     = []string{"WHEN_NO_MATCH", "WHEN_NO_TEMPLATES", "NEVER"}
	contentHandlings = []string{"CONVERT_TO_BINARY", "CONVERT_TO_TEXT"}

	hTTPURIRe = regexp.MustCompile(`^(?i:https?)://[^/\s?#]+`)
	aRNRe     = regexp.MustCompile(`^arn:[^:\s]+:[^:\s]+:[^:\s]*:[^:\s]*:\S+$`)
	// privateURIRe: an ALB/NLB listener or a Cloud Map service (A).
	privateURIRe = regexp.MustCompile(`^arn:[^:\s]+:(?:elasticloadbalancing:[^:\s]*:[^:\s]*:listener/|servicediscovery:[^:\s]*:[^:\s]*:service/)\S+$`)
	// HTTP APIs' parameter mapping (A: http-api-parameter-mapping).
	hTTPRequestKeyRe  = regexp.MustCompile(`^(?:(?:append|overwrite|remove):(?:header|querystring)\.\S+|overwrite:path)$`)
	hTTPResponseKeyRe = regexp.MustCompile(`^(?:(?:append|overwrite|remove):header\.\S+|overwrite:statuscode)$`)
	statusRe          = regexp.MustCompile(`^[2-5][0-9][0-9]$`)
	// WebSocket request parameters name the integration request (A: the
	// model's IntegrationParameters documentation).
	wSRequestKeyRe = regexp.MustCompile(`^integration\.request\.(?:header|querystring|path)\.\S+$`)
)

// IntegrationNotFound is the error for an unknown integration. AWS's v2
// text is not recorded; this is v1's (R), which v2's children all follow.
func IntegrationNotFound() *awswire.Error {
	return NotFound("Integration", "Invalid Integration identifier specified")
}

// IntegrationResponseNotFound is the error for an unknown integration
// response (v1's wording, as IntegrationNotFound).
func IntegrationResponseNotFound() *awswire.Error {
	return NotFound("IntegrationResponse", "Invalid IntegrationResponse identifier specified")
}

func mappingError(errs []string) *awswire.Error {
	return BadRequest("Invalid mapping expression specified: Validation Result: warnings : [], errors : [%s]", strings.Join(errs, ", "))
}

// readAPI returns the published API.
func (s *Service) readAPI(sc awswire.Scope, apiID string) (*HTTPAPI, error) {
	a, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	return a, nil
}

// bySeq sorts by creation, then id (records restored from before
// Seq existed tie at 0).
func bySeq[T any](items []T, seq func(T) uint64, id func(T) string) []T {
	slices.SortFunc(items, func(a, b T) int {
		return cmp.Or(cmp.Compare(seq(a), seq(b)), strings.Compare(id(a), id(b)))
	})
	return items
}

// nextSeq is the Seq of a new item of a collection, which orders its list:
// after every item's, restored ones included (a restore bumps the
// service's counter past every record's Seq).
func nextSeq(t *Tx) uint64 { return t.svc.seq.Next() }

// ---- integrations ----

// NextIntegrationID returns an unused integration id: 7 lowercase
// alphanumerics, as AWS's (R).
func NextIntegrationID(st *HTTPAPI) string {
	return NewID(7, func(id string) bool { _, ok := st.Integrations.Get(id); return ok })
}

// CreateIntegration adds an integration to API apiID.
func (s *Service) CreateIntegration(sc awswire.Scope, apiID string, in IntegrationInput) (*Integration, error) {
	if in.IntegrationType == nil || *in.IntegrationType == "" {
		return nil, BadRequest("Integration type is required")
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*Integration, error) {
		st := t.State()
		it := &Integration{}
		if err := apply(t, it, in, true); err != nil {
			return nil, err
		}
		it.IntegrationID = NextIntegrationID(st)
		it.Seq = nextSeq(t)
		t.PutIntegration(it)
		return it, nil
	})
}

// GetIntegration returns integration id of API apiID.
func (s *Service) GetIntegration(sc awswire.Scope, apiID, id string) (*Integration, error) {
	a, err := s.readAPI(sc, apiID)
	if err != nil {
		return nil, err
	}
	it, ok := a.Integrations.Get(id)
	if !ok {
		return nil, IntegrationNotFound()
	}
	return it, nil
}

// Integrations returns the API's integrations in creation order.
func (s *Service) Integrations(sc awswire.Scope, apiID string) ([]*Integration, error) {
	a, err := s.readAPI(sc, apiID)
	if err != nil {
		return nil, err
	}
	return bySeq(slices.Collect(a.Integrations.Values()),
		func(i *Integration) uint64 { return i.Seq }, func(i *Integration) string { return i.IntegrationID }), nil
}

// UpdateIntegration changes the members in sets, then checks the result
// as CreateIntegration checks a new one. A managed (quick create)
// integration may be updated (A).
func (s *Service) UpdateIntegration(sc awswire.Scope, apiID, id string, in IntegrationInput) (*Integration, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Integration, error) {
		cur, ok := t.State().Integrations.Get(id)
		if !ok {
			return nil, IntegrationNotFound()
		}
		it := *cur
		if err := apply(t, &it, in, false); err != nil {
			return nil, err
		}
		t.PutIntegration(&it)
		return &it, nil
	})
}

// DeleteIntegration deletes an integration no route targets, with its
// integration responses. A managed integration cannot be deleted (A).
func (s *Service) DeleteIntegration(sc awswire.Scope, apiID, id string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		st := t.State()
		it, ok := st.Integrations.Get(id)
		if !ok {
			return struct{}{}, IntegrationNotFound()
		}
		if refs := IntegrationRoutes(st, id); len(refs) > 0 {
			return struct{}{}, Conflict(msgReferenced, strings.Join(refs, ", "))
		}
		if it.APIGatewayManaged {
			return struct{}{}, BadRequest(msgManaged, id)
		}
		t.DeleteIntegration(id)
		return struct{}{}, nil
	})
	return err
}

// IntegrationRoutes returns the ids of the routes whose target is
// integration id, sorted.
func IntegrationRoutes(st *HTTPAPI, id string) []string {
	var out []string
	for rid, r := range st.Routes.All() {
		if r.Target == "integrations/"+id {
			out = append(out, rid)
		}
	}
	slices.Sort(out)
	return out
}

// apply applies in to it (a new integration when fresh), fills in
// what AWS defaults and checks the result.
func apply(t *Tx, it *Integration, in IntegrationInput, fresh bool) error {
	protocol := t.State().API.ProtocolType
	typeChanged := false
	if in.IntegrationType != nil {
		typeChanged = *in.IntegrationType != it.IntegrationType
		it.IntegrationType = *in.IntegrationType
	}
	kind := integrationKinds[it.IntegrationType]
	if kind == "" {
		return BadRequest(msgType)
	}
	if protocol == hTTP && kind != "AWS_PROXY" && kind != "HTTP_PROXY" {
		return BadRequest(msgHTTPProxyOnly)
	}
	setIfSent(&it.ConnectionID, in.ConnectionID)
	setIfSent(&it.ConnectionType, in.ConnectionType)
	setIfSent(&it.ContentHandlingStrategy, in.ContentHandlingStrategy)
	setIfSent(&it.CredentialsARN, in.CredentialsARN)
	setIfSent(&it.Description, in.Description)
	setIfSent(&it.IntegrationMethod, in.IntegrationMethod)
	setIfSent(&it.IntegrationSubtype, in.IntegrationSubtype)
	setIfSent(&it.IntegrationURI, in.IntegrationURI)
	setIfSent(&it.PassthroughBehavior, in.PassthroughBehavior)
	setIfSent(&it.PayloadFormatVersion, in.PayloadFormatVersion)
	setIfSent(&it.TemplateSelectionExpression, in.TemplateSelectionExpression)
	if in.TimeoutInMillis != nil {
		it.TimeoutInMillis = *in.TimeoutInMillis
	}
	if in.TLSConfig != nil {
		it.TLSConfig = nil
		if in.TLSConfig.ServerNameToVerify != "" {
			c := *in.TLSConfig
			it.TLSConfig = &c
		}
	}
	it.RequestParameters = mergeParams(it.RequestParameters, in.RequestParameters, fresh)
	it.ResponseParameters = mergeResponseParams(it.ResponseParameters, in.ResponseParameters)
	if in.RequestTemplates != nil {
		// Templates are replaced whole: Terraform sends the full map.
		it.RequestTemplates = maps.Clone(in.RequestTemplates)
		if len(it.RequestTemplates) == 0 {
			it.RequestTemplates = nil
		}
	}

	// Defaults, as AWS fills them in.
	if it.ConnectionType == "" {
		it.ConnectionType = "INTERNET"
	}
	if it.ConnectionType == "INTERNET" {
		it.ConnectionID = ""
	}
	if typeChanged && in.IntegrationMethod == nil {
		it.IntegrationMethod = ""
	}
	if it.IntegrationMethod == "" {
		it.IntegrationMethod = defaultMethod(protocol, kind)
	}
	if kind == "MOCK" {
		it.IntegrationURI = ""
		it.IntegrationMethod = ""
	}
	if it.TimeoutInMillis == 0 && in.TimeoutInMillis == nil {
		it.TimeoutInMillis = maxTimeout(protocol)
	}
	if protocol == wS {
		if it.PayloadFormatVersion == "" {
			it.PayloadFormatVersion = "1.0"
		}
		if it.PassthroughBehavior == "" {
			it.PassthroughBehavior = "WHEN_NO_MATCH"
		}
		if kind == "MOCK" && it.IntegrationResponseSelectionExpression == "" {
			it.IntegrationResponseSelectionExpression = defaultMock
		}
	}

	if err := checkIntegration(t, it, protocol, kind); err != nil {
		return err
	}
	if protocol == hTTP {
		// WebSocket-only members: AWS accepts them on HTTP APIs and does
		// not echo them (T: Terraform always sends passthroughBehavior).
		it.PassthroughBehavior = ""
		it.ContentHandlingStrategy = ""
		it.RequestTemplates = nil
		it.TemplateSelectionExpression = ""
	}
	return nil
}

func setIfSent(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

// defaultMethod is the method AWS gives an integration sent without
// one: POST for Lambda (T, A), ANY for an HTTP API's HTTP proxy (R: quick
// create, and what CDK sends).
func defaultMethod(protocol, kind string) string {
	switch {
	case kind == "AWS_PROXY" || kind == "AWS":
		return "POST"
	case kind == "HTTP_PROXY" && protocol == hTTP:
		return "ANY"
	}
	return ""
}

func maxTimeout(protocol string) int64 {
	if protocol == wS {
		return timeoutWebSocket
	}
	return timeoutHTTP
}

// mergeParams returns cur changed by in: a key with value "" goes
// (Terraform removes request parameters so), others are set. A new
// integration just drops the empty ones. The result is a new map.
func mergeParams(cur, in map[string]string, fresh bool) map[string]string {
	if in == nil {
		return cur
	}
	out := map[string]string{}
	if !fresh {
		maps.Copy(out, cur)
	}
	for k, v := range in {
		if v == "" {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// mergeResponseParams returns cur with each status code in in
// replaced by its mapping, or removed when that mapping is empty
// (Terraform removes them so).
func mergeResponseParams(cur, in map[string]map[string]string) map[string]map[string]string {
	if in == nil {
		return cur
	}
	out := maps.Clone(cur)
	if out == nil {
		out = map[string]map[string]string{}
	}
	for code, m := range in {
		c := map[string]string{}
		for k, v := range m {
			if v != "" {
				c[k] = v
			}
		}
		if len(c) == 0 {
			delete(out, code)
			continue
		}
		out[code] = c
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// checkIntegration checks an integration as it is about to be stored.
func checkIntegration(t *Tx, it *Integration, protocol, kind string) error {
	if !slices.Contains([]string{"INTERNET", "VPC_LINK"}, it.ConnectionType) {
		return BadRequest(msgConnectionType)
	}
	if it.ConnectionType == "VPC_LINK" {
		if it.ConnectionID == "" {
			return BadRequest(msgConnectionID)
		}
		// An HTTP API's private integration goes through a VPC link of
		// this service; a WebSocket API's through a REST (v1) one.
		if protocol == hTTP && !linkExists(t, it.ConnectionID) {
			return NotFound("VpcLink", "Invalid VpcLink identifier specified")
		}
	}
	if it.IntegrationMethod != "" && !slices.Contains(integrationMethods, it.IntegrationMethod) {
		return BadRequest(msgMethod)
	}
	if kind == "AWS_PROXY" && it.IntegrationMethod != "POST" {
		return BadRequest(msgProxyPost, it.IntegrationType)
	}
	if it.IntegrationSubtype != "" {
		if protocol != hTTP || kind != "AWS_PROXY" {
			return BadRequest("IntegrationSubtype is supported only for AWS_PROXY integrations of HTTP APIs")
		}
		if !slices.Contains(subtypes, it.IntegrationSubtype) {
			return BadRequest("Invalid IntegrationSubtype specified. Valid options are %s", strings.Join(subtypes, ","))
		}
	}
	if err := checkURI(it, protocol, kind); err != nil {
		return err
	}
	if err := checkPayload(it, protocol, kind); err != nil {
		return err
	}
	if max := maxTimeout(protocol); it.TimeoutInMillis < minTimeout || it.TimeoutInMillis > max {
		return BadRequest(msgTimeout, max)
	}
	if it.PassthroughBehavior != "" && !slices.Contains(passthroughs, it.PassthroughBehavior) {
		return BadRequest(msgPassthrough)
	}
	if it.ContentHandlingStrategy != "" && !slices.Contains(contentHandlings, it.ContentHandlingStrategy) {
		return BadRequest(msgContentHandling)
	}
	if it.CredentialsARN != "" && !aRNRe.MatchString(it.CredentialsARN) {
		return BadRequest(msgARN)
	}
	return checkParams(it, protocol)
}

func linkExists(t *Tx, id string) bool {
	d, ok := t.svc.scopes.Lookup(t.scope)
	if !ok {
		return false
	}
	_, ok = d.links.Get(id)
	return ok
}

// checkURI checks integrationUri against the integration's kind: a
// Lambda (or other AWS) ARN for AWS and AWS_PROXY, a URL for HTTP and
// HTTP_PROXY, a load balancer listener or Cloud Map service ARN for an
// HTTP API's private integration. An AWS service integration
// (integrationSubtype) needs none (A).
func checkURI(it *Integration, protocol, kind string) error {
	if kind == "MOCK" {
		return nil
	}
	if it.IntegrationURI == "" {
		if it.IntegrationSubtype != "" {
			return nil
		}
		return BadRequest(msgURIRequired)
	}
	switch {
	case kind == "AWS" || kind == "AWS_PROXY":
		if !aRNRe.MatchString(it.IntegrationURI) {
			return BadRequest(msgARN)
		}
	case protocol == hTTP && it.ConnectionType == "VPC_LINK":
		if !privateURIRe.MatchString(it.IntegrationURI) {
			return BadRequest(msgPrivateURI)
		}
	default:
		if !hTTPURIRe.MatchString(it.IntegrationURI) {
			return BadRequest(msgHTTPURI)
		}
	}
	return nil
}

// checkPayload applies the payloadFormatVersion rules (A): required
// for HTTP APIs; 1.0 or 2.0 for Lambda proxy integrations, 1.0 for every
// other one, and for WebSocket APIs.
func checkPayload(it *Integration, protocol, kind string) error {
	v := it.PayloadFormatVersion
	if v == "" {
		return BadRequest(msgPayloadRequired)
	}
	if v != "1.0" && v != "2.0" {
		return BadRequest(msgPayloadValues)
	}
	if v == "2.0" {
		switch {
		case protocol == wS:
			return BadRequest("PayloadFormatVersion 2.0 is not supported on protocolType WEBSOCKET")
		case kind != "AWS_PROXY" || it.IntegrationSubtype != "":
			return BadRequest("PayloadFormatVersion 2.0 is supported only for Lambda proxy (AWS_PROXY) integrations")
		}
	}
	return nil
}

// checkParams checks the request and response parameter mappings.
func checkParams(it *Integration, protocol string) error {
	if protocol == wS {
		if len(it.ResponseParameters) > 0 {
			return BadRequest("ResponseParameters are not supported on protocolType WEBSOCKET")
		}
		var bad []string
		for _, k := range slices.Sorted(maps.Keys(it.RequestParameters)) {
			if !wSRequestKeyRe.MatchString(k) {
				bad = append(bad, "Invalid mapping expression specified: "+k)
			}
		}
		if len(bad) > 0 {
			return mappingError(bad)
		}
		return nil
	}
	// An AWS service integration's request parameters are the action's
	// own (QueueUrl, MessageBody...), not mappings.
	if it.IntegrationSubtype == "" {
		var bad []string
		for _, k := range slices.Sorted(maps.Keys(it.RequestParameters)) {
			if !hTTPRequestKeyRe.MatchString(k) {
				bad = append(bad, "Invalid Request Actioned Parameter destination specified: "+k)
			}
		}
		if len(bad) > 0 {
			return mappingError(bad)
		}
	}
	for _, code := range slices.Sorted(maps.Keys(it.ResponseParameters)) {
		if !statusRe.MatchString(code) {
			return BadRequest("Invalid status code specified: %s. Status codes must be between 200 and 599", code)
		}
		var bad []string
		for _, k := range slices.Sorted(maps.Keys(it.ResponseParameters[code])) {
			if !hTTPResponseKeyRe.MatchString(k) {
				bad = append(bad, "Invalid Response Actioned Parameter destination specified: "+k)
			}
		}
		if len(bad) > 0 {
			return mappingError(bad)
		}
	}
	return nil
}
