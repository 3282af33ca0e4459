package execute

// Owned is a Handler for the APIs of one kind, which says whether it holds
// an id.
type Owned struct {
	Handler
	// Owns reports whether an API of this kind has the id (region is the
	// host's, which resolves ids repeated across regions).
	Owns func(apiID, region string) bool
}

// Route returns the handler that sends each request to the kind of API
// that holds its id; ids nobody holds go to the first, which answers them.
// With one kind it is that kind's handler, at no cost.
func Route(kinds ...Owned) Handler {
	if len(kinds) == 1 {
		return kinds[0].Handler
	}
	return router(kinds)
}

type router []Owned

func (r router) Serve(req *Request, resp *Response) {
	if !r[0].Owns(req.APIID, req.Region) {
		for _, k := range r[1:] {
			if k.Owns(req.APIID, req.Region) {
				k.Serve(req, resp)
				return
			}
		}
	}
	r[0].Serve(req, resp)
}

// NotEmulated answers every request to APIs of kinds whose execution is
// not emulated yet ("HTTP and WebSocket APIs") with a 501 that says so,
// instead of the 404 of an unknown id.
func NotEmulated(kinds string) Handler { return notEmulated(kinds) }

type notEmulated string

func (k notEmulated) Serve(req *Request, resp *Response) {
	resp.Reset()
	resp.Status = 501
	resp.Headers = append(resp.Headers, Header{Name: "Content-Type", Value: "application/json"},
		Header{Name: "x-amzn-ErrorType", Value: "NotImplementedException"},
		Header{Name: "x-amzn-RequestId", Value: req.RequestID})
	resp.Body = append(resp.Body, `{"message":"`...)
	resp.Body = append(resp.Body, `Invoking `+string(k)+` is not emulated yet; API '`...)
	for _, c := range []byte(req.APIID) {
		// An id is [a-z0-9]; anything else is dropped rather than escaped.
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			resp.Body = append(resp.Body, c)
		}
	}
	resp.Body = append(resp.Body, `' is one (see README \"What is not emulated\")"}`...)
}
