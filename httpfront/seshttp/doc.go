// Package seshttp serves Amazon SES's v1 API (the query protocol, through
// package awsrpc): it decodes each operation's input as the model names
// its members, calls package ses, and replies with the model's output
// members. It decides no rule of its own.
package seshttp
