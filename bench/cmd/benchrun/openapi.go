package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
)

// importFlags are the flags of "benchrun openapi-import".
type importFlags struct {
	emulator, moto string
	paths          int
	imports        int
	ready          time.Duration
}

func (f *importFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.emulator, "emulator", "", "emulator `binary` to measure")
	fs.StringVar(&f.moto, "moto", "", "moto_server `binary` to measure as well")
	fs.IntVar(&f.paths, "paths", 200, "paths in the document (each with a GET and a POST)")
	fs.IntVar(&f.imports, "imports", 10, "imports per server, one after another")
	fs.DurationVar(&f.ready, "ready", 30*time.Second, "how long a server may take to answer")
}

func (f *importFlags) check() error {
	switch {
	case f.emulator == "" && f.moto == "":
		return errors.New("benchrun: openapi-import needs -emulator BIN or -moto BIN")
	case f.paths < 1 || f.paths > 5000:
		return fmt.Errorf("benchrun: -paths %d out of range 1..5000", f.paths)
	case f.imports < 1 || f.imports > 1000:
		return fmt.Errorf("benchrun: -imports %d out of range 1..1000", f.imports)
	}
	return nil
}

// importRun is one server's figures.
type importRun struct {
	Name      string
	Imports   int
	Median    time.Duration
	Min, Max  time.Duration
	Resources int // resources of the last imported API, as the server lists them
}

// openAPIImport imports the same OpenAPI document -imports times into each
// server (ImportRestApi, one request at a time) and reports the time per
// import, checking that each succeeds and that the last API has every
// resource.
func (a *app) openAPIImport(ctx context.Context, args []string) error {
	var f importFlags
	fs := newFlagSet("openapi-import")
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	doc := bench.OpenAPIDocument(f.paths)
	p := &procs{log: a.log, grace: a.grace}
	defer p.stopAll()
	var runs []importRun
	for _, s := range []struct{ name, bin string }{{"emulator", f.emulator}, {"moto", f.moto}} {
		if s.bin == "" {
			continue
		}
		var addr string
		if s.name == "moto" {
			c, ad, out, err := p.startMoto(s.name, s.bin)
			if err != nil {
				return err
			}
			if _, err := waitReady(ctx, c, ad, "/", f.ready, 10*time.Millisecond); err != nil {
				return fmt.Errorf("%w\n%s", err, out)
			}
			addr = ad
		} else {
			c, ad, err := p.startEmulator(s.name, s.bin, nil)
			if err != nil {
				return err
			}
			if _, err := waitHealthy(ctx, c, ad, f.ready, time.Millisecond); err != nil {
				return err
			}
			addr = ad
		}
		run, err := importOnce(ctx, s.name, addr, doc, f.imports)
		if err != nil {
			return fmt.Errorf("benchrun: openapi-import %s: %w", s.name, err)
		}
		if want := 2*f.paths + 1; run.Resources != want { // each /itemsN/{id} and its parent, and the root
			return fmt.Errorf("benchrun: openapi-import %s: the imported API has %d resources, want %d", s.name, run.Resources, want)
		}
		a.log.Info("imported", "server", s.name, "imports", f.imports, "median", run.Median)
		runs = append(runs, run)
	}
	fmt.Fprintf(a.stdout, "# benchrun openapi-import: %s %s/%s, %d CPUs, %d paths (%d methods), %d bytes, ImportRestApi one at a time\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), f.paths, 2*f.paths, len(doc))
	return writeImports(a.stdout, runs)
}

func importOnce(ctx context.Context, name, addr string, doc []byte, n int) (importRun, error) {
	run := importRun{Name: name, Imports: n}
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: 1, ReadTimeout: 2 * time.Minute, WriteTimeout: time.Minute,
		MaxResponseBodySize: 64 << 20}
	defer hc.CloseIdleConnections()
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	var took []float64
	var id string
	for i := range n {
		if err := ctx.Err(); err != nil {
			return run, err
		}
		req.Reset()
		req.Header.SetMethod(fasthttp.MethodPost)
		req.SetRequestURI("http://" + addr + "/restapis?mode=import")
		req.Header.SetContentType("application/json")
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/apigateway/aws4_request, SignedHeaders=host, Signature=0")
		req.SetBody(doc)
		start := time.Now()
		if err := hc.Do(req, resp); err != nil {
			return run, fmt.Errorf("import %d: %w", i, err)
		}
		d := time.Since(start)
		// AWS answers 201; moto answers 200.
		if st := resp.StatusCode(); st != fasthttp.StatusCreated && (name != "moto" || st != fasthttp.StatusOK) {
			return run, fmt.Errorf("import %d: %d %.300s", i, resp.StatusCode(), resp.Body())
		}
		var api struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(resp.Body(), &api); err != nil || api.ID == "" {
			return run, fmt.Errorf("import %d: no API id in %.300s", i, resp.Body())
		}
		id = api.ID
		took = append(took, float64(d))
		if i == 0 || d < run.Min {
			run.Min = d
		}
		run.Max = max(run.Max, d)
	}
	run.Median = time.Duration(bench.Median(took))
	req.Reset()
	req.SetRequestURI("http://" + addr + "/restapis/" + id + "/resources?limit=500")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/apigateway/aws4_request, SignedHeaders=host, Signature=0")
	if err := hc.Do(req, resp); err != nil {
		return run, err
	}
	var page struct {
		Items []json.RawMessage `json:"item"`
	}
	if resp.StatusCode() != fasthttp.StatusOK || json.Unmarshal(resp.Body(), &page) != nil {
		return run, fmt.Errorf("get resources: %d %.300s", resp.StatusCode(), resp.Body())
	}
	run.Resources = len(page.Items)
	return run, nil
}

func writeImports(w io.Writer, runs []importRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "server\timports\tmedian\tmin\tmax\tresources\tvs emulator")
	var base time.Duration
	for _, r := range runs {
		if r.Name == "emulator" {
			base = r.Median
		}
	}
	for _, r := range runs {
		ratio := "-"
		if base > 0 && r.Median > 0 {
			ratio = fmt.Sprintf("%.1fx slower", float64(r.Median)/float64(base))
			if r.Name == "emulator" {
				ratio = "1.0x"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%s\n", r.Name, r.Imports, r.Median.Round(10*time.Microsecond),
			r.Min.Round(10*time.Microsecond), r.Max.Round(10*time.Microsecond), r.Resources, ratio)
	}
	return tw.Flush()
}
