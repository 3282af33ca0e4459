package apigateway

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// CustomIDTag is the tag that, on CreateRestApi, sets the new API's id, as
// other emulators allow, so that test suites can use stable URLs.
const CustomIDTag = "_custom_id_"

// restAPIPatch are the RestApi paths UpdateRestApi accepts: SPEC.md's four
// and the others AWS accepts, which Terraform and CDK patch.
var restAPIPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/name", []string{"replace"}},
	{"/description", []string{"replace"}},
	{"/policy", []string{"replace"}},
	{"/disableExecuteApiEndpoint", []string{"replace"}},
	{"/version", []string{"replace"}},
	{"/apiKeySource", []string{"replace"}},
	{"/minimumCompressionSize", []string{"replace"}},
	{"/binaryMediaTypes/*", []string{"add", "remove", "replace"}},
	{"/endpointConfiguration/types/*", []string{"replace"}},
	{"/endpointConfiguration/ipAddressType", []string{"replace"}},
}}

// UpdateRestAPI applies patch operations to the RestApi resource.
func (s *Service) UpdateRestAPI(sc awswire.Scope, id string, ops []PatchOp) (*RestAPI, error) {
	var v Validation
	v.PatchOps("updateRestApiInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := restAPIPatch.Check(ops); err != nil {
		return nil, err
	}
	return Mutate(s, sc, id, func(t *Tx) (*RestAPI, error) {
		a := t.State().API
		a.BinaryMediaTypes = slices.Clone(a.BinaryMediaTypes)
		if a.EndpointConfiguration != nil {
			ec := *a.EndpointConfiguration
			ec.Types = slices.Clone(ec.Types)
			a.EndpointConfiguration = &ec
		}
		for _, o := range ops {
			if err := patchRestAPI(&a, o); err != nil {
				return nil, err
			}
		}
		t.SetAPI(a)
		return t.State(), nil
	})
}

func patchRestAPI(a *API, o PatchOp) error {
	switch {
	case o.Path == "/name":
		if o.Val() == "" {
			return BadRequest("Invalid REST API name specified")
		}
		a.Name = o.Val()
	case o.Path == "/description":
		a.Description = o.Val()
	case o.Path == "/policy":
		a.Policy = o.Val()
	case o.Path == "/version":
		a.Version = o.Val()
	case o.Path == "/disableExecuteApiEndpoint":
		b, err := ParseBool(o)
		if err != nil {
			return err
		}
		a.DisableExecuteAPIEndpoint = b
	case o.Path == "/apiKeySource":
		if o.Val() != "HEADER" && o.Val() != "AUTHORIZER" {
			return BadRequest("Invalid API Key Source specified. Valid options are HEADER,AUTHORIZER")
		}
		a.APIKeySource = o.Val()
	case o.Path == "/minimumCompressionSize":
		if o.Val() == "" {
			a.MinimumCompressionSize = nil
			return nil
		}
		n, err := strconv.ParseInt(o.Val(), 10, 64)
		if err != nil || n < 0 || n > 10485760 {
			return BadRequest("Invalid minimum compression size, must be between 0 and 10485760")
		}
		a.MinimumCompressionSize = &n
	case strings.HasPrefix(o.Path, "/binaryMediaTypes/"):
		mt := PathKey(o.Path, "/binaryMediaTypes/")
		a.BinaryMediaTypes = slices.DeleteFunc(a.BinaryMediaTypes, func(s string) bool { return s == mt })
		switch o.Op {
		case "add":
			a.BinaryMediaTypes = append(a.BinaryMediaTypes, mt)
		case "replace":
			a.BinaryMediaTypes = append(a.BinaryMediaTypes, PathKey(o.Val(), ""))
		}
	case strings.HasPrefix(o.Path, "/endpointConfiguration/types/"):
		if !endpointTypes[o.Val()] {
			return BadRequest("Invalid EndpointTypes specified. Valid options are REGIONAL,EDGE,PRIVATE")
		}
		if a.EndpointConfiguration == nil {
			a.EndpointConfiguration = &EndpointConfiguration{}
		}
		a.EndpointConfiguration.Types = []string{o.Val()}
		if o.Val() == "PRIVATE" && a.EndpointConfiguration.IPAddressType == "ipv4" {
			a.EndpointConfiguration.IPAddressType = "dualstack"
		}
	case o.Path == "/endpointConfiguration/ipAddressType":
		if o.Val() != "ipv4" && o.Val() != "dualstack" {
			return BadRequest("ipAddressType must be either ipv4 or dualstack.")
		}
		if a.EndpointConfiguration == nil {
			a.EndpointConfiguration = &EndpointConfiguration{}
		}
		if o.Val() == "ipv4" && slices.Contains(a.EndpointConfiguration.Types, "PRIVATE") {
			return BadRequest("Only dualstack ipAddressType is supported for Private APIs.")
		}
		a.EndpointConfiguration.IPAddressType = o.Val()
	}
	return nil
}

var endpointTypes = map[string]bool{"EDGE": true, "REGIONAL": true, "PRIVATE": true}

// CloneConfig copies the live configuration of API src into t, with new
// resource ids (cloneFrom on CreateRestApi). Stages and deployments are not
// copied, as on AWS.
func CloneConfig(t *Tx, src *RestAPI) {
	ids := map[string]string{}
	for id := range src.Resources.All() {
		ids[id] = NewID(10, func(s string) bool { _, taken := ids[s]; return taken })
	}
	for id, r := range src.Resources.All() {
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
	for _, m := range src.Models.All() {
		t.PutModel(m)
	}
	for _, a := range src.Authorizers.All() {
		t.PutAuthorizer(a)
	}
	for _, v := range src.Validators.All() {
		t.PutValidator(v)
	}
	for _, g := range src.GatewayResponses.All() {
		t.PutGatewayResponse(g)
	}
}
