package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/cloudemu/emulator/actors/sns"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/snshttp"
)

// snsHTTPTimeout bounds one delivery to an HTTP or HTTPS subscription.
const snsHTTPTimeout = 10 * time.Second

func snsService(env Env) Service {
	opts := sns.Options{
		HTTP:  &snsHTTP{client: &http.Client{Timeout: snsHTTPTimeout}},
		Inbox: env.Inbox,
		// Queues stays unset until the SQS service's adapter is wired
		// (Options.Queues, or Service.SetQueues when SQS is built after
		// SNS): a delivery to a queue then fails as one to a missing queue
		// does.
	}
	if env.Functions != nil {
		opts.Functions = snsFunctions{env.Functions}
	}
	svc := sns.New(env.Sys, env.Store, env.Now, env.Log, opts)
	endpoint := func(port int) {
		svc.SetEndpoint("http://" + env.Config.ExternalHostname + ":" + strconv.Itoa(port))
	}
	endpoint(env.Config.Port)
	return Service{Name: "sns", Wire: awswire.SNS, Owners: svc, RPC: snshttp.Handlers(svc),
		Partial: snshttp.Partial, Listening: endpoint, Close: svc.Close}
}

// snsHTTP posts SNS deliveries with net/http: endpoints are the user's
// servers, anywhere, with no connection reuse to tune.
type snsHTTP struct{ client *http.Client }

func (h *snsHTTP) Post(ctx context.Context, p sns.HTTPPost) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(p.Body))
	if err != nil {
		return 0, err
	}
	for k, v := range p.Headers {
		req.Header.Set(k, v)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	// Drain a little so that the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// snsFunctions invokes functions subscribed to topics through the Lambda
// service, as AWS does: asynchronously for the publisher, so the answer
// only matters as a failure to log.
type snsFunctions struct{ f *functionInvoker }

func (s snsFunctions) Invoke(ctx context.Context, sc awswire.Scope, function string, payload []byte) error {
	reply, err := s.f.Invoke(ctx, sc, function, payload, 0)
	if err != nil {
		return err
	}
	if reply.Error != "" {
		return errors.New("sns: the function failed: " + reply.Error)
	}
	return nil
}
