package apigateway

import (
	"maps"
	"mime"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/modelschema"
	"github.com/cloudemu/emulator/pmap"
)

// This file owns a REST API's models, authorizers, request validators and
// gateway responses: their validation as AWS applies it, their mutations
// (inside the API's owner, through the Tx) and their reads (from the
// published state).

// ---- shared by the four kinds ----

// mutate is Mutate for operations on one item of an API: AWS reports a
// missing API as the item missing (gone), not as the API missing.
func mutate[R any](s *Service, sc awswire.Scope, apiID string, gone *awswire.Error, fn func(t *Tx) (R, error)) (R, error) {
	return mutateOr(s, sc, apiID, func() *awswire.Error { return gone }, fn)
}

// checkPatch is p.Check, save that an op no path of p supports is
// refused as "Please choose supported operations" whatever the path, as
// AWS does for ListPaths kinds (MD-15: add on an unknown path).
func checkPatch(p Patchable, ops []PatchOp) error {
	for _, o := range ops {
		supported := false
		for _, r := range p.Rules {
			supported = supported || slices.Contains(r.Ops, o.Op)
		}
		if !supported && p.Style == ListPaths {
			return BadRequest("Invalid patch path  '%s' specified for op '%s'. Please choose supported operations", o.Path, o.Op)
		}
		if err := p.Check([]PatchOp{o}); err != nil {
			return err
		}
	}
	return nil
}

// readAPI returns the published API, or gone when there is none.
func (s *Service) readAPI(sc awswire.Scope, apiID string, gone *awswire.Error) (*RestAPI, error) {
	r, ok := s.API(sc, apiID)
	if !ok {
		return nil, gone
	}
	return r, nil
}

// firstMethod returns the first method for which match holds, as its
// resource path and HTTP method. AWS names one referencing method; which
// one is not specified (MD-03 named a child before the root), so resources
// are scanned by path, last first.
func firstMethod(rs pmap.Map[*Resource], match func(*Method) bool) (path, method string, ok bool) {
	res := ResourcesByPath(rs)
	for i := len(res) - 1; i >= 0; i-- {
		r := res[i]
		for _, name := range slices.Sorted(maps.Keys(r.Methods)) {
			if m := r.Methods[name]; m != nil && match(m) {
				return r.Path, name, true
			}
		}
	}
	return "", "", false
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// ---- models ----

// Schemas of the default models, as AWS writes them.
const (
	emptyModelSchema = "{\n  \"$schema\": \"http://json-schema.org/draft-04/schema#\",\n  \"title\" : \"Empty Schema\",\n  \"type\" : \"object\"\n}"
	errorModelSchema = "{\n  \"$schema\" : \"http://json-schema.org/draft-04/schema#\",\n  \"title\" : \"Error Schema\",\n  \"type\" : \"object\",\n  \"properties\" : {\n    \"message\" : { \"type\" : \"string\" }\n  }\n}"
)

// DefaultModels puts the models every REST API has from its creation,
// unless the API already has a model of that name.
func DefaultModels(t *Tx) {
	if t.State().Models.Len() == 0 {
		// An API without models (a new one) gets the shared map, its
		// models persisted as usual.
		shared := sharedDefaultModels()
		t.next.Models = shared
		for _, m := range shared.All() {
			t.recs = append(t.recs, actors.Put(t.recordKey(models.Kind, m.Name), m))
		}
		return
	}
	for _, d := range defaultModelList() {
		if _, ok := t.State().Models.Get(d.Name); ok {
			continue
		}
		m := d
		m.ID = NewID(6, func(id string) bool { return modelIDTaken(t.State(), id) })
		t.PutModel(&m)
	}
}

func defaultModelList() []Model {
	return []Model{
		{Name: "Empty", ContentType: "application/json",
			Description: "This is a default empty schema model", Schema: emptyModelSchema},
		{Name: "Error", ContentType: "application/json",
			Description: "This is a default error schema model", Schema: errorModelSchema},
	}
}

// sharedDefaultModels is the default models as one immutable map that
// every new API shares, with their ids: two models of their own cost an
// idle API ~300 B of heap. Model ids are unique within an API, as AWS
// requires; they repeat across APIs.
var sharedDefaultModels = sync.OnceValue(func() pmap.Map[*Model] {
	var m pmap.Map[*Model]
	for _, d := range defaultModelList() {
		d.ID = NewID(6, func(id string) bool {
			for _, x := range m.All() {
				if x.ID == id {
					return true
				}
			}
			return false
		})
		m = m.Set(d.Name, &d)
	}
	return m
})

func modelIDTaken(st *RestAPI, id string) bool {
	for _, m := range st.Models.All() {
		if m.ID == id {
			return true
		}
	}
	return false
}

// ModelInput is a CreateModel request; a nil member was absent.
type ModelInput struct {
	Name        *string
	Description *string
	Schema      *string
	ContentType *string
}

var modelNameRe = regexp.MustCompile(`^[a-zA-Z0-9]+$`)

// ModelNotFound is the error for an unknown model, or an unknown API on
// an operation naming a model.
func ModelNotFound(name string) *awswire.Error {
	return notFound("Invalid model name specified: %s", name)
}

const emptySchemaMessage = "Model schema must have at least 1 property or array items defined"

// CreateModel adds a model to API apiID.
func (s *Service) CreateModel(sc awswire.Scope, apiID string, in ModelInput) (*Model, error) {
	var v Validation
	v.NotNull("createModelInput.name", in.Name != nil)
	v.NotNull("createModelInput.contentType", in.ContentType != nil)
	if err := v.Err(); err != nil {
		return nil, err
	}
	m := Model{Name: *in.Name, ContentType: *in.ContentType,
		Description: deref(in.Description), Schema: deref(in.Schema)}
	switch {
	case m.Name == "":
		return nil, BadRequest("Model name must be non-empty")
	case !modelNameRe.MatchString(m.Name):
		return nil, BadRequest("Model name must be alphanumeric: %s", m.Name)
	}
	if err := checkModelContentType(m.ContentType); err != nil {
		return nil, err
	}
	node, err := checkModelSchema(m.ContentType, m.Schema)
	if err != nil {
		return nil, err
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*Model, error) {
		st := t.State()
		if _, ok := st.Models.Get(m.Name); ok {
			return nil, Conflict("Model name already exists for this REST API")
		}
		if err := checkModelRefs(st, node); err != nil {
			return nil, err
		}
		m.ID = NewID(6, func(id string) bool { return modelIDTaken(st, id) })
		t.PutModel(&m)
		return &m, nil
	})
}

func checkModelContentType(ct string) error {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !strings.Contains(mt, "/") {
		return BadRequest("Invalid content type specified: %s", ct)
	}
	return nil
}

// isJSONModelType reports whether a content type is JSON, whose schemas AWS
// parses (JSON Schema draft 4).
func isJSONModelType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// checkModelSchema refuses a schema AWS refuses: empty (whatever the
// content type, MD-11..13), a JSON value with no member or item, or, for
// a JSON content type, anything that is not JSON. A schema of another
// content type that is not JSON is kept as text. It returns the parsed
// schema (nil for such text).
func checkModelSchema(contentType, schema string) (*modelschema.Schema, error) {
	if strings.TrimSpace(schema) == "" {
		return nil, BadRequest(emptySchemaMessage)
	}
	n, err := modelschema.Parse(schema)
	if err != nil {
		if isJSONModelType(contentType) {
			return nil, invalidSchema()
		}
		return nil, nil
	}
	if n.Empty() {
		return nil, BadRequest(emptySchemaMessage)
	}
	return n, nil
}

// invalidSchema is AWS's refusal of a JSON model whose schema is not JSON.
func invalidSchema() *awswire.Error {
	return BadRequest("Invalid model specified: Validation Result: warnings : [], errors : [Invalid model schema specified]")
}

// checkModelRefs refuses a schema that references a model the API does not
// have, naming them all as AWS does.
func checkModelRefs(st *RestAPI, n *modelschema.Schema) error {
	var missing []string
	for _, name := range n.Refs() {
		if _, ok := st.Models.Get(name); !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	for i, name := range missing {
		missing[i] = "Invalid model specified: " + name
	}
	return BadRequest("Invalid model specified: Validation Result: warnings : [], errors : [%s]", strings.Join(missing, ", "))
}

// GetModel returns the model called name.
func (s *Service) GetModel(sc awswire.Scope, apiID, name string) (*RestAPI, *Model, error) {
	r, err := s.readAPI(sc, apiID, ModelNotFound(name))
	if err != nil {
		return nil, nil, err
	}
	m, ok := r.Models.Get(name)
	if !ok {
		return nil, nil, ModelNotFound(name)
	}
	return r, m, nil
}

// Models returns the API's models in name order.
func (s *Service) Models(sc awswire.Scope, apiID string) ([]*Model, error) {
	r, err := s.readAPI(sc, apiID, APINotFound(sc, apiID))
	if err != nil {
		return nil, err
	}
	out := slices.Collect(r.Models.Values())
	slices.SortFunc(out, func(a, b *Model) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// modelPatch are the paths UpdateModel accepts (MD-15, MD-16).
var modelPatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/description", []string{"replace"}},
	{"/schema", []string{"replace"}},
}}

// UpdateModel applies patch operations to a model.
func (s *Service) UpdateModel(sc awswire.Scope, apiID, name string, ops []PatchOp) (*Model, error) {
	var v Validation
	v.PatchOps("updateModelInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := checkPatch(modelPatch, ops); err != nil {
		return nil, err
	}
	return mutate(s, sc, apiID, ModelNotFound(name), func(t *Tx) (*Model, error) {
		st := t.State()
		cur, ok := st.Models.Get(name)
		if !ok {
			return nil, ModelNotFound(name)
		}
		m := *cur
		schemaChanged := false
		for _, o := range ops {
			switch o.Path {
			case "/description":
				m.Description = o.Val()
			case "/schema":
				m.Schema, schemaChanged = o.Val(), true
			}
		}
		if schemaChanged {
			node, err := checkModelSchema(m.ContentType, m.Schema)
			if err != nil {
				return nil, err
			}
			if err := checkModelRefs(st, node); err != nil {
				return nil, err
			}
		}
		t.PutModel(&m)
		return &m, nil
	})
}

// DeleteModel deletes a model no method request or response uses.
func (s *Service) DeleteModel(sc awswire.Scope, apiID, name string) error {
	_, err := mutate(s, sc, apiID, ModelNotFound(name), func(t *Tx) (struct{}, error) {
		st := t.State()
		if _, ok := st.Models.Get(name); !ok {
			return struct{}{}, ModelNotFound(name)
		}
		path, method, used := firstMethod(st.Resources, func(m *Method) bool {
			for _, n := range m.RequestModels {
				if n == name {
					return true
				}
			}
			return false
		})
		if used {
			return struct{}{}, Conflict("Cannot delete model '%s', is referenced in method request: %s/%s", name, path, method)
		}
		// A method response's model is a reference too; AWS's wording for
		// it is not recorded, this follows the request's.
		path, method, used = firstMethod(st.Resources, func(m *Method) bool {
			for _, mr := range m.MethodResponses {
				for _, n := range mr.ResponseModels {
					if n == name {
						return true
					}
				}
			}
			return false
		})
		if used {
			return struct{}{}, Conflict("Cannot delete model '%s', is referenced in method response: %s/%s", name, path, method)
		}
		t.DeleteModel(name)
		return struct{}{}, nil
	})
	return err
}

// GetModelTemplate returns the sample mapping template of a model.
func (s *Service) GetModelTemplate(sc awswire.Scope, apiID, name string) (string, error) {
	r, m, err := s.GetModel(sc, apiID, name)
	if err != nil {
		return "", err
	}
	return ModelTemplate(&r.Config, m)
}

// modelSchemas looks the API's models up by name, for modelschema.
func modelSchemas(c *Config) modelschema.Models {
	return func(name string) (string, bool) {
		m, ok := c.Models.Get(name)
		if !ok {
			return "", false
		}
		return m.Schema, true
	}
}

// ModelTemplate generates the sample mapping template of m, a model of c.
func ModelTemplate(c *Config, m *Model) (string, error) {
	t, err := modelschema.Template(m.Name, m.Schema, modelSchemas(c))
	if err != nil {
		return "", invalidSchema()
	}
	return t, nil
}

// FlattenModelSchema returns m's schema with the references to c's other
// models replaced by their schemas (GetModel's flatten).
func FlattenModelSchema(c *Config, m *Model) string {
	return modelschema.Flatten(m.Name, m.Schema, modelSchemas(c))
}
