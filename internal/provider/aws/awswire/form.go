package awswire

import (
	"net/url"
	"strconv"
	"time"
)

// The Query protocol's scalars, as the SDK's serializers write them: a
// parameter left nil is not sent, a boolean is "true" or "false", a
// timestamp is ISO 8601 in UTC with at most milliseconds.

// SetString sets key to *v unless v is nil.
func SetString(p url.Values, key string, v *string) {
	if v != nil {
		p.Set(key, *v)
	}
}

// SetInt32 sets key to *v in decimal unless v is nil.
func SetInt32(p url.Values, key string, v *int32) {
	if v != nil {
		p.Set(key, strconv.FormatInt(int64(*v), 10))
	}
}

// SetBool sets key to "true" or "false" unless v is nil.
func SetBool(p url.Values, key string, v *bool) {
	if v != nil {
		p.Set(key, strconv.FormatBool(*v))
	}
}

// SetTime sets key to *v in ISO 8601, UTC, unless v is nil.
func SetTime(p url.Values, key string, v *time.Time) {
	if v != nil {
		p.Set(key, v.UTC().Format("2006-01-02T15:04:05.999Z"))
	}
}

// SetList sets the list name to values, each under member
// (name.member.1, …): nil is not sent, an empty list is sent as "name="
// (which is how the SDK says "none", e.g. no security groups left).
func SetList(p url.Values, name, member string, values []string) {
	switch {
	case values == nil:
	case len(values) == 0:
		p.Set(name, "")
	default:
		AddList(p, name+"."+member, values)
	}
}

// SetStructs sets the list name to items, each a structure whose fields
// set writes under prefix (name.member.1, …; set adds ".Key" and so on),
// nil and empty as SetList.
func SetStructs[T any](p url.Values, name, member string, items []T, set func(prefix string, item T)) {
	switch {
	case items == nil:
	case len(items) == 0:
		p.Set(name, "")
	default:
		for i, it := range items {
			set(name+"."+member+"."+strconv.Itoa(i+1), it)
		}
	}
}
