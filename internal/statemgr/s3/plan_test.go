package s3_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/sim"
	s3b "github.com/kyku/action/internal/statemgr/s3"
)

// A first plan against the shared S3 backend (what any pull request runs)
// leaves the bucket as it found it: its lock object is put and deleted,
// nothing else is written. The saved plan's prefix is what its apply
// records.
func TestFirstPlanWritesNothingToS3(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bucket := newBucket(t)
	cfg := s3b.Config{Bucket: bucket, Prefix: "prod/network"}
	p, err := sim.New(sim.Options{Dir: filepath.Join(t.TempDir(), "sim")})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte("resources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n")}})
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(p, newBackend(t, cfg, "prod", s3b.Options{}), engine.Options{})
	first, err := e.Plan(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if keys := rawKeys(t, bucket); len(keys) != 0 {
		t.Fatalf("plan wrote to the bucket: %v", keys)
	}
	data, err := plan.Encode(first)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := plan.Decode("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	e = engine.New(p, newBackend(t, cfg, "prod", s3b.Options{}), engine.Options{})
	if res, err := e.Apply(ctx, nil, engine.ApplyOptions{AutoApprove: true}, saved); err != nil || res.Err() != nil {
		t.Fatalf("apply: %v / %v", err, res.Err())
	}
	st, err := e.ReadState(ctx)
	if err != nil || st == nil {
		t.Fatalf("read state: %v", err)
	}
	if st.Metadata.Prefix != first.Prefix || !strings.HasPrefix(st.Resources["net"].CloudName, first.Prefix+"-") {
		t.Errorf("state prefix %q, cloud name %q; want the plan's prefix %q", st.Metadata.Prefix, st.Resources["net"].CloudName, first.Prefix)
	}
}
