package lambda

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/cloudemu/emulator/awswire"
)

// Code locations. On AWS, GetFunction's Code.Location is an S3 URL
// presigned for ten minutes. Here it is a URL of the emulator's own,
// CodePath + {account}/{region}/{hash}, with the same query members an
// S3 presigned URL carries (X-Amz-Date, X-Amz-Expires, X-Amz-Signature):
// it needs no credentials, names one package, and stops working after ten
// minutes or when the emulator restarts (the signing key is made at start).

// CodePath is where code packages are downloaded from.
const CodePath = "/_emulator/lambda/code/"

// codeURLLifetime is how long a Code.Location works, as on AWS.
const codeURLLifetime = 10 * time.Minute

// amzDate is the form of X-Amz-Date.
const amzDate = "20060102T150405Z"

// codeKeyBytes is the signing key of code locations, made at start.
var codeKeyBytes = func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}()

func codeSignature(account, region, hash, date string) string {
	m := hmac.New(sha256.New, codeKeyBytes)
	m.Write([]byte(account + "/" + region + "/" + hash + "/" + date))
	return hex.EncodeToString(m.Sum(nil))
}

// CodeLocation is the URL that downloads the package hash of sc from the
// emulator reached at host (the request's Host).
func (s *Service) CodeLocation(sc awswire.Scope, hash, host string) string {
	date := s.now().UTC().Format(amzDate)
	return "http://" + host + CodePath + sc.Account + "/" + sc.Region + "/" + hash +
		"?X-Amz-Date=" + date + "&X-Amz-Expires=" + strconv.Itoa(int(codeURLLifetime/time.Second)) +
		"&X-Amz-Signature=" + codeSignature(sc.Account, sc.Region, hash, date)
}

// DownloadCode is the zip a CodeLocation names, given the URL's query
// members: 403 when the signature is wrong or the URL has expired, 404
// when no function holds the package any more.
func (s *Service) DownloadCode(account, region, hash, date, signature string) ([]byte, error) {
	want := codeSignature(account, region, hash, date)
	if !hmac.Equal([]byte(signature), []byte(want)) {
		return nil, codeURLError(http.StatusForbidden, "SignatureDoesNotMatch",
			"The request signature does not match: ask GetFunction for a new Code.Location.")
	}
	signed, err := time.Parse(amzDate, date)
	if err != nil || s.now().Sub(signed) > codeURLLifetime {
		return nil, codeURLError(http.StatusForbidden, "AccessDenied", "Request has expired")
	}
	if d, ok := s.scopes.Lookup(awswire.Scope{Account: account, Region: region}); ok {
		if c, ok := d.code(hash); ok {
			return c.Zip, nil
		}
	}
	return nil, codeURLError(http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
}

func codeURLError(status int, code, message string) *awswire.Error {
	return &awswire.Error{Service: awswire.ServiceNone, Code: code, Status: status, Message: message}
}
