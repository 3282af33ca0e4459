package httpfront_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/backup"
	"github.com/aws/aws-sdk-go-v2/service/backup/types"

	"github.com/cloudemu/emulator/server/servertest"
)

type reply struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

func do(t *testing.T, srv *servertest.Server, method, path, body string, hdr ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	// Keep the path exactly as written (percent-encoding included).
	req.URL.RawPath = strings.SplitN(path, "?", 2)[0]
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, body: b}
	if len(b) > 0 && b[0] == '{' {
		if err := json.Unmarshal(b, &r.json); err != nil {
			t.Fatalf("%s %s: body is not JSON: %s", method, path, b)
		}
	}
	if resp.Header.Get("x-amzn-RequestId") == "" {
		t.Fatalf("%s %s: no x-amzn-RequestId", method, path)
	}
	return r
}

func sign(service, region, key string) []string {
	return []string{"Authorization", "AWS4-HMAC-SHA256 Credential=" + key + "/20261122/" + region + "/" + service +
		"/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc"}
}

// wantError checks a shaped error: status, x-amzn-ErrorType, and the body
// members of the service's shape.
func wantError(t *testing.T, r reply, status int, code string, member string) {
	t.Helper()
	if r.status != status || r.header.Get("x-amzn-ErrorType") != code {
		t.Fatalf("want %d %s, got %d %q: %s", status, code, r.status, r.header.Get("x-amzn-ErrorType"), r.body)
	}
	if r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("content type %q", r.header.Get("Content-Type"))
	}
	if _, ok := r.json[member]; !ok {
		t.Fatalf("body lacks %q: %s", member, r.body)
	}
	if member == "Message" && r.json["Code"] != code {
		t.Fatalf("Backup body Code %v, want %s", r.json["Code"], code)
	}
}

func TestBadInput(t *testing.T) {
	srv := servertest.Start(t, servertest.WithMaxBody(4096))
	if r := do(t, srv, "PUT", "/backup-vaults/good-vault", ""); r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	big := `{"BackupVaultTags":{"k":"` + strings.Repeat("x", 8192) + `"}}`
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, member             string
	}{
		{"json=malformed", "PUT", "/backup/plans", `{"BackupPlan":`, 400, "InvalidParameterValueException", "Message"},
		{"json=array", "PUT", "/backup/plans", `[1,2]`, 400, "InvalidParameterValueException", "Message"},
		{"json=not-json", "PUT", "/backup-vaults/v1", `hello`, 400, "InvalidParameterValueException", "Message"},
		{"type=tags-string", "PUT", "/backup-vaults/v2", `{"BackupVaultTags":"x"}`, 400, "InvalidParameterValueException", "Message"},
		{"type=tag-value-number", "PUT", "/backup-vaults/v3", `{"BackupVaultTags":{"a":1}}`, 400, "InvalidParameterValueException", "Message"},
		{"type=rules-object", "PUT", "/backup/plans", `{"BackupPlan":{"BackupPlanName":"p","Rules":{}}}`, 400, "InvalidParameterValueException", "Message"},
		{"type=window-string", "PUT", "/backup/plans", `{"BackupPlan":{"BackupPlanName":"p","Rules":[{"RuleName":"r","TargetBackupVaultName":"vv","StartWindowMinutes":"60"}]}}`, 400, "InvalidParameterValueException", "Message"},
		{"missing=plan", "PUT", "/backup/plans", `{}`, 400, "MissingParameterValueException", "Message"},
		{"missing=plan-name", "PUT", "/backup/plans", `{"BackupPlan":{"Rules":[]}}`, 400, "MissingParameterValueException", "Message"},
		{"missing=rule-vault", "PUT", "/backup/plans", `{"BackupPlan":{"BackupPlanName":"p","Rules":[{"RuleName":"r"}]}}`, 400, "MissingParameterValueException", "Message"},
		{"missing=tags", "POST", "/tags/arn%3Aaws%3Abackup%3Aus-east-1%3A000000000000%3Abackup-vault%3Agood-vault", `{}`, 400, "MissingParameterValueException", "Message"},
		{"missing=tag-keys", "POST", "/untag/arn%3Aaws%3Abackup%3Aus-east-1%3A000000000000%3Abackup-vault%3Agood-vault", `{}`, 400, "MissingParameterValueException", "Message"},
		{"missing=ap-name", "PUT", "/backup-access-point/create", `{"RecoveryPointArn":"arn:aws:backup:us-east-1:000000000000:recovery-point:x"}`, 400, "MissingParameterValueException", "Message"},
		{"unknown=vault", "GET", "/backup-vaults/no-such-vault", "", 400, "ResourceNotFoundException", "Message"},
		{"unknown=plan", "GET", "/backup/plans/no-such-plan", "", 400, "ResourceNotFoundException", "Message"},
		{"unknown=plan-delete", "DELETE", "/backup/plans/no-such-plan", "", 400, "ResourceNotFoundException", "Message"},
		{"hostile=dotdot", "PUT", "/backup-vaults/..%2F..%2Fetc", "", 400, "InvalidParameterValueException", "Message"},
		{"hostile=nul", "PUT", "/backup-vaults/a%00b", "", 400, "InvalidParameterValueException", "Message"},
		{"hostile=long", "PUT", "/backup-vaults/" + strings.Repeat("a", 3000), "", 400, "InvalidParameterValueException", "Message"},
		{"hostile=token", "GET", "/backup-vaults?nextToken=%FF%FE", "", 400, "InvalidParameterValueException", "Message"},
		{"hostile=maxResults", "GET", "/backup-vaults?maxResults=99999999999999999999", "", 400, "InvalidParameterValueException", "Message"},
		{"hostile=shared", "GET", "/backup-vaults?shared=maybe", "", 400, "InvalidParameterValueException", "Message"},
		{"size=too-large", "PUT", "/backup-vaults/v4", big, 413, "RequestEntityTooLargeException", "Message"},
		{"route=unknown", "GET", "/no/such/path", "", 404, "UnknownOperationException", "message"},
		{"route=unknown-backup", "GET", "/backup-vaults/a/b/c/d", "", 404, "UnknownOperationException", "Message"},
		{"route=wrong-method", "PATCH", "/backup-vaults/x", "", 404, "UnknownOperationException", "Message"},
		{"op=not-implemented", "GET", "/backup-jobs", "", 501, "NotImplementedException", "Message"},
		{"op=apigateway-unsupported-account", "GET", "/account", "", 501, "NotImplementedException", "message"},
		{"op=apigatewayv2-not-implemented", "GET", "/v2/portals/x", "", 501, "NotImplementedException", "message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, do(t, srv, tc.method, tc.path, tc.body), tc.status, tc.code, tc.member)
		})
	}
	t.Run("hostile=bad-escape", func(t *testing.T) {
		// net/http refuses to send an invalid escape, so write it by hand.
		raw := rawResponse(t, srv.Addr, "GET /backup-vaults/a%zzb HTTP/1.1\r\nHost: x\r\n\r\n")
		if !bytes.HasPrefix(raw, []byte("HTTP/1.1 400")) || !bytes.Contains(raw, []byte("x-amzn-ErrorType: InvalidParameterValueException")) {
			t.Fatalf("%s", raw)
		}
	})
	// Nothing above changed the vault.
	if r := do(t, srv, "GET", "/backup-vaults/good-vault", ""); r.status != 200 || r.json["BackupVaultName"] != "good-vault" {
		t.Fatalf("vault after bad input: %d %s", r.status, r.body)
	}
}

func TestWireDetails(t *testing.T) {
	srv := servertest.Start(t)
	vaultArn := "arn:aws:backup:us-east-1:000000000000:backup-vault:wired"
	enc := "arn%3Aaws%3Abackup%3Aus-east-1%3A000000000000%3Abackup-vault%3Awired"

	t.Run("header-case", func(t *testing.T) {
		r := do(t, srv, "PUT", "/backup-vaults/wired", `{"BackupVaultTags":{"x":"y"}}`)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		// fasthttp would write X-Amzn-Requestid; AWS spells it x-amzn-RequestId.
		raw := rawResponse(t, srv.Addr, "GET /backup-vaults/wired HTTP/1.1\r\nHost: x\r\n\r\n")
		if !bytes.Contains(raw, []byte("\r\nx-amzn-RequestId: ")) {
			t.Fatalf("request id header not spelled as AWS does:\n%s", raw)
		}
	})
	t.Run("trailing-slash", func(t *testing.T) {
		for _, p := range []string{"/backup-vaults/", "/backup/plans/", "/backup-vaults/wired/", "/tags/" + enc + "/"} {
			if r := do(t, srv, "GET", p, ""); r.status != 200 {
				t.Fatalf("GET %s: %d %s", p, r.status, r.body)
			}
		}
	})
	t.Run("delete-vault-empty-200", func(t *testing.T) {
		do(t, srv, "PUT", "/backup-vaults/gone-soon", "")
		r := do(t, srv, "DELETE", "/backup-vaults/gone-soon", "")
		if r.status != 200 || len(r.body) != 0 {
			t.Fatalf("%d %q", r.status, r.body)
		}
	})
	t.Run("delete-access-point-empty-204", func(t *testing.T) {
		r := do(t, srv, "PUT", "/backup-access-point/create", `{"Name":"ap-x","RecoveryPointArn":"arn:aws:backup:us-east-1:000000000000:recovery-point:rp"}`)
		if r.status != 201 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		r = do(t, srv, "DELETE", "/backup-access-point/delete/arn%3Aaws%3Abackup%3Aus-east-1%3A000000000000%3Aaccesspoint%2Fap-x", "")
		if r.status != 204 || len(r.body) != 0 {
			t.Fatalf("%d %q", r.status, r.body)
		}
	})
	t.Run("tags-raw-slashes", func(t *testing.T) {
		r := do(t, srv, "GET", "/tags/"+vaultArn, "")
		if r.status != 200 || r.json["Tags"].(map[string]any)["x"] != "y" {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("tags-dispatch", func(t *testing.T) {
		// An API Gateway ARN goes to API Gateway (whose shape is {"message"}).
		apigw := "arn%3Aaws%3Aapigateway%3Aus-east-1%3A%3A%2Frestapis%2Fabc123"
		wantError(t, do(t, srv, "GET", "/tags/"+apigw, ""), 404, "NotFoundException", "message")
		// The SigV4 scope wins over the ARN: API Gateway refuses a Backup ARN.
		wantError(t, do(t, srv, "GET", "/tags/"+enc, "", sign("apigateway", "us-east-1", "test")...), 400, "BadRequestException", "message")
		if r := do(t, srv, "GET", "/tags/"+apigw, "", sign("backup", "us-east-1", "test")...); r.status != 400 ||
			r.header.Get("x-amzn-ErrorType") != "ResourceNotFoundException" {
			t.Fatalf("backup scope: %d %s", r.status, r.body)
		}
		// API Gateway's PUT and DELETE on the same path.
		wantError(t, do(t, srv, "PUT", "/tags/"+apigw, `{"tags":{"a":"b"}}`), 404, "NotFoundException", "message")
		wantError(t, do(t, srv, "DELETE", "/tags/"+apigw+"?tagKeys=a", ""), 404, "NotFoundException", "message")
	})
	t.Run("presigned-scope", func(t *testing.T) {
		r := do(t, srv, "PUT", "/backup-vaults/presigned?X-Amz-Credential=123456789012%2F20261122%2Feu-west-1%2Fbackup%2Faws4_request", "")
		if r.status != 200 || r.json["BackupVaultArn"] != "arn:aws:backup:eu-west-1:123456789012:backup-vault:presigned" {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("hostile-region", func(t *testing.T) {
		r := do(t, srv, "PUT", "/backup-vaults/hostile-region", "", sign("backup", "../../x", "test")...)
		if r.status != 200 || r.json["BackupVaultArn"] != "arn:aws:backup:us-east-1:000000000000:backup-vault:hostile-region" {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
}

func rawResponse(t *testing.T, addr, req string) []byte {
	t.Helper()
	conn, err := (&netDialer{}).dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := conn.Read(buf)
	return buf[:n]
}

func TestEmulatorEndpoints(t *testing.T) {
	srv := servertest.Start(t)
	t.Run("health", func(t *testing.T) {
		r := do(t, srv, "GET", "/_emulator/health", "")
		services := r.json["services"].(map[string]any)
		bk := services["backup"].(map[string]any)
		if r.status != 200 || bk["tier"] != "partial" || len(bk["full"].([]any)) != 7 || len(bk["partial"].([]any)) != 11 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if st := r.json["storage"].(map[string]any); st["backend"] != "memory" {
			t.Fatalf("storage %v", st)
		}
		if _, ok := r.json["containerRuntime"].(map[string]any)["connected"]; !ok {
			t.Fatalf("no container runtime: %s", r.body)
		}
	})
	for _, p := range []string{"/_compat/health", "/_localstack/health"} {
		t.Run("legacy="+p, func(t *testing.T) {
			r := do(t, srv, "GET", p, "")
			if r.status != 200 || r.json["edition"] == nil || r.json["version"] == nil ||
				r.json["services"].(map[string]any)["backup"] != "running" {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
	for _, p := range []string{"/_emulator/reset", "/_compat/state/reset", "/_localstack/state/reset"} {
		t.Run("reset="+p, func(t *testing.T) {
			do(t, srv, "PUT", "/backup-vaults/before-reset", "")
			r := do(t, srv, "POST", p, "")
			if r.status != 200 || string(r.body) != `{"status":"reset"}` {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if r := do(t, srv, "GET", "/backup-vaults", ""); len(r.json["BackupVaultList"].([]any)) != 0 {
				t.Fatalf("reset left %s", r.body)
			}
		})
	}
}

func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var planID, apArn string
	{
		srv := servertest.Start(t, servertest.WithPersistence(dir))
		c := backupClient(srv)
		if _, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("kept"),
			BackupVaultTags: map[string]string{"a": "1"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("dropped")}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteBackupVault(ctx, &backup.DeleteBackupVaultInput{BackupVaultName: aws.String("dropped")}); err != nil {
			t.Fatal(err)
		}
		p, err := c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: &types.BackupPlanInput{
			BackupPlanName: aws.String("plan"), Rules: []types.BackupRuleInput{{RuleName: aws.String("r"), TargetBackupVaultName: aws.String("kept")}}}})
		if err != nil {
			t.Fatal(err)
		}
		planID = aws.ToString(p.BackupPlanId)
		if _, err := c.UpdateBackupPlan(ctx, &backup.UpdateBackupPlanInput{BackupPlanId: p.BackupPlanId, BackupPlan: &types.BackupPlanInput{
			BackupPlanName: aws.String("plan-v2"), Rules: []types.BackupRuleInput{{RuleName: aws.String("r"), TargetBackupVaultName: aws.String("kept")}}}}); err != nil {
			t.Fatal(err)
		}
		ap, err := c.CreateBackupAccessPoint(ctx, &backup.CreateBackupAccessPointInput{Name: aws.String("ap-kept"),
			RecoveryPointArn: aws.String("arn:aws:backup:us-east-1:000000000000:recovery-point:rp"), AccessPointMetadata: map[string]string{"m": "v"}})
		if err != nil {
			t.Fatal(err)
		}
		apArn = aws.ToString(ap.AccessPointArn)
		if _, err := c.TagResource(ctx, &backup.TagResourceInput{ResourceArn: ap.AccessPointArn, Tags: map[string]string{"t": "1"}}); err != nil {
			t.Fatal(err)
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := srv.Emulator.Shutdown(sctx); err != nil {
			t.Fatal(err)
		}
	}
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := backupClient(srv)
	v, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("kept")})
	if err != nil {
		t.Fatalf("vault lost: %v", err)
	}
	tags, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: v.BackupVaultArn})
	if err != nil || tags.Tags["a"] != "1" {
		t.Fatalf("vault tags lost: %v %v", err, tags)
	}
	if _, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("dropped")}); err == nil {
		t.Fatal("deleted vault came back")
	}
	p, err := c.GetBackupPlan(ctx, &backup.GetBackupPlanInput{BackupPlanId: aws.String(planID)})
	if err != nil || aws.ToString(p.BackupPlan.BackupPlanName) != "plan-v2" {
		t.Fatalf("plan: %v %+v", err, p)
	}
	// The plan's name index was restored too.
	_, err = c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: &types.BackupPlanInput{
		BackupPlanName: aws.String("plan-v2"), Rules: []types.BackupRuleInput{{RuleName: aws.String("r"), TargetBackupVaultName: aws.String("kept")}}}})
	if err == nil {
		t.Fatal("restored plan name not reserved")
	}
	ap, err := c.DescribeBackupAccessPoint(ctx, &backup.DescribeBackupAccessPointInput{AccessPointArn: aws.String(apArn)})
	if err != nil || ap.AccessPointMetadata["m"] != "v" {
		t.Fatalf("access point: %v %+v", err, ap)
	}
	// New resources list after the restored ones.
	if _, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("newer")}); err != nil {
		t.Fatal(err)
	}
	l, err := c.ListBackupVaults(ctx, &backup.ListBackupVaultsInput{})
	if err != nil || len(l.BackupVaultList) != 2 || aws.ToString(l.BackupVaultList[1].BackupVaultName) != "newer" {
		t.Fatalf("list: %v %+v", err, l)
	}
	// Reset wipes the persistent store too.
	if r := do(t, srv, "POST", "/_emulator/reset", ""); r.status != 200 {
		t.Fatalf("reset: %d", r.status)
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	srv = servertest.Start(t, servertest.WithPersistence(dir))
	l, err = backupClient(srv).ListBackupVaults(ctx, &backup.ListBackupVaultsInput{})
	if err != nil || len(l.BackupVaultList) != 0 {
		t.Fatalf("after reset and restart: %v %+v", err, l)
	}
}

func backupClient(srv *servertest.Server) *backup.Client {
	return backup.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *backup.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
}
