package awswire

import (
	"net/http"
	"sync/atomic"
	"time"
)

// skewThreshold is how far the signing time may be off AWS's before an
// answer refusing the signature is read as a skewed clock: AWS refuses a
// request that reaches it more than five minutes from its time stamp (IAM
// User Guide, "AWS Signature Version 4 for API requests": "a request must
// reach AWS within five minutes of the time stamp in the request"), so
// four leaves a margin for the round trip, as the SDK's own does.
const skewThreshold = 4 * time.Minute

// skewCodes are the error codes with which AWS refuses a signature, among
// other reasons for a time stamp too far from its own: EC2's
// RequestExpired and AuthFailure, the Query services'
// SignatureDoesNotMatch and RequestExpired, JSON services'
// InvalidSignatureException, S3's RequestTimeTooSkewed. Each is read as
// a skew only when the answer's Date says the clock is off.
var skewCodes = map[string]bool{
	"RequestTimeTooSkewed":      true,
	"RequestExpired":            true,
	"RequestInTheFuture":        true,
	"InvalidSignatureException": true,
	"SignatureDoesNotMatch":     true,
	"AuthFailure":               true,
	"AccessDeniedException":     true,
}

// Skew is the offset of AWS's clock from the local one, learnt from an
// answer that refused a request signed too far from AWS's time, and added
// to the signing time of the requests after. The zero Skew is no offset.
// It is safe for concurrent use; clients of one configuration share one.
type Skew struct{ ns atomic.Int64 }

// Offset is the offset the requests are signed with.
func (s *Skew) Offset() time.Duration {
	if s == nil {
		return 0
	}
	return time.Duration(s.ns.Load())
}

func (s *Skew) set(d time.Duration) {
	if s != nil {
		s.ns.Store(int64(d))
	}
}

// observedSkew is the offset of the clock of the server that answered
// from now's, from the answer's Date header; false when it has none, or
// when the answer came from a cache (an Age header).
func observedSkew(h http.Header, now time.Time) (time.Duration, bool) {
	if h.Get("Age") != "" {
		return 0, false
	}
	date, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return 0, false
	}
	return date.Sub(now), true
}

// skewed reports whether err is AWS refusing a request signed with the
// offset signed while its clock is off the local one by observed: a
// refusal of the signature, and a signing time more than skewThreshold
// from AWS's time.
func skewed(err error, signed, observed time.Duration) bool {
	e, ok := err.(*Error)
	if !ok || !skewCodes[e.Code] {
		return false
	}
	d := observed - signed
	return d > skewThreshold || d < -skewThreshold
}
