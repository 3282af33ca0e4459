package awswire_test

import (
	"strings"
	"testing"

	"github.com/cloudemu/emulator/awswire"
)

// mkARN builds an ARN from its parts in order.
func mkARN(partition, service, region, account, resource string) awswire.ARN {
	return awswire.ARN{Partition: partition, Service: service, Region: region, Account: account, Resource: resource}
}

func TestParseARN(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want awswire.ARN
	}{
		{"backup-vault", "arn:aws:backup:us-east-1:123456789012:backup-vault:my-vault",
			mkARN("aws", "backup", "us-east-1", "123456789012", "backup-vault:my-vault")},
		{"backup-plan", "arn:aws:backup:eu-west-2:123456789012:backup-plan:8F81F553-3A74-4A3F-B93D-B3360DC80C50",
			mkARN("aws", "backup", "eu-west-2", "123456789012", "backup-plan:8F81F553-3A74-4A3F-B93D-B3360DC80C50")},
		{"backup-accesspoint", "arn:aws:backup:us-east-1:123456789012:accesspoint/my-ap",
			mkARN("aws", "backup", "us-east-1", "123456789012", "accesspoint/my-ap")},
		{"backup-recovery-point", "arn:aws:backup:us-east-1:123456789012:recovery-point:1EB3B5E7-9EB0-435A-A80B-108B488B0D45",
			mkARN("aws", "backup", "us-east-1", "123456789012", "recovery-point:1EB3B5E7-9EB0-435A-A80B-108B488B0D45")},
		{"apigateway-stage", "arn:aws:apigateway:us-east-1::/restapis/abc/stages/prod",
			mkARN("aws", "apigateway", "us-east-1", "", "/restapis/abc/stages/prod")},
		{"apigatewayv2-api", "arn:aws:apigateway:eu-central-1::/apis/a1b2c3d4e5",
			mkARN("aws", "apigateway", "eu-central-1", "", "/apis/a1b2c3d4e5")},
		{"dynamodb-table", "arn:aws:dynamodb:us-east-1:123456789012:table/Music",
			mkARN("aws", "dynamodb", "us-east-1", "123456789012", "table/Music")},
		{"dynamodb-stream", "arn:aws:dynamodb:us-east-1:123456789012:table/Music/stream/2015-05-11T21:21:33.291",
			mkARN("aws", "dynamodb", "us-east-1", "123456789012", "table/Music/stream/2015-05-11T21:21:33.291")},
		{"s3-bucket", "arn:aws:s3:::bucket",
			mkARN("aws", "s3", "", "", "bucket")},
		{"s3-object", "arn:aws:s3:::bucket/key/with:colon",
			mkARN("aws", "s3", "", "", "bucket/key/with:colon")},
		{"ec2-ami-no-account", "arn:aws:ec2:us-east-1::image/ami-0abcdef1234567890",
			mkARN("aws", "ec2", "us-east-1", "", "image/ami-0abcdef1234567890")},
		{"iam-global", "arn:aws:iam::123456789012:role/service-role/AWSBackupDefaultServiceRole",
			mkARN("aws", "iam", "", "123456789012", "role/service-role/AWSBackupDefaultServiceRole")},
		{"aws-cn-backup-vault", "arn:aws-cn:backup:cn-north-1:123456789012:backup-vault:v",
			mkARN("aws-cn", "backup", "cn-north-1", "123456789012", "backup-vault:v")},
		{"aws-us-gov-rds", "arn:aws-us-gov:rds:us-gov-west-1:123456789012:db:mydb",
			mkARN("aws-us-gov", "rds", "us-gov-west-1", "123456789012", "db:mydb")},
		{"colon-resource", "arn:aws:backup:us-east-1:123456789012::",
			mkARN("aws", "backup", "us-east-1", "123456789012", ":")},
		{"max-length", "arn:aws:s3:::" + strings.Repeat("b", 2048-len("arn:aws:s3:::")),
			mkARN("aws", "s3", "", "", strings.Repeat("b", 2048-len("arn:aws:s3:::")))},
	} {
		t.Run("arn="+tc.name, func(t *testing.T) {
			got, ok := awswire.ParseARN(tc.in)
			if !ok {
				t.Fatalf("ParseARN(%q) refused", tc.in)
			}
			if got != tc.want {
				t.Errorf("ParseARN(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
			if s := got.String(); s != tc.in {
				t.Errorf("String() = %q, want %q", s, tc.in)
			}
		})
	}
}

func TestParseARNRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"arn", "arn"},
		{"arn-colon", "arn:"},
		{"two-parts", "arn:aws"},
		{"three-parts", "arn:aws:s3"},
		{"five-parts", "arn:aws:s3:us-east-1:123456789012"},
		{"empty-resource", "arn:aws:s3:::"},
		{"empty-partition", "arn::s3:::bucket"},
		{"empty-service", "arn:aws::us-east-1:123456789012:thing"},
		{"all-empty", "arn:::::"},
		{"uppercase-prefix", "ARN:aws:s3:::bucket"},
		{"leading-space", " arn:aws:s3:::bucket"},
		{"other-prefix", "urn:aws:s3:::bucket"},
		{"name-not-arn", "my-vault"},
		{"over-long", "arn:aws:s3:::" + strings.Repeat("b", 2049-len("arn:aws:s3:::"))},
	} {
		t.Run("arn="+tc.name, func(t *testing.T) {
			if got, ok := awswire.ParseARN(tc.in); ok || got != (awswire.ARN{}) {
				t.Errorf("ParseARN(%.60q) = %+v, %v; want refused", tc.in, got, ok)
			}
		})
	}
}

func TestBuildARN(t *testing.T) {
	for _, tc := range []struct {
		name     string
		got      string
		want     string
		resource string
	}{
		{"vault", awswire.BackupVaultARN("us-east-1", "123456789012", "my-vault"),
			"arn:aws:backup:us-east-1:123456789012:backup-vault:my-vault", "backup-vault:my-vault"},
		{"plan", awswire.BackupPlanARN("eu-west-1", "000000000000", "8F81F553-3A74-4A3F-B93D-B3360DC80C50"),
			"arn:aws:backup:eu-west-1:000000000000:backup-plan:8F81F553-3A74-4A3F-B93D-B3360DC80C50",
			"backup-plan:8F81F553-3A74-4A3F-B93D-B3360DC80C50"},
		{"accesspoint", awswire.BackupAccessPointARN("us-west-2", "123456789012", "ap1"),
			"arn:aws:backup:us-west-2:123456789012:accesspoint/ap1", "accesspoint/ap1"},
	} {
		t.Run("kind="+tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
			a, ok := awswire.ParseARN(tc.got)
			if !ok || a.Service != "backup" || a.Resource != tc.resource {
				t.Errorf("ParseARN(%q) = %+v, %v", tc.got, a, ok)
			}
		})
	}
}

func FuzzParseARN(f *testing.F) {
	for _, s := range []string{
		"arn:aws:backup:us-east-1:123456789012:backup-vault:my-vault",
		"arn:aws:backup:us-east-1:123456789012:backup-plan:8F81F553-3A74-4A3F-B93D-B3360DC80C50",
		"arn:aws:backup:us-east-1:123456789012:accesspoint/my-ap",
		"arn:aws:apigateway:us-east-1::/restapis/abc/stages/prod",
		"arn:aws:dynamodb:us-east-1:123456789012:table/Music",
		"arn:aws:s3:::bucket",
		"arn:aws:s3:::", "arn::::::", "arn:", "", "ARN:aws:s3:::b", "arn:aws:backup:us-east-1:123456789012::",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := awswire.ParseARN(s)
		if !ok {
			if a != (awswire.ARN{}) {
				t.Fatalf("ParseARN(%q) refused but returned %+v", s, a)
			}
			return
		}
		if got := a.String(); got != s {
			t.Fatalf("ParseARN(%q).String() = %q", s, got)
		}
		if a.Partition == "" || a.Service == "" || a.Resource == "" {
			t.Fatalf("ParseARN(%q) = %+v: empty partition, service or resource", s, a)
		}
		if strings.Contains(a.Partition+a.Service+a.Region+a.Account, ":") {
			t.Fatalf("ParseARN(%q) = %+v: a colon before the resource", s, a)
		}
		again, ok := awswire.ParseARN(a.String())
		if !ok || again != a {
			t.Fatalf("ParseARN(%q) = %+v, reparsed %+v, %v", s, a, again, ok)
		}
	})
}

func TestGatewayPath(t *testing.T) {
	for _, tc := range []struct {
		arn, region, path string
		ok                bool
	}{
		{"arn:aws:apigateway:us-east-1::/restapis/a1/stages/dev", "us-east-1", "restapis|a1|stages|dev", true},
		{"arn:aws:apigateway:eu-west-1:123456789012:/domainnames/x+abc", "eu-west-1", "domainnames|x+abc", true},
		{"arn:aws:apigateway:::/restapis/a1", "", "", false},
		{"arn:aws:apigateway:us-east-1::restapis/a1", "", "", false},
		{"arn:aws:apigateway:us-east-1::/restapis//a1", "", "", false},
		{"arn:aws:backup:us-east-1:1:/restapis/a1", "", "", false},
	} {
		region, segs, ok := awswire.GatewayPath(tc.arn)
		if ok != tc.ok || region != tc.region || strings.Join(segs, "|") != tc.path {
			t.Errorf("GatewayPath(%q) = %q %v %v", tc.arn, region, segs, ok)
		}
	}
}
