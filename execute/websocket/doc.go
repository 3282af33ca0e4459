// Package websocket runs WebSocket APIs (API Gateway v2, protocol
// WEBSOCKET): $connect with its Lambda REQUEST authorizer and integration,
// route selection on each message (routeSelectionExpression over the JSON
// body), the MOCK, HTTP, HTTP_PROXY and function integrations with their
// templates and integration responses, route responses sent back as
// frames, $disconnect, and the @connections management API
// (PostToConnection, GetConnection, DeleteConnection) over a lock-free
// registry of live connections.
//
// It owns the API Gateway semantics of a connection, not the socket: the
// front upgrades the HTTP connection, reads frames and hands each message
// to Message, and gives every connection a Socket that queues frames for
// one writer. Like execute/rest it reads only published snapshots and
// never enters an owner's mailbox; it must not import an HTTP server or a
// WebSocket library. docs/websocket.md says what is emulated.
package websocket
