package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// rpcServices are the services served in the query protocol, whose shapes
// awsrpc reads to convert forms and write XML. overlay names the model that
// still carries the query traits (location names) a JSON model dropped:
// botocore's last query model of SQS, kept in models/botocore/sqs-query.
var rpcServices = []struct {
	name, dir, overlay string
}{
	{"sqs", "sqs/2012-11-05", "sqs-query/2012-11-05"},
	{"sns", "sns/2010-03-31", ""},
	{"ses", "ses/2010-12-01", ""},
}

// rpcModel is the part of a service-2.json the query protocol needs.
type rpcModel struct {
	Operations map[string]struct {
		Input *struct {
			Shape string `json:"shape"`
		} `json:"input"`
		Output *struct {
			Shape         string `json:"shape"`
			ResultWrapper string `json:"resultWrapper"`
		} `json:"output"`
	} `json:"operations"`
	Shapes map[string]*rpcShape `json:"shapes"`
}

type rpcShape struct {
	Type         string   `json:"type"`
	Members      members  `json:"members"`
	Member       *rpcRef  `json:"member"`
	Key          *rpcRef  `json:"key"`
	Value        *rpcRef  `json:"value"`
	Flattened    bool     `json:"flattened"`
	LocationName string   `json:"locationName"`
	Required     []string `json:"required"`
	Exception    bool     `json:"exception"`
}

type rpcRef struct {
	Shape        string `json:"shape"`
	LocationName string `json:"locationName,omitempty"`
}

// The compact model awsrpc embeds: shapes without documentation, members
// in model order.
type compactModel struct {
	Operations map[string]compactOperation `json:"operations"`
	Shapes     map[string]compactShape     `json:"shapes"`
}

type compactOperation struct {
	Input   string `json:"input,omitempty"`
	Output  string `json:"output,omitempty"`
	Wrapper string `json:"wrapper,omitempty"`
}

type compactShape struct {
	Type         string          `json:"type"`
	Members      []compactMember `json:"members,omitempty"`
	Member       *rpcRef         `json:"member,omitempty"`
	Key          *rpcRef         `json:"key,omitempty"`
	Value        *rpcRef         `json:"value,omitempty"`
	Flattened    bool            `json:"flattened,omitempty"`
	LocationName string          `json:"locationName,omitempty"`
	Required     []string        `json:"required,omitempty"`
}

type compactMember struct {
	Name         string `json:"name"`
	Shape        string `json:"shape"`
	LocationName string `json:"locationName,omitempty"`
	Flattened    bool   `json:"flattened,omitempty"`
}

// generateRPCModels returns the compact model of each query service, by
// file name (sqs.json).
func generateRPCModels(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, s := range rpcServices {
		m, err := readRPCModel(filepath.Join(dir, filepath.FromSlash(s.dir), "service-2.json"))
		if err != nil {
			return nil, err
		}
		if s.overlay != "" {
			o, err := readRPCModel(filepath.Join(dir, filepath.FromSlash(s.overlay), "service-2.json"))
			if err != nil {
				return nil, err
			}
			overlay(m, o)
		}
		c := compact(m)
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		out[s.name+".json"] = append(b, '\n')
	}
	return out, nil
}

func readRPCModel(path string) (*rpcModel, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m rpcModel
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// overlay copies o's query traits onto m's shapes of the same name: the
// location names of shapes, members, list members, map keys and values,
// flattening, and the operations' result wrappers.
func overlay(m, o *rpcModel) {
	for name, sh := range m.Shapes {
		osh, ok := o.Shapes[name]
		if !ok || osh.Type != sh.Type {
			continue
		}
		sh.LocationName = osh.LocationName
		sh.Flattened = sh.Flattened || osh.Flattened
		for i := range sh.Members {
			for _, om := range osh.Members {
				if om.Name == sh.Members[i].Name {
					sh.Members[i].LocationName = om.LocationName
					sh.Members[i].Flattened = sh.Members[i].Flattened || om.Flattened
				}
			}
		}
		for _, r := range []struct{ dst, src *rpcRef }{{sh.Member, osh.Member}, {sh.Key, osh.Key}, {sh.Value, osh.Value}} {
			if r.dst != nil && r.src != nil {
				r.dst.LocationName = r.src.LocationName
			}
		}
	}
	for name, op := range m.Operations {
		if oop, ok := o.Operations[name]; ok && op.Output != nil && oop.Output != nil {
			op.Output.ResultWrapper = oop.Output.ResultWrapper
			m.Operations[name] = op
		}
	}
}

func compact(m *rpcModel) compactModel {
	c := compactModel{Operations: map[string]compactOperation{}, Shapes: map[string]compactShape{}}
	for name, op := range m.Operations {
		var co compactOperation
		if op.Input != nil {
			co.Input = op.Input.Shape
		}
		if op.Output != nil {
			co.Output, co.Wrapper = op.Output.Shape, op.Output.ResultWrapper
		}
		c.Operations[name] = co
	}
	for name, sh := range m.Shapes {
		if sh.Exception {
			continue
		}
		cs := compactShape{Type: sh.Type, Member: sh.Member, Key: sh.Key, Value: sh.Value,
			Flattened: sh.Flattened, LocationName: sh.LocationName}
		if sh.Type == "structure" {
			cs.Members = []compactMember{}
			for _, mb := range sh.Members {
				cs.Members = append(cs.Members, compactMember{Name: mb.Name, Shape: mb.Shape,
					LocationName: mb.LocationName, Flattened: mb.Flattened})
			}
			cs.Required = append([]string(nil), sh.Required...)
			sort.Strings(cs.Required)
		}
		c.Shapes[name] = cs
	}
	return c
}

// writeRPCModels writes the compact models into dir.
func writeRPCModels(dir string, models map[string][]byte) error {
	for name, b := range models {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sameRPCModels reports whether dir holds exactly models.
func sameRPCModels(dir string, models map[string][]byte) error {
	for name, want := range models {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%s is stale; run go generate in awswire", name)
		}
	}
	return nil
}
