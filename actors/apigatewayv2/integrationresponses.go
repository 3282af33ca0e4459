package apigatewayv2

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// responseKeyOK reports whether key is an integration response key:
// $default or a /regex/ (A).
func responseKeyOK(key string) bool {
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
		if st.API.ProtocolType == hTTP {
			return nil, BadRequest("Integration responses are not supported on protocolType HTTP")
		}
		ir := &IntegrationResponse{}
		if err := applyIntegrationResponse(st, integrationID, "", ir, in); err != nil {
			return nil, err
		}
		responses, _ := st.IntegrationResponses.Get(integrationID)
		ir.IntegrationResponseID = NewID(6, func(id string) bool { return responses.Has(id) })
		ir.Seq = nextSeq(t)
		t.PutIntegrationResponse(integrationID, ir)
		return ir, nil
	})
}

// applyIntegrationResponse applies in to ir (response id of the integration;
// "" for a new one) and checks the result.
func applyIntegrationResponse(st *HTTPAPI, integrationID, id string, ir *IntegrationResponse, in IntegrationResponseInput) error {
	setIfSent(&ir.IntegrationResponseKey, in.IntegrationResponseKey)
	setIfSent(&ir.ContentHandlingStrategy, in.ContentHandlingStrategy)
	setIfSent(&ir.TemplateSelectionExpression, in.TemplateSelectionExpression)
	// The maps are replaced whole, as Terraform sends them.
	if in.ResponseParameters != nil {
		ir.ResponseParameters = nonEmpty(in.ResponseParameters)
	}
	if in.ResponseTemplates != nil {
		ir.ResponseTemplates = maps.Clone(in.ResponseTemplates)
		if len(ir.ResponseTemplates) == 0 {
			ir.ResponseTemplates = nil
		}
	}
	if !responseKeyOK(ir.IntegrationResponseKey) {
		return BadRequest("Invalid integration response key specified: %s. It must be $default or a regular expression between slashes, such as /2\\d\\d/", ir.IntegrationResponseKey)
	}
	if ir.ContentHandlingStrategy != "" && !slices.Contains(contentHandlings, ir.ContentHandlingStrategy) {
		return BadRequest(msgContentHandling)
	}
	for rid, other := range st.IntegrationResponses.At(integrationID).All() {
		if rid != id && other.IntegrationResponseKey == ir.IntegrationResponseKey {
			return Conflict("Integration response with key %s already exists for this integration", ir.IntegrationResponseKey)
		}
	}
	return nil
}

func nonEmpty(in map[string]string) map[string]string {
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

// integrationResponsesOf returns the responses of integration integrationID of
// the published API.
func (s *Service) integrationResponsesOf(sc awswire.Scope, apiID, integrationID string) (pmap.Map[*IntegrationResponse], error) {
	a, err := s.readAPI(sc, apiID)
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
	rs, err := s.integrationResponsesOf(sc, apiID, integrationID)
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
	rs, err := s.integrationResponsesOf(sc, apiID, integrationID)
	if err != nil {
		return nil, err
	}
	return bySeq(slices.Collect(rs.Values()),
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
		if err := applyIntegrationResponse(st, integrationID, id, &ir, in); err != nil {
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
