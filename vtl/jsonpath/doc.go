// Package jsonpath evaluates JSONPath expressions the way API Gateway does:
// API Gateway's $input.json and $input.path run Jayway JsonPath, so this
// package follows Jayway's grammar and results rather than Goessner's
// original article.
//
// Supported: the root `$` (a path without it is read as `$.` + path, as
// Jayway does), `.name`, `['name']` / `["name"]`, `['a','b']` (merged into
// one object when last, as Jayway does), `[n]` with negative n counting
// from the end, `[n,m]`, slices `[a:b]`, `[a:]`, `[:b]`, wildcards `[*]`
// and `.*`, deep scan `..name` / `..*` / `..[n]`, and filters
// `[?(...)]` with `@`/`$` paths, literals, `== != < <= > >=`, `&& || !`
// and parentheses. Functions (`.length()`) and the regex and set filter
// operators are rejected with a *SyntaxError.
//
// A definite path (no wildcard, scan, slice, filter, or several indexes)
// yields one value or nothing; an indefinite one yields a JSON list of
// every match, possibly empty. Paths are compiled once: Lookup keeps a
// bounded, lock-free cache of compiled paths. Evaluation is bounded in
// nodes visited and scan depth (ErrTooComplex), since nested scans and
// filters can cost a power of the document's size.
//
// The package evaluates vtl values (*vtl.Map, *vtl.List, scalars) and
// depends on nothing else of the engine; it must not import vtl/gateway.
package jsonpath
