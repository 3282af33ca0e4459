// Package ses owns Amazon SES's resources, shared by the v1 (query) and v2
// (REST-JSON) APIs as on AWS: one owner per identity (an email address or
// a domain) and one per email template, each a single record run by
// package actors' single-record helpers and persisted under
// v1/<account>/<region>/ses/. Identities are verified as soon as they are
// created. Reads, and the sender check of every send, come from published
// snapshots; writes run inside the owner and are durable before they are
// answered.
//
// Sending never enters an owner: a message is checked (sender verified,
// recipients, sizes), rendered when it names a template (the Handlebars
// subset SES documents: {{a.b}}, #if, #unless, #each), parsed when it is raw MIME, counted
// in a lock-free per-scope send counter (GetSendQuota, GetSendStatistics)
// and captured in the emulator's inbox; nothing is delivered anywhere. The
// package returns each API's own errors (API says which), and knows
// nothing of HTTP.
package ses
