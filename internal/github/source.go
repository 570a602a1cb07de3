package github

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v88/github"
)

// Errors of ExtractTarball, for errors.Is.
var (
	// ErrUnsafeArchive: an entry would land outside the archive's top
	// directory (absolute path, "..", a second top directory).
	ErrUnsafeArchive = errors.New("unsafe archive entry")
	// ErrArchiveTooLarge: the files hold more bytes than allowed.
	ErrArchiveTooLarge = errors.New("archive too large")
)

// Tarball streams the gzipped tar archive of the repository at ref (a
// branch, tag or SHA; empty means the default branch), following GitHub's
// redirect to the download host. The caller closes it.
func (r *Repo) Tarball(ctx context.Context, ref string) (io.ReadCloser, error) {
	u := fmt.Sprintf("repos/%s/%s/tarball", r.owner, r.name)
	if ref != "" {
		segs := strings.Split(ref, "/")
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		u += "/" + strings.Join(segs, "/")
	}
	req, err := r.client.NewRequest(ctx, "GET", u, nil)
	if err != nil {
		return nil, fmt.Errorf("download tarball at %s: %w", ref, err)
	}
	resp, err := r.client.BareDo(req)
	if err := r.done(resp, err, "download tarball at %s", ref); err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// ExtractTarball reads a GitHub source tarball into memory: paths relative
// to the archive's single top directory ("owner-repo-sha/") mapped to file
// contents. Directories, symlinks and other non-regular entries are skipped
// (nothing is written to disk). An entry escaping the top directory fails
// with ErrUnsafeArchive; file contents over maxBytes in all fail with
// ErrArchiveTooLarge.
func ExtractTarball(r io.Reader, maxBytes int64) (map[string][]byte, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("extract tarball: %w", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	top := ""
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("extract tarball: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader || h.Typeflag == tar.TypeXHeader {
			continue
		}
		first, rest, _ := strings.Cut(h.Name, "/")
		rest = strings.TrimSuffix(rest, "/")
		switch {
		case top == "":
			top = first
			if !fs.ValidPath(top) || top == "." {
				return nil, fmt.Errorf("extract tarball: %w: %q", ErrUnsafeArchive, h.Name)
			}
		case first != top:
			return nil, fmt.Errorf("extract tarball: %w: %q is outside %q", ErrUnsafeArchive, h.Name, top+"/")
		}
		if rest == "" {
			continue
		}
		if !fs.ValidPath(rest) || strings.Contains(rest, `\`) {
			return nil, fmt.Errorf("extract tarball: %w: %q", ErrUnsafeArchive, h.Name)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		total += h.Size
		if h.Size < 0 || total > maxBytes {
			return nil, fmt.Errorf("extract tarball: %w: more than %d bytes", ErrArchiveTooLarge, maxBytes)
		}
		data, err := io.ReadAll(io.LimitReader(tr, h.Size))
		if err != nil {
			return nil, fmt.Errorf("extract tarball: read %s: %w", rest, err)
		}
		files[rest] = data
	}
}

// FileContent reads the file at path on ref (empty means the default
// branch) through the contents API (files up to 1 MB). A missing file
// wraps ErrNotFound, so callers can fall back to defaults.
func (r *Repo) FileContent(ctx context.Context, path, ref string) ([]byte, error) {
	var opts *gh.RepositoryContentGetOptions
	if ref != "" {
		opts = &gh.RepositoryContentGetOptions{Ref: ref}
	}
	file, _, resp, err := r.client.Repositories.GetContents(ctx, r.owner, r.name, path, opts)
	if err := r.done(resp, err, "read %s at %q", path, ref); err != nil {
		return nil, err
	}
	if file == nil {
		return nil, fmt.Errorf("read %s at %q: is a directory", path, ref)
	}
	if file.GetEncoding() == "none" {
		return nil, fmt.Errorf("read %s at %q: too large for the contents api", path, ref)
	}
	s, err := file.GetContent()
	if err != nil {
		return nil, fmt.Errorf("read %s at %q: %w", path, ref, err)
	}
	return []byte(s), nil
}

// DispatchWorkflow triggers a workflow_dispatch of workflowFile (e.g.
// "kyku.yml") on ref with inputs.
func (r *Repo) DispatchWorkflow(ctx context.Context, workflowFile, ref string, inputs map[string]any) error {
	_, resp, err := r.client.Actions.CreateWorkflowDispatchEventByFileName(ctx, r.owner, r.name, workflowFile,
		gh.CreateWorkflowDispatchEventRequest{Ref: ref, Inputs: inputs})
	return r.done(resp, err, "dispatch workflow %s on %s", workflowFile, ref)
}
