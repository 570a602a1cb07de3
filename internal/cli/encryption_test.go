package cli_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stateFiles returns every file of the project's state directory.
func (k *kyku) stateFiles() map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(filepath.Join(k.dir, ".kyku"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != ".kyku.lock" {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return err
	})
	return out
}

func (k *kyku) config(t *testing.T, prefix string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(k.dir, "kyku.yaml"), []byte(prefix+cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Switching encryption on for existing clear state is one command (kyku
// state rekey); rotating the passphrase is a fallback and the same command;
// pull decrypts, and a wrong or missing passphrase is named.
func TestEncryptionSwitchOnAndRotate(t *testing.T) {
	k := newKyku(t, cfg)
	if code, _, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatal(errOut)
	}
	k.config(t, "encryption: { key: passphrase }\n")
	k.env["KYKU_STATE_PASSPHRASE"] = "the first passphrase, long"
	if code, _, errOut := k.run("", "plan"); code != 1 || !strings.Contains(errOut, "kyku state rekey") {
		t.Fatalf("plan over clear state with encryption on: exit %d %s; want a refusal pointing at kyku state rekey", code, errOut)
	}
	code, out, errOut := k.run("", "state", "rekey")
	if code != 0 || !strings.Contains(out, "Rewrote the state, 1 backup and 0 other objects (saved plans, audit records)") {
		t.Fatalf("state rekey: exit %d\n%s%s", code, out, errOut)
	}
	for p, data := range k.stateFiles() {
		if strings.Contains(data, "s3cr3t-value") || strings.Contains(data, "10.0.0.0/16") {
			t.Errorf("%s still holds a property value in clear after rekey", p)
		}
	}
	if code, out, errOut := k.run("", "plan"); code != 0 || !strings.Contains(out, "No changes") {
		t.Fatalf("plan after rekey: exit %d\n%s%s", code, out, errOut)
	}
	code, pulled, errOut := k.run("", "state", "pull")
	if code != 0 || !strings.Contains(pulled, "s3cr3t-value") {
		t.Fatalf("state pull does not decrypt: exit %d %s", code, errOut)
	}
	file := filepath.Join(k.dir, "pulled.json")
	if err := os.WriteFile(file, []byte(pulled), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := k.run("", "state", "push", "--force", file, "-c", filepath.Join(k.dir, "kyku.yaml"), "--state-dir", filepath.Join(k.dir, ".kyku")); code != 0 {
		t.Fatalf("state push: %s", errOut)
	}
	for p, data := range k.stateFiles() {
		if strings.Contains(data, "s3cr3t-value") {
			t.Errorf("%s holds a property value in clear after state push", p)
		}
	}

	// Rotate: the new passphrase is the key, the old one the fallback.
	k.config(t, "encryption: { key: passphrase, fallback: { key: passphrase } }\n")
	k.env["KYKU_STATE_PASSPHRASE_FALLBACK"] = k.env["KYKU_STATE_PASSPHRASE"]
	k.env["KYKU_STATE_PASSPHRASE"] = "the second passphrase, long"
	if code, out, errOut := k.run("", "state", "rekey"); code != 0 {
		t.Fatalf("state rekey with a fallback: exit %d\n%s%s", code, out, errOut)
	}
	k.config(t, "encryption: { key: passphrase }\n")
	delete(k.env, "KYKU_STATE_PASSPHRASE_FALLBACK")
	if code, _, errOut := k.run("", "plan"); code != 0 {
		t.Fatalf("plan with the new passphrase after rotation: %s", errOut)
	}
	k.env["KYKU_STATE_PASSPHRASE"] = "the first passphrase, long"
	if code, _, errOut := k.run("", "plan"); code != 1 || !strings.Contains(errOut, "KYKU_STATE_PASSPHRASE is not the one it was sealed with") {
		t.Errorf("plan with the retired passphrase: exit %d %s", code, errOut)
	}
	delete(k.env, "KYKU_STATE_PASSPHRASE")
	if code, _, errOut := k.run("", "plan"); code != 1 || !strings.Contains(errOut, "KYKU_STATE_PASSPHRASE is not set") {
		t.Errorf("plan without the passphrase: exit %d %s", code, errOut)
	}
}
