package ses

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRaw(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want Parsed
	}{
		{
			name: "plain",
			raw:  "From: a@example.com\nTo: b@x.com, C <c@x.com>\nCc: d@x.com\nBcc: e@x.com\nReply-To: r@x.com\nSubject: test\n\nThis is the message body.\n",
			want: Parsed{From: "a@example.com", FromAddress: "a@example.com", To: []string{"b@x.com", "c@x.com"},
				Cc: []string{"d@x.com"}, Bcc: []string{"e@x.com"}, ReplyTo: []string{"r@x.com"}, Subject: "test",
				Text: "This is the message body.\n"},
		},
		{
			name: "encoded subject and display name",
			raw:  "From: =?UTF-8?B?w4lsb2RpZQ==?= <e@example.com>\r\nTo: b@x.com\r\nSubject: =?UTF-8?B?SGVsbG8g8J+Ygw==?= =?UTF-8?Q?and_=C3=A9?=\r\n\r\nx",
			want: Parsed{From: "Élodie <e@example.com>", FromAddress: "e@example.com", To: []string{"b@x.com"},
				Subject: "Hello 😃and é", Text: "x"},
		},
		{
			name: "latin-1 subject and body",
			raw:  "From: a@example.com\r\nTo: b@x.com\r\nSubject: =?ISO-8859-1?Q?caf=E9?=\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\ncaf\xe9",
			want: Parsed{From: "a@example.com", FromAddress: "a@example.com", To: []string{"b@x.com"}, Subject: "café", Text: "café"},
		},
		{
			name: "html only, base64",
			raw:  "From: a@example.com\r\nTo: b@x.com\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\nPGI+aGk8L2I+\r\n",
			want: Parsed{From: "a@example.com", FromAddress: "a@example.com", To: []string{"b@x.com"}, HTML: "<b>hi</b>"},
		},
		{
			name: "multipart mixed with alternative and attachments",
			raw: strings.Join([]string{
				"From: a@example.com",
				"To: b@x.com",
				"Subject: parts",
				"MIME-Version: 1.0",
				`Content-Type: multipart/mixed; boundary="outer"`,
				"",
				"--outer",
				`Content-Type: multipart/alternative; boundary="inner"`,
				"",
				"--inner",
				"Content-Type: text/plain; charset=UTF-8",
				"Content-Transfer-Encoding: quoted-printable",
				"",
				"caf=C3=A9 and a soft=",
				" break",
				"--inner",
				"Content-Type: text/html; charset=UTF-8",
				"Content-Transfer-Encoding: base64",
				"",
				"PHA+Y2Fmw6k8L3A+",
				"--inner--",
				"--outer",
				"Content-Type: text/plain",
				`Content-Disposition: attachment; filename="notes.txt"`,
				"",
				"attached text is not the body",
				"--outer",
				"Content-Type: application/pdf",
				"Content-Transfer-Encoding: base64",
				"",
				"JVBERi0=",
				"--outer--",
				"",
			}, "\r\n"),
			want: Parsed{From: "a@example.com", FromAddress: "a@example.com", To: []string{"b@x.com"}, Subject: "parts",
				Text: "café and a soft break", HTML: "<p>café</p>"},
		},
	}
	for _, tc := range cases {
		t.Run("case="+tc.name, func(t *testing.T) {
			got, err := ParseRaw(V1, []byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if got.From != tc.want.From || got.FromAddress != tc.want.FromAddress || got.Subject != tc.want.Subject ||
				got.Text != tc.want.Text || got.HTML != tc.want.HTML || !slices.Equal(got.To, tc.want.To) ||
				!slices.Equal(got.Cc, tc.want.Cc) || !slices.Equal(got.Bcc, tc.want.Bcc) || !slices.Equal(got.ReplyTo, tc.want.ReplyTo) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseRawMalformed(t *testing.T) {
	for name, raw := range map[string]string{
		"no header":          "just text",
		"bad from":           "From: <<<\n\nx",
		"bad content type":   "From: a@x.com\nContent-Type: text/plain; charset=\"\n\nx",
		"no boundary":        "From: a@x.com\nContent-Type: multipart/mixed\n\nx",
		"bad base64":         "From: a@x.com\nContent-Transfer-Encoding: base64\n\n!!!!",
		"unterminated parts": "From: a@x.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nx",
	} {
		t.Run("case="+name, func(t *testing.T) {
			_, err := ParseRaw(V2, []byte(raw))
			wantCode(t, err, codeBadRequest, "")
		})
	}
}

// FuzzParseRaw: no input panics or hangs the parser.
func FuzzParseRaw(f *testing.F) {
	f.Add([]byte("From: a@x.com\nTo: b@x.com\nSubject: =?UTF-8?B?w6k=?=\n\nbody"))
	f.Add([]byte("From: a@x.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/html\n\n<b>x</b>\n--b--\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, _ = ParseRaw(V1, raw)
	})
}
