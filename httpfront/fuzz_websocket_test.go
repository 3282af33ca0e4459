package httpfront_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server/servertest"
)

// wsFuzzBound is how long a connection may stay open once the client has
// sent its bytes and closed its side: the emulator must have read them,
// answered and closed (its longest wait is the 2 s it gives a client to
// answer a close).
const wsFuzzBound = 10 * time.Second

// FuzzWebSocketFrames connects to a deployed WebSocket API of a whole
// emulator over TCP, sends arbitrary bytes as the client's frames (masked
// or not, fragmented, control frames, oversized lengths, closes) and
// closes its side. The upgrade succeeds, the emulator ends the connection
// within wsFuzzBound, writes only well-formed server frames (unmasked, a
// known opcode, control frames short and whole), and logs no panic or
// internal failure.
func FuzzWebSocketFrames(f *testing.F) {
	for _, seed := range [][]byte{
		clientFrame(true, 1, []byte(`{"action":"echo","data":{"n":1}}`)),
		clientFrame(true, 1, []byte(`{"action":"other"}`)),
		clientFrame(true, 2, []byte{0, 1, 2, 0xff}),
		append(clientFrame(false, 1, []byte(`{"action":`)), append(clientFrame(true, 9, []byte("p")), clientFrame(true, 0, []byte(`"echo"}`))...)...),
		clientFrame(true, 9, []byte("ping")),
		clientFrame(true, 10, []byte("pong")),
		clientFrame(true, 8, []byte{0x03, 0xe8, 'b', 'y', 'e'}),
		clientFrame(true, 8, nil),
		clientFrame(true, 1, bytes.Repeat([]byte("x"), 5000)),
		{0x81, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4},
		{0x81, 0x05, 'h', 'e', 'l', 'l', 'o'}, // unmasked
		{0xf1, 0x80, 1, 2, 3, 4},              // reserved bits
		append(clientFrame(true, 1, []byte{0xff, 0xfe}), clientFrame(true, 1, []byte("after bad utf-8"))...),
		clientFrame(true, 9, bytes.Repeat([]byte("p"), 126)),
	} {
		f.Add(seed)
	}
	errs := &errorLog{}
	srv := servertest.StartWithLog(f, slog.New(errs), servertest.WithConfig(func(c *config.Config) {
		c.WebSocketFrameBytes, c.WebSocketMessageBytes = 4096, 8192
	}))
	h := srv.Emulator.Handler()
	do := func(method, path, body, member string) string {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(method)
		ctx.Request.SetRequestURI(path)
		ctx.Request.SetBodyString(body)
		h(&ctx)
		if ctx.Response.StatusCode() >= 300 {
			f.Fatalf("set-up %s %s: %d %s", method, path, ctx.Response.StatusCode(), ctx.Response.Body())
		}
		var m map[string]any
		_ = json.Unmarshal(ctx.Response.Body(), &m)
		return fmt.Sprint(m[member])
	}
	api := do("POST", "/v2/apis", `{"name":"ws","protocolType":"WEBSOCKET","routeSelectionExpression":"$request.body.action"}`, "apiId")
	mock := func(key, request, response string) {
		integ := do("POST", "/v2/apis/"+api+"/integrations", `{"integrationType":"MOCK","templateSelectionExpression":"\\$default","requestTemplates":{"$default":`+jsonString(request)+`}}`, "integrationId")
		do("POST", "/v2/apis/"+api+"/integrations/"+integ+"/integrationresponses", `{"integrationResponseKey":"$default","templateSelectionExpression":"\\$default","responseTemplates":{"$default":`+jsonString(response)+`}}`, "")
		route := do("POST", "/v2/apis/"+api+"/routes", `{"routeKey":`+jsonString(key)+`,"target":"integrations/`+integ+`"}`, "routeId")
		do("POST", "/v2/apis/"+api+"/routes/"+route+"/routeresponses", `{"routeResponseKey":"$default"}`, "")
	}
	mock("$connect", `{"statusCode": 200}`, `{}`)
	mock("echo", `{"statusCode": 200, "echo": $input.json('$.data')}`, `{"got": $input.json('$.echo'), "id": "$context.connectionId", "route": "$context.routeKey"}`)
	mock("$default", `{"statusCode": 200}`, `{"default": "$util.escapeJavaScript($input.body)"}`)
	do("POST", "/v2/apis/"+api+"/stages", `{"stageName":"dev"}`, "")
	do("POST", "/v2/apis/"+api+"/deployments", `{"stageName":"dev"}`, "")
	upgrade := "GET /_aws/execute-api/" + api + "/dev HTTP/1.1\r\nHost: " + srv.Addr + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"

	f.Fuzz(func(t *testing.T, frames []byte) {
		if len(frames) > 1<<16 {
			return
		}
		c, err := net.DialTimeout("tcp", srv.Addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(wsFuzzBound))
		if _, err := io.WriteString(c, upgrade); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("upgrade: %v %v", resp, err)
		}
		// The emulator may close before it has read everything (a
		// protocol error ends the connection): a failed write is no
		// failure.
		_, _ = c.Write(frames)
		_ = c.(*net.TCPConn).CloseWrite()
		out, err := io.ReadAll(br)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("the connection was still open %s after the client closed its side (read %d bytes)", wsFuzzBound, len(out))
		}
		if msg := checkServerFrames(out); msg != "" {
			t.Fatalf("%s: % x", msg, out)
		}
		if msg := errs.take(); msg != "" {
			t.Fatalf("the emulator logged an error: %s", msg)
		}
	})
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// clientFrame is one masked frame as a client sends it.
func clientFrame(fin bool, opcode byte, payload []byte) []byte {
	b := []byte{opcode}
	if fin {
		b[0] |= 0x80
	}
	switch n := len(payload); {
	case n < 126:
		b = append(b, 0x80|byte(n))
	case n <= 0xffff:
		b = append(b, 0x80|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0x80|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	mask := [4]byte{0x37, 0xfa, 0x21, 0x3d}
	b = append(b, mask[:]...)
	for i, c := range payload {
		b = append(b, c^mask[i%4])
	}
	return b
}

// checkServerFrames reports what is wrong with the frames a server wrote,
// "" when nothing is. The last frame may be cut short only if the
// connection ended while it was written, which a well-behaved server
// does not do either.
func checkServerFrames(b []byte) string {
	for len(b) > 0 {
		if len(b) < 2 {
			return "a truncated frame header"
		}
		op, fin := b[0]&0x0f, b[0]&0x80 != 0
		if b[0]&0x70 != 0 {
			return "reserved bits set"
		}
		if b[1]&0x80 != 0 {
			return "a masked server frame"
		}
		n, hdr := uint64(b[1]&0x7f), 2
		switch n {
		case 126:
			if len(b) < 4 {
				return "a truncated frame header"
			}
			n, hdr = uint64(binary.BigEndian.Uint16(b[2:])), 4
		case 127:
			if len(b) < 10 {
				return "a truncated frame header"
			}
			n, hdr = binary.BigEndian.Uint64(b[2:]), 10
		}
		switch op {
		case 0, 1, 2:
		case 8, 9, 10:
			if !fin || n > 125 {
				return "a fragmented or long control frame"
			}
		default:
			return fmt.Sprintf("opcode %d", op)
		}
		if uint64(len(b)-hdr) < n {
			return "a truncated frame"
		}
		b = b[hdr+int(n):]
	}
	return ""
}
