// Command opsgen writes operations_gen.go, the wire package's table of
// operations and exception shapes, from the botocore models in
// awswire/models/botocore, and rpcmodels/*.json, the query services' shapes
// without their documentation. It runs from the awswire directory via go
// generate:
//
//	go run ./internal/opsgen [-models DIR] [-out FILE] [-rpcmodels DIR]
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// services lists the models in the order of the awswire.Service constants,
// which is also the order of the generated tables.
var services = []struct {
	ident string // wire.Service constant
	dir   string // model directory under -models
	// namespace is the Smithy namespace of the model's shapes, which the
	// JSON protocol's __type names (botocore's models do not carry it).
	namespace string
	// queryErrors are the awsQueryError codes the Smithy model gives the
	// exception shapes where botocore's model omits them.
	queryErrors map[string]queryError
	// xmlNamespace is the query protocol's namespace of a JSON service
	// that also serves the query protocol (SQS's last query model).
	xmlNamespace string
}{
	{ident: "Backup", dir: "backup/2018-11-15", namespace: "com.amazonaws.backup"},
	{ident: "APIGateway", dir: "apigateway/2015-07-09", namespace: "com.amazonaws.apigateway"},
	{ident: "APIGatewayV2", dir: "apigatewayv2/2018-11-29", namespace: "com.amazonaws.apigatewayv2"},
	{ident: "Lambda", dir: "lambda/2015-03-31", namespace: "com.amazonaws.lambda"},
	{ident: "SQS", dir: "sqs/2012-11-05", namespace: "com.amazonaws.sqs", queryErrors: sqsQueryErrors,
		xmlNamespace: "http://queue.amazonaws.com/doc/2012-11-05/"},
	{ident: "SNS", dir: "sns/2010-03-31", namespace: "com.amazonaws.sns"},
	{ident: "SES", dir: "ses/2010-12-01", namespace: "com.amazonaws.ses"},
	{ident: "SESv2", dir: "sesv2/2019-09-27", namespace: "com.amazonaws.sesv2"},
}

// queryError is an exception shape's awsQueryError trait: the code the
// query protocol (and x-amzn-query-error) spells it with, and its status.
type queryError struct {
	code   string
	status int
}

// sqsQueryErrors are the awsQueryError traits of SQS's Smithy model, which
// botocore's JSON model of SQS dropped: SQS's clients still read these codes
// from x-amzn-query-error, and the query protocol answers them.
var sqsQueryErrors = map[string]queryError{
	"BatchEntryIdsNotDistinct":     {"AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400},
	"BatchRequestTooLong":          {"AWS.SimpleQueueService.BatchRequestTooLong", 400},
	"EmptyBatchRequest":            {"AWS.SimpleQueueService.EmptyBatchRequest", 400},
	"InvalidAddress":               {"InvalidAddress", 404},
	"InvalidAttributeName":         {"InvalidAttributeName", 400},
	"InvalidAttributeValue":        {"InvalidAttributeValue", 400},
	"InvalidBatchEntryId":          {"AWS.SimpleQueueService.InvalidBatchEntryId", 400},
	"InvalidIdFormat":              {"InvalidIdFormat", 400},
	"InvalidMessageContents":       {"InvalidMessageContents", 400},
	"InvalidSecurity":              {"InvalidSecurity", 403},
	"KmsAccessDenied":              {"KMS.AccessDeniedException", 400},
	"KmsDisabled":                  {"KMS.DisabledException", 400},
	"KmsInvalidKeyUsage":           {"KMS.InvalidKeyUsageException", 400},
	"KmsInvalidState":              {"KMS.InvalidStateException", 400},
	"KmsNotFound":                  {"KMS.NotFoundException", 400},
	"KmsOptInRequired":             {"KMS.OptInRequired", 403},
	"KmsThrottled":                 {"KMS.ThrottlingException", 400},
	"MessageNotInflight":           {"AWS.SimpleQueueService.MessageNotInflight", 400},
	"OverLimit":                    {"OverLimit", 403},
	"PurgeQueueInProgress":         {"AWS.SimpleQueueService.PurgeQueueInProgress", 403},
	"QueueDeletedRecently":         {"AWS.SimpleQueueService.QueueDeletedRecently", 400},
	"QueueDoesNotExist":            {"AWS.SimpleQueueService.NonExistentQueue", 400},
	"QueueNameExists":              {"QueueAlreadyExists", 400},
	"ReceiptHandleIsInvalid":       {"ReceiptHandleIsInvalid", 404},
	"RequestThrottled":             {"RequestThrottled", 403},
	"ResourceNotFoundException":    {"ResourceNotFoundException", 404},
	"TooManyEntriesInBatchRequest": {"AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400},
	"UnsupportedOperation":         {"AWS.SimpleQueueService.UnsupportedOperation", 400},
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "opsgen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("opsgen", flag.ContinueOnError)
	models := fs.String("models", "models/botocore", "botocore model `dir`ectory")
	out := fs.String("out", "operations_gen.go", "output `file`")
	rpcOut := fs.String("rpcmodels", "rpcmodels", "`dir`ectory of the query services' compact models")
	if err := fs.Parse(args); err != nil {
		return err
	}
	src, err := generate(*models)
	if err != nil {
		return err
	}
	rpc, err := generateRPCModels(*models)
	if err != nil {
		return err
	}
	if err := writeRPCModels(*rpcOut, rpc); err != nil {
		return err
	}
	return os.WriteFile(*out, src, 0o644)
}

// model is the part of a service-2.json that opsgen reads.
type model struct {
	Metadata struct {
		APIVersion         string          `json:"apiVersion"`
		Protocol           string          `json:"protocol"`
		TargetPrefix       string          `json:"targetPrefix"`
		XMLNamespace       string          `json:"xmlNamespace"`
		SigningName        string          `json:"signingName"`
		EndpointPrefix     string          `json:"endpointPrefix"`
		AWSQueryCompatible json.RawMessage `json:"awsQueryCompatible"`
	} `json:"metadata"`
	Operations map[string]struct {
		HTTP struct {
			Method       string `json:"method"`
			RequestURI   string `json:"requestUri"`
			ResponseCode int    `json:"responseCode"`
		} `json:"http"`
	} `json:"operations"`
	Shapes map[string]struct {
		Exception bool `json:"exception"`
		Fault     bool `json:"fault"`
		Error     struct {
			Code           string `json:"code"`
			HTTPStatusCode int    `json:"httpStatusCode"`
		} `json:"error"`
		Members members `json:"members"`
	} `json:"shapes"`
}

type member struct {
	Name         string `json:"-"`
	Shape        string `json:"shape"`
	Location     string `json:"location"`
	LocationName string `json:"locationName"`
	Flattened    bool   `json:"flattened"`
}

// members keeps a structure's members in model order, which decoding into
// a Go map would lose; ErrorShape.Members promises model order.
type members []member

// UnmarshalJSON decodes a members object key by key.
func (ms *members) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("members: want an object, got %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, ok := tok.(string)
		if !ok {
			return fmt.Errorf("members: want a key, got %v", tok)
		}
		m := member{Name: name}
		if err := dec.Decode(&m); err != nil {
			return fmt.Errorf("member %s: %w", name, err)
		}
		*ms = append(*ms, m)
	}
	_, err = dec.Token() // the closing '}'
	return err
}

type operation struct {
	name, method, path, query string
	status                    int
}

type errorShape struct {
	code      string
	queryCode string
	status    int
	fault     bool
	members   []string
}

// generate reads the models under dir and returns the gofmt-ed source of
// operations_gen.go.
func generate(dir string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by opsgen; DO NOT EDIT.\n\n")
	b.WriteString("// Source: the botocore models in awswire/models/botocore:\n")
	for _, s := range services {
		fmt.Fprintf(&b, "// %s/service-2.json\n", s.dir)
	}
	b.WriteString("\npackage awswire\n\n")

	var ops, errs, svcs bytes.Buffer
	svcs.WriteString("// ServiceModels describes each service model's protocol, in the order\n// of the Service constants.\nvar ServiceModels = []ServiceModel{\n")
	ops.WriteString("// Operations lists every operation of the service models, sorted by\n// service, then by name.\nvar Operations = []Operation{\n")
	errs.WriteString("// ErrorShapes lists every exception shape of the service models, sorted\n// by service, then by code.\nvar ErrorShapes = []ErrorShape{\n")
	for _, s := range services {
		m, err := readModel(filepath.Join(dir, filepath.FromSlash(s.dir), "service-2.json"))
		if err != nil {
			return nil, err
		}
		protocol, ok := protocols[m.Metadata.Protocol]
		if !ok {
			return nil, fmt.Errorf("%s: protocol %q", s.dir, m.Metadata.Protocol)
		}
		signing := m.Metadata.SigningName
		if signing == "" {
			signing = m.Metadata.EndpointPrefix
		}
		fmt.Fprintf(&svcs, "{Service: %s, Protocol: %s, APIVersion: %q, SigningName: %q, Namespace: %q", s.ident, protocol,
			m.Metadata.APIVersion, signing, s.namespace)
		if m.Metadata.TargetPrefix != "" {
			fmt.Fprintf(&svcs, ", TargetPrefix: %q", m.Metadata.TargetPrefix)
		}
		if ns := cmp.Or(m.Metadata.XMLNamespace, s.xmlNamespace); ns != "" {
			fmt.Fprintf(&svcs, ", XMLNamespace: %q", ns)
		}
		if m.Metadata.AWSQueryCompatible != nil {
			svcs.WriteString(", QueryCompatible: true")
		}
		svcs.WriteString("},\n")
		list, err := operations(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.dir, err)
		}
		fmt.Fprintf(&ops, "// %s: %d operations.\n", s.dir, len(list))
		for _, o := range list {
			fmt.Fprintf(&ops, "{Service: %s, Name: %q, Method: %q, Path: %q", s.ident, o.name, o.method, o.path)
			if o.query != "" {
				fmt.Fprintf(&ops, ", Query: %q", o.query)
			}
			fmt.Fprintf(&ops, ", Status: %d},\n", o.status)
		}
		es := errorShapes(m, s.queryErrors)
		fmt.Fprintf(&errs, "// %s: %d exception shapes.\n", s.dir, len(es))
		for _, e := range es {
			fmt.Fprintf(&errs, "{Service: %s, Code: %q, Status: %d", s.ident, e.code, e.status)
			if e.queryCode != "" {
				fmt.Fprintf(&errs, ", QueryCode: %q", e.queryCode)
			}
			if e.fault {
				errs.WriteString(", Fault: true")
			}
			errs.WriteString(", Members: []string{")
			for i, n := range e.members {
				if i > 0 {
					errs.WriteString(", ")
				}
				errs.WriteString(strconv.Quote(n))
			}
			errs.WriteString("}},\n")
		}
	}
	svcs.WriteString("}\n\n")
	ops.WriteString("}\n\n")
	errs.WriteString("}\n")
	b.Write(svcs.Bytes())
	b.Write(ops.Bytes())
	b.Write(errs.Bytes())

	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gofmt: %w", err)
	}
	return src, nil
}

func readModel(path string) (*model, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m model
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(m.Operations) == 0 {
		return nil, fmt.Errorf("%s: no operations", path)
	}
	return &m, nil
}

// operations returns m's operations sorted by name.
func operations(m *model) ([]operation, error) {
	var out []operation
	for name, op := range m.Operations {
		uri := op.HTTP.RequestURI
		if op.HTTP.Method == "" || !strings.HasPrefix(uri, "/") {
			return nil, fmt.Errorf("%s: bad http %q %q", name, op.HTTP.Method, uri)
		}
		path, query, _ := strings.Cut(uri, "?")
		// botocore writes some Backup URIs with a trailing slash that the Go
		// SDK's models lack; the table keeps the slash-less form.
		if len(path) > 1 {
			path = strings.TrimSuffix(path, "/")
		}
		status := op.HTTP.ResponseCode
		if status == 0 {
			status = 200 // the model omits the default
		}
		out = append(out, operation{name: name, method: op.HTTP.Method, path: path, query: query, status: status})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// protocols maps a model's protocol to its awswire.Protocol constant.
var protocols = map[string]string{"rest-json": "RESTJSON", "json": "JSON", "query": "Query"}

// errorShapes returns m's exception shapes sorted by code; queryErrors
// supplies the awsQueryError traits the model lacks.
func errorShapes(m *model, queryErrors map[string]queryError) []errorShape {
	var out []errorShape
	for name, sh := range m.Shapes {
		if !sh.Exception {
			continue
		}
		e := errorShape{code: name, status: sh.Error.HTTPStatusCode, fault: sh.Fault}
		if m.Metadata.Protocol == "query" && sh.Error.Code != "" {
			e.queryCode = sh.Error.Code
		}
		if q, ok := queryErrors[name]; ok {
			e.queryCode, e.status = q.code, q.status
		}
		if e.status == 0 {
			// Backup's shapes carry no status; these are the Smithy defaults.
			e.status = 400
			if sh.Fault {
				e.status = 500
			}
		}
		e.members = []string{} // a shape without body members still gets an empty list
		for _, mb := range sh.Members {
			if mb.Location != "" {
				continue // headers and the like are not in the JSON body
			}
			n := mb.Name
			if mb.LocationName != "" {
				n = mb.LocationName
			}
			e.members = append(e.members, n)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].code < out[j].code })
	return out
}
