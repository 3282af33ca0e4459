package sqs

import (
	"encoding/base64"
	"encoding/json"

	"github.com/cloudemu/emulator/awswire"
)

// MoveTask is one message move task, kept by its source queue (the last
// ten).
type MoveTask struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	SourceArn      string `json:"source"`         //nolint:revive // the model's name
	DestinationArn string `json:"destination"`    //nolint:revive // the model's name
	MaxPerSecond   *int32 `json:"rate,omitempty"` // MaxNumberOfMessagesPerSecond
	Moved          int64  `json:"moved"`          // ApproximateNumberOfMessagesMoved
	ToMove         int64  `json:"toMove"`         // ApproximateNumberOfMessagesToMove
	Started        int64  `json:"started"`        // unix ms
	Failure        string `json:"failure,omitempty"`
}

const keptMoveTasks = 10

// StartMessageMoveTaskInput is StartMessageMoveTask's input.
type StartMessageMoveTaskInput struct {
	SourceArn                    string `json:"SourceArn"`      //nolint:revive // the model's name
	DestinationArn               string `json:"DestinationArn"` //nolint:revive // the model's name
	MaxNumberOfMessagesPerSecond *int32 `json:"MaxNumberOfMessagesPerSecond"`
}

type taskHandle struct {
	TaskID    string `json:"taskId"`
	SourceArn string `json:"sourceArn"`
}

func resourceNotFound(param string) *awswire.Error {
	return sqsError(codeResourceNotFound, "The resource that you specified for the %s parameter doesn't exist.", param)
}

// StartMessageMoveTask moves the messages of a dead-letter queue that are
// available to the destination queue, or each back to the queue it came
// from. The emulator moves them at once (the rate is recorded, not
// applied): the task is COMPLETED when the call returns.
func (s *Service) StartMessageMoveTask(sc awswire.Scope, in StartMessageMoveTaskInput) (string, error) {
	ssc, name, ok := parseQueueARN(in.SourceArn)
	if !ok {
		return "", invalidParameter("You must use this format to specify the SourceArn: arn:<partition>:<service>:<region>:<account-id>:<resource-id>")
	}
	e, q, ok := s.entry(ssc, name)
	if !ok {
		return "", resourceNotFound("SourceArn")
	}
	isDLQ := false
	for _, src := range s.scopes.Get(ssc).queues.Ordered("") {
		if src.conf.deadLetterARN == q.ARN {
			isDLQ = true
			break
		}
	}
	if !isDLQ {
		return "", invalidParameter("Source queue must be configured as a Dead Letter Queue.")
	}
	if in.DestinationArn != "" {
		if _, _, ok := s.deadLetterQueue(in.DestinationArn); !ok {
			return "", resourceNotFound("DestinationArn")
		}
	}
	if r := in.MaxNumberOfMessagesPerSecond; r != nil && (*r < 1 || *r > 500) {
		return "", invalidParameter("Value %d for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: Must be between 1 and 500.", *r)
	}
	task := MoveTask{ID: awswire.UUID(), Status: "COMPLETED", SourceArn: q.ARN, DestinationArn: in.DestinationArn,
		MaxPerSecond: in.MaxNumberOfMessagesPerSecond, Started: s.now().UnixMilli()}
	_, err := s.update(e, func(w *work) (any, error) {
		byDest := map[string][]*Message{}
		var order []string
		for _, m := range w.q.Messages.All() {
			if m.State != stateVisible {
				continue
			}
			dest := in.DestinationArn
			if dest == "" {
				dest = m.extra().DLQSource
			}
			if dest == "" {
				continue
			}
			if _, ok := byDest[dest]; !ok {
				order = append(order, dest)
			}
			byDest[dest] = append(byDest[dest], m)
			w.remove(m)
			task.Moved++
		}
		task.ToMove = task.Moved
		tasks := append([]MoveTask{task}, w.q.MoveTasks...)
		if len(tasks) > keptMoveTasks {
			tasks = tasks[:keptMoveTasks]
		}
		w.q.MoveTasks = tasks
		w.recs = append(w.recs, putQueue(w.q))
		w.afters = append(w.afters, func() {
			for _, d := range order {
				// Out of the dead-letter queue, messages lose its mark.
				s.transfer(d, byDest[d], "", true)
			}
		})
		return nil, nil
	})
	if err != nil {
		return "", err
	}
	h, _ := json.Marshal(taskHandle{TaskID: task.ID, SourceArn: q.ARN})
	return base64.StdEncoding.EncodeToString(h), nil
}

// ListMessageMoveTasksResultEntry is one task as ListMessageMoveTasks
// shows it.
type ListMessageMoveTasksResultEntry struct {
	TaskHandle                        string `json:"TaskHandle,omitempty"` //nolint:revive // the model's name
	Status                            string `json:"Status"`
	SourceArn                         string `json:"SourceArn"`                //nolint:revive // the model's name
	DestinationArn                    string `json:"DestinationArn,omitempty"` //nolint:revive // the model's name
	MaxNumberOfMessagesPerSecond      *int32 `json:"MaxNumberOfMessagesPerSecond,omitempty"`
	ApproximateNumberOfMessagesMoved  int64  `json:"ApproximateNumberOfMessagesMoved"`
	ApproximateNumberOfMessagesToMove *int64 `json:"ApproximateNumberOfMessagesToMove,omitempty"`
	FailureReason                     string `json:"FailureReason,omitempty"`
	StartedTimestamp                  int64  `json:"StartedTimestamp"`
}

// ListMessageMoveTasks lists a source queue's most recent move tasks,
// newest first (max 1 to 10, default 1).
func (s *Service) ListMessageMoveTasks(sc awswire.Scope, sourceARN string, max *int32) ([]ListMessageMoveTasksResultEntry, error) {
	ssc, name, ok := parseQueueARN(sourceARN)
	if !ok {
		return nil, invalidParameter("You must use this format to specify the SourceArn: arn:<partition>:<service>:<region>:<account-id>:<resource-id>")
	}
	q, ok := s.snapshot(ssc, name)
	if !ok {
		return nil, resourceNotFound("SourceArn")
	}
	n := 1
	if max != nil {
		if *max < 1 || *max > 10 {
			return nil, invalidParameter("Value %d for parameter MaxResults is invalid. Reason: You must enter a number that's between 1 and 10.", *max)
		}
		n = int(*max)
	}
	out := []ListMessageMoveTasksResultEntry{}
	for _, t := range q.MoveTasks {
		if len(out) == n {
			break
		}
		toMove := t.ToMove
		e := ListMessageMoveTasksResultEntry{Status: t.Status, SourceArn: t.SourceArn, DestinationArn: t.DestinationArn,
			MaxNumberOfMessagesPerSecond: t.MaxPerSecond, ApproximateNumberOfMessagesMoved: t.Moved,
			ApproximateNumberOfMessagesToMove: &toMove, FailureReason: t.Failure, StartedTimestamp: t.Started}
		out = append(out, e)
	}
	return out, nil
}

// CancelMessageMoveTask cancels a running task. The emulator's tasks end
// when they start, so a well-formed handle names a task that is no longer
// running.
func (s *Service) CancelMessageMoveTask(sc awswire.Scope, handle string) (int64, error) {
	raw, err := base64.StdEncoding.DecodeString(handle)
	var h taskHandle
	if err != nil || json.Unmarshal(raw, &h) != nil || h.TaskID == "" {
		return 0, invalidParameter("Value for parameter TaskHandle is invalid.")
	}
	ssc, name, ok := parseQueueARN(h.SourceArn)
	if !ok {
		return 0, invalidParameter("Value for parameter TaskHandle is invalid.")
	}
	if _, ok := s.snapshot(ssc, name); !ok {
		return 0, resourceNotFound("SourceArn")
	}
	return 0, sqsError(codeResourceNotFound, "Task does not exist.")
}
