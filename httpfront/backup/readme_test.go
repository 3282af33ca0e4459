package backup_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	hbackup "github.com/cloudemu/emulator/httpfront/backup"
	"github.com/cloudemu/emulator/httpfront/wire"
)

// TestReadmeOperationTable checks that the README's Backup table lists every
// operation of the model with the status the handlers give it.
func TestReadmeOperationTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- backup-operations:begin -->")
	table, _, ok2 := strings.Cut(rest, "<!-- backup-operations:end -->")
	if !ok || !ok2 {
		t.Fatal("README has no backup-operations table")
	}
	var got []string
	for line := range strings.Lines(table) {
		if strings.HasPrefix(line, "| `") {
			got = append(got, strings.TrimSpace(line))
		}
	}
	impl := hbackup.Handlers(nil)
	var want []string
	for _, op := range wire.Operations {
		if op.Service != wire.Backup {
			continue
		}
		status := "not implemented"
		if _, ok := impl[op.Name]; ok {
			status = "full"
			if slices.Contains(hbackup.Partial, op.Name) {
				status = "partial"
			}
		}
		q := ""
		if op.Query != "" {
			q = "?" + op.Query
		}
		want = append(want, fmt.Sprintf("| `%s` | `%s %s%s` | %s |", op.Name, op.Method, op.Path, q, status))
	}
	if !slices.Equal(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w string
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Errorf("row %d:\n got  %s\n want %s", i, g, w)
			}
		}
	}
	for _, n := range hbackup.Partial {
		if _, ok := impl[n]; !ok {
			t.Errorf("Partial lists %s, which has no handler", n)
		}
	}
}
