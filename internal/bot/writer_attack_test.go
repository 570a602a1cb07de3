package bot_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestCommandInCodeIsNotRun (issue 20, attack 8): a writer pastes
// `/kyku apply` in code or a quote — indented, tab-indented, in <pre>,
// <code>, a code span over lines, a quote's lazy continuation, an HTML
// comment. The bot answers 200 "no /kyku command" from the payload
// alone: no API call, no job, nothing applied.
func TestCommandInCodeIsNotRun(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for i, body := range []string{
		"To ship it, comment:\n\n    /kyku apply\n",
		"\t/kyku apply",
		"  \t/kyku apply -e prod",
		"<pre>\n/kyku apply\n</pre>",
		"Output:<pre>\n/kyku apply</pre>",
		"<code>\n/kyku apply\n</code>",
		"Run `\n/kyku apply\n` once approved",
		"> the author said:\n/kyku apply",
		"<!-- reminder\n/kyku apply\n-->",
		"```\n/kyku apply\n```",
	} {
		code, msg := h.post("issue_comment", "code-"+string(rune('a'+i)), commentOn(t, 2, "author", "User", body, int64(700+i)), "")
		if code != http.StatusOK || !strings.Contains(msg, "no /kyku command") {
			t.Errorf("%q: %d %q, want 200 ignored: no /kyku command", body, code, msg)
		}
	}
	h.settle()
	if reqs := h.gh.Requests(); len(reqs) != 0 {
		t.Errorf("commands in code caused %d API calls: %+v", len(reqs), reqs)
	}
	if cloud := h.cloudObjects(); len(cloud) != 0 {
		t.Errorf("the cloud holds %v", cloud)
	}
}
