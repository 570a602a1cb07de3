package tfinstall

import (
	"bytes"
	"path"
)

// TerraformLockFileName is the lock file of a directory of .tf files:
// Terraform's own, read and written by `kyku init` as by `tofu init`, so
// that a team's existing lock is honoured as it is (its versions chosen,
// its hashes checked, the file left byte for byte when nothing changes).
// A Kyku (YAML) configuration keeps LockFileName.
const TerraformLockFileName = ".terraform.lock.hcl"

// LockFileNameOf is the lock file's name for a configuration read from
// .tf files (terraform) or from Kyku's YAML.
func LockFileNameOf(terraform bool) string {
	if terraform {
		return TerraformLockFileName
	}
	return LockFileName
}

// IsLockFile reports whether the slash-separated path name is a
// providers' lock file of either kind: a change to it is a change of
// which provider binaries may run.
func IsLockFile(name string) bool {
	base := path.Base(name)
	return base == LockFileName || base == TerraformLockFileName
}

// keepHeader is data (an encoded lock) under the comment lines that start
// old instead of its own: a lock file another tool wrote ("maintained
// automatically by tofu init") keeps its header, so a lock whose entries
// did not change is not rewritten.
func keepHeader(old, data []byte) []byte {
	oldHead, _ := splitHeader(old)
	if len(oldHead) == 0 {
		return data
	}
	_, body := splitHeader(data)
	return append(append([]byte(nil), oldHead...), body...)
}

// splitHeader splits a lock file's text after its leading comment lines.
func splitHeader(b []byte) (head, body []byte) {
	rest := b
	for bytes.HasPrefix(rest, []byte("#")) {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return b, nil
		}
		rest = rest[i+1:]
	}
	return b[:len(b)-len(rest)], rest
}
