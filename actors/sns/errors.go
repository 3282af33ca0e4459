package sns

import (
	"strconv"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// Error shape names of the model (the protocol writes their query codes:
// InvalidParameter, NotFound, ...).
const (
	codeInvalidParameter      = "InvalidParameterException"
	codeInvalidParameterValue = "InvalidParameterValueException"
	codeNotFound              = "NotFoundException"
	codeResourceNotFound      = "ResourceNotFoundException"
	codeEndpointDisabled      = "EndpointDisabledException"
	codeTagLimitExceeded      = "TagLimitExceededException"
	codeTooManyEntries        = "TooManyEntriesInBatchRequestException"
	codeEmptyBatch            = "EmptyBatchRequestException"
	codeBatchIDsNotDistinct   = "BatchEntryIdsNotDistinctException"
	codeInvalidBatchEntryID   = "InvalidBatchEntryIdException"
	codeBatchTooLong          = "BatchRequestTooLongException"
	codeAuthorization         = "AuthorizationErrorException"
)

// InvalidParameter is AWS's "Invalid parameter: ..." error.
func InvalidParameter(reason string) *awswire.Error {
	return awswire.New(awswire.SNS, codeInvalidParameter, "Invalid parameter: "+reason)
}

// invalid is an InvalidParameter error whose message is given whole.
func invalid(message string) *awswire.Error {
	return awswire.New(awswire.SNS, codeInvalidParameter, message)
}

func invalidValue(message string) *awswire.Error {
	return awswire.New(awswire.SNS, codeInvalidParameterValue, message)
}

func notFound(message string) *awswire.Error {
	return awswire.New(awswire.SNS, codeNotFound, message)
}

func topicNotFound() *awswire.Error        { return notFound("Topic does not exist") }
func subscriptionNotFound() *awswire.Error { return notFound("Subscription does not exist") }
func appNotFound() *awswire.Error          { return notFound("PlatformApplication does not exist") }
func endpointNotFound() *awswire.Error     { return notFound("Endpoint does not exist") }

// parseARN checks an ARN member as SNS does: fewer than six colon-separated
// parts is InvalidParameter naming the member.
func parseARN(member, arn string) (awswire.ARN, error) {
	if arn == "" {
		return awswire.ARN{}, InvalidParameter(member + " Reason: no value for required parameter")
	}
	if n := strings.Count(arn, ":") + 1; n < 6 {
		return awswire.ARN{}, InvalidParameter(member + " Reason: An ARN must have at least 6 elements, not " + strconv.Itoa(n))
	}
	a, ok := awswire.ParseARN(arn)
	if !ok {
		return awswire.ARN{}, InvalidParameter(member)
	}
	return a, nil
}

// busy is the error for an owner that did not answer in time: SNS's
// throttling error, which SDKs retry.
func busy() error {
	return awswire.New(awswire.SNS, "ThrottledException", "Rate exceeded")
}
