// Package snshttp serves SNS's operations (the query protocol, through
// awsrpc): each handler decodes the model's input, calls actors/sns and
// replies with the model's output. It decides no rule of AWS's.
package snshttp
