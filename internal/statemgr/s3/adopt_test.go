package s3_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// TestAdoptMovesAFormerLocationOnce: on the real S3-compatible server, a
// backend takes over every object of a former location in its bucket (the
// bot's namespace keyed by a repository's name): state, saved plans,
// another environment's state, sealed as they were. An object already at
// the new place is kept; the former location is emptied; a second move
// finds nothing. Objects older than the new owner are another's: nothing
// moves.
func TestAdoptMovesAFormerLocationOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	codec := statemgrtest.TestCodec(t, "a passphrase for the adopt test")
	old := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "acme/infra/prod"}, "prod", s3b.Options{Codec: codec})
	if err := old.Write(ctx, statemgrtest.NewState("lin", 1, "web"), statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := old.PutObject(ctx, "plans/prod/pr-2-abc.json", []byte(`{"plan":"reviewed"}`)); err != nil {
		t.Fatal(err)
	}
	staging := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "acme/infra/prod"}, "staging", s3b.Options{Codec: codec})
	if err := staging.Write(ctx, statemgrtest.NewState("lin-s", 1, "db"), statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	rawPut(t, bucket, "repo.4711/prod/plans/prod/pr-3-def.json", []byte("already here"))

	// Written before the new owner existed: not moved, nothing touched.
	nb := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "repo.4711/prod"}, "prod", s3b.Options{Codec: codec})
	before := rawKeys(t, bucket)
	if n, err := nb.Adopt(ctx, "acme/infra/prod", time.Now().Add(time.Hour)); !errors.Is(err, statemgr.ErrPredates) || n != 0 {
		t.Fatalf("Adopt of objects older than their new owner = %d, %v; want ErrPredates", n, err)
	}
	if after := rawKeys(t, bucket); !slices.Equal(before, after) {
		t.Fatalf("a refused move changed the bucket: %v → %v", before, after)
	}

	n, err := nb.Adopt(ctx, "acme/infra/prod", time.Now().Add(-time.Hour))
	if err != nil || n != 3 {
		t.Fatalf("Adopt = %d, %v; want the 3 objects moved", n, err)
	}
	keys := rawKeys(t, bucket)
	for _, k := range keys {
		if !bytes.HasPrefix([]byte(k), []byte("repo.4711/prod/")) {
			t.Errorf("key %s left outside the new location", k)
		}
	}
	st, err := nb.Read(ctx)
	if err != nil || st == nil || !slices.Equal(st.Names(), []string{"web"}) {
		t.Fatalf("state at the new location = %+v, %v; want the moved state (sealed, opened)", st, err)
	}
	if got, err := nb.GetObject(ctx, "plans/prod/pr-2-abc.json"); err != nil || string(got) != `{"plan":"reviewed"}` {
		t.Errorf("moved plan = %q, %v", got, err)
	}
	if got := rawGet(t, bucket, "repo.4711/prod/plans/prod/pr-3-def.json"); string(got) != "already here" {
		t.Errorf("an object already at the new place was overwritten: %q", got)
	}
	ns := newBackend(t, s3b.Config{Bucket: bucket, Prefix: "repo.4711/prod"}, "staging", s3b.Options{Codec: codec})
	if st, err := ns.Read(ctx); err != nil || st == nil || !slices.Equal(st.Names(), []string{"db"}) {
		t.Errorf("the other environment's state = %+v, %v", st, err)
	}
	if n, err := nb.Adopt(ctx, "acme/infra/prod", time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Errorf("a second Adopt = %d, %v; want nothing to move", n, err)
	}
}
