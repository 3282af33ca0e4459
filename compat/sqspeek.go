package compat

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

// Queue peeking: every message of a queue, with its state, consuming
// nothing and counting no receive.

// PeekedQueue is a queue's messages as its owner last published them: a
// page of them, NextToken naming the last when more follow.
type PeekedQueue struct {
	QueueURL  string         `json:"queueUrl"`
	QueueARN  string         `json:"queueArn"`
	Messages  []QueueMessage `json:"messages"`
	NextToken string         `json:"nextToken,omitempty"`
}

// QueueMessage is one message of a peeked queue. State is visible,
// inflight or delayed; ReceiptHandle is the last receive's, while in
// flight.
type QueueMessage struct {
	MessageID              string                           `json:"messageId"`
	ReceiptHandle          string                           `json:"receiptHandle,omitempty"`
	Body                   string                           `json:"body"`
	MD5OfBody              string                           `json:"md5OfBody"`
	MD5OfMessageAttributes string                           `json:"md5OfMessageAttributes,omitempty"`
	Attributes             map[string]string                `json:"attributes"`
	MessageAttributes      map[string]QueueMessageAttribute `json:"messageAttributes,omitempty"`
	State                  string                           `json:"state"`
	ReceiveCount           int                              `json:"receiveCount"`
}

// QueueMessageAttribute is a message attribute, members as SQS names them.
type QueueMessageAttribute struct {
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue,omitempty"`
	BinaryValue []byte `json:"BinaryValue,omitempty"`
}

// The states of a peeked message.
const (
	StateVisible  = "visible"
	StateInflight = "inflight"
	StateDelayed  = "delayed"
)

const pathPeek = "/_emulator/sqs/messages"

// queueName is SQS's: 1 to 80 letters, digits, hyphens and underscores,
// with .fifo at the end of a FIFO queue's.
var queueName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}(\.fifo)?$`)

// accountID is twelve digits.
var accountID = regexp.MustCompile(`^[0-9]{12}$`)

// queueAddress is where a queue URL points: account, region (empty when
// the URL does not say) and name.
type queueAddress struct{ account, region, name string }

// parseQueueURL reads a queue URL, http(s)://host/{account}/{name}. The
// region is read from AWS's host forms (sqs.{region}.amazonaws.com,
// {region}.queue.amazonaws.com, sqs.{region}.localhost…).
func parseQueueURL(raw string) (queueAddress, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return queueAddress{}, false
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(segs) != 2 || !accountID.MatchString(segs[0]) || !queueName.MatchString(segs[1]) {
		return queueAddress{}, false
	}
	a := queueAddress{account: segs[0], name: segs[1]}
	labels := strings.Split(u.Hostname(), ".")
	switch {
	case len(labels) >= 3 && labels[0] == "sqs":
		a.region = labels[1]
	case len(labels) >= 3 && labels[1] == "queue":
		a.region = labels[0]
	}
	return a, true
}

// PeekHandler serves GET /{account}/{queue} (the front sends it the
// requests to a queue URL's path that name no action) and
// /_emulator/sqs/messages?QueueUrl=: the queue's every message in the
// emulator's own shape. The region is the request's (its signature, else
// the default), or the query's region.
func PeekHandler(d Deps) restjson.Handler {
	h := &endpoints{d: d}
	return h.peekOwn
}

func (h *endpoints) peekOwn(c *restjson.Call) error {
	var a queueAddress
	if raw, ok := c.Query("QueueUrl"); ok {
		var valid bool
		if a, valid = parseQueueURL(raw); !valid {
			return awswire.New(awswire.ServiceNone, awswire.CodeBadRequest,
				"QueueUrl must be a queue URL, http://{host}/{account}/{queue}: "+truncate(raw))
		}
	} else {
		segs := strings.Split(strings.Trim(requestPath(c), "/"), "/")
		if requestPath(c) == pathPeek {
			return awswire.New(awswire.ServiceNone, awswire.CodeBadRequest,
				"The query parameter QueueUrl names the queue to peek.")
		}
		if len(segs) != 2 || !accountID.MatchString(segs[0]) || !queueName.MatchString(segs[1]) {
			return awswire.New(awswire.ServiceNone, awswire.CodeBadRequest, "Not a queue path: "+truncate(requestPath(c)))
		}
		a = queueAddress{account: segs[0], name: segs[1]}
	}
	if r := query(c, "region"); r != "" {
		a.region = r
	}
	if a.region == "" {
		a.region = c.Scope.Region
	}
	if a.region == "" {
		a.region = h.d.Config.DefaultRegion
	}
	limit, present, err := c.QueryInt("limit", 1, maxPage)
	if err != nil {
		return err
	}
	if !present {
		limit = defaultPage
	}
	q, ok := h.peek(a, query(c, "nextToken"), limit)
	if !ok {
		return awswire.New(awswire.ServiceNone, awswire.CodeUnknownOperation,
			"The queue "+a.name+" does not exist in account "+a.account+" and region "+a.region+".")
	}
	return c.JSON(http.StatusOK, q)
}

// peek reads a page of the queue at a.
func (h *endpoints) peek(a queueAddress, after string, limit int) (PeekedQueue, bool) {
	if h.d.PeekQueue == nil {
		return PeekedQueue{}, false
	}
	q, ok := h.d.PeekQueue(awswire.Scope{Account: a.account, Region: a.region}, a.name, after, limit)
	if ok && q.Messages == nil {
		q.Messages = []QueueMessage{}
	}
	return q, ok
}

// The compatibility form answers as ReceiveMessage does, in the protocol of
// the request: JSON when it is sent as the JSON protocol's content type or
// asks for JSON, else the query protocol's XML; at most the first 10,000
// messages (maxPage) are read. Visible messages only,
// unless ShowInvisible or ShowDelayed (true or 1) add the others, marked
// with the IsVisible and IsDelayed attributes. Receipt handles are a
// placeholder: nothing was received.

// peekReceipt is the receipt handle of every peeked message.
const peekReceipt = "SQS/BACKDOOR/ACCESS"

var (
	contentTypeAmzJSON = []byte("application/x-amz-json-1.0")
	mimeJSON           = []byte("application/json")
)

// peekAliasRoutes serve /_cloud/sqs/messages (GET and POST, QueueUrl in the
// query or the form) and /_cloud/sqs/messages/{region}/{account}/{queue},
// in every spelling.
func (h *endpoints) peekAliasRoutes() []Route {
	var rs []Route
	for _, base := range []string{"/_cloud/sqs/messages", "/_compat/sqs/messages"} {
		for _, p := range Spellings(base) {
			rs = append(rs, Route{http.MethodGet, p, h.peekAlias}, Route{http.MethodPost, p, h.peekAlias},
				Route{http.MethodGet, p + "/{region}/{account}/{queue}", h.peekAlias})
		}
	}
	return rs
}

// peekAliasMessage is a message as ReceiveMessage answers it.
type peekAliasMessage struct {
	MessageID              string                           `json:"MessageId"`
	ReceiptHandle          string                           `json:"ReceiptHandle"`
	MD5OfBody              string                           `json:"MD5OfBody"`
	Body                   string                           `json:"Body"`
	Attributes             map[string]string                `json:"Attributes,omitempty"`
	MD5OfMessageAttributes string                           `json:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      map[string]QueueMessageAttribute `json:"MessageAttributes,omitempty"`
}

func (h *endpoints) peekAlias(c *restjson.Call) error {
	ctx := c.Ctx
	proto := awsrpc.Query
	if ct := ctx.Request.Header.ContentType(); bytes.HasPrefix(ct, contentTypeAmzJSON) ||
		bytes.Contains(ctx.Request.Header.Peek("Accept"), mimeJSON) {
		proto = awsrpc.JSON
	}
	param := func(name string) string {
		if v := ctx.QueryArgs().Peek(name); v != nil {
			return string(v)
		}
		return string(ctx.PostArgs().Peek(name))
	}
	if proto == awsrpc.JSON && ctx.IsPost() {
		// A JSON body names the queue as ReceiveMessage's input does.
		var in struct{ QueueUrl string }
		if json.Unmarshal(ctx.PostBody(), &in) == nil && in.QueueUrl != "" {
			ctx.QueryArgs().Set("QueueUrl", in.QueueUrl)
		}
	}
	var a queueAddress
	if region, _ := ctx.UserValue("region").(string); region != "" {
		account, _ := ctx.UserValue("account").(string)
		name, _ := ctx.UserValue("queue").(string)
		a = queueAddress{account: account, region: region, name: name}
	} else {
		raw := param("QueueUrl")
		if raw == "" {
			awsrpc.WriteErrorTo(ctx, proto, awswire.New(awswire.SQS, "QueueDoesNotExist", "The specified queue does not exist."))
			return nil
		}
		var valid bool
		if a, valid = parseQueueURL(raw); !valid {
			awsrpc.WriteErrorTo(ctx, proto, awswire.New(awswire.SQS, "InvalidAddress",
				"The address "+truncate(raw)+" is not valid for this endpoint."))
			return nil
		}
	}
	if a.region == "" {
		a.region = c.Scope.Region
	}
	if a.region == "" {
		a.region = h.d.Config.DefaultRegion
	}
	q, ok := h.peek(a, "", maxPage)
	if !ok {
		awsrpc.WriteErrorTo(ctx, proto, awswire.New(awswire.SQS, "QueueDoesNotExist", "The specified queue does not exist."))
		return nil
	}
	showInvisible, showDelayed := truthy(param("ShowInvisible")), truthy(param("ShowDelayed"))
	out := struct {
		Messages []peekAliasMessage `json:"Messages,omitempty"`
	}{}
	for _, m := range q.Messages {
		switch {
		case m.State == StateInflight && !showInvisible, m.State == StateDelayed && !showDelayed:
			continue
		}
		attrs := maps.Clone(m.Attributes)
		if attrs == nil {
			attrs = map[string]string{}
		}
		if showInvisible {
			attrs["IsVisible"] = strconv.FormatBool(m.State != StateInflight)
		}
		if showDelayed {
			attrs["IsDelayed"] = strconv.FormatBool(m.State == StateDelayed)
		}
		out.Messages = append(out.Messages, peekAliasMessage{MessageID: m.MessageID, ReceiptHandle: peekReceipt,
			MD5OfBody: m.MD5OfBody, Body: m.Body, Attributes: attrs,
			MD5OfMessageAttributes: m.MD5OfMessageAttributes, MessageAttributes: m.MessageAttributes})
	}
	rc := awsrpc.Acquire()
	defer awsrpc.Release(rc)
	rc.Ctx, rc.Service, rc.Op, rc.Scope, rc.Protocol = ctx, awswire.SQS, "ReceiveMessage", c.Scope, proto
	return rc.Reply(&out)
}

// truthy reads a flag parameter: true or 1.
func truthy(v string) bool { return strings.EqualFold(v, "true") || v == "1" }
