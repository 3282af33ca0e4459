package functions

import (
	"embed"
	"os"
	"path/filepath"
)

// bootstraps are our runtime interface clients for the interpreted
// runtimes, written to LAMBDA_RUNTIME_DIR on first use.
//
//go:embed bootstrap/bootstrap.py bootstrap/bootstrap.js
var bootstraps embed.FS

// bootstrapScript is the path of one of our bootstraps on disk.
func (r *Runtime) bootstrapScript(name string) (string, error) {
	r.scriptsOnce.Do(func() {
		if err := os.MkdirAll(r.runtimeDir, 0o755); err != nil {
			r.scriptsErr = err
			return
		}
		for _, n := range []string{"bootstrap.py", "bootstrap.js"} {
			b, err := bootstraps.ReadFile("bootstrap/" + n)
			if err == nil {
				// Written beside and renamed, so a process never
				// starts a half-written script.
				tmp := filepath.Join(r.runtimeDir, "."+n+".tmp")
				if err = os.WriteFile(tmp, b, 0o644); err == nil {
					err = os.Rename(tmp, filepath.Join(r.runtimeDir, n))
				}
			}
			if err != nil {
				r.scriptsErr = err
				return
			}
		}
	})
	if r.scriptsErr != nil {
		return "", newError(CodeService, r.scriptsErr, "writing the runtime's bootstrap")
	}
	return filepath.Join(r.runtimeDir, name), nil
}
