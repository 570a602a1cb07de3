package workspace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestAnswerBoxOfARemoteState: a remote state's answers are kept under
// Settings.AnswerDir, in a directory of that state's own (another
// address, another workspace: another directory); a local state keeps
// its own beside it, and none is given without an AnswerDir.
func TestAnswerBoxOfARemoteState(t *testing.T) {
	home := t.TempDir()
	remote := func(addr string) statemgr.Backend {
		b, err := httpstate.New(httpstate.Config{Address: addr}, "", httpstate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dir := func(b statemgr.Backend, s Settings) string {
		box := answerBox(b, s)
		if box == nil {
			return ""
		}
		return strings.TrimSuffix(box.AnswerPath("x"), string(filepath.Separator)+filepath.Base(box.AnswerPath("x")))
	}
	a := dir(remote("https://state.example/a"), Settings{AnswerDir: home})
	if q1, q2 := dir(remote("https://state.example/a?name=app1"), Settings{AnswerDir: home}), dir(remote("https://state.example/a?name=app2"), Settings{AnswerDir: home}); q1 == q2 {
		t.Errorf("?name=app1 and ?name=app2 share the box %q", q1)
	}
	if filepath.Dir(a) != home {
		t.Fatalf("a remote state's box %q, want one under %s", a, home)
	}
	for name, other := range map[string]string{
		"another address":   dir(remote("https://state.example/b"), Settings{AnswerDir: home}),
		"another workspace": dir(remote("https://state.example/a"), Settings{AnswerDir: home, Env: "staging"}),
		// Describe redacts query values: ?name=app1 and ?name=app2 would
		// be one state's box, and one state's apply would fold or drop
		// the other's answers.
		"another query": dir(remote("https://state.example/a?name=app2"), Settings{AnswerDir: home}),
	} {
		if other == a || other == "" {
			t.Errorf("%s: box %q, want one of its own beside %q", name, other, a)
		}
	}
	if again := dir(remote("https://state.example/a"), Settings{AnswerDir: home}); again != a {
		t.Errorf("the same state's box %q, then %q", a, again)
	}
	if got := dir(remote("https://state.example/a"), Settings{}); got != "" {
		t.Errorf("without AnswerDir: box %q, want none", got)
	}
	if got := answerBox(local.New(t.TempDir(), "", local.Options{}), Settings{AnswerDir: home}); got != nil {
		t.Errorf("a local state got this machine's box %v: it keeps its own beside it", got)
	}
}
