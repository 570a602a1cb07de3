package cli

import "testing"

// TestAnswerDir: the journal keepers' answers for remote states are kept
// in the user's state directory (XDG_STATE_HOME, else ~/.local/state),
// never a relative one (the checkout); none without either.
func TestAnswerDir(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/kyku/answers"},
		{"HOME", map[string]string{"HOME": "/h"}, "/h/.local/state/kyku/answers"},
		{"a relative XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": ".kyku", "HOME": "/h"}, "/h/.local/state/kyku/answers"},
		{"neither", map[string]string{"HOME": "home"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := answerDir(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("answerDir = %q, want %q", got, tt.want)
			}
		})
	}
}
