package apigateway

import (
	"slices"

	"github.com/cloudemu/emulator/actors"
)

// CustomIDTag is the tag that, on CreateRestApi, sets the new API's id, as
// other emulators allow, so that test suites can use stable URLs.
const CustomIDTag = "_custom_id_"

// restAPIPatch are the RestApi paths UpdateRestApi accepts (SPEC.md §2.2).
var restAPIPatch = Patchable{
	"replace": {"/name", "/description", "/policy", "/disableExecuteApiEndpoint"},
}

// UpdateRestAPI applies patch operations to the RestApi resource.
func (s *Service) UpdateRestAPI(sc actors.Scope, id string, ops []PatchOp) (*RestAPI, error) {
	if err := restAPIPatch.Check(ops); err != nil {
		return nil, err
	}
	return Mutate(s, sc, id, func(t *Tx) (*RestAPI, error) {
		a := t.State().API
		for _, o := range ops {
			switch o.Path {
			case "/name":
				if o.Val() == "" {
					return nil, BadRequest("Invalid REST API name specified")
				}
				a.Name = o.Val()
			case "/description":
				a.Description = o.Val()
			case "/policy":
				a.Policy = o.Val()
			case "/disableExecuteApiEndpoint":
				b, err := ParseBool(o)
				if err != nil {
					return nil, err
				}
				a.DisableExecuteAPIEndpoint = b
			}
		}
		t.SetAPI(a)
		return t.State(), nil
	})
}

// CloneConfig copies the live configuration of API src into t, with new
// resource ids (cloneFrom on CreateRestApi). Stages and deployments are not
// copied, as on AWS.
func CloneConfig(t *Tx, src *RestAPI) {
	ids := map[string]string{}
	for id := range src.Resources {
		ids[id] = NewID(10, func(s string) bool { _, taken := ids[s]; return taken })
	}
	for id, r := range src.Resources {
		c := *r
		c.ID = ids[id]
		if r.ParentID != "" {
			c.ParentID = ids[r.ParentID]
		}
		if r.ParentID == "" {
			a := t.State().API
			// The new API's root is replaced by the clone of the source root.
			t.DeleteResource(a.RootResourceID)
			a.RootResourceID = c.ID
			t.SetAPI(a)
		}
		t.PutResource(&c)
	}
	for _, m := range src.Models {
		t.PutModel(m)
	}
	for _, a := range src.Authorizers {
		t.PutAuthorizer(a)
	}
	for _, v := range src.Validators {
		t.PutValidator(v)
	}
	for _, g := range src.GatewayResponses {
		t.PutGatewayResponse(g)
	}
}

// SortedResources returns the API's resources ordered by path.
func SortedResources(rs map[string]*Resource) []*Resource {
	out := make([]*Resource, 0, len(rs))
	for _, r := range rs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Resource) int {
		if a.Path != b.Path {
			if a.Path < b.Path {
				return -1
			}
			return 1
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	return out
}
