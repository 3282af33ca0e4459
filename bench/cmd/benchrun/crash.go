package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// crashFlags are the flags of "benchrun crash".
type crashFlags struct {
	emulator         string
	trials           int
	writers          int
	writesBeforeKill int
	ready            time.Duration
}

func (f *crashFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to start (required)")
	fs.IntVar(&f.trials, "trials", 20, "number of kill -9 and restart trials")
	fs.IntVar(&f.writers, "writers", 32, "concurrent writers")
	fs.IntVar(&f.writesBeforeKill, "writes-before-kill", 1500, "acknowledged writes after which the emulator is killed")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long a start may take to answer its health check")
}

// The kinds of write a crash trial makes, in report order.
var crashKinds = []string{"vault", "vault-tag", "rest-api", "resource", "method", "api-key", "queue", "message", "topic", "function"}

// crashFunctionZip is the code of every function a crash trial creates: a
// Python handler, never invoked.
var crashFunctionZip = func() string {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("index.py")
	if err == nil {
		_, err = w.Write([]byte("def handler(event, context):\n    return event\n"))
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		panic(err) // writing to memory does not fail
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}()

// crashWrite is one acknowledged write: its kind and what finds it again.
type crashWrite struct {
	kind string
	id   []string
}

// crashTrial is one trial's figures.
type crashTrial struct {
	acked   map[string]int
	missing map[string]int
	lost    []crashWrite // the first few missing writes, for the report
	restart time.Duration
	total   int
}

// crash kills the emulator with SIGKILL under concurrent writers, -trials
// times, restarts it on the same data dir and checks that every write it
// acknowledged is there. Any loss fails the command.
func (a *app) crash(ctx context.Context, args []string) error {
	var f crashFlags
	fs := newFlagSet("crash")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case f.emulator == "":
		return errors.New("benchrun: crash needs -emulator BIN")
	case f.trials < 1 || f.trials > 1000:
		return fmt.Errorf("benchrun: crash: -trials %d out of range 1..1000", f.trials)
	case f.writers < 1 || f.writers > 1024:
		return fmt.Errorf("benchrun: crash: -writers %d out of range 1..1024", f.writers)
	case f.writesBeforeKill < 1 || f.writesBeforeKill > 10_000_000:
		return fmt.Errorf("benchrun: crash: -writes-before-kill %d out of range 1..10000000", f.writesBeforeKill)
	}
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()

	fmt.Fprintf(a.stdout, "# benchrun crash: %s, %s %s/%s, %d CPUs, %d writers, SIGKILL after %d acknowledged writes\n",
		f.emulator, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), f.writers, f.writesBeforeKill)
	// Rows are printed as trials end, so columns have fixed widths.
	header := append(append([]string{"trial", "acked"}, crashKinds...), "missing", "restart_ms")
	printRow := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			fmt.Fprintf(&b, "%*s", max(len(header[i]), 7)+2, c)
		}
		fmt.Fprintln(a.stdout, b.String())
	}
	printRow(header)
	var total, lost int
	for i := range f.trials {
		tr, err := a.crashTrial(ctx, p, f)
		if err != nil {
			return fmt.Errorf("benchrun: crash: trial %d: %w", i+1, err)
		}
		missing := 0
		row := []string{fmt.Sprint(i + 1), fmt.Sprint(tr.total)}
		for _, k := range crashKinds {
			missing += tr.missing[k]
			cell := fmt.Sprint(tr.acked[k])
			if tr.missing[k] > 0 {
				cell += fmt.Sprintf(" (-%d)", tr.missing[k])
			}
			row = append(row, cell)
		}
		row = append(row, fmt.Sprint(missing), fmt.Sprint(tr.restart.Milliseconds()))
		printRow(row)
		for _, w := range tr.lost {
			fmt.Fprintf(a.stdout, "#   trial %d lost %s %s\n", i+1, w.kind, strings.Join(w.id, " "))
		}
		total += tr.total
		lost += missing
	}
	fmt.Fprintf(a.stdout, "# %d trials, %d acknowledged writes, %d lost\n", f.trials, total, lost)
	if lost > 0 {
		return fmt.Errorf("benchrun: crash: %d acknowledged writes lost", lost)
	}
	return nil
}

// crashTrial runs one trial on a fresh data dir.
func (a *app) crashTrial(ctx context.Context, p *procs, f crashFlags) (crashTrial, error) {
	dir, err := os.MkdirTemp("", "benchrun-crash-")
	if err != nil {
		return crashTrial{}, err
	}
	keep := false
	defer func() {
		if keep {
			a.log.Warn("data dir kept for inspection", "dir", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	env := []string{"EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR=" + dir}
	c, addr, err := p.startEmulator("emulator", f.emulator, env)
	if err != nil {
		return crashTrial{}, err
	}
	if _, err := waitHealthy(ctx, c, addr, f.ready, time.Millisecond); err != nil {
		return crashTrial{}, err
	}
	cl := newCrashClient(addr, f.writers)
	acked, err := crashWrites(ctx, cl, c, f)
	p.stop(c) // already dead; forgets it
	if err != nil {
		return crashTrial{}, err
	}

	c, addr, err = p.startEmulator("emulator-restarted", f.emulator, env)
	if err != nil {
		return crashTrial{}, err
	}
	defer p.stop(c)
	if _, err := waitHealthy(ctx, c, addr, f.ready, time.Millisecond); err != nil {
		keep = true
		return crashTrial{}, fmt.Errorf("restart: %w", err)
	}
	tr := crashTrial{restart: time.Since(c.started), acked: map[string]int{}, missing: map[string]int{}, total: len(acked)}
	cl = newCrashClient(addr, f.writers)
	missing, err := crashVerify(ctx, cl, acked)
	if err != nil {
		keep = true
		return crashTrial{}, fmt.Errorf("verify: %w", err)
	}
	for _, w := range acked {
		tr.acked[w.kind]++
	}
	for _, w := range missing {
		tr.missing[w.kind]++
		if len(tr.lost) < 10 {
			tr.lost = append(tr.lost, w)
		}
	}
	keep = len(missing) > 0
	return tr, nil
}

// crashWrites runs f.writers writers until f.writesBeforeKill writes are
// acknowledged, kills c with SIGKILL mid-burst, and returns every write
// acknowledged before the kill.
func crashWrites(ctx context.Context, cl *crashClient, c *child, f crashFlags) ([]crashWrite, error) {
	var (
		mu     sync.Mutex
		acked  []crashWrite
		count  atomic.Int64
		wg     sync.WaitGroup
		wctx   context.Context
		cancel context.CancelFunc
	)
	wctx, cancel = context.WithCancel(ctx)
	defer cancel()
	ack := func(kind string, id ...string) {
		mu.Lock()
		acked = append(acked, crashWrite{kind, id})
		mu.Unlock()
		count.Add(1)
	}
	for w := range f.writers {
		wg.Go(func() { crashWriter(wctx, cl, w, ack) })
	}
	// Kill while the writers are in full flight; a minute is far more than
	// any emulator needs for the default count.
	deadline := time.Now().Add(time.Minute)
	for count.Load() < int64(f.writesBeforeKill) && time.Now().Before(deadline) && !c.exited() && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	if c.exited() {
		cancel()
		wg.Wait()
		return nil, fmt.Errorf("emulator exited under load: %v", c.waitErr)
	}
	_ = syscall.Kill(c.pid(), syscall.SIGKILL)
	<-c.done
	cancel()
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(acked) == 0 {
		return nil, errors.New("no write acknowledged before the kill")
	}
	return acked, nil
}

// crashWriter writes rounds across the services until a write fails (the
// emulator is gone) or ctx ends. Each round: a vault and a tag on it, a
// resource and a method (under a new REST API every fourth round), an API
// key, two messages (to a new queue every fourth round), a topic, and a
// Lambda function every eighth round.
func crashWriter(ctx context.Context, cl *crashClient, w int, ack func(kind string, id ...string)) {
	var api restAPIReply
	var queue, queueURL string
	for i := 0; ctx.Err() == nil; i++ {
		name := fmt.Sprintf("crash-w%03d-%d", w, i)
		if _, err := cl.do(ctx, "PUT", "/backup-vaults/"+name, `{"BackupVaultTags":{"writer":"crash"}}`, nil); err != nil {
			return
		}
		ack("vault", name)
		if _, err := cl.do(ctx, "POST", "/tags/"+url.PathEscape(vaultARN(name)), `{"Tags":{"second":"write"}}`, nil); err != nil {
			return
		}
		ack("vault-tag", name)
		if i%4 == 0 {
			if _, err := cl.do(ctx, "POST", "/restapis", `{"name":"`+name+`"}`, &api); err != nil {
				return
			}
			ack("rest-api", api.ID)
		}
		var res struct {
			ID string `json:"id"`
		}
		if _, err := cl.do(ctx, "POST", "/restapis/"+api.ID+"/resources/"+api.RootResourceID,
			fmt.Sprintf(`{"pathPart":"r%d"}`, i), &res); err != nil {
			return
		}
		ack("resource", api.ID, res.ID)
		if _, err := cl.do(ctx, "PUT", "/restapis/"+api.ID+"/resources/"+res.ID+"/methods/GET",
			`{"authorizationType":"NONE"}`, nil); err != nil {
			return
		}
		ack("method", api.ID, res.ID)
		var key struct {
			ID string `json:"id"`
		}
		if _, err := cl.do(ctx, "POST", "/apikeys", `{"name":"`+name+`","enabled":true}`, &key); err != nil {
			return
		}
		ack("api-key", key.ID)
		if i%4 == 0 {
			queue = name
			var out struct{ QueueUrl string }
			if _, err := cl.sqs(ctx, "CreateQueue", `{"QueueName":"`+queue+`"}`, &out); err != nil {
				return
			}
			queueURL = out.QueueUrl
			ack("queue", queue)
		}
		for j := range 2 {
			body := fmt.Sprintf("%s-m%d", name, j)
			if _, err := cl.sqs(ctx, "SendMessage", string(sqsSendBody(queueURL, body)), nil); err != nil {
				return
			}
			ack("message", queue, body)
		}
		if _, err := cl.sns(ctx, url.Values{"Action": {"CreateTopic"}, "Name": {name}}); err != nil {
			return
		}
		ack("topic", name)
		if i%8 == 0 {
			body := `{"Code":{"ZipFile":"` + crashFunctionZip + `"},"FunctionName":"` + name +
				`","Handler":"index.handler","Role":"arn:aws:iam::000000000000:role/crash","Runtime":"python3.12"}`
			if _, err := cl.do(ctx, "POST", "/2015-03-31/functions", body, nil); err != nil {
				return
			}
			ack("function", name)
		}
	}
}

func vaultARN(name string) string {
	return "arn:aws:backup:us-east-1:000000000000:backup-vault:" + name
}

func topicARN(name string) string { return "arn:aws:sns:us-east-1:000000000000:" + name }

// crashVerify looks up every acknowledged write on the restarted emulator
// and returns the ones that are not there. An answer that is neither
// found nor not-found is an error: the check could not be made.
func crashVerify(ctx context.Context, cl *crashClient, acked []crashWrite) ([]crashWrite, error) {
	var missing []crashWrite
	messages := map[string][]string{} // queue -> acknowledged bodies
	for _, w := range acked {
		var found bool
		var err error
		switch w.kind {
		case "vault":
			found, err = cl.exists(ctx, "GET", "/backup-vaults/"+w.id[0], "", "")
		case "vault-tag":
			found, err = cl.exists(ctx, "GET", "/tags/"+url.PathEscape(vaultARN(w.id[0])), "", `"second":"write"`)
		case "rest-api":
			found, err = cl.exists(ctx, "GET", "/restapis/"+w.id[0], "", "")
		case "resource":
			found, err = cl.exists(ctx, "GET", "/restapis/"+w.id[0]+"/resources/"+w.id[1], "", "")
		case "method":
			found, err = cl.exists(ctx, "GET", "/restapis/"+w.id[0]+"/resources/"+w.id[1]+"/methods/GET", "", "")
		case "api-key":
			found, err = cl.exists(ctx, "GET", "/apikeys/"+w.id[0], "", "")
		case "queue":
			_, err = cl.sqs(ctx, "GetQueueUrl", `{"QueueName":"`+w.id[0]+`"}`, nil)
			found, err = foundOrMissing(err)
		case "topic":
			_, err = cl.sns(ctx, url.Values{"Action": {"GetTopicAttributes"}, "TopicArn": {topicARN(w.id[0])}})
			found, err = foundOrMissing(err)
		case "function":
			found, err = cl.exists(ctx, "GET", "/2015-03-31/functions/"+w.id[0], "", "")
		case "message":
			messages[w.id[0]] = append(messages[w.id[0]], w.id[1])
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", w.kind, strings.Join(w.id, " "), err)
		}
		if !found {
			missing = append(missing, w)
		}
	}
	queues := make([]string, 0, len(messages))
	for q := range messages {
		queues = append(queues, q)
	}
	slices.Sort(queues)
	for _, q := range queues {
		got, err := cl.drain(ctx, q, len(messages[q]))
		if err != nil {
			return nil, fmt.Errorf("receive from %s: %w", q, err)
		}
		for _, body := range messages[q] {
			if !got[body] {
				missing = append(missing, crashWrite{"message", []string{q, body}})
			}
		}
	}
	return missing, nil
}

// foundOrMissing reads a lookup's outcome: 2xx found, a not-found error
// missing, anything else an error.
func foundOrMissing(err error) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case isNotFound(err):
		return false, nil
	}
	return false, err
}

// isNotFound reports a not-found answer: a 404, or a 400 with a not-found
// code (Backup's ResourceNotFoundException, SQS's QueueDoesNotExist).
func isNotFound(err error) bool {
	var se *statusError
	if !errors.As(err, &se) {
		return false
	}
	return se.code == 404 || se.code == 400 && (strings.Contains(se.body, "NotFound") ||
		strings.Contains(se.body, "NonExistentQueue") || strings.Contains(se.body, "QueueDoesNotExist"))
}

// drain receives from queue until every one of want messages came or two
// receives in a row return none; received messages stay invisible for the
// rest of the trial, so none comes twice.
func (cl *crashClient) drain(ctx context.Context, queue string, want int) (map[string]bool, error) {
	var out struct{ QueueUrl string }
	if _, err := cl.sqs(ctx, "GetQueueUrl", `{"QueueName":"`+queue+`"}`, &out); err != nil {
		if isNotFound(err) {
			return nil, nil // the queue itself is missing; its messages too
		}
		return nil, err
	}
	got := map[string]bool{}
	empty := 0
	for len(got) < want && empty < 2 {
		var rec struct{ Messages []struct{ Body string } }
		body := `{"MaxNumberOfMessages":10,"QueueUrl":` + jsonString(out.QueueUrl) + `,"VisibilityTimeout":600,"WaitTimeSeconds":0}`
		if _, err := cl.sqs(ctx, "ReceiveMessage", body, &rec); err != nil {
			return nil, err
		}
		if len(rec.Messages) == 0 {
			empty++
			continue
		}
		empty = 0
		for _, m := range rec.Messages {
			got[m.Body] = true
		}
	}
	return got, nil
}

// crashClient speaks to one emulator over keep-alive connections.
type crashClient struct {
	base string
	hc   *http.Client
}

func newCrashClient(addr string, conns int) *crashClient {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute}
	return &crashClient{base: "http://" + addr, hc: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// statusError is an answer that is not 2xx.
type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d: %s", e.code, e.body) }

// do sends one request; a 2xx answer is decoded into out when out is not
// nil, anything else is a *statusError.
func (cl *crashClient) do(ctx context.Context, method, path, body string, out any) (int, error) {
	return cl.send(ctx, method, path, body, func(h http.Header) {
		if body != "" {
			h.Set("Content-Type", "application/json")
		}
	}, out)
}

func (cl *crashClient) send(ctx context.Context, method, path, body string, headers func(http.Header), out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, cl.base+path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	headers(req.Header)
	resp, err := cl.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, &statusError{resp.StatusCode, string(b)}
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// sqs calls an SQS operation in the JSON protocol.
func (cl *crashClient) sqs(ctx context.Context, op, body string, out any) (int, error) {
	return cl.send(ctx, "POST", "/", body, func(h http.Header) {
		h.Set("Content-Type", "application/x-amz-json-1.0")
		h.Set("X-Amz-Target", "AmazonSQS."+op)
		h.Set("X-Amzn-Query-Mode", "true")
	}, out)
}

// sns calls an SNS operation in the query protocol.
func (cl *crashClient) sns(ctx context.Context, form url.Values) (int, error) {
	form.Set("Version", "2010-03-31")
	return cl.send(ctx, "POST", "/", form.Encode(), func(h http.Header) {
		h.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	}, nil)
}

// exists reports whether path answers 2xx (with contains in its body, when
// set) rather than not-found.
func (cl *crashClient) exists(ctx context.Context, method, path, body, contains string) (bool, error) {
	var raw json.RawMessage
	_, err := cl.do(ctx, method, path, body, &raw)
	if err != nil {
		return foundOrMissing(err)
	}
	if contains != "" && !bytes.Contains(compactJSON(raw), []byte(contains)) {
		return false, nil
	}
	return true, nil
}

// compactJSON removes insignificant space, so that a member can be found
// whatever the formatting.
func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}
