// Package gcstest gives tests of any package a real GCS emulator
// (fsouza/fake-gcs-server): the one .ci/gcs-server.sh started
// (KYKU_TEST_GCS_HOST in the environment), or else a fake-gcs-server binary
// (PATH or $KYKU_CI_CACHE/bin) started on 127.0.0.1 for the test binary's
// lifetime. Without either, tests that need it skip — except under CI=true,
// where that is a failure. Call Main from TestMain: it also sets
// STORAGE_EMULATOR_HOST, which Kyku's GCS backend reads.
//
// Tests look at the emulator through the Cloud Storage JSON API itself
// (Server's methods: plain requests, no client of Kyku's or Google's), so
// what they read back is what the API holds, not what a client says of it.
// The client library is not used: it links gRPC, xDS and OpenTelemetry,
// which cost every cold CI run minutes of compiling twice over.
package gcstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/kyku/action/internal/statemgr/objstore/objstoretest"
)

// Server is a running emulator.
type Server struct {
	Host string // host:port, what STORAGE_EMULATOR_HOST holds
}

var gate = objstoretest.Gate[Server]{
	Pkg: "gcstest", Binary: "fake-gcs-server",
	Hint: "no GCS emulator: source .ci/gcs-server.sh (KYKU_TEST_GCS_HOST) or put fake-gcs-server on PATH or in $KYKU_CI_CACHE/bin",
}

// Main finds or starts the emulator, runs the tests and stops what it started.
func Main(m *testing.M) int { return objstoretest.Main(m, Setup) }

// Setup finds or starts the emulator (for a TestMain that needs more than
// one service) and sets STORAGE_EMULATOR_HOST; stop stops what it started.
// Without an emulator, Require skips, and under CI=true Setup fails.
func Setup() (stop func(), err error) {
	s := &Server{Host: os.Getenv("KYKU_TEST_GCS_HOST")}
	stop, ok, err := gate.Start(s.Host != "", func(bin string) (func(), error) { return start(bin, s) })
	if !ok {
		return stop, err
	}
	os.Setenv("STORAGE_EMULATOR_HOST", s.Host)
	gate.Ready(s)
	return stop, nil
}

// Require returns the server, or skips tb when there is none.
func Require(tb testing.TB) *Server {
	tb.Helper()
	return gate.Require(tb)
}

// StatusError is an error answer of the API: its HTTP status and body.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body) }

// IsStatus reports whether err is an answer of the API with HTTP status code.
func IsStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}

// do sends one request to the emulator and returns the answer's body, or a
// *StatusError for any status but 2xx.
func (s *Server) do(ctx context.Context, method, path string, q url.Values, body []byte, contentType string) ([]byte, error) {
	u := "http://" + s.Host + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, &StatusError{Code: resp.StatusCode, Body: string(bytes.TrimSpace(data))}
	}
	return data, nil
}

func objectPath(bucket, name string) string {
	return "/storage/v1/b/" + url.PathEscape(bucket) + "/o/" + url.PathEscape(name)
}

// generation reads the generation out of an object resource.
func generation(data []byte) (int64, error) {
	var o struct {
		Generation string `json:"generation"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return 0, fmt.Errorf("object resource %q: %w", data, err)
	}
	return strconv.ParseInt(o.Generation, 10, 64)
}

// NewBucket creates a bucket of tb's own.
func (s *Server) NewBucket(tb testing.TB) string {
	tb.Helper()
	name := objstoretest.BucketName(tb)
	body, _ := json.Marshal(map[string]string{"name": name})
	if _, err := s.do(context.Background(), http.MethodPost, "/storage/v1/b", url.Values{"project": {"test-project"}}, body, "application/json"); err != nil {
		tb.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// Put uploads data as bucket/name (objects.insert, uploadType=media) and
// returns its generation. With ifGenerationMatch non-nil the upload is
// conditional on it (0: only if there is no such object).
func (s *Server) Put(ctx context.Context, bucket, name string, data []byte, ifGenerationMatch *int64) (int64, error) {
	q := url.Values{"uploadType": {"media"}, "name": {name}}
	if ifGenerationMatch != nil {
		q.Set("ifGenerationMatch", strconv.FormatInt(*ifGenerationMatch, 10))
	}
	out, err := s.do(ctx, http.MethodPost, "/upload/storage/v1/b/"+url.PathEscape(bucket)+"/o", q, data, "application/octet-stream")
	if err != nil {
		return 0, err
	}
	return generation(out)
}

// Get reads bucket/name: its data (alt=media) and its generation.
func (s *Server) Get(ctx context.Context, bucket, name string) ([]byte, int64, error) {
	meta, err := s.do(ctx, http.MethodGet, objectPath(bucket, name), nil, nil, "")
	if err != nil {
		return nil, 0, err
	}
	gen, err := generation(meta)
	if err != nil {
		return nil, 0, err
	}
	data, err := s.do(ctx, http.MethodGet, objectPath(bucket, name), url.Values{"alt": {"media"}, "generation": {strconv.FormatInt(gen, 10)}}, nil, "")
	return data, gen, err
}

// Delete deletes bucket/name with the query parameters q (generation,
// ifGenerationMatch).
func (s *Server) Delete(ctx context.Context, bucket, name string, q url.Values) error {
	_, err := s.do(ctx, http.MethodDelete, objectPath(bucket, name), q, nil, "")
	return err
}

// Objects returns every object in bucket under prefix, by name.
func (s *Server) Objects(tb testing.TB, bucket, prefix string) map[string][]byte {
	tb.Helper()
	ctx := context.Background()
	out := map[string][]byte{}
	q := url.Values{"prefix": {prefix}}
	for {
		page, err := s.do(ctx, http.MethodGet, "/storage/v1/b/"+url.PathEscape(bucket)+"/o", q, nil, "")
		if err != nil {
			tb.Fatalf("list %s: %v", bucket, err)
		}
		var list struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
			NextPageToken string `json:"nextPageToken"`
		}
		if err := json.Unmarshal(page, &list); err != nil {
			tb.Fatalf("list %s: %v", bucket, err)
		}
		for _, it := range list.Items {
			data, _, err := s.Get(ctx, bucket, it.Name)
			if err != nil {
				tb.Fatalf("read %s: %v", it.Name, err)
			}
			out[it.Name] = data
		}
		if list.NextPageToken == "" {
			return out
		}
		q.Set("pageToken", list.NextPageToken)
	}
}

// start runs the emulator (memory backend) on a free 127.0.0.1 port until
// the test binary ends.
func start(bin string, s *Server) (stop func(), err error) {
	addr, err := objstoretest.FreeAddr()
	if err != nil {
		return nil, err
	}
	s.Host = addr.String()
	logf, err := os.CreateTemp("", "kyku-gcs-test-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(addr.Port),
		"-backend", "memory", "-public-host", s.Host, "-external-url", "http://"+s.Host, "-log-level", "error")
	return objstoretest.Start(objstoretest.Process{
		Name: "fake-gcs-server", Cmd: cmd, Log: logf,
		Probe:   "http://" + s.Host + "/storage/v1/b?project=test-project",
		Cleanup: func() { os.Remove(logf.Name()) },
	})
}
