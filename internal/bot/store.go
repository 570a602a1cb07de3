package bot

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// StoreConfig is the bot's own store (KYKU_BOT_STORE): a bucket and prefix
// the state backends speak, whose conditional writes the replicas share.
//
//	s3://<bucket>/<prefix>[?region=…&endpoint=…&path-style=true]
//	gs://<bucket>/<prefix>
//
// Credentials are the bot's own (the SDKs' default chains), never a
// repository's.
type StoreConfig struct {
	Type         string // "s3" or "gcs"
	Bucket       string
	Prefix       string // "" or a path without leading/trailing slash
	Region       string // s3
	Endpoint     string // s3: an S3-compatible server
	UsePathStyle bool   // s3
}

// String is the store's URL, for logs (it holds no secret).
func (s StoreConfig) String() string {
	scheme := "s3"
	if s.Type == "gcs" {
		scheme = "gs"
	}
	return scheme + "://" + s.Bucket + "/" + s.Prefix
}

// ParseStore reads a KYKU_BOT_STORE URL.
func ParseStore(raw string) (*StoreConfig, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL such as s3://bucket/prefix", raw)
	}
	sc := &StoreConfig{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
	switch u.Scheme {
	case "s3":
		sc.Type = "s3"
	case "gs":
		sc.Type = "gcs"
	default:
		return nil, fmt.Errorf("%q: the store is s3://bucket/prefix or gs://bucket/prefix, not %s://", raw, u.Scheme)
	}
	if sc.Bucket == "" || u.User != nil {
		return nil, fmt.Errorf("%q names no bucket (want %s://bucket/prefix, credentials from the environment)", raw, u.Scheme)
	}
	for _, seg := range strings.Split(sc.Prefix, "/") {
		if seg == "." || seg == ".." || (seg == "" && sc.Prefix != "") {
			return nil, fmt.Errorf("%q: the prefix has an empty, \".\" or \"..\" segment", raw)
		}
	}
	q := u.Query()
	for k := range q {
		switch {
		case sc.Type == "s3" && (k == "region" || k == "endpoint" || k == "path-style"):
		default:
			return nil, fmt.Errorf("%q: unknown parameter %q (s3 takes region, endpoint, path-style; gs none)", raw, k)
		}
	}
	sc.Region, sc.Endpoint = q.Get("region"), q.Get("endpoint")
	if ps := q.Get("path-style"); ps != "" {
		if sc.UsePathStyle, err = strconv.ParseBool(ps); err != nil {
			return nil, fmt.Errorf("%q: path-style %q is not true or false", raw, ps)
		}
	}
	if e := sc.Endpoint; e != "" {
		if p, err := url.Parse(e); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil {
			return nil, fmt.Errorf("%q: endpoint %q is not an http(s) URL without credentials", raw, e)
		}
	}
	return sc, nil
}
