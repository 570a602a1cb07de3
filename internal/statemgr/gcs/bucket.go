package gcs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/kyku/action/internal/statemgr/objstore"
)

// bucket is objstore's Bucket on one GCS bucket: conditional requests on
// generations, every call retried by Kyku within its budget (retry.go; the
// library's own retries are off).
type bucket struct {
	c     *Client
	name  string
	retry objstore.Retry
}

func (g *bucket) url(key string) string { return "gs://" + g.name + "/" + key }

// Get fetches key; its version is its generation. A body shorter than the
// object is a truncated answer, retried.
func (g *bucket) Get(ctx context.Context, key string) (objstore.Object, error) {
	var o objstore.Object
	_, err := g.call(ctx, "read", key, func(ctx context.Context) error {
		data, gen, modified, err := g.c.get(ctx, g.name, key)
		if err != nil {
			return err
		}
		o = objstore.Object{Data: data, Version: version(gen), Modified: modified}
		return nil
	})
	return o, classify(err)
}

// Put writes data at key under c (ifGenerationMatch=0 when it must be
// absent, =<generation> when it must match) and returns the new generation.
// A retry after a lost answer meets 412: objstore reads the object back and
// accepts its own bytes.
func (g *bucket) Put(ctx context.Context, key string, data []byte, c objstore.Cond) (objstore.Version, error) {
	var match *int64
	switch {
	case c.IfAbsent:
		match = new(int64)
	case c.IfMatch != "":
		gen, err := generation(c.IfMatch)
		if err != nil {
			return "", err
		}
		match = &gen
	}
	var gen int64
	_, err := g.call(ctx, "write", key, func(ctx context.Context) error {
		// One request: small objects (Kyku retries it whole).
		var err error
		gen, err = g.c.insert(ctx, g.name, key, data, match)
		return err
	})
	if err != nil {
		return "", classify(err)
	}
	return version(gen), nil
}

// Delete removes key only while its generation is v. ambiguous is true when
// a retried attempt may have landed before the last one failed (then a 404
// may be our own delete).
func (g *bucket) Delete(ctx context.Context, key string, v objstore.Version) (ambiguous bool, err error) {
	gen, err := generation(v)
	if err != nil {
		return false, err
	}
	// generation= targets that very generation (enforced by GCS and by the
	// emulator); ifGenerationMatch= says the same to GCS.
	out, err := g.call(ctx, "delete", key, func(ctx context.Context) error { return g.c.remove(ctx, g.name, key, gen) })
	return out.Ambiguous, classify(err)
}

// List returns the full keys under prefix, sorted (the whole listing is
// one attempt).
func (g *bucket) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	_, err := g.call(ctx, "list", prefix, func(ctx context.Context) error {
		var err error
		keys, err = g.c.list(ctx, g.name, prefix)
		return err
	})
	if err != nil {
		return nil, g.explain("list", prefix, err)
	}
	sort.Strings(keys)
	return keys, nil
}

// DeleteAll removes keys one by one; one already gone (or removed by an
// attempt whose answer was lost) is not an error.
func (g *bucket) DeleteAll(ctx context.Context, keys []string) error {
	for _, k := range keys {
		_, err := g.call(ctx, "delete", k, func(ctx context.Context) error { return g.c.remove(ctx, g.name, k, 0) })
		if err != nil && !isNotFound(err) {
			return g.explain("delete", k, err)
		}
	}
	return nil
}

// version and generation convert between a generation and objstore's
// opaque version.
func version(gen int64) objstore.Version { return objstore.Version(strconv.FormatInt(gen, 10)) }

func generation(v objstore.Version) (int64, error) {
	gen, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("gcs backend: %q is not a generation", v)
	}
	return gen, nil
}

// status is the HTTP status of a GCS error, or 0.
func status(err error) int {
	var ge *APIError
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

func isNotFound(err error) bool {
	return status(err) == http.StatusNotFound && !errors.Is(err, errNoBucket)
}

// classify marks a missing key and a failed precondition for objstore.
func classify(err error) error {
	switch {
	case isNotFound(err):
		return objstore.Mark(err, objstore.ErrNotFound)
	case status(err) == http.StatusPreconditionFailed:
		return objstore.Mark(err, objstore.ErrPrecondition)
	}
	return err
}

// explain turns an API error into one a user can act on.
func (g *bucket) explain(action, key string, err error) error {
	switch s := status(err); {
	case errors.Is(err, errNoBucket):
		return fmt.Errorf("gcs backend: bucket %q does not exist: %w", g.name, err)
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return fmt.Errorf("gcs backend: access denied to %s %s (check the Application Default Credentials and the bucket's IAM): %w", action, g.url(key), err)
	}
	return fmt.Errorf("gcs backend: %s %s: %w", action, g.url(key), err)
}
