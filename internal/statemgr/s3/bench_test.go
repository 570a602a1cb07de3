package s3_test

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// BenchmarkRoundTrip is what every apply pays: lock acquire, state read,
// state write, unlock, against the real server. Each step is reported per
// operation (lock-ns/op, read-ns/op, write-ns/op, unlock-ns/op).
func BenchmarkRoundTrip(b *testing.B) {
	ctx := b.Context()
	bucket := newBucket(b)
	be := newBackend(b, s3b.Config{Bucket: bucket, Prefix: "bench"}, "prod", s3b.Options{})
	names := make([]string, 50)
	for i := range names {
		names[i] = "res-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if err := be.Write(ctx, statemgrtest.NewState("lin", 1, names...), statemgr.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	var lock, read, write, unlock time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		l, err := be.Lock(ctx, lockInfo("bench"))
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		f, err := be.Read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		f.Metadata.Serial++
		if err := be.Write(ctx, f, statemgr.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
		lock, read, write, unlock = lock+t1.Sub(t0), read+t2.Sub(t1), write+t3.Sub(t2), unlock+time.Since(t3)
		n++
	}
	for name, d := range map[string]time.Duration{"lock": lock, "read": read, "write": write, "unlock": unlock} {
		b.ReportMetric(float64(d.Nanoseconds())/float64(n), name+"-ns/op")
	}
}
