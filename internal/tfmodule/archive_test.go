package tfmodule

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entry is one archive entry: a file (Body), a directory (name ending
// in /), a link (Link) or a hard link, a device.
type entry struct {
	Name, Body, Link string
	Type             byte // tar type; 0: by the fields above
	Mode             int64
}

func tarOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Mode: 0o644, Typeflag: e.Type, Linkname: e.Link, Size: int64(len(e.Body)), Format: tar.FormatPAX}
		if e.Type == tar.TypeXGlobalHeader {
			h = &tar.Header{Name: e.Name, Typeflag: e.Type, PAXRecords: map[string]string{"comment": "cafe"}}
		}
		if e.Mode != 0 {
			h.Mode = e.Mode
		}
		switch {
		case e.Type != 0:
		case strings.HasSuffix(e.Name, "/"):
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case e.Link != "":
			h.Typeflag = tar.TypeSymlink
		default:
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte(e.Body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func zipEntries(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate}
		h.SetMode(0o644)
		body := e.Body
		if e.Link != "" {
			h.SetMode(os.ModeSymlink | 0o777)
			body = e.Link
		}
		f, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(body))
	}
	zw.Close()
	return buf.Bytes()
}

func unpackBytes(t *testing.T, b []byte, format archiveFormat, limits Limits) (string, error) {
	t.Helper()
	dir := t.TempDir()
	f, err := os.CreateTemp(t.TempDir(), "archive")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(b)
	dst := filepath.Join(dir, "pkg")
	return dst, unpack(f, format, dst, limits)
}

// TestUnpackRefuses: an archive is a package a pull request can choose;
// nothing in it may land outside the package, point outside it, or cost
// more than the limits. Each case is refused, and nothing is written
// beside the package.
func TestUnpackRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		archive func(t *testing.T) []byte
		format  archiveFormat
		limits  Limits
		want    string
	}{
		{"tar: a name going up", func(t *testing.T) []byte { return tarOf(t, entry{Name: "../evil", Body: "x"}) }, formatTarGz, Limits{}, `entry "../evil" leads outside the package`},
		{"tar: an absolute name", func(t *testing.T) []byte { return tarOf(t, entry{Name: "/tmp/evil", Body: "x"}) }, formatTarGz, Limits{}, `entry "/tmp/evil" leads outside the package`},
		{"tar: a name going up in the middle", func(t *testing.T) []byte { return tarOf(t, entry{Name: "a/../../evil", Body: "x"}) }, formatTarGz, Limits{}, `entry "a/../../evil" leads outside the package`},
		{"tar: a link to an absolute path", func(t *testing.T) []byte { return tarOf(t, entry{Name: "creds", Link: "/etc/passwd"}) }, formatTarGz, Limits{}, `symbolic link "creds" points outside the package (to /etc/passwd)`},
		{"tar: a link going up", func(t *testing.T) []byte { return tarOf(t, entry{Name: "a/up", Link: "../../x"}) }, formatTarGz, Limits{}, `symbolic link "a/up" points outside the package (to ../../x)`},
		{"tar: a file written through a link", func(t *testing.T) []byte {
			return tarOf(t, entry{Name: "d", Link: "."}, entry{Name: "d/x", Body: "x"})
		}, formatTarGz, Limits{}, `entry "d/x" is under a symbolic link`},
		{"tar: a link whose parent is a link", func(t *testing.T) []byte {
			return tarOf(t, entry{Name: "deep", Link: "."}, entry{Name: "deep/l", Link: ".."})
		}, formatTarGz, Limits{}, `entry "deep/l" is under a symbolic link`},
		{"tar: a link to nothing", func(t *testing.T) []byte { return tarOf(t, entry{Name: "l", Link: "missing"}) }, formatTarGz, Limits{}, `symbolic link l (to missing) does not resolve`},
		{"tar: a hard link", func(t *testing.T) []byte {
			return tarOf(t, entry{Name: "h", Link: "/etc/passwd", Type: tar.TypeLink})
		}, formatTarGz, Limits{}, `entry "h" is a hard link`},
		{"tar: a device", func(t *testing.T) []byte { return tarOf(t, entry{Name: "dev", Type: tar.TypeChar}) }, formatTarGz, Limits{}, `entry "dev" is of tar type`},
		{"tar: a file twice", func(t *testing.T) []byte {
			return tarOf(t, entry{Name: "a", Body: "1"}, entry{Name: "a", Body: "2"})
		}, formatTarGz, Limits{}, `entry "a" appears twice`},
		{"tar: too large unpacked", func(t *testing.T) []byte {
			return tarOf(t, entry{Name: "big", Body: strings.Repeat("0", 4096)})
		}, formatTarGz, Limits{Unpacked: 1024}, "it unpacks to more than 1024 bytes"},
		{"tar: too many entries", func(t *testing.T) []byte {
			return tarOf(t, entry{Name: "a", Body: "1"}, entry{Name: "b", Body: "2"}, entry{Name: "c", Body: "3"})
		}, formatTarGz, Limits{Entries: 2}, "more than 2 entries"},
		{"zip: a name going up", func(t *testing.T) []byte { return zipEntries(t, entry{Name: "../evil", Body: "x"}) }, formatZip, Limits{}, `entry "../evil" leads outside the package`},
		{"zip: a backslash name", func(t *testing.T) []byte { return zipEntries(t, entry{Name: `..\evil`, Body: "x"}) }, formatZip, Limits{}, `entry "..\\evil" leads outside the package`},
		{"zip: a link to an absolute path", func(t *testing.T) []byte { return zipEntries(t, entry{Name: "creds", Link: "/etc/passwd"}) }, formatZip, Limits{}, `symbolic link "creds" points outside the package (to /etc/passwd)`},
		{"zip: too large unpacked", func(t *testing.T) []byte {
			return zipEntries(t, entry{Name: "big", Body: strings.Repeat("0", 1<<20)})
		}, formatZip, Limits{Unpacked: 1 << 16}, "it unpacks to more than 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst, err := unpackBytes(t, tc.archive(t), tc.format, tc.limits)
			if !errors.Is(err, ErrArchiveRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("unpack: %v, want refused: %q", err, tc.want)
			}
			entries, _ := os.ReadDir(filepath.Dir(dst))
			for _, e := range entries {
				if e.Name() != "pkg" {
					t.Errorf("%s was written beside the package", e.Name())
				}
			}
		})
	}
}

// TestUnpackKeeps: what packages hold is kept: directories, executable
// bits, links inside the package, git archive's pax header.
func TestUnpackKeeps(t *testing.T) {
	b := tarOf(t,
		entry{Name: "pax_global_header", Type: tar.TypeXGlobalHeader},
		entry{Name: "mod/"},
		entry{Name: "mod/main.tf", Body: "# main"},
		entry{Name: "mod/run.sh", Body: "#!/bin/sh", Mode: 0o755},
		entry{Name: "mod/lib", Link: "../common"},
		entry{Name: "common/x.tf", Body: "# common"},
	)
	dst, err := unpackBytes(t, b, formatTarGz, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dst, "mod/lib/x.tf")); string(got) != "# common" {
		t.Errorf("through the link: %q", got)
	}
	if info, err := os.Stat(filepath.Join(dst, "mod/run.sh")); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("run.sh: %v %v", info.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(dst, "pax_global_header")); err == nil {
		t.Error("the pax header was written as a file")
	}
}

// TestSniffArchive: a package the registry serves itself is recognized
// by its first bytes.
func TestSniffArchive(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"zip", zipEntries(t, entry{Name: "a", Body: "1"}), "zip"},
		{"tar.gz", tarOf(t, entry{Name: "a", Body: "1"}), "tar.gz"},
		{"bzip2", []byte("BZh91AY&SY"), "tar.bz2"},
		{"xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0, 1}, "!not supported: xz archives"},
		{"html", []byte("<html>"), "!the module package is no zip archive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := os.CreateTemp(t.TempDir(), "a")
			defer f.Close()
			f.Write(tc.b)
			got, err := sniffArchive(f)
			if want, ok := strings.CutPrefix(tc.want, "!"); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("sniff: %v %v, want %q", got, err, want)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("sniff: %v %v, want %s", got, err, tc.want)
			}
		})
	}
}
