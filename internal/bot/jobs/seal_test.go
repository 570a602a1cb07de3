package jobs_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
)

// TestEveryFieldOfARecordIsSigned: a record is changed in the store, one
// field at a time — its kind, its ID, the body's own HMAC, when and by
// whom it was accepted, how often it was taken over, its steps — or copied
// under another ID, or read with another secret, or written in the earlier
// format that signed only the body: the replica that finds it refuses it
// (a bad record, not a job). The record left as it was is taken.
func TestEveryFieldOfARecordIsSigned(t *testing.T) {
	type change func(t *testing.T, objs jobs.Objects, key string, rec map[string]any) (string, []byte)
	field := func(name string, value any) change {
		return func(t *testing.T, _ jobs.Objects, key string, rec map[string]any) (string, []byte) {
			rec[name] = value
			return key, nil
		}
	}
	for _, tc := range []struct {
		name   string
		change change // nil: unchanged
		secret string
		want   error
	}{
		{name: "unchanged"},
		{name: "its kind", change: field("event", "issue_comment"), want: jobs.ErrForged},
		{name: "its ID, in place", change: field("id", "d-other"), want: jobs.ErrForged},
		{name: "the body's HMAC", change: field("mac", "00ff"), want: jobs.ErrForged},
		{name: "the body", change: field("body", []byte(`{"action":"closed"}`)), want: jobs.ErrForged},
		{name: "when it was accepted", change: field("accepted", "2025-06-01T13:00:00Z"), want: jobs.ErrForged},
		{name: "who accepted it", change: field("acceptedBy", "replica-x"), want: jobs.ErrForged},
		{name: "its takeovers", change: field("takeovers", 0), want: jobs.ErrForged},
		{name: "a step marked done", change: field("steps", map[string]any{"plan env:acme/infra:prod": map[string]any{"done": true}}), want: jobs.ErrForged},
		{name: "copied under another ID", change: func(t *testing.T, objs jobs.Objects, _ string, rec map[string]any) (string, []byte) {
			rec["id"] = "d-copy"
			return jobs.Key("d-copy"), nil
		}, want: jobs.ErrForged},
		{name: "another secret", secret: "not-the-webhook-secret", want: jobs.ErrForged},
		{name: "the earlier format", change: func(t *testing.T, _ jobs.Objects, key string, rec map[string]any) (string, []byte) {
			flat, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			return key, flat
		}, want: jobs.ErrUnsigned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			objs := s3Store(t)
			clk := &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
			a := jobs.New(objs, jobs.Options{Secret: testSecret, Holder: "replica-a", Lease: time.Minute, Now: clk.now})
			j, err := a.Accept(ctx, jobs.Record{ID: "d-1", Event: "pull_request", Body: []byte(`{"action":"opened"}`), MAC: "abcd", Accepted: clk.now(), AcceptedBy: "replica-a"})
			if err != nil {
				t.Fatal(err)
			}
			if err := j.SetStep(ctx, "plan env:acme/infra:prod", func(s *jobs.Step) { s.CheckRun = 7 }); err != nil {
				t.Fatal(err)
			}
			key := jobs.Key("d-1")
			if tc.change != nil {
				data, v, err := objs.ReadObject(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				var sealed map[string]json.RawMessage
				var rec map[string]any
				if err := json.Unmarshal(data, &sealed); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(sealed["record"], &rec); err != nil {
					t.Fatalf("the stored record: %v\n%s", err, data)
				}
				to, raw := tc.change(t, objs, key, rec)
				if raw == nil {
					if sealed["record"], err = json.Marshal(rec); err != nil {
						t.Fatal(err)
					}
					if raw, err = json.Marshal(sealed); err != nil {
						t.Fatal(err)
					}
				}
				if to == key {
					_, err = objs.ReplaceObject(ctx, key, raw, v)
				} else {
					_, err = objs.CreateObject(ctx, to, raw)
					if err == nil {
						err = objs.DeleteObject(ctx, key, v)
					}
					key = to
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			clk.advance(2 * time.Minute) // a's lease ran out
			secret := testSecret
			if tc.secret != "" {
				secret = []byte(tc.secret)
			}
			b := jobs.New(objs, jobs.Options{Secret: secret, Holder: "replica-b", Lease: time.Minute, Now: clk.now})
			got, bad, err := b.TakeOrphans(ctx, 10, none)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(got) != 1 || len(bad) != 0 || got[0].Record().Steps["plan env:acme/infra:prod"].CheckRun != 7 || got[0].Record().Takeovers != 1 {
					t.Fatalf("TakeOrphans = %v, bad %v; want the record, taken over", got, bad)
				}
				return
			}
			if len(got) != 0 || len(bad) != 1 || bad[0].Key != key || !errors.Is(bad[0].Err, tc.want) {
				t.Fatalf("TakeOrphans = %v, bad %v; want %s refused: %v", got, bad, key, tc.want)
			}
			if err := bad[0].Job.Finish(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAStoreWithoutASecretWritesNothing: no secret, no record.
func TestAStoreWithoutASecretWritesNothing(t *testing.T) {
	objs := s3Store(t)
	s := jobs.New(objs, jobs.Options{Holder: "a"})
	if _, err := s.Accept(t.Context(), jobs.Record{ID: "d-1", Event: "pull_request"}); err == nil {
		t.Error("a record was accepted without a secret to sign it")
	}
	if keys, err := objs.ListObjects(t.Context(), jobs.RecordPrefix); err != nil || len(keys) != 0 {
		t.Errorf("records %v (%v), want none", keys, err)
	}
}
