package sqshttp

import (
	"github.com/cloudemu/emulator/actors/sqs"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/awsrpc"
)

// Partial names the operations that are only partly emulated (docs/sqs.md
// says how).
var Partial = []string{"AddPermission", "CancelMessageMoveTask", "CreateQueue", "ReceiveMessage",
	"SetQueueAttributes", "StartMessageMoveTask"}

// Handlers returns the handlers of the supported operations.
func Handlers(svc *sqs.Service) map[string]awsrpc.Handler {
	h := handlers{svc}
	return map[string]awsrpc.Handler{
		"CreateQueue":                  h.createQueue,
		"GetQueueUrl":                  h.getQueueURL,
		"ListQueues":                   h.listQueues,
		"DeleteQueue":                  h.deleteQueue,
		"GetQueueAttributes":           h.getQueueAttributes,
		"SetQueueAttributes":           h.setQueueAttributes,
		"SendMessage":                  h.sendMessage,
		"SendMessageBatch":             h.sendMessageBatch,
		"ReceiveMessage":               h.receiveMessage,
		"DeleteMessage":                h.deleteMessage,
		"DeleteMessageBatch":           h.deleteMessageBatch,
		"ChangeMessageVisibility":      h.changeMessageVisibility,
		"ChangeMessageVisibilityBatch": h.changeMessageVisibilityBatch,
		"PurgeQueue":                   h.purgeQueue,
		"TagQueue":                     h.tagQueue,
		"UntagQueue":                   h.untagQueue,
		"ListQueueTags":                h.listQueueTags,
		"ListDeadLetterSourceQueues":   h.listDeadLetterSourceQueues,
		"AddPermission":                h.addPermission,
		"RemovePermission":             h.removePermission,
		"StartMessageMoveTask":         h.startMessageMoveTask,
		"ListMessageMoveTasks":         h.listMessageMoveTasks,
		"CancelMessageMoveTask":        h.cancelMessageMoveTask,
	}
}

type handlers struct{ svc *sqs.Service }

// queueURL is the queue a request names: its QueueUrl member, else the
// path of the queue URL a query client posted to.
func queueURL(c *awsrpc.Call, given string) string {
	if given == "" && c.Path != "" && c.Path != "/" {
		return c.Path
	}
	return given
}

// queueInput is the member most inputs have.
type queueInput struct {
	QueueUrl string `json:"QueueUrl"` //nolint:revive // the model's name
}

type queueURLOutput struct {
	QueueUrl string `json:"QueueUrl"` //nolint:revive // the model's name
}

func (h handlers) createQueue(c *awsrpc.Call) error {
	var in sqs.CreateQueueInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	url, err := h.svc.CreateQueue(c.Scope, in)
	if err != nil {
		return err
	}
	return c.Reply(queueURLOutput{url})
}

func (h handlers) getQueueURL(c *awsrpc.Call) error {
	var in struct {
		QueueName              string `json:"QueueName"`
		QueueOwnerAWSAccountId string `json:"QueueOwnerAWSAccountId"` //nolint:revive // the model's name
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	url, err := h.svc.GetQueueURL(c.Scope, in.QueueName, in.QueueOwnerAWSAccountId)
	if err != nil {
		return err
	}
	return c.Reply(queueURLOutput{url})
}

func (h handlers) listQueues(c *awsrpc.Call) error {
	var in struct {
		QueueNamePrefix string `json:"QueueNamePrefix"`
		NextToken       string `json:"NextToken"`
		MaxResults      *int32 `json:"MaxResults"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	urls, next, err := h.svc.ListQueues(c.Scope, in.QueueNamePrefix, in.NextToken, in.MaxResults)
	if err != nil {
		return err
	}
	return c.Reply(struct {
		QueueUrls []string `json:"QueueUrls,omitempty"` //nolint:revive // the model's name
		NextToken string   `json:"NextToken,omitempty"`
	}{urls, next})
}

func (h handlers) deleteQueue(c *awsrpc.Call) error {
	var in queueInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.DeleteQueue(c.Scope, queueURL(c, in.QueueUrl)); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) getQueueAttributes(c *awsrpc.Call) error {
	var in struct {
		QueueUrl       string   `json:"QueueUrl"` //nolint:revive // the model's name
		AttributeNames []string `json:"AttributeNames"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	attrs, err := h.svc.GetQueueAttributes(c.Scope, queueURL(c, in.QueueUrl), in.AttributeNames)
	if err != nil {
		return err
	}
	return c.Reply(struct {
		Attributes map[string]string `json:"Attributes,omitempty"`
	}{attrs})
}

func (h handlers) setQueueAttributes(c *awsrpc.Call) error {
	var in struct {
		QueueUrl   string            `json:"QueueUrl"` //nolint:revive // the model's name
		Attributes map[string]string `json:"Attributes"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.SetQueueAttributes(c.Scope, queueURL(c, in.QueueUrl), in.Attributes); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) sendMessage(c *awsrpc.Call) error {
	var in sqs.SendMessageInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	in.QueueUrl = queueURL(c, in.QueueUrl)
	out, err := h.svc.SendMessage(c.Scope, &in)
	if err != nil {
		return err
	}
	return c.Reply(out)
}

func (h handlers) sendMessageBatch(c *awsrpc.Call) error {
	var in struct {
		QueueUrl string                             `json:"QueueUrl"` //nolint:revive // the model's name
		Entries  []sqs.SendMessageBatchRequestEntry `json:"Entries"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	out, err := h.svc.SendMessageBatch(c.Scope, queueURL(c, in.QueueUrl), in.Entries)
	if err != nil {
		return err
	}
	return c.Reply(out)
}

func (h handlers) receiveMessage(c *awsrpc.Call) error {
	var in sqs.ReceiveMessageInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	in.QueueUrl = queueURL(c, in.QueueUrl)
	ctx := newPollContext(c.Ctx)
	defer ctx.stop() // also on a panic: the watcher must leave the connection
	msgs, err := h.svc.ReceiveMessage(ctx, c.Scope, &in)
	if err != nil {
		return err
	}
	return c.Reply(struct {
		Messages []sqs.Received `json:"Messages,omitempty"`
	}{msgs})
}

func (h handlers) deleteMessage(c *awsrpc.Call) error {
	var in struct {
		QueueUrl      string `json:"QueueUrl"`      //nolint:revive // the model's name
		ReceiptHandle string `json:"ReceiptHandle"` //nolint:revive // the model's name
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.DeleteMessage(c.Scope, queueURL(c, in.QueueUrl), in.ReceiptHandle); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) deleteMessageBatch(c *awsrpc.Call) error {
	var in struct {
		QueueUrl string                               `json:"QueueUrl"` //nolint:revive // the model's name
		Entries  []sqs.DeleteMessageBatchRequestEntry `json:"Entries"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	out, err := h.svc.DeleteMessageBatch(c.Scope, queueURL(c, in.QueueUrl), in.Entries)
	if err != nil {
		return err
	}
	return c.Reply(out)
}

func (h handlers) changeMessageVisibility(c *awsrpc.Call) error {
	var in struct {
		QueueUrl          string `json:"QueueUrl"`      //nolint:revive // the model's name
		ReceiptHandle     string `json:"ReceiptHandle"` //nolint:revive // the model's name
		VisibilityTimeout *int32 `json:"VisibilityTimeout"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if in.VisibilityTimeout == nil {
		return awswire.New(awswire.SQS, awswire.CodeMissingParameter, "The request must contain the parameter VisibilityTimeout.")
	}
	if err := h.svc.ChangeMessageVisibility(c.Scope, queueURL(c, in.QueueUrl), in.ReceiptHandle, *in.VisibilityTimeout); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) changeMessageVisibilityBatch(c *awsrpc.Call) error {
	var in struct {
		QueueUrl string                                         `json:"QueueUrl"` //nolint:revive // the model's name
		Entries  []sqs.ChangeMessageVisibilityBatchRequestEntry `json:"Entries"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	out, err := h.svc.ChangeMessageVisibilityBatch(c.Scope, queueURL(c, in.QueueUrl), in.Entries)
	if err != nil {
		return err
	}
	return c.Reply(out)
}

func (h handlers) purgeQueue(c *awsrpc.Call) error {
	var in queueInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.PurgeQueue(c.Scope, queueURL(c, in.QueueUrl)); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) tagQueue(c *awsrpc.Call) error {
	var in struct {
		QueueUrl string            `json:"QueueUrl"` //nolint:revive // the model's name
		Tags     map[string]string `json:"Tags"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.TagQueue(c.Scope, queueURL(c, in.QueueUrl), in.Tags); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) untagQueue(c *awsrpc.Call) error {
	var in struct {
		QueueUrl string   `json:"QueueUrl"` //nolint:revive // the model's name
		TagKeys  []string `json:"TagKeys"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.UntagQueue(c.Scope, queueURL(c, in.QueueUrl), in.TagKeys); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) listQueueTags(c *awsrpc.Call) error {
	var in queueInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	tags, err := h.svc.ListQueueTags(c.Scope, queueURL(c, in.QueueUrl))
	if err != nil {
		return err
	}
	return c.Reply(struct {
		Tags map[string]string `json:"Tags,omitempty"`
	}{tags})
}

func (h handlers) listDeadLetterSourceQueues(c *awsrpc.Call) error {
	var in struct {
		QueueUrl   string `json:"QueueUrl"` //nolint:revive // the model's name
		NextToken  string `json:"NextToken"`
		MaxResults *int32 `json:"MaxResults"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	urls, next, err := h.svc.ListDeadLetterSourceQueues(c.Scope, queueURL(c, in.QueueUrl), in.NextToken, in.MaxResults)
	if err != nil {
		return err
	}
	return c.Reply(struct {
		QueueUrls []string `json:"queueUrls"`
		NextToken string   `json:"NextToken,omitempty"`
	}{urls, next})
}

func (h handlers) addPermission(c *awsrpc.Call) error {
	var in sqs.AddPermissionInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	in.QueueUrl = queueURL(c, in.QueueUrl)
	if err := h.svc.AddPermission(c.Scope, in); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) removePermission(c *awsrpc.Call) error {
	var in struct {
		QueueUrl string `json:"QueueUrl"` //nolint:revive // the model's name
		Label    string `json:"Label"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	if err := h.svc.RemovePermission(c.Scope, queueURL(c, in.QueueUrl), in.Label); err != nil {
		return err
	}
	return c.Reply(nil)
}

func (h handlers) startMessageMoveTask(c *awsrpc.Call) error {
	var in sqs.StartMessageMoveTaskInput
	if err := c.Decode(&in); err != nil {
		return err
	}
	handle, err := h.svc.StartMessageMoveTask(c.Scope, in)
	if err != nil {
		return err
	}
	return c.Reply(struct {
		TaskHandle string `json:"TaskHandle"` //nolint:revive // the model's name
	}{handle})
}

func (h handlers) listMessageMoveTasks(c *awsrpc.Call) error {
	var in struct {
		SourceArn  string `json:"SourceArn"` //nolint:revive // the model's name
		MaxResults *int32 `json:"MaxResults"`
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	tasks, err := h.svc.ListMessageMoveTasks(c.Scope, in.SourceArn, in.MaxResults)
	if err != nil {
		return err
	}
	return c.Reply(struct {
		Results []sqs.ListMessageMoveTasksResultEntry `json:"Results"`
	}{tasks})
}

func (h handlers) cancelMessageMoveTask(c *awsrpc.Call) error {
	var in struct {
		TaskHandle string `json:"TaskHandle"` //nolint:revive // the model's name
	}
	if err := c.Decode(&in); err != nil {
		return err
	}
	moved, err := h.svc.CancelMessageMoveTask(c.Scope, in.TaskHandle)
	if err != nil {
		return err
	}
	return c.Reply(struct {
		ApproximateNumberOfMessagesMoved int64 `json:"ApproximateNumberOfMessagesMoved"`
	}{moved})
}
