package tfinstall

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A Hash is a checksum as lock files record them: "h1:<base64>" of an
// unpacked package (the hash of go.sum's "h1" of a directory: SHA-256 of
// the sorted lines "<sha256 hex>  <path>\n", one per file) or
// "zh:<hex>", the SHA-256 of the package's zip archive as its registry
// lists it in SHA256SUMS.
type Hash string

// Kind is the hash's scheme, "h1" or "zh".
func (h Hash) Kind() string {
	k, _, _ := strings.Cut(string(h), ":")
	return k
}

// HashDir computes the h1 hash of an unpacked package directory.
func HashDir(dir string) (Hash, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s: not a regular file", path)
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if strings.Contains(rel, "\n") {
			return errors.New("a file name holds a newline")
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash package %s: %w", dir, err)
	}
	sort.Strings(files)
	h := sha256.New()
	for _, rel := range files {
		sum, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return "", fmt.Errorf("hash package %s: %w", dir, err)
		}
		fmt.Fprintf(h, "%x  %s\n", sum, rel)
	}
	return Hash("h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil))), nil
}

// zipHash is the zh hash of an archive's SHA-256.
func zipHash(sum []byte) Hash { return Hash("zh:" + hex.EncodeToString(sum)) }

func fileSHA256(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// wellFormed: "h1:" and base64, or "zh:" and 64 hex digits.
func (h Hash) wellFormed() bool {
	kind, body, _ := strings.Cut(string(h), ":")
	switch kind {
	case "h1":
		b, err := base64.StdEncoding.DecodeString(body)
		return err == nil && len(b) == sha256.Size
	case "zh":
		b, err := hex.DecodeString(body)
		return err == nil && len(b) == sha256.Size && body == strings.ToLower(body)
	}
	return false
}
