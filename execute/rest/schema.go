package rest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cloudemu/emulator/actors/apigateway"
)

// modelSchema is a model compiled into a JSON Schema (draft 4) validator
// on its first use. Models reference each other by URL
// (https://apigateway.amazonaws.com/restapis/{id}/models/{name}); those
// resolve to the deployment's models and nothing is fetched.
type modelSchema struct {
	name string
	cfg  *apigateway.Config
	once sync.Once
	s    *jsonschema.Schema
	err  error
}

// modelURL is the URL a model is compiled under.
const modelURLPrefix = "https://apigateway.amazonaws.com/restapis/"

type modelLoader struct{ cfg *apigateway.Config }

// Load implements jsonschema.URLLoader over the API's models.
func (l modelLoader) Load(url string) (any, error) {
	rest, ok := strings.CutPrefix(url, modelURLPrefix)
	if !ok {
		return nil, fmt.Errorf("schema %s is not a model of this API", url)
	}
	_, name, ok := strings.Cut(rest, "/models/")
	if !ok {
		return nil, fmt.Errorf("schema %s is not a model of this API", url)
	}
	for m := range l.cfg.Models.Values() {
		if m.Name == name {
			return jsonschema.UnmarshalJSON(strings.NewReader(m.Schema))
		}
	}
	return nil, fmt.Errorf("model %s does not exist", name)
}

func (m *modelSchema) compile() {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.UseLoader(modelLoader{m.cfg})
	m.s, m.err = c.Compile(modelURLPrefix + "api/models/" + m.name)
}

var errNoModel = errors.New("the model does not exist")

// validate checks a request body against the model. An empty body is
// read as {} (docs/apigateway-execution.md §2.5).
func (m *modelSchema) validate(body []byte) error {
	if m == nil {
		return errNoModel
	}
	m.once.Do(m.compile)
	if m.err != nil {
		return m.err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		//lint:ignore ST1005 API Gateway's own words, shown to the client
		return errors.New("Unknown error parsing request body")
	}
	return m.s.Validate(v)
}
