package lambdahttp_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"

	"github.com/cloudemu/emulator/server/servertest"
)

const (
	account = "000000000000"
	role    = "arn:aws:iam::000000000000:role/lambda-role"
)

func newClient(srv *servertest.Server, region, accessKey string) *lambda.Client {
	return lambda.NewFromConfig(servertest.AWSConfig(region, accessKey), func(o *lambda.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})
}

func start(t *testing.T, opts ...servertest.Option) (*servertest.Server, *lambda.Client) {
	t.Helper()
	srv := servertest.Start(t, opts...)
	return srv, newClient(srv, "us-east-1", "test")
}

// makeZip builds a zip of name → content.
func makeZip(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(f, files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return base64.StdEncoding.EncodeToString(s[:])
}

// pythonCode is the test function: it echoes, fails, or touches a file.
const pythonCode = `import json, os

def handler(event, context):
    if event.get("fail"):
        raise ValueError("boom: " + str(event["fail"]))
    if event.get("touch"):
        with open(event["touch"], "w") as f:
            f.write(context.function_version)
    print("hello from", context.function_name)
    return {"event": event, "version": context.function_version, "greeting": os.environ.get("GREETING"), "tag": TAG}

TAG = "%s"
`

func pythonZip(t testing.TB, tag string) []byte {
	return makeZip(t, map[string]string{"index.py": fmt.Sprintf(pythonCode, tag)})
}

func create(t *testing.T, c *lambda.Client, name string, mod func(*lambda.CreateFunctionInput)) *lambda.CreateFunctionOutput {
	t.Helper()
	in := &lambda.CreateFunctionInput{
		FunctionName: aws.String(name),
		Role:         aws.String(role),
		Runtime:      types.RuntimePython312,
		Handler:      aws.String("index.handler"),
		Code:         &types.FunctionCode{ZipFile: pythonZip(t, "v1")},
	}
	if mod != nil {
		mod(in)
	}
	out, err := c.CreateFunction(context.Background(), in)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return out
}

var lastModified = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$`)

func TestFunctionLifecycle(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	zipped := pythonZip(t, "v1")
	out := create(t, c, "fn-1", func(in *lambda.CreateFunctionInput) {
		in.Code.ZipFile = zipped
		in.Description = aws.String("first")
		in.Tags = map[string]string{"team": "a"}
	})
	wantARN := "arn:aws:lambda:us-east-1:" + account + ":function:fn-1"
	if aws.ToString(out.FunctionArn) != wantARN || aws.ToString(out.FunctionName) != "fn-1" ||
		out.State != types.StateActive || out.LastUpdateStatus != types.LastUpdateStatusSuccessful ||
		aws.ToString(out.CodeSha256) != sha(zipped) || out.CodeSize != int64(len(zipped)) ||
		!lastModified.MatchString(aws.ToString(out.LastModified)) || aws.ToString(out.RevisionId) == "" ||
		out.PackageType != types.PackageTypeZip || !slices.Equal(out.Architectures, []types.Architecture{types.ArchitectureX8664}) ||
		aws.ToInt32(out.Timeout) != 3 || aws.ToInt32(out.MemorySize) != 128 || aws.ToInt32(out.EphemeralStorage.Size) != 512 ||
		out.TracingConfig.Mode != types.TracingModePassThrough || aws.ToString(out.Version) != "$LATEST" ||
		out.LoggingConfig.LogFormat != types.LogFormatText || aws.ToString(out.LoggingConfig.LogGroup) != "/aws/lambda/fn-1" ||
		aws.ToString(out.Description) != "first" || aws.ToString(out.Role) != role || out.Runtime != types.RuntimePython312 ||
		out.Environment != nil {
		t.Fatalf("create output: %+v", out)
	}

	got, err := c.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String("fn-1")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.Configuration.FunctionArn) != wantARN || aws.ToString(got.Configuration.RevisionId) != aws.ToString(out.RevisionId) ||
		got.Tags["team"] != "a" || aws.ToString(got.Code.RepositoryType) != "S3" || got.Concurrency != nil ||
		got.Configuration.State != types.StateActive {
		t.Fatalf("get: %+v %+v", got, got.Configuration)
	}
	// Code.Location downloads the zip, as AWS's presigned URL does; a
	// changed signature is refused.
	if dl := download(t, aws.ToString(got.Code.Location)); dl.status != http.StatusOK ||
		!bytes.Equal(dl.body, zipped) || dl.contentType != "application/zip" {
		t.Fatalf("download of %s: %d %s %d bytes", aws.ToString(got.Code.Location), dl.status, dl.contentType, len(dl.body))
	}
	tampered := regexp.MustCompile(`X-Amz-Signature=[0-9a-f]{8}`).ReplaceAllString(aws.ToString(got.Code.Location), "X-Amz-Signature=00000000")
	if dl := download(t, tampered); dl.status != http.StatusForbidden || !strings.Contains(string(dl.body), "SignatureDoesNotMatch") {
		t.Fatalf("tampered download: %d %s", dl.status, dl.body)
	}
	conf, err := c.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(wantARN)})
	if err != nil || aws.ToString(conf.CodeSha256) != sha(zipped) {
		t.Fatalf("get configuration: %v %+v", err, conf)
	}

	up, err := c.UpdateFunctionConfiguration(ctx, &lambda.UpdateFunctionConfigurationInput{
		FunctionName: aws.String("fn-1"),
		Environment:  &types.Environment{Variables: map[string]string{"GREETING": "hi"}},
		Handler:      aws.String("index.other"),
		Runtime:      types.RuntimePython313,
		Timeout:      aws.Int32(10),
		MemorySize:   aws.Int32(256),
		Description:  aws.String("second"),
		RevisionId:   out.RevisionId,
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.Environment == nil || up.Environment.Variables["GREETING"] != "hi" || aws.ToString(up.Handler) != "index.other" ||
		up.Runtime != types.RuntimePython313 || aws.ToInt32(up.Timeout) != 10 || aws.ToInt32(up.MemorySize) != 256 ||
		aws.ToString(up.Description) != "second" || aws.ToString(up.RevisionId) == aws.ToString(out.RevisionId) ||
		up.LastUpdateStatus != types.LastUpdateStatusSuccessful || aws.ToString(up.CodeSha256) != sha(zipped) {
		t.Fatalf("update configuration: %+v", up)
	}
	// A stale revision id is refused.
	_, err = c.UpdateFunctionConfiguration(ctx, &lambda.UpdateFunctionConfigurationInput{
		FunctionName: aws.String("fn-1"), Description: aws.String("x"), RevisionId: out.RevisionId})
	servertest.WantAPIError(t, err, "PreconditionFailedException",
		"The Revision Id provided does not match the latest Revision Id. Call the GetFunction/GetAlias API to retrieve the latest Revision Id")

	zipped2 := pythonZip(t, "v2")
	code, err := c.UpdateFunctionCode(ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String("fn-1"), ZipFile: zipped2})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(code.CodeSha256) != sha(zipped2) || code.CodeSize != int64(len(zipped2)) ||
		aws.ToString(code.Description) != "second" || code.Environment.Variables["GREETING"] != "hi" {
		t.Fatalf("update code: %+v", code)
	}

	if _, err := c.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String("fn-1")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String("fn-1")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Function not found: "+wantARN)
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) || aws.ToString(nf.Type) != "User" {
		t.Fatalf("want a typed ResourceNotFoundException with Type User, got %#v", err)
	}
	_, err = c.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String("fn-1")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Function not found: "+wantARN)
}

func TestListFunctionsPaging(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	names := []string{"e", "a", "d", "b", "c"}
	for _, n := range names {
		create(t, c, n, func(in *lambda.CreateFunctionInput) { in.Publish = n == "b" })
	}
	var got []string
	var marker *string
	for pages := 0; ; pages++ {
		out, err := c.ListFunctions(ctx, &lambda.ListFunctionsInput{MaxItems: aws.Int32(2), Marker: marker})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Functions) > 2 || pages > 5 {
			t.Fatalf("page of %d", len(out.Functions))
		}
		for _, f := range out.Functions {
			got = append(got, aws.ToString(f.FunctionName))
			if f.State != "" || f.LastUpdateStatus != "" || aws.ToString(f.Version) != "$LATEST" ||
				aws.ToString(f.FunctionArn) != "arn:aws:lambda:us-east-1:"+account+":function:"+aws.ToString(f.FunctionName) {
				t.Fatalf("listed %+v", f)
			}
		}
		if marker = out.NextMarker; marker == nil {
			break
		}
	}
	if !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
		t.Fatalf("listed %v", got)
	}
	all, err := c.ListFunctions(ctx, &lambda.ListFunctionsInput{FunctionVersion: types.FunctionVersionAll})
	if err != nil {
		t.Fatal(err)
	}
	var arns []string
	for _, f := range all.Functions {
		arns = append(arns, strings.TrimPrefix(aws.ToString(f.FunctionArn), "arn:aws:lambda:us-east-1:"+account+":function:"))
	}
	if !slices.Equal(arns, []string{"a:$LATEST", "b:$LATEST", "b:1", "c:$LATEST", "d:$LATEST", "e:$LATEST"}) {
		t.Fatalf("all versions: %v", arns)
	}
	_, err = c.ListFunctions(ctx, &lambda.ListFunctionsInput{Marker: aws.String("not-a-marker")})
	servertest.WantAPIError(t, err, "InvalidParameterValueException", "")
	// Another region lists none.
	other, err := newClient(srv, "eu-west-1", "test").ListFunctions(ctx, &lambda.ListFunctionsInput{})
	if err != nil || len(other.Functions) != 0 {
		t.Fatalf("eu-west-1: %v %+v", err, other)
	}
}

func TestCreateErrors(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	create(t, c, "taken", nil)
	for _, tc := range []struct {
		name string
		mod  func(*lambda.CreateFunctionInput)
		code string
		msg  string
	}{
		{"conflict", func(in *lambda.CreateFunctionInput) { in.FunctionName = aws.String("taken") },
			"ResourceConflictException", "Function already exist: taken"},
		{"not-a-zip", func(in *lambda.CreateFunctionInput) { in.Code.ZipFile = []byte("not a zip") },
			"InvalidParameterValueException", "Could not unzip uploaded file. Please check your file, then try to upload again."},
		{"s3", func(in *lambda.CreateFunctionInput) {
			in.Code = &types.FunctionCode{S3Bucket: aws.String("b"), S3Key: aws.String("k.zip")}
		}, "InvalidParameterValueException", "Code from S3 (S3Bucket, S3Key) is not supported by this emulator, which has no S3: send the zip inline in ZipFile."},
		{"no-code", func(in *lambda.CreateFunctionInput) { in.Code = &types.FunctionCode{} },
			"InvalidParameterValueException", "Please provide a source for function code."},
		{"bad-runtime", func(in *lambda.CreateFunctionInput) { in.Runtime = "non-existent-runtime" },
			"InvalidParameterValueException", "Value non-existent-runtime at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: " +
				"[nodejs20.x, python3.14, provided.al2023, python3.12, python3.13, nodejs24.x, nodejs22.x, java25, python3.10, python3.11, " +
				"java21, ruby3.3, ruby3.4, ruby3.2, python3.8, python3.9, java17, nodejs16.x, dotnet10, dotnet8, java11, dotnet6, nodejs18.x, " +
				"provided.al2, java8.al2] or be a valid ARN"},
		{"deprecated-runtime", func(in *lambda.CreateFunctionInput) { in.Runtime = types.RuntimePython37 },
			"InvalidParameterValueException", "The runtime parameter of python3.7 is no longer supported for creating or updating AWS Lambda functions. " +
				"We recommend you use a supported runtime while creating or updating functions."},
		{"bad-role", func(in *lambda.CreateFunctionInput) { in.Role = aws.String("r1") },
			"ValidationException", `1 validation error detected: Value 'r1' at 'role' failed to satisfy constraint: Member must satisfy regular expression pattern: arn:(aws[a-zA-Z-]*)?:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+`},
		{"long-name", func(in *lambda.CreateFunctionInput) { in.FunctionName = aws.String(strings.Repeat("a", 65)) },
			"InvalidParameterValueException", "1 validation error detected: Value '" + strings.Repeat("a", 65) +
				"' at 'functionName' failed to satisfy constraint: Member must have length less than or equal to 64"},
		{"bad-name", func(in *lambda.CreateFunctionInput) { in.FunctionName = aws.String("invalid:function:name") },
			"ValidationException", `1 validation error detected: Value 'invalid:function:name' at 'functionName' failed to satisfy constraint: Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:)?((eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?([a-zA-Z0-9-_]+)(:(\$LATEST|[a-zA-Z0-9-_]+))?`},
		{"two-architectures", func(in *lambda.CreateFunctionInput) {
			in.Architectures = []types.Architecture{types.ArchitectureX8664, types.ArchitectureArm64}
		}, "ValidationException", "1 validation error detected: Value '[x86_64, arm64]' at 'architectures' failed to satisfy constraint: Member must have length less than or equal to 1"},
		{"timeout", func(in *lambda.CreateFunctionInput) { in.Timeout = aws.Int32(0) },
			"ValidationException", "1 validation error detected: Value '0' at 'timeout' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"reserved-env", func(in *lambda.CreateFunctionInput) {
			in.Environment = &types.Environment{Variables: map[string]string{"AWS_REGION": "x"}}
		}, "InvalidParameterValueException", "Lambda was unable to configure your environment variables because the environment variables you have provided contains reserved keys that are currently not supported for modification. Reserved keys used in this request: AWS_REGION"},
		{"big-env", func(in *lambda.CreateFunctionInput) {
			in.Environment = &types.Environment{Variables: map[string]string{"LARGE_VAR": strings.Repeat("x", 4097)}}
		}, "InvalidParameterValueException", ""},
		{"image", func(in *lambda.CreateFunctionInput) { in.PackageType = types.PackageTypeImage },
			"InvalidParameterValueException", "Container images (PackageType Image) are not supported by this emulator: create a Zip function."},
		{"no-handler", func(in *lambda.CreateFunctionInput) { in.Handler = nil },
			"InvalidParameterValueException", "Runtime and Handler are mandatory parameters for functions created with deployment packages."},
		{"other-region-arn", func(in *lambda.CreateFunctionInput) {
			in.FunctionName = aws.String("arn:aws:lambda:ap-southeast-1:" + account + ":function:x")
		}, "ResourceNotFoundException", "Functions from 'ap-southeast-1' are not reachable in this region ('us-east-1')"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			in := &lambda.CreateFunctionInput{FunctionName: aws.String("fn-" + tc.name), Role: aws.String(role),
				Runtime: types.RuntimePython312, Handler: aws.String("index.handler"),
				Code: &types.FunctionCode{ZipFile: pythonZip(t, "x")}}
			tc.mod(in)
			_, err := c.CreateFunction(ctx, in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	// A partial ARN names the function.
	out := create(t, c, account+":function:partial", nil)
	if aws.ToString(out.FunctionName) != "partial" {
		t.Fatalf("partial ARN: %+v", out)
	}
}

func TestFunctionNames(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	create(t, c, "named", func(in *lambda.CreateFunctionInput) { in.Publish = true })
	arn := "arn:aws:lambda:us-east-1:" + account + ":function:named"
	for _, tc := range []struct {
		name, fn, qualifier  string
		wantARN, wantVersion string
	}{
		{"name", "named", "", arn, "$LATEST"},
		{"partial", account + ":function:named", "", arn, "$LATEST"},
		{"full", arn, "", arn, "$LATEST"},
		{"full-qualified", arn + ":1", "", arn + ":1", "1"},
		{"name-qualified", "named:$LATEST", "", arn + ":$LATEST", "$LATEST"},
		{"qualifier", "named", "1", arn + ":1", "1"},
		{"both-agree", "named:1", "1", arn + ":1", "1"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			in := &lambda.GetFunctionInput{FunctionName: aws.String(tc.fn)}
			if tc.qualifier != "" {
				in.Qualifier = aws.String(tc.qualifier)
			}
			out, err := c.GetFunction(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if aws.ToString(out.Configuration.FunctionArn) != tc.wantARN || aws.ToString(out.Configuration.Version) != tc.wantVersion {
				t.Fatalf("got %s %s", aws.ToString(out.Configuration.FunctionArn), aws.ToString(out.Configuration.Version))
			}
		})
	}
	for _, tc := range []struct {
		name, fn, qualifier string
		code, msg           string
	}{
		{"mismatch", "named:1", "$LATEST", "InvalidParameterValueException", "The derived qualifier from the function name does not match the specified qualifier."},
		{"no-version", "named", "7", "ResourceNotFoundException", "Function not found: " + arn + ":7"},
		{"no-alias", "named", "live", "ResourceNotFoundException", "Function not found: " + arn + ":live"},
		{"bad-qualifier", "named", "invalid!", "ValidationException", `1 validation error detected: Value 'invalid!' at 'qualifier' failed to satisfy constraint: Member must satisfy regular expression pattern: \$(LATEST(\.PUBLISHED)?)|[a-zA-Z0-9-_$]+`},
		{"bad-name", "my-function!", "", "ValidationException", ""},
		{"other-region", "arn:aws:lambda:eu-west-1:" + account + ":function:named", "", "ResourceNotFoundException",
			"Functions from 'eu-west-1' are not reachable in this region ('us-east-1')"},
		{"nope", "nope", "", "ResourceNotFoundException", "Function not found: arn:aws:lambda:us-east-1:" + account + ":function:nope"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			in := &lambda.GetFunctionInput{FunctionName: aws.String(tc.fn)}
			if tc.qualifier != "" {
				in.Qualifier = aws.String(tc.qualifier)
			}
			_, err := c.GetFunction(ctx, in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
}

func TestVersionsAndAliases(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	created := create(t, c, "ver", nil)
	arn := aws.ToString(created.FunctionArn)
	v1, err := c.PublishVersion(ctx, &lambda.PublishVersionInput{FunctionName: aws.String("ver"), Description: aws.String("one")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(v1.Version) != "1" || aws.ToString(v1.FunctionArn) != arn+":1" || aws.ToString(v1.Description) != "one" {
		t.Fatalf("v1: %+v", v1)
	}
	// Nothing changed: the same version again.
	again, err := c.PublishVersion(ctx, &lambda.PublishVersionInput{FunctionName: aws.String("ver")})
	if err != nil || aws.ToString(again.Version) != "1" {
		t.Fatalf("republish: %v %+v", err, again)
	}
	_, err = c.PublishVersion(ctx, &lambda.PublishVersionInput{FunctionName: aws.String("ver"), CodeSha256: aws.String("nope")})
	servertest.WantAPIError(t, err, "InvalidParameterValueException", "CodeSHA256 (nope) is different from current CodeSHA256 in $LATEST ("+
		aws.ToString(created.CodeSha256)+"). Please try again with the CodeSHA256 in $LATEST.")
	if _, err := c.UpdateFunctionCode(ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String("ver"),
		ZipFile: pythonZip(t, "v2"), Publish: true}); err != nil {
		t.Fatal(err)
	}
	// Each version's Code.Location downloads that version's zip.
	for qualifier, want := range map[string][]byte{"1": pythonZip(t, "v1"), "2": pythonZip(t, "v2"), "$LATEST": pythonZip(t, "v2")} {
		got, err := c.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String("ver"), Qualifier: aws.String(qualifier)})
		if err != nil {
			t.Fatal(err)
		}
		if dl := download(t, aws.ToString(got.Code.Location)); dl.status != http.StatusOK || !bytes.Equal(dl.body, want) {
			t.Fatalf("version %s's code: %d, %d bytes", qualifier, dl.status, len(dl.body))
		}
	}
	vs, err := c.ListVersionsByFunction(ctx, &lambda.ListVersionsByFunctionInput{FunctionName: aws.String("ver")})
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, v := range vs.Versions {
		versions = append(versions, aws.ToString(v.Version)+"="+strings.TrimPrefix(aws.ToString(v.FunctionArn), arn))
	}
	if !slices.Equal(versions, []string{"$LATEST=:$LATEST", "1=:1", "2=:2"}) {
		t.Fatalf("versions %v", versions)
	}
	page, err := c.ListVersionsByFunction(ctx, &lambda.ListVersionsByFunctionInput{FunctionName: aws.String("ver"), MaxItems: aws.Int32(2)})
	if err != nil || len(page.Versions) != 2 || page.NextMarker == nil {
		t.Fatalf("page: %v %+v", err, page)
	}
	rest, err := c.ListVersionsByFunction(ctx, &lambda.ListVersionsByFunctionInput{FunctionName: aws.String("ver"), Marker: page.NextMarker})
	if err != nil || len(rest.Versions) != 1 || aws.ToString(rest.Versions[0].Version) != "2" || rest.NextMarker != nil {
		t.Fatalf("rest: %v %+v", err, rest)
	}

	a, err := c.CreateAlias(ctx, &lambda.CreateAliasInput{FunctionName: aws.String("ver"), Name: aws.String("live"),
		FunctionVersion: aws.String("1"), RoutingConfig: &types.AliasRoutingConfiguration{AdditionalVersionWeights: map[string]float64{"2": 0.25}}})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(a.AliasArn) != arn+":live" || aws.ToString(a.FunctionVersion) != "1" || a.RoutingConfig.AdditionalVersionWeights["2"] != 0.25 ||
		aws.ToString(a.RevisionId) == "" || a.Description == nil {
		t.Fatalf("alias: %+v", a)
	}
	_, err = c.CreateAlias(ctx, &lambda.CreateAliasInput{FunctionName: aws.String("ver"), Name: aws.String("live"), FunctionVersion: aws.String("1")})
	servertest.WantAPIError(t, err, "ResourceConflictException", "Alias already exists: "+arn+":live")
	_, err = c.CreateAlias(ctx, &lambda.CreateAliasInput{FunctionName: aws.String("ver"), Name: aws.String("x"), FunctionVersion: aws.String("10")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Function not found: "+arn+":10")
	_, err = c.CreateAlias(ctx, &lambda.CreateAliasInput{FunctionName: aws.String("ver"), Name: aws.String("2024"), FunctionVersion: aws.String("1")})
	servertest.WantAPIError(t, err, "ValidationException", "1 validation error detected: Value '2024' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: (?!^[0-9]+$)([a-zA-Z0-9-_]+)")
	_, err = c.CreateAlias(ctx, &lambda.CreateAliasInput{FunctionName: aws.String("ver"), Name: aws.String("y"), FunctionVersion: aws.String("1"),
		RoutingConfig: &types.AliasRoutingConfiguration{AdditionalVersionWeights: map[string]float64{"1": 0.5}}})
	servertest.WantAPIError(t, err, "InvalidParameterValueException", "Invalid function version 1. Function version 1 is already included in routing configuration.")

	up, err := c.UpdateAlias(ctx, &lambda.UpdateAliasInput{FunctionName: aws.String("ver"), Name: aws.String("live"),
		FunctionVersion: aws.String("2"), RoutingConfig: &types.AliasRoutingConfiguration{}, RevisionId: a.RevisionId})
	if err != nil || aws.ToString(up.FunctionVersion) != "2" || up.RoutingConfig != nil || aws.ToString(up.RevisionId) == aws.ToString(a.RevisionId) {
		t.Fatalf("update alias: %v %+v", err, up)
	}
	_, err = c.UpdateAlias(ctx, &lambda.UpdateAliasInput{FunctionName: aws.String("ver"), Name: aws.String("gone"), FunctionVersion: aws.String("2")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Alias not found: "+arn+":gone")
	got, err := c.GetAlias(ctx, &lambda.GetAliasInput{FunctionName: aws.String("ver"), Name: aws.String("live")})
	if err != nil || aws.ToString(got.FunctionVersion) != "2" {
		t.Fatalf("get alias: %v %+v", err, got)
	}
	_, err = c.GetAlias(ctx, &lambda.GetAliasInput{FunctionName: aws.String("ver"), Name: aws.String("gone")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Cannot find alias arn: "+arn+":gone")
	// GetFunction through the alias shows the alias ARN and the version.
	viaAlias, err := c.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(arn + ":live")})
	if err != nil || aws.ToString(viaAlias.Configuration.FunctionArn) != arn+":live" || aws.ToString(viaAlias.Configuration.Version) != "2" {
		t.Fatalf("get via alias: %v %+v", err, viaAlias)
	}
	if _, err := c.CreateAlias(ctx, &lambda.CreateAliasInput{FunctionName: aws.String("ver"), Name: aws.String("beta"), FunctionVersion: aws.String("$LATEST")}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListAliases(ctx, &lambda.ListAliasesInput{FunctionName: aws.String("ver")})
	if err != nil || len(list.Aliases) != 2 || aws.ToString(list.Aliases[0].Name) != "beta" || aws.ToString(list.Aliases[1].Name) != "live" {
		t.Fatalf("list aliases: %v %+v", err, list)
	}
	onlyV2, err := c.ListAliases(ctx, &lambda.ListAliasesInput{FunctionName: aws.String("ver"), FunctionVersion: aws.String("2"), MaxItems: aws.Int32(1)})
	if err != nil || len(onlyV2.Aliases) != 1 || aws.ToString(onlyV2.Aliases[0].Name) != "live" || onlyV2.NextMarker != nil {
		t.Fatalf("aliases of 2: %v %+v", err, onlyV2)
	}
	// A version an alias points at cannot be deleted; another can.
	_, err = c.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String("ver"), Qualifier: aws.String("2")})
	servertest.WantAPIError(t, err, "ResourceConflictException", "Unable to delete version because the following aliases reference it: [live]")
	if _, err := c.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String("ver"), Qualifier: aws.String("1")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteFunction(ctx, &lambda.DeleteFunctionInput{FunctionName: aws.String("ver"), Qualifier: aws.String("live")})
	servertest.WantAPIError(t, err, "InvalidParameterValueException", "Deletion of aliases is not currently supported.")
	// Deleting an alias that does not exist is not an error.
	for _, name := range []string{"live", "live"} {
		if _, err := c.DeleteAlias(ctx, &lambda.DeleteAliasInput{FunctionName: aws.String("ver"), Name: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.PublishVersion(ctx, &lambda.PublishVersionInput{FunctionName: aws.String("ver"), RevisionId: aws.String("stale")})
	servertest.WantAPIError(t, err, "PreconditionFailedException", "")
}

func TestPermissions(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	create(t, c, "perm", func(in *lambda.CreateFunctionInput) { in.Publish = true })
	arn := "arn:aws:lambda:us-east-1:" + account + ":function:perm"
	out, err := c.AddPermission(ctx, &lambda.AddPermissionInput{FunctionName: aws.String("perm"), StatementId: aws.String("apigw"),
		Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("apigateway.amazonaws.com"),
		SourceArn: aws.String("arn:aws:execute-api:us-east-1:" + account + ":abc123/*/GET/pets")})
	if err != nil {
		t.Fatal(err)
	}
	wantStatement := `{"Sid":"apigw","Effect":"Allow","Principal":{"Service":"apigateway.amazonaws.com"},"Action":"lambda:InvokeFunction",` +
		`"Resource":"` + arn + `","Condition":{"ArnLike":{"AWS:SourceArn":"arn:aws:execute-api:us-east-1:` + account + `:abc123/*/GET/pets"}}}`
	if aws.ToString(out.Statement) != wantStatement {
		t.Fatalf("statement %s", aws.ToString(out.Statement))
	}
	if _, err := c.AddPermission(ctx, &lambda.AddPermissionInput{FunctionName: aws.String("perm"), StatementId: aws.String("acct"),
		Action: aws.String("lambda:*"), Principal: aws.String("123456789012"), SourceAccount: aws.String("123456789012")}); err != nil {
		t.Fatal(err)
	}
	before, err := c.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String("perm")})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := c.GetPolicy(ctx, &lambda.GetPolicyInput{FunctionName: aws.String("perm")})
	if err != nil {
		t.Fatal(err)
	}
	wantPolicy := `{"Version":"2012-10-17","Id":"default","Statement":[` + wantStatement +
		`,{"Sid":"acct","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"lambda:*","Resource":"` + arn +
		`","Condition":{"StringEquals":{"AWS:SourceAccount":"123456789012"}}}]}`
	if aws.ToString(pol.Policy) != wantPolicy || aws.ToString(pol.RevisionId) != aws.ToString(before.Configuration.RevisionId) {
		t.Fatalf("policy %s rev %s (function %s)", aws.ToString(pol.Policy), aws.ToString(pol.RevisionId), aws.ToString(before.Configuration.RevisionId))
	}
	for _, tc := range []struct {
		name string
		in   lambda.AddPermissionInput
		code string
		msg  string
	}{
		{"conflict", lambda.AddPermissionInput{StatementId: aws.String("apigw"), Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("*")},
			"ResourceConflictException", "The statement id (apigw) provided already exists. Please provide a new statement id, or remove the existing statement."},
		{"latest", lambda.AddPermissionInput{StatementId: aws.String("x"), Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("*"), Qualifier: aws.String("$LATEST")},
			"InvalidParameterValueException", "We currently do not support adding policies for $LATEST."},
		{"principal", lambda.AddPermissionInput{StatementId: aws.String("x"), Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("nobody")},
			"InvalidParameterValueException", "The provided principal was invalid. Please check the principal and try again."},
		{"sid", lambda.AddPermissionInput{StatementId: aws.String("example.com"), Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("*")},
			"ValidationException", "1 validation error detected: Value 'example.com' at 'statementId' failed to satisfy constraint: Member must satisfy regular expression pattern: ([a-zA-Z0-9-_]+)"},
		{"no-alias", lambda.AddPermissionInput{StatementId: aws.String("x"), Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("*"), Qualifier: aws.String("alias-doesnotexist")},
			"ResourceNotFoundException", "Cannot find alias arn: " + arn + ":alias-doesnotexist"},
		{"no-version", lambda.AddPermissionInput{StatementId: aws.String("x"), Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("*"), Qualifier: aws.String("42")},
			"ResourceNotFoundException", "Function not found: " + arn + ":42"},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			in := tc.in
			in.FunctionName = aws.String("perm")
			_, err := c.AddPermission(ctx, &in)
			servertest.WantAPIError(t, err, tc.code, tc.msg)
		})
	}
	_, err = c.AddPermission(ctx, &lambda.AddPermissionInput{FunctionName: aws.String("doesnotexist"), StatementId: aws.String("x"),
		Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("*")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Function not found: arn:aws:lambda:us-east-1:"+account+":function:doesnotexist")

	// A version's policy is its own.
	if _, err := c.AddPermission(ctx, &lambda.AddPermissionInput{FunctionName: aws.String("perm"), Qualifier: aws.String("1"),
		StatementId: aws.String("v1"), Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("s3.amazonaws.com")}); err != nil {
		t.Fatal(err)
	}
	vpol, err := c.GetPolicy(ctx, &lambda.GetPolicyInput{FunctionName: aws.String("perm"), Qualifier: aws.String("1")})
	if err != nil || !strings.Contains(aws.ToString(vpol.Policy), `"Resource":"`+arn+`:1"`) || strings.Contains(aws.ToString(vpol.Policy), "apigw") {
		t.Fatalf("version policy: %v %s", err, aws.ToString(vpol.Policy))
	}

	_, err = c.RemovePermission(ctx, &lambda.RemovePermissionInput{FunctionName: aws.String("perm"), StatementId: aws.String("nope")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Statement nope is not found in resource policy.")
	for _, sid := range []string{"apigw", "acct"} {
		if _, err := c.RemovePermission(ctx, &lambda.RemovePermissionInput{FunctionName: aws.String("perm"), StatementId: aws.String(sid)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.GetPolicy(ctx, &lambda.GetPolicyInput{FunctionName: aws.String("perm")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "The resource you requested does not exist.")
	_, err = c.RemovePermission(ctx, &lambda.RemovePermissionInput{FunctionName: aws.String("perm"), StatementId: aws.String("apigw")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "No policy is associated with the given resource.")
	_, err = c.RemovePermission(ctx, &lambda.RemovePermissionInput{FunctionName: aws.String("doesnotexist"), StatementId: aws.String("apigw")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "No policy found for: arn:aws:lambda:us-east-1:"+account+":function:doesnotexist")
	_, err = c.GetPolicy(ctx, &lambda.GetPolicyInput{FunctionName: aws.String("doesnotexist")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "The resource you requested does not exist.")
}

func TestTags(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	out := create(t, c, "tagged", func(in *lambda.CreateFunctionInput) { in.Tags = map[string]string{"A": "a"} })
	arn := aws.ToString(out.FunctionArn)
	if _, err := c.TagResource(ctx, &lambda.TagResourceInput{Resource: aws.String(arn), Tags: map[string]string{"B": "b", "C": "c"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UntagResource(ctx, &lambda.UntagResourceInput{Resource: aws.String(arn), TagKeys: []string{"A", "nope"}}); err != nil {
		t.Fatal(err)
	}
	tags, err := c.ListTags(ctx, &lambda.ListTagsInput{Resource: aws.String(arn)})
	if err != nil || len(tags.Tags) != 2 || tags.Tags["B"] != "b" || tags.Tags["C"] != "c" {
		t.Fatalf("tags: %v %v", err, tags)
	}
	_, err = c.TagResource(ctx, &lambda.TagResourceInput{Resource: aws.String(arn + ":1"), Tags: map[string]string{"x": "y"}})
	servertest.WantAPIError(t, err, "InvalidParameterValueException", "Tags on function aliases and versions are not supported. Please specify a function ARN.")
	gone := "arn:aws:lambda:us-east-1:" + account + ":function:gone"
	_, err = c.ListTags(ctx, &lambda.ListTagsInput{Resource: aws.String(gone)})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Function not found: "+gone)
	_, err = c.ListTags(ctx, &lambda.ListTagsInput{Resource: aws.String("arn:aws:lambda:us-east-1:" + account + ":foobar:x")})
	servertest.WantAPIError(t, err, "ValidationException", "")
	many := map[string]string{}
	for i := range 49 {
		many[fmt.Sprintf("k%d", i)] = "v"
	}
	_, err = c.TagResource(ctx, &lambda.TagResourceInput{Resource: aws.String(arn), Tags: many})
	servertest.WantAPIError(t, err, "InvalidParameterValueException", "Number of tags exceeds resource tag limit.")
}

// TestTerraformReads covers what Terraform's aws_lambda_function reads on
// create and refresh, besides GetFunction and ListVersionsByFunction.
func TestTerraformReads(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	create(t, c, "tf", nil)
	csc, err := c.GetFunctionCodeSigningConfig(ctx, &lambda.GetFunctionCodeSigningConfigInput{FunctionName: aws.String("tf")})
	if err != nil || csc.CodeSigningConfigArn != nil {
		t.Fatalf("code signing: %v %+v", err, csc)
	}
	_, err = c.GetFunctionCodeSigningConfig(ctx, &lambda.GetFunctionCodeSigningConfigInput{FunctionName: aws.String("nope")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Function not found: arn:aws:lambda:us-east-1:"+account+":function:nope")
	rm, err := c.GetRuntimeManagementConfig(ctx, &lambda.GetRuntimeManagementConfigInput{FunctionName: aws.String("tf")})
	if err != nil || rm.UpdateRuntimeOn != types.UpdateRuntimeOnAuto || aws.ToString(rm.FunctionArn) != "arn:aws:lambda:us-east-1:"+account+":function:tf:$LATEST" {
		t.Fatalf("runtime management: %v %+v", err, rm)
	}
	conc, err := c.GetFunctionConcurrency(ctx, &lambda.GetFunctionConcurrencyInput{FunctionName: aws.String("tf")})
	if err != nil || conc.ReservedConcurrentExecutions != nil {
		t.Fatalf("concurrency: %v %+v", err, conc)
	}
	put, err := c.PutFunctionConcurrency(ctx, &lambda.PutFunctionConcurrencyInput{FunctionName: aws.String("tf"), ReservedConcurrentExecutions: aws.Int32(5)})
	if err != nil || aws.ToInt32(put.ReservedConcurrentExecutions) != 5 {
		t.Fatalf("put concurrency: %v %+v", err, put)
	}
	got, err := c.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String("tf")})
	if err != nil || got.Concurrency == nil || aws.ToInt32(got.Concurrency.ReservedConcurrentExecutions) != 5 {
		t.Fatalf("get function concurrency: %v %+v", err, got)
	}
	_, err = c.PutFunctionConcurrency(ctx, &lambda.PutFunctionConcurrencyInput{FunctionName: aws.String("tf"), ReservedConcurrentExecutions: aws.Int32(950)})
	servertest.WantAPIError(t, err, "InvalidParameterValueException",
		"Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [100].")
	settings, err := c.GetAccountSettings(ctx, &lambda.GetAccountSettingsInput{})
	if err != nil || settings.AccountUsage.FunctionCount != 1 || aws.ToInt32(settings.AccountLimit.UnreservedConcurrentExecutions) != 995 ||
		settings.AccountLimit.ConcurrentExecutions != 1000 || settings.AccountUsage.TotalCodeSize == 0 {
		t.Fatalf("account settings: %v %+v %+v", err, settings.AccountLimit, settings.AccountUsage)
	}
	if _, err := c.DeleteFunctionConcurrency(ctx, &lambda.DeleteFunctionConcurrencyInput{FunctionName: aws.String("tf")}); err != nil {
		t.Fatal(err)
	}
	conc, err = c.GetFunctionConcurrency(ctx, &lambda.GetFunctionConcurrencyInput{FunctionName: aws.String("tf")})
	if err != nil || conc.ReservedConcurrentExecutions != nil {
		t.Fatalf("concurrency after delete: %v %+v", err, conc)
	}
	rc, err := c.GetFunctionRecursionConfig(ctx, &lambda.GetFunctionRecursionConfigInput{FunctionName: aws.String("tf")})
	if err != nil || rc.RecursiveLoop != types.RecursiveLoopTerminate {
		t.Fatalf("recursion: %v %+v", err, rc)
	}
	// An operation of the model this emulator does not serve.
	_, err = c.ListLayers(ctx, &lambda.ListLayersInput{})
	servertest.WantAPIError(t, err, "NotImplementedException", "The operation ListLayers of service lambda is not implemented by this emulator.")
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		servertest.MissingTool(t, "python3")
	}
}

type echo struct {
	Event    map[string]any `json:"event"`
	Version  string         `json:"version"`
	Greeting *string        `json:"greeting"`
	Tag      string         `json:"tag"`
}

func TestInvokePython(t *testing.T) {
	needPython(t)
	_, c := start(t)
	ctx := context.Background()
	create(t, c, "py", func(in *lambda.CreateFunctionInput) {
		in.Environment = &types.Environment{Variables: map[string]string{"GREETING": "hello"}}
		in.Publish = true
	})
	out, err := c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("py"), Payload: []byte(`{"a":1}`), LogType: types.LogTypeTail})
	if err != nil {
		t.Fatal(err)
	}
	var e echo
	if err := json.Unmarshal(out.Payload, &e); err != nil {
		t.Fatalf("payload %s: %v", out.Payload, err)
	}
	if out.StatusCode != 200 || aws.ToString(out.ExecutedVersion) != "$LATEST" || out.FunctionError != nil ||
		e.Event["a"] != float64(1) || aws.ToString(e.Greeting) != "hello" || e.Version != "$LATEST" || e.Tag != "v1" {
		t.Fatalf("invoke: %+v %s", out, out.Payload)
	}
	logs, err := base64.StdEncoding.DecodeString(aws.ToString(out.LogResult))
	if err != nil || !strings.Contains(string(logs), "START RequestId:") || !strings.Contains(string(logs), "hello from py") {
		t.Fatalf("log result %q: %v", logs, err)
	}

	// $LATEST moves on; version 1 keeps its code and configuration.
	if _, err := c.UpdateFunctionCode(ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String("py"), ZipFile: pythonZip(t, "v2")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateFunctionConfiguration(ctx, &lambda.UpdateFunctionConfigurationInput{FunctionName: aws.String("py"),
		Environment: &types.Environment{Variables: map[string]string{"GREETING": "bonjour"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateAlias(ctx, &lambda.CreateAliasInput{FunctionName: aws.String("py"), Name: aws.String("stable"), FunctionVersion: aws.String("1")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, fn, qualifier  string
		version, tag, greets string
	}{
		{"latest", "py", "", "$LATEST", "v2", "bonjour"},
		{"version", "py", "1", "1", "v1", "hello"},
		{"alias-arn", "arn:aws:lambda:us-east-1:" + account + ":function:py:stable", "", "1", "v1", "hello"},
		{"alias-qualifier", "py", "stable", "1", "v1", "hello"},
	} {
		t.Run("qualifier="+tc.name, func(t *testing.T) {
			in := &lambda.InvokeInput{FunctionName: aws.String(tc.fn), Payload: []byte(`{}`)}
			if tc.qualifier != "" {
				in.Qualifier = aws.String(tc.qualifier)
			}
			out, err := c.Invoke(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			var e echo
			if err := json.Unmarshal(out.Payload, &e); err != nil || aws.ToString(out.ExecutedVersion) != tc.version ||
				e.Tag != tc.tag || aws.ToString(e.Greeting) != tc.greets || e.Version != tc.version {
				t.Fatalf("%v %s %s", err, aws.ToString(out.ExecutedVersion), out.Payload)
			}
		})
	}

	fail, err := c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("py"), Payload: []byte(`{"fail":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var fe struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}
	if aws.ToString(fail.FunctionError) != "Unhandled" || json.Unmarshal(fail.Payload, &fe) != nil ||
		fe.ErrorMessage != "boom: x" || fe.ErrorType != "ValueError" {
		t.Fatalf("function error: %+v %s", fail, fail.Payload)
	}

	dry, err := c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("py"), InvocationType: types.InvocationTypeDryRun})
	if err != nil || dry.StatusCode != 204 {
		t.Fatalf("dry run: %v %+v", err, dry)
	}

	marker := filepath.Join(t.TempDir(), "touched")
	ev, err := c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("py"), Qualifier: aws.String("1"),
		InvocationType: types.InvocationTypeEvent, Payload: []byte(`{"touch":"` + marker + `"}`)})
	if err != nil || ev.StatusCode != 202 || len(ev.Payload) != 0 {
		t.Fatalf("event: %v %+v", err, ev)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(marker)
		if err == nil && string(b) == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the event invocation did not run: %v %q", err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}

	_, err = c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("nope")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Function not found: arn:aws:lambda:us-east-1:"+account+":function:nope:$LATEST")
	_, err = c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("py"), Qualifier: aws.String("9")})
	servertest.WantAPIError(t, err, "ResourceNotFoundException", "Function not found: arn:aws:lambda:us-east-1:"+account+":function:py:9")
	_, err = c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("py"), Qualifier: aws.String("bad!")})
	servertest.WantAPIError(t, err, "ValidationException", "")
	_, err = c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("py"), Payload: []byte(`not json`)})
	servertest.WantAPIError(t, err, "InvalidRequestContentException", "")
	big := append(append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), 6<<20)...), `"}`...)
	_, err = c.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("py"), Payload: big})
	servertest.WantAPIError(t, err, "RequestTooLargeException", "Request must be smaller than 6291456 bytes for the InvokeFunction operation")
	var rtl *types.RequestTooLargeException
	var ae smithy.APIError
	if !errors.As(err, &rtl) || !errors.As(err, &ae) {
		t.Fatalf("want a typed RequestTooLargeException: %#v", err)
	}
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) && re.HTTPStatusCode() != 413 {
		t.Fatalf("status %d", re.HTTPStatusCode())
	}
}

// TestPersistence restarts a persistent emulator: functions, versions,
// aliases, policies, tags and the code come back, and the function runs.
func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	srv, c := start(t, servertest.WithPersistence(dir))
	ctx := context.Background()
	created := create(t, c, "kept", func(in *lambda.CreateFunctionInput) {
		in.Publish = true
		in.Tags = map[string]string{"k": "v"}
		in.Environment = &types.Environment{Variables: map[string]string{"GREETING": "persisted"}}
	})
	// A second function on the same zip: the code is stored once.
	create(t, c, "twin", nil)
	if _, err := c.CreateAlias(ctx, &lambda.CreateAliasInput{FunctionName: aws.String("kept"), Name: aws.String("live"), FunctionVersion: aws.String("1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddPermission(ctx, &lambda.AddPermissionInput{FunctionName: aws.String("kept"), StatementId: aws.String("s"),
		Action: aws.String("lambda:InvokeFunction"), Principal: aws.String("apigateway.amazonaws.com")}); err != nil {
		t.Fatal(err)
	}
	// An update leaves the old code to version 1 and the twin.
	if _, err := c.UpdateFunctionCode(ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String("kept"), ZipFile: pythonZip(t, "v2")}); err != nil {
		t.Fatal(err)
	}
	before, err := c.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String("kept")})
	if err != nil {
		t.Fatal(err)
	}
	shut, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(shut); err != nil {
		t.Fatal(err)
	}

	_, c2 := start(t, servertest.WithPersistence(dir))
	after, err := c2.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String("kept")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(after.Configuration.RevisionId) != aws.ToString(before.Configuration.RevisionId) ||
		aws.ToString(after.Configuration.CodeSha256) != aws.ToString(before.Configuration.CodeSha256) ||
		aws.ToString(after.Configuration.LastModified) != aws.ToString(before.Configuration.LastModified) ||
		after.Tags["k"] != "v" || after.Configuration.Environment.Variables["GREETING"] != "persisted" {
		t.Fatalf("restored %+v, was %+v", after.Configuration, before.Configuration)
	}
	a, err := c2.GetAlias(ctx, &lambda.GetAliasInput{FunctionName: aws.String("kept"), Name: aws.String("live")})
	if err != nil || aws.ToString(a.FunctionVersion) != "1" {
		t.Fatalf("alias: %v %+v", err, a)
	}
	v1, err := c2.GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String("kept"), Qualifier: aws.String("1")})
	if err != nil || aws.ToString(v1.Configuration.CodeSha256) != aws.ToString(created.CodeSha256) {
		t.Fatalf("version 1: %v %+v", err, v1)
	}
	if _, err := c2.GetPolicy(ctx, &lambda.GetPolicyInput{FunctionName: aws.String("kept")}); err != nil {
		t.Fatal(err)
	}
	// New versions continue the numbering.
	v2, err := c2.PublishVersion(ctx, &lambda.PublishVersionInput{FunctionName: aws.String("kept")})
	if err != nil || aws.ToString(v2.Version) != "2" {
		t.Fatalf("publish after restart: %v %+v", err, v2)
	}
	if _, err := exec.LookPath("python3"); err == nil {
		out, err := c2.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("kept"), Qualifier: aws.String("live")})
		if err != nil {
			t.Fatal(err)
		}
		var e echo
		if err := json.Unmarshal(out.Payload, &e); err != nil || e.Tag != "v1" || aws.ToString(e.Greeting) != "persisted" {
			t.Fatalf("invoke after restart: %v %s", err, out.Payload)
		}
	}
}

// TestBadInputNever500 sends malformed requests to every served route.
func TestBadInputNever500(t *testing.T) {
	srv, c := start(t)
	create(t, c, "fn", nil)
	bodies := []string{"", "{", "[]", "null", `{"FunctionName":5}`, `{"Code":{"ZipFile":"!!"}}`, `{"Tags":[1]}`,
		`{"Environment":{"Variables":{"":"x"}}}`, `{"RoutingConfig":{"AdditionalVersionWeights":{"x":"y"}}}`,
		`{"Timeout":1e99}`, `{"MemorySize":-1,"Architectures":[]}`, "\xff\xfe"}
	paths := []struct{ method, path string }{
		{"POST", "/2015-03-31/functions"},
		{"GET", "/2015-03-31/functions/fn"},
		{"GET", "/2015-03-31/functions/fn%00x"},
		{"GET", "/2015-03-31/functions/fn?Qualifier=%24LATEST.PUBLISHED"},
		{"GET", "/2015-03-31/functions/fn/configuration?Qualifier=a:b"},
		{"GET", "/2015-03-31/functions?MaxItems=abc"},
		{"GET", "/2015-03-31/functions?MaxItems=0&FunctionVersion=ALL"},
		{"PUT", "/2015-03-31/functions/fn/configuration"},
		{"PUT", "/2015-03-31/functions/fn/code"},
		{"POST", "/2015-03-31/functions/fn/invocations"},
		{"POST", "/2015-03-31/functions/fn/versions"},
		{"GET", "/2015-03-31/functions/fn/versions?Marker=zz"},
		{"POST", "/2015-03-31/functions/fn/aliases"},
		{"PUT", "/2015-03-31/functions/fn/aliases/a"},
		{"GET", "/2015-03-31/functions/fn/aliases?Marker=%00"},
		{"POST", "/2015-03-31/functions/fn/policy"},
		{"DELETE", "/2015-03-31/functions/fn/policy/" + strings.Repeat("x", 200)},
		{"POST", "/2017-03-31/tags/arn:aws:lambda:us-east-1:000000000000:function:fn"},
		{"DELETE", "/2017-03-31/tags/nope"},
		{"PUT", "/2017-10-31/functions/fn/concurrency"},
		{"DELETE", "/2015-03-31/functions/fn?Qualifier=%24LATEST"},
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for _, p := range paths {
		for _, b := range bodies {
			req, err := http.NewRequest(p.method, srv.URL+p.path, strings.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/lambda/aws4_request, SignedHeaders=host, Signature=0")
			req.Header.Set("X-Amz-Invocation-Type", "DryRun")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s %s %q: %v", p.method, p.path, b, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				t.Errorf("%s %s %q: %d %s", p.method, p.path, b, resp.StatusCode, body)
			}
		}
	}
}

type downloaded struct {
	status      int
	contentType string
	body        []byte
}

// download GETs a Code.Location.
func download(t *testing.T, location string) downloaded {
	t.Helper()
	if !strings.HasPrefix(location, "http://") {
		t.Fatalf("Code.Location %q is not a URL", location)
	}
	resp, err := http.Get(location)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return downloaded{resp.StatusCode, resp.Header.Get("Content-Type"), body}
}
