package compat

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the compatibility table of docs/endpoints.md from Rows")

// readmeTable is the table of compatibility paths in docs/endpoints.md
// (once in the README), as Rows says.
func readmeTable() string {
	var b strings.Builder
	b.WriteString("| Path | Legacy spelling | Method | Availability | Replacement | Notes |\n|---|---|---|---|---|---|\n")
	for _, r := range Rows {
		sp := Spellings(r.Path)
		path, legacy := "`"+sp[0]+"`", "`"+sp[1]+"`"
		if r.Query != "" {
			path += ", `" + strings.TrimSuffix(sp[0], "/detailed") + "?" + r.Query + "`"
			legacy += ", `" + strings.TrimSuffix(sp[1], "/detailed") + "?" + r.Query + "`"
		}
		methods := strings.Join(r.Methods, ", ")
		rep := "none"
		if len(r.Replacement) > 0 {
			rep = "`" + strings.Join(r.Replacement, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s | %s |\n", path, legacy, methods, r.Availability, rep, r.Note)
	}
	return b.String()
}

// TestReadmeCompatTable checks that the table of compatibility paths in
// docs/endpoints.md is the one Rows gives. Run with -update to rewrite it.
func TestReadmeCompatTable(t *testing.T) {
	const file = "../docs/endpoints.md"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	begin, end := "<!-- compat-paths:begin -->\n", "<!-- compat-paths:end -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no compat-paths table", file)
	}
	want := readmeTable()
	if got := doc[i+len(begin) : j]; got == want {
		return
	}
	if !*update {
		t.Fatalf("%s: the compatibility table differs from compat.Rows; run go test ./compat -run TestReadmeCompatTable -update. Want:\n%s", file, want)
	}
	doc = doc[:i+len(begin)] + want + doc[j:]
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}
