package execute

import "strings"

// Header is one header field, its name as it was spelled.
type Header struct{ Name, Value string }

// Headers is an ordered list of header fields; a name may repeat.
type Headers []Header

// Get returns the last value of name (case-insensitive), as API Gateway's
// single-value views do.
func (h Headers) Get(name string) (string, bool) {
	for i := len(h) - 1; i >= 0; i-- {
		if strings.EqualFold(h[i].Name, name) {
			return h[i].Value, true
		}
	}
	return "", false
}

// Values returns every value of name, in order.
func (h Headers) Values(name string) []string {
	var out []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			out = append(out, f.Value)
		}
	}
	return out
}

// Set replaces every field called name with one of value.
func (h Headers) Set(name, value string) Headers {
	h = h.Del(name)
	return append(h, Header{name, value})
}

// Del removes every field called name.
func (h Headers) Del(name string) Headers {
	out := h[:0]
	for _, f := range h {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	return out
}

// hopHeaders are the request headers API Gateway drops before an
// integration (docs/apigateway-execution.md §2.1).
var hopHeaders = []string{"Connection", "Content-Length", "Content-MD5", "Expect", "Max-Forwards",
	"Proxy-Authenticate", "Server", "TE", "Transfer-Encoding", "Trailer", "Upgrade", "WWW-Authenticate"}

// IsHopHeader reports whether a request header stops at the gateway.
func IsHopHeader(name string) bool { return containsFold(hopHeaders, name) }

// remappedAlways are the integration response headers a method response
// renames to x-amzn-Remapped-{name}, for every integration (§2.9, and the
// backend's own request id, recorded X-06);
// remappedNonProxy are renamed too for non-proxy HTTP and AWS integrations.
var (
	remappedAlways   = []string{"Connection", "Content-Length", "Date", "Server", "x-amzn-RequestId"}
	remappedNonProxy = []string{"Authorization", "Content-MD5", "Expect", "Host", "Max-Forwards",
		"Proxy-Authenticate", "Trailer", "Upgrade", "User-Agent", "WWW-Authenticate"}
)

// Remapped returns the name a backend response header takes in the method
// response: x-amzn-Remapped-{name} for the headers API Gateway keeps for
// itself, else the name.
func Remapped(name string, proxy bool) string {
	if containsFold(remappedAlways, name) || (!proxy && containsFold(remappedNonProxy, name)) {
		return "x-amzn-Remapped-" + name
	}
	return name
}

// restrictedMapped are the integration request headers a mapping may not
// set (§2.6): mapping one answers 500. restrictedLambda are restricted too
// for function integrations.
var (
	restrictedMapped = []string{"Content-Length", "Transfer-Encoding", "X-Amzn-Trace-Id", "X-Amzn-Apigateway-Api-Id"}
	restrictedLambda = []string{"Authorization", "Connection", "Expect", "Proxy-Authenticate", "TE"}
)

// IsRestrictedMapping reports whether an integration request header may not
// be set by a mapping.
func IsRestrictedMapping(name string, function bool) bool {
	return containsFold(restrictedMapped, name) || (function && containsFold(restrictedLambda, name))
}

func containsFold(list []string, name string) bool {
	for _, s := range list {
		if strings.EqualFold(s, name) {
			return true
		}
	}
	return false
}
