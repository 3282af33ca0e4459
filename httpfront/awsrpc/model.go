package awsrpc

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/cloudemu/emulator/awswire"
)

// kind is a shape's type.
type kind uint8

const (
	kindString kind = iota
	kindStructure
	kindList
	kindMap
	kindInteger
	kindLong
	kindBoolean
	kindDouble
	kindTimestamp
	kindBlob
)

var kinds = map[string]kind{
	"string": kindString, "structure": kindStructure, "list": kindList, "map": kindMap,
	"integer": kindInteger, "long": kindLong, "boolean": kindBoolean, "double": kindDouble,
	"float": kindDouble, "timestamp": kindTimestamp, "blob": kindBlob,
}

// shape is one model shape, linked.
type shape struct {
	kind    kind
	members []*member // structure, in model order
	// list member; map key and value.
	member, key, value *ref
	flattened          bool
	locationName       string
}

type member struct {
	name         string // the JSON (Go tag) name
	shape        *shape
	locationName string
	flattened    bool
}

type ref struct {
	shape        *shape
	locationName string
}

// opShapes are an operation's input and output shapes.
type opShapes struct {
	input, output *shape
	wrapper       string // the query answer's result element
}

// model is a service's linked shapes.
type model struct {
	ops map[string]opShapes
}

var (
	modelsOnce [16]sync.Once
	models     [16]*model
	modelErrs  [16]error
)

// modelOf returns svc's linked model, parsed once.
func modelOf(svc awswire.Service) (*model, error) {
	if int(svc) >= len(models) {
		return nil, fmt.Errorf("awsrpc: no model of %s", svc)
	}
	modelsOnce[svc].Do(func() {
		models[svc], modelErrs[svc] = parseModel(awswire.RPCModel(svc))
	})
	return models[svc], modelErrs[svc]
}

type rawModel struct {
	Operations map[string]struct {
		Input   string `json:"input"`
		Output  string `json:"output"`
		Wrapper string `json:"wrapper"`
	} `json:"operations"`
	Shapes map[string]struct {
		Type    string `json:"type"`
		Members []struct {
			Name         string `json:"name"`
			Shape        string `json:"shape"`
			LocationName string `json:"locationName"`
			Flattened    bool   `json:"flattened"`
		} `json:"members"`
		Member       *rawRef `json:"member"`
		Key          *rawRef `json:"key"`
		Value        *rawRef `json:"value"`
		Flattened    bool    `json:"flattened"`
		LocationName string  `json:"locationName"`
	} `json:"shapes"`
}

type rawRef struct {
	Shape        string `json:"shape"`
	LocationName string `json:"locationName"`
}

func parseModel(b []byte) (*model, error) {
	if b == nil {
		return nil, fmt.Errorf("awsrpc: no model")
	}
	var raw rawModel
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("awsrpc: model: %w", err)
	}
	shapes := make(map[string]*shape, len(raw.Shapes))
	for name, rs := range raw.Shapes {
		k, ok := kinds[rs.Type]
		if !ok {
			return nil, fmt.Errorf("awsrpc: shape %s: type %q", name, rs.Type)
		}
		shapes[name] = &shape{kind: k, flattened: rs.Flattened, locationName: rs.LocationName}
	}
	link := func(r *rawRef) (*ref, error) {
		if r == nil {
			return nil, nil
		}
		s, ok := shapes[r.Shape]
		if !ok {
			return nil, fmt.Errorf("awsrpc: no shape %s", r.Shape)
		}
		return &ref{shape: s, locationName: r.LocationName}, nil
	}
	for name, rs := range raw.Shapes {
		s := shapes[name]
		var err error
		if s.member, err = link(rs.Member); err != nil {
			return nil, err
		}
		if s.key, err = link(rs.Key); err != nil {
			return nil, err
		}
		if s.value, err = link(rs.Value); err != nil {
			return nil, err
		}
		if (s.kind == kindList && s.member == nil) || (s.kind == kindMap && (s.key == nil || s.value == nil)) {
			return nil, fmt.Errorf("awsrpc: shape %s lacks its members", name)
		}
		for _, rm := range rs.Members {
			ms, ok := shapes[rm.Shape]
			if !ok {
				return nil, fmt.Errorf("awsrpc: %s.%s: no shape %s", name, rm.Name, rm.Shape)
			}
			s.members = append(s.members, &member{name: rm.Name, shape: ms, locationName: rm.LocationName, flattened: rm.Flattened})
		}
	}
	m := &model{ops: make(map[string]opShapes, len(raw.Operations))}
	for name, ro := range raw.Operations {
		var o opShapes
		if ro.Input != "" {
			if o.input = shapes[ro.Input]; o.input == nil {
				return nil, fmt.Errorf("awsrpc: %s: no input shape %s", name, ro.Input)
			}
		}
		if ro.Output != "" {
			if o.output = shapes[ro.Output]; o.output == nil {
				return nil, fmt.Errorf("awsrpc: %s: no output shape %s", name, ro.Output)
			}
			o.wrapper = ro.Wrapper
			if o.wrapper == "" {
				o.wrapper = name + "Result"
			}
		}
		m.ops[name] = o
	}
	return m, nil
}

// serialName is the name a member travels under in the query protocol: its
// location name, else its shape's, else its own.
func (m *member) serialName() string {
	if m.locationName != "" {
		return m.locationName
	}
	if m.shape.locationName != "" {
		return m.shape.locationName
	}
	return m.name
}

// isFlattened reports whether the member's list or map is flattened.
func (m *member) isFlattened() bool { return m.flattened || m.shape.flattened }
