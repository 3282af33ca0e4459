package functions

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RuntimeInfo describes one of Lambda's runtimes as this machine runs it.
type RuntimeInfo struct {
	Name        string // Lambda's identifier, e.g. "python3.12"
	Available   bool   // functions of this runtime run here
	Interpreter string // the interpreter's path ("" for OS-only runtimes)
	Version     string // the interpreter's version, e.g. "3.11.7"
	How         string // how a function of this runtime runs here
	Problem     string // why it does not run here, when it does not
}

// family is how a runtime's functions are started.
type family int

const (
	native family = iota // the zip's bootstrap (or, for go1.x, the handler) runs as is
	python               // the machine's python3 runs our embedded bootstrap.py
	node                 // the machine's node runs our embedded bootstrap.js
)

// runtimeNames are the runtimes this package runs, in the order Runtimes
// lists them. Deprecated ones stay: Lambda still invokes their functions.
var runtimeNames = []struct {
	name string
	fam  family
}{
	{"provided.al2023", native}, {"provided.al2", native}, {"provided", native}, {"go1.x", native},
	{"python3.14", python}, {"python3.13", python}, {"python3.12", python}, {"python3.11", python},
	{"python3.10", python}, {"python3.9", python}, {"python3.8", python},
	{"nodejs24.x", node}, {"nodejs22.x", node}, {"nodejs20.x", node}, {"nodejs18.x", node}, {"nodejs16.x", node},
}

// notRunHere are Lambda runtimes (by prefix) that exist but that this
// package has no bootstrap for.
var notRunHere = []string{"java", "dotnet", "ruby", "python2", "nodejs4", "nodejs6", "nodejs8", "nodejs10", "nodejs12", "nodejs14"}

// listedNotRunHere are the current ones of those, which Runtimes lists as
// unavailable.
var listedNotRunHere = []string{"java25", "java21", "java17", "java11", "java8.al2", "dotnet10", "dotnet8", "ruby3.4", "ruby3.3", "ruby3.2"}

const supportedList = "provided.al2023, provided.al2, provided, go1.x, python3.8 to python3.14, nodejs16.x to nodejs24.x"

func familyOf(name string) (family, bool) {
	for _, r := range runtimeNames {
		if r.name == name {
			return r.fam, true
		}
	}
	return 0, false
}

// interpreter is a language runtime found on this machine, probed once.
type interpreter struct {
	command  string   // as configured: "python3", or a path
	probe    []string // arguments that print the executable's path, then its version
	minMajor int      // oldest major (python: minor of 3) version our bootstrap supports
	isPython bool

	once    sync.Once
	path    string
	version string
	err     error
}

func newPython(command string) *interpreter {
	return &interpreter{command: command, isPython: true, minMajor: 8,
		probe: []string{"-c", "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3])"}}
}

func newNode(command string) *interpreter {
	return &interpreter{command: command, minMajor: 16,
		probe: []string{"-e", "console.log(process.execPath); console.log(process.versions.node)"}}
}

// resolve finds the interpreter's real executable: a version manager's shim
// (pyenv, nvm) costs tens of milliseconds on every cold start, so functions
// run the binary the shim would have run.
func (i *interpreter) resolve() (path, version string, err error) {
	i.once.Do(func() {
		lp, err := exec.LookPath(i.command)
		if err != nil {
			i.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, lp, i.probe...).Output()
		if err != nil {
			i.err = fmt.Errorf("%s %s: %w", lp, strings.Join(i.probe, " "), err)
			return
		}
		lines := strings.Fields(string(out))
		if len(lines) != 2 {
			i.err = fmt.Errorf("%s: unexpected answer to a version probe: %q", lp, out)
			return
		}
		i.path, i.version = lines[0], lines[1]
		if i.path == "" {
			i.path = lp
		}
		parts := strings.Split(i.version, ".")
		idx := 0
		if i.isPython {
			idx = 1 // 3.x: the minor is what matters
		}
		if len(parts) <= idx {
			i.err = fmt.Errorf("%s: unreadable version %q", lp, i.version)
			return
		}
		if n, _ := strconv.Atoi(parts[idx]); n < i.minMajor || (i.isPython && parts[0] != "3") {
			i.err = fmt.Errorf("%s is version %s, older than this emulator's bootstrap supports", lp, i.version)
		}
	})
	return i.path, i.version, i.err
}

// launch says how to start one function's process: the command and its
// arguments, and the AWS_EXECUTION_ENV value ("" for OS-only runtimes).
type launch struct {
	argv    []string
	execEnv string
}

// errEntrypoint is a bootstrap that cannot run: Lambda reports it as the
// function's error Runtime.InvalidEntrypoint, not as an API error.
type errEntrypoint struct{ msg string }

func (e *errEntrypoint) Error() string { return e.msg }

// launchFor decides how fn runs, given its code's directory.
func (r *Runtime) launchFor(fn *Function, codeDir string) (launch, error) {
	fam, ok := familyOf(fn.Runtime)
	if !ok {
		return launch{}, unsupportedRuntime(fn.Runtime)
	}
	switch fam {
	case python:
		path, _, err := r.python.resolve()
		if err != nil {
			return launch{}, newError(CodeInvalidRuntime, err, "The runtime %s needs %s on this machine, which is not usable", fn.Runtime, r.cfg.Python)
		}
		script, err := r.bootstrapScript("bootstrap.py")
		if err != nil {
			return launch{}, err
		}
		// -u: unbuffered, so every line reaches the log before the
		// answer that follows it.
		return launch{argv: []string{path, "-u", script}, execEnv: "AWS_Lambda_" + fn.Runtime}, nil
	case node:
		path, _, err := r.node.resolve()
		if err != nil {
			return launch{}, newError(CodeInvalidRuntime, err, "The runtime %s needs %s on this machine, which is not usable", fn.Runtime, r.cfg.Node)
		}
		script, err := r.bootstrapScript("bootstrap.js")
		if err != nil {
			return launch{}, err
		}
		return launch{argv: []string{path, script}, execEnv: "AWS_Lambda_" + fn.Runtime}, nil
	}
	// OS-only: the zip's bootstrap; go1.x ran the executable its handler names.
	exe := codeDir + "/bootstrap"
	if fn.Runtime == "go1.x" {
		if fn.Handler == "" || strings.Contains(fn.Handler, "..") {
			return launch{}, &errEntrypoint{fmt.Sprintf("invalid handler %q for go1.x", fn.Handler)}
		}
		exe = codeDir + "/" + fn.Handler
	}
	return launch{argv: []string{exe}}, nil
}

func unsupportedRuntime(name string) *Error {
	for _, p := range notRunHere {
		if strings.HasPrefix(name, p) {
			return newError(CodeInvalidRuntime, nil, "The runtime parameter of %s is not supported by this emulator: it runs %s", name, supportedList)
		}
	}
	return newError(CodeInvalidRuntime, nil, "The runtime parameter of %q is not a Lambda runtime this emulator knows: it runs %s", name, supportedList)
}

// Runtimes lists every runtime this package knows, probing the machine's
// interpreters (once) to say which run here and with what.
func (r *Runtime) Runtimes() []RuntimeInfo {
	out := make([]RuntimeInfo, 0, len(runtimeNames))
	for _, rt := range runtimeNames {
		info := RuntimeInfo{Name: rt.name, Available: true}
		switch rt.fam {
		case native:
			info.How = "the zip's executable bootstrap runs natively"
			if rt.name == "go1.x" {
				info.How = "the executable the handler names runs natively (as go1.x did)"
			}
		case python, node:
			in, lang := r.python, "Python"
			if rt.fam == node {
				in, lang = r.node, "Node.js"
			}
			path, version, err := in.resolve()
			info.Interpreter, info.Version = path, version
			if err != nil {
				info.Available = false
				info.Problem = err.Error()
			}
			info.How = fmt.Sprintf("%s %s (%s) runs the emulator's embedded bootstrap, which loads the handler", lang, version, in.command)
		}
		out = append(out, info)
	}
	for _, name := range listedNotRunHere {
		out = append(out, RuntimeInfo{Name: name, Problem: "the emulator has no bootstrap for this runtime"})
	}
	return out
}
