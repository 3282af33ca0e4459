package httpfront

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// binding is one operation bound to its handler, with the model's names of
// its path labels in order.
type binding struct {
	op      *awswire.Operation
	handler restjson.Handler
	labels  []string
	// queryKey/queryValue are the operation's literal query, split.
	queryKey, queryValue string
	// logName names the operation in the request log
	// (apigateway.GetRestApi; an emulator endpoint's name alone).
	logName string
}

// route is one method and path template of the router, and the operations
// that share it: several when only a literal query tells them apart
// (CreateRestApi, ImportRestApi) or when two services share the path
// (GET /tags/{arn}).
type route struct {
	method   string
	template string // router path: labels renamed by position
	bindings []*binding
}

// labelKeys are the router's names for the path labels, by position, so
// that operations whose models spell a position differently share a node.
var labelKeys = func() []string {
	k := make([]string, 16)
	for i := range k {
		k[i] = "L" + strconv.Itoa(i)
	}
	return k
}()

// labelPattern is one whole-segment label: {name} or greedy {name+}.
var labelPattern = regexp.MustCompile(`^\{([A-Za-z0-9_.-]+)(\+?)\}$`)

// routerTemplate converts a model path to a router path. Labels are renamed
// by position; a greedy label, or an ARN label in last position, becomes a
// catch-all so that an ARN sent with raw slashes still routes.
func routerTemplate(path string) (template string, labels []string, err error) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var b strings.Builder
	for i, seg := range segs {
		b.WriteByte('/')
		if !strings.HasPrefix(seg, "{") {
			if strings.ContainsAny(seg, "{}") {
				return "", nil, fmt.Errorf("httpfront: label inside a segment in %q", path)
			}
			b.WriteString(seg)
			continue
		}
		m := labelPattern.FindStringSubmatch(seg)
		if m == nil {
			return "", nil, fmt.Errorf("httpfront: malformed label %q in %q", seg, path)
		}
		name, greedy := m[1], m[2] == "+"
		if len(labels) == len(labelKeys) {
			return "", nil, fmt.Errorf("httpfront: too many labels in %q", path)
		}
		key := labelKeys[len(labels)]
		labels = append(labels, name)
		last := i == len(segs)-1
		if last && (greedy || strings.Contains(strings.ToLower(name), "arn")) {
			b.WriteString("{" + key + ":*}")
		} else {
			b.WriteString("{" + key + "}")
		}
	}
	return b.String(), labels, nil
}

// buildRoutes groups every operation of the table by method and router
// template, binding each to its handler or to NotImplementedException.
func buildRoutes(ops []awswire.Operation, handlers map[awswire.Service]map[string]restjson.Handler) ([]*route, error) {
	byKey := map[string]*route{}
	var routes []*route
	for i := range ops {
		op := &ops[i]
		if m := op.Service.Model(); m != nil && m.Protocol != awswire.RESTJSON {
			continue // named in the request; awsrpc dispatches them (rpc.go)
		}
		tmpl, labels, err := routerTemplate(op.Path)
		if err != nil {
			return nil, err
		}
		h := handlers[op.Service][op.Name]
		if h == nil {
			h = notImplemented(op)
		}
		b := &binding{op: op, handler: h, labels: labels, logName: op.Service.String() + "." + op.Name}
		b.queryKey, b.queryValue, _ = strings.Cut(op.Query, "=")
		key := op.Method + " " + tmpl
		r := byKey[key]
		if r == nil {
			r = &route{method: op.Method, template: tmpl}
			byKey[key] = r
			routes = append(routes, r)
		}
		r.bindings = append(r.bindings, b)
	}
	// fasthttp/router's catch-all also matches its parent path, so where the
	// parent is a route of its own (GET /backup-access-point lists, GET
	// /backup-access-point/{arn} describes) the label stays one segment.
	taken := map[string]bool{}
	for _, r := range routes {
		taken[r.method+" "+r.template] = true
	}
	for _, r := range routes {
		i := strings.LastIndex(r.template, "/{")
		if i < 0 || !strings.HasSuffix(r.template, ":*}") {
			continue
		}
		parent := r.template[:i]
		if parent == "" {
			parent = "/"
		}
		if taken[r.method+" "+parent] {
			r.template = strings.TrimSuffix(r.template, ":*}") + "}"
		}
	}
	return routes, nil
}

func notImplemented(op *awswire.Operation) restjson.Handler {
	msg := fmt.Sprintf("The operation %s of service %s is not implemented by this emulator.", op.Name, op.Service)
	return func(*restjson.Call) error {
		return awswire.New(op.Service, awswire.CodeNotImplemented, msg)
	}
}

// pick chooses the operation a request on a shared route means.
func (s *Server) pick(r *route, ctx *fasthttp.RequestCtx) *binding {
	if len(r.bindings) == 1 {
		return r.bindings[0]
	}
	// A literal query tells operations on one path apart.
	var plain *binding
	args := ctx.QueryArgs()
	services := 0
	for _, b := range r.bindings {
		if b.queryKey == "" {
			plain = b
			continue
		}
		if v := args.Peek(b.queryKey); v != nil && (b.queryValue == "" || string(v) == b.queryValue) {
			return b
		}
	}
	for _, b := range r.bindings {
		if b.op.Service != r.bindings[0].op.Service {
			services++
		}
	}
	if services == 0 {
		if plain == nil {
			return r.bindings[0]
		}
		return plain
	}
	// Two services share the path (GET /tags/{arn}): the SigV4 scope
	// decides, else the ARN (API Gateway ARNs have an empty account and a
	// path resource).
	want := awswire.Backup
	if sc, ok := s.credential(ctx); ok {
		switch string(sc.Service) {
		case "apigateway":
			want = awswire.APIGateway
		case "backup":
			want = awswire.Backup
		default:
			want = s.serviceOfARN(ctx)
		}
	} else {
		want = s.serviceOfARN(ctx)
	}
	for _, b := range r.bindings {
		if b.op.Service == want {
			return b
		}
	}
	return r.bindings[0]
}

var apigatewayARN = []byte(":apigateway:")

func (s *Server) serviceOfARN(ctx *fasthttp.RequestCtx) awswire.Service {
	raw, _ := ctx.UserValue(labelKeys[0]).(string)
	v := []byte(raw)
	if bytes.IndexByte(v, '%') >= 0 {
		v = fasthttp.AppendUnquotedArg(nil, v)
	}
	if bytes.Contains(v, apigatewayARN) {
		return awswire.APIGateway
	}
	return awswire.Backup
}

// register adds every route to rt.
func (s *Server) register(rt *router.Router, routes []*route) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("httpfront: route table: %v", r)
		}
	}()
	for _, r := range routes {
		rt.Handle(r.method, r.template, s.serveRoute(r))
	}
	return nil
}

// serveRoute returns the fasthttp handler of one route: choose the
// operation, build the Call, run the handler, write its error.
func (s *Server) serveRoute(r *route) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		b := s.pick(r, ctx)
		var sc awswire.Scope
		if b.op.Service != awswire.ServiceNone {
			cred, signed := s.credential(ctx)
			if signed && !s.serves(cred.Service) {
				// Signed for a service the emulator does not serve, on a
				// path that only looks like ours (S3's GET /restapis).
				if f, ok := s.foreign(ctx, ctx.Request.URI().PathOriginal()); ok {
					s.writeNotEmulated(ctx, f)
					return
				}
			}
			sc = s.scopeOf(cred, signed)
		}
		if s.logDebug || s.logWarn {
			ctx.SetUserValue(keyBinding, b)
		}
		if err := s.decodeBody(ctx, b.op.Service); err != nil {
			restjson.WriteError(ctx, b.op.Service, err, s.log)
			return
		}
		c := restjson.Acquire()
		c.Ctx = ctx
		c.Op = b.op
		c.Scope = sc
		for i, name := range b.labels {
			raw, _ := ctx.UserValue(labelKeys[i]).(string)
			c.SetLabel(name, raw)
		}
		if err := b.handler(c); err != nil {
			restjson.WriteError(ctx, b.op.Service, err, s.log)
		}
		restjson.Release(c)
	}
}

// servicePrefixes classifies a path no route matched, so that its 404 is
// shaped as the service it was meant for.
var servicePrefixes = func() map[string]awswire.Service {
	m := map[string]awswire.Service{}
	for _, op := range awswire.Operations {
		if op.Service == awswire.APIGatewayV2 || op.Path == "/" {
			continue
		}
		seg := strings.SplitN(strings.TrimPrefix(op.Path, "/"), "/", 2)[0]
		if _, dup := m[seg]; !dup {
			m[seg] = op.Service
		}
	}
	return m
}()

func classify(path []byte) awswire.Service {
	if bytes.HasPrefix(path, []byte("/v2/email/")) {
		return awswire.SESv2
	}
	if bytes.HasPrefix(path, []byte("/v2/")) {
		return awswire.APIGatewayV2
	}
	seg := bytes.TrimPrefix(path, []byte("/"))
	if i := bytes.IndexByte(seg, '/'); i >= 0 {
		seg = seg[:i]
	}
	return servicePrefixes[string(seg)]
}
