package github

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTarballRoundTrip(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	const sha = "0123456789abcdef"
	want := map[string][]byte{
		"kyku.yaml":             []byte("resources: {}\n"),
		".kyku/config.yaml":     []byte("projects: []\n"),
		"infra/modules/net.yml": []byte("net"),
	}
	for p, b := range want {
		f.srv.SetFile(repoName, sha, p, b)
	}
	rc, err := f.repo.Tarball(ctx, sha)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := ExtractTarball(rc, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	// The API answered with a redirect, which was followed.
	if n := f.srv.CountRequests("GET", "/tarball/"+sha); n != 1 {
		t.Errorf("%d tarball requests, want 1", n)
	}
	if _, err := f.repo.Tarball(ctx, "no-such-ref"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing ref: err = %v, want ErrNotFound", err)
	}
}

type entry struct {
	name string
	typ  byte
	data string
}

func tarGz(t *testing.T, entries ...entry) io.Reader {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Size: int64(len(e.data))}
		if e.typ != tar.TypeReg {
			h.Size = 0
			h.Linkname = e.data
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.data)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

func TestExtractTarball(t *testing.T) {
	tests := []struct {
		name    string
		entries []entry
		max     int64
		want    map[string][]byte
		wantErr error
	}{
		{
			name:    "strips the top directory, skips dirs and symlinks",
			entries: []entry{{"o-r-abc/", tar.TypeDir, ""}, {"o-r-abc/a/b.txt", tar.TypeReg, "hi"}, {"o-r-abc/link", tar.TypeSymlink, "/etc/passwd"}},
			max:     100,
			want:    map[string][]byte{"a/b.txt": []byte("hi")},
		},
		{
			name:    "dot-dot escape",
			entries: []entry{{"o-r-abc/ok", tar.TypeReg, "x"}, {"o-r-abc/../../etc/passwd", tar.TypeReg, "pwned"}},
			max:     100,
			wantErr: ErrUnsafeArchive,
		},
		{
			name:    "absolute path",
			entries: []entry{{"/etc/passwd", tar.TypeReg, "pwned"}},
			max:     100,
			wantErr: ErrUnsafeArchive,
		},
		{
			name:    "second top directory",
			entries: []entry{{"o-r-abc/ok", tar.TypeReg, "x"}, {"other/evil", tar.TypeReg, "x"}},
			max:     100,
			wantErr: ErrUnsafeArchive,
		},
		{
			name:    "dot-dot symlink name",
			entries: []entry{{"o-r-abc/a/../../x", tar.TypeSymlink, "y"}},
			max:     100,
			wantErr: ErrUnsafeArchive,
		},
		{
			name:    "too large",
			entries: []entry{{"o-r-abc/a", tar.TypeReg, "123456"}, {"o-r-abc/b", tar.TypeReg, "123456"}},
			max:     10,
			wantErr: ErrArchiveTooLarge,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractTarball(tarGz(t, tt.entries...), tt.max)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("not gzip", func(t *testing.T) {
		if _, err := ExtractTarball(bytes.NewReader([]byte("nope")), 10); err == nil {
			t.Error("no error for a non-gzip body")
		}
	})
}

func TestFileContent(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	f.srv.SetFile(repoName, "main", ".kyku/config.yaml", []byte("require-approval: true\n"))
	got, err := f.repo.FileContent(ctx, ".kyku/config.yaml", "main")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "require-approval: true\n" {
		t.Errorf("content = %q", got)
	}
	if _, err := f.repo.FileContent(ctx, ".kyku/config.yaml", ""); err != nil {
		t.Errorf("default branch: %v", err)
	}
	if _, err := f.repo.FileContent(ctx, "kyku.yaml", "main"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: err = %v, want ErrNotFound", err)
	}
	if _, err := f.repo.FileContent(ctx, ".kyku", "main"); err == nil {
		t.Error("a directory read as a file")
	}
}

// TestBranchHeadIsTheBranchsOwnRef: a tag named like the branch does not
// answer for it; a branch that does not exist is not found.
func TestBranchHeadIsTheBranchsOwnRef(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	const branch, tag = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	f.srv.SetRef(repoName, "main", branch)
	f.srv.SetTag(repoName, "main", tag)
	if got, err := f.repo.BranchHead(ctx, "main"); err != nil || got != branch {
		t.Errorf("BranchHead(main) = %q, %v; want the branch's %s, not the tag's", got, err, branch)
	}
	if got, err := f.repo.BranchHead(ctx, "release/1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("BranchHead of a missing branch = %q, %v; want not found", got, err)
	}
}

func TestDispatchWorkflow(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	inputs := map[string]any{"command": "apply", "pr": "12"}
	if err := f.repo.DispatchWorkflow(ctx, "kyku.yml", "main", inputs); err != nil {
		t.Fatal(err)
	}
	got := f.srv.Dispatches(repoName)
	if len(got) != 1 || got[0].Workflow != "kyku.yml" || got[0].Ref != "main" || !cmp.Equal(got[0].Inputs, inputs) {
		t.Errorf("dispatches = %+v", got)
	}
}
