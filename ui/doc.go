// Package ui owns the dashboard served at /_emulator/ui: server-rendered
// pages of what the emulator holds (APIs, stages, usage plans, functions,
// queues, captured mail), a live traffic view fed by Server-Sent Events from
// the request metrics, and the request inspector over the data plane's trace
// ring. It only reads what the services and the data plane already publish;
// its writes are a confirmed reset and clearing the inbox. Its files (pages,
// styles, scripts and the vendored chart library) are embedded in the binary.
package ui
