package statemgrtest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/statemgr"
)

func testObjects(t *testing.T, newBackend Factory) {
	ctx := context.Background()

	t.Run("put, get, overwrite, list by prefix", func(t *testing.T) {
		b, other := newBackend(t), newBackend(t)
		objects := map[string]string{
			"plans/prod/pr-12.json":    `{"pr":12}`,
			"plans/prod/pr-3.json":     `{"pr":3}`,
			"plans/staging/pr-12.json": `{"env":"staging"}`,
			"runs/prod/1.json":         `{"run":1}`,
		}
		for k, v := range objects {
			if err := b.PutObject(ctx, k, []byte(v)); err != nil {
				t.Fatalf("PutObject(%s): %v", k, err)
			}
		}
		objects["plans/prod/pr-3.json"] = `{"pr":3,"again":true}`
		if err := b.PutObject(ctx, "plans/prod/pr-3.json", []byte(objects["plans/prod/pr-3.json"])); err != nil {
			t.Fatalf("PutObject overwrite: %v", err)
		}
		for k, v := range objects {
			got, err := other.GetObject(ctx, k)
			if err != nil {
				t.Fatalf("GetObject(%s): %v", k, err)
			}
			if string(got) != v {
				t.Errorf("GetObject(%s) = %s, want %s", k, got, v)
			}
		}
		for _, tc := range []struct {
			prefix string
			want   []string
		}{
			{"plans/prod/", []string{"plans/prod/pr-12.json", "plans/prod/pr-3.json"}},
			{"plans/", []string{"plans/prod/pr-12.json", "plans/prod/pr-3.json", "plans/staging/pr-12.json"}},
			{"plans/prod/pr-1", []string{"plans/prod/pr-12.json"}},
			{"runs/", []string{"runs/prod/1.json"}},
			{"nothing/", nil},
		} {
			t.Run(tc.prefix, func(t *testing.T) {
				got, err := other.ListObjects(ctx, tc.prefix)
				if err != nil {
					t.Fatalf("ListObjects: %v", err)
				}
				if d := cmp.Diff(tc.want, got, emptyIsNil); d != "" {
					t.Errorf("keys (-want +got):\n%s", d)
				}
			})
		}
	})

	t.Run("missing object is ErrNotFound", func(t *testing.T) {
		_, err := newBackend(t).GetObject(ctx, "plans/prod/missing.json")
		if !errors.Is(err, statemgr.ErrNotFound) {
			t.Errorf("GetObject(missing) error = %v, want one wrapping ErrNotFound", err)
		}
	})

	t.Run("keys that escape the store are refused", func(t *testing.T) {
		b := newBackend(t)
		for _, key := range []string{"", "../escape.json", "plans/../../escape.json", "/etc/escape.json"} {
			if err := b.PutObject(ctx, key, []byte("x")); err == nil {
				t.Errorf("PutObject(%q) succeeded, want an error", key)
			}
		}
	})
}

// emptyIsNil makes a nil and an empty slice of keys compare equal.
var emptyIsNil = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(a, b []string) bool { return true }))
