package apigateway

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cloudemu/emulator/awswire"
)

// CustomIDTag is the tag that, on CreateRestApi, sets the new API's id, as
// other emulators allow, so that test suites can use stable URLs.
const CustomIDTag = "_custom_id_"

// restAPIPatch are the RestApi paths UpdateRestApi accepts: docs/apigateway.md's four
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
		if err := checkAPIName(o.Val()); err != nil {
			return err
		}
		a.Name = o.Val()
	case o.Path == "/description":
		a.Description = o.Val()
	case o.Path == "/policy":
		if err := checkPolicy(o.Val()); err != nil {
			return err
		}
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

// Limits on a REST API's members. AWS documents the policy's; the name's is
// this emulator's (AWS publishes none, and its console refuses names past
// 1024 characters): without one a client could store megabytes in a name.
const (
	maxAPINameLength = 1024
	maxPolicyLength  = 8192
	maxDescription   = 4096
)

// checkAPIName refuses an empty name, one longer than the limit, and one
// with control characters (NUL included), in AWS's words.
func checkAPIName(name string) error {
	if name == "" || utf8.RuneCountInString(name) > maxAPINameLength || hasControl(name) {
		return BadRequest("Invalid REST API name specified")
	}
	return nil
}

func checkPolicy(p string) error {
	if utf8.RuneCountInString(p) > maxPolicyLength {
		return BadRequest("Invalid policy document specified: the policy must be at most %d characters", maxPolicyLength)
	}
	return nil
}

// hasControl reports whether s holds a control character.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// RestAPIInput is a CreateRestApi request; a nil member was absent.
type RestAPIInput struct {
	Name                      *string                `json:"name"`
	Description               *string                `json:"description"`
	Version                   string                 `json:"version"`
	CloneFrom                 string                 `json:"cloneFrom"`
	BinaryMediaTypes          []string               `json:"binaryMediaTypes"`
	MinimumCompressionSize    *int64                 `json:"minimumCompressionSize"`
	APIKeySource              string                 `json:"apiKeySource"`
	EndpointConfiguration     *EndpointConfiguration `json:"endpointConfiguration"`
	Policy                    string                 `json:"policy"`
	Tags                      map[string]string      `json:"tags"`
	DisableExecuteAPIEndpoint bool                   `json:"disableExecuteApiEndpoint"`
}

var customIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// NewRestAPI creates a REST API as CreateRestApi does: AWS's checks in
// AWS's order, the defaults AWS fills in, the root resource and the default
// models, and a copy of another API's configuration with cloneFrom.
func (s *Service) NewRestAPI(sc awswire.Scope, in RestAPIInput) (*RestAPI, error) {
	api, err := s.checkRestAPI(in)
	if err != nil {
		return nil, err
	}
	var src *RestAPI
	if in.CloneFrom != "" {
		c, ok := s.API(sc, in.CloneFrom)
		if !ok {
			return nil, APINotFound(sc, in.CloneFrom)
		}
		src = c
	}
	return s.CreateRestAPI(sc, api, func(t *Tx) error {
		DefaultModels(t)
		if src != nil {
			CloneConfig(t, src)
		}
		return nil
	})
}

// checkRestAPI checks a CreateRestApi request (ImportRestApi's too) and
// returns the API it creates.
func (s *Service) checkRestAPI(in RestAPIInput) (API, error) {
	// Model-level checks come first and are reported together.
	var v Validation
	if ec := in.EndpointConfiguration; ec != nil {
		v.EnumList("createRestApiInput.endpointConfiguration.types", ec.Types, "PRIVATE", "EDGE", "REGIONAL")
		if ec.IPAddressType != "" {
			v.Enum("createRestApiInput.endpointConfiguration.ipAddressType", ec.IPAddressType, "ipv4", "dualstack")
		}
	}
	if err := v.Err(); err != nil {
		return API{}, err
	}
	if in.Name == nil {
		return API{}, BadRequest("Invalid REST API name specified")
	}
	if err := checkAPIName(*in.Name); err != nil {
		return API{}, err
	}
	if d := in.Description; d != nil && *d == "" {
		return API{}, BadRequest("Description cannot be an empty string")
	} else if d != nil && utf8.RuneCountInString(*d) > maxDescription {
		return API{}, BadRequest("Invalid description specified: it must be at most %d characters", maxDescription)
	}
	if err := checkPolicy(in.Policy); err != nil {
		return API{}, err
	}
	if err := ValidateTags(in.Tags); err != nil {
		return API{}, err
	}
	api := API{
		Name:                      *in.Name,
		Version:                   in.Version,
		BinaryMediaTypes:          slices.Clone(in.BinaryMediaTypes),
		APIKeySource:              "HEADER",
		Policy:                    in.Policy,
		Tags:                      maps.Clone(in.Tags),
		DisableExecuteAPIEndpoint: in.DisableExecuteAPIEndpoint,
		CreatedDate:               awswire.Epoch(s.now().UnixMilli()),
	}
	if in.Description != nil {
		api.Description = *in.Description
	}
	switch in.APIKeySource {
	case "":
	case "HEADER", "AUTHORIZER":
		api.APIKeySource = in.APIKeySource
	default:
		return API{}, BadRequest("Invalid API Key Source specified. Valid options are HEADER,AUTHORIZER")
	}
	if n := in.MinimumCompressionSize; n != nil && (*n < 0 || *n > 10485760) {
		return API{}, BadRequest("Invalid minimum compression size, must be between 0 and 10485760")
	}
	api.MinimumCompressionSize = in.MinimumCompressionSize
	if in.EndpointConfiguration == nil {
		// The default, shared: a published API's configuration is never
		// written (a patch copies it).
		api.EndpointConfiguration = defaultEndpoint
	}
	ec := EndpointConfiguration{Types: []string{"EDGE"}}
	if in.EndpointConfiguration != nil {
		ec = *in.EndpointConfiguration
		ec.Types = slices.Clone(ec.Types)
		switch len(ec.Types) {
		case 0:
			return API{}, BadRequest("REGIONAL Configuration and EDGE Configuration cannot be both DISABLED.")
		case 1:
		default:
			return API{}, BadRequest("Cannot create an api with multiple Endpoint Types.")
		}
	}
	switch {
	case ec.Types[0] == "PRIVATE" && ec.IPAddressType == "ipv4":
		return API{}, BadRequest("Only dualstack ipAddressType is supported for Private APIs.")
	case ec.Types[0] == "PRIVATE":
		ec.IPAddressType = "dualstack"
	case ec.IPAddressType == "":
		ec.IPAddressType = "ipv4"
	}
	if in.EndpointConfiguration != nil {
		api.EndpointConfiguration = &ec
	}
	if id, ok := in.Tags[CustomIDTag]; ok {
		if !customIDRe.MatchString(id) {
			return API{}, BadRequest("Invalid %s tag: the id must be 1 to 128 letters, digits, '-' or '_'", CustomIDTag)
		}
		api.ID = id
	}
	return api, nil
}

// defaultEndpoint is the endpoint configuration of an API created without
// one. It MUST NOT be written.
var defaultEndpoint = &EndpointConfiguration{Types: []string{"EDGE"}, IPAddressType: "ipv4"}

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
