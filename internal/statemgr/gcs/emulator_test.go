package gcs_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
)

func put(ctx context.Context, o *storage.ObjectHandle, data string) (int64, error) {
	w := o.NewWriter(ctx)
	w.ChunkSize = 0
	if _, err := w.Write([]byte(data)); err != nil {
		_ = w.Close()
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return w.Attrs().Generation, nil
}

func is412(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusPreconditionFailed
}

// TestEmulatorEnforcesLockPreconditions proves that the emulator enforces
// every precondition the lock and the conditional writes rely on:
// ifGenerationMatch=0 (create only if absent), ifGenerationMatch=<g> on an
// overwrite, and a delete by generation. A backend passing the conformance
// suite on an emulator that ignored them would prove nothing.
func TestEmulatorEnforcesLockPreconditions(t *testing.T) {
	srv := gcstest.Require(t)
	ctx := context.Background()
	b := srv.Client.Bucket(srv.NewBucket(t))
	o := b.Object("state.json.lock")

	g1, err := put(ctx, o.If(storage.Conditions{DoesNotExist: true}), "holder-1")
	if err != nil {
		t.Fatalf("create if absent: %v", err)
	}
	if _, err := put(ctx, o.If(storage.Conditions{DoesNotExist: true}), "holder-2"); !is412(err) {
		t.Fatalf("second create if absent: %v; want 412 (the lock would not be exclusive)", err)
	}
	g2, err := put(ctx, o.If(storage.Conditions{GenerationMatch: g1}), "holder-1 beat")
	if err != nil || g2 == g1 {
		t.Fatalf("overwrite on the right generation: generation %d, %v", g2, err)
	}
	if _, err := put(ctx, o.If(storage.Conditions{GenerationMatch: g1}), "breaker"); !is412(err) {
		t.Fatalf("overwrite on a stale generation: %v; want 412 (two breakers could both win)", err)
	}
	if err := o.Generation(g1).If(storage.Conditions{GenerationMatch: g1}).Delete(ctx); err == nil {
		t.Fatal("delete by a stale generation succeeded (an old holder could delete a new holder's lock)")
	}
	r, err := o.NewReader(ctx)
	if err != nil {
		t.Fatalf("read after the refused writes: %v", err)
	}
	var got bytes.Buffer
	_, _ = got.ReadFrom(r)
	r.Close()
	if got.String() != "holder-1 beat" || r.Attrs.Generation != g2 {
		t.Fatalf("lock holds %q (generation %d), want %q (generation %d)", got.String(), r.Attrs.Generation, "holder-1 beat", g2)
	}
	if err := o.Generation(g2).If(storage.Conditions{GenerationMatch: g2}).Delete(ctx); err != nil {
		t.Fatalf("delete by the current generation: %v", err)
	}
}

// TestEmulatorIgnoresIfGenerationMatchOnDelete pins a gap of the emulator
// (README, "GCS"): a delete with only ifGenerationMatch (no generation=) is
// not checked. The backend deletes with both, so the lock does not rely on
// it. If this test fails after an emulator upgrade, the gap is closed:
// update the README.
func TestEmulatorIgnoresIfGenerationMatchOnDelete(t *testing.T) {
	srv := gcstest.Require(t)
	ctx := context.Background()
	o := srv.Client.Bucket(srv.NewBucket(t)).Object("x")
	g, err := put(ctx, o, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.If(storage.Conditions{GenerationMatch: g + 1000}).Delete(ctx); err != nil {
		t.Skipf("the emulator now enforces ifGenerationMatch on delete (%v): remove the caveat from the README", err)
	}
}
