package tfinstall

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/kyku/action/internal/tfinstall/pgpverify"
)

// testRegistry is a provider registry on an httptest TLS server, its
// services mounted under /base/ (a client dropping the path fails), its
// packages signed by a key made for the test. Its fields, set before a
// request, make it misbehave the ways a compromised or broken registry
// (or a man in the middle) would.
type testRegistry struct {
	srv      *httptest.Server
	key      *openpgp.Entity // the key the registry names
	otherKey *openpgp.Entity // a key it does not

	mu       sync.Mutex
	versions map[string][]string          // "ns/type" → versions
	archives map[string]map[string][]byte // "ns/type/version" → platform → zip
	served   []string                     // paths of the files served

	signWithOther bool   // sign SHA256SUMS with a key the registry does not name
	tamperSums    bool   // change SHA256SUMS after signing
	wrongShasum   bool   // announce another checksum than SHA256SUMS lists
	swapArchive   []byte // serve these bytes instead of the archive
	noKeys        bool   // name no signing key
	plainHTTP     bool   // give the archive's URL as http://
	// redirects sends a request for a path (without a query) to the URL
	// it names + the path + "?redirected=1", with a 302.
	redirects map[string]string
}

var testPlatform = Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}

func newEntity(t *testing.T, name string) *openpgp.Entity {
	t.Helper()
	e, err := openpgp.NewEntity(name, "", name+"@example.test", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatalf("make a signing key: %v", err)
	}
	return e
}

func newTestRegistry(t *testing.T) *testRegistry {
	t.Helper()
	r := &testRegistry{
		key: newEntity(t, "registry"), otherKey: newEntity(t, "intruder"),
		versions: map[string][]string{}, archives: map[string]map[string][]byte{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/terraform.json", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"modules.v1": "/base/v1/modules/", "providers.v1": "/base/v1/providers/"}`)
	})
	mux.HandleFunc("GET /base/v1/providers/{ns}/{type}/versions", r.serveVersions)
	mux.HandleFunc("GET /base/v1/providers/{ns}/{type}/{version}/download/{os}/{arch}", r.serveDownload)
	mux.HandleFunc("GET /base/files/{ns}/{type}/{version}/{file}", r.serveFile)
	r.srv = httptest.NewTLSServer(r.redirecting(mux))
	t.Cleanup(r.srv.Close)
	return r
}

// redirecting answers the paths of r.redirects with a redirect.
func (r *testRegistry) redirecting(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		to, ok := r.redirects[req.URL.Path]
		r.mu.Unlock()
		if ok && req.URL.RawQuery == "" {
			http.Redirect(w, req, to+req.URL.Path+"?redirected=1", http.StatusFound)
			return
		}
		h.ServeHTTP(w, req)
	})
}

// host is the registry's host, as a provider source names it.
func (r *testRegistry) host() string { return strings.TrimPrefix(r.srv.URL, "https://") }

func (r *testRegistry) source(ns, typ string) Source {
	return Source{Host: r.host(), Namespace: ns, Type: typ}
}

func (r *testRegistry) client() *Registry {
	return &Registry{Client: r.srv.Client(), Verify: pgpverify.Verify}
}

// publish adds a version of ns/typ for the test's platform (the package
// holding files) and for another platform.
func (r *testRegistry) publish(t *testing.T, ns, typ, version string, files map[string][]byte) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	key := ns + "/" + typ
	r.versions[key] = append(r.versions[key], version)
	r.archives[key+"/"+version] = map[string][]byte{
		testPlatform.String(): zipOf(t, files),
		"plan9_mips":          zipOf(t, map[string][]byte{"terraform-provider-" + typ: []byte("elsewhere")}),
	}
}

// zipOf packs files (a name starting with "x:" is executable), deflated
// as registries serve them; files of a megabyte or more (the test
// providers' executables, tens of megabytes) are stored, since deflating
// them under -race took most of a CI run's 25 s in this package. The
// small archives keep the installer's inflating tested.
func zipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, data := range files {
		method := zip.Deflate
		if len(data) >= 1<<20 {
			method = zip.Store
		}
		h := &zip.FileHeader{Name: strings.TrimPrefix(name, "x:"), Method: method}
		h.SetMode(0o644)
		if strings.HasPrefix(name, "x:") || strings.HasPrefix(name, "terraform-provider-") {
			h.SetMode(0o755)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func fileName(typ, version string, p string) string {
	return fmt.Sprintf("terraform-provider-%s_%s_%s.zip", typ, version, p)
}

func (r *testRegistry) serveVersions(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs, ok := r.versions[req.PathValue("ns")+"/"+req.PathValue("type")]
	if !ok {
		http.NotFound(w, req)
		return
	}
	type platform struct {
		OS   string `json:"os"`
		Arch string `json:"arch"`
	}
	var doc struct {
		Versions []map[string]any `json:"versions"`
	}
	for _, v := range vs {
		doc.Versions = append(doc.Versions, map[string]any{"version": v, "protocols": []string{"5.0", "6.0"},
			"platforms": []platform{{testPlatform.OS, testPlatform.Arch}, {"plan9", "mips"}}})
	}
	// A version only for a protocol Kyku does not speak is never chosen.
	doc.Versions = append(doc.Versions, map[string]any{"version": "99.0.0", "protocols": []string{"4.0"},
		"platforms": []platform{{testPlatform.OS, testPlatform.Arch}}})
	json.NewEncoder(w).Encode(doc)
}

// sums is SHA256SUMS of a version's archives.
func (r *testRegistry) sums(ns, typ, version string) []byte {
	var b strings.Builder
	archives := r.archives[ns+"/"+typ+"/"+version]
	for _, p := range []string{"plan9_mips", testPlatform.String()} {
		sum := sha256.Sum256(archives[p])
		fmt.Fprintf(&b, "%x  %s\n", sum, fileName(typ, version, p))
	}
	return []byte(b.String())
}

func (r *testRegistry) serveDownload(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ns, typ, version := req.PathValue("ns"), req.PathValue("type"), req.PathValue("version")
	p := req.PathValue("os") + "_" + req.PathValue("arch")
	archive, ok := r.archives[ns+"/"+typ+"/"+version][p]
	if !ok {
		http.NotFound(w, req)
		return
	}
	sum := sha256.Sum256(archive)
	shasum := hex.EncodeToString(sum[:])
	if r.wrongShasum {
		shasum = strings.Repeat("0", 64)
	}
	var armored bytes.Buffer
	aw, _ := armor.Encode(&armored, openpgp.PublicKeyType, nil)
	r.key.Serialize(aw)
	aw.Close()
	keys := []map[string]string{{"key_id": r.key.PrimaryKey.KeyIdString(), "ascii_armor": armored.String()}}
	if r.noKeys {
		keys = nil
	}
	files := "/base/files/" + ns + "/" + typ + "/" + version + "/"
	download := files + fileName(typ, version, p)
	if r.plainHTTP {
		download = "http://" + r.host() + download
	}
	json.NewEncoder(w).Encode(map[string]any{
		"protocols": []string{"5.0"}, "os": req.PathValue("os"), "arch": req.PathValue("arch"),
		"filename":     fileName(typ, version, p),
		"download_url": download, "shasums_url": files + "SHA256SUMS", "shasums_signature_url": files + "SHA256SUMS.sig",
		"shasum":       shasum,
		"signing_keys": map[string]any{"gpg_public_keys": keys},
	})
}

func (r *testRegistry) serveFile(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ns, typ, version, file := req.PathValue("ns"), req.PathValue("type"), req.PathValue("version"), req.PathValue("file")
	r.served = append(r.served, file)
	switch file {
	case "SHA256SUMS":
		sums := r.sums(ns, typ, version)
		if r.tamperSums {
			sums = append(sums, []byte(strings.Repeat("ab", 32)+"  extra.zip\n")...)
		}
		w.Write(sums)
		return
	case "SHA256SUMS.sig":
		signer := r.key
		if r.signWithOther {
			signer = r.otherKey
		}
		openpgp.DetachSign(w, signer, bytes.NewReader(r.sums(ns, typ, version)), nil)
		return
	}
	for p, archive := range r.archives[ns+"/"+typ+"/"+version] {
		if file == fileName(typ, version, p) {
			if r.swapArchive != nil {
				archive = r.swapArchive
			}
			w.Write(archive)
			return
		}
	}
	http.NotFound(w, req)
}

// archivesServed counts the archives downloaded so far.
func (r *testRegistry) archivesServed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, f := range r.served {
		if strings.HasSuffix(f, ".zip") {
			n++
		}
	}
	return n
}
