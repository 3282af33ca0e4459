package apigateway

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// IntegrationInput is the body of PutIntegration.
type IntegrationInput struct {
	Type                 *string           `json:"type"`
	HTTPMethod           string            `json:"httpMethod"`
	URI                  string            `json:"uri"`
	ConnectionType       string            `json:"connectionType"`
	ConnectionID         string            `json:"connectionId"`
	Credentials          string            `json:"credentials"`
	RequestParameters    map[string]string `json:"requestParameters"`
	RequestTemplates     map[string]string `json:"requestTemplates"`
	PassthroughBehavior  string            `json:"passthroughBehavior"`
	CacheNamespace       string            `json:"cacheNamespace"`
	CacheKeyParameters   []string          `json:"cacheKeyParameters"`
	ContentHandling      string            `json:"contentHandling"`
	TimeoutInMillis      *int32            `json:"timeoutInMillis"`
	TLSConfig            *TLSConfig        `json:"tlsConfig"`
	ResponseTransferMode string            `json:"responseTransferMode"`
	IntegrationTarget    string            `json:"integrationTarget"`
}

// integrationKinds maps each accepted type to the AWS type whose rules it
// follows: the spec's CLOUD types behave as AWS's.
var integrationKinds = map[string]string{
	"HTTP": "HTTP", "HTTP_PROXY": "HTTP_PROXY", "AWS": "AWS", "AWS_PROXY": "AWS_PROXY", "MOCK": "MOCK",
	"CLOUD": "AWS", "CLOUD_PROXY": "AWS_PROXY",
}

var (
	contentHandlings   = []string{"CONVERT_TO_BINARY", "CONVERT_TO_TEXT"}
	connectionTypes    = []string{"INTERNET", "VPC_LINK"}
	transferModes      = []string{"BUFFERED", "STREAM"}
	passthroughs       = []string{"WHEN_NO_MATCH", "WHEN_NO_TEMPLATES", "NEVER"}
	httpURIRe          = regexp.MustCompile(`^(?i:https?)://[^/\s?#]+`)
	arnRe              = regexp.MustCompile(`^arn:[^:]+:[^:]+:[^:]*:[^:]*:.+`)
	integrationARNRe   = regexp.MustCompile(`^arn:[^:]+:apigateway:[^:]*:([^:]+):(?:path|action)/`)
	integrationParamRe = regexp.MustCompile(`^integration\.request\.(path|querystring|multivaluequerystring|header|multivalueheader)\.\S+$`)
	contentTypeRe      = regexp.MustCompile(`^[^/\s]+/[^/\s]+`)
)

// PutIntegration sets (or replaces) a method's integration.
func (s *Service) PutIntegration(sc awswire.Scope, apiID, iD, httpMethod string, in IntegrationInput) (*Integration, error) {
	var v Validation
	switch {
	case in.Type == nil:
		v.NotNull("putIntegrationInput.type", false)
	case integrationKinds[*in.Type] == "":
		v.Enum("putIntegrationInput.type", *in.Type, "HTTP", "MOCK", "AWS_PROXY", "HTTP_PROXY", "AWS")
	}
	if in.ConnectionType != "" {
		v.Enum("putIntegrationInput.connectionType", in.ConnectionType, connectionTypes...)
	}
	if in.ContentHandling != "" {
		v.Enum("putIntegrationInput.contentHandling", in.ContentHandling, contentHandlings...)
	}
	if in.ResponseTransferMode != "" {
		v.Enum("putIntegrationInput.responseTransferMode", in.ResponseTransferMode, transferModes...)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Integration, error) {
		r, m, err := lookupMethod(t, iD, httpMethod, msgMethodNotFound)
		if err != nil {
			return nil, err
		}
		it := &Integration{
			Type:                 *in.Type,
			HTTPMethod:           in.HTTPMethod,
			URI:                  in.URI,
			ConnectionType:       in.ConnectionType,
			ConnectionID:         in.ConnectionID,
			Credentials:          in.Credentials,
			RequestParameters:    in.RequestParameters,
			RequestTemplates:     Templates(in.RequestTemplates),
			PassthroughBehavior:  in.PassthroughBehavior,
			ContentHandling:      in.ContentHandling,
			TimeoutInMillis:      defaultTimeoutMillis,
			CacheNamespace:       in.CacheNamespace,
			CacheKeyParameters:   in.CacheKeyParameters,
			TLSConfig:            in.TLSConfig,
			ResponseTransferMode: in.ResponseTransferMode,
			IntegrationTarget:    in.IntegrationTarget,
		}
		if in.TimeoutInMillis != nil {
			it.TimeoutInMillis = int64(*in.TimeoutInMillis)
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
		settleIntegration(it)
		if err := checkIntegration(m, it); err != nil {
			return nil, err
		}
		n := m.clone()
		n.Integration = it
		putMethod(t, r, httpMethod, n)
		return it, nil
	})
}

// settleIntegration applies what AWS derives: MOCK keeps no URI; HTTP
// integrations are INTERNET unless told otherwise.
func settleIntegration(it *Integration) {
	kind := integrationKinds[it.Type]
	if kind == "MOCK" {
		it.URI = ""
	}
	if it.ConnectionType == "" && (kind == "HTTP" || kind == "HTTP_PROXY") {
		it.ConnectionType = "INTERNET"
	}
}

// checkIntegration checks an integration as it is about to be stored, in
// the order AWS reports problems.
func checkIntegration(m *Method, it *Integration) error {
	kind := integrationKinds[it.Type]
	if it.HTTPMethod == "" && kind != "MOCK" {
		return BadRequest(msgIntegrationMethod)
	}
	switch kind {
	case "HTTP", "HTTP_PROXY":
		if !httpURIRe.MatchString(it.URI) {
			return BadRequest(msgHTTPURI)
		}
	case "AWS_PROXY":
		svc := ""
		if sm := integrationARNRe.FindStringSubmatch(it.URI); sm != nil {
			svc = sm[1]
		} else if strings.Contains(it.URI, ":lambda:") {
			svc = "lambda"
		} else if strings.Contains(it.URI, ":firehose:") {
			svc = "firehose"
		}
		if svc != "lambda" && svc != "firehose" {
			return BadRequest("Integrations of type '%s' currently only supports Lambda function and Firehose stream invocations.", it.Type)
		}
		fallthrough
	case "AWS":
		if !arnRe.MatchString(it.URI) {
			return BadRequest(msgARN)
		}
		if !integrationARNRe.MatchString(it.URI) {
			return BadRequest(msgARNPathAction)
		}
	}
	if !slices.Contains(passthroughs, it.PassthroughBehavior) {
		return BadRequest(msgPassthrough)
	}
	if it.TimeoutInMillis < minTimeoutMillis || it.TimeoutInMillis > maxTimeoutMillis {
		return BadRequest(msgTimeout)
	}
	if it.ConnectionType == "VPC_LINK" && it.ConnectionID == "" {
		return BadRequest(msgConnectionID)
	}
	if err := checkContentTypes(it.RequestTemplates); err != nil {
		return err
	}
	return checkIntegrationParams(m, it)
}

// checkContentTypes checks the content types that key templates.
func checkContentTypes(templates Templates) error {
	var bad []string
	for _, ct := range sortedKeys(templates) {
		if !contentTypeRe.MatchString(ct) {
			bad = append(bad, "Invalid content type specified: "+ct)
		}
	}
	if len(bad) > 0 {
		return BadRequest("Validation Result: warnings : [], errors : [%s]", strings.Join(bad, ", "))
	}
	return nil
}

// checkIntegrationParams checks the integration request parameter names
// and that each method request parameter they (or the cache keys) use is
// declared on the method, as AWS requires.
func checkIntegrationParams(m *Method, it *Integration) error {
	var bad []string
	for _, k := range sortedKeys(it.RequestParameters) {
		if !integrationParamRe.MatchString(k) {
			bad = append(bad, "Invalid mapping expression specified: "+k)
		}
	}
	if len(bad) > 0 {
		return mappingError(bad)
	}
	undeclared := func(expr string) bool {
		if !methodParamRe.MatchString(expr) {
			return false
		}
		_, ok := m.RequestParameters[expr]
		return !ok
	}
	for _, k := range sortedKeys(it.RequestParameters) {
		if v := it.RequestParameters[k]; undeclared(v) {
			bad = append(bad, "Invalid mapping expression parameter specified: "+v)
		}
	}
	for _, p := range it.CacheKeyParameters {
		if undeclared(p) {
			bad = append(bad, "Invalid mapping expression parameter specified: "+p)
		}
	}
	if len(bad) > 0 {
		return mappingError(bad)
	}
	return nil
}

var integrationPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/uri", []string{"replace"}},
	{"/httpMethod", []string{"replace"}},
	{"/passthroughBehavior", []string{"replace"}},
	{"/timeoutInMillis", []string{"replace"}},
	{"/contentHandling", []string{"replace"}},
	{"/cacheNamespace", []string{"replace"}},
	{"/cacheKeyParameters/*", []string{"add", "remove", "replace"}},
	{"/connectionType", []string{"replace"}},
	{"/connectionId", []string{"replace"}},
	{"/credentials", []string{"replace"}},
	{"/requestParameters/*", []string{"add", "remove", "replace"}},
	{"/requestTemplates/*", []string{"add", "remove", "replace"}},
	{"/tlsConfig/insecureSkipVerification", []string{"replace"}},
	{"/responseTransferMode", []string{"replace"}},
	{"/integrationTarget", []string{"replace"}},
}}

// UpdateIntegration patches a method's integration.
func (s *Service) UpdateIntegration(sc awswire.Scope, apiID, iD, httpMethod string, ops []PatchOp) (*Integration, error) {
	var v Validation
	v.PatchOps("updateIntegrationInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*Integration, error) {
		r, m, err := lookupMethod(t, iD, httpMethod, msgIntegrationNotFound)
		if err != nil {
			return nil, err
		}
		if m.Integration == nil {
			return nil, notFound(msgIntegrationNotFound)
		}
		if err := integrationPatch.Check(nullPaths(ops)); err != nil {
			return nil, err
		}
		n := m.Integration.clone()
		n.RequestParameters = maps.Clone(n.RequestParameters)
		n.RequestTemplates = maps.Clone(n.RequestTemplates)
		n.CacheKeyParameters = slices.Clone(n.CacheKeyParameters)
		for _, o := range ops {
			if err := patchIntegration(n, o); err != nil {
				return nil, err
			}
		}
		n.RequestParameters = orNil(n.RequestParameters)
		n.RequestTemplates = orNil(n.RequestTemplates)
		if n.CacheKeyParameters == nil {
			n.CacheKeyParameters = []string{}
		}
		settleIntegration(n)
		if err := checkIntegration(m, n); err != nil {
			return nil, err
		}
		nm := m.clone()
		nm.Integration = n
		putMethod(t, r, httpMethod, nm)
		return n, nil
	})
}

func patchIntegration(n *Integration, o PatchOp) error {
	val := o.Val()
	switch {
	case o.Path == "/uri":
		n.URI = val
	case o.Path == "/httpMethod":
		n.HTTPMethod = val
	case o.Path == "/passthroughBehavior":
		n.PassthroughBehavior = val
	case o.Path == "/timeoutInMillis":
		ms, err := ParseInt(o)
		if err != nil {
			return err
		}
		n.TimeoutInMillis = ms
	case o.Path == "/contentHandling":
		if val != "" && !slices.Contains(contentHandlings, val) {
			return BadRequest(msgContentHandling)
		}
		n.ContentHandling = val
	case o.Path == "/cacheNamespace":
		n.CacheNamespace = val
	case o.Path == "/connectionType":
		if val != "" && !slices.Contains(connectionTypes, val) {
			return BadRequest(msgConnectionType)
		}
		n.ConnectionType = val
	case o.Path == "/connectionId":
		n.ConnectionID = val
	case o.Path == "/credentials":
		n.Credentials = val
	case o.Path == "/responseTransferMode":
		if val != "" && !slices.Contains(transferModes, val) {
			return BadRequest(msgTransferMode)
		}
		n.ResponseTransferMode = val
	case o.Path == "/integrationTarget":
		n.IntegrationTarget = val
	case o.Path == "/tlsConfig/insecureSkipVerification":
		n.TLSConfig = &TLSConfig{InsecureSkipVerification: patchBool(o)}
	case strings.HasPrefix(o.Path, "/cacheKeyParameters/"):
		p := PathKey(o.Path, "/cacheKeyParameters/")
		has := slices.Contains(n.CacheKeyParameters, p)
		switch {
		case o.Op == "add" && !has:
			n.CacheKeyParameters = append(n.CacheKeyParameters, p)
		case o.Op != "add" && !has:
			return notFound(msgParamNotFound)
		case o.Op == "remove":
			n.CacheKeyParameters = slices.DeleteFunc(n.CacheKeyParameters, func(s string) bool { return s == p })
		}
	case strings.HasPrefix(o.Path, "/requestParameters/"):
		if n.RequestParameters == nil {
			n.RequestParameters = map[string]string{}
		}
		return patchMapEntry(n.RequestParameters, PathKey(o.Path, "/requestParameters/"), o, val, msgParamNotFound)
	case strings.HasPrefix(o.Path, "/requestTemplates/"):
		if n.RequestTemplates == nil {
			n.RequestTemplates = Templates{}
		}
		return patchMapEntry(n.RequestTemplates, PathKey(o.Path, "/requestTemplates/"), o, val, msgContentTypeNotFound)
	}
	return nil
}

// DeleteIntegration deletes a method's integration and its responses.
func (s *Service) DeleteIntegration(sc awswire.Scope, apiID, iD, httpMethod string) error {
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		r, m, err := lookupMethod(t, iD, httpMethod, msgIntegrationNotFound)
		if err != nil {
			return struct{}{}, err
		}
		if m.Integration == nil {
			return struct{}{}, notFound(msgIntegrationNotFound)
		}
		n := m.clone()
		n.Integration = nil
		putMethod(t, r, httpMethod, n)
		return struct{}{}, nil
	})
	return err
}
