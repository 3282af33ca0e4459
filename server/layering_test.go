package server

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/cloudemu/emulator"

// layers says what each package may not depend on, directly or not. Imports
// flow one way: cmd → emulator → httpfront → {compat, execute} → actors →
// {store, throttle, metrics, vtl, awswire}; the domain never sees HTTP.
var layers = []struct {
	pkg       string // a package, or a tree when it ends in "/..."
	forbidden []string
}{
	{"awswire/...", []string{module + "/"}},
	{"pmap", []string{module + "/"}},
	{"config", []string{module + "/"}},
	{"store", []string{module + "/httpfront", module + "/actors", module + "/server", "github.com/valyala/fasthttp"}},
	{"actors/...", []string{module + "/httpfront", module + "/compat", module + "/server", "github.com/valyala/fasthttp"}},
	{"vtl/...", []string{module + "/httpfront", module + "/actors", module + "/server", "github.com/valyala/fasthttp"}},
	{"modelschema", []string{module + "/httpfront", module + "/actors", module + "/server", "github.com/valyala/fasthttp"}},
	{"throttle/...", []string{module + "/httpfront", module + "/server", "github.com/valyala/fasthttp"}},
	{"metrics/...", []string{module + "/httpfront", module + "/server", "github.com/valyala/fasthttp"}},
	{"execute/...", []string{module + "/httpfront", module + "/server", "github.com/valyala/fasthttp"}},
	{"inithook", []string{module + "/httpfront", module + "/actors", module + "/server"}},
	{"inbox", []string{module + "/"}},
	// oasrest and oashttp are pure conversions: of ours, they may import
	// only awswire.
	{"oasrest", []string{module + "/httpfront", module + "/actors", module + "/server", module + "/execute",
		module + "/compat", module + "/store", "github.com/valyala/fasthttp"}},
	{"oashttp", []string{module + "/httpfront", module + "/actors", module + "/server", module + "/execute",
		module + "/compat", module + "/store", "github.com/valyala/fasthttp"}},
	{"httpfront/...", []string{module + "/server", module + "/compat", module + "/cmd"}},
	// The dashboard reads the domain's snapshots; it never reaches the
	// front, the assembly or a service's handlers.
	{"ui/...", []string{module + "/server", module + "/httpfront", module + "/compat", module + "/cmd"}},
	{"compat/...", []string{module + "/server", module + "/httpfront/backuphttp", module + "/httpfront/apigatewayhttp",
		module + "/httpfront/apigatewayv2http", module + "/actors"}},
}

// siblings are trees whose packages may not import one another: one
// service's owners never reach into another's.
var siblings = []string{"actors", "httpfront"}

// TestImportDirection fails when a package depends on a layer above it, or
// on a sibling service's package.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[strings.TrimPrefix(f[0], module+"/")] = f[1:]
	}
	checked := map[string]bool{}
	for _, l := range layers {
		for pkg, ds := range deps {
			if !within(pkg, l.pkg) {
				continue
			}
			checked[l.pkg] = true
			for _, d := range ds {
				if within(strings.TrimPrefix(d, module+"/"), l.pkg) {
					continue // inside the layer itself
				}
				for _, f := range l.forbidden {
					if strings.HasPrefix(d, f) {
						t.Errorf("%s depends on %s (%s may not depend on %s)", pkg, d, l.pkg, f)
					}
				}
			}
		}
	}
	for _, must := range []string{"awswire/...", "actors/...", "vtl/...", "store", "httpfront/...", "compat/...", "oashttp", "ui/..."} {
		if !checked[must] {
			t.Errorf("no package of %s was checked", must)
		}
	}
	for _, tree := range siblings {
		for pkg, ds := range deps {
			svc, ok := service(tree, pkg)
			if !ok {
				continue
			}
			for _, d := range ds {
				if other, ok := service(tree, strings.TrimPrefix(d, module+"/")); ok && other != svc && strings.HasPrefix(d, module+"/") {
					t.Errorf("%s depends on %s: one service's packages may not import another's", pkg, d)
				}
			}
		}
	}
}

func within(pkg, pattern string) bool {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == tree || strings.HasPrefix(pkg, tree+"/")
	}
	return pkg == pattern
}

// service names the service sub-tree of tree that pkg is in
// ("actors/backup" → "backup").
func service(tree, pkg string) (string, bool) {
	rest, ok := strings.CutPrefix(pkg, tree+"/")
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "/")
	switch name {
	case "restjson", "awsrpc": // the front's protocol codecs, shared by the services
		return "", false
	}
	return name, true
}
