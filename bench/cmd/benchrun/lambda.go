package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
)

// lambdaPool is ExecuteLambdaProxy's warm pool: the emulator runs at most
// this many instances of the function (EMULATOR_LAMBDA_MAX_CONCURRENCY).
// An invocation that finds them all busy is refused at once with Lambda's
// TooManyRequestsException, which API Gateway answers 500: with more
// connections than this, the surplus requests are errors, not queued.
const lambdaPool = 4

// noopFunction is the function ExecuteLambdaProxy invokes: AWS's own Go
// runtime client (aws-lambda-go), the event left undecoded, a fixed Lambda
// proxy answer.
const noopFunction = `package main

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambda"
)

type answer struct {
	StatusCode int    ` + "`json:\"statusCode\"`" + `
	Body       string ` + "`json:\"body\"`" + `
}

func main() {
	lambda.Start(func(context.Context, json.RawMessage) (answer, error) {
		return answer{StatusCode: 200, Body: ` + "`{\"ok\":true}`" + `}, nil
	})
}
`

// executeLambdaProxy is a GET to a deployed AWS_PROXY method whose
// function is noopFunction, a provided.al2023 bootstrap run by an emulator
// with a warm pool of lambdaPool instances, measured against ExecuteMock:
// the gateway's pipeline plus the proxy event, Lambda's Invoke, the
// hand-over to the function process through the Runtime API and back, and
// the parse of the proxy answer.
//
// Two things to read the table with. Its req/s counts every response: with
// more connections than lambdaPool most are 500s (the errors column), and
// the successful rate is requests minus non2xx in the run lines, over the
// window. And its server CPU is the emulator's alone: the function
// processes, its children, are not in it.
func executeLambdaProxy() scenario {
	var path string
	return scenario{
		Name:     "ExecuteLambdaProxy",
		Emulator: true,
		Baseline: "ExecuteMock",
		Env:      []string{"EMULATOR_LAMBDA_MAX_CONCURRENCY=" + strconv.Itoa(lambdaPool)},
		Setup: func(ctx context.Context, addr string) error {
			code, err := noopFunctionZip(ctx)
			if err != nil {
				return err
			}
			arn, err := createFunction(addr, "bench-noop", code)
			if err != nil {
				return err
			}
			id, err := deployREST(addr, "bench-lambda", "/pets/{proxy}", "GET",
				`{"type":"AWS_PROXY","httpMethod":"POST","uri":"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/`+
					arn+`/invocations"}`, "")
			if err != nil {
				return err
			}
			path = "/restapis/" + id + "/dev/_user_request_/pets/42"
			return warmPool(addr, path, lambdaPool)
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
		},
	}
}

// createFunction creates a provided.al2023 function from a zip through
// Lambda's CreateFunction and returns its ARN.
func createFunction(addr, name string, code []byte) (string, error) {
	body, err := json.Marshal(map[string]any{
		"FunctionName": name,
		"Runtime":      "provided.al2023",
		"Handler":      "bootstrap",
		"Role":         "arn:aws:iam::000000000000:role/r",
		"Code":         map[string]string{"ZipFile": base64.StdEncoding.EncodeToString(code)},
	})
	if err != nil {
		return "", err
	}
	var fn struct {
		FunctionArn string
	}
	if err := call(addr, "POST", "/2015-03-31/functions", string(body), 201, &fn); err != nil {
		return "", err
	}
	if fn.FunctionArn == "" {
		return "", errors.New("CreateFunction answered no FunctionArn")
	}
	return fn.FunctionArn, nil
}

// warmPool sends n requests to path at once, twice, so that the measured
// runs do not pay cold starts: in the first round no instance is idle, so
// requests that overlap start one each (a cold start takes milliseconds,
// so they mostly do). Whatever it leaves cold, the run's warm-up starts.
func warmPool(addr, path string, n int) error {
	for range 2 {
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { errs[i] = call(addr, "GET", path, "", 200, nil) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("warming %d instances: %w", n, err)
		}
	}
	return nil
}

// noopFunctionZip builds noopFunction for Linux as a static executable (in
// this repository's module, for its aws-lambda-go) and zips it as an
// executable bootstrap.
func noopFunctionZip(ctx context.Context) ([]byte, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "benchrun-lambda-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, bin := filepath.Join(dir, "main.go"), filepath.Join(dir, "bootstrap")
	if err := os.WriteFile(src, []byte(noopFunction), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, src)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the function: go build: %v\n%s", err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	return zipBootstrap(exe)
}

// zipBootstrap is a zip holding exe as an executable file named bootstrap.
func zipBootstrap(exe []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "bootstrap", Method: zip.Deflate}
	h.SetMode(0o755)
	w, err := zw.CreateHeader(h)
	if err == nil {
		_, err = w.Write(exe)
	}
	if err == nil {
		err = zw.Close()
	}
	return buf.Bytes(), err
}

// emulatorModule is the module whose go.mod requires aws-lambda-go.
const emulatorModule = "github.com/cloudemu/emulator"

// moduleRoot finds this repository's root: from the working directory up,
// else from this source file's directory up (a binary built without
// -trimpath knows it).
func moduleRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			if isEmulatorModule(filepath.Join(dir, "go.mod")) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("building the function needs the %s source tree: run benchrun from inside it", emulatorModule)
}

// isEmulatorModule reports whether the go.mod at path declares
// emulatorModule.
func isEmulatorModule(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(mod), `"`) == emulatorModule
		}
	}
	return false
}
