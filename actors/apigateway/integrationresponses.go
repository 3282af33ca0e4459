package apigateway

import (
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// IntegrationResponseInput is the body of PutIntegrationResponse.
type IntegrationResponseInput struct {
	SelectionPattern   *string           `json:"selectionPattern"`
	ResponseParameters map[string]string `json:"responseParameters"`
	ResponseTemplates  map[string]string `json:"responseTemplates"`
	ContentHandling    string            `json:"contentHandling"`
}

// withIntegrationResponses stores a method whose integration has the
// responses irs.
func withIntegrationResponses(t *Tx, r *Resource, httpMethod string, m *Method, irs map[string]*IntegrationResponse) {
	it := m.Integration.clone()
	it.IntegrationResponses = orNil(irs)
	n := m.clone()
	n.Integration = it
	putMethod(t, r, httpMethod, n)
}

// PutIntegrationResponse sets (or replaces) an integration's response for
// a status code. AWS does not require the method response to exist.
func (s *Service) PutIntegrationResponse(sc awswire.Scope, apiID, iD, httpMethod, status string, in IntegrationResponseInput) (*IntegrationResponse, error) {
	var v Validation
	v.Pattern("statusCode", status, StatusCodePattern, StatusCodePatternText)
	if in.ContentHandling != "" {
		v.Enum("putIntegrationResponseInput.contentHandling", in.ContentHandling, contentHandlings...)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*IntegrationResponse, error) {
		r, m, err := lookupMethod(t, iD, httpMethod, msgMethodNotFound)
		if err != nil {
			return nil, err
		}
		if m.Integration == nil {
			return nil, notFound(msgIntegrationNotFound)
		}
		if err := checkContentTypes(in.ResponseTemplates); err != nil {
			return nil, err
		}
		if err := checkResponseParamNames(sortedKeys(in.ResponseParameters)); err != nil {
			return nil, err
		}
		ir := &IntegrationResponse{
			StatusCode:         status,
			SelectionPattern:   in.SelectionPattern,
			ResponseParameters: in.ResponseParameters,
			ResponseTemplates:  Templates(in.ResponseTemplates),
			ContentHandling:    in.ContentHandling,
		}
		irs := maps.Clone(m.Integration.IntegrationResponses)
		if irs == nil {
			irs = map[string]*IntegrationResponse{}
		}
		irs[status] = ir
		withIntegrationResponses(t, r, httpMethod, m, irs)
		return ir, nil
	})
}

var integrationResponsePatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/selectionPattern", []string{"replace"}},
	{"/contentHandling", []string{"replace"}},
	{"/responseParameters/*", []string{"add", "remove", "replace"}},
	{"/responseTemplates/*", []string{"add", "remove", "replace"}},
}}

// lookupIntegrationResponse finds an integration response in the Tx's
// state; a missing method is reported as a missing integration, as AWS
// does for the operations that change an existing response.
func lookupIntegrationResponse(t *Tx, iD, httpMethod, status string) (*Resource, *Method, *IntegrationResponse, error) {
	r, m, err := lookupMethod(t, iD, httpMethod, msgIntegrationNotFound)
	if err != nil {
		return nil, nil, nil, err
	}
	if m.Integration == nil {
		return nil, nil, nil, notFound(msgIntegrationNotFound)
	}
	ir, ok := m.Integration.IntegrationResponses[status]
	if !ok {
		return nil, nil, nil, notFound(msgStatusNotFound)
	}
	return r, m, ir, nil
}

// UpdateIntegrationResponse patches an integration response.
func (s *Service) UpdateIntegrationResponse(sc awswire.Scope, apiID, iD, httpMethod, status string, ops []PatchOp) (*IntegrationResponse, error) {
	var v Validation
	v.PatchOps("updateIntegrationResponseInput", ops)
	v.Pattern("statusCode", status, StatusCodePattern, StatusCodePatternText)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*IntegrationResponse, error) {
		r, m, ir, err := lookupIntegrationResponse(t, iD, httpMethod, status)
		if err != nil {
			return nil, err
		}
		if err := integrationResponsePatch.Check(nullPaths(ops)); err != nil {
			return nil, err
		}
		n := *ir
		n.ResponseParameters = maps.Clone(ir.ResponseParameters)
		n.ResponseTemplates = maps.Clone(ir.ResponseTemplates)
		for _, o := range ops {
			var err error
			switch {
			case o.Path == "/selectionPattern":
				p := o.Val()
				n.SelectionPattern = &p
			case o.Path == "/contentHandling":
				if o.Val() != "" && !slices.Contains(contentHandlings, o.Val()) {
					return nil, BadRequest(msgContentHandling)
				}
				n.ContentHandling = o.Val()
			case strings.HasPrefix(o.Path, "/responseParameters/"):
				name := PathKey(o.Path, "/responseParameters/")
				if o.Op == "add" {
					if err := checkResponseParamNames([]string{name}); err != nil {
						return nil, err
					}
				}
				if n.ResponseParameters == nil {
					n.ResponseParameters = map[string]string{}
				}
				err = patchMapEntry(n.ResponseParameters, name, o, o.Val(), msgParamNotFound)
			case strings.HasPrefix(o.Path, "/responseTemplates/"):
				ct := PathKey(o.Path, "/responseTemplates/")
				if o.Op == "add" {
					if err := checkContentTypes(Templates{ct: ""}); err != nil {
						return nil, err
					}
				}
				if n.ResponseTemplates == nil {
					n.ResponseTemplates = Templates{}
				}
				err = patchMapEntry(n.ResponseTemplates, ct, o, o.Val(), msgContentTypeNotFound)
			}
			if err != nil {
				return nil, err
			}
		}
		n.ResponseParameters = orNil(n.ResponseParameters)
		n.ResponseTemplates = orNil(n.ResponseTemplates)
		irs := maps.Clone(m.Integration.IntegrationResponses)
		irs[status] = &n
		withIntegrationResponses(t, r, httpMethod, m, irs)
		return &n, nil
	})
}

// DeleteIntegrationResponse deletes an integration response.
func (s *Service) DeleteIntegrationResponse(sc awswire.Scope, apiID, iD, httpMethod, status string) error {
	if err := checkStatusCode(status); err != nil {
		return err
	}
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		r, m, _, err := lookupIntegrationResponse(t, iD, httpMethod, status)
		if err != nil {
			return struct{}{}, err
		}
		irs := maps.Clone(m.Integration.IntegrationResponses)
		delete(irs, status)
		withIntegrationResponses(t, r, httpMethod, m, irs)
		return struct{}{}, nil
	})
	return err
}
