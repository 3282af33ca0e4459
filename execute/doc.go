// Package execute is the data plane's common ground: the request and
// response an executor works on (the front adapts them to and from HTTP),
// the pieces every API kind's pipeline shares (query and header handling,
// selection patterns, gateway-style errors, the backend contract and
// admission control), and nothing that knows an HTTP server. Executors
// live in its sub-packages, one per API kind (rest for REST APIs). They
// read only immutable snapshots and never enter an owner's mailbox.
package execute
