package apigatewayv2

import (
	"encoding/json"
	"maps"
	"mime"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/modelschema"
)

// This file owns an API's models: JSON schemas that WebSocket routes
// validate payloads against. AWS documents them as WebSocket-only (A: the
// model's Model shape; AWS's own ACK controller drops them for HTTP APIs),
// so an HTTP API refuses new ones. The wording of messages follows the
// REST API's models (v1), whose answers are recorded.

var modelNameRe = regexp.MustCompile(`^[a-zA-Z0-9]+$`)

// modelMsgSchema is AWS's answer to a schema it cannot parse (v1, R).
const modelMsgSchema = "Invalid model specified: Validation Result: warnings : [], errors : [Invalid model schema specified]"

// ModelNotFound is the error for an unknown model (v1's wording, as
// IntegrationNotFound).
func ModelNotFound() *awswire.Error {
	return NotFound("Model", "Invalid Model identifier specified")
}

// CreateModel adds a model to API apiID.
func (s *Service) CreateModel(sc awswire.Scope, apiID string, in ModelInput) (*Model, error) {
	switch {
	case in.Name == nil || *in.Name == "":
		return nil, BadRequest("Model name is required")
	case !validName(*in.Name, 128):
		// The model's StringWithLengthBetween1And128; the words are this
		// emulator's, in AWS's style.
		return nil, BadRequest("Invalid model name specified: it must be 1 to 128 characters, with no control characters")
	case in.Schema == nil:
		return nil, BadRequest("Model schema is required")
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*Model, error) {
		st := t.State()
		if st.API.ProtocolType == hTTP {
			return nil, BadRequest("Models are not supported on protocolType HTTP")
		}
		m := &Model{}
		if err := modelApply(st, "", m, in); err != nil {
			return nil, err
		}
		m.ModelID = NewID(6, func(id string) bool { _, ok := st.Models.Get(id); return ok })
		m.Seq = nextSeq(t)
		t.PutModel(m)
		return m, nil
	})
}

// modelApply applies in to m (model id of the API; "" for a new one) and
// checks the result.
func modelApply(st *HTTPAPI, id string, m *Model, in ModelInput) error {
	setIfSent(&m.Name, in.Name)
	setIfSent(&m.Description, in.Description)
	setIfSent(&m.ContentType, in.ContentType)
	setIfSent(&m.Schema, in.Schema)
	if !modelNameRe.MatchString(m.Name) {
		return BadRequest("Model name must be alphanumeric: %s", m.Name)
	}
	if in.ContentType != nil {
		if mt, _, err := mime.ParseMediaType(m.ContentType); err != nil || !strings.Contains(mt, "/") {
			return BadRequest("Invalid content type specified: %s", m.ContentType)
		}
	}
	if err := modelCheckSchema(m.ContentType, m.Schema); err != nil {
		return err
	}
	for mid, other := range st.Models.All() {
		if mid != id && other.Name == m.Name {
			return Conflict("Model name already exists for this API")
		}
	}
	return nil
}

// modelIsJSON reports whether a model of content type ct holds a JSON
// schema: application/json or +json, or no content type at all.
func modelIsJSON(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// modelCheckSchema refuses a JSON model whose schema is not a JSON object
// (a draft 4 schema is one). A schema of another content type is text.
func modelCheckSchema(ct, schema string) error {
	if !modelIsJSON(ct) {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(schema), &obj); err != nil || obj == nil {
		return BadRequest(modelMsgSchema)
	}
	return nil
}

// GetModel returns model id of API apiID.
func (s *Service) GetModel(sc awswire.Scope, apiID, id string) (*Model, error) {
	a, err := s.readAPI(sc, apiID)
	if err != nil {
		return nil, err
	}
	m, ok := a.Models.Get(id)
	if !ok {
		return nil, ModelNotFound()
	}
	return m, nil
}

// Models returns the API's models in creation order.
func (s *Service) Models(sc awswire.Scope, apiID string) ([]*Model, error) {
	a, err := s.readAPI(sc, apiID)
	if err != nil {
		return nil, err
	}
	return bySeq(slices.Collect(a.Models.Values()),
		func(m *Model) uint64 { return m.Seq }, func(m *Model) string { return m.ModelID }), nil
}

// UpdateModel changes the members in sets and checks the result as
// CreateModel does.
func (s *Service) UpdateModel(sc awswire.Scope, apiID, id string, in ModelInput) (*Model, error) {
	return Mutate(s, sc, apiID, func(t *Tx) (*Model, error) {
		st := t.State()
		cur, ok := st.Models.Get(id)
		if !ok {
			return nil, ModelNotFound()
		}
		m := *cur
		if err := modelApply(st, id, &m, in); err != nil {
			return nil, err
		}
		t.PutModel(&m)
		return &m, nil
	})
}

// DeleteModel deletes a model no route request or route response uses.
// The wording follows AWS's for an authorizer in use (R).
func (s *Service) DeleteModel(sc awswire.Scope, apiID, id string) error {
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		st := t.State()
		m, ok := st.Models.Get(id)
		if !ok {
			return struct{}{}, ModelNotFound()
		}
		if key, ok := modelUser(st, m.Name); ok {
			return struct{}{}, Conflict("Cannot delete model '%s', is referenced in route: %s", m.Name, key)
		}
		t.DeleteModel(id)
		return struct{}{}, nil
	})
	return err
}

// modelUser returns the key of a route whose request models, or whose
// route responses' models, name the model, the first in key order.
func modelUser(st *HTTPAPI, name string) (string, bool) {
	var keys []string
	for rid, r := range st.Routes.All() {
		used := slices.Contains(slices.Collect(maps.Values(r.RequestModels)), name)
		for _, rr := range st.RouteResponses.At(rid).All() {
			used = used || slices.Contains(slices.Collect(maps.Values(rr.ResponseModels)), name)
		}
		if used {
			keys = append(keys, r.RouteKey)
		}
	}
	if len(keys) == 0 {
		return "", false
	}
	slices.Sort(keys)
	return keys[0], true
}

// GetModelTemplate returns the sample mapping template of a model, as v1
// generates it (references to the API's other models are followed by
// name).
func (s *Service) GetModelTemplate(sc awswire.Scope, apiID, id string) (string, error) {
	a, err := s.readAPI(sc, apiID)
	if err != nil {
		return "", err
	}
	m, ok := a.Models.Get(id)
	if !ok {
		return "", ModelNotFound()
	}
	// References name the API's other models by name.
	byName := make(map[string]string, a.Models.Len())
	for _, o := range a.Models.All() {
		byName[o.Name] = o.Schema
	}
	v, err := modelschema.Template(m.Name, m.Schema, func(name string) (string, bool) {
		s, ok := byName[name]
		return s, ok
	})
	if err != nil {
		return "", BadRequest("Invalid model specified: Validation Result: warnings : [], errors : [Invalid model schema specified]")
	}
	return v, nil
}
