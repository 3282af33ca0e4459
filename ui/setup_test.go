package ui_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	agtypes "github.com/aws/aws-sdk-go-v2/service/apigateway/types"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	sestypes "github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

const (
	region   = "us-east-1"
	account  = "000000000000"
	hostile  = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`
	mockBody = `{"hello":"world"}`
)

// world is an emulator with what the dashboard shows: a REST API with a
// hostile name, deployed, behind a usage plan that throttles at 1 request
// a second; a queue with a message; a captured mail.
type world struct {
	srv                  *servertest.Server
	apiID, keyID, planID string
	keyValue, queueURL   string
	ok, throttled        int
}

func setUp(t *testing.T, opts ...servertest.Option) *world {
	t.Helper()
	opts = append([]servertest.Option{servertest.WithConfig(func(c *config.Config) {
		c.EnforceGatewayThrottle = true
		c.SESRequireVerified = false
	})}, opts...)
	w := &world{srv: servertest.Start(t, opts...)}
	ctx := context.Background()
	cfg := servertest.AWSConfig(region, "test")
	gw := apigateway.NewFromConfig(cfg, func(o *apigateway.Options) { o.BaseEndpoint = aws.String(w.srv.URL) })
	api, err := gw.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String(hostile), Description: aws.String("a <b>bold</b> description")})
	if err != nil {
		t.Fatal(err)
	}
	w.apiID = *api.Id
	res, err := gw.GetResources(ctx, &apigateway.GetResourcesInput{RestApiId: api.Id})
	if err != nil {
		t.Fatal(err)
	}
	root := res.Items[0].Id
	must(t, func() error {
		_, err := gw.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: api.Id, ResourceId: root, HttpMethod: aws.String("GET"),
			AuthorizationType: aws.String("NONE"), ApiKeyRequired: true})
		return err
	})
	must(t, func() error {
		_, err := gw.PutIntegration(ctx, &apigateway.PutIntegrationInput{RestApiId: api.Id, ResourceId: root, HttpMethod: aws.String("GET"),
			Type: agtypes.IntegrationTypeMock, RequestTemplates: map[string]string{"application/json": `{"statusCode": 200}`}})
		return err
	})
	must(t, func() error {
		_, err := gw.PutMethodResponse(ctx, &apigateway.PutMethodResponseInput{RestApiId: api.Id, ResourceId: root,
			HttpMethod: aws.String("GET"), StatusCode: aws.String("200")})
		return err
	})
	must(t, func() error {
		_, err := gw.PutIntegrationResponse(ctx, &apigateway.PutIntegrationResponseInput{RestApiId: api.Id, ResourceId: root,
			HttpMethod: aws.String("GET"), StatusCode: aws.String("200"),
			ResponseTemplates: map[string]string{"application/json": mockBody}})
		return err
	})
	must(t, func() error {
		_, err := gw.CreateDeployment(ctx, &apigateway.CreateDeploymentInput{RestApiId: api.Id, StageName: aws.String("dev"),
			Variables: map[string]string{"backend": "a&b=c"}})
		return err
	})
	plan, err := gw.CreateUsagePlan(ctx, &apigateway.CreateUsagePlanInput{Name: aws.String("gold"),
		ApiStages: []agtypes.ApiStage{{ApiId: api.Id, Stage: aws.String("dev")}},
		Throttle:  &agtypes.ThrottleSettings{RateLimit: 1, BurstLimit: 1},
		Quota:     &agtypes.QuotaSettings{Limit: 1000, Period: agtypes.QuotaPeriodTypeDay}})
	if err != nil {
		t.Fatal(err)
	}
	w.planID = *plan.Id
	key, err := gw.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String("load-tester"), Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	w.keyID, w.keyValue = *key.Id, *key.Value
	must(t, func() error {
		_, err := gw.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: plan.Id, KeyId: key.Id, KeyType: aws.String("API_KEY")})
		return err
	})

	q := sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(w.srv.URL) })
	qo, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	w.queueURL = *qo.QueueUrl
	must(t, func() error {
		_, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: qo.QueueUrl, MessageBody: aws.String(`{"order":"<42>"}`)})
		return err
	})

	ses := sesv2.NewFromConfig(cfg, func(o *sesv2.Options) { o.BaseEndpoint = aws.String(w.srv.URL) })
	must(t, func() error {
		_, err := ses.SendEmail(ctx, &sesv2.SendEmailInput{FromEmailAddress: aws.String("shop@example.com"),
			Destination: &sestypes.Destination{ToAddresses: []string{"buyer@example.com"}},
			Content: &sestypes.EmailContent{Simple: &sestypes.Message{
				Subject: &sestypes.Content{Data: aws.String("Your order <42>")},
				Body: &sestypes.Body{Html: &sestypes.Content{Data: aws.String(`<h1>Thanks</h1><script>parent.x=1</script>`)},
					Text: &sestypes.Content{Data: aws.String("Thanks")}}}}})
		return err
	})
	return w
}

// drive sends n requests with the key to the stage, at once: with a
// burst of 1 most are throttled.
func (w *world) drive(t *testing.T, n int) {
	t.Helper()
	for range n {
		req, _ := http.NewRequest("GET", w.srv.URL+"/_aws/execute-api/"+w.apiID+"/dev/", nil)
		req.Header.Set("x-api-key", w.keyValue)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case 200:
			w.ok++
		case 429:
			w.throttled++
		default:
			t.Fatalf("execute: %d", resp.StatusCode)
		}
	}
	if w.ok == 0 || w.throttled == 0 {
		t.Fatalf("want some admitted and some throttled, got %d and %d", w.ok, w.throttled)
	}
}

func must(t *testing.T, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatal(err)
	}
}

// get fetches a dashboard path and returns its status, headers and body.
func get(t *testing.T, base, path string) (int, http.Header, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// post sends a form to a dashboard path as a page of the same origin does
// (or of another, with origin set).
func post(t *testing.T, base, path, origin string, form url.Values) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}
