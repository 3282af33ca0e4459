package apigateway

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

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
				nullIfEmpty(a.AuthorizerURI))
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
			nullIfEmpty(src))
	}
	return nil
}

func nullIfEmpty(s string) string {
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
		AuthorizerURI:                deref(in.AuthorizerURI),
		AuthorizerCredentials:        deref(in.AuthorizerCredentials),
		IdentitySource:               deref(in.IdentitySource),
		IdentityValidationExpression: deref(in.IdentityValidationExpression),
		AuthorizerResultTTLInSeconds: in.AuthorizerResultTTLInSeconds,
		AuthType:                     deref(in.AuthType),
	}
	if in.AuthType == nil {
		a.AuthType = defaultAuthorizerAuthType(a.Type)
	}
	if err := checkAuthorizer(&a); err != nil {
		return nil, err
	}
	return mutate(s, sc, apiID, authorizerNoAPI(), func(t *Tx) (*Authorizer, error) {
		a.ID = NewID(6, authorizerIDTaken(t.State()))
		t.PutAuthorizer(&a)
		return &a, nil
	})
}

// GetAuthorizer returns authorizer id.
func (s *Service) GetAuthorizer(sc awswire.Scope, apiID, id string) (*Authorizer, error) {
	r, err := s.readAPI(sc, apiID, AuthorizerNotFound())
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
	r, err := s.readAPI(sc, apiID, APINotFound(sc, apiID))
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
	if err := checkPatch(authorizerPatch, ops); err != nil {
		return nil, err
	}
	return mutate(s, sc, apiID, AuthorizerNotFound(), func(t *Tx) (*Authorizer, error) {
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
	_, err := mutate(s, sc, apiID, AuthorizerNotFound(), func(t *Tx) (struct{}, error) {
		st := t.State()
		if _, ok := st.Authorizers.Get(id); !ok {
			return struct{}{}, AuthorizerNotFound()
		}
		path, method, used := firstMethod(st.Resources, func(m *Method) bool { return m.AuthorizerID == id })
		if used {
			// Worded as AWS words it: METHOD, then the resource path.
			return struct{}{}, Conflict("Cannot delete authorizer, is referenced in method: %s/%s", method, path)
		}
		t.DeleteAuthorizer(id)
		return struct{}{}, nil
	})
	return err
}
