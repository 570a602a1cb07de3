package main

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otherVersion is the version otherVersionEngine is of: as long as
// testVersion, so that it takes its place byte for byte.
const otherVersion = "v9.9.9-kyku-test"

// otherVersionEngine is the kyku-engine TestMain built, as a build of
// another version is: the version the linker wrote into it (-X
// main.version, which Go records in the build information kyku reads
// too) replaced in place by otherVersion, everything else the same build.
// Linking one more executable with -race for it cost this test about 9 s
// of CPU. It checks that the result reads as that other version.
func otherVersionEngine(t *testing.T) []byte {
	t.Helper()
	ours, err := os.ReadFile(filepath.Join(filepath.Dir(kykuBin), "kyku-engine"))
	must(t, err)
	// At least the string the program prints and the build setting.
	if n := bytes.Count(ours, []byte(testVersion)); n < 2 {
		t.Fatalf("kyku-engine holds %q %d times, want the version it prints and its build setting", testVersion, n)
	}
	other := bytes.ReplaceAll(ours, []byte(testVersion), []byte(otherVersion))
	info, err := buildinfo.Read(bytes.NewReader(other))
	if err != nil {
		t.Fatalf("the kyku-engine of another version: %v", err)
	}
	for _, s := range info.Settings {
		if s.Key == "-ldflags" && strings.Contains(s.Value, "main.version="+otherVersion) && !strings.Contains(s.Value, testVersion) {
			return other
		}
	}
	t.Fatalf("the kyku-engine of another version records no -ldflags of version %s: %v", otherVersion, info.Settings)
	return nil
}
