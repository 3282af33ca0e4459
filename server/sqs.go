package server

import (
	"strconv"

	"github.com/cloudemu/emulator/actors/sqs"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/compat"
	"github.com/cloudemu/emulator/httpfront/sqshttp"
)

// sqsService is SQS: queue owners holding their messages, served over the
// JSON and query protocols. Queue URLs name the emulator's external
// hostname and the port it listens on, learned once it listens.
func sqsService(env Env) Service {
	svc := sqs.New(env.Sys, env.Store, env.Now, env.Log)
	endpoint := func(port int) {
		svc.SetEndpoint("http://" + env.Config.ExternalHostname + ":" + strconv.Itoa(port))
	}
	endpoint(env.Config.Port)
	return Service{Name: "sqs", Wire: awswire.SQS, Owners: svc,
		RPC: sqshttp.Handlers(svc), Partial: sqshttp.Partial, Listening: endpoint,
		PeekQueue: func(sc awswire.Scope, name string) (compat.PeekedQueue, bool) {
			return peekQueue(svc, sc, name)
		}}
}

// peekQueue is the queue's published snapshot in the peek endpoints' shape.
func peekQueue(svc *sqs.Service, sc awswire.Scope, name string) (compat.PeekedQueue, bool) {
	p, ok := svc.Peek(sc, name)
	if !ok {
		return compat.PeekedQueue{}, false
	}
	out := compat.PeekedQueue{QueueURL: p.QueueURL, QueueARN: p.QueueARN, Messages: make([]compat.QueueMessage, len(p.Messages))}
	for i, m := range p.Messages {
		qm := compat.QueueMessage{MessageID: m.MessageId, ReceiptHandle: m.ReceiptHandle, Body: m.Body,
			MD5OfBody: m.MD5OfBody, MD5OfMessageAttributes: sqs.MD5OfAttributes(m.MessageAttributes),
			Attributes: m.Attributes, State: m.State, ReceiveCount: m.ReceiveCount}
		if len(m.MessageAttributes) > 0 {
			qm.MessageAttributes = make(map[string]compat.QueueMessageAttribute, len(m.MessageAttributes))
			for k, a := range m.MessageAttributes {
				qm.MessageAttributes[k] = compat.QueueMessageAttribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: a.BinaryValue}
			}
		}
		out.Messages[i] = qm
	}
	return out, true
}
