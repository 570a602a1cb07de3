package httpstate_test

import (
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
