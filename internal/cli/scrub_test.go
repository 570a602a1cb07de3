package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

const cliSecret = "hunter2-user-data"

// echoingCloud is the sim, except that it refuses to create (failCreate)
// or delete (failDelete) a Vm with an error quoting the Vm's user data (a
// sensitive property), twice, over several lines and wrapped, as a cloud
// API echoing the request it refuses would.
type echoingCloud struct {
	*sim.Provider
	failCreate, failDelete bool
}

var errRefused = errors.New("the cloud refused the request")

func (p echoingCloud) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if p.failCreate && r.Type == "Vm" {
		ud, _ := r.Properties["userData"].(string)
		return provider.Object{}, fmt.Errorf("sim: Vm %q: %w:\n  userData %q is not valid cloud-init\n  (line 1: %s)", r.Name, errRefused, ud, ud)
	}
	return p.Provider.Create(ctx, r)
}

func (p echoingCloud) Delete(ctx context.Context, typ, id string) error {
	if p.failDelete && typ == "Vm" {
		return fmt.Errorf("sim: Vm %s: %w:\n  instance with userData %q is protected (%s)", id, errRefused, cliSecret, cliSecret)
	}
	return p.Provider.Delete(ctx, typ, id)
}

// runEchoing runs one command as k.run does, with the echoing sim.
func (k *kyku) runEchoing(cloud echoingCloud, stdin string, args ...string) (int, string, string) {
	k.t.Helper()
	args = append(args, "-c", filepath.Join(k.dir, "kyku.yaml"), "--state-dir", filepath.Join(k.dir, ".kyku"))
	var out, errOut bytes.Buffer
	code := cli.Run(k.t.Context(), args, cli.Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut,
		Getenv: func(name string) string { return k.env[name] },
		Providers: provider.Registry{"sim": func(ctx context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
			p, err := sim.Factory(ctx, settings, getenv)
			if err != nil {
				return nil, err
			}
			c := cloud
			c.Provider = p.(*sim.Provider)
			return c, nil
		}},
		Hostname: "testhost", PID: 4242,
	})
	return code, out.String(), errOut.String()
}

// noSecret fails when the output shows the secret, or does not say what
// it masked.
func noSecret(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, cliSecret) {
		t.Errorf("the %s shows the secret:\n%s", what, text)
	}
	if !strings.Contains(text, "(sensitive)") {
		t.Errorf("the %s does not say what it masked:\n%s", what, text)
	}
}

const echoConfig = `provider: sim
resources:
  web: { type: Vm, properties: { image: debian-12, userData: ` + cliSecret + ` } }
`

// TestCLIApplyErrorQuotingASecretIsScrubbed: a provider's error quoting a
// sensitive value is scrubbed in the progress line, the apply's summary
// and the error kyku exits with.
func TestCLIApplyErrorQuotingASecretIsScrubbed(t *testing.T) {
	k := newKyku(t, echoConfig)
	code, out, errOut := k.runEchoing(echoingCloud{failCreate: true}, "", "apply", "--auto-approve")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	noSecret(t, "output", out)
	noSecret(t, "error", errOut)
	for _, want := range []string{
		`create Vm "web": FAILED after`,                           // the progress line
		`✗ create Vm "web": sim: Vm "web": the cloud refused the`, // the summary
		`userData "(sensitive)" is not valid cloud-init`,
		`(line 1: (sensitive))`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// TestCLIDestroyErrorQuotingASecretIsScrubbed: the same for a failed
// destroy.
func TestCLIDestroyErrorQuotingASecretIsScrubbed(t *testing.T) {
	k := newKyku(t, echoConfig)
	if code, out, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := k.runEchoing(echoingCloud{failDelete: true}, "", "destroy", "--auto-approve")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	noSecret(t, "output", out)
	noSecret(t, "error", errOut)
	if !strings.Contains(out, `instance with userData "(sensitive)" is protected ((sensitive))`) {
		t.Errorf("the output does not show the scrubbed error:\n%s", out)
	}
}

// TestCLIPlanErrorQuotingASecretIsScrubbed: a plan (or validate) refused
// with a message quoting a sensitive variable's value (the sim's image
// check) prints it scrubbed, at its position.
func TestCLIPlanErrorQuotingASecretIsScrubbed(t *testing.T) {
	k := newKyku(t, `provider: sim
variables:
  image: { type: string, sensitive: true, default: `+cliSecret+` }
resources:
  web: { type: Vm, properties: { image: "${var.image}" } }
`)
	for _, cmd := range []string{"plan", "validate", "apply"} {
		t.Run(cmd, func(t *testing.T) {
			code, out, errOut := k.run("", cmd)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
			}
			noSecret(t, "error", errOut)
			if !strings.Contains(errOut, `kyku.yaml:5:`) || !strings.Contains(errOut, `not "(sensitive)"`) {
				t.Errorf("the error lost its position or its text:\n%s", errOut)
			}
		})
	}
}

// TestCLIErrorAboutARemovedResourceIsScrubbed: the configuration no longer
// has web, so only state knows its userData (state records what was
// secret); the cloud's refusal to delete it quotes that value, and the
// CLI prints it scrubbed.
func TestCLIErrorAboutARemovedResourceIsScrubbed(t *testing.T) {
	k := newKyku(t, echoConfig+"  key: { type: SshKey, properties: { publicKey: k } }\n")
	if code, out, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	k.write("provider: sim\nresources:\n  key: { type: SshKey, properties: { publicKey: k } }\n")
	code, out, errOut := k.runEchoing(echoingCloud{failDelete: true}, "", "apply", "--auto-approve")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	noSecret(t, "output", out)
	noSecret(t, "error", errOut)
	if !strings.Contains(out, `instance with userData "(sensitive)" is protected`) {
		t.Errorf("the output does not show the scrubbed error:\n%s", out)
	}
}
