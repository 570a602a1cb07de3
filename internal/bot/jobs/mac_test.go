package jobs_test

import (
	"encoding/hex"
	"testing"

	"github.com/kyku/action/internal/bot/jobs"
)

func TestRecordSigned(t *testing.T) {
	secret, body := []byte("s3cr3t"), []byte(`{"action":"opened"}`)
	mac := hex.EncodeToString(jobs.MAC(secret, body))
	for _, tc := range []struct {
		name   string
		rec    jobs.Record
		secret []byte
		want   bool
	}{
		{"its body's MAC", jobs.Record{Body: body, MAC: mac}, secret, true},
		{"another body", jobs.Record{Body: []byte(`{}`), MAC: mac}, secret, false},
		{"another secret", jobs.Record{Body: body, MAC: mac}, []byte("other"), false},
		{"no secret", jobs.Record{Body: body, MAC: hex.EncodeToString(jobs.MAC(nil, body))}, nil, false},
		{"not hex", jobs.Record{Body: body, MAC: "zz" + mac[2:]}, secret, false},
		{"none", jobs.Record{Body: body}, secret, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rec.Signed(tc.secret); got != tc.want {
				t.Errorf("Signed = %v, want %v", got, tc.want)
			}
		})
	}
}
