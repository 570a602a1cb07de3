package cli

import "path/filepath"

// answerDir is where this machine keeps the journal keepers' answers for
// remote states (workspace.Settings.AnswerDir): the user's state
// directory (XDG_STATE_HOME, else ~/.local/state), kyku/answers. Not the
// root's .kyku/: that is in a checkout a pull request writes. "" when
// neither variable names an absolute directory.
func answerDir(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "kyku", "answers")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "kyku", "answers")
	}
	return ""
}
