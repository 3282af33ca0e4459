package awswire

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func findOperation(t *testing.T, svc Service, name string) Operation {
	t.Helper()
	for _, op := range Operations {
		if op.Service == svc && op.Name == name {
			return op
		}
	}
	t.Fatalf("no operation %s %s", svc, name)
	return Operation{}
}

func findErrorShape(t *testing.T, svc Service, code string) ErrorShape {
	t.Helper()
	for _, e := range ErrorShapes {
		if e.Service == svc && e.Code == code {
			return e
		}
	}
	t.Fatalf("no error shape %s %s", svc, code)
	return ErrorShape{}
}

func TestOperationsCount(t *testing.T) {
	counts := map[Service]int{}
	for _, op := range Operations {
		counts[op.Service]++
	}
	for _, tc := range []struct {
		svc  Service
		want int
	}{
		{Backup, 115},
		{APIGateway, 124},
		{APIGatewayV2, 103},
		{Lambda, 85},
		{SQS, 23},
		{SNS, 42},
		{SES, 71},
		{SESv2, 110},
	} {
		t.Run("service="+tc.svc.String(), func(t *testing.T) {
			if got := counts[tc.svc]; got != tc.want {
				t.Errorf("got %d operations, want %d", got, tc.want)
			}
		})
	}
	const all = 115 + 124 + 103 + 85 + 23 + 42 + 71 + 110
	if n := len(Operations); n != all {
		t.Errorf("got %d operations in all, want %d (an unknown service?)", n, all)
	}
}

func TestOperationsKnown(t *testing.T) {
	for _, tc := range []struct {
		svc    Service
		name   string
		method string
		path   string
		query  string
		status int
	}{
		{Backup, "CreateBackupVault", "PUT", "/backup-vaults/{backupVaultName}", "", 200},
		// The model writes /backup-vaults/; the table drops the slash.
		{Backup, "ListBackupVaults", "GET", "/backup-vaults", "", 200},
		{Backup, "DeleteBackupAccessPoint", "DELETE", "/backup-access-point/delete/{AccessPointArn}", "", 204},
		{Backup, "DisassociateBackupVaultMpaApprovalTeam", "POST", "/backup-vaults/{backupVaultName}/mpaApprovalTeam", "delete", 204},
		{APIGateway, "ImportRestApi", "POST", "/restapis", "mode=import", 201},
		{APIGateway, "CreateRestApi", "POST", "/restapis", "", 201},
		{APIGateway, "DeleteRestApi", "DELETE", "/restapis/{restapi_id}", "", 202},
		{APIGatewayV2, "TagResource", "POST", "/v2/tags/{resource-arn}", "", 201},
		{Lambda, "CreateFunction", "POST", "/2015-03-31/functions", "", 201},
		{Lambda, "Invoke", "POST", "/2015-03-31/functions/{FunctionName}/invocations", "", 200},
		// The model says 200; AWS answers DeleteFunction 204 (the handler does).
		{Lambda, "DeleteFunction", "DELETE", "/2015-03-31/functions/{FunctionName}", "", 200},
		{Lambda, "ListProvisionedConcurrencyConfigs", "GET", "/2019-09-30/functions/{FunctionName}/provisioned-concurrency", "List=ALL", 200},
		{Lambda, "TagResource", "POST", "/2017-03-31/tags/{Resource}", "", 204},
		// Query and JSON operations all POST "/".
		{SQS, "SendMessage", "POST", "/", "", 200},
		{SNS, "Publish", "POST", "/", "", 200},
		{SES, "SendEmail", "POST", "/", "", 200},
		{SESv2, "SendEmail", "POST", "/v2/email/outbound-emails", "", 200},
	} {
		t.Run("op="+tc.svc.String()+"."+tc.name, func(t *testing.T) {
			got := findOperation(t, tc.svc, tc.name)
			want := Operation{Service: tc.svc, Name: tc.name, Method: tc.method, Path: tc.path, Query: tc.query, Status: tc.status}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestErrorShapesKnown(t *testing.T) {
	for _, tc := range []struct {
		svc       Service
		code      string
		status    int
		fault     bool
		members   []string
		queryCode string
	}{
		{Backup, "ResourceNotFoundException", 400, false, []string{"Code", "Message", "Type", "Context"}, ""},
		{Backup, "ServiceUnavailableException", 500, true, []string{"Code", "Message", "Type", "Context"}, ""},
		{APIGateway, "NotFoundException", 404, false, []string{"message"}, ""},
		// retryAfterSeconds travels in the Retry-After header, not the body.
		{APIGateway, "TooManyRequestsException", 429, false, []string{"message"}, ""},
		// Members are wire names: the model's Message has locationName message.
		{APIGatewayV2, "NotFoundException", 404, false, []string{"message", "resourceType"}, ""},
		// Lambda spells the message member both ways.
		{Lambda, "ResourceNotFoundException", 404, false, []string{"Type", "Message"}, ""},
		{Lambda, "InvalidParameterValueException", 400, false, []string{"Type", "message"}, ""},
		{Lambda, "ServiceException", 500, true, []string{"Type", "Message"}, ""},
		// retryAfterSeconds is the Retry-After header.
		{Lambda, "TooManyRequestsException", 429, false, []string{"Type", "message", "Reason"}, ""},
		// SQS: botocore's model has no statuses or query codes; the
		// Smithy model's awsQueryError traits give them.
		{SQS, "QueueDoesNotExist", 400, false, []string{"message"}, "AWS.SimpleQueueService.NonExistentQueue"},
		{SQS, "QueueNameExists", 400, false, []string{"message"}, "QueueAlreadyExists"},
		{SQS, "ReceiptHandleIsInvalid", 404, false, []string{"message"}, "ReceiptHandleIsInvalid"},
		{SQS, "PurgeQueueInProgress", 403, false, []string{"message"}, "AWS.SimpleQueueService.PurgeQueueInProgress"},
		{SQS, "InvalidAttributeName", 400, false, []string{"message"}, "InvalidAttributeName"},
		{SNS, "NotFoundException", 404, false, []string{"message"}, "NotFound"},
		{SNS, "InternalErrorException", 500, true, []string{"message"}, "InternalError"},
		{SNS, "InvalidParameterValueException", 400, false, []string{"message"}, "ParameterValueInvalid"},
		{SES, "MessageRejected", 400, false, []string{}, "MessageRejected"},
		{SES, "TemplateDoesNotExistException", 400, false, []string{"TemplateName"}, "TemplateDoesNotExist"},
		// REST-JSON shapes have no query code.
		{SESv2, "NotFoundException", 404, false, []string{}, ""},
	} {
		t.Run("code="+tc.svc.String()+"."+tc.code, func(t *testing.T) {
			got := findErrorShape(t, tc.svc, tc.code)
			if got.Status != tc.status || got.Fault != tc.fault || !slices.Equal(got.Members, tc.members) || got.QueryCode != tc.queryCode {
				t.Errorf("got status=%d fault=%t members=%q query=%q, want status=%d fault=%t members=%q query=%q",
					got.Status, got.Fault, got.Members, got.QueryCode, tc.status, tc.fault, tc.members, tc.queryCode)
			}
		})
	}
}

func TestOperationsSorted(t *testing.T) {
	less := func(a, b Operation) bool {
		if a.Service != b.Service {
			return a.Service < b.Service
		}
		return a.Name < b.Name
	}
	for i := 1; i < len(Operations); i++ {
		if !less(Operations[i-1], Operations[i]) {
			t.Errorf("%s.%s sorts after %s.%s", Operations[i-1].Service, Operations[i-1].Name, Operations[i].Service, Operations[i].Name)
		}
	}
}

func TestOperationsUniqueRoute(t *testing.T) {
	seen := map[string]string{}
	for _, op := range Operations {
		if op.Service.Model().Protocol != RESTJSON {
			continue // named in the request, not by the route
		}
		key := fmt.Sprintf("%s %s %s?%s", op.Service, op.Method, op.Path, op.Query)
		if prev, ok := seen[key]; ok {
			t.Errorf("%s and %s share the route %s", prev, op.Name, key)
		}
		seen[key] = op.Name
	}
}

func TestOperationsPath(t *testing.T) {
	for _, op := range Operations {
		t.Run("op="+op.Service.String()+"."+op.Name, func(t *testing.T) {
			if err := checkPath(op.Path); err != nil {
				t.Errorf("path %q: %v", op.Path, err)
			}
			if strings.ContainsAny(op.Query, "?") {
				t.Errorf("query %q holds a '?'", op.Query)
			}
		})
	}
}

// checkPath reports whether p is a clean route template: rooted, no query,
// no trailing slash, and every label a whole, non-empty {name} or {name+}.
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("does not start with /")
	}
	if strings.Contains(p, "?") {
		return fmt.Errorf("holds a query")
	}
	if p != "/" && strings.HasSuffix(p, "/") {
		return fmt.Errorf("ends in /")
	}
	open := false
	for i, c := range p {
		switch c {
		case '{':
			if open {
				return fmt.Errorf("nested { at %d", i)
			}
			open = true
		case '}':
			if !open {
				return fmt.Errorf("unopened } at %d", i)
			}
			open = false
		}
	}
	if open {
		return fmt.Errorf("unclosed {")
	}
	return nil
}

func TestServiceModels(t *testing.T) {
	for i, m := range ServiceModels {
		if int(m.Service) != i+1 || m.Service.Model() != &ServiceModels[i] {
			t.Errorf("ServiceModels[%d] is %s: not in the order of the constants", i, m.Service)
		}
	}
	if ServiceNone.Model() != nil || Service(200).Model() != nil {
		t.Error("Model of an unknown service is not nil")
	}
	for _, tc := range []struct {
		svc                                 Service
		protocol                            Protocol
		version, signing, target, xmlns, ns string
		compatible                          bool
	}{
		{SQS, JSON, "2012-11-05", "sqs", "AmazonSQS", "http://queue.amazonaws.com/doc/2012-11-05/", "com.amazonaws.sqs", true},
		{SNS, Query, "2010-03-31", "sns", "", "http://sns.amazonaws.com/doc/2010-03-31/", "com.amazonaws.sns", false},
		{SES, Query, "2010-12-01", "ses", "", "http://ses.amazonaws.com/doc/2010-12-01/", "com.amazonaws.ses", false},
		{SESv2, RESTJSON, "2019-09-27", "ses", "", "", "com.amazonaws.sesv2", false},
		{Backup, RESTJSON, "2018-11-15", "backup", "", "", "com.amazonaws.backup", false},
	} {
		t.Run("service="+tc.svc.String(), func(t *testing.T) {
			m := tc.svc.Model()
			if m.Protocol != tc.protocol || m.APIVersion != tc.version || m.SigningName != tc.signing ||
				m.TargetPrefix != tc.target || m.XMLNamespace != tc.xmlns || m.Namespace != tc.ns || m.QueryCompatible != tc.compatible {
				t.Errorf("got %+v", *m)
			}
		})
	}
}

func TestCheckPath(t *testing.T) {
	for _, tc := range []struct {
		name string
		path string
		ok   bool
	}{
		{"root", "/", true},
		{"label", "/restapis/{restapi_id}", true},
		{"greedy", "/restapis/{id}/resources/{name+}", true},
		{"relative", "restapis", false},
		{"query", "/restapis?mode=import", false},
		{"trailing-slash", "/backup-vaults/", false},
		{"unclosed", "/restapis/{id", false},
		{"unopened", "/restapis/id}", false},
		{"nested", "/restapis/{a{b}}", false},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			if err := checkPath(tc.path); (err == nil) != tc.ok {
				t.Errorf("checkPath(%q) = %v, want ok=%t", tc.path, err, tc.ok)
			}
		})
	}
}
