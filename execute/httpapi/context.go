package httpapi

import (
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/execute"
)

// contextValue is a $context variable of HTTP APIs, for parameter
// mapping and identity sources.
func (inv *invocation) contextValue(name string) (string, bool) {
	req := inv.req
	switch name {
	case "requestId", "extendedRequestId":
		return inv.requestID, true
	case "apiId":
		return inv.api.API.APIID, true
	case "accountId":
		return inv.scope.Account, true
	case "stage":
		return inv.stage.StageName, true
	case "domainName":
		return execute.HostName(req.Host), true
	case "domainPrefix":
		host, _, _ := strings.Cut(execute.HostName(req.Host), ".")
		return host, true
	case "httpMethod":
		return req.Method, true
	case "path":
		return inv.rawPath, true
	case "protocol":
		return req.Protocol, true
	case "identity.sourceIp":
		return req.SourceIP, true
	case "identity.userAgent":
		return req.Headers.Get("User-Agent")
	case "requestTime":
		return req.Received.UTC().Format("02/Jan/2006:15:04:05 -0700"), true
	case "requestTimeEpoch":
		return strconv.FormatInt(req.Received.UnixMilli(), 10), true
	case "routeKey":
		if inv.route != nil {
			return inv.route.key, true
		}
		return "", false
	}
	if claim, ok := strings.CutPrefix(name, "authorizer.claims."); ok {
		return inv.auth.claim(claim)
	}
	if key, ok := strings.CutPrefix(name, "authorizer."); ok {
		return inv.auth.value(key)
	}
	return "", false
}
