package ses

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// Parsed is what a raw MIME message says: its addresses (bare), subject
// and bodies. Attachments are skipped.
type Parsed struct {
	// From is the From header as written (words decoded); FromAddress its
	// address.
	From, FromAddress string
	To, Cc, Bcc       []string
	ReplyTo           []string
	Subject           string
	Text, HTML        string
}

// maxDepth bounds multipart nesting.
const maxDepth = 16

var wordDecoder = &mime.WordDecoder{CharsetReader: charsetReader}

// charsetReader reads the charsets besides UTF-8 that mail commonly uses
// and Go's standard library does not: Latin-1 and ASCII.
func charsetReader(charset string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "iso-8859-1", "latin1", "latin-1", "windows-1252", "us-ascii", "ascii":
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		return strings.NewReader(latin1(b)), nil
	}
	return nil, fmt.Errorf("unsupported charset %s", charset)
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// ParseRaw reads a raw message as SendRawEmail receives it. A message
// net/mail cannot read, a malformed address header or a broken multipart
// body is the API's invalid-value error.
func ParseRaw(a API, raw []byte) (Parsed, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Parsed{}, a.Invalid("Malformed MIME message: %s.", err.Error())
	}
	var p Parsed
	h := msg.Header
	if f := h.Get("From"); f != "" {
		p.From = decodeWords(f)
		addrs, err := h.AddressList("From")
		if err != nil || len(addrs) == 0 {
			return Parsed{}, a.Invalid("Illegal address in header 'From': %s", p.From)
		}
		p.FromAddress = addrs[0].Address
	}
	for _, l := range []struct {
		name string
		dst  *[]string
	}{{"To", &p.To}, {"Cc", &p.Cc}, {"Bcc", &p.Bcc}, {"Reply-To", &p.ReplyTo}} {
		if h.Get(l.name) == "" {
			continue
		}
		addrs, err := h.AddressList(l.name)
		if err != nil {
			return Parsed{}, a.Invalid("Illegal address in header '%s': %s", l.name, err.Error())
		}
		for _, ad := range addrs {
			*l.dst = append(*l.dst, ad.Address)
		}
	}
	p.Subject = decodeWords(h.Get("Subject"))
	if err := p.body(h.Get("Content-Type"), h.Get("Content-Transfer-Encoding"), msg.Body, 0); err != nil {
		return Parsed{}, a.Invalid("Malformed MIME message: %s.", err.Error())
	}
	return p, nil
}

func decodeWords(s string) string {
	d, err := wordDecoder.DecodeHeader(s)
	if err != nil {
		return s
	}
	return d
}

// body fills Text and HTML from the first text/plain and text/html parts
// that are not attachments.
func (p *Parsed) body(contentType, encoding string, r io.Reader, depth int) error {
	if depth > maxDepth {
		return errors.New("multipart nesting is too deep")
	}
	typ, params := "text/plain", map[string]string{}
	if contentType != "" {
		t, ps, err := mime.ParseMediaType(contentType)
		if err != nil {
			return fmt.Errorf("bad Content-Type %q", contentType)
		}
		typ, params = t, ps
	}
	if strings.HasPrefix(typ, "multipart/") {
		boundary := params["boundary"]
		if boundary == "" {
			return fmt.Errorf("%s without a boundary", typ)
		}
		mr := multipart.NewReader(r, boundary)
		for {
			part, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("multipart body: %v", err)
			}
			if d, _, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition")); d == "attachment" {
				continue
			}
			if err := p.body(part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part, depth+1); err != nil {
				return err
			}
		}
	}
	var dst *string
	switch typ {
	case "text/plain":
		dst = &p.Text
	case "text/html":
		dst = &p.HTML
	default:
		return nil
	}
	if *dst != "" {
		return nil // the first part of its type wins
	}
	b, err := decodeBody(encoding, r)
	if err != nil {
		return err
	}
	*dst = decodeCharset(params["charset"], b)
	return nil
}

func decodeBody(encoding string, r io.Reader) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		b, err := io.ReadAll(quotedprintable.NewReader(r))
		if err != nil {
			return nil, fmt.Errorf("quoted-printable body: %v", err)
		}
		return b, nil
	case "base64":
		raw, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		clean := bytes.Map(func(c rune) rune {
			if c == '\r' || c == '\n' || c == ' ' || c == '\t' {
				return -1
			}
			return c
		}, raw)
		b, err := base64.StdEncoding.DecodeString(string(clean))
		if err != nil {
			return nil, fmt.Errorf("base64 body: %v", err)
		}
		return b, nil
	}
	return io.ReadAll(r)
}

func decodeCharset(charset string, b []byte) string {
	switch strings.ToLower(charset) {
	case "iso-8859-1", "latin1", "latin-1", "windows-1252":
		return latin1(b)
	}
	if !utf8.Valid(b) {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(b)
}
