package awswire

import "embed"

// rpcModels are the query services' shapes, compacted from the botocore
// models by opsgen (rpcmodels/*.json): what the query protocol needs to
// read forms and write XML.
//
//go:embed rpcmodels/*.json
var rpcModels embed.FS

// RPCModel returns the compact model of a query- or JSON-protocol service
// (SQS, SNS, SES), or nil. Its shape: {"operations":{Op:{"input","output",
// "wrapper"}},"shapes":{Name:{"type","members":[{"name","shape",
// "locationName","flattened"}],"member","key","value":{"shape",
// "locationName"},"flattened","locationName","required"}}}.
func RPCModel(svc Service) []byte {
	switch svc {
	case SQS, SNS, SES:
		b, err := rpcModels.ReadFile("rpcmodels/" + svc.String() + ".json")
		if err != nil {
			return nil
		}
		return b
	}
	return nil
}
