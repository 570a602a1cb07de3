package s3_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// Two runs read the same state: the first write wins, the second is a
// conflict, and after reading again the second may write; the serial rose
// with every write.
func TestWriteConditionalOnETag(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	cfg := s3b.Config{Bucket: bucket, Prefix: "prod/network"}
	a := newBackend(t, cfg, "prod", s3b.Options{})
	b := newBackend(t, cfg, "prod", s3b.Options{})
	if err := a.Write(ctx, statemgrtest.NewState("lin", 1, "vpc"), statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	fa, errA := a.Read(ctx)
	fb, errB := b.Read(ctx)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	fa.Metadata.Serial++
	fa.Resources["a"] = statemgrtest.NewResource("a", 1)
	if err := a.Write(ctx, fa, statemgr.WriteOptions{}); err != nil {
		t.Fatalf("first writer: %v", err)
	}
	fb.Metadata.Serial++
	fb.Resources["b"] = statemgrtest.NewResource("b", 2)
	err := b.Write(ctx, fb, statemgr.WriteOptions{})
	if !errors.Is(err, statemgr.ErrConflict) {
		t.Fatalf("second writer = %v, want ErrConflict", err)
	}
	// Retrying without reading again is still refused.
	fb.Metadata.Serial += 5
	if err := b.Write(ctx, fb, statemgr.WriteOptions{}); !errors.Is(err, statemgr.ErrConflict) {
		t.Fatalf("second writer's blind retry = %v, want ErrConflict", err)
	}
	got, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(fa, got); d != "" {
		t.Errorf("stored state is not the first writer's (-want +got):\n%s", d)
	}
	got.Metadata.Serial++
	got.Resources["b"] = statemgrtest.NewResource("b", 2)
	if err := b.Write(ctx, got, statemgr.WriteOptions{}); err != nil {
		t.Fatalf("write after reading again: %v", err)
	}
	final, _ := a.Read(ctx)
	if final.Metadata.Serial != 3 || cmp.Diff([]string{"a", "b", "vpc"}, final.Names()) != "" {
		t.Errorf("final state serial %d with %v, want serial 3 with a, b, vpc (no lost update)", final.Metadata.Serial, final.Names())
	}
}

func TestWriteRefusals(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	tests := []struct {
		name  string
		write *state.File
		opts  statemgr.WriteOptions
		ok    bool
	}{
		{"other lineage", statemgrtest.NewState("other", 9, "x"), statemgr.WriteOptions{}, false},
		{"same serial", statemgrtest.NewState("lin", 4, "x"), statemgr.WriteOptions{}, false},
		{"lower serial", statemgrtest.NewState("lin", 1, "x"), statemgr.WriteOptions{}, false},
		{"higher serial", statemgrtest.NewState("lin", 5, "x"), statemgr.WriteOptions{}, true},
		{"forced other lineage", statemgrtest.NewState("other", 1, "x"), statemgr.WriteOptions{Force: true}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBackend(t, s3b.Config{Bucket: bucket, Prefix: randHex(4)}, "", s3b.Options{})
			if err := b.Write(ctx, statemgrtest.NewState("lin", 4, "vpc"), statemgr.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			err := b.Write(ctx, tc.write, tc.opts)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, statemgr.ErrConflict)) {
				t.Fatalf("Write = %v, want ok=%v (or ErrConflict)", err, tc.ok)
			}
			want := statemgrtest.NewState("lin", 4, "vpc")
			if tc.ok {
				want = tc.write
			}
			got, err := b.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("stored state (-want +got):\n%s", d)
			}
		})
	}
}

// A state object that is not valid JSON is reported (naming the object)
// and is never overwritten, not even by a forced write.
func TestCorruptStateRefusedAndUntouched(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	corrupt := []byte("{not json")
	rawPut(t, bucket, "team/state.prod.json", corrupt)
	b := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "team"}, "prod", s3b.Options{})
	_, err := b.Read(ctx)
	if !errors.Is(err, state.ErrCorrupt) || !strings.Contains(err.Error(), "s3://"+bucket+"/team/state.prod.json") {
		t.Errorf("Read = %v, want ErrCorrupt naming s3://%s/team/state.prod.json", err, bucket)
	}
	for _, opts := range []statemgr.WriteOptions{{}, {Force: true}} {
		if err := b.Write(ctx, statemgrtest.NewState("lin", 1, "x"), opts); err == nil {
			t.Errorf("Write(force=%v) over a corrupt state succeeded", opts.Force)
		}
		fresh := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "team"}, "prod", s3b.Options{})
		if err := fresh.Write(ctx, statemgrtest.NewState("lin", 1, "x"), opts); err == nil {
			t.Errorf("Write(force=%v) without a Read over a corrupt state succeeded", opts.Force)
		}
	}
	if got := rawGet(t, bucket, "team/state.prod.json"); !bytes.Equal(got, corrupt) {
		t.Errorf("corrupt state object changed to %q", got)
	}
}

// Every object lands where the layout says, with and without a prefix.
func TestObjectLayout(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, tc := range []struct{ prefix, env, p string }{
		{"", "", ""},
		{"prod/network", "prod", "prod/network/"},
		{"/edge/", "staging", "edge/"},
	} {
		t.Run(tc.prefix+"|"+tc.env, func(t *testing.T) {
			t.Parallel()
			bucket := newBucket(t)
			now := func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 890e6, time.UTC) }
			b := newBackend(t, s3b.Config{Bucket: bucket, Prefix: tc.prefix}, tc.env, s3b.Options{Now: now})
			f := statemgrtest.NewState("lin", 3, "vpc")
			must(t, b.Write(ctx, f, statemgr.WriteOptions{}))
			must(t, b.Append(ctx, state.Entry{Seq: 7, Lineage: "lin", Op: state.OpDelete, Name: "vpc"}))
			key, err := b.Backup(ctx, f)
			must(t, err)
			must(t, b.PutObject(ctx, "plans/prod/pr-12.json", []byte("{}")))
			l, err := b.Lock(ctx, lockInfo("layout"))
			must(t, err)
			stem := "state"
			if tc.env != "" {
				stem += "." + tc.env
			}
			want := []string{
				tc.p + "backups/" + stem + ".20250304T050607.890Z.3.json",
				tc.p + "plans/prod/pr-12.json",
				tc.p + stem + ".json",
				tc.p + stem + ".json.journal/00000000000000000007.json",
				tc.p + stem + ".json.lock",
			}
			if d := cmp.Diff(want, rawKeys(t, bucket)); d != "" {
				t.Errorf("object keys (-want +got):\n%s", d)
			}
			if want := "backups/" + stem + ".20250304T050607.890Z.3.json"; key != want {
				t.Errorf("Backup key = %q, want %q (relative to the prefix)", key, want)
			}
			must(t, l.Unlock(ctx))
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
