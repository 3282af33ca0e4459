package lambdahttp

import (
	"context"

	"github.com/cloudemu/emulator/actors/lambda"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Invoke's headers, as Lambda spells them.
const (
	headerInvocationType  = "X-Amz-Invocation-Type"
	headerLogType         = "X-Amz-Log-Type"
	headerClientContext   = "X-Amz-Client-Context"
	headerExecutedVersion = "X-Amz-Executed-Version"
	headerFunctionError   = "X-Amz-Function-Error"
	headerLogResult       = "X-Amz-Log-Result"
)

func (h *handlers) invoke(c *restjson.Call) error {
	fn, err := functionName(c)
	if err != nil {
		return err
	}
	req := &c.Ctx.Request.Header
	in := lambda.InvokeInput{
		FunctionName:   fn,
		Qualifier:      query(c, "Qualifier"),
		InvocationType: string(req.Peek(headerInvocationType)),
		LogType:        string(req.Peek(headerLogType)),
		ClientContext:  string(req.Peek(headerClientContext)),
		// The invocation takes the request's id, as Lambda's does.
		RequestID: string(c.Ctx.Response.Header.Peek(restjson.HeaderRequestID)),
		// The body is the payload as sent; the runtime gets a copy, since
		// the request's buffer is reused once the handler returns.
		Payload: append([]byte(nil), c.Ctx.PostBody()...),
	}
	// Not c.Ctx: fasthttp's RequestCtx.Done reads the server's shutdown
	// channel unsynchronized with Shutdown's write (a data race under
	// -race). The service bounds the call by the function's timeout and
	// ends it at Detach, which Shutdown runs after draining; API
	// Gateway's Lambda integrations call it the same way.
	out, err := h.svc.Invoke(context.Background(), c.Scope, in)
	if err != nil {
		return err
	}
	resp := &c.Ctx.Response.Header
	if out.Status != 200 {
		c.Empty(out.Status)
		return nil
	}
	resp.Set(headerExecutedVersion, out.ExecutedVersion)
	if out.FunctionError != "" {
		resp.Set(headerFunctionError, out.FunctionError)
	}
	if out.LogResult != "" {
		resp.Set(headerLogResult, out.LogResult)
	}
	c.Raw(200, out.Payload)
	return nil
}
