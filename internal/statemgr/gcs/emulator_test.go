package gcs_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
)

func gen(g int64) url.Values { return url.Values{"generation": {strconv.FormatInt(g, 10)}} }

func genMatch(q url.Values, g int64) url.Values {
	q.Set("ifGenerationMatch", strconv.FormatInt(g, 10))
	return q
}

// TestEmulatorEnforcesLockPreconditions proves that the emulator enforces
// every precondition the lock and the conditional writes rely on:
// ifGenerationMatch=0 (create only if absent), ifGenerationMatch=<g> on an
// overwrite, and a delete by generation. A backend passing the conformance
// suite on an emulator that ignored them would prove nothing. The requests
// are the JSON API's own (gcstest), not Kyku's client.
func TestEmulatorEnforcesLockPreconditions(t *testing.T) {
	srv := gcstest.Require(t)
	ctx := t.Context()
	bucket, name := srv.NewBucket(t), "state.json.lock"
	absent := int64(0)

	g1, err := srv.Put(ctx, bucket, name, []byte("holder-1"), &absent)
	if err != nil {
		t.Fatalf("create if absent: %v", err)
	}
	if _, err := srv.Put(ctx, bucket, name, []byte("holder-2"), &absent); !gcstest.IsStatus(err, http.StatusPreconditionFailed) {
		t.Fatalf("second create if absent: %v; want 412 (the lock would not be exclusive)", err)
	}
	g2, err := srv.Put(ctx, bucket, name, []byte("holder-1 beat"), &g1)
	if err != nil || g2 == g1 {
		t.Fatalf("overwrite on the right generation: generation %d, %v", g2, err)
	}
	if _, err := srv.Put(ctx, bucket, name, []byte("breaker"), &g1); !gcstest.IsStatus(err, http.StatusPreconditionFailed) {
		t.Fatalf("overwrite on a stale generation: %v; want 412 (two breakers could both win)", err)
	}
	if err := srv.Delete(ctx, bucket, name, genMatch(gen(g1), g1)); err == nil {
		t.Fatal("delete by a stale generation succeeded (an old holder could delete a new holder's lock)")
	}
	got, g, err := srv.Get(ctx, bucket, name)
	if err != nil {
		t.Fatalf("read after the refused writes: %v", err)
	}
	if string(got) != "holder-1 beat" || g != g2 {
		t.Fatalf("lock holds %q (generation %d), want %q (generation %d)", got, g, "holder-1 beat", g2)
	}
	if err := srv.Delete(ctx, bucket, name, genMatch(gen(g2), g2)); err != nil {
		t.Fatalf("delete by the current generation: %v", err)
	}
	if _, _, err := srv.Get(ctx, bucket, name); !gcstest.IsStatus(err, http.StatusNotFound) {
		t.Fatalf("read after the delete: %v; want 404", err)
	}
}

// TestEmulatorIgnoresIfGenerationMatchOnDelete pins a gap of the emulator
// (docs/state.md, "GCS"): a delete with only ifGenerationMatch (no generation=) is
// not checked. The backend deletes with both, so the lock does not rely on
// it. If this test fails after an emulator upgrade, the gap is closed:
// update docs/state.md.
func TestEmulatorIgnoresIfGenerationMatchOnDelete(t *testing.T) {
	srv := gcstest.Require(t)
	ctx := t.Context()
	bucket := srv.NewBucket(t)
	g, err := srv.Put(ctx, bucket, "x", []byte("v1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Delete(ctx, bucket, "x", genMatch(url.Values{}, g+1000)); err != nil {
		t.Skipf("the emulator now enforces ifGenerationMatch on delete (%v): remove the caveat from docs/state.md", err)
	}
}
