package tfinstall

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
)

// LockFileName is the lock file's name beside a Kyku (YAML)
// configuration. Its format is Terraform's .terraform.lock.hcl, which
// users and their tools know (hashes can be carried over from one to the
// other); its name is Kyku's own, so that a directory holding both a
// Kyku configuration and Terraform's keeps two locks, and neither tool
// rewrites the other's. A directory of .tf files is Terraform's own
// configuration, read by Kyku as it is: its lock is Terraform's
// (TerraformLockFileName).
const LockFileName = ".kyku.lock.hcl"

// Lock is the lock file: for each provider, the version chosen and the
// hashes of its packages. A provider whose package matches none of its
// hashes is refused.
type Lock struct {
	Providers map[Source]*Locked
}

// Locked is one provider's entry.
type Locked struct {
	Version     string
	Constraints string // as configured when the version was chosen
	Hashes      []Hash // sorted, no duplicates

	// CarriedOver marks an entry FromHashiCorpHost made: it chooses the
	// version and checks no hash (Install records the package's). Never
	// read from a lock file: an entry there always checks its hashes.
	CarriedOver bool
}

// FromHashiCorpHost carries over the lock entries of Terraform's
// registry, as OpenTofu 1.12's init does with a lock Terraform wrote:
// for every provider of HashiCorpHost's hashicorp namespace whose
// counterpart on DefaultHost has no entry, the counterpart gets one with
// the same version and constraints and no hashes (OpenTofu's releases of
// HashiCorp's providers are other bytes), whose hashes Install records.
// The old entries stay until Install drops those not required. It
// returns the sources carried over, each by the one it came from.
func (l *Lock) FromHashiCorpHost() map[Source]Source {
	moved := map[Source]Source{}
	for old, entry := range l.Providers {
		if old.Host != HashiCorpHost || old.Namespace != "hashicorp" {
			continue
		}
		to := Source{Host: DefaultHost, Namespace: old.Namespace, Type: old.Type}
		if l.Providers[to] != nil {
			continue
		}
		l.Providers[to] = &Locked{Version: entry.Version, Constraints: entry.Constraints, CarriedOver: true}
		moved[old] = to
	}
	return moved
}

// Matches reports whether any of hashes is one of the entry's.
func (l *Locked) Matches(hashes ...Hash) bool {
	for _, h := range hashes {
		if slices.Contains(l.Hashes, h) {
			return true
		}
	}
	return false
}

// addHashes merges hashes into the entry.
func (l *Locked) addHashes(hashes ...Hash) {
	for _, h := range hashes {
		if !slices.Contains(l.Hashes, h) {
			l.Hashes = append(l.Hashes, h)
		}
	}
	slices.Sort(l.Hashes)
}

// ReadLock reads the lock file at path; a missing file is an empty lock.
// A malformed one is a list of diagnostics naming file:line:col.
func ReadLock(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Lock{Providers: map[Source]*Locked{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock file: %w", err)
	}
	l, ds := ParseLock(path, data)
	if err := ds.Err(); err != nil {
		return nil, err
	}
	return l, nil
}

// LockDiffers reports whether WriteLock would change the file at path
// (true when there is none).
func LockDiffers(path string, l *Lock) bool {
	old, err := os.ReadFile(path)
	if err != nil {
		return true
	}
	return !bytes.Equal(old, keepHeader(old, l.Encode()))
}

// WriteLock writes the lock file (atomically: a temporary file renamed),
// under the header comments of the file it replaces (keepHeader).
func WriteLock(path string, l *Lock) error {
	data := l.Encode()
	if old, err := os.ReadFile(path); err == nil {
		if data = keepHeader(old, data); bytes.Equal(old, data) {
			return nil
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kyku-lock-*")
	if err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	return nil
}

// Encode is the lock file's text, laid out as Terraform lays it out:
// providers sorted by address, attributes aligned, one hash a line.
func (l *Lock) Encode() []byte {
	var b bytes.Buffer
	b.WriteString("# This file is maintained automatically by \"kyku init\".\n# Manual edits may be lost in future updates.\n")
	srcs := make([]Source, 0, len(l.Providers))
	for s := range l.Providers {
		srcs = append(srcs, s)
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].String() < srcs[j].String() })
	for _, s := range srcs {
		p := l.Providers[s]
		fmt.Fprintf(&b, "\nprovider %s {\n", strconv.Quote(s.String()))
		if p.Constraints != "" {
			fmt.Fprintf(&b, "  version     = %s\n  constraints = %s\n", strconv.Quote(p.Version), strconv.Quote(p.Constraints))
		} else {
			fmt.Fprintf(&b, "  version = %s\n", strconv.Quote(p.Version))
		}
		b.WriteString("  hashes = [\n")
		for _, h := range p.Hashes {
			fmt.Fprintf(&b, "    %s,\n", strconv.Quote(string(h)))
		}
		b.WriteString("  ]\n}\n")
	}
	return b.Bytes()
}
