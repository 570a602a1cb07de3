package gcs

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr/objstore"
)

// fakeAPI answers as the JSON API does for what a test needs, mounted
// under a non-empty base path (a client that dropped it would get 404s).
func fakeAPI(t *testing.T, h http.HandlerFunc) *bucket {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/base/", http.StripPrefix("/base", h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &bucket{c: &Client{Endpoint: srv.URL + "/base", HTTP: srv.Client()}, name: "acme",
		retry: objstore.Retry{Budget: 10 * time.Second, Transient: isTransient, Service: "GCS"}.WithDefaults()}
}

func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(`{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `"}}`))
}

// The requests the backend makes are the JSON API's, and its answers are
// read as GCS gives them: the generation from X-Goog-Generation on a read
// and from the object resource (a string) on a write; a precondition in
// ifGenerationMatch; a listing page by page.
func TestClientSpeaksTheJSONAPI(t *testing.T) {
	var got []string
	b := fakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		switch {
		case r.Method == http.MethodGet && r.URL.Query().Get("alt") == "media":
			w.Header().Set("X-Goog-Generation", "17")
			w.Header().Set("Last-Modified", "Wed, 02 Dec 2026 00:11:29 GMT")
			_, _ = w.Write([]byte(`{"serial":1}`))
		case r.Method == http.MethodPost:
			_, _ = w.Write([]byte(`{"kind":"storage#object","name":"k","generation":"18"}`))
		case r.Method == http.MethodGet && r.URL.Query().Get("pageToken") == "":
			_, _ = w.Write([]byte(`{"items":[{"name":"p/b"},{"name":"p/a"}],"nextPageToken":"t2"}`))
		case r.Method == http.MethodGet:
			_, _ = w.Write([]byte(`{"items":[{"name":"p/c"}]}`))
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	ctx := t.Context()
	o, err := b.Get(ctx, "p/state.json")
	if err != nil || string(o.Data) != `{"serial":1}` || o.Version != "17" || o.Modified.Year() != 2026 {
		t.Fatalf("get: %+v, %v", o, err)
	}
	v, err := b.Put(ctx, "p/state.json", []byte("{}"), objstore.Cond{IfMatch: "17"})
	if err != nil || v != "18" {
		t.Fatalf("put: %q, %v", v, err)
	}
	if _, err := b.Put(ctx, "p/x.lock", []byte("{}"), objstore.Cond{IfAbsent: true}); err != nil {
		t.Fatal(err)
	}
	keys, err := b.List(ctx, "p/")
	if err != nil || strings.Join(keys, ",") != "p/a,p/b,p/c" {
		t.Fatalf("list: %v, %v", keys, err)
	}
	if _, err := b.Delete(ctx, "p/x.lock", "18"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /storage/v1/b/acme/o/p%2Fstate.json?alt=media",
		"POST /upload/storage/v1/b/acme/o?ifGenerationMatch=17&name=p%2Fstate.json&uploadType=media",
		"POST /upload/storage/v1/b/acme/o?ifGenerationMatch=0&name=p%2Fx.lock&uploadType=media",
		"GET /storage/v1/b/acme/o?fields=items%28name%29%2CnextPageToken&prefix=p%2F",
		"GET /storage/v1/b/acme/o?fields=items%28name%29%2CnextPageToken&pageToken=t2&prefix=p%2F",
		"DELETE /storage/v1/b/acme/o/p%2Fx.lock?generation=18&ifGenerationMatch=18",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Errors a user can act on: a missing bucket, denied access; 404 and 412
// are what objstore branches on; a read answer without a generation or cut
// short is refused, not taken as the object.
func TestClientErrors(t *testing.T) {
	ctx := t.Context()
	cases := []struct {
		name string
		h    http.HandlerFunc
		do   func(b *bucket) error
		want string
		is   error
	}{
		{"missing bucket", func(w http.ResponseWriter, r *http.Request) { apiError(w, 404, "The specified bucket does not exist.") },
			func(b *bucket) error { _, err := b.List(ctx, "p/"); return err }, `gcs backend: bucket "acme" does not exist`, nil},
		{"denied", func(w http.ResponseWriter, r *http.Request) {
			apiError(w, 403, "kyku@p.iam has no storage.objects.list access")
		},
			func(b *bucket) error { _, err := b.List(ctx, "p/"); return err }, "access denied to list gs://acme/p/", nil},
		{"missing object", func(w http.ResponseWriter, r *http.Request) { apiError(w, 404, "No such object: acme/p/state.json") },
			func(b *bucket) error { _, err := b.Get(ctx, "p/state.json"); return err }, "No such object", objstore.ErrNotFound},
		{"precondition", func(w http.ResponseWriter, r *http.Request) { apiError(w, 412, "Precondition Failed") },
			func(b *bucket) error {
				_, err := b.Put(ctx, "p/x.lock", nil, objstore.Cond{IfAbsent: true})
				return err
			}, "Precondition Failed", objstore.ErrPrecondition},
		{"no generation", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("{}")) },
			func(b *bucket) error { _, err := b.Get(ctx, "p/state.json"); return err }, "the answer has no generation", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.do(fakeAPI(t, c.h))
			if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
				t.Fatalf("err = %v; want one saying %q (is %v)", err, c.want, c.is)
			}
		})
	}
}
