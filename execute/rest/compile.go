package rest

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/vtl"
	"github.com/cloudemu/emulator/vtl/gateway"
)

// compiled is a deployment (or, for TestInvokeMethod, a live
// configuration) as execution reads it: routes, methods with their
// integrations, templates compiled, gateway responses resolved. It is
// built once per frozen configuration and read concurrently.
type compiled struct {
	cfg     *apigateway.Config
	routes  *Routes
	methods map[methodKey]*method
	// binary is the API's binaryMediaTypes.
	binary  []string
	gateway map[string]*gatewayResponse
	models  map[string]*modelSchema
	// authorizers are the configuration's authorizers by id.
	authorizers map[string]*authorizer
}

type methodKey struct{ resourceID, method string }

// method is one method of a resource, ready to run.
type method struct {
	resourceID, resourcePath, httpMethod string
	authorization                        string
	apiKeyRequired                       bool
	validateParams, validateBody         bool
	// required are the names of the required request parameters, in the
	// order AWS reports missing ones (by full key: header, path,
	// querystring).
	required []requiredParam
	// models maps content types to the body models.
	models map[string]string
	integ  *integration
	// authorizer is the method's authorizer (CUSTOM and
	// COGNITO_USER_POOLS methods); nil when it names none that exists.
	authorizer *authorizer
	// metrics caches the method's metric series (metricsRoute).
	metrics atomic.Pointer[methodRoute]
}

type requiredParam struct{ where, name string }

// integration is a method's integration request, integration and
// integration responses.
type integration struct {
	kind string // MOCK, HTTP, HTTP_PROXY, AWS, AWS_PROXY, CLOUD, CLOUD_PROXY
	// function: an AWS or AWS_PROXY integration (or a CLOUD name);
	// proxy: AWS_PROXY or CLOUD_PROXY. lambda is its parsed URI.
	function, proxy bool
	lambda          lambdaTarget
	httpMethod      string
	uri             string
	params          []paramMapping
	// restricted is set when a mapping targets a header API Gateway keeps
	// for itself: every request answers 500.
	restricted      bool
	templates       map[string]*template
	passthrough     string
	contentHandling string
	timeout         time.Duration
	insecureTLS     bool
	responses       []*integrationResponse // with a selection pattern, by status code
	fallback        *integrationResponse   // the default response, if any
}

// template is a mapping template compiled once, with what it refers to.
type template struct {
	t   *vtl.Template
	err error
	// context, input, stage: the template uses $context, $input,
	// $stageVariables.
	context, input, stage bool
	// static: the template has no reference or directive, so it renders
	// as out every time (and, as a MOCK request template, names
	// mockStatus when mockOK).
	static     bool
	out        []byte
	mockStatus int
	mockOK     bool
}

func compileTemplate(src string) *template {
	if !strings.ContainsAny(src, "$#\\") {
		tm := &template{static: true, out: []byte(src)}
		tm.mockStatus, tm.mockOK = gateway.MockStatus(src)
		return tm
	}
	t, err := vtl.CompileCached(src)
	if err != nil {
		return &template{err: err}
	}
	return &template{t: t, context: t.Refers("context"), input: t.Refers("input"), stage: t.Refers("stageVariables")}
}

func compileTemplates(m map[string]string) map[string]*template {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]*template, len(m))
	for ct, src := range m {
		// An empty template is no template (AWS stores it as null).
		if src != "" {
			out[strings.ToLower(ct)] = compileTemplate(src)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// integrationResponse is one integration response.
type integrationResponse struct {
	status          int
	statusCode      string
	pattern         execute.SelectionPattern
	patternErr      error
	params          []paramMapping
	templates       map[string]*template
	contentHandling string
}

// compile builds the executable form of a configuration.
func compile(cfg *apigateway.Config) *compiled {
	c := &compiled{cfg: cfg, methods: map[methodKey]*method{}, binary: cfg.API.BinaryMediaTypes,
		models: map[string]*modelSchema{}, authorizers: map[string]*authorizer{}}
	for a := range cfg.Authorizers.Values() {
		c.authorizers[a.ID] = compileAuthorizer(a)
	}
	var specs []RouteSpec
	for r := range cfg.Resources.Values() {
		spec := RouteSpec{Path: r.Path, ResourceID: r.ID}
		for verb, m := range r.Methods {
			spec.Methods = append(spec.Methods, verb)
			cm := compileMethod(cfg, r, m)
			cm.authorizer = c.authorizers[m.AuthorizerID]
			c.methods[methodKey{r.ID, verb}] = cm
		}
		specs = append(specs, spec)
	}
	c.routes = CompileRoutes(specs)
	for m := range cfg.Models.Values() {
		c.models[m.Name] = &modelSchema{name: m.Name, cfg: cfg}
	}
	c.gateway = compileGatewayResponses(cfg)
	return c
}

func compileMethod(cfg *apigateway.Config, r *apigateway.Resource, m *apigateway.Method) *method {
	out := &method{resourceID: r.ID, resourcePath: r.Path, httpMethod: m.HTTPMethod,
		authorization: m.AuthorizationType, apiKeyRequired: m.APIKeyRequired, models: m.RequestModels}
	if m.RequestValidatorID != "" {
		if v, ok := cfg.Validators.Get(m.RequestValidatorID); ok {
			out.validateParams, out.validateBody = v.ValidateRequestParameters, v.ValidateRequestBody
		}
	}
	for _, key := range slices.Sorted(maps.Keys(m.RequestParameters)) {
		if !m.RequestParameters[key] {
			continue
		}
		where, name, ok := strings.Cut(strings.TrimPrefix(key, "method.request."), ".")
		if ok && name != "" {
			out.required = append(out.required, requiredParam{where, name})
		}
	}
	if m.Integration != nil {
		out.integ = compileIntegration(m.Integration)
	}
	return out
}

func compileIntegration(in *apigateway.Integration) *integration {
	out := &integration{kind: in.Type, httpMethod: in.HTTPMethod, uri: in.URI,
		templates: compileTemplates(in.RequestTemplates), passthrough: in.PassthroughBehavior,
		contentHandling: in.ContentHandling, timeout: 29 * time.Second,
		insecureTLS: in.TLSConfig != nil && in.TLSConfig.InsecureSkipVerification}
	if out.passthrough == "" {
		out.passthrough = "WHEN_NO_MATCH"
	}
	if in.TimeoutInMillis > 0 {
		out.timeout = time.Duration(in.TimeoutInMillis) * time.Millisecond
	}
	switch in.Type {
	case "AWS", "CLOUD":
		out.function = true
	case "AWS_PROXY", "CLOUD_PROXY":
		out.function, out.proxy = true, true
	}
	if out.function {
		out.lambda = parseLambdaURI(in.URI)
	}
	for _, target := range slices.Sorted(maps.Keys(in.RequestParameters)) {
		p, ok := parseMapping(target, "integration.request.", in.RequestParameters[target])
		if !ok {
			continue
		}
		if p.where == "header" {
			if execute.IsRestrictedMapping(p.name, out.function) {
				out.restricted = true
			}
			// API Gateway drops these mappings for HTTP backends without
			// a word (docs/apigateway-execution.md, recorded X-01).
			if !out.function && droppedMapping(p.name) {
				continue
			}
		}
		out.params = append(out.params, p)
	}
	for _, r := range in.IntegrationResponses {
		ir := &integrationResponse{statusCode: r.StatusCode, templates: compileTemplates(r.ResponseTemplates),
			contentHandling: r.ContentHandling}
		ir.status, _ = strconv.Atoi(r.StatusCode)
		for _, target := range slices.Sorted(maps.Keys(r.ResponseParameters)) {
			if p, ok := parseMapping(target, "method.response.", r.ResponseParameters[target]); ok {
				ir.params = append(ir.params, p)
			}
		}
		if pat := r.Pattern(); pat != "" {
			ir.pattern, ir.patternErr = execute.CompileSelection(pat)
			out.responses = append(out.responses, ir)
		} else if out.fallback == nil || ir.status < out.fallback.status {
			out.fallback = ir
		}
	}
	slices.SortFunc(out.responses, func(a, b *integrationResponse) int { return cmp.Compare(a.statusCode, b.statusCode) })
	return out
}

// droppedMapping reports a request header an HTTP integration's mapping
// cannot set: API Gateway leaves it out.
func droppedMapping(name string) bool {
	switch strings.ToLower(name) {
	case "connection", "expect", "proxy-authenticate", "te", "via":
		return true
	}
	return false
}
