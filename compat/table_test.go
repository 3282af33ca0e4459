package compat

import (
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/config"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"/_compat/health", "/_compat/health", true},
		{"/_compat/health", "/_compat/health/x", false},
		{"/_compat/health", "/_compat", false},
		{"/_compat/init/{stage}", "/_compat/init/ready", true},
		{"/_compat/init/{stage}", "/_compat/init", false},
		{"/_compat/init/{stage}", "/_compat/init/ready/x", false},
		{"/_compat/init/{stage}", "/_compat/init//", false},
		{"/_cloud/execute-api/{id}/{stage}/{path...}", "/_cloud/execute-api/abc/prod", true},
		{"/_cloud/execute-api/{id}/{stage}/{path...}", "/_cloud/execute-api/abc/prod/a/b/c", true},
		{"/_cloud/execute-api/{id}/{stage}/{path...}", "/_cloud/execute-api/abc", false},
		{"/_cloud/sns/subscription-tokens/{arn...}", "/_cloud/sns/subscription-tokens/arn:aws:sns:us-east-1:000000000000:t:1", true},
		{"/_cloud/sns/subscription-tokens/{arn...}", "/_cloud/sns/subscription-tokens", true},
		{"/_compat/state/{service}/save", "/_compat/state/s3/save", true},
		{"/_compat/state/{service}/save", "/_compat/state/save", false},
		{"/a/b", "/" + strings.Repeat("a/", 1000), false},
	} {
		t.Run("pattern="+tc.pattern+",path="+tc.path, func(t *testing.T) {
			if got := match(tc.pattern, tc.path); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSpellings(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/_compat/health", []string{"/_compat/health", "/_localstack/health"}},
		{"/_cloud/sqs/messages", []string{"/_cloud/sqs/messages", "/_aws/sqs/messages"}},
		{"/_emulator/health", []string{"/_emulator/health"}},
	} {
		if got := Spellings(tc.path); !slices.Equal(got, tc.want) {
			t.Errorf("Spellings(%q) = %v, want %v", tc.path, got, tc.want)
		}
		for _, s := range tc.want {
			if got := specSpelling(s); got != tc.path {
				t.Errorf("specSpelling(%q) = %q, want %q", s, got, tc.path)
			}
		}
	}
}

// TestRowsWellFormed checks what every row must say to be answerable.
func TestRowsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rows {
		t.Run("path="+r.Path, func(t *testing.T) {
			if seen[r.Path] {
				t.Errorf("duplicate row")
			}
			seen[r.Path] = true
			if !strings.HasPrefix(r.Path, prefixCompat) && !strings.HasPrefix(r.Path, prefixCloud) {
				t.Errorf("path is not in a compatibility family")
			}
			if len(r.Methods) == 0 {
				t.Errorf("no methods")
			}
			switch r.Availability {
			case Served:
				if r.ServedBy == "" || r.handler != nil {
					t.Errorf("a served row names the file that serves it and has no handler here")
				}
			case Debug, ReadOnly:
				if r.handler == nil || !slices.Equal(r.Methods, []string{http.MethodGet}) {
					t.Errorf("a debug row has a handler and answers GET")
				}
			case NotServedYet, Replaced:
				if len(r.Replacement) == 0 {
					t.Errorf("no replacement named")
				}
			case NoReplacement:
				if len(r.Replacement) != 0 || r.Note == "" {
					t.Errorf("a row without replacement says why, and names none")
				}
			default:
				t.Errorf("availability %q", r.Availability)
			}
			if got, ok := rowFor(r.Path); !ok || got.Path != r.Path {
				t.Errorf("rowFor(%q) finds another row first: %v", r.Path, got)
			}
		})
	}
}

// TestRoutesAgreeWithTable checks that the router serves every served row
// under each spelling and method, and that no route shadows a row the
// fallback answers.
func TestRoutesAgreeWithTable(t *testing.T) {
	routes := map[string]bool{}
	for _, r := range Routes(Deps{}) {
		routes[r.Method+" "+r.Path] = true
	}
	for _, row := range Rows {
		for _, p := range Spellings(row.Path) {
			switch {
			case row.ServedBy == ServedByDataPlane:
				// Answered before routing.
			case row.Availability == Served, row.Availability == Debug, row.Availability == ReadOnly:
				for _, m := range row.Methods {
					if !routes[m+" "+p] {
						t.Errorf("%s %s: %s row has no route (served by %s)", m, p, row.Availability, row.ServedBy)
					}
				}
			default:
				for k := range routes {
					method, path, _ := strings.Cut(k, " ")
					if method != MethodAny && match(row.Path, specSpelling(path)) {
						t.Errorf("route %s shadows the %s row %s", k, row.Availability, row.Path)
					}
				}
			}
		}
	}
	for _, p := range []string{pathDebugHealth, pathDebugConfig, pathDebugState} {
		if !routes["GET "+p] {
			t.Errorf("GET %s has no route", p)
		}
	}
	for _, p := range []string{prefixCompat, prefixCloud, prefixLocalstack, prefixAWS, prefixEmulator} {
		if !routes[MethodAny+" "+p+"{rest:*}"] {
			t.Errorf("no fallback under %s", p)
		}
	}
}

// TestSettingFields checks that the debug config reports every field of
// config.Config and every variable config.go reads.
func TestSettingFields(t *testing.T) {
	byField := map[string]string{}
	byVar := map[string]bool{}
	for _, sf := range settingFields {
		if byVar[sf.Var] {
			t.Errorf("%s listed twice", sf.Var)
		}
		byVar[sf.Var] = true
		byField[sf.Field] = sf.Var
	}
	ct := reflect.TypeFor[config.Config]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if f.IsExported() && byField[f.Name] == "" {
			t.Errorf("config.Config.%s has no EMULATOR_* variable in settingFields", f.Name)
		}
	}
	for field := range byField {
		if _, ok := ct.FieldByName(field); !ok {
			t.Errorf("settingFields names config.Config.%s, which does not exist", field)
		}
	}
	src, err := os.ReadFile("../config/config.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range regexp.MustCompile(`"(EMULATOR_[A-Z0-9_]+)"`).FindAllStringSubmatch(string(src), -1) {
		if !byVar[v[1]] {
			t.Errorf("config.go reads %s, which settingFields does not list", v[1])
		}
	}
}

func TestSettingsSourcesAndRedaction(t *testing.T) {
	cfg, err := config.FromEnv(func(k string) (string, bool) {
		v, ok := map[string]string{"EMULATOR_DEBUG": "true", "EMULATOR_PORT": "4600"}[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Port = 0 // a flag (-addr) overrode the environment
	cfg.Host = "0.0.0.0"
	h := &endpoints{d: Deps{Config: cfg, Environ: []string{
		"EMULATOR_DEBUG=true",
		"EMULATOR_PORT=4600",
		"EMULATOR_API_KEY=hunter2",
		"EMULATOR_DB_PASSWORD=hunter3",
		"EMULATOR_AUTH_TOKEN=t0k",
		"EMULATOR_MY_SECRET=s3",
		"emulator_credential_file=/x", // not EMULATOR_*: not listed
		"EMULATOR_AWS_CREDENTIALS=c",
		"EMULATOR_COLOUR=blue",
		"EMULATOR_EMPTY_KEY=",
		"PATH=/bin",
	}}}
	settings, unknown := h.settings()
	got := map[string]Setting{}
	for _, s := range settings {
		got[s.Name] = s
	}
	if len(got) != len(settingFields) {
		t.Errorf("%d settings, want %d", len(got), len(settingFields))
	}
	for _, tc := range []struct{ name, value, def, source string }{
		{"EMULATOR_DEBUG", "true", "false", "environment"},
		{"EMULATOR_PORT", "0", "4566", "override"},
		{"EMULATOR_HOST", "0.0.0.0", "127.0.0.1", "override"},
		{"EMULATOR_STATE", "memory", "memory", "default"},
		{"EMULATOR_LOG_LEVEL", "info", "info", "default"},
		{"EMULATOR_ASK_TIMEOUT", "10s", "10s", "default"},
		{"EMULATOR_FIXED_TIME", "", "", "default"},
		{"EMULATOR_INIT_DIRS", "/etc/compat/init,/etc/emulator/init", "/etc/compat/init,/etc/emulator/init", "default"},
	} {
		s := got[tc.name]
		if s.Value != tc.value || s.Default != tc.def || s.Source != tc.source {
			t.Errorf("%s = %+v, want value %q default %q source %q", tc.name, s, tc.value, tc.def, tc.source)
		}
	}
	wantUnknown := []Unrecognized{
		{"EMULATOR_API_KEY", redacted},
		{"EMULATOR_AUTH_TOKEN", redacted},
		{"EMULATOR_AWS_CREDENTIALS", redacted},
		{"EMULATOR_COLOUR", "blue"},
		{"EMULATOR_DB_PASSWORD", redacted},
		{"EMULATOR_EMPTY_KEY", ""},
		{"EMULATOR_MY_SECRET", redacted},
	}
	if !slices.Equal(unknown, wantUnknown) {
		t.Errorf("unrecognized = %v, want %v", unknown, wantUnknown)
	}
}

func TestIsSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"EMULATOR_API_KEY": true, "EMULATOR_SECRET": true, "emulator_token": true,
		"EMULATOR_PASSWORD_FILE": true, "EMULATOR_CREDENTIALS": true, "EMULATOR_KEYS": true,
		"EMULATOR_HOST": false, "EMULATOR_DATA_DIR": false, "EMULATOR_INIT_TIMEOUT": false,
	} {
		if got := isSecret(name); got != want {
			t.Errorf("isSecret(%q) = %v, want %v", name, got, want)
		}
	}
}
