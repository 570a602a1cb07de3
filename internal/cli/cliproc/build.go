package cliproc

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// enginePackage is kyku-engine's main package.
const enginePackage = "github.com/kyku/action/cmd/kyku-engine"

// BuildEnv carries kyku's build identity to the kyku-engine it starts,
// which refuses to run without it or under another.
const BuildEnv = "KYKU_ENGINE_BUILD"

// EngineName is the file name of kyku-engine (Kyku builds for Linux and
// macOS only: the sim and the local backend use their file locks).
const EngineName = "kyku-engine"

// identity is what must agree between kyku and kyku-engine for them to be
// one build: the Go version, the main module's path, version and sum,
// and every build setting Go records (-ldflags with its -X version and
// commit, -race, -tags, CGO_ENABLED, GOOS, GOARCH, the VCS revision, its
// time and whether the checkout was modified), hashed. The package path,
// the one thing that differs, is left out.
func identity(bi *debug.BuildInfo) string {
	h := sha256.New()
	fmt.Fprintf(h, "go %s\nmodule %s %s %s\n", bi.GoVersion, bi.Main.Path, bi.Main.Version, bi.Main.Sum)
	settings := slices.Clone(bi.Settings)
	slices.SortFunc(settings, func(a, b debug.BuildSetting) int { return strings.Compare(a.Key, b.Key) })
	for _, s := range settings {
		fmt.Fprintf(h, "%q=%q\n", s.Key, s.Value)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ownIdentity is this executable's identity; ok false when Go recorded
// no build information (never for go build, go install or go run).
// Worked out once: FindEngine and EngineEnviron both need it at start-up.
var ownIdentity = sync.OnceValues(func() (string, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	return identity(bi), true
})

// FindEngine returns the kyku-engine beside self, the running kyku's
// executable with its symbolic links resolved ("" when there is none),
// once it has checked, without running it, that it is the same build as
// this kyku; an error when the file there is anything else. Nothing else
// is looked at: not the PATH, not the working directory (a repository's
// file named kyku-engine is never run).
func FindEngine(self string) (string, error) {
	real, err := filepath.EvalSymlinks(self)
	if err != nil {
		return "", fmt.Errorf("find kyku-engine: resolve %s: %w", self, err)
	}
	path := filepath.Join(filepath.Dir(real), EngineName)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("find kyku-engine: %w", err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a file: not run (reinstall Kyku, docs/install.md)", path)
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s is not a kyku-engine built with this kyku (%v): not run (reinstall Kyku, docs/install.md)", path, err)
	}
	own, ok := ownIdentity()
	if bi.Path != enginePackage || !ok || identity(bi) != own {
		return "", fmt.Errorf("%s is not a kyku-engine of this kyku's build (it is %s %s): not run (install both from one release or one go install, docs/install.md)", path, bi.Path, bi.Main.Version)
	}
	return path, nil
}

// EngineEnviron is environ with BuildEnv set to this kyku's identity,
// for the kyku-engine it starts.
func EngineEnviron(environ []string) []string {
	own, _ := ownIdentity()
	out := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool { return strings.HasPrefix(kv, BuildEnv+"=") })
	return append(out, BuildEnv+"="+own)
}

// CheckStartedBy is kyku-engine's check that the kyku that started it is
// of its own build: BuildEnv (read with getenv) holds that kyku's
// identity. Started by no kyku (BuildEnv unset: go run ./cmd/kyku-engine),
// kyku-engine is the whole command line on its own.
func CheckStartedBy(getenv func(string) string) error {
	want := getenv(BuildEnv)
	if want == "" {
		return nil
	}
	own, ok := ownIdentity()
	if !ok || want != own {
		return errors.New("the kyku that started kyku-engine is another build: install both from one release or one go install (docs/install.md)")
	}
	return nil
}

// AnswersItself reports whether kyku answers args itself, whatever
// kyku-engine is beside it: the version and the help, which read no
// configuration, open no backend and start no provider.
func AnswersItself(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "version", "-v", "-version", "--version", "-h", "-help", "--help", "help":
		return true
	}
	return false
}
