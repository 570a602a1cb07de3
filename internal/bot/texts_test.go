package bot

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/golden"
)

var checkText = golden.CheckRunOf

// TestRepliesGolden: the bot's own texts — bad settings, a command for
// no target, a merge whose rules cannot be told, a promotion stopped:
// testdata/replies.md.
func TestRepliesGolden(t *testing.T) {
	var doc golden.Sections
	bad := diag.Diagnostics{{Pos: diag.Pos{File: settings.Path, Line: 3, Col: 1}, Message: `unknown key "aply" in settings (known: projects, apply)`}}
	doc.Add(t, "settings check", checkText(settingsCheck(bad)))
	doc.Add(t, "settings unreadable", settingsProblem(errors.New("read settings: 502 Bad Gateway `x`")))
	doc.Add(t, "settings of a merge", settingsMergeReply(bad))
	doc.Add(t, "merge parents unreadable", mergeRefsReply(fmt.Errorf("merge commit %s has no parent", "f0e1d2c")))
	s := settings.Defaults()
	s.Projects = []settings.Project{{Name: "infra", Config: "infra", Environments: []string{"staging", "prod"}}, {Name: "dns", Config: "dns.yaml", Environments: []string{""}}}
	doc.Add(t, "no target", noTargetReply(command.Command{Name: command.Apply, Env: "qa"}, s))
	doc.Add(t, "promotion stopped, one left", promotionStoppedReply("infra/staging", []string{"infra/prod"}))
	doc.Add(t, "promotion stopped, two left", promotionStoppedReply("infra/dev", []string{"infra/staging", "infra/prod"}))
	golden.Check(t, "replies.md", doc.String())
}
