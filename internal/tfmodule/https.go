package tfmodule

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/tfinstall"
)

// https fetches an https address as go-getter's http getter does: an
// archive (by the "archive" argument, else by the end of the path) is
// downloaded, checked against the "checksum" argument if any, and
// unpacked; anything else is asked, with terraform-get=1, where the
// package is (the X-Terraform-Get header, or a terraform-get meta tag),
// and that is fetched. Redirects: https only, to any host.
func (f *fetcher) https(ctx context.Context, u *url.URL, dst string, hops int) error {
	q := u.Query()
	key := q.Get("archive")
	if key != "" {
		q.Del("archive")
		if b, err := strconv.ParseBool(key); err == nil && !b {
			key = "-"
		}
	} else {
		for _, k := range archiveKeys {
			if strings.HasSuffix(u.Path, "."+k) {
				key = k
				break
			}
		}
	}
	sum, err := parseChecksum(q.Get("checksum"))
	if err != nil {
		return fmt.Errorf("invalid checksum: %w", err)
	}
	q.Del("checksum")
	req := *u
	req.RawQuery = q.Encode()
	if key != "" && key != "-" {
		format, err := archiveOf(key)
		if err != nil {
			return err
		}
		return f.archive(ctx, &req, format, sum, "", dst)
	}
	if sum != nil {
		return fmt.Errorf("checksum cannot be specified for directory download")
	}
	return f.terraformGet(ctx, &req, dst, hops)
}

// archive downloads the archive at u into a temporary file beside dst
// and unpacks it into dst; format "" sniffs it (a registry's direct
// package). With tokenOf, the token of that registry host goes along.
func (f *fetcher) archive(ctx context.Context, u *url.URL, format archiveFormat, sum *checksum, tokenOf, dst string) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".download-*")
	if err != nil {
		return err
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	if tokenOf != "" {
		f.in.reg.authorize(req, tokenOf)
	}
	resp, err := tfinstall.HTTPSClient(f.in.HTTP, false).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("download %s: %s", u.Redacted(), resp.Status)
	}
	limit := f.in.Limits.download()
	var h hash.Hash
	w := io.Writer(tmp)
	if sum != nil {
		h = sum.new()
		w = io.MultiWriter(tmp, h)
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fmt.Errorf("download %s: %w", u.Redacted(), err)
	}
	if n > limit {
		return fmt.Errorf("%w: download %s: larger than %d bytes", ErrArchiveRefused, u.Redacted(), limit)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return fmt.Errorf("download %s: the server promised %d bytes, but returned %d bytes", u.Redacted(), resp.ContentLength, n)
	}
	if sum != nil {
		if got := hex.EncodeToString(h.Sum(nil)); got != sum.want {
			return fmt.Errorf("checksums did not match for %s: expected %s, got %s", u.Redacted(), sum.want, got)
		}
	}
	if format == "" {
		if format, err = sniffArchive(tmp); err != nil {
			return err
		}
	}
	if err := unpack(tmp, format, dst, f.in.Limits); err != nil {
		return fmt.Errorf("unpack %s: %w", u.Redacted(), err)
	}
	return nil
}

// terraformGet asks u where its package is and fetches that: an absolute
// address, through the same getters (so https only, or git).
func (f *fetcher) terraformGet(ctx context.Context, u *url.URL, dst string, hops int) error {
	if hops >= maxTerraformGet {
		return fmt.Errorf("too many X-Terraform-Get redirects: %d", hops+1)
	}
	ask := *u
	q := ask.Query()
	q.Add("terraform-get", "1")
	ask.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ask.String(), nil)
	if err != nil {
		return err
	}
	resp, err := tfinstall.HTTPSClient(f.in.HTTP, false).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s: bad response code: %d", u.Redacted(), resp.StatusCode)
	}
	source := resp.Header.Get("X-Terraform-Get")
	if source == "" {
		if source, err = metaTerraformGet(io.LimitReader(resp.Body, maxDocument)); err != nil {
			return fmt.Errorf("%s: %w", u.Redacted(), err)
		}
	}
	if source == "" {
		return fmt.Errorf("%s: no source URL was returned", u.Redacted())
	}
	source, subdir := rawSubdir(source)
	if fu, err := url.Parse(source); err != nil || fu.Scheme == "" {
		return fmt.Errorf("%s: invalid source string: %s", u.Redacted(), source)
	}
	if subdir == "" {
		return f.get(ctx, source, dst, hops+1)
	}
	if hasDotDot(subdir) {
		return fmt.Errorf("%s: subdirectory component contain path traversal out of the repository", u.Redacted())
	}
	// The package is the subdirectory of what the answer names.
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".whole-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	whole := filepath.Join(tmp, "package")
	if err := f.get(ctx, source, whole, hops+1); err != nil {
		return err
	}
	dir, err := subdirOf(whole, strings.TrimPrefix(subdir, "/"))
	if err != nil {
		return err
	}
	return os.Rename(dir, dst)
}

// metaTerraformGet finds <meta name="terraform-get" content="…"> in a
// page's head.
func metaTerraformGet(r io.Reader) (string, error) {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.CharsetReader = func(charset string, in io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "ascii") {
			return in, nil
		}
		return nil, fmt.Errorf("can't decode XML document using charset %q", charset)
	}
	for {
		t, err := d.Token()
		if err == io.EOF {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		switch e := t.(type) {
		case xml.StartElement:
			if strings.EqualFold(e.Name.Local, "body") {
				return "", nil
			}
			if strings.EqualFold(e.Name.Local, "meta") && attr(e.Attr, "name") == "terraform-get" {
				if c := attr(e.Attr, "content"); c != "" {
					return c, nil
				}
			}
		case xml.EndElement:
			if strings.EqualFold(e.Name.Local, "head") {
				return "", nil
			}
		}
	}
}

func attr(attrs []xml.Attr, name string) string {
	for _, a := range attrs {
		if strings.EqualFold(a.Name.Local, name) {
			return a.Value
		}
	}
	return ""
}

// checksum is go-getter's "checksum" argument: TYPE:HEX, or HEX whose
// length says the type.
type checksum struct {
	new  func() hash.Hash
	want string
}

func parseChecksum(v string) (*checksum, error) {
	if v == "" {
		return nil, nil
	}
	kind, want, ok := strings.Cut(v, ":")
	if !ok {
		kind, want = "", v
	}
	want = strings.ToLower(want)
	if _, err := hex.DecodeString(want); err != nil {
		return nil, fmt.Errorf("%q is not hexadecimal", want)
	}
	if kind == "" {
		switch len(want) {
		case 2 * md5.Size:
			kind = "md5"
		case 2 * sha1.Size:
			kind = "sha1"
		case 2 * sha256.Size:
			kind = "sha256"
		case 2 * sha512.Size:
			kind = "sha512"
		}
	}
	c := &checksum{want: want}
	switch kind {
	case "md5":
		c.new = md5.New
	case "sha1":
		c.new = sha1.New
	case "sha256":
		c.new = sha256.New
	case "sha512":
		c.new = sha512.New
	default:
		return nil, fmt.Errorf("unsupported checksum type %q (md5, sha1, sha256, sha512; the file: form is not supported)", kind)
	}
	if len(want) != 2*c.new().Size() {
		return nil, fmt.Errorf("%s checksum %q has the wrong length", kind, want)
	}
	return c, nil
}
