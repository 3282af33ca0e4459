package compat

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's compatibility table from Rows")

// readmeTable is the README's table of compatibility paths, as Rows says.
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

// TestReadmeCompatTable checks that the README's table of compatibility
// paths is the one Rows gives. Run with -update to rewrite it.
func TestReadmeCompatTable(t *testing.T) {
	const file = "../README.md"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	begin, end := "<!-- compat-paths:begin -->\n", "<!-- compat-paths:end -->"
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README has no compat-paths table")
	}
	want := readmeTable()
	if got := readme[i+len(begin) : j]; got == want {
		return
	}
	if !*update {
		t.Fatalf("README's compatibility table differs from compat.Rows; run go test ./compat -run TestReadmeCompatTable -update. Want:\n%s", want)
	}
	readme = readme[:i+len(begin)] + want + readme[j:]
	if err := os.WriteFile(file, []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
}
