package apigateway

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// Resource is one path of an API, with its methods. Encoded as is it is the
// resource with its methods embedded (GetResources?embed=methods, and the
// persisted record); without embed, AWS lists each method as {} (see
// AppendResourceSummary).
type Resource struct {
	ID       string             `json:"id"`
	ParentID string             `json:"parentId,omitempty"`
	PathPart string             `json:"pathPart,omitempty"`
	Path     string             `json:"path"`
	Methods  map[string]*Method `json:"resourceMethods,omitempty"`
}

// Method is one HTTP method of a resource, with its integration and
// responses. Maps the client gave empty are echoed as {} (omitzero).
type Method struct {
	HTTPMethod          string                     `json:"httpMethod"`
	AuthorizationType   string                     `json:"authorizationType"`
	AuthorizerID        string                     `json:"authorizerId,omitempty"`
	APIKeyRequired      bool                       `json:"apiKeyRequired"`
	RequestValidatorID  string                     `json:"requestValidatorId,omitempty"`
	OperationName       string                     `json:"operationName,omitempty"`
	RequestParameters   map[string]bool            `json:"requestParameters,omitzero"`
	RequestModels       map[string]string          `json:"requestModels,omitzero"`
	MethodResponses     map[string]*MethodResponse `json:"methodResponses,omitempty"`
	Integration         *Integration               `json:"methodIntegration,omitempty"`
	AuthorizationScopes []string                   `json:"authorizationScopes,omitempty"`
}

// MethodResponse is a method's declared response for one status code.
type MethodResponse struct {
	StatusCode         string            `json:"statusCode"`
	ResponseParameters map[string]bool   `json:"responseParameters,omitzero"`
	ResponseModels     map[string]string `json:"responseModels,omitzero"`
}

// TLSConfig is an integration's TLS settings.
type TLSConfig struct {
	InsecureSkipVerification bool `json:"insecureSkipVerification"`
}

// Integration is a method's backend. HTTPMethod travels as "httpMethod"
// (the model's integrationHttpMethod). CacheKeyParameters is never nil: AWS
// always sends the list, [] when empty.
type Integration struct {
	Type                 string                          `json:"type"`
	HTTPMethod           string                          `json:"httpMethod,omitempty"`
	URI                  string                          `json:"uri,omitempty"`
	ConnectionType       string                          `json:"connectionType,omitempty"`
	ConnectionID         string                          `json:"connectionId,omitempty"`
	Credentials          string                          `json:"credentials,omitempty"`
	RequestParameters    map[string]string               `json:"requestParameters,omitzero"`
	RequestTemplates     Templates                       `json:"requestTemplates,omitzero"`
	PassthroughBehavior  string                          `json:"passthroughBehavior,omitempty"`
	ContentHandling      string                          `json:"contentHandling,omitempty"`
	TimeoutInMillis      int64                           `json:"timeoutInMillis"`
	CacheNamespace       string                          `json:"cacheNamespace,omitempty"`
	CacheKeyParameters   []string                        `json:"cacheKeyParameters"`
	IntegrationResponses map[string]*IntegrationResponse `json:"integrationResponses,omitempty"`
	TLSConfig            *TLSConfig                      `json:"tlsConfig,omitempty"`
	ResponseTransferMode string                          `json:"responseTransferMode,omitempty"`
	IntegrationTarget    string                          `json:"integrationTarget,omitempty"`
}

// IntegrationResponse maps a backend answer to a method response.
// SelectionPattern is nil when never given: AWS echoes "" when it was given
// empty, and omits it otherwise.
type IntegrationResponse struct {
	StatusCode         string            `json:"statusCode"`
	SelectionPattern   *string           `json:"selectionPattern,omitempty"`
	ResponseParameters map[string]string `json:"responseParameters,omitzero"`
	ResponseTemplates  Templates         `json:"responseTemplates,omitzero"`
	ContentHandling    string            `json:"contentHandling,omitempty"`
}

// Pattern is the selection pattern, "" when none was given (the default
// response).
func (r *IntegrationResponse) Pattern() string {
	if r.SelectionPattern == nil {
		return ""
	}
	return *r.SelectionPattern
}

// Templates maps content types to mapping templates. An empty template is
// no template: AWS stores it as null and sends it as null, so it is encoded
// that way (and null decodes back to "").
type Templates map[string]string

// MarshalJSON writes the map with keys sorted, "" as null, and no HTML
// escaping, as restjson.Marshal does for everything else.
func (t Templates) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("null"), nil
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(awswire.AppendString(nil, k))
		b.WriteByte(':')
		if v := t[k]; v == "" {
			b.WriteString("null")
		} else {
			b.Write(awswire.AppendString(nil, v))
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var _ json.Marshaler = Templates(nil)

// AppendResourceSummary appends r as GetResource and GetResources (without
// embed) send it: each method as {}.
func AppendResourceSummary(dst []byte, r *Resource) []byte {
	dst = append(dst, `{"id":`...)
	dst = awswire.AppendString(dst, r.ID)
	if r.ParentID != "" {
		dst = append(dst, `,"parentId":`...)
		dst = awswire.AppendString(dst, r.ParentID)
	}
	if r.PathPart != "" {
		dst = append(dst, `,"pathPart":`...)
		dst = awswire.AppendString(dst, r.PathPart)
	}
	dst = append(dst, `,"path":`...)
	dst = awswire.AppendString(dst, r.Path)
	if len(r.Methods) > 0 {
		dst = append(dst, `,"resourceMethods":{`...)
		for i, m := range sortedMethodNames(r.Methods) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = awswire.AppendString(dst, m)
			dst = append(dst, `:{}`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func sortedMethodNames(ms map[string]*Method) []string {
	var buf [8]string
	names := buf[:0]
	for m := range ms {
		names = append(names, m)
	}
	slices.Sort(names)
	return names
}

// ResourcesByPath returns the resources ordered by path, as GetResources
// lists them (paths are unique; ids break ties in a corrupt state).
func ResourcesByPath(rs pmap.Map[*Resource]) []*Resource {
	out := slices.Collect(rs.Values())
	slices.SortFunc(out, func(a, b *Resource) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
