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
	"github.com/cloudemu/emulator/httpfront/restjson"
)

var update = flag.Bool("update", false, "rewrite the README's operation tables")

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

func operationTable(svc awswire.Service, impl map[string]restjson.Handler, partial []string) string {
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

// TestReadmeOperationTables checks that each README table lists every
// operation of its model with the status the handlers give it. Run with
// -update to rewrite them.
func TestReadmeOperationTables(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	services := testEmulator(t).services
	for _, tab := range services {
		name := tab.Name + "-operations"
		begin, end := "<!-- "+name+":begin -->\n", "<!-- "+name+":end -->"
		i, j := strings.Index(readme, begin), strings.Index(readme, end)
		if i < 0 || j < i {
			t.Errorf("README has no %s table", name)
			continue
		}
		want := operationTable(tab.Wire, tab.Handlers, tab.Partial)
		got := readme[i+len(begin) : j]
		if got == want {
			continue
		}
		if *update {
			readme = readme[:i+len(begin)] + want + readme[j:]
			continue
		}
		t.Errorf("README %s table is stale; run go test ./server -run TestReadme -update", name)
	}
	for _, tab := range services {
		for _, n := range tab.Partial {
			if _, ok := tab.Handlers[n]; !ok {
				t.Errorf("%s: Partial lists %s, which has no handler", tab.Name, n)
			}
		}
	}
	if *update {
		if err := os.WriteFile("../README.md", []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func testLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
