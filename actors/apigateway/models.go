package apigateway

import (
	"maps"
	"mime"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/modelschema"
	"github.com/cloudemu/emulator/pmap"
)

// This file owns a REST API's models, authorizers, request validators and
// gateway responses: their validation as AWS applies it, their mutations
// (inside the API's owner, through the Tx) and their reads (from the
// published state).

// ---- shared by the four kinds ----

// modelsMutate is Mutate for operations on one item of an API: AWS reports a
// missing API as the item missing (gone), not as the API missing.
func modelsMutate[R any](s *Service, sc awswire.Scope, apiID string, gone *awswire.Error, fn func(t *Tx) (R, error)) (R, error) {
	return mutateOr(s, sc, apiID, func() *awswire.Error { return gone }, fn)
}

// modelsCheckPatch is p.Check, save that an op no path of p supports is
// refused as "Please choose supported operations" whatever the path, as
// AWS does for ListPaths kinds (MD-15: add on an unknown path).
func modelsCheckPatch(p Patchable, ops []PatchOp) error {
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

// modelsRead returns the published API, or gone when there is none.
func (s *Service) modelsRead(sc awswire.Scope, apiID string, gone *awswire.Error) (*RestAPI, error) {
	r, ok := s.API(sc, apiID)
	if !ok {
		return nil, gone
	}
	return r, nil
}

// modelsFirstMethod returns the first method for which match holds, as its
// resource path and HTTP method. AWS names one referencing method; which
// one is not specified (MD-03 named a child before the root), so resources
// are scanned by path, last first.
func modelsFirstMethod(rs pmap.Map[*Resource], match func(*Method) bool) (path, method string, ok bool) {
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

func modelsDeref(p *string) string {
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
// Empty and Error, unless the API already has models of those names.
// CreateRestApi calls it from its init.
func DefaultModels(t *Tx) {
	for _, d := range []Model{
		{Name: "Empty", ContentType: "application/json",
			Description: "This is a default empty schema model", Schema: emptyModelSchema},
		{Name: "Error", ContentType: "application/json",
			Description: "This is a default error schema model", Schema: errorModelSchema},
	} {
		if _, ok := t.State().Models.Get(d.Name); ok {
			continue
		}
		m := d
		m.ID = NewID(6, func(id string) bool { return modelIDTaken(t.State(), id) })
		t.PutModel(&m)
	}
}

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
		Description: modelsDeref(in.Description), Schema: modelsDeref(in.Schema)}
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
	r, err := s.modelsRead(sc, apiID, ModelNotFound(name))
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
	r, err := s.modelsRead(sc, apiID, APINotFound(sc, apiID))
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
	if err := modelsCheckPatch(modelPatch, ops); err != nil {
		return nil, err
	}
	return modelsMutate(s, sc, apiID, ModelNotFound(name), func(t *Tx) (*Model, error) {
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
	_, err := modelsMutate(s, sc, apiID, ModelNotFound(name), func(t *Tx) (struct{}, error) {
		st := t.State()
		if _, ok := st.Models.Get(name); !ok {
			return struct{}{}, ModelNotFound(name)
		}
		path, method, used := modelsFirstMethod(st.Resources, func(m *Method) bool {
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
		path, method, used = modelsFirstMethod(st.Resources, func(m *Method) bool {
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

// modelsOf looks the API's models up by name, for modelschema.
func modelsOf(c *Config) modelschema.Models {
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
	t, err := modelschema.Template(m.Name, m.Schema, modelsOf(c))
	if err != nil {
		return "", invalidSchema()
	}
	return t, nil
}

// FlattenModelSchema returns m's schema with the references to c's other
// models replaced by their schemas (GetModel's flatten).
func FlattenModelSchema(c *Config, m *Model) string {
	return modelschema.Flatten(m.Name, m.Schema, modelsOf(c))
}

// ---- authorizers ----

// AuthorizerInput is a CreateAuthorizer request; a nil member was absent.
type AuthorizerInput struct {
	Name                         *string
	Type                         *string
	ProviderARNs                 []string
	AuthType                     *string
	AuthorizerURI                *string
	AuthorizerCredentials        *string
	IdentitySource               *string
	IdentityValidationExpression *string
	AuthorizerResultTTLInSeconds *int64
}

// AuthorizerNotFound is the error for an unknown authorizer, or an unknown
// API on an operation naming an authorizer.
func AuthorizerNotFound() *awswire.Error { return notFound("Invalid Authorizer identifier specified") }

// authorizerNoAPI is what CreateAuthorizer answers for a missing API (sic,
// AU-01).
func authorizerNoAPI() *awswire.Error {
	return Conflict("Unable to complete operation due to concurrent modification. Please try again later.")
}

// AuthorizerTTL is how long an authorizer's results are cached: AWS
// caches for 300 seconds when the client did not say.
func AuthorizerTTL(a *Authorizer) int64 {
	if a.AuthorizerResultTTLInSeconds == nil {
		return 300
	}
	return *a.AuthorizerResultTTLInSeconds
}

var (
	// lambdaAuthorizerURIRe is a Lambda invocation as API Gateway names it.
	lambdaAuthorizerURIRe     = regexp.MustCompile(`^arn:aws[a-z-]*:apigateway:[a-z]{2}(-[a-z]+)+-\d+:lambda:path/\S+$`)
	authorizerTokenSourceRe   = regexp.MustCompile(`^method\.request\.header\.[a-zA-Z0-9._-]+$`)
	authorizerRequestSourceRe = regexp.MustCompile(`^(method\.request\.(header|querystring|multivalueheader|multivaluequerystring)\.[^\s,]+|stageVariables\.[a-zA-Z0-9._-]+|context\.[a-zA-Z0-9._-]+)$`)
	cognitoPoolARNRe          = regexp.MustCompile(`^arn:aws[a-z-]*:cognito-idp:[a-z]{2}(-[a-z]+)+-\d+:\d{12}:userpool/[a-z]{2}(-[a-z]+)+-\d+_[0-9a-zA-Z]+$`)
)

// defaultAuthorizerAuthType is the authType AWS gives an authorizer of type t that
// the client gave none.
func defaultAuthorizerAuthType(t string) string {
	switch t {
	case "TOKEN", "REQUEST":
		return "custom"
	case "COGNITO_USER_POOLS":
		return "cognito_user_pools"
	}
	return ""
}

// checkAuthorizer refuses an authorizer AWS refuses.
func checkAuthorizer(a *Authorizer) error {
	if a.Name == "" {
		return BadRequest("Authorizer name must be non-empty")
	}
	if ttl := a.AuthorizerResultTTLInSeconds; ttl != nil && (*ttl < 0 || *ttl > 3600) {
		return BadRequest("Authorizer result TTL must be between 0 and 3600 seconds")
	}
	switch a.Type {
	case "TOKEN", "REQUEST":
		if !lambdaAuthorizerURIRe.MatchString(a.AuthorizerURI) {
			return BadRequest("Invalid Authorizer URI: %s. Authorizer URI should be a valid API Gateway ARN that represents a Lambda function invocation.",
				modelsNullIfEmpty(a.AuthorizerURI))
		}
		if a.Type == "TOKEN" {
			return checkAuthorizerTokenSource(a.IdentitySource)
		}
		if a.IdentitySource == "" {
			if AuthorizerTTL(a) > 0 {
				return BadRequest("Identity source must be specified when authorization caching is enabled")
			}
			return nil
		}
		for _, src := range strings.Split(a.IdentitySource, ",") {
			if src = strings.TrimSpace(src); !authorizerRequestSourceRe.MatchString(src) {
				return BadRequest("Invalid identity source expression: %s", src)
			}
		}
	case "COGNITO_USER_POOLS":
		if len(a.ProviderARNs) == 0 {
			return BadRequest("ProviderARNs must be specified for COGNITO_USER_POOLS authorizers")
		}
		for _, arn := range a.ProviderARNs {
			if !cognitoPoolARNRe.MatchString(arn) {
				return BadRequest("Invalid Cognito User Pool ARN specified: %s", arn)
			}
		}
		return checkAuthorizerTokenSource(a.IdentitySource)
	}
	return nil
}

func checkAuthorizerTokenSource(src string) error {
	if !authorizerTokenSourceRe.MatchString(src) {
		return BadRequest("Invalid token source expression: %s. The source must be a method request header, matching 'method.request.header.[a-zA-Z0-9._-]+'.",
			modelsNullIfEmpty(src))
	}
	return nil
}

func modelsNullIfEmpty(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// authorizerTypes are the types the model lists; the spec's JWT is
// accepted besides.
var authorizerTypes = []string{"TOKEN", "REQUEST", "COGNITO_USER_POOLS"}

func authorizerIDTaken(st *RestAPI) func(string) bool {
	return func(id string) bool { _, ok := st.Authorizers.Get(id); return ok }
}

// CreateAuthorizer adds an authorizer to API apiID. As on AWS, the
// authorizer is validated before the API's existence (AU-01).
func (s *Service) CreateAuthorizer(sc awswire.Scope, apiID string, in AuthorizerInput) (*Authorizer, error) {
	var v Validation
	v.NotNull("createAuthorizerInput.name", in.Name != nil)
	v.NotNull("createAuthorizerInput.type", in.Type != nil)
	if in.Type != nil && *in.Type != "JWT" {
		v.Enum("createAuthorizerInput.type", *in.Type, authorizerTypes...)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	a := Authorizer{
		Name:                         *in.Name,
		Type:                         *in.Type,
		ProviderARNs:                 slices.Clone(in.ProviderARNs),
		AuthorizerURI:                modelsDeref(in.AuthorizerURI),
		AuthorizerCredentials:        modelsDeref(in.AuthorizerCredentials),
		IdentitySource:               modelsDeref(in.IdentitySource),
		IdentityValidationExpression: modelsDeref(in.IdentityValidationExpression),
		AuthorizerResultTTLInSeconds: in.AuthorizerResultTTLInSeconds,
		AuthType:                     modelsDeref(in.AuthType),
	}
	if in.AuthType == nil {
		a.AuthType = defaultAuthorizerAuthType(a.Type)
	}
	if err := checkAuthorizer(&a); err != nil {
		return nil, err
	}
	return modelsMutate(s, sc, apiID, authorizerNoAPI(), func(t *Tx) (*Authorizer, error) {
		a.ID = NewID(6, authorizerIDTaken(t.State()))
		t.PutAuthorizer(&a)
		return &a, nil
	})
}

// GetAuthorizer returns authorizer id.
func (s *Service) GetAuthorizer(sc awswire.Scope, apiID, id string) (*Authorizer, error) {
	r, err := s.modelsRead(sc, apiID, AuthorizerNotFound())
	if err != nil {
		return nil, err
	}
	a, ok := r.Authorizers.Get(id)
	if !ok {
		return nil, AuthorizerNotFound()
	}
	return a, nil
}

// Authorizers returns the API's authorizers in id order.
func (s *Service) Authorizers(sc awswire.Scope, apiID string) ([]*Authorizer, error) {
	r, err := s.modelsRead(sc, apiID, APINotFound(sc, apiID))
	if err != nil {
		return nil, err
	}
	out := slices.Collect(r.Authorizers.Values())
	slices.SortFunc(out, func(a, b *Authorizer) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// authorizerPatch are the paths UpdateAuthorizer accepts: every member a
// client sets on creation, and the Cognito pools one by one (the value,
// or the path's last segment, names the pool), which is how Terraform
// changes them.
var authorizerPatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/name", []string{"replace"}},
	{"/type", []string{"replace"}},
	{"/authType", []string{"replace"}},
	{"/authorizerUri", []string{"replace"}},
	{"/authorizerCredentials", []string{"replace"}},
	{"/identitySource", []string{"replace"}},
	{"/identityValidationExpression", []string{"replace"}},
	{"/authorizerResultTtlInSeconds", []string{"replace"}},
	{"/providerARNs", []string{"add", "remove"}},
	{"/providerARNs/**", []string{"add", "remove"}},
}}

// UpdateAuthorizer applies patch operations to an authorizer, which must
// still be valid afterwards.
func (s *Service) UpdateAuthorizer(sc awswire.Scope, apiID, id string, ops []PatchOp) (*Authorizer, error) {
	var v Validation
	v.PatchOps("updateAuthorizerInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := modelsCheckPatch(authorizerPatch, ops); err != nil {
		return nil, err
	}
	return modelsMutate(s, sc, apiID, AuthorizerNotFound(), func(t *Tx) (*Authorizer, error) {
		cur, ok := t.State().Authorizers.Get(id)
		if !ok {
			return nil, AuthorizerNotFound()
		}
		a := *cur
		a.ProviderARNs = slices.Clone(a.ProviderARNs)
		for _, o := range ops {
			if err := patchAuthorizer(&a, o); err != nil {
				return nil, err
			}
		}
		if err := checkAuthorizer(&a); err != nil {
			return nil, err
		}
		t.PutAuthorizer(&a)
		return &a, nil
	})
}

func patchAuthorizer(a *Authorizer, o PatchOp) error {
	switch o.Path {
	case "/name":
		a.Name = o.Val()
	case "/type":
		t := o.Val()
		if t != "JWT" && !slices.Contains(authorizerTypes, t) {
			return BadRequest("Invalid authorizer type specified: %s. Valid options are TOKEN,REQUEST,COGNITO_USER_POOLS", t)
		}
		// An authType AWS gave follows the type; one the client gave stays.
		if a.AuthType == defaultAuthorizerAuthType(a.Type) {
			a.AuthType = defaultAuthorizerAuthType(t)
		}
		a.Type = t
	case "/authType":
		a.AuthType = o.Val()
	case "/authorizerUri":
		a.AuthorizerURI = o.Val()
	case "/authorizerCredentials":
		a.AuthorizerCredentials = o.Val()
	case "/identitySource":
		a.IdentitySource = o.Val()
	case "/identityValidationExpression":
		a.IdentityValidationExpression = o.Val()
	case "/authorizerResultTtlInSeconds":
		if o.Val() == "" {
			a.AuthorizerResultTTLInSeconds = nil
			return nil
		}
		n, err := strconv.ParseInt(o.Val(), 10, 64)
		if err != nil {
			return BadRequest("Authorizer result TTL must be between 0 and 3600 seconds")
		}
		a.AuthorizerResultTTLInSeconds = &n
	default: // /providerARNs, /providerARNs/{arn}
		arn := o.Val()
		if k := PathKey(o.Path, "/providerARNs/"); o.Path != "/providerARNs" && arn == "" {
			arn = k
		}
		if arn == "" {
			return BadRequest("Invalid Cognito User Pool ARN specified: null")
		}
		switch o.Op {
		case "add":
			if !slices.Contains(a.ProviderARNs, arn) {
				a.ProviderARNs = append(a.ProviderARNs, arn)
			}
		case "remove":
			i := slices.Index(a.ProviderARNs, arn)
			if i < 0 {
				return notFound("Invalid Cognito User Pool ARN specified: %s", arn)
			}
			a.ProviderARNs = slices.Delete(a.ProviderARNs, i, i+1)
		}
	}
	return nil
}

// DeleteAuthorizer deletes an authorizer no method uses.
func (s *Service) DeleteAuthorizer(sc awswire.Scope, apiID, id string) error {
	_, err := modelsMutate(s, sc, apiID, AuthorizerNotFound(), func(t *Tx) (struct{}, error) {
		st := t.State()
		if _, ok := st.Authorizers.Get(id); !ok {
			return struct{}{}, AuthorizerNotFound()
		}
		path, method, used := modelsFirstMethod(st.Resources, func(m *Method) bool { return m.AuthorizerID == id })
		if used {
			// Worded as AWS words it: METHOD, then the resource path.
			return struct{}{}, Conflict("Cannot delete authorizer, is referenced in method: %s/%s", method, path)
		}
		t.DeleteAuthorizer(id)
		return struct{}{}, nil
	})
	return err
}

// ---- request validators ----

// ValidatorInput is a CreateRequestValidator request.
type ValidatorInput struct {
	Name                      string
	ValidateRequestBody       bool
	ValidateRequestParameters bool
}

// ValidatorNotFound is the error for an unknown request validator, or an
// unknown API on an operation naming one (RV-04, RV-07).
func ValidatorNotFound() *awswire.Error {
	return notFound("Invalid Request Validator identifier specified")
}

func validatorNameTaken(st *RestAPI, name, except string) bool {
	if name == "" {
		return false
	}
	for _, v := range st.Validators.All() {
		if v.Name == name && v.ID != except {
			return true
		}
	}
	return false
}

func validatorNameConflict() *awswire.Error { return Conflict("Request Validator name must be unique") }

// CreateRequestValidator adds a request validator to API apiID.
func (s *Service) CreateRequestValidator(sc awswire.Scope, apiID string, in ValidatorInput) (*RequestValidator, error) {
	// AWS answers a missing API with a 400 here (RV-01).
	gone := BadRequest("Invalid REST API identifier specified")
	return modelsMutate(s, sc, apiID, gone, func(t *Tx) (*RequestValidator, error) {
		st := t.State()
		if validatorNameTaken(st, in.Name, "") {
			return nil, validatorNameConflict()
		}
		v := &RequestValidator{
			ID:                        NewID(6, func(id string) bool { _, ok := st.Validators.Get(id); return ok }),
			Name:                      in.Name,
			ValidateRequestBody:       in.ValidateRequestBody,
			ValidateRequestParameters: in.ValidateRequestParameters,
		}
		t.PutValidator(v)
		return v, nil
	})
}

// GetRequestValidator returns request validator id.
func (s *Service) GetRequestValidator(sc awswire.Scope, apiID, id string) (*RequestValidator, error) {
	r, err := s.modelsRead(sc, apiID, ValidatorNotFound())
	if err != nil {
		return nil, err
	}
	v, ok := r.Validators.Get(id)
	if !ok {
		return nil, ValidatorNotFound()
	}
	return v, nil
}

// RequestValidators returns the API's request validators in id order.
func (s *Service) RequestValidators(sc awswire.Scope, apiID string) ([]*RequestValidator, error) {
	r, err := s.modelsRead(sc, apiID, APINotFound(sc, apiID))
	if err != nil {
		return nil, err
	}
	out := slices.Collect(r.Validators.Values())
	slices.SortFunc(out, func(a, b *RequestValidator) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// validatorPatch are the paths UpdateRequestValidator accepts (RV-10..12).
var validatorPatch = Patchable{Style: ListPaths, Rules: []PatchRule{
	{"/name", []string{"replace"}},
	{"/validateRequestParameters", []string{"replace"}},
	{"/validateRequestBody", []string{"replace"}},
}}

// UpdateRequestValidator applies patch operations to a request validator.
func (s *Service) UpdateRequestValidator(sc awswire.Scope, apiID, id string, ops []PatchOp) (*RequestValidator, error) {
	var v Validation
	v.PatchOps("updateRequestValidatorInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := modelsCheckPatch(validatorPatch, ops); err != nil {
		return nil, err
	}
	return modelsMutate(s, sc, apiID, ValidatorNotFound(), func(t *Tx) (*RequestValidator, error) {
		st := t.State()
		cur, ok := st.Validators.Get(id)
		if !ok {
			return nil, ValidatorNotFound()
		}
		rv := *cur
		for _, o := range ops {
			// A flag is true only when the value says so: AWS reads a
			// missing value as false (B.8).
			on := strings.EqualFold(o.Val(), "true")
			switch o.Path {
			case "/name":
				if strings.TrimSpace(o.Val()) == "" {
					return nil, BadRequest("Request Validator name cannot be blank")
				}
				rv.Name = o.Val()
			case "/validateRequestParameters":
				rv.ValidateRequestParameters = on
			case "/validateRequestBody":
				rv.ValidateRequestBody = on
			}
		}
		if rv.Name != cur.Name && validatorNameTaken(st, rv.Name, id) {
			return nil, validatorNameConflict()
		}
		t.PutValidator(&rv)
		return &rv, nil
	})
}

// DeleteRequestValidator deletes a request validator no method uses.
func (s *Service) DeleteRequestValidator(sc awswire.Scope, apiID, id string) error {
	_, err := modelsMutate(s, sc, apiID, ValidatorNotFound(), func(t *Tx) (struct{}, error) {
		st := t.State()
		if _, ok := st.Validators.Get(id); !ok {
			return struct{}{}, ValidatorNotFound()
		}
		path, method, used := modelsFirstMethod(st.Resources, func(m *Method) bool { return m.RequestValidatorID == id })
		if used {
			return struct{}{}, Conflict("Cannot delete request validator, is referenced in method: %s/%s", method, path)
		}
		t.DeleteValidator(id)
		return struct{}{}, nil
	})
	return err
}

// ---- gateway responses ----

// GatewayResponseTypes are the response types, in the order AWS lists them
// in its ValidationException (GR-06).
var GatewayResponseTypes = []string{
	"REQUEST_TOO_LARGE", "RESOURCE_NOT_FOUND", "AUTHORIZER_CONFIGURATION_ERROR", "MISSING_AUTHENTICATION_TOKEN",
	"BAD_REQUEST_BODY", "INVALID_SIGNATURE", "INVALID_API_KEY", "BAD_REQUEST_PARAMETERS", "AUTHORIZER_FAILURE",
	"UNAUTHORIZED", "INTEGRATION_TIMEOUT", "ACCESS_DENIED", "DEFAULT_4XX", "DEFAULT_5XX", "WAF_FILTERED",
	"QUOTA_EXCEEDED", "THROTTLED", "API_CONFIGURATION_ERROR", "UNSUPPORTED_MEDIA_TYPE", "INTEGRATION_FAILURE",
	"EXPIRED_TOKEN",
}

// gatewayDefaultStatus is each type's default status code (B.9); the two
// DEFAULT_ types have none.
var gatewayDefaultStatus = map[string]string{
	"ACCESS_DENIED":                  "403",
	"API_CONFIGURATION_ERROR":        "500",
	"AUTHORIZER_CONFIGURATION_ERROR": "500",
	"AUTHORIZER_FAILURE":             "500",
	"BAD_REQUEST_BODY":               "400",
	"BAD_REQUEST_PARAMETERS":         "400",
	"DEFAULT_4XX":                    "",
	"DEFAULT_5XX":                    "",
	"EXPIRED_TOKEN":                  "403",
	"INTEGRATION_FAILURE":            "504",
	"INTEGRATION_TIMEOUT":            "504",
	"INVALID_API_KEY":                "403",
	"INVALID_SIGNATURE":              "403",
	"MISSING_AUTHENTICATION_TOKEN":   "403",
	"QUOTA_EXCEEDED":                 "429",
	"REQUEST_TOO_LARGE":              "413",
	"RESOURCE_NOT_FOUND":             "404",
	"THROTTLED":                      "429",
	"UNAUTHORIZED":                   "401",
	"UNSUPPORTED_MEDIA_TYPE":         "415",
	"WAF_FILTERED":                   "403",
}

// DefaultGatewayTemplate is the body template of every default gateway
// response.
const DefaultGatewayTemplate = `{"message":$context.error.messageString}`

func defaultGatewayTemplates() map[string]string {
	return map[string]string{"application/json": DefaultGatewayTemplate}
}

// IsGatewayResponseType reports whether t is a response type.
func IsGatewayResponseType(t string) bool {
	_, ok := gatewayDefaultStatus[t]
	return ok
}

// DefaultGatewayResponse is the response AWS gives for type t on an API
// that never customised it (or DEFAULT_4XX/5XX).
func DefaultGatewayResponse(t string) *GatewayResponse {
	return &GatewayResponse{ResponseType: t, StatusCode: gatewayDefaultStatus[t],
		ResponseParameters: map[string]string{}, ResponseTemplates: defaultGatewayTemplates(),
		DefaultResponse: true}
}

// gatewayFamily is the DEFAULT_ type a type inherits from: DEFAULT_5XX for
// the types whose default status is 5xx, DEFAULT_4XX for the others.
func gatewayFamily(t string) string {
	if strings.HasPrefix(gatewayDefaultStatus[t], "5") {
		return "DEFAULT_5XX"
	}
	return "DEFAULT_4XX"
}

// EffectiveGatewayResponse is the gateway response API Gateway gives for
// responseType under configuration c: the one put for it; else, when the
// type's family default (DEFAULT_4XX or DEFAULT_5XX) was put, its status
// code (if it has one), parameters and templates, still marked
// defaultResponse as AWS lists it (B.9); else the type's default. It
// returns nil for an unknown type. The result MUST NOT be modified.
func EffectiveGatewayResponse(c *Config, responseType string) *GatewayResponse {
	if !IsGatewayResponseType(responseType) {
		return nil
	}
	if g, ok := c.GatewayResponses.Get(responseType); ok {
		return g
	}
	d := DefaultGatewayResponse(responseType)
	if strings.HasPrefix(responseType, "DEFAULT_") {
		return d
	}
	if fam, ok := c.GatewayResponses.Get(gatewayFamily(responseType)); ok {
		if fam.StatusCode != "" {
			d.StatusCode = fam.StatusCode
		}
		d.ResponseParameters = maps.Clone(fam.ResponseParameters)
		d.ResponseTemplates = maps.Clone(fam.ResponseTemplates)
		if d.ResponseParameters == nil {
			d.ResponseParameters = map[string]string{}
		}
		if d.ResponseTemplates == nil {
			d.ResponseTemplates = map[string]string{}
		}
	}
	return d
}

// checkGatewayType reports an unknown response type as AWS does: a
// ValidationException on the bare URI member (GR-06..09), after whatever
// errors errs holds already.
func checkGatewayType(v *Validation, t string) {
	v.Enum("responseType", t, GatewayResponseTypes...)
}

// GetGatewayResponse returns the effective gateway response of a type.
func (s *Service) GetGatewayResponse(sc awswire.Scope, apiID, responseType string) (*GatewayResponse, error) {
	var v Validation
	checkGatewayType(&v, responseType)
	if err := v.Err(); err != nil {
		return nil, err
	}
	r, err := s.modelsRead(sc, apiID, APINotFound(sc, apiID))
	if err != nil {
		return nil, err
	}
	return EffectiveGatewayResponse(&r.Config, responseType), nil
}

// GatewayResponses returns the effective gateway response of every type,
// in type order.
func (s *Service) GatewayResponses(sc awswire.Scope, apiID string) ([]*GatewayResponse, error) {
	r, err := s.modelsRead(sc, apiID, APINotFound(sc, apiID))
	if err != nil {
		return nil, err
	}
	types := slices.Sorted(maps.Keys(gatewayDefaultStatus))
	out := make([]*GatewayResponse, len(types))
	for i, t := range types {
		out[i] = EffectiveGatewayResponse(&r.Config, t)
	}
	return out, nil
}

// GatewayResponseInput is a PutGatewayResponse request; a nil member was
// absent, a nil map value was JSON null.
type GatewayResponseInput struct {
	StatusCode         *string
	ResponseParameters map[string]*string
	ResponseTemplates  map[string]*string
}

// PutGatewayResponse replaces the gateway response of a type: what the
// request omits takes the type's default (B.9).
func (s *Service) PutGatewayResponse(sc awswire.Scope, apiID, responseType string, in GatewayResponseInput) (*GatewayResponse, error) {
	var v Validation
	if in.StatusCode != nil {
		v.Pattern("putGatewayResponseInput.statusCode", *in.StatusCode, StatusCodePattern, StatusCodePatternText)
	}
	checkGatewayType(&v, responseType)
	if err := v.Err(); err != nil {
		return nil, err
	}
	g := DefaultGatewayResponse(responseType)
	g.DefaultResponse = false
	if in.StatusCode != nil {
		g.StatusCode = *in.StatusCode
	}
	var err error
	if in.ResponseParameters != nil {
		if g.ResponseParameters, err = gatewayMap(in.ResponseParameters, "responseParameters"); err != nil {
			return nil, err
		}
	}
	if in.ResponseTemplates != nil {
		if g.ResponseTemplates, err = gatewayMap(in.ResponseTemplates, "responseTemplates"); err != nil {
			return nil, err
		}
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*GatewayResponse, error) {
		t.PutGatewayResponse(g)
		return g, nil
	})
}

func gatewayMap(in map[string]*string, member string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, v := range in {
		if v == nil || *v == "" {
			return nil, gatewayNullValue(member)
		}
		out[k] = *v
	}
	return out, nil
}

func gatewayNullValue(member string) *awswire.Error {
	return BadRequest("Invalid null or empty value in %s", member)
}

// gatewayPatchOK reports whether UpdateGatewayResponse accepts op on path:
// /statusCode with replace, one parameter or template with add, replace
// or remove. Anything else is "Invalid patch path" (GR-10, GR-11, GR-15).
func gatewayPatchOK(o PatchOp) bool {
	switch {
	case o.Path == "/statusCode":
		return o.Op == "replace"
	case strings.HasPrefix(o.Path, "/responseParameters/") && len(o.Path) > len("/responseParameters/"),
		strings.HasPrefix(o.Path, "/responseTemplates/") && len(o.Path) > len("/responseTemplates/"):
		return o.Op == "add" || o.Op == "replace" || o.Op == "remove"
	}
	return false
}

// UpdateGatewayResponse applies patch operations to the gateway response
// of a type, starting from the effective one when it was never put: the
// result is put (B.9).
func (s *Service) UpdateGatewayResponse(sc awswire.Scope, apiID, responseType string, ops []PatchOp) (*GatewayResponse, error) {
	var v Validation
	v.PatchOps("updateGatewayResponseInput", ops)
	checkGatewayType(&v, responseType)
	if err := v.Err(); err != nil {
		return nil, err
	}
	for _, o := range ops {
		if o.Path == "" {
			return nil, BadRequest("Invalid patch path null")
		}
		if !gatewayPatchOK(o) {
			return nil, BadRequest("Invalid patch path %s", o.Path)
		}
	}
	return Mutate(s, sc, apiID, func(t *Tx) (*GatewayResponse, error) {
		cur := EffectiveGatewayResponse(&t.State().Config, responseType)
		g := *cur
		g.DefaultResponse = false
		g.ResponseParameters = maps.Clone(cur.ResponseParameters)
		g.ResponseTemplates = maps.Clone(cur.ResponseTemplates)
		if g.ResponseParameters == nil {
			g.ResponseParameters = map[string]string{}
		}
		if g.ResponseTemplates == nil {
			g.ResponseTemplates = map[string]string{}
		}
		for _, o := range ops {
			if err := patchGatewayResponse(&g, o); err != nil {
				return nil, err
			}
		}
		t.PutGatewayResponse(&g)
		return &g, nil
	})
}

func patchGatewayResponse(g *GatewayResponse, o PatchOp) error {
	if o.Path == "/statusCode" {
		if !StatusCodePattern.MatchString(o.Val()) {
			return BadRequest("Invalid status code specified: %s", modelsNullIfEmpty(o.Val()))
		}
		g.StatusCode = o.Val()
		return nil
	}
	m, member := g.ResponseParameters, "responseParameters"
	key := PathKey(o.Path, "/responseParameters/")
	missing := notFound("Invalid parameter name specified")
	if strings.HasPrefix(o.Path, "/responseTemplates/") {
		m, member = g.ResponseTemplates, "responseTemplates"
		key = PathKey(o.Path, "/responseTemplates/")
		missing = notFound("Content-Type specified was not found")
	}
	_, exists := m[key]
	if o.Op == "remove" {
		if !exists {
			return missing
		}
		delete(m, key)
		return nil
	}
	// The value is checked before the name (GR-16, GR-17).
	if o.Value == nil || *o.Value == "" {
		return gatewayNullValue(member)
	}
	if o.Op == "replace" && !exists {
		return missing
	}
	m[key] = *o.Value
	return nil
}

// DeleteGatewayResponse removes the customisation of a type, which answers
// its default again.
func (s *Service) DeleteGatewayResponse(sc awswire.Scope, apiID, responseType string) error {
	var v Validation
	checkGatewayType(&v, responseType)
	if err := v.Err(); err != nil {
		return err
	}
	_, err := Mutate(s, sc, apiID, func(t *Tx) (struct{}, error) {
		if _, ok := t.State().GatewayResponses.Get(responseType); !ok {
			return struct{}{}, notFound("Gateway response type not defined on api")
		}
		t.DeleteGatewayResponse(responseType)
		return struct{}{}, nil
	})
	return err
}
