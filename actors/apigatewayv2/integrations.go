package apigatewayv2

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// This file owns an API's integrations and integration responses: their
// validation as AWS applies it, their mutations (inside the API's owner,
// through the Tx) and their reads (from the published state). Messages
// AWS is known to send are quoted; where none is recorded, the wording
// follows the nearest one API Gateway does send (docs/apigatewayv2-evidence.md).

// Protocol types.
const (
	integHTTP = "HTTP"
	integWS   = "WEBSOCKET"
)

// integKinds maps each accepted integration type to the AWS type it
// stands for: the spec's CLOUD_PROXY and CLOUD are AWS_PROXY and AWS.
var integKinds = map[string]string{
	"AWS": "AWS", "AWS_PROXY": "AWS_PROXY", "HTTP": "HTTP", "HTTP_PROXY": "HTTP_PROXY", "MOCK": "MOCK",
	"CLOUD": "AWS", "CLOUD_PROXY": "AWS_PROXY",
}

// IntegrationKind is the AWS integration type an integration type as sent
// stands for (CLOUD_PROXY is AWS_PROXY), or "" for an unknown one.
func IntegrationKind(integrationType string) string { return integKinds[integrationType] }

// Integration defaults and limits, by protocol (A: the model's
// TimeoutInMillis documentation).
const (
	integTimeoutHTTP      = 30000
	integTimeoutWebSocket = 29000
	integMinTimeout       = 50
	integDefaultMock      = "${integration.response.statuscode}"
)

// Messages. The first three are real AWS answers (R); Method to ARN are
// the REST API's (v1) answers for the same members, and so is Timeout
// (with the v2 bounds); PayloadRequired is LocalStack's (M); the others
// are this emulator's, in the same style.
const (
	integMsgHTTPProxyOnly   = "Currently, an API with a protocol type of HTTP may only be associated with proxy integrations (AWS_PROXY, HTTP_PROXY)"
	integMsgProxyPost       = "HttpMethod must be POST for %s IntegrationType"
	integMsgReferenced      = "Cannot delete Integration because it is referenced by the following Routes with Ids: [%s]"
	integMsgType            = "Invalid IntegrationType specified. Valid options are AWS,AWS_PROXY,HTTP,HTTP_PROXY,MOCK"
	integMsgMethod          = "Invalid HttpMethod specified. Valid options are GET,PUT,POST,DELETE,PATCH,OPTIONS,HEAD,ANY"
	integMsgPassthrough     = "Invalid PassthroughBehavior specified. Valid options are WHEN_NO_MATCH,WHEN_NO_TEMPLATES,NEVER"
	integMsgContentHandling = "Invalid ContentHandlingStrategy specified. Valid options are CONVERT_TO_BINARY,CONVERT_TO_TEXT"
	integMsgConnectionType  = "Invalid ConnectionType specified. Valid options are INTERNET,VPC_LINK"
	integMsgConnectionID    = "Connection ID must be specified for the VPC_LINK connection type"
	integMsgHTTPURI         = "Invalid HTTP endpoint specified for URI"
	integMsgARN             = "Invalid ARN specified in the request"
	integMsgPrivateURI      = "Invalid integration URI specified. For a private integration, specify the ARN of an Application Load Balancer listener, Network Load Balancer listener, or AWS Cloud Map service"
	integMsgTimeout         = "Timeout should be between 50 ms and %d ms"
	integMsgPayloadRequired = "PayloadFormatVersion is a required parameter for integration"
	integMsgPayloadValues   = "Invalid PayloadFormatVersion specified. Valid options are 1.0,2.0"
	integMsgURIRequired     = "IntegrationUri is a required parameter for integration"
	integMsgManaged         = "Cannot delete Integration %s because it is managed by API Gateway"
)

var (
	integMethods = []string{"GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS", "HEAD", "ANY"}
	// integSubtypes are the AWS service integrations of HTTP APIs (A: the
	// integration subtype reference).
	integSubtypes = []string{
		"EventBridge-PutEvents", "SQS-SendMessage", "SQS-ReceiveMessage", "SQS-DeleteMessage", "SQS-PurgeQueue",
		"AppConfig-GetConfiguration", "Kinesis-PutRecord", "StepFunctions-StartExecution",
		"StepFunctions-StartSyncExecution", "StepFunctions-StopExecution",
	}
	integPassthroughs     = []string{"WHEN_NO_MATCH", "WHEN_NO_TEMPLATES", "NEVER"}
	integContentHandlings = []string{"CONVERT_TO_BINARY", "CONVERT_TO_TEXT"}

	integHTTPURIRe = regexp.MustCompile(`^(?i:https?)://[^/\s?#]+`)
	integARNRe     = regexp.MustCompile(`^arn:[^:\s]+:[^:\s]+:[^:\s]*:[^:\s]*:\S+$`)
	// integPrivateURIRe: an ALB/NLB listener or a Cloud Map service (A).
	integPrivateURIRe = regexp.MustCompile(`^arn:[^:\s]+:(?:elasticloadbalancing:[^:\s]*:[^:\s]*:listener/|servicediscovery:[^:\s]*:[^:\s]*:service/)\S+$`)
	// HTTP APIs' parameter mapping (A: http-api-parameter-mapping).
	integHTTPRequestKeyRe  = regexp.MustCompile(`^(?:(?:append|overwrite|remove):(?:header|querystring)\.\S+|overwrite:path)$`)
	integHTTPResponseKeyRe = regexp.MustCompile(`^(?:(?:append|overwrite|remove):header\.\S+|overwrite:statuscode)$`)
	integStatusRe          = regexp.MustCompile(`^[2-5][0-9][0-9]$`)
	// WebSocket request parameters name the integration request (A: the
	// model's IntegrationParameters documentation).
	integWSRequestKeyRe = regexp.MustCompile(`^integration\.request\.(?:header|querystring|path)\.\S+$`)
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

func integMappingError(errs []string) *awswire.Error {
	return BadRequest("Invalid mapping expression specified: Validation Result: warnings : [], errors : [%s]", strings.Join(errs, ", "))
}

// integRead returns the published API.
func (s *Service) integRead(sc awswire.Scope, apiID string) (*HTTPAPI, error) {
	a, ok := s.API(sc, apiID)
	if !ok {
		return nil, APINotFound(sc, apiID)
	}
	return a, nil
}

// integOrder sorts by creation, then id (records restored from before
// Seq existed tie at 0).
func integOrder[T any](items []T, seq func(T) uint64, id func(T) string) []T {
	slices.SortFunc(items, func(a, b T) int {
		return cmp.Or(cmp.Compare(seq(a), seq(b)), strings.Compare(id(a), id(b)))
	})
	return items
}

// nextSeq is the Seq of a new item of a collection, which orders its list:
// after every item's, restored ones included (a restore bumps the
// service's counter past every record's Seq).
func nextSeq(t *Tx) uint64 { return t.svc.seq.Add(1) }

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
		if err := integApply(t, it, in, true); err != nil {
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
	a, err := s.integRead(sc, apiID)
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
	a, err := s.integRead(sc, apiID)
	if err != nil {
		return nil, err
	}
	return integOrder(slices.Collect(a.Integrations.Values()),
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
		if err := integApply(t, &it, in, false); err != nil {
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
			return struct{}{}, Conflict(integMsgReferenced, strings.Join(refs, ", "))
		}
		if it.APIGatewayManaged {
			return struct{}{}, BadRequest(integMsgManaged, id)
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

// integApply applies in to it (a new integration when fresh), fills in
// what AWS defaults and checks the result.
func integApply(t *Tx, it *Integration, in IntegrationInput, fresh bool) error {
	protocol := t.State().API.ProtocolType
	typeChanged := false
	if in.IntegrationType != nil {
		typeChanged = *in.IntegrationType != it.IntegrationType
		it.IntegrationType = *in.IntegrationType
	}
	kind := integKinds[it.IntegrationType]
	if kind == "" {
		return BadRequest(integMsgType)
	}
	if protocol == integHTTP && kind != "AWS_PROXY" && kind != "HTTP_PROXY" {
		return BadRequest(integMsgHTTPProxyOnly)
	}
	integSet(&it.ConnectionID, in.ConnectionID)
	integSet(&it.ConnectionType, in.ConnectionType)
	integSet(&it.ContentHandlingStrategy, in.ContentHandlingStrategy)
	integSet(&it.CredentialsARN, in.CredentialsARN)
	integSet(&it.Description, in.Description)
	integSet(&it.IntegrationMethod, in.IntegrationMethod)
	integSet(&it.IntegrationSubtype, in.IntegrationSubtype)
	integSet(&it.IntegrationURI, in.IntegrationURI)
	integSet(&it.PassthroughBehavior, in.PassthroughBehavior)
	integSet(&it.PayloadFormatVersion, in.PayloadFormatVersion)
	integSet(&it.TemplateSelectionExpression, in.TemplateSelectionExpression)
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
	it.RequestParameters = integMergeParams(it.RequestParameters, in.RequestParameters, fresh)
	it.ResponseParameters = integMergeResponseParams(it.ResponseParameters, in.ResponseParameters)
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
		it.IntegrationMethod = integDefaultMethod(protocol, kind)
	}
	if kind == "MOCK" {
		it.IntegrationURI = ""
		it.IntegrationMethod = ""
	}
	if it.TimeoutInMillis == 0 && in.TimeoutInMillis == nil {
		it.TimeoutInMillis = integMaxTimeout(protocol)
	}
	if protocol == integWS {
		if it.PayloadFormatVersion == "" {
			it.PayloadFormatVersion = "1.0"
		}
		if it.PassthroughBehavior == "" {
			it.PassthroughBehavior = "WHEN_NO_MATCH"
		}
		if kind == "MOCK" && it.IntegrationResponseSelectionExpression == "" {
			it.IntegrationResponseSelectionExpression = integDefaultMock
		}
	}

	if err := integCheck(t, it, protocol, kind); err != nil {
		return err
	}
	if protocol == integHTTP {
		// WebSocket-only members: AWS accepts them on HTTP APIs and does
		// not echo them (T: Terraform always sends passthroughBehavior).
		it.PassthroughBehavior = ""
		it.ContentHandlingStrategy = ""
		it.RequestTemplates = nil
		it.TemplateSelectionExpression = ""
	}
	return nil
}

func integSet(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

// integDefaultMethod is the method AWS gives an integration sent without
// one: POST for Lambda (T, A), ANY for an HTTP API's HTTP proxy (R: quick
// create, and what CDK sends).
func integDefaultMethod(protocol, kind string) string {
	switch {
	case kind == "AWS_PROXY" || kind == "AWS":
		return "POST"
	case kind == "HTTP_PROXY" && protocol == integHTTP:
		return "ANY"
	}
	return ""
}

func integMaxTimeout(protocol string) int64 {
	if protocol == integWS {
		return integTimeoutWebSocket
	}
	return integTimeoutHTTP
}

// integMergeParams returns cur changed by in: a key with value "" goes
// (Terraform removes request parameters so), others are set. A new
// integration just drops the empty ones. The result is a new map.
func integMergeParams(cur, in map[string]string, fresh bool) map[string]string {
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

// integMergeResponseParams returns cur with each status code in in
// replaced by its mapping, or removed when that mapping is empty
// (Terraform removes them so).
func integMergeResponseParams(cur, in map[string]map[string]string) map[string]map[string]string {
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

// integCheck checks an integration as it is about to be stored.
func integCheck(t *Tx, it *Integration, protocol, kind string) error {
	if !slices.Contains([]string{"INTERNET", "VPC_LINK"}, it.ConnectionType) {
		return BadRequest(integMsgConnectionType)
	}
	if it.ConnectionType == "VPC_LINK" {
		if it.ConnectionID == "" {
			return BadRequest(integMsgConnectionID)
		}
		// An HTTP API's private integration goes through a VPC link of
		// this service; a WebSocket API's through a REST (v1) one.
		if protocol == integHTTP && !integLinkExists(t, it.ConnectionID) {
			return NotFound("VpcLink", "Invalid VpcLink identifier specified")
		}
	}
	if it.IntegrationMethod != "" && !slices.Contains(integMethods, it.IntegrationMethod) {
		return BadRequest(integMsgMethod)
	}
	if kind == "AWS_PROXY" && it.IntegrationMethod != "POST" {
		return BadRequest(integMsgProxyPost, it.IntegrationType)
	}
	if it.IntegrationSubtype != "" {
		if protocol != integHTTP || kind != "AWS_PROXY" {
			return BadRequest("IntegrationSubtype is supported only for AWS_PROXY integrations of HTTP APIs")
		}
		if !slices.Contains(integSubtypes, it.IntegrationSubtype) {
			return BadRequest("Invalid IntegrationSubtype specified. Valid options are %s", strings.Join(integSubtypes, ","))
		}
	}
	if err := integCheckURI(it, protocol, kind); err != nil {
		return err
	}
	if err := integCheckPayload(it, protocol, kind); err != nil {
		return err
	}
	if max := integMaxTimeout(protocol); it.TimeoutInMillis < integMinTimeout || it.TimeoutInMillis > max {
		return BadRequest(integMsgTimeout, max)
	}
	if it.PassthroughBehavior != "" && !slices.Contains(integPassthroughs, it.PassthroughBehavior) {
		return BadRequest(integMsgPassthrough)
	}
	if it.ContentHandlingStrategy != "" && !slices.Contains(integContentHandlings, it.ContentHandlingStrategy) {
		return BadRequest(integMsgContentHandling)
	}
	if it.CredentialsARN != "" && !integARNRe.MatchString(it.CredentialsARN) {
		return BadRequest(integMsgARN)
	}
	return integCheckParams(it, protocol)
}

func integLinkExists(t *Tx, id string) bool {
	d, ok := t.svc.scopes.Lookup(t.scope)
	if !ok {
		return false
	}
	_, ok = d.links.Get(id)
	return ok
}

// integCheckURI checks integrationUri against the integration's kind: a
// Lambda (or other AWS) ARN for AWS and AWS_PROXY, a URL for HTTP and
// HTTP_PROXY, a load balancer listener or Cloud Map service ARN for an
// HTTP API's private integration. An AWS service integration
// (integrationSubtype) needs none (A).
func integCheckURI(it *Integration, protocol, kind string) error {
	if kind == "MOCK" {
		return nil
	}
	if it.IntegrationURI == "" {
		if it.IntegrationSubtype != "" {
			return nil
		}
		return BadRequest(integMsgURIRequired)
	}
	switch {
	case kind == "AWS" || kind == "AWS_PROXY":
		if !integARNRe.MatchString(it.IntegrationURI) {
			return BadRequest(integMsgARN)
		}
	case protocol == integHTTP && it.ConnectionType == "VPC_LINK":
		if !integPrivateURIRe.MatchString(it.IntegrationURI) {
			return BadRequest(integMsgPrivateURI)
		}
	default:
		if !integHTTPURIRe.MatchString(it.IntegrationURI) {
			return BadRequest(integMsgHTTPURI)
		}
	}
	return nil
}

// integCheckPayload applies the payloadFormatVersion rules (A): required
// for HTTP APIs; 1.0 or 2.0 for Lambda proxy integrations, 1.0 for every
// other one, and for WebSocket APIs.
func integCheckPayload(it *Integration, protocol, kind string) error {
	v := it.PayloadFormatVersion
	if v == "" {
		return BadRequest(integMsgPayloadRequired)
	}
	if v != "1.0" && v != "2.0" {
		return BadRequest(integMsgPayloadValues)
	}
	if v == "2.0" {
		switch {
		case protocol == integWS:
			return BadRequest("PayloadFormatVersion 2.0 is not supported on protocolType WEBSOCKET")
		case kind != "AWS_PROXY" || it.IntegrationSubtype != "":
			return BadRequest("PayloadFormatVersion 2.0 is supported only for Lambda proxy (AWS_PROXY) integrations")
		}
	}
	return nil
}

// integCheckParams checks the request and response parameter mappings.
func integCheckParams(it *Integration, protocol string) error {
	if protocol == integWS {
		if len(it.ResponseParameters) > 0 {
			return BadRequest("ResponseParameters are not supported on protocolType WEBSOCKET")
		}
		var bad []string
		for _, k := range slices.Sorted(maps.Keys(it.RequestParameters)) {
			if !integWSRequestKeyRe.MatchString(k) {
				bad = append(bad, "Invalid mapping expression specified: "+k)
			}
		}
		if len(bad) > 0 {
			return integMappingError(bad)
		}
		return nil
	}
	// An AWS service integration's request parameters are the action's
	// own (QueueUrl, MessageBody...), not mappings.
	if it.IntegrationSubtype == "" {
		var bad []string
		for _, k := range slices.Sorted(maps.Keys(it.RequestParameters)) {
			if !integHTTPRequestKeyRe.MatchString(k) {
				bad = append(bad, "Invalid Request Actioned Parameter destination specified: "+k)
			}
		}
		if len(bad) > 0 {
			return integMappingError(bad)
		}
	}
	for _, code := range slices.Sorted(maps.Keys(it.ResponseParameters)) {
		if !integStatusRe.MatchString(code) {
			return BadRequest("Invalid status code specified: %s. Status codes must be between 200 and 599", code)
		}
		var bad []string
		for _, k := range slices.Sorted(maps.Keys(it.ResponseParameters[code])) {
			if !integHTTPResponseKeyRe.MatchString(k) {
				bad = append(bad, "Invalid Response Actioned Parameter destination specified: "+k)
			}
		}
		if len(bad) > 0 {
			return integMappingError(bad)
		}
	}
	return nil
}

// ---- integration responses ----

// integResponseKeyOK reports whether key is an integration response key:
// $default or a /regex/ (A).
func integResponseKeyOK(key string) bool {
	return key == "$default" || (len(key) > 2 && strings.HasPrefix(key, "/") && strings.HasSuffix(key, "/"))
}

// CreateIntegrationResponse adds a response to integration integrationID.
// Only WebSocket APIs have them (A).
func (s *Service) CreateIntegrationResponse(sc awswire.Scope, apiID, integrationID string, in IntegrationResponseInput) (*IntegrationResponse, error) {
	if in.IntegrationResponseKey == nil || *in.IntegrationResponseKey == "" {
		return nil, BadRequest("Integration response key is required")
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*IntegrationResponse, error) {
		st := t.State()
		if _, ok := st.Integrations.Get(integrationID); !ok {
			return nil, IntegrationNotFound()
		}
		if st.API.ProtocolType == integHTTP {
			return nil, BadRequest("Integration responses are not supported on protocolType HTTP")
		}
		ir := &IntegrationResponse{}
		if err := integResponseApply(st, integrationID, "", ir, in); err != nil {
			return nil, err
		}
		responses, _ := st.IntegrationResponses.Get(integrationID)
		ir.IntegrationResponseID = NewID(6, func(id string) bool { return responses.Has(id) })
		ir.Seq = nextSeq(t)
		t.PutIntegrationResponse(integrationID, ir)
		return ir, nil
	})
}

// integResponseApply applies in to ir (response id of the integration;
// "" for a new one) and checks the result.
func integResponseApply(st *HTTPAPI, integrationID, id string, ir *IntegrationResponse, in IntegrationResponseInput) error {
	integSet(&ir.IntegrationResponseKey, in.IntegrationResponseKey)
	integSet(&ir.ContentHandlingStrategy, in.ContentHandlingStrategy)
	integSet(&ir.TemplateSelectionExpression, in.TemplateSelectionExpression)
	// The maps are replaced whole, as Terraform sends them.
	if in.ResponseParameters != nil {
		ir.ResponseParameters = integNonEmpty(in.ResponseParameters)
	}
	if in.ResponseTemplates != nil {
		ir.ResponseTemplates = maps.Clone(in.ResponseTemplates)
		if len(ir.ResponseTemplates) == 0 {
			ir.ResponseTemplates = nil
		}
	}
	if !integResponseKeyOK(ir.IntegrationResponseKey) {
		return BadRequest("Invalid integration response key specified: %s. It must be $default or a regular expression between slashes, such as /2\\d\\d/", ir.IntegrationResponseKey)
	}
	if ir.ContentHandlingStrategy != "" && !slices.Contains(integContentHandlings, ir.ContentHandlingStrategy) {
		return BadRequest(integMsgContentHandling)
	}
	for rid, other := range st.IntegrationResponses.At(integrationID).All() {
		if rid != id && other.IntegrationResponseKey == ir.IntegrationResponseKey {
			return Conflict("Integration response with key %s already exists for this integration", ir.IntegrationResponseKey)
		}
	}
	return nil
}

func integNonEmpty(in map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		if v != "" {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// integResponses returns the responses of integration integrationID of
// the published API.
func (s *Service) integResponses(sc awswire.Scope, apiID, integrationID string) (pmap.Map[*IntegrationResponse], error) {
	a, err := s.integRead(sc, apiID)
	if err != nil {
		return pmap.Map[*IntegrationResponse]{}, err
	}
	if _, ok := a.Integrations.Get(integrationID); !ok {
		return pmap.Map[*IntegrationResponse]{}, IntegrationNotFound()
	}
	return a.IntegrationResponses.At(integrationID), nil
}

// GetIntegrationResponse returns one response of an integration.
func (s *Service) GetIntegrationResponse(sc awswire.Scope, apiID, integrationID, id string) (*IntegrationResponse, error) {
	rs, err := s.integResponses(sc, apiID, integrationID)
	if err != nil {
		return nil, err
	}
	ir, ok := rs.Get(id)
	if !ok {
		return nil, IntegrationResponseNotFound()
	}
	return ir, nil
}

// IntegrationResponses returns an integration's responses in creation
// order.
func (s *Service) IntegrationResponses(sc awswire.Scope, apiID, integrationID string) ([]*IntegrationResponse, error) {
	rs, err := s.integResponses(sc, apiID, integrationID)
	if err != nil {
		return nil, err
	}
	return integOrder(slices.Collect(rs.Values()),
		func(r *IntegrationResponse) uint64 { return r.Seq },
		func(r *IntegrationResponse) string { return r.IntegrationResponseID }), nil
}

// UpdateIntegrationResponse changes the members in sets.
func (s *Service) UpdateIntegrationResponse(sc awswire.Scope, apiID, integrationID, id string, in IntegrationResponseInput) (*IntegrationResponse, error) {
	if in.IntegrationResponseKey != nil && *in.IntegrationResponseKey == "" {
		return nil, BadRequest("Integration response key is required")
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*IntegrationResponse, error) {
		st := t.State()
		if _, ok := st.Integrations.Get(integrationID); !ok {
			return nil, IntegrationNotFound()
		}
		cur, ok := st.IntegrationResponses.At(integrationID).Get(id)
		if !ok {
			return nil, IntegrationResponseNotFound()
		}
		ir := *cur
		if err := integResponseApply(st, integrationID, id, &ir, in); err != nil {
			return nil, err
		}
		t.PutIntegrationResponse(integrationID, &ir)
		return &ir, nil
	})
}

// DeleteIntegrationResponse deletes one response of an integration.
func (s *Service) DeleteIntegrationResponse(sc awswire.Scope, apiID, integrationID, id string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		st := t.State()
		if _, ok := st.Integrations.Get(integrationID); !ok {
			return struct{}{}, IntegrationNotFound()
		}
		if _, ok := st.IntegrationResponses.At(integrationID).Get(id); !ok {
			return struct{}{}, IntegrationResponseNotFound()
		}
		t.DeleteIntegrationResponse(integrationID, id)
		return struct{}{}, nil
	})
	return err
}

// IntegrationsPageKey is the pagination key of an integration, an
// integration response or a model: its creation order, then its id, so
// that keys sort as the list does.
func IntegrationsPageKey(seq uint64, id string) string { return fmt.Sprintf("%020d/%s", seq, id) }
