package httpfront

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"
	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
	"github.com/cloudemu/emulator/metrics"
)

// CloudWatch (signing name monitoring) is recognised before any path
// routing, in each of the three protocols its clients speak: Smithy RPC v2
// CBOR (aws-sdk-go-v2), JSON 1.0 (boto3) and the query protocol (older SDKs
// and CLIs). PutMetricData, GetMetricStatistics, GetMetricData and
// ListMetrics are answered from the scope's metrics.Store; every other
// operation answers NotImplemented. One Go structure per model shape serves
// all three protocols: its json tags are the member names, which
// encoding/json and fxamacker/cbor both honour, and which the query
// protocol's form reader and XML writer below read by reflection.

const cloudWatchTarget = "GraniteServiceVersion20100801"

var (
	cborPathPrefix  = []byte("/service/" + cloudWatchTarget + "/operation/")
	jsonTargetPfx   = []byte(cloudWatchTarget + ".")
	headerAmzTarget = []byte("X-Amz-Target")
	formContentType = []byte("application/x-www-form-urlencoded")
	queryVersion    = []byte("2010-08-01")
)

const (
	cloudWatchXMLNS    = "http://monitoring.amazonaws.com/doc/2010-08-01/"
	cloudWatchShapeNS  = "com.amazonaws.cloudwatch#"
	contentTypeAmzJSON = "application/x-amz-json-1.0"
	contentTypeCBOR    = "application/cbor"
)

// cloudWatchProtocol is how a CloudWatch request travels.
type cloudWatchProtocol uint8

const (
	notCloudWatch cloudWatchProtocol = iota
	cloudWatchCBOR
	cloudWatchJSON
	cloudWatchQuery
)

// classifyCloudWatch tells whether ctx is a CloudWatch request, and names
// its operation.
func (s *Server) classifyCloudWatch(ctx *fasthttp.RequestCtx, path []byte) (cloudWatchProtocol, string) {
	if !ctx.IsPost() {
		return notCloudWatch, ""
	}
	if bytes.HasPrefix(path, cborPathPrefix) {
		return cloudWatchCBOR, string(path[len(cborPathPrefix):])
	}
	if len(path) != 1 { // POST /
		return notCloudWatch, ""
	}
	if t := ctx.Request.Header.PeekBytes(headerAmzTarget); bytes.HasPrefix(t, jsonTargetPfx) {
		return cloudWatchJSON, string(t[len(jsonTargetPfx):])
	}
	if bytes.HasPrefix(ctx.Request.Header.ContentType(), formContentType) {
		// The form must be read to be recognised: query SDKs gzip a large
		// PutMetricData. A body that does not decode is not recognised,
		// and routing answers it.
		if s.decodeBody(ctx, awswire.ServiceNone) != nil {
			return notCloudWatch, ""
		}
		args := ctx.PostArgs()
		if bytes.Equal(args.Peek("Version"), queryVersion) {
			return cloudWatchQuery, string(args.Peek("Action"))
		}
	}
	return notCloudWatch, ""
}

// cloudWatchOperation is one served operation: it decodes its input with
// decode, answers from st, and returns its output structure (nil for an
// operation without output) or an error.
type cloudWatchOperation func(st *metrics.Store, decode func(in any) error) (any, error)

func cloudWatchOperationOf(op string) cloudWatchOperation {
	switch op {
	case "PutMetricData":
		return cwPutMetricData
	case "GetMetricStatistics":
		return cwGetMetricStatistics
	case "GetMetricData":
		return cwGetMetricData
	case "ListMetrics":
		return cwListMetrics
	}
	return nil
}

// serveCloudWatch answers a CloudWatch request.
func (s *Server) serveCloudWatch(ctx *fasthttp.RequestCtx, p cloudWatchProtocol, op string) {
	s.noteOperation(ctx, "monitoring", op)
	run := cloudWatchOperationOf(op)
	if run == nil || s.cloudWatch == nil {
		writeCloudWatchError(ctx, p, cwNotImplemented(op))
		return
	}
	if err := s.decodeBody(ctx, awswire.ServiceNone); err != nil {
		writeCloudWatchError(ctx, p, cwBodyError(err))
		return
	}
	st := s.cloudWatch(s.scope(ctx))
	if st == nil {
		writeCloudWatchError(ctx, p, cwNotImplemented(op))
		return
	}
	out, err := run(st, func(in any) error { return decodeCloudWatch(ctx, p, in) })
	if err == nil {
		err = writeCloudWatchOutput(ctx, p, op, out)
	}
	if err != nil {
		writeCloudWatchError(ctx, p, s.cloudWatchError(ctx, err))
	}
}

// CloudWatch's error codes (the query codes, which awsQueryCompatible
// clients report) and the model shapes they travel as in JSON and CBOR.
const (
	cwInvalidParameterValue       = "InvalidParameterValue"
	cwMissingParameter            = "MissingParameter"
	cwInvalidParameterCombination = "InvalidParameterCombination"
	cwInvalidNextToken            = "InvalidNextToken"
	cwLimitExceeded               = "LimitExceeded"
	cwInternalServiceError        = "InternalServiceError"
	// Not in the model: the query framework's own validation error, for
	// what the emulator refuses that CloudWatch would accept.
	cwValidationError = "ValidationError"
)

// cwShapes maps a code to its model shape and status; a code not listed
// travels under its own name with the status it was given.
var cwShapes = map[string]struct {
	shape  string
	status int
}{
	cwInvalidParameterValue:       {"InvalidParameterValueException", 400},
	cwMissingParameter:            {"MissingRequiredParameterException", 400},
	cwInvalidParameterCombination: {"InvalidParameterCombinationException", 400},
	cwInvalidNextToken:            {"InvalidNextToken", 400},
	cwLimitExceeded:               {"LimitExceededFault", 400},
	cwInternalServiceError:        {"InternalServiceFault", 500},
}

// cwErrorf is a CloudWatch error with code's status (400 for a code the
// model does not declare).
func cwErrorf(code, format string, args ...any) *awswire.Error {
	status := 400
	if sh, ok := cwShapes[code]; ok {
		status = sh.status
	}
	return &awswire.Error{Code: code, Status: status, Message: fmt.Sprintf(format, args...)}
}

func cwNotImplemented(op string) *awswire.Error {
	// op is the client's text: kept short (writeCloudWatchError makes
	// every message valid UTF-8).
	if len(op) > 128 {
		op = op[:128]
	}
	return &awswire.Error{Code: codeNotImplemented, Status: fasthttp.StatusNotImplemented,
		Message: "The operation " + op + " of service monitoring (CloudWatch) is not implemented by this emulator."}
}

// cwBodyError is the answer to a body that does not decompress: the
// front's status, under CloudWatch's name for it.
func cwBodyError(err error) *awswire.Error {
	var we *awswire.Error
	if !errors.As(err, &we) {
		return cwErrorf(cwInvalidParameterValue, "The request body could not be read.")
	}
	return &awswire.Error{Code: strings.TrimSuffix(we.Code, "Exception"), Status: we.Status, Message: we.Message}
}

// cloudWatchError turns what an operation returned into CloudWatch's error:
// the store's refusals keep their code; anything unexpected is logged and
// becomes InternalServiceError.
func (s *Server) cloudWatchError(ctx *fasthttp.RequestCtx, err error) *awswire.Error {
	var we *awswire.Error
	if errors.As(err, &we) {
		return we
	}
	var me *metrics.Error
	if errors.As(err, &me) {
		return cwErrorf(me.Code, "%s", me.Message)
	}
	s.log.Error("internal failure", "requestId", string(ctx.Response.Header.Peek(restjson.HeaderRequestID)),
		"operation", "monitoring", "error", err)
	return cwErrorf(cwInternalServiceError, "Internal service error.")
}

// cborErrorBody is a Smithy RPC v2 CBOR error body: a map of __type and
// message, both valid UTF-8.
func cborErrorBody(typ, msg string) []byte {
	b, err := cborEnc.Marshal(struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}{strings.ToValidUTF8(typ, "\uFFFD"), strings.ToValidUTF8(msg, "\uFFFD")})
	if err != nil { // two strings always encode
		return nil
	}
	return b
}

// jsonErrorBody is a JSON 1.0 error body: {"__type":typ,"message":msg}.
func jsonErrorBody(typ, msg string) []byte {
	b := []byte(`{"__type":`)
	b = awswire.AppendString(b, typ)
	b = append(b, `,"message":`...)
	b = awswire.AppendString(b, msg)
	return append(b, '}')
}

// clip cuts s to n bytes, marked with "..." when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// writeCloudWatchError writes e in p's error shape: the query code in
// x-amzn-query-error (awsQueryCompatible clients report it), the model's
// shape in the JSON and CBOR bodies. It is the one place CloudWatch errors
// are written.
func writeCloudWatchError(ctx *fasthttp.RequestCtx, p cloudWatchProtocol, e *awswire.Error) {
	restjson.RecordError(ctx, e)
	shape := e.Code
	if sh, ok := cwShapes[e.Code]; ok {
		shape = sh.shape
	}
	// Receiver marks the service's own failures; NotImplemented (501) is
	// the client asking for what is not there.
	fault := "Sender"
	if e.Status == fasthttp.StatusInternalServerError {
		fault = "Receiver"
	}
	// Messages may quote the client's text: bounded and valid UTF-8.
	msg := strings.ToValidUTF8(clip(e.Message, 1024), "\uFFFD")
	h := &ctx.Response.Header
	ctx.Response.ResetBody()
	ctx.SetStatusCode(e.Status)
	h.SetBytesK(headerQueryError, e.Code+";"+fault)
	switch p {
	case cloudWatchCBOR:
		h.SetBytesKV(headerSmithyProtocol, rpcV2CBOR)
		h.SetContentType(contentTypeCBOR)
		ctx.SetBody(cborErrorBody(cloudWatchShapeNS+shape, msg))
	case cloudWatchJSON:
		h.SetContentType(contentTypeAmzJSON)
		h.Set(restjson.HeaderErrorType, shape)
		ctx.SetBody(jsonErrorBody(shape, msg))
	default:
		var w xmlWriter
		w.WriteString(`<ErrorResponse xmlns="` + cloudWatchXMLNS + `"><Error><Type>` + fault + `</Type><Code>`)
		w.text(e.Code)
		w.WriteString(`</Code><Message>`)
		w.text(msg)
		w.WriteString(`</Message></Error><RequestId>`)
		w.Write(ctx.Response.Header.Peek(restjson.HeaderRequestID))
		w.WriteString(`</RequestId></ErrorResponse>`)
		h.SetContentType("text/xml")
		ctx.SetBody(w.Bytes())
	}
}

// writeCloudWatchOutput writes an operation's success in p's shape.
func writeCloudWatchOutput(ctx *fasthttp.RequestCtx, p cloudWatchProtocol, op string, out any) error {
	h := &ctx.Response.Header
	ctx.SetStatusCode(fasthttp.StatusOK)
	switch p {
	case cloudWatchCBOR:
		h.SetBytesKV(headerSmithyProtocol, rpcV2CBOR)
		if out == nil { // no output shape: no body
			return nil
		}
		b, err := cborEnc.Marshal(out)
		if err != nil {
			return err
		}
		h.SetContentType(contentTypeCBOR)
		ctx.SetBody(b)
	case cloudWatchJSON:
		h.SetContentType(contentTypeAmzJSON)
		if out == nil {
			ctx.SetBodyString("{}")
			return nil
		}
		b, err := restjson.Marshal(out)
		if err != nil {
			return err
		}
		ctx.SetBody(b)
	default:
		var w xmlWriter
		w.WriteString("<" + op + `Response xmlns="` + cloudWatchXMLNS + `">`)
		if out != nil {
			w.value(op+"Result", reflect.ValueOf(out))
		}
		w.WriteString("<ResponseMetadata><RequestId>")
		w.Write(ctx.Response.Header.Peek(restjson.HeaderRequestID))
		w.WriteString("</RequestId></ResponseMetadata></" + op + "Response>")
		h.SetContentType("text/xml")
		ctx.SetBody(w.Bytes())
	}
	return nil
}

// decodeCloudWatch decodes the request's input into in, a pointer to the
// operation's input structure. Whatever does not fit the shape is an
// InvalidParameterValue.
func decodeCloudWatch(ctx *fasthttp.RequestCtx, p cloudWatchProtocol, in any) error {
	body := ctx.PostBody()
	switch p {
	case cloudWatchCBOR:
		if len(body) == 0 {
			return nil
		}
		if err := cborDec.Unmarshal(body, in); err != nil {
			var we *awswire.Error
			if errors.As(err, &we) {
				return we
			}
			var te *cbor.UnmarshalTypeError
			if errors.As(err, &te) && te.StructFieldName != "" {
				return cwErrorf(cwInvalidParameterValue, "Invalid type for parameter %s: CBOR %s.", te.StructFieldName, te.CBORType)
			}
			return cwErrorf(cwInvalidParameterValue, "The request body is not valid CBOR for this operation.")
		}
	case cloudWatchJSON:
		body = bytes.TrimSpace(body)
		if len(body) == 0 {
			return nil
		}
		if body[0] != '{' {
			return cwErrorf(cwInvalidParameterValue, "The request body must be a JSON object.")
		}
		if err := json.Unmarshal(body, in); err != nil {
			var we *awswire.Error
			if errors.As(err, &we) {
				return we
			}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return cwErrorf(cwInvalidParameterValue, "Invalid type for parameter %s, value: %s.", te.Field, te.Value)
			}
			return cwErrorf(cwInvalidParameterValue, "The request body is not valid JSON.")
		}
	default:
		f, err := readForm(ctx.PostArgs())
		if err != nil {
			return err
		}
		return f.decode(reflect.ValueOf(in).Elem(), "")
	}
	return nil
}

// The shapes, as the CloudWatch model names their members.

type cwDimension struct {
	Name  string `json:"Name"`
	Value string `json:"Value"`
}

type cwStatisticSet struct {
	SampleCount *float64 `json:"SampleCount"`
	Sum         *float64 `json:"Sum"`
	Minimum     *float64 `json:"Minimum"`
	Maximum     *float64 `json:"Maximum"`
}

type cwDatum struct {
	MetricName        string          `json:"MetricName"`
	Dimensions        []cwDimension   `json:"Dimensions"`
	Timestamp         cwTime          `json:"Timestamp"`
	Value             *float64        `json:"Value"`
	StatisticValues   *cwStatisticSet `json:"StatisticValues"`
	Values            []float64       `json:"Values"`
	Counts            []float64       `json:"Counts"`
	Unit              string          `json:"Unit"`
	StorageResolution *int32          `json:"StorageResolution"`
}

// cwEntityData is EntityMetricData's element: its data is kept as
// MetricData's; the entity is not.
type cwEntityData struct {
	MetricData []cwDatum `json:"MetricData"`
}

type cwPutMetricDataInput struct {
	Namespace        string         `json:"Namespace"`
	MetricData       []cwDatum      `json:"MetricData"`
	EntityMetricData []cwEntityData `json:"EntityMetricData"`
}

type cwGetMetricStatisticsInput struct {
	Namespace          string        `json:"Namespace"`
	MetricName         string        `json:"MetricName"`
	Dimensions         []cwDimension `json:"Dimensions"`
	StartTime          cwTime        `json:"StartTime"`
	EndTime            cwTime        `json:"EndTime"`
	Period             *int32        `json:"Period"`
	Statistics         []string      `json:"Statistics"`
	ExtendedStatistics []string      `json:"ExtendedStatistics"`
	Unit               string        `json:"Unit"`
}

// cwDatapoint's members are in the model's XML order.
type cwDatapoint struct {
	Timestamp          cwTime                    `json:"Timestamp"`
	SampleCount        *awswire.Double           `json:"SampleCount,omitempty"`
	Average            *awswire.Double           `json:"Average,omitempty"`
	Sum                *awswire.Double           `json:"Sum,omitempty"`
	Minimum            *awswire.Double           `json:"Minimum,omitempty"`
	Maximum            *awswire.Double           `json:"Maximum,omitempty"`
	Unit               string                    `json:"Unit,omitempty"`
	ExtendedStatistics map[string]awswire.Double `json:"ExtendedStatistics,omitempty"`
}

type cwGetMetricStatisticsOutput struct {
	Label      string        `json:"Label"`
	Datapoints []cwDatapoint `json:"Datapoints"`
}

type cwMetric struct {
	Namespace  string        `json:"Namespace"`
	MetricName string        `json:"MetricName"`
	Dimensions []cwDimension `json:"Dimensions"`
}

type cwMetricStat struct {
	Metric *cwMetric `json:"Metric"`
	Period *int32    `json:"Period"`
	Stat   string    `json:"Stat"`
	Unit   string    `json:"Unit"`
}

type cwMetricDataQuery struct {
	ID         string        `json:"Id"`
	MetricStat *cwMetricStat `json:"MetricStat"`
	Expression string        `json:"Expression"`
	Label      string        `json:"Label"`
	ReturnData *bool         `json:"ReturnData"`
	Period     *int32        `json:"Period"`
	AccountID  string        `json:"AccountId"`
}

type cwLabelOptions struct {
	Timezone string `json:"Timezone"`
}

type cwGetMetricDataInput struct {
	MetricDataQueries []cwMetricDataQuery `json:"MetricDataQueries"`
	StartTime         cwTime              `json:"StartTime"`
	EndTime           cwTime              `json:"EndTime"`
	NextToken         string              `json:"NextToken"`
	ScanBy            string              `json:"ScanBy"`
	MaxDatapoints     *int32              `json:"MaxDatapoints"`
	LabelOptions      *cwLabelOptions     `json:"LabelOptions"`
}

type cwMessage struct {
	Code  string `json:"Code"`
	Value string `json:"Value"`
}

type cwMetricDataResult struct {
	ID         string           `json:"Id"`
	Label      string           `json:"Label"`
	Timestamps []cwTime         `json:"Timestamps"`
	Values     []awswire.Double `json:"Values"`
	StatusCode string           `json:"StatusCode"`
	Messages   []cwMessage      `json:"Messages,omitempty"`
}

type cwGetMetricDataOutput struct {
	MetricDataResults []cwMetricDataResult `json:"MetricDataResults"`
	NextToken         string               `json:"NextToken,omitempty"`
	Messages          []cwMessage          `json:"Messages"`
}

type cwDimensionFilter struct {
	Name  string `json:"Name"`
	Value string `json:"Value"`
}

type cwListMetricsInput struct {
	Namespace      string              `json:"Namespace"`
	MetricName     string              `json:"MetricName"`
	Dimensions     []cwDimensionFilter `json:"Dimensions"`
	NextToken      string              `json:"NextToken"`
	RecentlyActive string              `json:"RecentlyActive"`
}

type cwListMetricsOutput struct {
	Metrics   []cwMetric `json:"Metrics"`
	NextToken string     `json:"NextToken,omitempty"`
}

// Model limits the store does not check.
const (
	maxPutMetricData     = 1000 // MetricData per PutMetricData
	maxMetricDataQueries = 500
	maxDimensions        = 30
	maxNameLen           = 255 // Namespace, MetricName, DimensionName, Id
	maxDimValueLen       = 1024
	maxExpressionLen     = 2048
)

// datapointRange bounds what CloudWatch stores: it rejects magnitudes
// outside 2^-360..2^360 (zero is fine).
var datapointMax, datapointMin = math.Ldexp(1, 360), math.Ldexp(1, -360)

var standardUnits = []string{"Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes",
	"Gigabytes", "Terabytes", "Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count",
	"Bytes/Second", "Kilobytes/Second", "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second",
	"Bits/Second", "Kilobits/Second", "Megabits/Second", "Gigabits/Second", "Terabits/Second",
	"Count/Second", "None"}

func checkUnit(param, unit string) error {
	if unit != "" && !slices.Contains(standardUnits, unit) {
		return cwErrorf(cwInvalidParameterValue, "The value %s for parameter %s is invalid.", unit, param)
	}
	return nil
}

// checkName checks a name the store keys series by: at most max
// characters, and no NUL, which the store's keys use as a separator.
func checkName(param, s string, max int) error {
	if utf8.RuneCountInString(s) > max {
		return cwErrorf(cwInvalidParameterValue, "The parameter %s must be at most %d characters long.", param, max)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return cwErrorf(cwInvalidParameterValue, "The parameter %s must not contain the NUL character.", param)
	}
	return nil
}

func checkNamespace(param, ns string) error {
	if ns != "" && ns[0] == ':' {
		return cwErrorf(cwInvalidParameterValue, "The value %s for parameter %s is invalid.", ns, param)
	}
	return checkName(param, ns, maxNameLen)
}

// dimensions converts and checks a dimension list named param.
func dimensions(param string, in []cwDimension) ([]metrics.Dimension, error) {
	if len(in) > maxDimensions {
		return nil, cwErrorf(cwInvalidParameterValue, "The collection %s must not have a size greater than %d.", param, maxDimensions)
	}
	out := make([]metrics.Dimension, len(in))
	for i, d := range in {
		p := param + ".member." + strconv.Itoa(i+1)
		if d.Name == "" {
			return nil, cwErrorf(cwMissingParameter, "The parameter %s.Name is required.", p)
		}
		if d.Value == "" {
			return nil, cwErrorf(cwMissingParameter, "The parameter %s.Value is required.", p)
		}
		if err := checkName(p+".Name", d.Name, maxNameLen); err != nil {
			return nil, err
		}
		if err := checkName(p+".Value", d.Value, maxDimValueLen); err != nil {
			return nil, err
		}
		out[i] = metrics.Dimension{Name: d.Name, Value: d.Value}
	}
	return out, nil
}

func cwPutMetricData(st *metrics.Store, decode func(any) error) (any, error) {
	var in cwPutMetricDataInput
	if err := decode(&in); err != nil {
		return nil, err
	}
	if err := checkNamespace("Namespace", in.Namespace); err != nil {
		return nil, err
	}
	data := in.MetricData
	for _, e := range in.EntityMetricData {
		data = append(slices.Clip(data), e.MetricData...)
	}
	if len(data) > maxPutMetricData {
		return nil, cwErrorf(cwInvalidParameterValue, "The collection MetricData must not have a size greater than %d.", maxPutMetricData)
	}
	ds := make([]metrics.Datum, len(data))
	for i := range data {
		if err := data[i].datum("MetricData.member."+strconv.Itoa(i+1), &ds[i]); err != nil {
			return nil, err
		}
	}
	return nil, st.Put(in.Namespace, ds)
}

// datum checks what the store does not (lengths, unit, resolution,
// CloudWatch's value range, the statistic set's members) and converts.
func (d *cwDatum) datum(p string, out *metrics.Datum) error {
	if err := checkName(p+".MetricName", d.MetricName, maxNameLen); err != nil {
		return err
	}
	dims, err := dimensions(p+".Dimensions", d.Dimensions)
	if err != nil {
		return err
	}
	if err := checkUnit(p+".Unit", d.Unit); err != nil {
		return err
	}
	if r := d.StorageResolution; r != nil && *r != 1 && *r != 60 {
		return cwErrorf(cwInvalidParameterValue, "The value %d for parameter %s.StorageResolution is invalid: it must be 1 or 60.", *r, p)
	}
	inRange := func(member string, vs ...float64) error {
		for _, v := range vs {
			if a := math.Abs(v); a > datapointMax || (a != 0 && a < datapointMin) {
				return cwErrorf(cwInvalidParameterValue, "The value %v for parameter %s.%s is out of range: values must be within -2^360..2^360, and non-zero magnitudes at least 2^-360.", v, p, member)
			}
		}
		return nil
	}
	*out = metrics.Datum{MetricName: d.MetricName, Dimensions: dims, Timestamp: d.Timestamp.time(),
		Value: d.Value, Values: d.Values, Counts: d.Counts, Unit: d.Unit}
	if d.StorageResolution != nil {
		out.StorageResolution = *d.StorageResolution
	}
	if d.Value != nil {
		if err := inRange("Value", *d.Value); err != nil {
			return err
		}
	}
	if err := inRange("Values", d.Values...); err != nil {
		return err
	}
	if err := inRange("Counts", d.Counts...); err != nil {
		return err
	}
	if sv := d.StatisticValues; sv != nil {
		set := metrics.StatisticSet{}
		for _, m := range []struct {
			name string
			v    *float64
			to   *float64
		}{{"SampleCount", sv.SampleCount, &set.SampleCount}, {"Sum", sv.Sum, &set.Sum},
			{"Minimum", sv.Minimum, &set.Minimum}, {"Maximum", sv.Maximum, &set.Maximum}} {
			if m.v == nil {
				return cwErrorf(cwMissingParameter, "The parameter %s.StatisticValues.%s is required.", p, m.name)
			}
			if err := inRange("StatisticValues."+m.name, *m.v); err != nil {
				return err
			}
			*m.to = *m.v
		}
		out.StatisticValues = &set
	}
	return nil
}

func cwGetMetricStatistics(st *metrics.Store, decode func(any) error) (any, error) {
	var in cwGetMetricStatisticsInput
	if err := decode(&in); err != nil {
		return nil, err
	}
	if in.Period == nil {
		return nil, cwErrorf(cwMissingParameter, "The parameter Period is required.")
	}
	if err := checkNamespace("Namespace", in.Namespace); err != nil {
		return nil, err
	}
	dims, err := dimensions("Dimensions", in.Dimensions)
	if err != nil {
		return nil, err
	}
	if err := checkUnit("Unit", in.Unit); err != nil {
		return nil, err
	}
	res, err := st.GetMetricStatistics(metrics.StatisticsQuery{
		Namespace: in.Namespace, MetricName: in.MetricName, Dimensions: dims,
		StartTime: in.StartTime.time(), EndTime: in.EndTime.time(), Period: *in.Period,
		Statistics: in.Statistics, ExtendedStatistics: in.ExtendedStatistics, Unit: in.Unit,
	})
	if err != nil {
		return nil, err
	}
	out := &cwGetMetricStatisticsOutput{Label: res.Label, Datapoints: make([]cwDatapoint, len(res.Datapoints))}
	for i, dp := range res.Datapoints {
		d := &out.Datapoints[i]
		d.Timestamp, d.Unit = cwTime(dp.Timestamp), dp.Unit
		for j, name := range in.Statistics {
			v := finite(dp.Statistics[j])
			switch name {
			case metrics.SampleCount:
				d.SampleCount = v
			case metrics.Average:
				d.Average = v
			case metrics.Sum:
				d.Sum = v
			case metrics.Minimum:
				d.Minimum = v
			case metrics.Maximum:
				d.Maximum = v
			}
		}
		for j, name := range in.ExtendedStatistics {
			// A percentile the data cannot tell is NaN: left out.
			if v := finite(dp.Extended[j]); v != nil {
				if d.ExtendedStatistics == nil {
					d.ExtendedStatistics = make(map[string]awswire.Double, len(in.ExtendedStatistics))
				}
				d.ExtendedStatistics[name] = *v
			}
		}
	}
	return out, nil
}

// finite returns &v, or nil when v cannot travel (JSON has no NaN or
// infinity, and CloudWatch never answers them). Answers are written as
// CloudWatch's Java front end writes doubles ("5.0").
func finite(v float64) *awswire.Double {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	d := awswire.Double(v)
	return &d
}

func cwGetMetricData(st *metrics.Store, decode func(any) error) (any, error) {
	var in cwGetMetricDataInput
	if err := decode(&in); err != nil {
		return nil, err
	}
	qs := in.MetricDataQueries
	switch {
	case len(qs) == 0:
		return nil, cwErrorf(cwMissingParameter, "The parameter MetricDataQueries is required.")
	case len(qs) > maxMetricDataQueries:
		return nil, cwErrorf(cwInvalidParameterValue, "The collection MetricDataQueries must not have a size greater than %d.", maxMetricDataQueries)
	}
	budget := metrics.MaxMetricDataDatapoints
	if in.MaxDatapoints != nil {
		if *in.MaxDatapoints <= 0 {
			return nil, cwErrorf(cwInvalidParameterValue, "The parameter MaxDatapoints must be greater than 0.")
		}
		budget = min(int(*in.MaxDatapoints), budget)
	}
	ids := make(map[string]struct{}, len(qs))
	var results []cwMetricDataResult // those returned, whole
	for i := range qs {
		q := &qs[i]
		p := "MetricDataQueries.member." + strconv.Itoa(i+1)
		stq, err := q.check(p, ids)
		if err != nil {
			return nil, err
		}
		stq.StartTime, stq.EndTime, stq.ScanBy = in.StartTime.time(), in.EndTime.time(), in.ScanBy
		res, err := st.MetricStat(stq)
		if err != nil {
			return nil, err
		}
		if q.ReturnData != nil && !*q.ReturnData {
			continue
		}
		r := cwMetricDataResult{ID: q.ID, Label: q.Label, Timestamps: make([]cwTime, 0, len(res.Values)),
			Values: make([]awswire.Double, 0, len(res.Values))}
		if r.Label == "" {
			r.Label = res.Label
		}
		for j, v := range res.Values {
			if finite(v) != nil {
				r.Timestamps = append(r.Timestamps, cwTime(res.Timestamps[j]))
				r.Values = append(r.Values, awswire.Double(v))
			}
		}
		results = append(results, r)
	}
	fp := in.fingerprint()
	qi, off := 0, 0
	if in.NextToken != "" {
		var ok bool
		if qi, off, ok = parseDataToken(in.NextToken, fp); !ok || qi >= len(results) {
			return nil, cwErrorf(cwInvalidNextToken, "The service couldn't process the token.")
		}
	}
	return pageMetricData(results, qi, off, budget, fp), nil
}

// check validates one query of GetMetricData and returns its MetricStat
// query (times and order are the request's). Ids are unique.
func (q *cwMetricDataQuery) check(p string, ids map[string]struct{}) (metrics.MetricStatQuery, error) {
	var none metrics.MetricStatQuery
	if q.ID == "" {
		return none, cwErrorf(cwMissingParameter, "The parameter %s.Id is required.", p)
	}
	if !validQueryID(q.ID) {
		return none, cwErrorf(cwInvalidParameterValue, "The value %s for parameter %s.Id is invalid: it must start with a lowercase letter and hold only letters, digits and underscores.", q.ID, p)
	}
	if _, dup := ids[q.ID]; dup {
		return none, cwErrorf(cwInvalidParameterValue, "The value %s for parameter %s.Id is used by another query.", q.ID, p)
	}
	ids[q.ID] = struct{}{}
	if q.Expression != "" {
		if utf8.RuneCountInString(q.Expression) > maxExpressionLen {
			return none, cwErrorf(cwInvalidParameterValue, "The parameter %s.Expression must be at most %d characters long.", p, maxExpressionLen)
		}
		return none, cwErrorf(cwValidationError, "Metric math is not supported by this emulator: %s.Expression cannot be evaluated; query metrics with MetricStat.", p)
	}
	ms := q.MetricStat
	if ms == nil {
		return none, cwErrorf(cwInvalidParameterCombination, "Exactly one of %s.MetricStat and %s.Expression must be specified.", p, p)
	}
	if ms.Metric == nil {
		return none, cwErrorf(cwMissingParameter, "The parameter %s.MetricStat.Metric is required.", p)
	}
	if ms.Period == nil {
		return none, cwErrorf(cwMissingParameter, "The parameter %s.MetricStat.Period is required.", p)
	}
	if ms.Stat == "" {
		return none, cwErrorf(cwMissingParameter, "The parameter %s.MetricStat.Stat is required.", p)
	}
	if err := checkNamespace(p+".MetricStat.Metric.Namespace", ms.Metric.Namespace); err != nil {
		return none, err
	}
	dims, err := dimensions(p+".MetricStat.Metric.Dimensions", ms.Metric.Dimensions)
	if err != nil {
		return none, err
	}
	if err := checkUnit(p+".MetricStat.Unit", ms.Unit); err != nil {
		return none, err
	}
	return metrics.MetricStatQuery{Namespace: ms.Metric.Namespace, MetricName: ms.Metric.MetricName,
		Dimensions: dims, Period: *ms.Period, Stat: ms.Stat, Unit: ms.Unit}, nil
}

// validQueryID: a lowercase letter, then letters, digits and underscores.
func validQueryID(id string) bool {
	if len(id) > maxNameLen || id[0] < 'a' || id[0] > 'z' {
		return false
	}
	for i := 1; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// pageMetricData cuts one page of at most budget datapoints from the
// returned queries' datapoints laid end to end, starting at query qi's
// datapoint off. A query with datapoints on later pages is PartialData and
// the page carries a token for where the next starts; a query without
// datapoints rides on the page where its turn comes.
func pageMetricData(results []cwMetricDataResult, qi, off, budget int, fp uint64) *cwGetMetricDataOutput {
	out := &cwGetMetricDataOutput{MetricDataResults: []cwMetricDataResult{}, Messages: []cwMessage{}}
	for i := qi; i < len(results); i++ {
		r := results[i]
		from := 0
		if i == qi {
			from = min(off, len(r.Values))
		}
		left := len(r.Values) - from
		if budget == 0 && left > 0 {
			out.NextToken = dataToken(i, from, fp)
			break
		}
		take := min(budget, left)
		budget -= take
		r.Timestamps, r.Values = r.Timestamps[from:from+take], r.Values[from:from+take]
		r.StatusCode = "Complete"
		if take < left {
			r.StatusCode = "PartialData"
			out.NextToken = dataToken(i, from+take, fp)
		}
		out.MetricDataResults = append(out.MetricDataResults, r)
		if out.NextToken != "" {
			break
		}
	}
	return out
}

// A GetMetricData token is where the next page starts (query, datapoint)
// and a hash of the request it belongs to, so that a token cannot be
// replayed against other queries.
const dataTokenVersion = 1

func dataToken(qi, off int, fp uint64) string {
	b := binary.AppendUvarint([]byte{dataTokenVersion}, uint64(qi))
	b = binary.AppendUvarint(b, uint64(off))
	b = binary.BigEndian.AppendUint64(b, fp)
	return base64.RawURLEncoding.EncodeToString(b)
}

func parseDataToken(tok string, fp uint64) (qi, off int, ok bool) {
	if len(tok) > 64 {
		return 0, 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 1+2+8 || b[0] != dataTokenVersion {
		return 0, 0, false
	}
	b = b[1:]
	q, n := binary.Uvarint(b)
	if n <= 0 || q >= maxMetricDataQueries {
		return 0, 0, false
	}
	b = b[n:]
	o, n := binary.Uvarint(b)
	if n <= 0 || o > math.MaxInt32 {
		return 0, 0, false
	}
	b = b[n:]
	if len(b) != 8 || binary.BigEndian.Uint64(b) != fp {
		return 0, 0, false
	}
	return int(q), int(o), true
}

// fingerprint hashes what decides the datapoints of a GetMetricData
// request and their order.
func (in *cwGetMetricDataInput) fingerprint() uint64 {
	h := fnv.New64a()
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, in.StartTime.time().UnixMilli())
	b = binary.AppendVarint(b, in.EndTime.time().UnixMilli())
	str(in.ScanBy)
	for i := range in.MetricDataQueries {
		q := &in.MetricDataQueries[i]
		str(q.ID)
		b = append(b, byte(btoi(q.ReturnData == nil || *q.ReturnData)))
		if ms := q.MetricStat; ms != nil && ms.Metric != nil && ms.Period != nil {
			str(ms.Metric.Namespace)
			str(ms.Metric.MetricName)
			for _, d := range ms.Metric.Dimensions {
				str(d.Name)
				str(d.Value)
			}
			b = binary.AppendVarint(b, int64(*ms.Period))
			str(ms.Stat)
			str(ms.Unit)
		}
		_, _ = h.Write(b)
		b = b[:0]
	}
	_, _ = h.Write(b)
	return h.Sum64()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cwListMetrics(st *metrics.Store, decode func(any) error) (any, error) {
	var in cwListMetricsInput
	if err := decode(&in); err != nil {
		return nil, err
	}
	if err := checkNamespace("Namespace", in.Namespace); err != nil {
		return nil, err
	}
	filters := make([]metrics.DimensionFilter, len(in.Dimensions))
	for i, f := range in.Dimensions {
		if f.Name == "" {
			return nil, cwErrorf(cwMissingParameter, "The parameter Dimensions.member.%d.Name is required.", i+1)
		}
		filters[i] = metrics.DimensionFilter{Name: f.Name, Value: f.Value}
	}
	ms, next, err := st.ListMetrics(metrics.ListMetricsQuery{Namespace: in.Namespace, MetricName: in.MetricName,
		Dimensions: filters, RecentlyActive: in.RecentlyActive, NextToken: in.NextToken})
	if err != nil {
		return nil, err
	}
	out := &cwListMetricsOutput{Metrics: make([]cwMetric, len(ms)), NextToken: next}
	for i, m := range ms {
		dims := make([]cwDimension, len(m.Dimensions))
		for j, d := range m.Dimensions {
			dims[j] = cwDimension{Name: d.Name, Value: d.Value}
		}
		out.Metrics[i] = cwMetric{Namespace: m.Namespace, MetricName: m.MetricName, Dimensions: dims}
	}
	return out, nil
}

// cwTime is a timestamp on the wire: epoch seconds in JSON, CBOR tag 1
// with float64 epoch seconds, ISO 8601 in the query protocol. The zero
// value is an absent member.
type cwTime time.Time

func (t cwTime) time() time.Time { return time.Time(t) }

// Timestamps are kept to the millisecond, as the SDKs send them, and
// within years 1..9999.
const minEpoch, maxEpoch = -62135596800, 253402300799

func (t *cwTime) setSeconds(s float64) error {
	if math.IsNaN(s) || s < minEpoch || s > maxEpoch {
		return cwErrorf(cwInvalidParameterValue, "The timestamp %v is out of range.", s)
	}
	*t = cwTime(time.UnixMilli(int64(math.Round(s * 1e3))).UTC())
	return nil
}

// setString reads ISO 8601 (RFC 3339), or epoch seconds.
func (t *cwTime) setString(s string) error {
	if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.setSeconds(float64(v.UnixMilli()) / 1e3)
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return t.setSeconds(v)
	}
	return cwErrorf(cwInvalidParameterValue, "The value %q is not a timestamp (ISO 8601, or epoch seconds).", clip(s, 64))
}

func (t *cwTime) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		return t.setString(s)
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return cwErrorf(cwInvalidParameterValue, "A timestamp must be a number of epoch seconds.")
	}
	return t.setSeconds(v)
}

func (t cwTime) MarshalJSON() ([]byte, error) {
	return awswire.AppendEpochSeconds(nil, time.Time(t).UnixMilli()), nil
}

func (t *cwTime) UnmarshalCBOR(b []byte) error {
	if len(b) == 1 && (b[0] == 0xf6 || b[0] == 0xf7) { // null, undefined
		return nil
	}
	var secs float64
	var tag cbor.RawTag
	if err := cborDec.Unmarshal(b, &tag); err == nil {
		if tag.Number != 1 || cborDec.Unmarshal(tag.Content, &secs) != nil {
			return cwErrorf(cwInvalidParameterValue, "A timestamp must be CBOR tag 1 with epoch seconds.")
		}
	} else if err := cborDec.Unmarshal(b, &secs); err != nil {
		return cwErrorf(cwInvalidParameterValue, "A timestamp must be CBOR tag 1 with epoch seconds.")
	}
	return t.setSeconds(secs)
}

func (t cwTime) MarshalCBOR() ([]byte, error) {
	return cborEnc.Marshal(cbor.Tag{Number: 1, Content: float64(time.Time(t).UnixMilli()) / 1e3})
}

var cwTimeType = reflect.TypeFor[cwTime]()

var (
	cborDec = mustMode(cbor.DecOptions{
		// Member names are case-sensitive on the wire.
		FieldNameMatching: cbor.FieldNameMatchingCaseSensitive,
		MaxNestedLevels:   16,
	}.DecMode())
	cborEnc = mustMode(cbor.EncOptions{Sort: cbor.SortCoreDeterministic}.EncMode())
)

// mustMode unwraps a codec mode built from constant options.
func mustMode[T any](m T, err error) T {
	if err != nil {
		panic(err)
	}
	return m
}

// form is a query-protocol request's parameters: lists travel as
// Name.member.N (from 1), structures as Name.Member.
type form struct {
	vals    map[string]string
	lists   map[string]int  // list key → members
	present map[string]bool // every key's dotted prefixes
}

// maxFormIndex bounds a list's length in a form: the longest list an
// operation takes (MetricData) is 1000.
const maxFormIndex = maxPutMetricData

func readForm(args *fasthttp.Args) (*form, error) {
	f := &form{vals: make(map[string]string, args.Len()), lists: map[string]int{}, present: map[string]bool{}}
	items := map[string]bool{} // list members seen, Name.member.N
	for k, v := range args.All() {
		if !utf8.Valid(k) || !utf8.Valid(v) {
			return nil, cwErrorf(cwInvalidParameterValue, "The parameter %s is not valid UTF-8.", strconv.Quote(string(truncate(k, 128))))
		}
		key := string(k)
		f.vals[key] = string(v)
		for i := 0; i < len(key); i++ {
			if key[i] == '.' {
				f.present[key[:i]] = true
			}
		}
		for at := 0; ; {
			i := strings.Index(key[at:], ".member.")
			if i < 0 {
				break
			}
			list, num := key[:at+i], at+i+len(".member.")
			end := num
			for end < len(key) && key[end] != '.' {
				end++
			}
			n, err := strconv.Atoi(key[num:end])
			if err != nil || n < 1 || n > maxFormIndex || key[num] == '+' {
				return nil, cwErrorf(cwInvalidParameterValue, "The parameter %s has an invalid list index.", truncate(k, 128))
			}
			if item := key[:end]; !items[item] {
				items[item] = true
				f.lists[list]++
			}
			at = end
		}
	}
	// Members are numbered from 1 without gaps: a list holds only what was
	// sent.
	for list, n := range f.lists {
		for i := 1; i <= n; i++ {
			if !items[list+".member."+strconv.Itoa(i)] {
				return nil, cwErrorf(cwInvalidParameterValue, "The list %s must be numbered from member.1 without gaps.", list)
			}
		}
	}
	return f, nil
}

// decode fills v, a structure, from the parameters under prefix.
func (f *form) decode(v reflect.Value, prefix string) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := memberName(t.Field(i))
		if err := f.value(v.Field(i), prefix+name); err != nil {
			return err
		}
	}
	return nil
}

func (f *form) value(v reflect.Value, key string) error {
	s, ok := f.vals[key]
	if v.Type() == cwTimeType {
		if !ok {
			return nil
		}
		return v.Addr().Interface().(*cwTime).setString(s)
	}
	invalid := func() error {
		return cwErrorf(cwInvalidParameterValue, "The value %q for parameter %s is invalid.", clip(s, 64), key)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !ok && !f.present[key] {
			return nil
		}
		e := reflect.New(v.Type().Elem())
		if err := f.value(e.Elem(), key); err != nil {
			return err
		}
		v.Set(e)
	case reflect.Struct:
		return f.decode(v, key+".")
	case reflect.Slice:
		n := f.lists[key]
		if n == 0 {
			return nil
		}
		l := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			if err := f.value(l.Index(i), key+".member."+strconv.Itoa(i+1)); err != nil {
				return err
			}
		}
		v.Set(l)
	case reflect.String:
		v.SetString(s)
	case reflect.Float64:
		if !ok {
			return nil
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return invalid()
		}
		v.SetFloat(x)
	case reflect.Int32:
		if !ok {
			return nil
		}
		x, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return invalid()
		}
		v.SetInt(x)
	case reflect.Bool:
		if !ok {
			return nil
		}
		x, err := strconv.ParseBool(s)
		if err != nil || (s != "true" && s != "false") {
			return invalid()
		}
		v.SetBool(x)
	}
	return nil
}

// memberName is a field's wire name: its json tag's.
func memberName(sf reflect.StructField) string {
	name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
	return name
}

// xmlWriter writes query-protocol responses: structures as elements named
// by their members, lists as <member> elements, maps as <entry> with <key>
// and <value>.
type xmlWriter struct{ bytes.Buffer }

// text writes s escaped; characters XML cannot carry become U+FFFD.
func (w *xmlWriter) text(s string) { _ = xml.EscapeText(w, []byte(s)) }

func (w *xmlWriter) value(name string, v reflect.Value) {
	if v.Type() == cwTimeType {
		w.element(name, time.Time(v.Interface().(cwTime)).UTC().Format(time.RFC3339Nano))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			w.value(name, v.Elem())
		}
	case reflect.Struct:
		w.WriteString("<" + name + ">")
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			fv := v.Field(i)
			if strings.HasSuffix(sf.Tag.Get("json"), ",omitempty") && fv.IsZero() {
				continue
			}
			w.value(memberName(sf), fv)
		}
		w.WriteString("</" + name + ">")
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		w.WriteString("<" + name + ">")
		for i := 0; i < v.Len(); i++ {
			w.value("member", v.Index(i))
		}
		w.WriteString("</" + name + ">")
	case reflect.Map:
		w.WriteString("<" + name + ">")
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			w.WriteString("<entry>")
			w.value("key", k)
			w.value("value", v.MapIndex(k))
			w.WriteString("</entry>")
		}
		w.WriteString("</" + name + ">")
	case reflect.String:
		w.element(name, v.String())
	case reflect.Float64:
		w.element(name, string(awswire.AppendJavaDouble(nil, v.Float())))
	case reflect.Int32:
		w.element(name, strconv.FormatInt(v.Int(), 10))
	case reflect.Bool:
		w.element(name, strconv.FormatBool(v.Bool()))
	}
}

func (w *xmlWriter) element(name, text string) {
	w.WriteString("<" + name + ">")
	w.text(text)
	w.WriteString("</" + name + ">")
}
