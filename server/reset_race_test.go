package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"

	"github.com/cloudemu/emulator/server/servertest"
)

// TestExecutionRacingResetGetsThePostResetAnswer: a request whose
// integration fails because a reset took its backend away while it ran
// gets what a request after the reset gets (its API is gone: a 4xx), not
// the 5xx of a state that no longer exists. Without a reset, the same
// failure is the gateway's 5xx.
func TestExecutionRacingResetGetsThePostResetAnswer(t *testing.T) {
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	var hold atomic.Bool // the first request of each round waits; a retry does not
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold.CompareAndSwap(true, false) {
			arrived <- struct{}{}
			<-release
		}
		// The backend goes away mid-answer, as a torn-down one does.
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer backend.Close()

	srv := servertest.Start(t)
	c := gwClient(srv)
	get := func(reset bool) int {
		t.Helper()
		doc := fmt.Sprintf(`{"swagger":"2.0","info":{"title":"race","version":"1"},"paths":{"/item":{"get":{
			"x-amazon-apigateway-integration":{"type":"http_proxy","httpMethod":"GET","uri":%q}}}}}`, backend.URL+"/item")
		out, err := c.ImportRestApi(context.Background(), &apigateway.ImportRestApiInput{Body: []byte(doc)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateDeployment(context.Background(), &apigateway.CreateDeploymentInput{RestApiId: out.Id, StageName: aws.String("dev")}); err != nil {
			t.Fatal(err)
		}
		status := make(chan int, 1)
		hold.Store(true)
		go func() {
			resp, err := http.Get(srv.URL + "/restapis/" + aws.ToString(out.Id) + "/dev/_user_request_/item")
			if err != nil {
				status <- -1
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status <- resp.StatusCode
		}()
		<-arrived
		if reset {
			if err := srv.Emulator.Reset(); err != nil {
				t.Fatal(err)
			}
		}
		release <- struct{}{}
		return <-status
	}
	if got := get(false); got < 500 {
		t.Fatalf("a backend that hangs up, no reset: %d, want the gateway's 5xx", got)
	}
	if got := get(true); got < 400 || got >= 500 {
		t.Fatalf("the same racing a reset: %d, want the 4xx of an API that no longer exists", got)
	}
}
