package lambda

import (
	"fmt"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// Error codes Lambda answers that awswire does not name.
const (
	codeResourceConflict      = "ResourceConflictException"
	codePreconditionFailed    = "PreconditionFailedException"
	codeInvalidRequestContent = "InvalidRequestContentException"
	codePolicyLengthExceeded  = "PolicyLengthExceededException"
)

func notFound(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.Lambda, awswire.CodeResourceNotFound, format, args...)
}

// Invalid is Lambda's InvalidParameterValueException.
func Invalid(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.Lambda, awswire.CodeInvalidParameterValue, format, args...)
}

func conflict(format string, args ...any) *awswire.Error {
	return awswire.Errorf(awswire.Lambda, codeResourceConflict, format, args...)
}

// InvalidContent is the error for a request body that is not the JSON the
// operation takes, as Lambda words it.
func InvalidContent(reason string) *awswire.Error {
	return awswire.New(awswire.Lambda, codeInvalidRequestContent,
		"Could not parse request body into json: Could not parse payload into json: "+reason)
}

// Validation is the framework's ValidationException listing what failed,
// in Lambda's words: "1 validation error detected: Value 'x' at 'role'
// failed to satisfy constraint: ...".
func Validation(problems ...string) *awswire.Error {
	s := "s"
	if len(problems) == 1 {
		s = ""
	}
	return awswire.New(awswire.Lambda, awswire.CodeValidation,
		fmt.Sprintf("%d validation error%s detected: %s", len(problems), s, strings.Join(problems, "; ")))
}

// constraint is one validation problem: the value, the member (as the
// framework names it: lower camel case) and the constraint.
func constraint(value, member, c string) string {
	return fmt.Sprintf("Value '%s' at '%s' failed to satisfy constraint: %s", value, member, c)
}

// nullMember is the problem of a required member that is absent.
func nullMember(member string) string {
	return fmt.Sprintf("Value null at '%s' failed to satisfy constraint: Member must not be null", member)
}

// Missing is the ValidationException for a required member that is absent.
func Missing(member string) *awswire.Error { return Validation(nullMember(member)) }

func precondition() *awswire.Error {
	return awswire.New(awswire.Lambda, codePreconditionFailed,
		"The Revision Id provided does not match the latest Revision Id. Call the GetFunction/GetAlias API to retrieve the latest Revision Id")
}

// functionNotFound is the error for a function (or version) that does not
// exist, naming the ARN as the request named it.
func functionNotFound(arn string) *awswire.Error { return notFound("Function not found: %s", arn) }

func (s *Service) busy() error { return awswire.Unavailable(awswire.Lambda) }
