package workspace

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/statemgr/gcs"
)

// TestGCSCredentialsAreGiven: a gcs backend takes its credentials from
// Settings.Google, asked for the storage scope; without them a real bucket
// is refused as needing a library this program does not link, and an
// emulator's bucket (STORAGE_EMULATOR_HOST), which takes none, opens.
func TestGCSCredentialsAreGiven(t *testing.T) {
	var asked [][]string
	google := gcs.Credentials(func(_ context.Context, scopes ...string) (*http.Client, error) {
		asked = append(asked, scopes)
		return &http.Client{}, nil
	})
	emulator := func(k string) string {
		if k == "STORAGE_EMULATOR_HOST" {
			return "127.0.0.1:1"
		}
		return ""
	}
	none := func(string) string { return "" }
	bc := &config.Backend{Type: "gcs", Bucket: "kyku-state"}
	for _, c := range []struct {
		name      string
		google    gcs.Credentials
		getenv    func(string) string
		notLinked bool
		asked     [][]string
	}{
		{name: "credentials given", google: google, getenv: none, asked: [][]string{{"https://www.googleapis.com/auth/devstorage.read_write"}}},
		{name: "none, a real bucket", getenv: none, notLinked: true},
		{name: "none, an emulator", getenv: emulator},
		{name: "given, an emulator", google: google, getenv: emulator},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked = nil
			_, err := OpenBackend(t.Context(), bc, Settings{Env: "default", Getenv: c.getenv, Google: c.google})
			var nl *NotLinkedError
			switch {
			case c.notLinked && (!errors.As(err, &nl) || !strings.Contains(err.Error(), "the gcs backend needs the Google credentials library")):
				t.Fatalf("err = %v, want the gcs backend refused as not linked", err)
			case !c.notLinked && err != nil:
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.asked, asked); diff != "" {
				t.Errorf("scopes asked of Settings.Google (-want +got):\n%s", diff)
			}
		})
	}
}
