package httpfront

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	hapigw "github.com/cloudemu/emulator/httpfront/apigateway"
	hv2 "github.com/cloudemu/emulator/httpfront/apigatewayv2"
	hbackup "github.com/cloudemu/emulator/httpfront/backup"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/httpfront/wire"
)

var update = flag.Bool("update", false, "rewrite the README's operation tables")

// readmeTables are the README's operation tables, each between
// <!-- name:begin --> and <!-- name:end -->.
var readmeTables = []struct {
	name     string
	svc      wire.Service
	handlers map[string]restjson.Handler
	partial  []string
}{
	{"backup-operations", wire.Backup, hbackup.Handlers(nil), hbackup.Partial},
	{"apigateway-operations", wire.APIGateway, hapigw.Handlers(nil), hapigw.Partial},
	{"apigatewayv2-operations", wire.APIGatewayV2, hv2.Handlers(nil), hv2.Partial},
}

func operationTable(svc wire.Service, impl map[string]restjson.Handler, partial []string) string {
	var b strings.Builder
	b.WriteString("| Operation | Method and path | Status |\n|---|---|---|\n")
	for _, op := range wire.Operations {
		if op.Service != svc {
			continue
		}
		status := "not implemented"
		if _, ok := impl[op.Name]; ok {
			status = "full"
			if slices.Contains(partial, op.Name) {
				status = "partial"
			}
		}
		q := ""
		if op.Query != "" {
			q = "?" + op.Query
		}
		fmt.Fprintf(&b, "| `%s` | `%s %s%s` | %s |\n", op.Name, op.Method, op.Path, q, status)
	}
	return b.String()
}

// TestReadmeOperationTables checks that each README table lists every
// operation of its model with the status the handlers give it. Run with
// -update to rewrite them.
func TestReadmeOperationTables(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, tab := range readmeTables {
		begin, end := "<!-- "+tab.name+":begin -->\n", "<!-- "+tab.name+":end -->"
		i, j := strings.Index(readme, begin), strings.Index(readme, end)
		if i < 0 || j < i {
			t.Errorf("README has no %s table", tab.name)
			continue
		}
		want := operationTable(tab.svc, tab.handlers, tab.partial)
		got := readme[i+len(begin) : j]
		if got == want {
			continue
		}
		if *update {
			readme = readme[:i+len(begin)] + want + readme[j:]
			continue
		}
		t.Errorf("README %s table is stale; run go test ./httpfront -run TestReadme -update", tab.name)
	}
	for _, tab := range readmeTables {
		for _, n := range tab.partial {
			if _, ok := tab.handlers[n]; !ok {
				t.Errorf("%s: Partial lists %s, which has no handler", tab.name, n)
			}
		}
	}
	if *update {
		if err := os.WriteFile("../README.md", []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
