package local

import (
	"testing"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// BenchmarkLockReadWriteUnlock is one command's round trip on a state of
// 5,000 resources (about 2 MB): lock, read, write the next serial, unlock.
func BenchmarkLockReadWriteUnlock(b *testing.B) {
	ctx := b.Context()
	be := New(b.TempDir(), "prod", Options{})
	if err := be.Write(ctx, bigState(5000), statemgr.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	info := statemgrtest.NewLockInfo("apply")
	b.ResetTimer()
	for b.Loop() {
		l, err := be.Lock(ctx, info)
		if err != nil {
			b.Fatal(err)
		}
		f, err := be.Read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		f.Metadata.Serial++
		if err := be.Write(ctx, f, statemgr.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJournalAppend is the durability cost of one finished change.
func BenchmarkJournalAppend(b *testing.B) {
	ctx := b.Context()
	be := New(b.TempDir(), "prod", Options{})
	e := state.Entry{Seq: 0, BaseSerial: 1, Lineage: "lin-bench", Op: state.OpPut, Name: "vm", Resource: statemgrtest.NewResource("vm", 1)}
	for b.Loop() {
		e.Seq++
		if err := be.Append(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
}
