package httpevent_test

import "github.com/cloudemu/emulator/execute"

// reply is a function's successful reply with payload.
func reply(payload string) execute.FunctionReply {
	return execute.FunctionReply{Payload: []byte(payload)}
}

// failed is a function error's reply with payload.
func failed(payload string) execute.FunctionReply {
	return execute.FunctionReply{Payload: []byte(payload), Error: "Unhandled"}
}

// headers builds a header list from name, value pairs.
func headers(nv ...string) execute.Headers {
	var h execute.Headers
	for i := 0; i+1 < len(nv); i += 2 {
		h = append(h, execute.Header{Name: nv[i], Value: nv[i+1]})
	}
	return h
}
