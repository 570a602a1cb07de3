package httpstate_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// TestNoAnswerBoxBesideARemoteState: an http state's additions are kept
// in a local aside (the root's .kyku/, in a checkout a pull request may
// write), but no journal keeper's answers are read from there: the box
// is only beside a state file on this machine.
func TestNoAnswerBoxBesideARemoteState(t *testing.T) {
	b, err := httpstate.NewTerraform(httpstate.Config{Address: "http://127.0.0.1:1/state"}, "",
		local.New(t.TempDir(), "", local.Options{}), tflayout.Options{}, httpstate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if box := b.AnswerBox(); box != nil {
		t.Errorf("an http state's aside gives an answer box (%T): a checkout's files would be folded into the state", box)
	}
}

// TestIdentityTellsQueriesApart: two Terraform http states whose
// addresses differ only in a query value (which Describe redacts) have
// two identities, the names of their answer boxes on this machine; the
// password is not part of it.
func TestIdentityTellsQueriesApart(t *testing.T) {
	identity := func(addr string) string {
		b, err := httpstate.NewTerraform(httpstate.Config{Address: addr}, "",
			local.New(t.TempDir(), "", local.Options{}), tflayout.Options{}, httpstate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b.Identity()
	}
	app1, app2 := identity("https://st.example/tf?name=app1"), identity("https://st.example/tf?name=app2")
	if app1 == app2 {
		t.Errorf("?name=app1 and ?name=app2 are one identity, %q", app1)
	}
	if got := identity("https://u:secret@st.example/tf"); strings.Contains(got, "secret") {
		t.Errorf("identity %q holds the password", got)
	}
}
