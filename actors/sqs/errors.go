package sqs

import (
	"fmt"

	"github.com/cloudemu/emulator/awswire"
)

// Error codes: the model's shape names and SQS's common codes. The
// protocol layer writes the query codes (AWS.SimpleQueueService.*).
const (
	codeQueueDoesNotExist      = "QueueDoesNotExist"
	codeQueueNameExists        = "QueueNameExists"
	codeInvalidParameterValue  = "InvalidParameterValue"
	codeMissingParameter       = "MissingParameter"
	codeInvalidAttributeName   = "InvalidAttributeName"
	codeInvalidAttributeValue  = "InvalidAttributeValue"
	codeInvalidMessageContents = "InvalidMessageContents"
	codeReceiptHandleIsInvalid = "ReceiptHandleIsInvalid"
	codeMessageNotInflight     = "MessageNotInflight"
	codePurgeQueueInProgress   = "PurgeQueueInProgress"
	codeEmptyBatchRequest      = "EmptyBatchRequest"
	codeTooManyEntries         = "TooManyEntriesInBatchRequest"
	codeBatchEntryIdsNotDist   = "BatchEntryIdsNotDistinct"
	codeInvalidBatchEntryID    = "InvalidBatchEntryId"
	codeBatchRequestTooLong    = "BatchRequestTooLong"
	codeResourceNotFound       = "ResourceNotFoundException"
	codeOverLimit              = "OverLimit"
)

func sqsError(code, format string, args ...any) *awswire.Error {
	if len(args) == 0 {
		return awswire.New(awswire.SQS, code, format)
	}
	return awswire.New(awswire.SQS, code, fmt.Sprintf(format, args...))
}

// QueueDoesNotExist is the error for a queue that does not exist.
func QueueDoesNotExist() *awswire.Error {
	return sqsError(codeQueueDoesNotExist, "The specified queue does not exist.")
}

func invalidParameter(format string, args ...any) *awswire.Error {
	return sqsError(codeInvalidParameterValue, format, args...)
}

func missingParameter(name string) *awswire.Error {
	return sqsError(codeMissingParameter, "The request must contain the parameter %s.", name)
}

func unknownAttribute(name string) *awswire.Error {
	return sqsError(codeInvalidAttributeName, "Unknown Attribute %s.", name)
}

func invalidAttributeValue(name string) *awswire.Error {
	return sqsError(codeInvalidAttributeValue, "Invalid value for the parameter %s.", name)
}

func invalidHandle(handle string) *awswire.Error {
	return sqsError(codeReceiptHandleIsInvalid, "The input receipt handle \"%s\" is not a valid receipt handle.", handle)
}

func busy() error { return awswire.Unavailable(awswire.SQS) }
