package backuphttp_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/backup"
	"github.com/aws/aws-sdk-go-v2/service/backup/types"

	"github.com/cloudemu/emulator/server/servertest"
)

const account = "000000000000"

func newClient(t testing.TB, srv *servertest.Server, region, accessKey string) *backup.Client {
	t.Helper()
	return backup.NewFromConfig(servertest.AWSConfig(region, accessKey), func(o *backup.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
}

func start(t *testing.T, opts ...servertest.Option) (*servertest.Server, *backup.Client) {
	t.Helper()
	srv := servertest.Start(t, opts...)
	return srv, newClient(t, srv, "us-east-1", "test")
}

func TestVaultLifecycle(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()

	out, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{
		BackupVaultName:  aws.String("vault-1"),
		BackupVaultTags:  map[string]string{"team": "infra", "env": "ci"},
		CreatorRequestId: aws.String("req-1"),
		EncryptionKeyArn: aws.String("arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab"),
	})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	wantArn := "arn:aws:backup:us-east-1:" + account + ":backup-vault:vault-1"
	if aws.ToString(out.BackupVaultArn) != wantArn || aws.ToString(out.BackupVaultName) != "vault-1" {
		t.Fatalf("create output: %+v", out)
	}
	if out.CreationDate == nil || time.Since(*out.CreationDate) > time.Minute {
		t.Fatalf("creation date: %v", out.CreationDate)
	}

	d, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("vault-1")})
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	if aws.ToString(d.BackupVaultArn) != wantArn || d.VaultType != types.VaultTypeBackupVault ||
		d.VaultState != types.VaultStateAvailable || aws.ToBool(d.Locked) || d.Locked == nil ||
		aws.ToString(d.CreatorRequestId) != "req-1" || aws.ToInt64(&d.NumberOfRecoveryPoints) != 0 {
		t.Fatalf("describe output: %+v", d)
	}
	if d.MinRetentionDays != nil || d.MaxRetentionDays != nil || d.LockDate != nil {
		t.Fatalf("retention members must be absent: %+v", d)
	}
	if !d.CreationDate.Equal(*out.CreationDate) {
		t.Fatalf("creation dates differ: %v vs %v", d.CreationDate, out.CreationDate)
	}

	// Tags were applied in the same write as the vault.
	tags, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: aws.String(wantArn)})
	if err != nil {
		t.Fatalf("list tags: %v", err)
	}
	if len(tags.Tags) != 2 || tags.Tags["team"] != "infra" || tags.Tags["env"] != "ci" {
		t.Fatalf("tags: %v", tags.Tags)
	}

	_, err = c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("vault-1")})
	servertest.WantAPIError(t, err, "AlreadyExistsException", "")
	var ae *types.AlreadyExistsException
	if !errors.As(err, &ae) || aws.ToString(ae.Arn) != wantArn {
		t.Fatalf("AlreadyExistsException must carry the Arn: %#v", err)
	}

	if _, err := c.DeleteBackupVault(ctx, &backup.DeleteBackupVaultInput{BackupVaultName: aws.String("vault-1")}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	_, err = c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("vault-1")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.DeleteBackupVault(ctx, &backup.DeleteBackupVaultInput{BackupVaultName: aws.String("vault-1")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	// Tags went with the vault.
	_, err = c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: aws.String(wantArn)})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	// The name is free again.
	if _, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("vault-1")}); err != nil {
		t.Fatalf("re-create: %v", err)
	}
	d, err = c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("vault-1")})
	// The SDK fills CreatorRequestId with a fresh idempotency token.
	if err != nil || aws.ToString(d.CreatorRequestId) == "req-1" {
		t.Fatalf("re-created vault carries old state: %+v %v", d, err)
	}
}

func TestVaultNames(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"ab", true},
		{"A_b-9", true},
		{strings.Repeat("x", 50), true},
		{"a", false},
		{strings.Repeat("x", 51), false},
		{"has space", false},
		{"dot.dot", false},
		{"../etc", false},
		{"slash/inside", false},
		{"colon:inside", false},
		{"ünïcode", false},
		{"%2e%2e", false},
	} {
		t.Run("name="+tc.name, func(t *testing.T) {
			_, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String(tc.name)})
			if tc.ok {
				if err != nil {
					t.Fatalf("create %q: %v", tc.name, err)
				}
				return
			}
			servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
		})
	}
}

func TestListVaults(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	var names []string
	for i := range 25 {
		n := fmt.Sprintf("v-%02d", i)
		names = append(names, n)
		if _, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String(n)}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("pages=3", func(t *testing.T) {
		var got []string
		pages := 0
		p := backup.NewListBackupVaultsPaginator(c, &backup.ListBackupVaultsInput{MaxResults: aws.Int32(10)})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(out.BackupVaultList) > 10 {
				t.Fatalf("page of %d", len(out.BackupVaultList))
			}
			for _, v := range out.BackupVaultList {
				got = append(got, aws.ToString(v.BackupVaultName))
				if aws.ToBool(v.Locked) || v.VaultType != types.VaultTypeBackupVault {
					t.Fatalf("list member: %+v", v)
				}
			}
		}
		if pages != 3 || !slices.Equal(got, names) {
			t.Fatalf("pages=%d got=%v", pages, got)
		}
	})
	t.Run("all", func(t *testing.T) {
		out, err := c.ListBackupVaults(ctx, &backup.ListBackupVaultsInput{})
		if err != nil || len(out.BackupVaultList) != 25 || out.NextToken != nil {
			t.Fatalf("%v %d %v", err, len(out.BackupVaultList), out.NextToken)
		}
	})
	t.Run("shared=true", func(t *testing.T) {
		out, err := c.ListBackupVaults(ctx, &backup.ListBackupVaultsInput{ByShared: true})
		if err != nil || len(out.BackupVaultList) != 0 {
			t.Fatalf("%v %v", err, out.BackupVaultList)
		}
	})
	t.Run("shared=false", func(t *testing.T) {
		out, err := c.ListBackupVaults(ctx, &backup.ListBackupVaultsInput{ByShared: false})
		if err != nil || len(out.BackupVaultList) != 25 {
			t.Fatalf("%v %d", err, len(out.BackupVaultList))
		}
	})
	for _, tc := range []struct {
		typ  types.VaultType
		want int
	}{
		{types.VaultTypeBackupVault, 25},
		{types.VaultTypeLogicallyAirGappedBackupVault, 0},
		{types.VaultTypeRestoreAccessBackupVault, 0},
	} {
		t.Run("vaultType="+string(tc.typ), func(t *testing.T) {
			out, err := c.ListBackupVaults(ctx, &backup.ListBackupVaultsInput{ByVaultType: tc.typ})
			if err != nil || len(out.BackupVaultList) != tc.want {
				t.Fatalf("%v %d", err, len(out.BackupVaultList))
			}
		})
	}
	t.Run("vaultType=bogus", func(t *testing.T) {
		_, err := c.ListBackupVaults(ctx, &backup.ListBackupVaultsInput{ByVaultType: "BOGUS"})
		servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
	})
	t.Run("token=forged", func(t *testing.T) {
		_, err := c.ListBackupVaults(ctx, &backup.ListBackupVaultsInput{NextToken: aws.String("not-a-token")})
		servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
	})
	for _, n := range []int32{0, 1001} {
		t.Run(fmt.Sprintf("maxResults=%d", n), func(t *testing.T) {
			_, err := c.ListBackupVaults(ctx, &backup.ListBackupVaultsInput{MaxResults: aws.Int32(n)})
			servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
		})
	}
}

func TestScopes(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	west := newClient(t, srv, "us-west-2", "test")
	acct := newClient(t, srv, "us-east-1", "123456789012")

	if _, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("shared-name")}); err != nil {
		t.Fatal(err)
	}
	// Another region and another account each have their own namespace.
	w, err := west.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("shared-name")})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(w.BackupVaultArn); got != "arn:aws:backup:us-west-2:000000000000:backup-vault:shared-name" {
		t.Fatalf("west arn %s", got)
	}
	a, err := acct.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("shared-name")})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(a.BackupVaultArn); got != "arn:aws:backup:us-east-1:123456789012:backup-vault:shared-name" {
		t.Fatalf("account arn %s", got)
	}
	_, err = west.DeleteBackupVault(ctx, &backup.DeleteBackupVaultInput{BackupVaultName: aws.String("shared-name")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("shared-name")}); err != nil {
		t.Fatalf("deleting in us-west-2 touched us-east-1: %v", err)
	}
	// backupVaultAccountId naming another account finds nothing.
	_, err = c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{
		BackupVaultName: aws.String("shared-name"), BackupVaultAccountId: aws.String("999999999999")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	if _, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{
		BackupVaultName: aws.String("shared-name"), BackupVaultAccountId: aws.String(account)}); err != nil {
		t.Fatal(err)
	}
}

func samplePlan(name string) *types.BackupPlanInput {
	return &types.BackupPlanInput{
		BackupPlanName: aws.String(name),
		Rules: []types.BackupRuleInput{{
			RuleName:              aws.String("daily"),
			TargetBackupVaultName: aws.String("vault-a"),
			ScheduleExpression:    aws.String("cron(0 12 * * ? *)"),
			Lifecycle:             &types.Lifecycle{DeleteAfterDays: aws.Int64(35)},
			RecoveryPointTags:     map[string]string{"k": "v"},
		}},
		AdvancedBackupSettings: []types.AdvancedBackupSetting{{
			ResourceType:  aws.String("EC2"),
			BackupOptions: map[string]string{"WindowsVSS": "enabled"},
		}},
	}
}

func TestPlanLifecycle(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()

	created, err := c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{
		BackupPlan:       samplePlan("plan-a"),
		BackupPlanTags:   map[string]string{"owner": "me"},
		CreatorRequestId: aws.String("creator-1"),
	})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	id := aws.ToString(created.BackupPlanId)
	if len(id) != 36 || aws.ToString(created.BackupPlanArn) != "arn:aws:backup:us-east-1:"+account+":backup-plan:"+id {
		t.Fatalf("create output: %+v", created)
	}
	if created.VersionId == nil || created.CreationDate == nil {
		t.Fatalf("create output lacks version or date: %+v", created)
	}
	if created.AdvancedBackupSettings != nil {
		t.Fatalf("AdvancedBackupSettings must never be returned: %+v", created.AdvancedBackupSettings)
	}

	got, err := c.GetBackupPlan(ctx, &backup.GetBackupPlanInput{BackupPlanId: aws.String(id), MaxScheduledRunsPreview: 5})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if aws.ToString(got.VersionId) != aws.ToString(created.VersionId) || aws.ToString(got.CreatorRequestId) != "creator-1" {
		t.Fatalf("get output: %+v", got)
	}
	if got.ScheduledRunsPreview != nil || got.AdvancedBackupSettings != nil || got.BackupPlan.AdvancedBackupSettings != nil {
		t.Fatalf("get must not return previews or advanced settings: %+v", got)
	}
	rules := got.BackupPlan.Rules
	if len(rules) != 1 || aws.ToString(rules[0].RuleId) == "" || aws.ToString(rules[0].RuleName) != "daily" ||
		aws.ToString(rules[0].ScheduleExpression) != "cron(0 12 * * ? *)" ||
		aws.ToInt64(rules[0].Lifecycle.DeleteAfterDays) != 35 || rules[0].RecoveryPointTags["k"] != "v" ||
		aws.ToInt64(rules[0].StartWindowMinutes) != 480 || aws.ToInt64(rules[0].CompletionWindowMinutes) != 10080 {
		t.Fatalf("rules: %+v", rules)
	}
	ruleID := aws.ToString(rules[0].RuleId)

	_, err = c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: samplePlan("plan-a")})
	servertest.WantAPIError(t, err, "AlreadyExistsException", "")

	// Update mints a new version; only the current one is found.
	upd := samplePlan("plan-a-renamed")
	upd.Rules = append(upd.Rules, types.BackupRuleInput{RuleName: aws.String("weekly"), TargetBackupVaultName: aws.String("vault-b")})
	upd.ScanSettings = []types.ScanSetting{{MalwareScanner: types.MalwareScannerGuardduty, ResourceTypes: []string{"EBS"}}}
	updated, err := c.UpdateBackupPlan(ctx, &backup.UpdateBackupPlanInput{BackupPlanId: aws.String(id), BackupPlan: upd})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if aws.ToString(updated.VersionId) == aws.ToString(created.VersionId) || aws.ToString(updated.BackupPlanId) != id {
		t.Fatalf("update must mint a new version: %+v", updated)
	}
	if updated.AdvancedBackupSettings != nil {
		t.Fatalf("update returned advanced settings")
	}
	if len(updated.ScanSettings) != 1 || updated.ScanSettings[0].MalwareScanner != types.MalwareScannerGuardduty {
		t.Fatalf("update must echo ScanSettings: %+v", updated.ScanSettings)
	}
	_, err = c.GetBackupPlan(ctx, &backup.GetBackupPlanInput{BackupPlanId: aws.String(id), VersionId: created.VersionId})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	cur, err := c.GetBackupPlan(ctx, &backup.GetBackupPlanInput{BackupPlanId: aws.String(id), VersionId: updated.VersionId})
	if err != nil {
		t.Fatalf("get current version: %v", err)
	}
	if aws.ToString(cur.BackupPlan.BackupPlanName) != "plan-a-renamed" || len(cur.BackupPlan.Rules) != 2 {
		t.Fatalf("updated plan: %+v", cur.BackupPlan)
	}
	if aws.ToString(cur.BackupPlan.Rules[0].RuleId) != ruleID {
		t.Fatalf("a rule kept by name keeps its id")
	}
	// The old name is free; the new one is taken.
	if _, err := c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: samplePlan("plan-a")}); err != nil {
		t.Fatalf("old name should be free: %v", err)
	}
	_, err = c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: samplePlan("plan-a-renamed")})
	servertest.WantAPIError(t, err, "AlreadyExistsException", "")

	list, err := c.ListBackupPlans(ctx, &backup.ListBackupPlansInput{IncludeDeleted: aws.Bool(true)})
	if err != nil || len(list.BackupPlansList) != 2 {
		t.Fatalf("list: %v %+v", err, list)
	}
	if m := list.BackupPlansList[0]; aws.ToString(m.BackupPlanId) != id || aws.ToString(m.BackupPlanName) != "plan-a-renamed" ||
		aws.ToString(m.VersionId) != aws.ToString(updated.VersionId) || m.AdvancedBackupSettings != nil {
		t.Fatalf("list member: %+v", m)
	}

	tags, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: created.BackupPlanArn})
	if err != nil || tags.Tags["owner"] != "me" {
		t.Fatalf("plan tags: %v %v", err, tags)
	}

	del, err := c.DeleteBackupPlan(ctx, &backup.DeleteBackupPlanInput{BackupPlanId: aws.String(id)})
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	if aws.ToString(del.BackupPlanId) != id || aws.ToString(del.BackupPlanArn) != aws.ToString(created.BackupPlanArn) ||
		aws.ToString(del.VersionId) != aws.ToString(updated.VersionId) || del.DeletionDate == nil {
		t.Fatalf("delete output: %+v", del)
	}
	_, err = c.GetBackupPlan(ctx, &backup.GetBackupPlanInput{BackupPlanId: aws.String(id)})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.DeleteBackupPlan(ctx, &backup.DeleteBackupPlanInput{BackupPlanId: aws.String(id)})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.UpdateBackupPlan(ctx, &backup.UpdateBackupPlanInput{BackupPlanId: aws.String(id), BackupPlan: samplePlan("x")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	// No tombstone, even with includeDeleted.
	list, err = c.ListBackupPlans(ctx, &backup.ListBackupPlansInput{IncludeDeleted: aws.Bool(true)})
	if err != nil || len(list.BackupPlansList) != 1 {
		t.Fatalf("list after delete: %v %+v", err, list)
	}
	// The deleted plan's name is free again.
	if _, err := c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: samplePlan("plan-a-renamed")}); err != nil {
		t.Fatalf("name of a deleted plan: %v", err)
	}
}

func TestPlanValidation(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	rule := func(mut func(*types.BackupRuleInput)) *types.BackupPlanInput {
		p := samplePlan("p")
		mut(&p.Rules[0])
		return p
	}
	for _, tc := range []struct {
		name string
		plan *types.BackupPlanInput
		code string
	}{
		{"plan=bad-name", &types.BackupPlanInput{BackupPlanName: aws.String("bad name"), Rules: samplePlan("x").Rules}, "InvalidParameterValueException"},
		{"rules=empty", &types.BackupPlanInput{BackupPlanName: aws.String("p"), Rules: []types.BackupRuleInput{}}, "InvalidParameterValueException"},
		{"rule=bad-name", rule(func(r *types.BackupRuleInput) { r.RuleName = aws.String("no spaces allowed") }), "InvalidParameterValueException"},
		{"rule=bad-vault", rule(func(r *types.BackupRuleInput) { r.TargetBackupVaultName = aws.String("x") }), "InvalidParameterValueException"},
		{"rule=short-window", rule(func(r *types.BackupRuleInput) { r.StartWindowMinutes = aws.Int64(59) }), "InvalidParameterValueException"},
		{"rule=cold-too-close", rule(func(r *types.BackupRuleInput) {
			r.Lifecycle = &types.Lifecycle{MoveToColdStorageAfterDays: aws.Int64(30), DeleteAfterDays: aws.Int64(100)}
		}), "InvalidParameterValueException"},
		{"rule=copy-no-arn", rule(func(r *types.BackupRuleInput) {
			r.CopyActions = []types.CopyAction{{DestinationBackupVaultArn: aws.String("nope")}}
		}), "InvalidParameterValueException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: tc.plan})
			servertest.WantAPIError(t, err, tc.code, "")
		})
	}
	t.Run("maxScheduledRunsPreview=11", func(t *testing.T) {
		p, err := c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: samplePlan("ok")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetBackupPlan(ctx, &backup.GetBackupPlanInput{BackupPlanId: p.BackupPlanId, MaxScheduledRunsPreview: 11})
		servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
	})
	t.Run("id=unknown", func(t *testing.T) {
		_, err := c.GetBackupPlan(ctx, &backup.GetBackupPlanInput{BackupPlanId: aws.String("00000000-0000-4000-8000-000000000000")})
		servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	})
}

func TestListPlansPagination(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	var ids []string
	for i := range 7 {
		p, err := c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: samplePlan(fmt.Sprintf("p%d", i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, aws.ToString(p.BackupPlanId))
	}
	var got []string
	p := backup.NewListBackupPlansPaginator(c, &backup.ListBackupPlansInput{MaxResults: aws.Int32(3)})
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, m := range out.BackupPlansList {
			got = append(got, aws.ToString(m.BackupPlanId))
		}
	}
	if pages != 3 || !slices.Equal(got, ids) {
		t.Fatalf("pages=%d got=%v want=%v", pages, got, ids)
	}
}

const rpArn = "arn:aws:backup:us-east-1:000000000000:recovery-point:1EB3B5E7-9EB0-435A-A80B-108B488B0D45"

func TestAccessPoints(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()

	out, err := c.CreateBackupAccessPoint(ctx, &backup.CreateBackupAccessPointInput{
		Name:                aws.String("ap-one"),
		RecoveryPointArn:    aws.String(rpArn),
		AccessPointMetadata: map[string]string{"purpose": "audit", "Mixed Case": "Kept As Sent"},
		AccessPointPolicy:   aws.String(`{"Version":"2012-10-17"}`),
		Tags:                map[string]string{"a": "1"},
	})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	arn := "arn:aws:backup:us-east-1:" + account + ":accesspoint/ap-one"
	if aws.ToString(out.AccessPointArn) != arn || out.Status != types.AccessPointStatusAvailable {
		t.Fatalf("create output: %+v", out)
	}
	if _, err := c.CreateBackupAccessPoint(ctx, &backup.CreateBackupAccessPointInput{
		Name: aws.String("ap-two"), RecoveryPointArn: aws.String("arn:aws:backup:us-east-1:000000000000:recovery-point:other"),
	}); err != nil {
		t.Fatalf("create second: %v", err)
	}
	_, err = c.CreateBackupAccessPoint(ctx, &backup.CreateBackupAccessPointInput{Name: aws.String("ap-one"), RecoveryPointArn: aws.String(rpArn)})
	servertest.WantAPIError(t, err, "AlreadyExistsException", "")

	d, err := c.DescribeBackupAccessPoint(ctx, &backup.DescribeBackupAccessPointInput{AccessPointArn: aws.String(arn)})
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	if aws.ToString(d.Name) != "ap-one" || aws.ToString(d.RecoveryPointArn) != rpArn ||
		d.AccessPointMetadata["purpose"] != "audit" || d.AccessPointMetadata["Mixed Case"] != "Kept As Sent" ||
		d.Status != types.AccessPointStatusAvailable || d.CreationTime == nil {
		t.Fatalf("describe output: %+v", d)
	}
	if d.BackupVaultName != nil || d.BackupVaultArn != nil || d.ResourceArn != nil || d.ResourceType != nil {
		t.Fatalf("recovery-point members must be absent: %+v", d)
	}

	list, err := c.ListBackupAccessPoints(ctx, &backup.ListBackupAccessPointsInput{})
	if err != nil || len(list.BackupAccessPoints) != 2 {
		t.Fatalf("list: %v %+v", err, list)
	}
	paged, err := c.ListBackupAccessPoints(ctx, &backup.ListBackupAccessPointsInput{MaxResults: aws.Int32(1)})
	if err != nil || len(paged.BackupAccessPoints) != 1 || paged.NextToken == nil {
		t.Fatalf("page 1: %v %+v", err, paged)
	}
	paged, err = c.ListBackupAccessPoints(ctx, &backup.ListBackupAccessPointsInput{MaxResults: aws.Int32(1), NextToken: paged.NextToken})
	if err != nil || len(paged.BackupAccessPoints) != 1 || paged.NextToken != nil ||
		aws.ToString(paged.BackupAccessPoints[0].Name) != "ap-two" {
		t.Fatalf("page 2: %v %+v", err, paged)
	}

	byRP, err := c.ListBackupAccessPointsByRecoveryPoint(ctx, &backup.ListBackupAccessPointsByRecoveryPointInput{RecoveryPointArn: aws.String(rpArn)})
	if err != nil || len(byRP.BackupAccessPoints) != 1 || aws.ToString(byRP.BackupAccessPoints[0].AccessPointArn) != arn {
		t.Fatalf("by recovery point: %v %+v", err, byRP)
	}
	byRes, err := c.ListBackupAccessPointsByResource(ctx, &backup.ListBackupAccessPointsByResourceInput{
		ResourceArn: aws.String("arn:aws:s3:::my-bucket")})
	if err != nil || len(byRes.BackupAccessPoints) != 0 || byRes.BackupAccessPoints == nil {
		t.Fatalf("by resource must be an empty list: %v %+v", err, byRes)
	}

	tags, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: aws.String(arn)})
	if err != nil || tags.Tags["a"] != "1" {
		t.Fatalf("tags: %v %+v", err, tags)
	}

	if _, err := c.DeleteBackupAccessPoint(ctx, &backup.DeleteBackupAccessPointInput{AccessPointArn: aws.String(arn)}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	_, err = c.DescribeBackupAccessPoint(ctx, &backup.DescribeBackupAccessPointInput{AccessPointArn: aws.String(arn)})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.DeleteBackupAccessPoint(ctx, &backup.DeleteBackupAccessPointInput{AccessPointArn: aws.String(arn)})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.DescribeBackupAccessPoint(ctx, &backup.DescribeBackupAccessPointInput{AccessPointArn: aws.String("not-an-arn")})
	servertest.WantAPIError(t, err, "InvalidParameterValueException", "")

	for _, name := range []string{"ab", "-abc", "abc-", "UPPER", "ends-s3alias", "x-ext-s3alias", strings.Repeat("a", 51)} {
		t.Run("name="+name, func(t *testing.T) {
			_, err := c.CreateBackupAccessPoint(ctx, &backup.CreateBackupAccessPointInput{Name: aws.String(name), RecoveryPointArn: aws.String(rpArn)})
			servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
		})
	}
	t.Run("recoveryPoint=bad", func(t *testing.T) {
		_, err := c.CreateBackupAccessPoint(ctx, &backup.CreateBackupAccessPointInput{Name: aws.String("fine-name"), RecoveryPointArn: aws.String("rp-1")})
		servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
	})
}

func TestTags(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	v, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("tagged")})
	if err != nil {
		t.Fatal(err)
	}
	arn := v.BackupVaultArn
	if _, err := c.TagResource(ctx, &backup.TagResourceInput{ResourceArn: arn, Tags: map[string]string{"a": "1", "b": "2"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TagResource(ctx, &backup.TagResourceInput{ResourceArn: arn, Tags: map[string]string{"b": "3", "c": "4"}}); err != nil {
		t.Fatal(err)
	}
	got, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: arn})
	if err != nil || len(got.Tags) != 3 || got.Tags["a"] != "1" || got.Tags["b"] != "3" || got.Tags["c"] != "4" {
		t.Fatalf("merge: %v %v", err, got.Tags)
	}
	if _, err := c.UntagResource(ctx, &backup.UntagResourceInput{ResourceArn: arn, TagKeyList: []string{"a", "missing"}}); err != nil {
		t.Fatal(err)
	}
	got, err = c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: arn})
	if err != nil || len(got.Tags) != 2 || got.Tags["a"] != "" {
		t.Fatalf("untag: %v %v", err, got.Tags)
	}
	// Pagination over tags.
	page1, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: arn, MaxResults: aws.Int32(1)})
	if err != nil || len(page1.Tags) != 1 || page1.NextToken == nil {
		t.Fatalf("page 1: %v %+v", err, page1)
	}
	page2, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: arn, MaxResults: aws.Int32(1), NextToken: page1.NextToken})
	if err != nil || len(page2.Tags) != 1 || page2.NextToken != nil || page2.Tags["b"] != "" == (page1.Tags["b"] != "") {
		t.Fatalf("page 2: %v %+v %+v", err, page1, page2)
	}

	for _, tc := range []struct{ name, arn, code string }{
		{"unknown-vault", "arn:aws:backup:us-east-1:000000000000:backup-vault:nope", "ResourceNotFoundException"},
		{"unknown-plan", "arn:aws:backup:us-east-1:000000000000:backup-plan:nope", "ResourceNotFoundException"},
		{"other-service", "arn:aws:dynamodb:us-east-1:000000000000:table/t", "ResourceNotFoundException"},
		{"not-an-arn", "vault", "InvalidParameterValueException"},
	} {
		t.Run("arn="+tc.name, func(t *testing.T) {
			_, err := c.ListTags(ctx, &backup.ListTagsInput{ResourceArn: aws.String(tc.arn)})
			servertest.WantAPIError(t, err, tc.code, "")
			_, err = c.TagResource(ctx, &backup.TagResourceInput{ResourceArn: aws.String(tc.arn), Tags: map[string]string{"a": "b"}})
			servertest.WantAPIError(t, err, tc.code, "")
			_, err = c.UntagResource(ctx, &backup.UntagResourceInput{ResourceArn: aws.String(tc.arn), TagKeyList: []string{"a"}})
			servertest.WantAPIError(t, err, tc.code, "")
		})
	}
}

// TestConcurrentOwners drives one name from many goroutines: exactly one
// create wins each round, and every answer is a modelled one.
func TestConcurrentOwners(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	for round := range 5 {
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("contended")})
				if err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
					return
				}
				servertest.WantAPIError(t, err, "AlreadyExistsException", "")
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("round %d: %d creates won", round, wins)
		}
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := c.DeleteBackupVault(ctx, &backup.DeleteBackupVaultInput{BackupVaultName: aws.String("contended")})
				if err != nil {
					servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
				}
			}()
		}
		wg.Wait()
		_, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("contended")})
		servertest.WantAPIError(t, err, "ResourceNotFoundException", "")
	}
}

// TestLimits: AWS Backup's limits on tags and names, applied with its
// error, never a 5xx.
func TestLimits(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	many := func(n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("k%d", i)] = "v"
		}
		return m
	}
	t.Run("tags=51-on-create", func(t *testing.T) {
		_, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("too-many"), BackupVaultTags: many(51)})
		servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
	})
	t.Run("tags=50-on-create", func(t *testing.T) {
		if _, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("just-enough"), BackupVaultTags: many(50)}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("tags=merged-over-50", func(t *testing.T) {
		v, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("just-enough")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.TagResource(ctx, &backup.TagResourceInput{ResourceArn: v.BackupVaultArn, Tags: map[string]string{"one-more": "v"}})
		servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
		// Replacing an existing key keeps the count.
		if _, err := c.TagResource(ctx, &backup.TagResourceInput{ResourceArn: v.BackupVaultArn, Tags: map[string]string{"k1": "w"}}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("tag-key=aws-prefix", func(t *testing.T) {
		_, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String("reserved"),
			BackupVaultTags: map[string]string{"AWS:owner": "me"}})
		servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
	})
	for _, name := range []string{"nul\x00name", "a", strings.Repeat("x", 51), "sp ace", "\u00e9t\u00e9"} {
		t.Run("vault-name="+name, func(t *testing.T) {
			_, err := c.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{BackupVaultName: aws.String(name)})
			servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
		})
	}
	t.Run("plan-name=nul", func(t *testing.T) {
		_, err := c.CreateBackupPlan(ctx, &backup.CreateBackupPlanInput{BackupPlan: &types.BackupPlanInput{
			BackupPlanName: aws.String("p\x00"), Rules: []types.BackupRuleInput{{RuleName: aws.String("r"), TargetBackupVaultName: aws.String("just-enough")}}}})
		servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
	})
}
