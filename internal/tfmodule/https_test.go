package tfmodule

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTTPSSources: https archives (by their name or the archive
// argument, with or without a checksum, with a //subdir), and pages
// answering where the package is (X-Terraform-Get, a terraform-get meta
// tag), as go-getter's http getter has them; plain http, an answer
// naming http or a local path, a redirect to http, xz and a download
// over the limit are refused.
func TestHTTPSSources(t *testing.T) {
	w := newWorld(t)
	r, _ := gitRepo(w)
	pkg := tarGz(t, map[string]string{"main.tf": "", "WHICH": "archive", "sub/main.tf": "", "sub/WHICH": "sub"})
	sum := sha256.Sum256(pkg)
	base := w.srv.URL + "/files/"
	w.file("m.tar.gz", pkg)
	w.file("m", pkg)
	w.file("m.zip", zipOf(t, map[string]string{"main.tf": "", "WHICH": "zip"}))
	w.file("m.tar.xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0})
	w.file("big.zip", make([]byte, 8192)) // the download stops before unpacking
	plain := httptest.NewServer(w.srv.Config.Handler)
	t.Cleanup(plain.Close)
	w.mu.Lock()
	w.redirects["/files/moved.zip"] = plain.URL
	w.mu.Unlock()
	page := func(name, header, body string) string {
		h := http.Header{"Body": {body}}
		if header != "" {
			h.Set("X-Terraform-Get", header)
		}
		return w.page(name, h)
	}

	for _, tc := range []struct {
		name, source string
		want         string // WHICH, or "!" and the error
	}{
		{"a tar.gz", base + "m.tar.gz", "archive"},
		{"a zip", base + "m.zip", "zip"},
		{"the archive argument", base + "m?archive=tar.gz", "archive"},
		{"a subdirectory", base + "m.tar.gz//sub", "sub"},
		{"a checksum", base + "m.tar.gz?checksum=sha256:" + hex.EncodeToString(sum[:]), "archive"},
		{"a wrong checksum", base + "m.tar.gz?checksum=sha256:" + strings.Repeat("0", 64), "!checksums did not match"},
		{"X-Terraform-Get to git", page("git", "git::"+r.url()+"?ref=dev", ""), "dev"},
		{"X-Terraform-Get to an archive's subdirectory", page("sub", base+"m.tar.gz//sub", ""), "sub"},
		{"a meta tag", page("meta", "", `<html><head><meta name="terraform-get" content="`+base+`m.zip"></head><body></body></html>`), "zip"},
		{"plain http", "http://" + w.host() + "/files/m.zip", "!plain http lets anyone on the way change it"},
		{"X-Terraform-Get to http", page("http", plain.URL+"/files/m.zip", ""), "!plain http lets anyone on the way change it"},
		{"X-Terraform-Get to a local path", page("file", "file:///etc", ""), "!a registry's or a server's answer may not name a path on this machine"},
		{"X-Terraform-Get to a shorthand", page("short", "github.com/acme/x", ""), "!invalid source string: github.com/acme/x"},
		{"a redirect to http", base + "moved.zip", "!Kyku speaks only https"},
		{"an xz archive", base + "m.tar.xz", "!not supported: xz archives"},
		{"one compressed file", base + "m.gz", "!a gz file is one compressed file, not a module package"},
		{"a download over the limit", base + "big.zip", "!larger than 4096 bytes"},
		{"X-Terraform-Get answering itself", page("loop", w.srv.URL+"/pages/loop", ""), "!too many X-Terraform-Get redirects: 11"},
		{"a page answering nothing", page("none", "", "<html><body>hello</body></html>"), "!no source URL was returned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := w.installer()
			in.Limits = Limits{Download: 4096}
			_, mods, err := installOne(t, in, tc.source)
			if want, ok := strings.CutPrefix(tc.want, "!"); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Install: %v, want an error containing %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(mods[0].Dir, "WHICH")); string(b) != tc.want {
				t.Errorf("installed %q, want %q", b, tc.want)
			}
		})
	}
}

// TestFileSources: an absolute path is a package of its own (a link, as
// go-getter's file getter makes); with a Boundary, only inside the
// repository, and a local path of the root's package must stay there
// too, links resolved.
func TestFileSources(t *testing.T) {
	repoDir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"main.tf": "", "WHICH": "outside"})
	writeTree(t, repoDir, map[string]string{
		"common/net/main.tf": "", "common/net/WHICH": "common",
		"envs/prod/escape": "->" + outside,
		"common/out":       "->" + outside,
	})
	for _, tc := range []struct {
		name, source, boundary, want string
	}{
		{"an absolute path in the repository", filepath.Join(repoDir, "common/net"), repoDir, "common"},
		{"an absolute path outside", outside, repoDir, "!is outside the repository"},
		{"an absolute path, no boundary", outside, "", "outside"},
		{"a subdirectory through a link to outside", filepath.Join(repoDir, "common") + "//out", repoDir, "!Module directory outside its package: The subdirectory \"out\" of module \"m\" resolves to " + outside},
		{"a relative path in the repository", "../../common/net", repoDir, "common"},
		{"a relative path outside", "../../../" + filepath.Base(outside), repoDir, "!Local module path escapes the repository"},
		{"a link in the repository to outside", "./escape", repoDir, "!Local module path escapes the repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(repoDir, "envs/prod")
			os.RemoveAll(filepath.Join(root, ".terraform"))
			writeTree(t, root, map[string]string{"main.tf": `module "m" { source = "` + tc.source + `" }`})
			in := &Installer{Boundary: tc.boundary}
			mods, diags := in.Install(t.Context(), root, false)
			if want, ok := strings.CutPrefix(tc.want, "!"); ok {
				oneError(t, diags, want)
				return
			}
			noErrors(t, diags)
			if b, _ := os.ReadFile(filepath.Join(mods[0].Dir, "WHICH")); string(b) != tc.want {
				t.Errorf("installed %q, want %q", b, tc.want)
			}
		})
	}
}

// TestCheckBoundary: what an init without a boundary installed, a plan
// with one still refuses: a local path out of the repository.
func TestCheckBoundary(t *testing.T) {
	repoDir, outside := t.TempDir(), t.TempDir()
	writeTree(t, outside, map[string]string{"main.tf": ""})
	root := filepath.Join(repoDir, "envs/prod")
	writeTree(t, root, map[string]string{"main.tf": `module "m" { source = "../../../` + filepath.Base(outside) + `" }`})
	_, diags := (&Installer{}).Install(t.Context(), root, false)
	noErrors(t, diags)
	_, diags = Check(t.Context(), root, "", nil)
	noErrors(t, diags)
	_, diags = Check(t.Context(), root, repoDir, nil)
	oneError(t, diags, "Local module path escapes the repository: The source directory of module.m, "+outside)
}
