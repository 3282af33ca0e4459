package server

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/config"
)

var update = flag.Bool("update", false, "rewrite the operation tables in docs/")

// testEmulator opens an in-memory emulator that is closed when the test ends.
func testEmulator(t *testing.T) *Emulator {
	t.Helper()
	e, err := Open(config.Default(), testLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Shutdown(t.Context()) })
	return e
}

func operationTable(svc awswire.Service, impl map[string]bool, partial []string) string {
	var b strings.Builder
	b.WriteString("| Operation | Method and path | Status |\n|---|---|---|\n")
	for _, op := range awswire.Operations {
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

// TestReadmeOperationTables checks that each service's operation table in
// docs/<service>.md lists every operation of its model with the status the
// handlers give it. Run with -update to rewrite them. (The tables were in
// the README once; the name stays so that -run TestReadme finds it.)
func TestReadmeOperationTables(t *testing.T) {
	services := testEmulator(t).services
	for _, tab := range services {
		page := tab.Name
		if page == "sesv2" {
			page = "ses" // one page for both SES APIs
		}
		file := "../docs/" + page + ".md"
		b, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: %v", tab.Name, err)
			continue
		}
		doc := string(b)
		name := tab.Name + "-operations"
		begin, end := "<!-- "+name+":begin -->\n", "<!-- "+name+":end -->"
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		if i < 0 || j < i {
			t.Errorf("%s has no %s table", file, name)
			continue
		}
		want := operationTable(tab.Wire, served(tab), tab.Partial)
		if doc[i+len(begin):j] == want {
			continue
		}
		if !*update {
			t.Errorf("%s: the %s table is stale; run go test ./server -run TestReadmeOperationTables -update", file, name)
			continue
		}
		doc = doc[:i+len(begin)] + want + doc[j:]
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tab := range services {
		for _, n := range tab.Partial {
			if !served(tab)[n] {
				t.Errorf("%s: Partial lists %s, which has no handler", tab.Name, n)
			}
		}
	}
}

// served names the operations a service has a handler for, whatever its
// protocol.
func served(s Service) map[string]bool {
	m := map[string]bool{}
	for n := range s.Handlers {
		m[n] = true
	}
	for n := range s.RPC {
		m[n] = true
	}
	return m
}

func testLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
