// Package modelschema reads the schemas of API Gateway models (JSON Schema
// draft 4 documents that may reference the API's other models by URL) and
// derives what the control planes answer from them: the sample mapping
// template of GetModelTemplate and the flattened schema of GetModel. Both
// REST (v1) and HTTP/WebSocket (v2) APIs use it. It keeps members in the
// order they were written and bounds every expansion, so that a hostile
// schema can neither blow the stack nor the heap.
package modelschema
