package compat

import (
	"net/http"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// MethodAny is the method of a route that matches every method the router
// knows; the router tries it only after the method's own routes.
const MethodAny = "*"

// The availability member of answers that match no row.
const (
	noAlias    = "no-alias"         // under a compatibility family
	noEndpoint = "no-such-endpoint" // under /_emulator
	wrongVerb  = "method-not-served"
)

// fallbackRoutes answer every path under the compatibility families and
// /_emulator that no other route takes, for every method: a 404 naming the
// replacement, or saying there is none.
func (h *endpoints) fallbackRoutes() []Route {
	var rs []Route
	for _, p := range []string{prefixCompat, prefixCloud, prefixLocalstack, prefixAWS, prefixEmulator} {
		// The catch-all does not match the bare prefix.
		rs = append(rs, Route{MethodAny, strings.TrimSuffix(p, "/"), h.fallback}, Route{MethodAny, p + "{rest:*}", h.fallback})
	}
	return rs
}

// requestPath is the request's path without its optional trailing slash.
func requestPath(c *restjson.Call) string {
	p := string(c.Ctx.Path())
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

func (h *endpoints) fallback(c *restjson.Call) error {
	path := requestPath(c)
	method := string(c.Ctx.Method())
	if strings.HasPrefix(path, "/_emulator") {
		if r, ok := replacedBy(path); ok {
			return notServed(path, string(r.Availability),
				method+" "+path+" is not served by this version: the service behind it is not emulated yet.",
				r.Replacement, "")
		}
		return notServed(path, noEndpoint,
			"No emulator endpoint answers "+method+" "+path+". GET /_emulator/health lists what this emulator serves.", nil, "")
	}
	r, ok := rowFor(path)
	if !ok {
		return notServed(path, noAlias,
			"No compatibility alias answers "+method+" "+path+" and no emulator endpoint replaces it. GET /_emulator/health lists what this emulator serves.",
			nil, "")
	}
	note := strings.ReplaceAll(r.Note, "`", "")
	switch r.Availability {
	case NotServedYet:
		return notServed(path, string(r.Availability),
			path+" is not served yet: the service behind it is not emulated by this version. Its replacement is "+
				strings.Join(r.Replacement, " or ")+", served once that service is.", r.Replacement, "")
	case NoReplacement:
		return notServed(path, string(r.Availability), path+" has no replacement: "+note, nil, note)
	case Replaced:
		return notServed(path, string(r.Availability), path+" is not served: "+note, r.Replacement, "")
	case ReadOnly:
		switch method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			return readOnly(path, method, r.Replacement)
		}
	}
	// A served or debug row asked with a method it does not answer.
	return notServed(path, wrongVerb,
		method+" "+path+" is not served: the path answers "+strings.Join(r.Methods, ", ")+
			" only (the emulator's own endpoint is "+strings.Join(r.Replacement, " and ")+").", r.Replacement, "")
}

// notServed is the 404 of every compatibility path that is not answered:
// the server-wide 404 code and message, the path, how it is available, the
// endpoints that replace it ("" when none) and why there is none.
func notServed(path, availability, message string, replacement []string, reason string) error {
	e := awswire.New(awswire.ServiceNone, awswire.CodeUnknownOperation, message).
		With("path", truncate(path)).
		With("availability", availability).
		With("replacement", strings.Join(replacement, ", "))
	if reason != "" {
		e = e.With("reason", reason)
	}
	return e
}

// debugDisabled is the 404 of a debug endpoint when EMULATOR_DEBUG is off.
func debugDisabled(c *restjson.Call, replacement []string) error {
	p := requestPath(c)
	return awswire.New(awswire.ServiceNone, awswire.CodeUnknownOperation,
		p+" is served only when EMULATOR_DEBUG=true: set EMULATOR_DEBUG=true and restart the emulator.").
		With("path", truncate(p)).
		With("availability", string(Debug)).
		With("replacement", strings.Join(replacement, ", ")).
		With("enable", "set EMULATOR_DEBUG=true")
}

// readOnly refuses a write to the configuration, which is fixed for the
// process.
func readOnly(path, method string, replacement []string) error {
	return awswire.New(awswire.ServiceNone, awswire.CodeBadRequest,
		"The configuration is fixed for the process: "+method+" "+path+
			" cannot change it. Set the EMULATOR_* variables and restart the emulator; GET "+
			strings.Join(replacement, ", ")+" shows it when EMULATOR_DEBUG=true.").
		With("path", truncate(path)).
		With("availability", string(ReadOnly)).
		With("replacement", strings.Join(replacement, ", "))
}

// truncate bounds the client's path echoed back.
func truncate(s string) string {
	if len(s) > 256 {
		return s[:256] + "..."
	}
	return s
}
