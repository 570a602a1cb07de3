package tfplugin_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// dockerCaps are the capabilities a container's root has unless told
// otherwise (Docker's and the OCI runtime spec's default set).
var dockerCaps = []string{"CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
	"SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE"}

// capAdd finds the --cap-add flags of the docker run commands in text.
var capAdd = regexp.MustCompile(`--cap-add ([A-Z_]+)`)

func capsAdded(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var caps []string
	for _, m := range capAdd.FindAllStringSubmatch(string(data), -1) {
		caps = append(caps, m[1])
	}
	slices.Sort(caps)
	return slices.Compact(caps)
}

// TestSandboxWithTheBotImagesCapabilities runs the sandbox of the bot's
// providers (TestSandboxStopsEveryEscape's proxied case: root, a user and
// a network of its own) as root limited to the capabilities a container
// has: Docker's default set and the --cap-add flags that the Dockerfile
// and docs/bot.md give for the image bot-sandbox. With them all every
// escape is stopped; without any one of them the sandbox cannot be had.
// (Docker's seccomp and AppArmor profiles, which refuse pivot_root and
// mount, are not reproduced: the documented run lifts both.)
func TestSandboxWithTheBotImagesCapabilities(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("limits root's capabilities")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) is not installed")
	}
	root := filepath.Join("..", "..")
	added := capsAdded(t, filepath.Join(root, "Dockerfile"))
	if len(added) == 0 {
		t.Fatal("the Dockerfile gives the image bot-sandbox no --cap-add")
	}
	if diff := cmp.Diff(added, capsAdded(t, filepath.Join(root, "docs", "bot.md"))); diff != "" {
		t.Errorf("docs/bot.md's --cap-add flags are not the Dockerfile's (-Dockerfile +docs/bot.md):\n%s", diff)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	provider := tfplugintest.Build(t, tfplugintest.Framework)
	type capCase struct {
		name  string
		caps  []string
		works bool
	}
	cases := []capCase{{name: "Docker's default and " + strings.Join(added, ", "), caps: slices.Concat(dockerCaps, added), works: true}}
	for _, c := range added {
		without := slices.DeleteFunc(slices.Clone(added), func(a string) bool { return a == c })
		cases = append(cases, capCase{name: "without " + c, caps: slices.Concat(dockerCaps, without)})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bounding := "-all"
			for _, c := range tc.caps {
				bounding += ",+" + strings.ToLower(c)
			}
			cmd := exec.Command(setpriv, "--bounding-set="+bounding, "--inh-caps=-all", "--",
				exe, "-test.run=^TestSandboxStopsEveryEscape$/^proxied$", "-test.v", "-test.count=1")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), envProvider + "=" + provider}
			out, err := cmd.CombinedOutput()
			passed := err == nil && strings.Contains(string(out), "--- PASS: TestSandboxStopsEveryEscape/proxied")
			if passed != tc.works {
				t.Errorf("the sandbox works: %v, want %v\n%s", passed, tc.works, out)
			}
			if !tc.works && !strings.Contains(string(out), "no sandbox available") {
				t.Errorf("the sandbox failed for another reason than the capability:\n%s", out)
			}
		})
	}
}

// TestDockerfileStages: the Dockerfile's default image (its last stage)
// stays distroless and not root, its stage bot-sandbox has what the
// providers' sandbox needs (bubblewrap, util-linux's setpriv, root) and
// runs the bot, and the builds .ci/run finds in it (each line holding
// `CGO_ENABLED=0 go build`, run as written) are still the four commands'.
func TestDockerfileStages(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	stages := map[string][]string{} // by name (an unnamed one by its image), its instructions
	var last string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if f := strings.Fields(line); f[0] == "FROM" {
			last = f[1]
			if len(f) == 4 && strings.EqualFold(f[2], "AS") {
				last = f[3]
			}
		}
		stages[last] = append(stages[last], line)
	}
	has := func(stage, want string) {
		t.Helper()
		if !slices.ContainsFunc(stages[stage], func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("stage %s lacks %q: %q", stage, want, stages[stage])
		}
	}
	if stages[last] == nil || !strings.HasPrefix(stages[last][0], "FROM gcr.io/distroless/static-debian12:nonroot") {
		t.Errorf("the default image is not distroless: %q", stages[last])
	}
	has(last, "USER 65532:65532")
	for _, want := range []string{"FROM debian:12", "bubblewrap", "util-linux", "USER 0:0", "COPY --from=build /out/kyku /out/action /out/bot /usr/local/bin/",
		`ENTRYPOINT ["/usr/local/bin/bot"]`} {
		has("bot-sandbox", want)
	}
	var builds []string
	build := regexp.MustCompile(`CGO_ENABLED=0 go build [^&\\]*`) // grep's, line by line
	for _, line := range strings.Split(text, "\n") {
		for _, m := range build.FindAllString(line, -1) {
			f := strings.Fields(m)
			builds = append(builds, f[len(f)-1])
		}
	}
	if diff := cmp.Diff([]string{"./cmd/kyku", "./cmd/kyku-engine", "./cmd/action", "./cmd/bot"}, builds); diff != "" {
		t.Errorf("the builds .ci/run runs (-want +got):\n%s", diff)
	}
}
