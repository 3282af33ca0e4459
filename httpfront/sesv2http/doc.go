// Package sesv2http serves Amazon SES's v2 API (REST-JSON, through package
// restjson): it decodes each operation's labels, query and JSON body as
// the model names them, calls package ses (whose identities and templates
// v1 shares), and writes the model's output members. It decides no rule
// of its own.
package sesv2http
