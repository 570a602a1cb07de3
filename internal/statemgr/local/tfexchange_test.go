package local_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/tfstate"
)

// TestTerraformPull: kyku state pull on each state tofu 1.12.6 recorded
// prints what `tofu state pull` printed for it (recorded/CASE.remote
// .tfstate is that output less its last newline), whatever the case holds
// (deposed, sensitive, checks, data, modules, …); no state prints nothing.
// OpenTofu writes check results in its map's order, which changes from run
// to run: where the bytes differ in that order only, the results compare
// as a set.
func TestTerraformPull(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "tfstate", "testdata", "recorded", "*.remote.tfstate"))
	if err != nil || len(cases) < 10 {
		t.Fatalf("recorded cases: %v %v", cases, err)
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".remote.tfstate")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			put(t, filepath.Join(dir, "terraform.tfstate"), recordedState(t, name))
			got, err := newTF(t, dir, "").Pull(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			want := string(get(t, c)) + "\n"
			if want == string(got) {
				return
			}
			tofu, err1 := tfstate.Decode("tofu", []byte(want))
			kyku, err2 := tfstate.Decode("kyku", got)
			byAddr := cmpopts.SortSlices(func(a, b *tfstate.CheckResult) bool { return a.Addr < b.Addr })
			if err1 != nil || err2 != nil || !strings.HasSuffix(string(got), "}\n\n") || !cmp.Equal(tofu, kyku, byAddr) {
				t.Errorf("pull (-tofu +kyku):\n%s", cmp.Diff(want, string(got)))
			}
		})
	}
	got, err := newTF(t, t.TempDir(), "").Pull(t.Context())
	if err != nil || got != nil {
		t.Errorf("no state: %q, %v; want nothing", got, err)
	}
}

// withState is data (a recorded state) with its lineage, serial and
// resources changed as edit says.
func withState(t *testing.T, data []byte, edit func(*tfstate.File)) []byte {
	t.Helper()
	f, err := tfstate.Decode("in", data)
	if err != nil {
		t.Fatal(err)
	}
	edit(f)
	out, err := tfstate.Encode(f, tfstate.Compact)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTerraformPush: kyku state push takes a state in OpenTofu's format
// with tofu state push's rules: another lineage, an older serial, or the
// same serial with other contents are refused without --force, and
// nothing is written; the same state is no write; a newer one is written
// in OpenTofu's indented form with its serial (or, forced, one above the
// stored), the state it replaced backed up twice (terraform.tfstate.backup
// as OpenTofu, Kyku's backup beside the state), and reads back with
// package tfstate as the very state pushed.
func TestTerraformPush(t *testing.T) {
	orig := recordedState(t, "counts")
	was, err := tfstate.Decode("orig", orig)
	if err != nil {
		t.Fatal(err)
	}
	dropOne := func(f *tfstate.File) { f.Resources = f.Resources[1:] }
	for _, tt := range []struct {
		name    string
		push    func(*tfstate.File)
		force   bool
		refused string
		written bool
		serial  uint64
	}{
		{"another lineage", func(f *tfstate.File) { dropOne(f); f.Lineage = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"; f.Serial += 5 }, false,
			`lineage "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0" is not the stored state's`, false, 0},
		{"an older serial", func(f *tfstate.File) { dropOne(f); f.Serial-- }, false, "is older than the stored state's", false, 0},
		{"the same serial, other contents", dropOne, false, "is the stored state's, with other contents", false, 0},
		{"the same state", func(f *tfstate.File) { f.TerraformVersion = "1.9.0" }, false, "", false, was.Serial},
		{"a newer serial", func(f *tfstate.File) { dropOne(f); f.Serial += 3 }, false, "", true, was.Serial + 3},
		{"forced: another lineage, older", func(f *tfstate.File) { dropOne(f); f.Lineage = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"; f.Serial = 1 }, true,
			"", true, was.Serial + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			path := filepath.Join(dir, "terraform.tfstate")
			put(t, path, orig)
			data := withState(t, orig, tt.push)
			b := newTF(t, dir, "")
			lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "state push"})
			if err != nil {
				t.Fatal(err)
			}
			res, err := b.Push(ctx, "pushed.tfstate", data, tt.force)
			if uerr := lock.Unlock(ctx); uerr != nil {
				t.Fatal(uerr)
			}
			if tt.refused != "" {
				if !errors.Is(err, tflayout.ErrPushRefused) || !strings.Contains(err.Error(), tt.refused) {
					t.Errorf("got %v, want refused with %q", err, tt.refused)
				}
				if string(get(t, path)) != string(orig) {
					t.Error("a refused push changed the state")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Written != tt.written || res.Serial != tt.serial {
				t.Errorf("result %+v, want written %v serial %d", res, tt.written, tt.serial)
			}
			if !tt.written {
				if string(get(t, path)) != string(orig) {
					t.Error("pushing the stored state rewrote it")
				}
				if _, err := os.Stat(path + ".backup"); err == nil {
					t.Error("pushing the stored state made a backup")
				}
				return
			}
			now := readState(t, path)
			want := withState(t, data, func(f *tfstate.File) { f.Serial, f.TerraformVersion = tt.serial, tfstate.WriterVersion })
			if got, _ := tfstate.Encode(now, tfstate.Compact); string(got) != string(want) {
				t.Errorf("stored (-want +got):\n%s", cmp.Diff(string(want), string(got)))
			}
			if again, _ := tfstate.Encode(now, tfstate.Indented); string(again) != string(get(t, path)) {
				t.Error("the pushed state is not in OpenTofu's indented form")
			}
			if string(get(t, path+".backup")) != string(withState(t, orig, func(*tfstate.File) {})) {
				t.Error("terraform.tfstate.backup is not the state pushed over")
			}
			list, err := b.ListBackups(ctx)
			if err != nil || len(list) != 1 || list[0].Key != res.BackupKey || list[0].Serial != int64(was.Serial) {
				t.Errorf("kyku's backups %+v (%v), want one of serial %d named %s", list, err, was.Serial, res.BackupKey)
			}
		})
	}
}

// TestTerraformPushNoState: a push where there is no state, or over one
// with neither resources nor outputs, takes the pushed state as it is,
// whatever its lineage (as tofu's).
func TestTerraformPushNoState(t *testing.T) {
	ctx := t.Context()
	data := recordedState(t, "counts")
	for _, tt := range []struct {
		name   string
		stored []byte
	}{
		{"no state", nil},
		{"an empty state", recordedState(t, "empty")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "terraform.tfstate")
			if tt.stored != nil {
				put(t, path, withState(t, tt.stored, func(f *tfstate.File) { f.Serial = 40 }))
			}
			b := newTF(t, dir, "")
			lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "state push"})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = lock.Unlock(ctx) }()
			res, err := b.Push(ctx, "pushed.tfstate", data, false)
			if err != nil || !res.Written {
				t.Fatalf("push: %+v %v", res, err)
			}
			pushed, now := readState(t, path), withState(t, data, func(*tfstate.File) {})
			if got, _ := tfstate.Encode(pushed, tfstate.Compact); tt.stored == nil && string(got) != string(now) {
				t.Errorf("stored (-want +got):\n%s", cmp.Diff(string(now), string(got)))
			}
			if tt.stored != nil && pushed.Serial != 41 {
				t.Errorf("serial %d over an empty state of serial 40, want 41", pushed.Serial)
			}
		})
	}
}

func readState(t *testing.T, path string) *tfstate.File {
	t.Helper()
	f, err := tfstate.Decode(path, get(t, path))
	if err != nil {
		t.Fatalf("the state does not read as OpenTofu's: %v", err)
	}
	return f
}

// TestTerraformRestore: a backup of a Terraform state keeps that state as
// OpenTofu wrote it (data sources, deposed objects, sensitive paths,
// null attributes), and Restore writes exactly it back, its serial raised
// above the stored one; a backup of another lineage is refused.
func TestTerraformRestore(t *testing.T) {
	for _, name := range []string{"data", "deposed", "sensitive", "modules"} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			path := filepath.Join(dir, "terraform.tfstate")
			orig := recordedState(t, name)
			put(t, path, orig)
			b := newTF(t, dir, "")
			lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "state restore"})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = lock.Unlock(ctx) }()
			st, err := b.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			key, err := b.Backup(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			was := readState(t, path)
			if _, err := b.Push(ctx, "emptied", withState(t, orig, func(f *tfstate.File) { f.Resources, f.Serial = nil, f.Serial+4 }), false); err != nil {
				t.Fatal(err)
			}
			res, err := b.Restore(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if res.Serial != was.Serial+5 || res.BackupKey == "" {
				t.Errorf("restore %+v, want serial %d and a backup", res, was.Serial+5)
			}
			want := withState(t, orig, func(f *tfstate.File) { f.Serial = was.Serial + 5 })
			if got, _ := tfstate.Encode(readState(t, path), tfstate.Compact); string(got) != string(want) {
				t.Errorf("restored (-want +got):\n%s", cmp.Diff(string(want), string(got)))
			}

			other := withState(t, orig, func(f *tfstate.File) { f.Lineage = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0" })
			if _, err := b.Push(ctx, "other", other, true); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Restore(ctx, key); err == nil || !strings.Contains(err.Error(), "refusing to restore: backup lineage") {
				t.Errorf("restore over another lineage: %v", err)
			}
		})
	}
}
