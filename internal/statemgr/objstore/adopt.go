package objstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// Adopt moves every object under the prefix from — another location in
// the same bucket, where this backend's objects lived before (the bot's
// namespace keyed by a repository's name) — to the same relative key
// under this backend's prefix, and reports how many it copied. It is a
// one-time move of a whole location (every environment, plan and record
// under it), done before the backend is used:
//
//   - when an object under from was written before notBefore (when the new
//     owner came to exist), nothing is moved: the objects are another's
//     (a repository deleted and registered again under the same name), and
//     the error wraps statemgr.ErrPredates;
//   - an object is copied only where no object is (a conditional create):
//     a move interrupted and done again, or done by two processes at
//     once, never overwrites what is already under the new prefix;
//   - only then are the objects under from deleted.
//
// Objects are copied as stored (sealed ones stay sealed: their labels are
// relative to the prefix, so they open at the new place).
func (b *Backend) Adopt(ctx context.Context, from string, notBefore time.Time) (int, error) {
	from = strings.Trim(from, "/")
	if from == "" || from == b.cfg.Prefix {
		return 0, nil
	}
	keys, err := b.bucket.List(ctx, from+"/")
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	for _, k := range keys {
		o, err := b.bucket.Get(ctx, k)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return 0, b.wrap("read", k, err)
		}
		if !o.Modified.IsZero() && o.Modified.Before(notBefore) {
			return 0, b.errorf("%s was written %s, before %s: %w", b.url(k), o.Modified.UTC().Format(time.RFC3339),
				notBefore.UTC().Format(time.RFC3339), statemgr.ErrPredates)
		}
	}
	copied := 0
	for _, k := range keys {
		o, err := b.bucket.Get(ctx, k)
		if isNotFound(err) {
			continue // moved meanwhile by another process
		}
		if err != nil {
			return copied, b.wrap("read", k, err)
		}
		dst := b.key(strings.TrimPrefix(k, from+"/"))
		switch _, err := b.bucket.Put(ctx, dst, o.Data, Cond{IfAbsent: true}); {
		case isPrecondition(err): // already there: kept
		case err != nil:
			return copied, b.wrap("write", dst, err)
		default:
			copied++
		}
	}
	if err := b.bucket.DeleteAll(ctx, keys); err != nil {
		return copied, fmt.Errorf("%s backend: remove the moved objects under %s: %w", b.cfg.Name, b.url(from+"/"), err)
	}
	return copied, nil
}
