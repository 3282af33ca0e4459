package awswire

// Service names one AWS API family the emulator answers for.
type Service uint8

// The services, as the models in aws-models/ name them.
const (
	ServiceNone Service = iota
	Backup
	APIGateway
	APIGatewayV2
	Lambda
	SQS
	SNS
	SES
	SESv2
)

// String returns the model directory name (backup, apigateway, apigatewayv2,
// lambda, sqs, sns, ses, sesv2).
func (s Service) String() string {
	switch s {
	case Backup:
		return "backup"
	case APIGateway:
		return "apigateway"
	case APIGatewayV2:
		return "apigatewayv2"
	case Lambda:
		return "lambda"
	case SQS:
		return "sqs"
	case SNS:
		return "sns"
	case SES:
		return "ses"
	case SESv2:
		return "sesv2"
	}
	return "none"
}

// Protocol is how a service's operations travel, as its model says.
type Protocol uint8

// The protocols of the models.
const (
	// RESTJSON operations are told apart by method and path.
	RESTJSON Protocol = iota + 1
	// JSON (awsJson1_0) operations all POST "/"; X-Amz-Target names them.
	JSON
	// Query operations all POST "/" (or GET); the form's Action names them.
	Query
)

// ServiceModel is what a service's model says about the service as a whole.
type ServiceModel struct {
	Service  Service
	Protocol Protocol
	// APIVersion is the model's version (the query protocol's Version).
	APIVersion string
	// SigningName is the SigV4 service name its clients sign with.
	SigningName string
	// Namespace is the Smithy namespace of its shapes (com.amazonaws.sqs),
	// with which the JSON protocol names error types.
	Namespace string
	// TargetPrefix is the JSON protocol's X-Amz-Target prefix (AmazonSQS).
	TargetPrefix string
	// XMLNamespace is the query protocol's response namespace.
	XMLNamespace string
	// QueryCompatible marks a JSON service whose clients read the query
	// protocol's error code from x-amzn-query-error (SQS).
	QueryCompatible bool
}

// Model returns the service's model description; ServiceNone has none.
func (s Service) Model() *ServiceModel {
	if s == ServiceNone || int(s) > len(ServiceModels) {
		return nil
	}
	return &ServiceModels[s-1]
}

// Operation is one operation of a service model: how it travels on the wire.
type Operation struct {
	Service Service
	// Name is the model's operation name, e.g. CreateBackupVault.
	Name string
	// Method is the HTTP method.
	Method string
	// Path is the model's requestUri without its literal query and without a
	// trailing slash (one is always optional on the wire). Labels keep the
	// model's spelling: {name} for one segment, {name+} for a greedy label.
	Path string
	// Query is the literal query of the requestUri ("mode=import",
	// "delete"), which tells this operation apart from one on the same path.
	Query string
	// Status is the success status: the model's responseCode, else 200.
	Status int
}

// ErrorShape is one exception shape of a service model.
type ErrorShape struct {
	Service Service
	// Code is the shape name, which is the wire error code (the JSON
	// protocol's __type).
	Code string
	// QueryCode is the awsQueryError code, where the model gives one: the
	// query protocol's <Code> and x-amzn-query-error's (SQS's QueueDoesNotExist
	// is AWS.SimpleQueueService.NonExistentQueue, SNS's NotFoundException is
	// NotFound).
	QueryCode string
	// Status is the model's httpStatusCode; where the model has none
	// (Backup), 500 for fault shapes and 400 for the others.
	Status int
	// Fault is true for server-side errors.
	Fault bool
	// Members are the body members the shape declares, in model order,
	// by their wire (JSON) names.
	Members []string
}

// Moved are operations that newer SDKs send to another path than the models
// in models/botocore give (aws-sdk-go-v2's sesv2 POSTs its listings): the
// front serves both.
var Moved = []Operation{
	{Service: SESv2, Name: "ListEmailIdentities", Method: "POST", Path: "/v2/email/list-identities", Status: 200},
	{Service: SESv2, Name: "ListConfigurationSets", Method: "POST", Path: "/v2/email/list-configuration-sets", Status: 200},
}
