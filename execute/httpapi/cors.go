package httpapi

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/execute"
)

// CORS (docs/apigatewayv2.md, "CORS"): with a corsConfiguration the gateway
// answers preflight requests itself (204), whatever the routes, adds the
// CORS headers to every answer to an allowed origin, and drops the ones
// the backend sent.

type corsConfig struct {
	anyOrigin   bool
	origins     []string // lowercase
	methods     string   // as answered to a preflight; "" with anyMethod
	methodList  []string // the allowed methods, upper case
	anyMethod   bool
	headers     string
	anyHeader   bool
	expose      string
	maxAge      string // "" when not set
	credentials bool
}

func compileCORS(c *apigatewayv2.Cors) *corsConfig {
	if c == nil {
		return nil
	}
	out := &corsConfig{credentials: c.AllowCredentials != nil && *c.AllowCredentials}
	for _, o := range c.AllowOrigins {
		if o == "*" {
			out.anyOrigin = true
		}
		out.origins = append(out.origins, strings.ToLower(strings.TrimSuffix(o, "/")))
	}
	out.anyMethod = slices.Contains(c.AllowMethods, "*")
	out.methods = strings.ToUpper(strings.Join(c.AllowMethods, ","))
	out.methodList = strings.Split(out.methods, ",")
	out.anyHeader = slices.Contains(c.AllowHeaders, "*")
	out.headers = strings.ToLower(strings.Join(c.AllowHeaders, ","))
	out.expose = strings.ToLower(strings.Join(c.ExposeHeaders, ","))
	if c.MaxAge != nil && *c.MaxAge >= 0 {
		out.maxAge = strconv.FormatInt(*c.MaxAge, 10)
	}
	return out
}

// allows reports whether origin may call: "*", the exact origin, or a
// wildcard subdomain ("https://*.example.com").
func (c *corsConfig) allows(origin string) bool {
	if c.anyOrigin {
		return true
	}
	o := strings.ToLower(origin)
	for _, a := range c.origins {
		if a == o {
			return true
		}
		if scheme, host, ok := strings.Cut(a, "://*."); ok {
			if rest, ok := strings.CutPrefix(o, scheme+"://"); ok && strings.HasSuffix(rest, "."+host) {
				return true
			}
		}
	}
	return false
}

// allowOrigin is the Access-Control-Allow-Origin value for origin.
func (c *corsConfig) allowOrigin(origin string) string {
	if c.anyOrigin && !c.credentials {
		return "*"
	}
	return origin
}

// preflight answers a CORS preflight (OPTIONS with Origin and
// Access-Control-Request-Method) of an API with a CORS configuration.
func (inv *invocation) preflight() bool {
	c := inv.dep.cors
	if c == nil || inv.req.Method != "OPTIONS" {
		return false
	}
	origin, ok := inv.req.Headers.Get("Origin")
	if !ok {
		return false
	}
	method, ok := inv.req.Headers.Get("Access-Control-Request-Method")
	if !ok {
		return false
	}
	resp := inv.resp
	resp.Reset()
	resp.Status = 204
	resp.Headers = append(resp.Headers, execute.Header{Name: "apigw-requestid", Value: inv.requestID})
	if !c.allows(origin) {
		return true
	}
	allowMethods := c.methods
	if c.anyMethod {
		allowMethods = strings.ToUpper(method)
	}
	if !c.anyMethod && !slices.Contains(c.methodList, strings.ToUpper(method)) {
		return true
	}
	resp.Headers = append(resp.Headers, execute.Header{Name: "access-control-allow-origin", Value: c.allowOrigin(origin)},
		execute.Header{Name: "access-control-allow-methods", Value: allowMethods})
	if requested, ok := inv.req.Headers.Get("Access-Control-Request-Headers"); ok && requested != "" {
		if c.anyHeader {
			resp.Headers = append(resp.Headers, execute.Header{Name: "access-control-allow-headers", Value: strings.ToLower(requested)})
		} else if c.headers != "" {
			resp.Headers = append(resp.Headers, execute.Header{Name: "access-control-allow-headers", Value: c.headers})
		}
	}
	if c.credentials {
		resp.Headers = append(resp.Headers, execute.Header{Name: "access-control-allow-credentials", Value: "true"})
	}
	if c.maxAge != "" {
		resp.Headers = append(resp.Headers, execute.Header{Name: "access-control-max-age", Value: c.maxAge})
	}
	resp.Headers = append(resp.Headers, execute.Header{Name: "vary", Value: "origin"})
	return true
}

// corsHeaders replaces the backend's CORS headers with the configuration's
// for a request from an allowed origin.
func (inv *invocation) corsHeaders() {
	c := inv.dep.cors
	if c == nil {
		return
	}
	resp := inv.resp
	out := resp.Headers[:0]
	for _, h := range resp.Headers {
		if len(h.Name) > 13 && strings.EqualFold(h.Name[:13], "access-contro") {
			continue
		}
		out = append(out, h)
	}
	resp.Headers = out
	origin, ok := inv.req.Headers.Get("Origin")
	if !ok || !c.allows(origin) {
		return
	}
	resp.Headers = append(resp.Headers, execute.Header{Name: "access-control-allow-origin", Value: c.allowOrigin(origin)})
	if c.credentials {
		resp.Headers = append(resp.Headers, execute.Header{Name: "access-control-allow-credentials", Value: "true"})
	}
	if c.expose != "" {
		resp.Headers = append(resp.Headers, execute.Header{Name: "access-control-expose-headers", Value: c.expose})
	}
	resp.Headers = append(resp.Headers, execute.Header{Name: "vary", Value: "origin"})
}
