package awswire

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/aws/smithy-go"
)

// Error is an AWS answer that refused a call. It is a smithy.APIError, as
// the SDK's own errors are.
type Error struct {
	Op        string // the action or operation
	Status    int    // the HTTP status
	Code      string // AWS's error code ("InvalidVpcID.NotFound")
	Message   string
	RequestID string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: api error %s: %s", e.Op, e.Code, e.Message)
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

// ErrorCode implements smithy.APIError.
func (e *Error) ErrorCode() string { return e.Code }

// ErrorMessage implements smithy.APIError.
func (e *Error) ErrorMessage() string { return e.Message }

// ErrorFault implements smithy.APIError: a 5xx is AWS's fault, the rest
// the caller's.
func (e *Error) ErrorFault() smithy.ErrorFault {
	if e.Status >= 500 {
		return smithy.FaultServer
	}
	return smithy.FaultClient
}

// HTTPStatusCode is the answer's HTTP status.
func (e *Error) HTTPStatusCode() int { return e.Status }

var _ smithy.APIError = (*Error)(nil)

// queryError reads a Query protocol's error answer: EC2's
// <Response><Errors><Error> or ELBv2's and RDS's
// <ErrorResponse><Error>. An answer that is neither (a proxy's page)
// keeps its status, with a code saying so.
func queryError(op string, status int, body []byte) error {
	var doc struct {
		XMLName xml.Name
		Errors  []queryErrorItem `xml:"Errors>Error"` // EC2
		Error   []queryErrorItem `xml:"Error"`        // ErrorResponse
		ID      string           `xml:"RequestID"`    // EC2
		Id      string           `xml:"RequestId"`    // ErrorResponse
	}
	e := &Error{Op: op, Status: status}
	if err := xml.Unmarshal(body, &doc); err == nil {
		items := append(doc.Errors, doc.Error...)
		if len(items) > 0 {
			e.Code, e.Message = items[0].Code, items[0].Message
		}
		e.RequestID = doc.ID + doc.Id
	}
	if e.Code == "" {
		e.Code, e.Message = unknownCode(status), snippet(body)
	}
	return e
}

type queryErrorItem struct {
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

// jsonError reads a JSON 1.1 protocol's error answer. Its __type may be
// qualified ("com.amazonaws.ssm#ParameterNotFound"); the code is the name
// after the '#' (and before a ':', which some services append).
func jsonError(op string, status int, body []byte) error {
	var doc struct {
		Type     string `json:"__type"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	e := &Error{Op: op, Status: status}
	if err := json.Unmarshal(body, &doc); err == nil {
		code := doc.Type
		if i := strings.LastIndexByte(code, '#'); i >= 0 {
			code = code[i+1:]
		}
		if i := strings.IndexByte(code, ':'); i >= 0 {
			code = code[:i]
		}
		e.Code, e.Message = code, doc.Message+doc.MessageU
	}
	if e.Code == "" {
		e.Code, e.Message = unknownCode(status), snippet(body)
	}
	return e
}

// unknownCode names an error answer without a code by its status.
func unknownCode(status int) string { return fmt.Sprintf("HTTP%d", status) }

// snippet is the start of an answer, for a message.
func snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
