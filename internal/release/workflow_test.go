package release

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is what TestReleaseWorkflow reads of release.yml.
type workflow struct {
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Steps       []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestReleaseWorkflow: release.yml builds with build.sh (what
// TestBuildScript* run), attests what it publishes with the permissions an
// attestation needs, and pushes the bot's image for both Linux processors
// to ghcr.io. actionlint (.ci/lint-workflows.sh) checks the rest of it.
func TestReleaseWorkflow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".github/workflows/release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.Permissions) != 0 {
		t.Errorf("the workflow grants %v to every job; grant each job its own", wf.Permissions)
	}
	var built, attestedFiles, attestedImage, pushed bool
	for name, job := range wf.Jobs {
		for _, s := range job.Steps {
			action, _, _ := strings.Cut(s.Uses, "@")
			switch {
			case strings.Contains(s.Run, ".github/release/build.sh") && strings.Contains(s.Run, "dist"):
				built = true
			case action == "actions/attest-build-provenance":
				for _, p := range []string{"id-token", "attestations"} {
					if job.Permissions[p] != "write" {
						t.Errorf("job %s attests without %s: write", name, p)
					}
				}
				attestedFiles = attestedFiles || s.With["subject-checksums"] == "dist/checksums.txt"
				attestedImage = attestedImage || (s.With["subject-digest"] != "" && s.With["push-to-registry"] == "true")
			case action == "docker/build-push-action":
				platforms := strings.Split(s.With["platforms"], ",")
				slices.Sort(platforms)
				pushed = s.With["push"] == "true" && slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) &&
					strings.Contains(s.With["build-args"], "VERSION=${{ github.ref_name }}")
				if job.Permissions["packages"] != "write" {
					t.Errorf("job %s pushes an image without packages: write", name)
				}
			}
		}
	}
	for what, ok := range map[string]bool{
		"builds with .github/release/build.sh into dist":            built,
		"attests every file of checksums.txt":                       attestedFiles,
		"attests the image and pushes the attestation":              attestedImage,
		"pushes the image for linux/amd64 and linux/arm64, stamped": pushed,
	} {
		if !ok {
			t.Errorf("release.yml no longer %s", what)
		}
	}
}

// TestDockerfileCrossCompiles: the image release.yml pushes for two
// processors compiles on the builder's platform for the image's (no
// emulated compiler), and stamps kyku with the VERSION release.yml passes.
func TestDockerfileCrossCompiles(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	var build []string // the build stage's instructions
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "FROM ") {
			if build != nil {
				break
			}
			if !strings.HasSuffix(line, " AS build") {
				continue
			}
			build = []string{}
		}
		if build != nil && line != "" && !strings.HasPrefix(line, "#") {
			build = append(build, line)
		}
	}
	for _, want := range []string{"FROM --platform=$BUILDPLATFORM golang:", "ARG TARGETOS", "ARG TARGETARCH", "ARG VERSION", "ARG COMMIT",
		"export GOOS=$TARGETOS GOARCH=$TARGETARCH", "-X main.version=${VERSION:-} -X main.commit=${COMMIT:-}\" -o /out/kyku ./cmd/kyku"} {
		if !slices.ContainsFunc(build, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("the Dockerfile's build stage lacks %q:\n%s", want, strings.Join(build, "\n"))
		}
	}
}
