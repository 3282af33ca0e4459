package awswire

import (
	"fmt"
	"slices"
	"strconv"
)

// Error codes used by this project. The model's shapes give their statuses
// (see ErrorShapes); the emulator's own codes, for what no model declares,
// are at the end.
const (
	// Backup.
	CodeAlreadyExists         = "AlreadyExistsException"
	CodeInvalidParameterValue = "InvalidParameterValueException"
	CodeInvalidRequest        = "InvalidRequestException"
	CodeLimitExceeded         = "LimitExceededException"
	CodeMissingParameterValue = "MissingParameterValueException"
	CodeResourceNotFound      = "ResourceNotFoundException"
	CodeServiceUnavailable    = "ServiceUnavailableException"
	// API Gateway (v1 and v2).
	CodeBadRequest      = "BadRequestException"
	CodeConflict        = "ConflictException"
	CodeNotFound        = "NotFoundException"
	CodeTooManyRequests = "TooManyRequestsException"
	CodeUnauthorized    = "UnauthorizedException"
	// Lambda (besides the shared InvalidParameterValueException,
	// ResourceNotFoundException and TooManyRequestsException).
	CodeServiceException = "ServiceException"

	// Coral framework errors: model-level validation and JSON that does
	// not fit the shape, which the models do not declare.
	CodeValidation    = "ValidationException"
	CodeSerialization = "SerializationException"

	// The emulator's own codes.
	CodeNotImplemented        = "NotImplementedException"
	CodeUnknownOperation      = "UnknownOperationException"
	CodeRequestEntityTooLarge = "RequestEntityTooLargeException"
	CodeRequestTimeout        = "RequestTimeoutException"
	CodeUnsupportedMediaType  = "UnsupportedMediaTypeException"
	CodeInternalFailure       = "InternalFailure"
)

// ownCodes are the statuses of the codes no model declares.
var ownCodes = map[string]int{
	CodeValidation:            400,
	CodeSerialization:         400,
	CodeNotImplemented:        501, // not retried by SDKs, unlike 500/503
	CodeUnknownOperation:      404,
	CodeRequestEntityTooLarge: 413,
	CodeRequestTimeout:        408,
	CodeUnsupportedMediaType:  415,
	CodeInternalFailure:       500,
}

// The query protocol's common errors, which every query service (and SQS,
// whose JSON clients read them from x-amzn-query-error) answers although
// its model does not declare them. Handlers of SQS, SNS and SES return them
// by these codes. commonCodes also knows the other common codes AWS
// documents (InvalidParameterCombination, InvalidQueryParameter,
// AccessDenied, OptInRequired, RequestExpired, Throttling), by name: no
// handler answers them yet.
const (
	CodeInvalidAction              = "InvalidAction"
	CodeMissingParameter           = "MissingParameter"
	CodeInvalidParameterValueQuery = "InvalidParameterValue"
	CodeMalformedQueryString       = "MalformedQueryString"
	CodeValidationError            = "ValidationError"
	CodeServiceUnavailableQuery    = "ServiceUnavailable"
	// CodeNotImplementedQuery is the emulator's answer, in the query and
	// JSON services' shape, to an operation it does not implement.
	CodeNotImplementedQuery = "NotImplemented"
)

// commonCode is a common error's status and the type the JSON protocol
// names it with (the Coral framework's shapes, as SQS answers them).
type commonCode struct {
	status   int
	jsonType string
}

// commonCodes are the errors of query and JSON services no model declares.
var commonCodes = map[string]commonCode{
	CodeInvalidAction:              {400, "com.amazon.coral.service#UnknownOperationException"},
	CodeMissingParameter:           {400, "com.amazon.coral.service#MissingRequiredParameterException"},
	CodeInvalidParameterValueQuery: {400, "com.amazon.coral.service#InvalidParameterValueException"},
	"InvalidParameterCombination":  {400, "com.amazon.coral.service#InvalidParameterCombinationException"},
	CodeMalformedQueryString:       {404, "com.amazon.coral.service#MalformedQueryStringException"},
	"InvalidQueryParameter":        {400, "com.amazon.coral.service#InvalidQueryParameterException"},
	CodeValidationError:            {400, "com.amazon.coral.validate#ValidationException"},
	"AccessDenied":                 {403, "com.amazon.coral.service#AccessDeniedException"},
	CodeInternalFailure:            {500, "com.amazon.coral.service#InternalFailure"},
	CodeServiceUnavailableQuery:    {503, "com.amazon.coral.service#ServiceUnavailableException"},
	"OptInRequired":                {403, "com.amazon.coral.service#OptInRequired"},
	"RequestExpired":               {400, "com.amazon.coral.service#RequestExpired"},
	"Throttling":                   {400, "com.amazon.coral.availability#ThrottlingException"},
	CodeSerialization:              {400, "com.amazon.coral.service#SerializationException"},
	CodeRequestEntityTooLarge:      {413, "com.amazon.coral.service#RequestEntityTooLargeException"},
	CodeRequestTimeout:             {408, "com.amazon.coral.service#RequestTimeoutException"},
	CodeNotImplementedQuery:        {501, "NotImplemented"},
}

// rpc reports whether svc's operations are named in the request (query
// and JSON protocols), which is when the common codes apply.
func rpc(svc Service) bool {
	m := svc.Model()
	return m != nil && m.Protocol != RESTJSON
}

// QueryCode is how the query protocol and x-amzn-query-error spell e's
// code: the shape's awsQueryError code where the model gives one, else the
// code itself.
func (e *Error) QueryCode() string {
	if s, ok := shapes[shapeKey{e.Service, e.Code}]; ok && s.QueryCode != "" {
		return s.QueryCode
	}
	return e.Code
}

// JSONType is the JSON protocol's __type of e: the shape's name in the
// model's namespace (com.amazonaws.sqs#QueueDoesNotExist), or the
// framework's type for a common code.
func (e *Error) JSONType() string {
	if _, ok := shapes[shapeKey{e.Service, e.Code}]; ok {
		if m := e.Service.Model(); m != nil {
			return m.Namespace + "#" + e.Code
		}
		return e.Code
	}
	if c, ok := commonCodes[e.Code]; ok {
		return c.jsonType
	}
	return e.Code
}

// Sender reports whether e is the client's fault (the query protocol's
// <Type>Sender</Type>); the service's own failures are Receiver.
func (e *Error) Sender() bool {
	if s, ok := shapes[shapeKey{e.Service, e.Code}]; ok {
		return !s.Fault
	}
	return e.Status < 500
}

// Field is one extra body member of an error (Backup's Context, Arn, ...).
type Field struct {
	Name  string
	Value string
}

// Error is an error as the client sees it: a service's error code, the
// status it travels with, a message, and any extra members its shape
// declares. Handlers and owners return *Error; httpfront writes it.
type Error struct {
	Service Service
	Code    string
	Status  int
	Message string
	Fields  []Field
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// With returns a copy of e with an extra body member.
func (e *Error) With(name, value string) *Error {
	c := *e
	c.Fields = append(append([]Field(nil), e.Fields...), Field{name, value})
	return &c
}

type shapeKey struct {
	svc  Service
	code string
}

var shapes = func() map[shapeKey]*ErrorShape {
	m := make(map[shapeKey]*ErrorShape, len(ErrorShapes))
	for i := range ErrorShapes {
		s := &ErrorShapes[i]
		m[shapeKey{s.Service, s.Code}] = s
	}
	return m
}()

// Shape returns the model's shape for code, if the service declares it.
func Shape(svc Service, code string) (*ErrorShape, bool) {
	s, ok := shapes[shapeKey{svc, code}]
	return s, ok
}

// New returns an error with the status the service's model gives code.
// A code neither the model nor the emulator declares is a programming
// error and becomes InternalFailure, so that a typo can never reach a
// client as a made-up code.
func New(svc Service, code, message string) *Error {
	if s, ok := shapes[shapeKey{svc, code}]; ok {
		return &Error{Service: svc, Code: code, Status: s.Status, Message: message}
	}
	if rpc(svc) {
		if c, ok := commonCodes[code]; ok {
			return &Error{Service: svc, Code: code, Status: c.status, Message: message}
		}
	}
	if st, ok := ownCodes[code]; ok {
		return &Error{Service: svc, Code: code, Status: st, Message: message}
	}
	// The emulator's own endpoints have no model; they borrow API
	// Gateway's name for a bad request, as does the front's answer to a
	// Lambda request it cannot read (Lambda's model declares no such code).
	if (svc == ServiceNone || svc == Lambda) && code == CodeBadRequest {
		return &Error{Service: svc, Code: code, Status: 400, Message: message}
	}
	return &Error{Service: svc, Code: CodeInternalFailure, Status: 500,
		Message: "undeclared error code " + code + ": " + message}
}

// Errorf is New with a formatted message.
func Errorf(svc Service, code, format string, args ...any) *Error {
	return New(svc, code, fmt.Sprintf(format, args...))
}

// Internal is the error a client sees for any failure that is not in the
// catalogue. The Go error text never reaches the client.
func Internal(svc Service) *Error {
	switch svc {
	case Backup:
		return New(svc, CodeServiceUnavailable, "An internal error occurred. The request can be retried.")
	case Lambda:
		return New(svc, CodeServiceException, "An internal error occurred.")
	case SNS:
		return New(svc, "InternalErrorException", "An internal error occurred.")
	case SESv2:
		return New(svc, "InternalServiceErrorException", "An internal error occurred.")
	}
	return New(svc, CodeInternalFailure, "An internal error occurred.")
}

// Unavailable is the error for an owner that did not answer in time.
func Unavailable(svc Service) *Error {
	switch svc {
	case Backup:
		return New(svc, CodeServiceUnavailable, "The service is busy. Retry the request.")
	case APIGateway, APIGatewayV2:
		return New(svc, CodeTooManyRequests, "Too Many Requests")
	case Lambda:
		return New(svc, CodeTooManyRequests, "Rate exceeded").With("Reason", "CallerRateLimitExceeded")
	case SQS, SNS, SES:
		return New(svc, CodeServiceUnavailableQuery, "The service is busy. Retry the request.")
	case SESv2:
		return New(svc, CodeTooManyRequests, "The service is busy. Retry the request.")
	}
	return New(svc, CodeInternalFailure, "The service is busy. Retry the request.")
}

// StoreUnavailable is the error for a write the data directory refused (a
// full, read-only or failing disk): nothing was changed, and the same
// request may succeed once the disk recovers. A service whose model
// declares ServiceUnavailableException answers it (Backup, API Gateway);
// SQS, SNS and SES the query protocol's common ServiceUnavailable; the
// others a 503 under the same name in their own body shape.
func StoreUnavailable(svc Service) *Error {
	const msg = "The emulator could not save the change: its data directory refused the write " +
		"(full, read-only or failing). Nothing was changed; retry once the disk has space again."
	if _, ok := shapes[shapeKey{svc, CodeServiceUnavailable}]; ok {
		return New(svc, CodeServiceUnavailable, msg)
	}
	if rpc(svc) {
		return New(svc, CodeServiceUnavailableQuery, msg)
	}
	return &Error{Service: svc, Code: CodeServiceUnavailable, Status: 503, Message: msg}
}

// AppendBody appends the JSON error body for e as its service shapes it:
// Backup {"Code","Message","Type",...}; API Gateway {"message"}; Lambda
// {"Type","message"} or {"Type","Message"} as the shape spells its member
// ({"message"} for codes the model does not declare); SES v2 {"message"};
// the JSON protocol (SQS) {"__type","message"}; the emulator's own
// endpoints {"code","message"}.
func AppendBody(dst []byte, e *Error) []byte {
	switch e.Service {
	case Backup:
		typ := "Client"
		if e.Status >= 500 {
			typ = "Server"
		}
		dst = append(dst, `{"Code":`...)
		dst = AppendString(dst, e.Code)
		dst = append(dst, `,"Message":`...)
		dst = AppendString(dst, e.Message)
		dst = append(dst, `,"Type":`...)
		dst = AppendString(dst, typ)
	case APIGateway, APIGatewayV2:
		// Framework errors carry a capitalised Message, service errors
		// the model's lower-case one.
		if e.Code == CodeValidation || e.Code == CodeSerialization {
			dst = append(dst, `{"Message":`...)
		} else {
			dst = append(dst, `{"message":`...)
		}
		dst = AppendString(dst, e.Message)
	case SESv2:
		dst = append(dst, `{"message":`...)
		dst = AppendString(dst, e.Message)
	case SQS, SNS, SES:
		dst = append(dst, `{"__type":`...)
		dst = AppendString(dst, e.JSONType())
		dst = append(dst, `,"message":`...)
		dst = AppendString(dst, e.Message)
	case Lambda:
		// Lambda's shapes spell the message member either way
		// (ResourceNotFoundException: Message; InvalidParameterValueException:
		// message); Type is User for client errors, Service for its own.
		s, declared := shapes[shapeKey{e.Service, e.Code}]
		if !declared {
			dst = append(dst, `{"message":`...)
			dst = AppendString(dst, e.Message)
			break
		}
		typ := "User"
		if e.Status >= 500 {
			typ = "Service"
		}
		dst = append(dst, `{"Type":`...)
		dst = AppendString(dst, typ)
		if slices.Contains(s.Members, "Message") {
			dst = append(dst, `,"Message":`...)
		} else {
			dst = append(dst, `,"message":`...)
		}
		dst = AppendString(dst, e.Message)
	default:
		dst = append(dst, `{"code":`...)
		dst = AppendString(dst, e.Code)
		dst = append(dst, `,"message":`...)
		dst = AppendString(dst, e.Message)
	}
	for _, f := range e.Fields {
		dst = append(dst, ',')
		dst = AppendString(dst, f.Name)
		dst = append(dst, ':')
		dst = AppendString(dst, f.Value)
	}
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// AppendEpochSeconds appends a timestamp in the rest-json default form:
// epoch seconds as a JSON number with millisecond precision.
func AppendEpochSeconds(dst []byte, unixMilli int64) []byte {
	u := uint64(unixMilli)
	if unixMilli < 0 {
		dst = append(dst, '-')
		u = -u // two's complement: right for math.MinInt64 too
	}
	sec, ms := u/1000, u%1000
	dst = strconv.AppendUint(dst, sec, 10)
	if ms == 0 {
		return dst
	}
	dst = append(dst, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	return dst
}
