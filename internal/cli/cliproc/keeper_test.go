package cliproc

import (
	"testing"

	"github.com/kyku/action/internal/tfplugin"
)

// TestJournalKeeperOnByDefault: the Terraform providers go through a
// journal keeper (this executable with tfplugin.KeeperArg) unless
// KYKU_JOURNAL_KEEPER=0 turns it off, in kyku and kyku-engine alike.
func TestJournalKeeperOnByDefault(t *testing.T) {
	for _, tt := range []struct {
		env  string
		want bool
	}{
		{"", true}, {"1", true}, {"yes", true}, {"0", false},
	} {
		t.Run("KYKU_JOURNAL_KEEPER="+tt.env, func(t *testing.T) {
			got := KeeperCommand(func(k string) string {
				if k == "KYKU_JOURNAL_KEEPER" {
					return tt.env
				}
				return ""
			})
			if !tt.want {
				if got != nil {
					t.Errorf("keeper %q, want none", got)
				}
				return
			}
			if len(got) != 2 || got[1] != tfplugin.KeeperArg {
				t.Fatalf("keeper %q, want this executable with %s", got, tfplugin.KeeperArg)
			}
		})
	}
}
