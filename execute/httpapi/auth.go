package httpapi

// authResult is what the route's authorizer established.
type authResult struct {
	claims      map[string]string
	scopes      []string
	lambda      map[string]string // a Lambda authorizer's context, as text
	lambdaJSON  []byte            // the same context, a JSON object
	principalID string
}

func (a *authResult) claim(name string) (string, bool) {
	v, ok := a.claims[name]
	return v, ok
}

func (a *authResult) value(name string) (string, bool) {
	if name == "principalId" && a.principalID != "" {
		return a.principalID, true
	}
	v, ok := a.lambda[name]
	return v, ok
}

// authorize runs the route's authorizer; false: it answered.
func (inv *invocation) authorize() bool {
	if inv.route.auth == nil {
		return true
	}
	inv.message(500, "Internal Server Error")
	return false
}
