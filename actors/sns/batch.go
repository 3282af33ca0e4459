package sns

import (
	"context"
	"strconv"

	"github.com/cloudemu/emulator/awswire"
)

// BatchEntry is one entry of PublishBatch.
type BatchEntry struct {
	ID string
	Message
}

// BatchResult is one published entry.
type BatchResult struct {
	ID string
	PublishResult
}

// PublishBatch publishes up to ten messages to a topic. The request is
// checked whole first (AWS refuses a batch with an invalid entry), then
// every entry is published.
func (s *Service) PublishBatch(ctx context.Context, topicARN string, entries []BatchEntry) ([]BatchResult, error) {
	ref, t, err := s.topic("TopicArn", topicARN)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, awswire.New(awswire.SNS, codeEmptyBatch, "The batch request doesn't contain any entries.")
	}
	if len(entries) > 10 {
		return nil, awswire.New(awswire.SNS, codeTooManyEntries, "The batch request contains more entries than permissible.")
	}
	seen := map[string]bool{}
	total := 0
	for i := range entries {
		e := &entries[i]
		if len(e.ID) > 80 {
			return nil, awswire.New(awswire.SNS, codeInvalidBatchEntryID, "The Id of a batch entry in the batch request is too long: "+e.ID)
		}
		for _, c := range e.ID {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return nil, awswire.New(awswire.SNS, codeInvalidBatchEntryID, "The Id of a batch entry in the batch request contains an impermissible character: "+e.ID)
			}
		}
		if e.ID == "" {
			return nil, awswire.New(awswire.SNS, codeInvalidBatchEntryID, "The Id of a batch entry in the batch request contains an impermissible character: ")
		}
		if seen[e.ID] {
			return nil, awswire.New(awswire.SNS, codeBatchIDsNotDistinct, "Two or more batch entries in the request have the same Id.")
		}
		seen[e.ID] = true
		total += e.size()
	}
	if total > maxMessageBytes {
		return nil, awswire.New(awswire.SNS, codeBatchTooLong, "The length of all the messages put together is more than the limit.")
	}
	for i := range entries {
		if err := entries[i].check("publishBatchRequestEntries."+strconv.Itoa(i+1)+".member.messageAttributes", true, t.Fifo(), t.Attrs["ContentBasedDeduplication"] == "true"); err != nil {
			return nil, err
		}
	}
	out := make([]BatchResult, 0, len(entries))
	for _, e := range entries {
		out = append(out, BatchResult{ID: e.ID, PublishResult: s.fanOut(ctx, ref.sc, t, e.Message)})
	}
	return out, nil
}
