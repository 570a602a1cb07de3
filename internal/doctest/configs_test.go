package doctest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kyku/action/internal/bot/tenancy"
)

// kykuYAML is a yaml block that is a whole kyku.yaml: a top-level key
// only a configuration has.
var kykuYAML = regexp.MustCompile(`(?m)^(provider|backend|resources):`)

// TestDocConfigurationsValidate: every kyku.yaml the getting-started and
// Action pages show is valid as written (`kyku validate`, which needs no
// credentials and calls no cloud).
func TestDocConfigurationsValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the CLI")
	}
	root := repoRoot(t)
	bin := kykuBinary(t)
	n := 0
	for _, rel := range runPages {
		p := readPage(t, root, rel)
		for _, b := range p.blocks {
			src := strings.Join(b.lines, "\n") + "\n"
			if b.info != "yaml" || !kykuYAML.MatchString(src) || strings.Contains(src, "\njobs:") {
				continue
			}
			n++
			name := rel + ":" + strconv.Itoa(b.line)
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "kyku.yaml"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, bin, "validate", "-c", dir)
				cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin", "NO_COLOR=1"}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s: the configuration shown is not valid (%v):\n%s---\n%s", name, err, src, out)
				}
			})
		}
	}
	if n < 3 {
		t.Errorf("only %d configurations found on %v: the test reads the wrong blocks", n, runPages)
	}
}

// TestBotPageExamples: the operator's policies docs/bot.md shows parse as
// the bot parses KYKU_BOT_POLICY (the Kubernetes ConfigMap's too), and
// every variable its Deployment sets is one the page's Variables table
// documents (or the AWS SDK's).
func TestBotPageExamples(t *testing.T) {
	root := repoRoot(t)
	p := readPage(t, root, "docs/bot.md")
	vars := map[string]bool{}
	in := false
	for _, line := range p.prose {
		if strings.HasPrefix(line, "#") {
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == "Variables"
			continue
		}
		if in && strings.HasPrefix(line, "| `") {
			for _, m := range regexp.MustCompile("`([A-Z][A-Z0-9_]+)`").FindAllStringSubmatch(strings.SplitN(line, "|", 3)[1], -1) {
				vars[m[1]] = true
			}
		}
	}
	if len(vars) < 10 {
		t.Fatalf("docs/bot.md's Variables table lists %d variables: the test reads the wrong section", len(vars))
	}
	policies, deployments := 0, 0
	for _, b := range p.blocks {
		if b.info != "yaml" {
			continue
		}
		src := strings.Join(b.lines, "\n") + "\n"
		where := "docs/bot.md:" + strconv.Itoa(b.line)
		if strings.HasPrefix(src, "repositories:") {
			policies++
			if _, err := tenancy.Parse("policy.yaml", []byte(src)); err != nil {
				t.Errorf("%s: the policy shown does not parse: %v", where, err)
			}
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader([]byte(src)))
		for {
			var doc struct {
				Kind string            `yaml:"kind"`
				Data map[string]string `yaml:"data"`
				Spec struct {
					Template struct {
						Spec struct {
							Containers []struct {
								Env []struct {
									Name string `yaml:"name"`
								} `yaml:"env"`
							} `yaml:"containers"`
						} `yaml:"spec"`
					} `yaml:"template"`
				} `yaml:"spec"`
			}
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("%s: not YAML: %v", where, err)
				break
			}
			switch doc.Kind {
			case "ConfigMap":
				for key, policy := range doc.Data {
					policies++
					if _, err := tenancy.Parse(key, []byte(policy)); err != nil {
						t.Errorf("%s: the ConfigMap's policy does not parse: %v", where, err)
					}
				}
			case "Deployment":
				deployments++
				for _, c := range doc.Spec.Template.Spec.Containers {
					for _, e := range c.Env {
						if !vars[e.Name] && !strings.HasPrefix(e.Name, "AWS_") {
							t.Errorf("%s: the Deployment sets %s, which the Variables table does not document", where, e.Name)
						}
					}
				}
			}
		}
	}
	if policies < 2 || deployments != 1 {
		t.Errorf("docs/bot.md shows %d policies and %d Deployments; want the policy, the ConfigMap's and one Deployment", policies, deployments)
	}
}
