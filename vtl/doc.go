// Package vtl is a Velocity Template Language engine that renders what API
// Gateway renders: templates compile once into a tree, render against
// variables with Java-like values (strings, numbers, lists, ordered maps,
// host objects), and every render is bounded in steps, depth, output and
// time so that a hostile template cannot hang or exhaust the emulator. It
// knows nothing of HTTP; API Gateway's $input, $util and $context live in
// vtl/gateway.
package vtl
