package workspace

import (
	"errors"
	"strings"
	"testing"
)

// TestTerraformGCSCredentialsAreGiven: a Terraform root's gcs backend
// follows the gcs backend's one rule: without Settings.Google a real
// bucket is refused in one line as needing a library this program does
// not link, and an emulator's bucket, which takes no credentials, opens.
func TestTerraformGCSCredentialsAreGiven(t *testing.T) {
	for _, c := range []struct {
		name      string
		emulator  string
		notLinked bool
	}{
		{"none, a real bucket", "", true},
		{"none, an emulator", "127.0.0.1:1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "STORAGE_EMULATOR_HOST" {
					return c.emulator
				}
				return ""
			}
			ts := &TerraformState{Type: "gcs", Args: map[string]any{"bucket": "kyku-state", "prefix": "infra"}, Dir: t.TempDir(), Where: "main.tf:2:3"}
			_, err := OpenTerraformBackend(t.Context(), ts, Settings{Env: "default", Getenv: getenv})
			var nl *NotLinkedError
			switch {
			case c.notLinked && (!errors.As(err, &nl) || !strings.Contains(err.Error(), "the gcs backend needs the Google credentials library") ||
				strings.Contains(err.Error(), "no usable Google credentials")):
				t.Fatalf("err = %v, want the gcs backend refused as not linked, in one line", err)
			case !c.notLinked && err != nil:
				t.Fatal(err)
			}
		})
	}
}
