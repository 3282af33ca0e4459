package compat

import (
	"net/http"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/inithook"
)

// initRoutes serves the init hooks' status: the emulator's own form under
// /_emulator and the shape other emulators' health checks parse under
// /_compat and /_localstack. Both are written with ": " and ", " between
// members, so that `grep -q '"completed": true,'` on a stage's status
// matches once the stage has completed.
func initRoutes(d Deps) []Route {
	r := d.Init
	if r == nil {
		// An emulator built without a lifecycle (in-process tests) runs
		// no hooks.
		r = inithook.New(inithook.Options{Disabled: true})
	}
	h := &initStatus{r: r}
	var rs []Route
	add := func(path string, handler restjson.Handler) {
		rs = append(rs, Route{http.MethodGet, path, handler}, Route{http.MethodHead, path, handler})
	}
	add("/_emulator/init", h.all(true))
	add("/_emulator/init/{stage}", h.stage(true))
	for _, prefix := range []string{"/_compat", "/_localstack"} {
		add(prefix+"/init", h.all(false))
		add(prefix+"/init/{stage}", h.stage(false))
	}
	return rs
}

type initStatus struct{ r *inithook.Runner }

// stageCompleted lists each stage's completion in stage order, as the
// legacy all-stages form does.
type stageCompleted struct {
	Boot     bool `json:"BOOT"`
	Start    bool `json:"START"`
	Ready    bool `json:"READY"`
	Shutdown bool `json:"SHUTDOWN"`
}

// initScript is one script. The legacy form has stage, name and state only.
type initScript struct {
	Stage      string `json:"stage"`
	Name       string `json:"name"`
	State      string `json:"state"`
	Path       string `json:"path,omitempty"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	Error      string `json:"error,omitempty"`
	StartedAt  string `json:"startedAt,omitempty"`
	FinishedAt string `json:"finishedAt,omitempty"`
	DurationMs *int64 `json:"durationMs,omitempty"`
}

func initScripts(ss []inithook.Script, own bool) []initScript {
	out := make([]initScript, 0, len(ss))
	for _, s := range ss {
		e := initScript{Stage: s.Stage.String(), Name: s.Name, State: string(s.State)}
		if own {
			e.Path, e.Error = s.Path, s.Error
			if s.Exited {
				code := s.ExitCode
				e.ExitCode = &code
			}
			if !s.Started.IsZero() {
				e.StartedAt = s.Started.UTC().Format(time.RFC3339Nano)
			}
			if !s.Finished.IsZero() {
				e.FinishedAt = s.Finished.UTC().Format(time.RFC3339Nano)
				ms := s.Finished.Sub(s.Started).Milliseconds()
				e.DurationMs = &ms
			}
		}
		out = append(out, e)
	}
	return out
}

func (h *initStatus) all(own bool) restjson.Handler {
	return func(c *restjson.Call) error {
		rep := h.r.Status()
		done := stageCompleted{
			Boot: rep.Completed[inithook.Boot], Start: rep.Completed[inithook.Start],
			Ready: rep.Completed[inithook.Ready], Shutdown: rep.Completed[inithook.Shutdown],
		}
		list := initScripts(rep.Scripts, own)
		if !own {
			return writePythonJSON(c, struct {
				Completed stageCompleted `json:"completed"`
				Scripts   []initScript   `json:"scripts"`
			}{done, list})
		}
		return writePythonJSON(c, struct {
			Completed stageCompleted `json:"completed"`
			Enabled   bool           `json:"enabled"`
			Scripts   []initScript   `json:"scripts"`
		}{done, rep.Enabled, list})
	}
}

func (h *initStatus) stage(own bool) restjson.Handler {
	return func(c *restjson.Call) error {
		name, _ := c.Ctx.UserValue("stage").(string)
		st, ok := inithook.ParseStage(name)
		if !ok {
			return awswire.Errorf(awswire.ServiceNone, awswire.CodeUnknownOperation,
				"No init stage %q; the stages are boot, start, ready and shutdown", clipStage(name, 64))
		}
		rep := h.r.Status()
		list := initScripts(rep.StageScripts(st), own)
		if !own {
			return writePythonJSON(c, struct {
				Completed bool         `json:"completed"`
				Scripts   []initScript `json:"scripts"`
			}{rep.Completed[st], list})
		}
		return writePythonJSON(c, struct {
			Completed bool         `json:"completed"`
			Stage     string       `json:"stage"`
			Enabled   bool         `json:"enabled"`
			Scripts   []initScript `json:"scripts"`
		}{rep.Completed[st], st.String(), rep.Enabled, list})
	}
}

// writePythonJSON writes v as JSON with Python's default separators (": " and
// ", "), which is the text health checks written for other emulators grep.
func writePythonJSON(c *restjson.Call, v any) error {
	b, err := restjson.Marshal(v)
	if err != nil {
		return err
	}
	c.Raw(http.StatusOK, pythonSpaced(b))
	return nil
}

// spaced adds a space after each ':' and ',' of compact JSON that is not
// inside a string.
func pythonSpaced(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	inString, escaped := false, false
	for _, ch := range b {
		out = append(out, ch)
		switch {
		case inString && escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case !inString && (ch == ':' || ch == ','):
			out = append(out, ' ')
		}
	}
	return out
}

func clipStage(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
