// Package sqshttp serves SQS's operations over awsrpc (JSON 1.0 and the
// query protocol alike): each handler decodes the model's input, names the
// queue (the QueueUrl member, else the queue URL path a query client posted
// to), calls package sqs and replies with the model's output. It decides
// no rule of SQS.
package sqshttp
