package aws

import (
	"testing"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// TestSkewSharedPerEndpoint: the clients reaching AWS's own endpoints
// share the clock offset one of them learns; a client sent to another
// endpoint (a mock, a proxy) learns its own, which never moves the signing
// time of the requests sent to AWS.
func TestSkewSharedPerEndpoint(t *testing.T) {
	cs := []awswire.Client{{}, {}, {Endpoint: "http://127.0.0.1:9/ssm"}, {}, {Endpoint: "http://127.0.0.1:9/ssm"}}
	shareSkews(cs)
	for _, i := range []int{1, 3} {
		if cs[i].Skew != cs[0].Skew {
			t.Errorf("client %d (AWS's endpoint) has a clock of its own, want the one of client 0", i)
		}
	}
	if cs[2].Skew == cs[0].Skew {
		t.Error("the client of another endpoint shares AWS's clock")
	}
	if cs[4].Skew != cs[2].Skew {
		t.Error("two clients of one endpoint have a clock each")
	}
	for i, c := range cs {
		if c.Skew == nil {
			t.Errorf("client %d has no clock", i)
		}
	}
}
