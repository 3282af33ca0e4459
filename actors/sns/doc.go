// Package sns is the SNS domain: topics (each one owner holding its
// subscriptions), platform applications (each one owner holding its
// endpoints), AWS's rules and errors, filter policies, and the delivery of
// published messages to queues, HTTP endpoints, functions and the inbox.
// Publishing reads published snapshots and never enters an owner's
// mailbox; it must not import the HTTP front, which reaches it through
// httpfront/snshttp, nor another service's packages: queues, functions and
// HTTP endpoints are reached through the interfaces server implements.
package sns
