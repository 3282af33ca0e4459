package server

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/cloudemu/emulator/actors/sns"
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
	svc.SetMaxLongPolls(env.Config.SQSMaxLongPolls)
	if env.Queues != nil {
		env.Queues.svc.Store(svc)
	}
	endpoint := func(port int) {
		svc.SetEndpoint("http://" + env.Config.ExternalHostname + ":" + strconv.Itoa(port))
	}
	endpoint(env.Config.Port)
	return Service{Name: "sqs", Wire: awswire.SQS, Owners: svc,
		RPC: sqshttp.Handlers(svc), Partial: sqshttp.Partial, Listening: endpoint,
		PeekQueue: func(sc awswire.Scope, name, after string, limit int) (compat.PeekedQueue, bool) {
			return peekQueue(svc, sc, name, after, limit)
		}}
}

// peekQueue is a page of the queue's published snapshot in the peek
// endpoints' shape: only the page is converted.
func peekQueue(svc *sqs.Service, sc awswire.Scope, name, after string, limit int) (compat.PeekedQueue, bool) {
	p, ok := svc.Peek(sc, name)
	if !ok {
		return compat.PeekedQueue{}, false
	}
	page := p.Messages
	if after != "" {
		for i := range page {
			if page[i].MessageId == after {
				page = page[i+1:]
				break
			}
		}
	}
	out := compat.PeekedQueue{QueueURL: p.QueueURL, QueueARN: p.QueueARN}
	if limit > 0 && len(page) > limit {
		page = page[:limit]
		out.NextToken = page[limit-1].MessageId
	}
	out.Messages = make([]compat.QueueMessage, len(page))
	for i, m := range page {
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

// queueDeliverer is SNS's sns.Queues over the SQS service, which the
// registry builds first.
type queueDeliverer struct {
	svc atomic.Pointer[sqs.Service]
}

func (q *queueDeliverer) Deliver(ctx context.Context, queueARN string, m sns.QueueMessage) error {
	svc := q.svc.Load()
	if svc == nil {
		return errors.New("server: the SQS service is not built")
	}
	d := sqs.Delivery{Body: m.Body, GroupID: m.GroupID, DedupID: m.DedupID}
	if len(m.Attributes) > 0 {
		d.Attributes = make(map[string]sqs.MessageAttribute, len(m.Attributes))
		for k, a := range m.Attributes {
			d.Attributes[k] = sqs.MessageAttribute{DataType: a.DataType, StringValue: a.StringValue, BinaryValue: a.BinaryValue}
		}
	}
	return svc.Deliver(ctx, queueARN, d)
}
