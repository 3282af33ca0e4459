package server_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/cloudemu/emulator/config"
)

// TestReadmeConfigTable checks that the README's configuration table lists
// exactly config.Variables, in their order, with their defaults ("unset"
// for none).
func TestReadmeConfigTable(t *testing.T) {
	sec := section(t, readme(t), "## Configuration")
	var rows [][]string
	for _, l := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(l, "| `EMULATOR_") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	var got, want []string
	for _, r := range rows {
		if len(r) != 3 || r[2] == "" {
			t.Errorf("row %q: want three cells, the meaning not empty", r)
			continue
		}
		got = append(got, strings.Trim(r[0], "`")+" = "+strings.ReplaceAll(r[1], "`", ""))
	}
	for _, v := range config.Variables {
		def := v.Default
		if def == "" {
			def = "unset"
		}
		want = append(want, v.Name+" = "+def)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the README's configuration table (name = default, backticks dropped):\n%s\nconfig.Variables:\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadmeSetUp checks what the README's top promises: the two set-up
// commands, each alone in its block, the Go version go.mod asks for, and
// no reference to files a clone does not have. It also checks the headings
// other files name: the error for a service that is not emulated (What is
// not emulated), the Containerfile (Running as a container) and
// docs/init-hooks.md (Configuration).
func TestReadmeSetUp(t *testing.T) {
	text := readme(t)
	var cmds []string
	for _, b := range codeBlocks(section(t, text, "## Set up")) {
		if b.lang == "sh" {
			cmds = append(cmds, b.body)
		}
	}
	if want := []string{"go run ./cmd/emulator\n", "go test -race ./...\n"}; !slices.Equal(cmds, want) {
		t.Errorf("set-up blocks %q, want %q", cmds, want)
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	if want := "Go " + string(m[1]) + " or newer"; !strings.Contains(section(t, text, "## Set up"), want) {
		t.Errorf("the README's Set up does not say %q (go.mod's go line)", want)
	}
	// The README stands on its own: every markdown file it names is one of
	// the repository's, and no path climbs out of the repository (the
	// README is at its root).
	have := map[string]bool{}
	_ = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			have[filepath.Base(path)] = true
		}
		return nil
	})
	for _, m := range mdName.FindAllString(text, -1) {
		if !have[filepath.Base(m)] {
			t.Errorf("the README names %s, which the repository does not have", m)
		}
	}
	if strings.Contains(text, "../") {
		t.Errorf("the README names a path outside the repository")
	}
	for _, h := range []string{"## What is not emulated", "## Running as a container", "## Configuration"} {
		section(t, text, h)
	}
}

var (
	mdName     = regexp.MustCompile(`[\w./-]+\.md\b`)
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
	mdLinkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// TestDocsLinks checks every relative link of README.md and docs/*.md: the
// file or directory must exist and, when the link names a heading of a
// markdown file, the heading must exist (GitHub's anchors).
func TestDocsLinks(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{"../README.md"}, docs...)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		anchors[file] = headingAnchors(string(b))
		return anchors[file]
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, l := range proseLines(string(b)) {
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(l, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				where := strings.TrimPrefix(file, "../") + ":" + strconv.Itoa(n+1)
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s: link %s: %v", where, target, err)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s: link %s names a heading of a file that is not markdown", where, target)
					continue
				}
				if !anchorsOf(dest)[anchor] {
					t.Errorf("%s: link %s: %s has no heading with anchor #%s", where, target, filepath.Base(dest), anchor)
				}
			}
		}
	}
}

// proseLines returns text's lines, with the lines of fenced code blocks
// (and the fences) blanked, so that line numbers stay.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors returns the anchors GitHub gives text's headings: the
// heading's text (code spans and link texts kept) in lower case, with
// characters other than letters, digits, '-', '_' and spaces dropped, spaces
// as '-', and "-1", "-2"... for repeats.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		n := strings.IndexFunc(l, func(r rune) bool { return r != '#' })
		if n < 1 || n > 6 || n >= len(l) || l[n] != ' ' {
			continue
		}
		h := mdLinkText.ReplaceAllString(strings.TrimSpace(l[n:]), "$1")
		h = strings.ReplaceAll(h, "`", "")
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}
