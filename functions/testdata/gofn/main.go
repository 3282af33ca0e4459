// Command gofn is the tests' Go function, built as a provided.al2023
// bootstrap with AWS's own runtime client (aws-lambda-go). The event's
// "action" picks what it does; without one it echoes the event.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

type event struct {
	Action string `json:"action"`
	Ms     int    `json:"ms"`
	Lines  int    `json:"lines"`
	Size   int    `json:"size"`
	Code   int    `json:"code"`
}

func handle(ctx context.Context, raw json.RawMessage) (any, error) {
	var ev event
	_ = json.Unmarshal(raw, &ev)
	switch ev.Action {
	case "", "echo":
		return raw, nil
	case "error":
		return nil, errors.New("something went wrong")
	case "panic":
		panic("the function panicked")
	case "sleep":
		time.Sleep(time.Duration(ev.Ms) * time.Millisecond)
		return map[string]any{"slept": ev.Ms, "pid": os.Getpid()}, nil
	case "pid":
		pgid, _ := syscall.Getpgid(0)
		return map[string]int{"pid": os.Getpid(), "pgid": pgid}, nil
	case "spawn":
		// A child that would outlive us unless its group is killed.
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		pgid, _ := syscall.Getpgid(0)
		return map[string]int{"pid": os.Getpid(), "pgid": pgid, "child": cmd.Process.Pid}, nil
	case "spawn-sleep":
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		fmt.Printf("child %d\n", cmd.Process.Pid)
		time.Sleep(time.Duration(ev.Ms) * time.Millisecond)
		return nil, nil
	case "exit":
		fmt.Println("about to exit")
		os.Exit(ev.Code)
	case "log":
		for i := 0; i < ev.Lines; i++ {
			fmt.Printf("stdout line %d\n", i)
			fmt.Fprintf(os.Stderr, "stderr line %d\n", i)
		}
		return "logged", nil
	case "spew":
		// Writes without pause, long after it answered.
		go func() {
			for i := 0; ; i++ {
				fmt.Printf("spew %d %s\n", i, strings.Repeat("y", 200))
			}
		}()
		return "spewing", nil
	case "big":
		return strings.Repeat("x", ev.Size), nil
	case "env":
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		wd, _ := os.Getwd()
		env["cwd"] = wd
		return env, nil
	case "context":
		lc, _ := lambdacontext.FromContext(ctx)
		deadline, _ := ctx.Deadline()
		return map[string]any{
			"requestId":    lc.AwsRequestID,
			"arn":          lc.InvokedFunctionArn,
			"functionName": lambdacontext.FunctionName,
			"version":      lambdacontext.FunctionVersion,
			"memory":       lambdacontext.MemoryLimitInMB,
			"logGroup":     lambdacontext.LogGroupName,
			"remainingMs":  time.Until(deadline).Milliseconds(),
			"traceId":      ctx.Value("x-amzn-trace-id"),
			"clientCtx":    lc.ClientContext.Custom,
			"identity":     lc.Identity.CognitoIdentityID,
		}, nil
	}
	return nil, fmt.Errorf("unknown action %q", ev.Action)
}

func main() {
	lambda.Start(handle)
}
