package bench

import (
	"fmt"
	"strings"
)

// OpenAPIDocument is an OpenAPI 3.0 document of paths paths, each with a
// GET (MOCK integration with a template and an integration response) and a
// POST (HTTP_PROXY with a path parameter), and one model: the document the
// import benchmarks use. It has an info.description and a MOCK httpMethod
// and uri, without which moto cannot import it.
func OpenAPIDocument(paths int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.1","info":{"title":"bench","description":"import benchmark","version":"1"},"paths":{`)
	for i := range paths {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/items%d/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],`+
			`"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Item"}}}}},`+
			`"x-amazon-apigateway-integration":{"type":"mock","httpMethod":"POST","uri":"","requestTemplates":{"application/json":"{\"statusCode\": 200}"},`+
			`"responses":{"default":{"statusCode":"200","responseTemplates":{"application/json":"{\"id\": \"$input.params('id')\"}"}}}}},`+
			`"post":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}},`+
			`"x-amazon-apigateway-integration":{"type":"http_proxy","httpMethod":"POST","uri":"http://127.0.0.1:9/items/{id}",`+
			`"requestParameters":{"integration.request.path.id":"method.request.path.id"}}}}`, i)
	}
	b.WriteString(`},"components":{"schemas":{"Item":{"type":"object","properties":{"id":{"type":"string"}}}}}}`)
	return []byte(b.String())
}
