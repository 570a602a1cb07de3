package gcs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultEndpoint is the root of the Cloud Storage JSON API.
const DefaultEndpoint = "https://storage.googleapis.com"

// scope is what the backend needs: read and write objects.
const scope = "https://www.googleapis.com/auth/devstorage.read_write"

// Client speaks the four calls of the Cloud Storage JSON API the backend
// makes — objects get (alt=media), insert (uploadType=media), delete and
// list — over net/http. It is all Kyku needs of GCS; the client library
// would link gRPC, OpenTelemetry and the Cloud Monitoring API into every
// Kyku binary and build their descriptors at every start (docs/changelog.md,
// "Start-up, run by run"). Requests are not retried here (retry.go does that).
type Client struct {
	// Endpoint is the API's root URL: DefaultEndpoint, or an emulator's
	// http://host:port.
	Endpoint string
	// HTTP sends the requests and carries the credentials.
	HTTP *http.Client
}

// Credentials returns an HTTP client that carries Google credentials for
// the scopes: golang.org/x/oauth2/google's DefaultClient (Application
// Default Credentials). It is given to the package, not linked by it, so
// that kyku, which opens real buckets only through kyku-engine, does not
// link the OAuth2 library (its Google packages build their tables at
// every start; internal/deptest, TestKykuLinksNoEngineParts).
type Credentials func(ctx context.Context, scopes ...string) (*http.Client, error)

// ErrNoCredentials: a real bucket, and no Credentials to reach it with.
var ErrNoCredentials = errors.New("no Google credentials library linked")

// NewClient returns a client with credentials from creds (nil:
// ErrNoCredentials), or, when STORAGE_EMULATOR_HOST (read through getenv)
// names an emulator (host:port or a URL), one for that emulator without
// credentials, as the client libraries do.
func NewClient(ctx context.Context, getenv func(string) string, creds Credentials) (*Client, error) {
	if root := emulator(getenv); root != "" {
		return &Client{Endpoint: root, HTTP: &http.Client{}}, nil
	}
	if creds == nil {
		return nil, ErrNoCredentials
	}
	hc, err := creds(ctx, scope)
	if err != nil {
		return nil, err
	}
	return &Client{Endpoint: DefaultEndpoint, HTTP: hc}, nil
}

// emulator is the root URL of the emulator STORAGE_EMULATOR_HOST names
// ("": none).
func emulator(getenv func(string) string) string {
	if getenv == nil {
		return ""
	}
	host := getenv("STORAGE_EMULATOR_HOST")
	if host == "" {
		return ""
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	return strings.TrimRight(host, "/")
}

// APIRoot is the root URL (Client.Endpoint) of endpoint, the JSON API's
// URL as OpenTofu's storage_custom_endpoint gives it: scheme, host, and a
// path ending /storage/v1/b, /storage/v1/ or /storage/v1 ("" for "").
func APIRoot(endpoint string) (string, error) {
	if endpoint == "" {
		return "", nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("storage_custom_endpoint %q is not an http(s) URL of the Cloud Storage JSON API (https://HOST/storage/v1/b)", endpoint)
	}
	p := strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/b")
	root, ok := strings.CutSuffix(p, "/storage/v1")
	if !ok {
		return "", fmt.Errorf("storage_custom_endpoint %q does not end in the JSON API's path /storage/v1/b", endpoint)
	}
	return u.Scheme + "://" + u.Host + root, nil
}

// bearer sends every request with its token (OpenTofu's access_token:
// a static token source); String keeps the token out of anything that
// prints it.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func (bearer) String() string   { return "bearer(…)" }
func (bearer) GoString() string { return "bearer(…)" }

// APIError is an error answer of the API (or of anything in front of it
// that answered with an HTTP error status).
type APIError struct {
	Code    int    // the HTTP status
	Message string // the API's message, or the status text
}

func (e *APIError) Error() string {
	return fmt.Sprintf("googleapi: Error %d: %s", e.Code, e.Message)
}

// attrs is what the API says of an object (the fields Kyku reads).
type attrs struct {
	Name       string `json:"name"`
	Generation int64  `json:"generation,string"`
}

func (c *Client) objectURL(bucket, key string) string {
	return c.Endpoint + "/storage/v1/b/" + url.PathEscape(bucket) + "/o/" + url.PathEscape(key)
}

// get reads an object's data, its generation and when it was written. A
// body shorter than the object's length is io.ErrUnexpectedEOF.
func (c *Client) get(ctx context.Context, bucket, key string) (data []byte, gen int64, modified time.Time, err error) {
	res, err := c.do(ctx, http.MethodGet, c.objectURL(bucket, key)+"?alt=media", nil, "")
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	defer res.Body.Close()
	data, err = io.ReadAll(res.Body)
	if err != nil {
		return nil, 0, time.Time{}, fmt.Errorf("read body: %w", err)
	}
	if n := res.ContentLength; n >= 0 && n != int64(len(data)) {
		return nil, 0, time.Time{}, fmt.Errorf("read body: got %d of %d bytes: %w", len(data), n, io.ErrUnexpectedEOF)
	}
	gen, err = strconv.ParseInt(res.Header.Get("X-Goog-Generation"), 10, 64)
	if err != nil {
		return nil, 0, time.Time{}, fmt.Errorf("read %s: the answer has no generation (X-Goog-Generation %q)", key, res.Header.Get("X-Goog-Generation"))
	}
	modified, _ = http.ParseTime(res.Header.Get("Last-Modified"))
	return data, gen, modified, nil
}

// insert writes an object in one request; ifGenerationMatch, when not nil,
// is the precondition (0: the object must not exist). It returns the new
// generation.
func (c *Client) insert(ctx context.Context, bucket, key string, data []byte, ifGenerationMatch *int64) (int64, error) {
	q := url.Values{"uploadType": {"media"}, "name": {key}}
	if ifGenerationMatch != nil {
		q.Set("ifGenerationMatch", strconv.FormatInt(*ifGenerationMatch, 10))
	}
	u := c.Endpoint + "/upload/storage/v1/b/" + url.PathEscape(bucket) + "/o?" + q.Encode()
	res, err := c.do(ctx, http.MethodPost, u, data, "application/json")
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var a attrs
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		return 0, fmt.Errorf("read the answer to writing %s: %w", key, err)
	}
	return a.Generation, nil
}

// remove deletes an object; gen, when not 0, targets that generation (and
// is the precondition too).
func (c *Client) remove(ctx context.Context, bucket, key string, gen int64) error {
	u := c.objectURL(bucket, key)
	if gen != 0 {
		g := strconv.FormatInt(gen, 10)
		u += "?" + url.Values{"generation": {g}, "ifGenerationMatch": {g}}.Encode()
	}
	res, err := c.do(ctx, http.MethodDelete, u, nil, "")
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	return res.Body.Close()
}

// errNoBucket is what list returns for a 404: the bucket does not exist.
var errNoBucket = errors.New("storage: bucket doesn't exist")

// list returns the names of the objects under prefix, every page.
func (c *Client) list(ctx context.Context, bucket, prefix string) ([]string, error) {
	var names []string
	token := ""
	for {
		q := url.Values{"prefix": {prefix}, "fields": {"items(name),nextPageToken"}}
		if token != "" {
			q.Set("pageToken", token)
		}
		res, err := c.do(ctx, http.MethodGet, c.Endpoint+"/storage/v1/b/"+url.PathEscape(bucket)+"/o?"+q.Encode(), nil, "")
		if err != nil {
			if status(err) == http.StatusNotFound {
				return nil, fmt.Errorf("%w: %w", errNoBucket, err)
			}
			return nil, err
		}
		var page struct {
			Items         []attrs `json:"items"`
			NextPageToken string  `json:"nextPageToken"`
		}
		err = json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the listing of %s: %w", prefix, err)
		}
		for _, it := range page.Items {
			names = append(names, it.Name)
		}
		if page.NextPageToken == "" {
			return names, nil
		}
		token = page.NextPageToken
	}
}

// do sends one request; an answer other than 2xx is an *APIError (its body
// read and closed).
func (c *Client) do(ctx context.Context, method, u string, body []byte, contentType string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 == 2 {
		return res, nil
	}
	defer res.Body.Close()
	msg, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil && res.StatusCode < 500 {
		// A truncated error answer: not the answer the server meant.
		return nil, fmt.Errorf("read error answer %d: %w", res.StatusCode, err)
	}
	return nil, &APIError{Code: res.StatusCode, Message: errorMessage(res.StatusCode, msg)}
}

// errorMessage is the API's message in an error body, or the status text.
func errorMessage(code int, body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	if s := strings.TrimSpace(string(body)); s != "" && len(s) < 200 && !strings.ContainsAny(s, "<{") {
		return s
	}
	return http.StatusText(code)
}
