package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/cloudemu/emulator/vtl"
	"github.com/cloudemu/emulator/vtl/gateway"
)

// templateFlags are the flags of `emulator template render`.
type templateFlags struct {
	template  string
	body      string
	params    string
	stageVars string
	context   string
	overrides bool
}

func (f *templateFlags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.template, "template", "", "mapping template `FILE` to render (required)")
	fs.StringVar(&f.body, "body", "", "request body `FILE` for $input (- reads stdin; default: empty body, which $input.body shows as {})")
	fs.StringVar(&f.params, "params", "", "request parameters as `JSON`: {\"path\":{..},\"querystring\":{..},\"header\":{..}}")
	fs.StringVar(&f.stageVars, "stage-variables", "", "stage variables as a `JSON` object of strings")
	fs.StringVar(&f.context, "context", "", "`JSON` merged into $context, e.g. {\"stage\":\"dev\",\"identity\":{\"sourceIp\":\"1.2.3.4\"}}")
	fs.BoolVar(&f.overrides, "overrides", false, "after the output, print what the template set in $context.requestOverride and responseOverride to stderr")
}

const templateUsage = "usage: emulator template render --template FILE [--body FILE] [--params JSON] [--stage-variables JSON] [--context JSON] [--overrides]"

// runTemplate runs `emulator template ...` with the arguments after
// "template". The rendered text goes to stdout unchanged; errors are
// returned for main to print.
func runTemplate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "render" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprintln(stdout, templateUsage)
			return nil
		}
		fmt.Fprintln(stderr, templateUsage)
		if len(args) == 0 {
			return usageError{"missing command (render)"}
		}
		return usageError{fmt.Sprintf("unknown command %q", args[0])}
	}
	fs := flag.NewFlagSet("emulator template render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f templateFlags
	f.attach(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: emulator template render --template FILE [flags]")
		fmt.Fprintln(fs.Output(), "Renders an API Gateway mapping template as API Gateway would, for debugging it offline.")
		fs.PrintDefaults()
	}
	if wantsHelp(args[1:]) {
		fs.SetOutput(stdout)
		fs.Usage()
		return nil
	}
	if err := fs.Parse(args[1:]); err != nil {
		return errFlags
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if f.template == "" {
		return usageError{"--template FILE is required"}
	}
	src, err := os.ReadFile(f.template)
	if err != nil {
		return err
	}
	req := gateway.Request{}
	if f.body == "-" {
		if req.Body, err = io.ReadAll(stdin); err != nil {
			return fmt.Errorf("--body -: %w", err)
		}
	} else if f.body != "" {
		if req.Body, err = os.ReadFile(f.body); err != nil {
			return err
		}
	}
	if f.params != "" {
		if err := parseParams(f.params, &req); err != nil {
			return err
		}
	}
	if f.stageVars != "" {
		m, err := jsonObject("--stage-variables", f.stageVars)
		if err != nil {
			return err
		}
		req.StageVariables = stringsOf(m)
	}
	req.Context = gateway.NewContext(gateway.Context{})
	if f.context != "" {
		m, err := jsonObject("--context", f.context)
		if err != nil {
			return err
		}
		merge(req.Context, m)
	}

	tmpl, err := vtl.Compile(string(src))
	if err != nil {
		return fmt.Errorf("%s: %w", f.template, err)
	}
	out, err := tmpl.Render(gateway.Vars(req), vtl.DefaultLimits)
	if err != nil {
		return fmt.Errorf("%s: %w", f.template, err)
	}
	if _, err := io.WriteString(stdout, out); err != nil {
		return err
	}
	if f.overrides {
		printOverrides(stderr, gateway.ReadOverrides(req.Context))
	}
	return nil
}

// jsonObject parses a flag's JSON, which must be an object.
func jsonObject(name, s string) (*vtl.Map, error) {
	v, err := vtl.ParseJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m, ok := v.(*vtl.Map)
	if !ok {
		return nil, fmt.Errorf("%s: must be a JSON object", name)
	}
	return m, nil
}

// parseParams reads --params into the request's three parameter groups.
func parseParams(s string, req *gateway.Request) error {
	m, err := jsonObject("--params", s)
	if err != nil {
		return err
	}
	var bad error
	m.Range(func(k string, v vtl.Value) bool {
		group, ok := v.(*vtl.Map)
		if !ok {
			bad = fmt.Errorf("--params: %q must be an object", k)
			return false
		}
		switch k {
		case "path":
			req.PathParams = stringsOf(group)
		case "querystring":
			req.QueryParams = stringsOf(group)
		case "header":
			req.Headers = stringsOf(group)
		default:
			bad = fmt.Errorf("--params: unknown group %q (want path, querystring or header)", k)
			return false
		}
		return true
	})
	return bad
}

// stringsOf renders a map's values as strings, as HTTP parameters are.
func stringsOf(m *vtl.Map) map[string]string {
	out := make(map[string]string, m.Len())
	m.Range(func(k string, v vtl.Value) bool {
		out[k] = vtl.String(v)
		return true
	})
	return out
}

// merge copies src into dst, merging nested objects key by key so that
// --context '{"identity":{"sourceIp":"1.2.3.4"}}' keeps the other
// identity fields and the override maps.
func merge(dst, src *vtl.Map) {
	src.Range(func(k string, v vtl.Value) bool {
		sv, sok := v.(*vtl.Map)
		old, _ := dst.Get(k)
		dv, dok := old.(*vtl.Map)
		if sok && dok {
			merge(dv, sv)
		} else {
			dst.Put(k, v)
		}
		return true
	})
}

func printOverrides(w io.Writer, ov gateway.Overrides) {
	if ov.Status != 0 {
		fmt.Fprintf(w, "responseOverride.status: %d\n", ov.Status)
	}
	for _, g := range []struct {
		name string
		m    map[string]string
	}{
		{"responseOverride.header", ov.ResponseHeaders},
		{"requestOverride.header", ov.RequestHeaders},
		{"requestOverride.querystring", ov.RequestQuery},
		{"requestOverride.path", ov.RequestPath},
	} {
		keys := make([]string, 0, len(g.m))
		for k := range g.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "%s.%s: %s\n", g.name, k, g.m[k])
		}
	}
}
