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
	// Code is the shape name, which is the wire error code.
	Code string
	// Status is the model's httpStatusCode; where the model has none
	// (Backup), 500 for fault shapes and 400 for the others.
	Status int
	// Fault is true for server-side errors.
	Fault bool
	// Members are the body members the shape declares, in model order,
	// by their wire (JSON) names.
	Members []string
}
