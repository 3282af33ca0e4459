package apigateway

import (
	"maps"
	"regexp"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// MethodResponseInput is the body of PutMethodResponse.
type MethodResponseInput struct {
	ResponseParameters map[string]bool   `json:"responseParameters"`
	ResponseModels     map[string]string `json:"responseModels"`
}

var responseParamRe = regexp.MustCompile(`^method\.response\.header\.\S+$`)

// checkResponseParamNames checks method response parameter names (the
// keys of both method and integration response parameters).
func checkResponseParamNames(keys []string) error {
	var bad []string
	for _, k := range keys {
		if !responseParamRe.MatchString(k) {
			bad = append(bad, "Invalid mapping expression specified: "+k)
		}
	}
	if len(bad) > 0 {
		return mappingError(bad)
	}
	return nil
}

// PutMethodResponse declares a method's response for a status code.
func (s *Service) PutMethodResponse(sc awswire.Scope, apiID, iD, httpMethod, status string, in MethodResponseInput) (*MethodResponse, error) {
	if err := checkStatusCode(status); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*MethodResponse, error) {
		st := t.State()
		r, m, err := lookupMethod(t, iD, httpMethod, msgMethodNotFound)
		if err != nil {
			return nil, err
		}
		if err := checkResponseParamNames(sortedKeys(in.ResponseParameters)); err != nil {
			return nil, err
		}
		if err := checkModels(st, in.ResponseModels); err != nil {
			return nil, err
		}
		if _, ok := m.MethodResponses[status]; ok {
			return nil, Conflict("Response already exists for this resource")
		}
		mr := &MethodResponse{StatusCode: status, ResponseParameters: in.ResponseParameters, ResponseModels: in.ResponseModels}
		n := m.clone()
		n.MethodResponses = maps.Clone(m.MethodResponses)
		if n.MethodResponses == nil {
			n.MethodResponses = map[string]*MethodResponse{}
		}
		n.MethodResponses[status] = mr
		putMethod(t, r, httpMethod, n)
		return mr, nil
	})
}

var methodResponsePatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/responseParameters/*", []string{"add", "remove", "replace"}},
	{"/responseModels/*", []string{"add", "remove", "replace"}},
}}

// UpdateMethodResponse patches a method response.
func (s *Service) UpdateMethodResponse(sc awswire.Scope, apiID, iD, httpMethod, status string, ops []PatchOp) (*MethodResponse, error) {
	var v Validation
	v.PatchOps("updateMethodResponseInput", ops)
	v.Pattern("statusCode", status, StatusCodePattern, StatusCodePatternText)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return mutateTree(s, sc, apiID, func(t *Tx) (*MethodResponse, error) {
		st := t.State()
		r, m, err := lookupMethod(t, iD, httpMethod, msgMethodNotFound)
		if err != nil {
			return nil, err
		}
		mr, ok := m.MethodResponses[status]
		if !ok {
			return nil, notFound(msgStatusNotFound)
		}
		if err := methodResponsePatch.Check(nullPaths(ops)); err != nil {
			return nil, err
		}
		n := *mr
		n.ResponseParameters = maps.Clone(mr.ResponseParameters)
		n.ResponseModels = maps.Clone(mr.ResponseModels)
		for _, o := range ops {
			var err error
			switch {
			case strings.HasPrefix(o.Path, "/responseParameters/"):
				name := PathKey(o.Path, "/responseParameters/")
				if o.Op == "add" {
					if err := checkResponseParamNames([]string{name}); err != nil {
						return nil, err
					}
				}
				if n.ResponseParameters == nil {
					n.ResponseParameters = map[string]bool{}
				}
				err = patchMapEntry(n.ResponseParameters, name, o, patchBool(o), msgParamNotFound)
			case strings.HasPrefix(o.Path, "/responseModels/"):
				if n.ResponseModels == nil {
					n.ResponseModels = map[string]string{}
				}
				err = patchMapEntry(n.ResponseModels, PathKey(o.Path, "/responseModels/"), o, o.Val(), msgContentTypeNotFound)
				if err == nil && o.Op != "remove" {
					err = checkModels(st, map[string]string{"": o.Val()})
				}
			}
			if err != nil {
				return nil, err
			}
		}
		n.ResponseParameters = orNil(n.ResponseParameters)
		n.ResponseModels = orNil(n.ResponseModels)
		nm := m.clone()
		nm.MethodResponses = maps.Clone(m.MethodResponses)
		nm.MethodResponses[status] = &n
		putMethod(t, r, httpMethod, nm)
		return &n, nil
	})
}

// DeleteMethodResponse deletes a method response.
func (s *Service) DeleteMethodResponse(sc awswire.Scope, apiID, iD, httpMethod, status string) error {
	if err := checkStatusCode(status); err != nil {
		return err
	}
	_, err := mutateTree(s, sc, apiID, func(t *Tx) (struct{}, error) {
		r, m, err := lookupMethod(t, iD, httpMethod, msgMethodNotFound)
		if err != nil {
			return struct{}{}, err
		}
		if _, ok := m.MethodResponses[status]; !ok {
			return struct{}{}, notFound(msgStatusNotFound)
		}
		n := m.clone()
		n.MethodResponses = maps.Clone(m.MethodResponses)
		delete(n.MethodResponses, status)
		n.MethodResponses = orNil(n.MethodResponses)
		putMethod(t, r, httpMethod, n)
		return struct{}{}, nil
	})
	return err
}
