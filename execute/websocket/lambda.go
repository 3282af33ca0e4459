package websocket

import (
	"encoding/json"

	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpevent"
)

// authResult is what a Lambda authorizer allowed a connection with: its
// principal and context, for $context.authorizer and the events.
type authResult struct {
	principalID string
	context     map[string]any
}

// authorizeReply decides a $connect authorizer's reply for methodArn: the
// status to refuse the upgrade with (403 a denial, 401 a function that
// failed with "Unauthorized", 500 any other failure or a malformed
// answer), or 200 and what it allowed. WebSocket authorizers answer IAM
// policies as REST and HTTP APIs' 1.0 authorizers do: httpevent reads
// and decides them (IAM's wildcards, an explicit Deny winning).
func authorizeReply(reply execute.FunctionReply, methodArn string) (*authResult, int) {
	a, o := httpevent.Authorize(reply, false, methodArn)
	if o != httpevent.Allowed {
		return nil, o.Status()
	}
	res := &authResult{principalID: a.PrincipalID}
	if len(a.Context) > 0 {
		_ = json.Unmarshal(a.Context, &res.context)
	}
	return res, 200
}
