package awswire_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// awsNow is the time of the fake AWS below.
var awsNow = time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)

// skewServer answers as AWS does a request whose signing time is more than
// five minutes from its clock (awsNow): "a request must reach AWS within
// five minutes of the time stamp in the request. Otherwise, AWS denies the
// request" (IAM User Guide, "AWS Signature Version 4 for API requests").
// Each service refuses it with its own code, with its time in the Date
// header. It records the signing time of every request it is sent.
type skewServer struct {
	json bool   // SSM's JSON 1.1 errors, else a Query service's
	code string // the code of the refusal
	date bool   // the answers carry a Date header
	bad  bool   // every signature is refused (a wrong secret key)

	mu     sync.Mutex
	signed []time.Time
}

func (s *skewServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/aws/") {
		http.NotFound(w, r)
		return
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || !strings.Contains(r.Header.Get("Authorization"), "/"+at.Format("20060102")+"/") {
		http.Error(w, "unsigned", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	s.signed = append(s.signed, at)
	s.mu.Unlock()
	if s.date {
		w.Header().Set("Date", awsNow.Format(http.TimeFormat))
	} else {
		w.Header()["Date"] = nil // net/http adds none
	}
	if d := at.Sub(awsNow); s.bad || d > 5*time.Minute || d < -5*time.Minute {
		msg := fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - 5 min.)", at.Format("20060102T150405Z"),
			awsNow.Add(-5*time.Minute).Format("20060102T150405Z"), awsNow.Format("20060102T150405Z"))
		if s.json {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"__type":"%s","message":%q}`, s.code, msg)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `<Response><Errors><Error><Code>%s</Code><Message>%s</Message></Error></Errors><RequestID>r-1</RequestID></Response>`, s.code, msg)
		return
	}
	if s.json {
		_, _ = io.WriteString(w, `{"Parameter":{"Value":"ami-123"}}`)
		return
	}
	_, _ = io.WriteString(w, `<DescribeVpcsResponse><vpcSet><item><vpcId>vpc-1</vpcId></item></vpcSet></DescribeVpcsResponse>`)
}

func (s *skewServer) signedAt() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.signed...)
}

// call makes one call of c to s's protocol.
func (s *skewServer) call(t *testing.T, c *awswire.Client) error {
	if s.json {
		return c.JSON(t.Context(), "GetParameter", map[string]string{"Name": "x"}, nil)
	}
	return c.Query(t.Context(), "DescribeVpcs", nil, &vpcs{})
}

// TestSkewedClockIsCorrected: with the local clock 20 minutes off AWS's,
// a call AWS refuses for its time stamp is sent once more, signed at
// AWS's time (from the answer's Date), and succeeds; the offset is kept,
// so the next call — by another service's client of the same
// configuration — is signed right the first time.
func TestSkewedClockIsCorrected(t *testing.T) {
	for _, tc := range []struct {
		name string
		srv  *skewServer
		off  time.Duration
	}{
		{name: "ec2 ahead", srv: &skewServer{code: "RequestExpired"}, off: 20 * time.Minute},
		{name: "ec2 behind", srv: &skewServer{code: "RequestExpired"}, off: -20 * time.Minute},
		{name: "query service", srv: &skewServer{code: "SignatureDoesNotMatch"}, off: 20 * time.Minute},
		{name: "ssm", srv: &skewServer{json: true, code: "InvalidSignatureException"}, off: -20 * time.Minute},
		{name: "s3 style", srv: &skewServer{code: "RequestTimeTooSkewed"}, off: 20 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.srv.date = true
			srv := httptest.NewServer(tc.srv)
			defer srv.Close()
			local := awsNow.Add(tc.off)
			skew := new(awswire.Skew)
			first, second := client(srv.URL+"/aws/", "ec2"), client(srv.URL+"/aws/", "ssm")
			for _, c := range []*awswire.Client{first, second} {
				c.Now, c.Skew = func() time.Time { return local }, skew
			}
			if err := tc.srv.call(t, first); err != nil {
				t.Fatalf("first call: %v", err)
			}
			if err := tc.srv.call(t, second); err != nil {
				t.Fatalf("second call: %v", err)
			}
			want := []time.Time{local, awsNow, awsNow}
			if got := tc.srv.signedAt(); !equalTimes(got, want) {
				t.Errorf("requests signed at %v, want %v (one refused, then AWS's time kept)", got, want)
			}
			if got := skew.Offset(); got != -tc.off {
				t.Errorf("offset kept %v, want %v", got, -tc.off)
			}
		})
	}
}

// TestSkewIsRetriedOnce: a refusal that is not the clock's — the answer
// has no Date, its code is not a signature's, or its Date agrees with the
// local clock — is returned as it is, after one request; a call refused
// again once signed at AWS's time is not sent a third time.
func TestSkewIsRetriedOnce(t *testing.T) {
	off := awsNow.Add(20 * time.Minute)
	for _, tc := range []struct {
		name  string
		srv   *skewServer
		local time.Time
		sends int
	}{
		{name: "no date", srv: &skewServer{code: "RequestExpired"}, local: off, sends: 1},
		{name: "not a signature's code", srv: &skewServer{code: "UnauthorizedOperation", date: true}, local: off, sends: 1},
		{name: "a wrong signature on time", srv: &skewServer{code: "SignatureDoesNotMatch", date: true, bad: true}, local: awsNow.Add(time.Minute), sends: 1},
		{name: "a wrong signature off time", srv: &skewServer{code: "SignatureDoesNotMatch", date: true, bad: true}, local: off, sends: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.srv)
			defer srv.Close()
			c := client(srv.URL+"/aws/", "ec2")
			c.Now = func() time.Time { return tc.local }
			err := tc.srv.call(t, c)
			var ae smithy.APIError
			if !errors.As(err, &ae) || ae.ErrorCode() != tc.srv.code {
				t.Fatalf("err = %v, want AWS's %s", err, tc.srv.code)
			}
			if got := len(tc.srv.signedAt()); got != tc.sends {
				t.Errorf("sent %d requests, want %d", got, tc.sends)
			}
		})
	}
}

func equalTimes(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
