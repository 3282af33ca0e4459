// Command rawfn is a misbehaving runtime for the tests: it speaks the
// Runtime API by hand, wrongly in the way RAW_MODE says.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

var api = "http://" + os.Getenv("AWS_LAMBDA_RUNTIME_API") + "/2018-06-01/runtime"

func call(method, path string, body []byte) (int, string) {
	req, _ := http.NewRequest(method, api+path, bytes.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.TrimSpace(string(b))
}

func next() string {
	res, err := http.Get(api + "/invocation/next")
	if err != nil {
		fmt.Println("next:", err)
		os.Exit(1)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.Header.Get("Lambda-Runtime-Aws-Request-Id")
}

// raw sends bytes on a connection of their own and returns the status line.
func raw(b string) string {
	c, err := net.Dial("tcp", os.Getenv("AWS_LAMBDA_RUNTIME_API"))
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte(b))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

type status struct {
	Code int    `json:"code"`
	Body string `json:"body"`
}

func main() {
	switch os.Getenv("RAW_MODE") {
	case "garbage":
		// Every wrong call first, then the right answer reporting them.
		var lastDouble status
		for {
			id := next()
			report := map[string]any{"previousDouble": lastDouble}
			c, b := call("POST", "/invocation/not-the-id/response", []byte(`{}`))
			report["wrongId"] = status{c, b}
			c, b = call("POST", "/init/error", []byte(`{}`))
			report["lateInitError"] = status{c, b}
			c, b = call("GET", "/nonsense", nil)
			report["badPath"] = status{c, b}
			c, b = call("DELETE", "/invocation/next", nil)
			report["badMethod"] = status{c, b}
			report["garbageBytes"] = raw("THIS IS NOT HTTP\r\n\r\n")
			body, _ := json.Marshal(report)
			if c, b := call("POST", "/invocation/"+id+"/response", body); c != 202 {
				fmt.Println("answer refused:", c, b)
			}
			c, b = call("POST", "/invocation/"+id+"/response", []byte(`"again"`))
			lastDouble = status{c, b}
		}
	case "oversize-error":
		id := next()
		c, b := call("POST", "/invocation/"+id+"/error", bytes.Repeat([]byte("e"), 7<<20))
		fmt.Println("oversize error answered", c, b)
		next()
	case "truncated":
		id := next()
		c, _ := net.Dial("tcp", os.Getenv("AWS_LAMBDA_RUNTIME_API"))
		fmt.Fprintf(c, "POST /2018-06-01/runtime/invocation/%s/response HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"cut", id)
		c.Close()
		next()
	case "garbage-exit":
		next()
		fmt.Println(raw("\x00\x01\x02 garbage\r\n\r\n"))
		os.Exit(3)
	case "never":
		next()
		time.Sleep(time.Hour)
	case "next-twice":
		next()
		next()
	case "no-next":
		time.Sleep(time.Hour)
	case "init-error":
		fmt.Println("failing init")
		c, b := call("POST", "/init/error", []byte(`{"errorMessage":"no database","errorType":"Custom.InitFailure"}`))
		fmt.Println("init error answered", c, b)
		c, b = call("GET", "/invocation/next", nil)
		fmt.Println("next after init error answered", c, b)
		os.Exit(1)
	case "init-exit":
		fmt.Println("exiting during init")
		os.Exit(7)
	default:
		fmt.Println("unknown RAW_MODE")
		os.Exit(2)
	}
}
