package action

import (
	"slices"
	"testing"

	githubactions "github.com/sethvargo/go-githubactions"
)

// TestParallelismInputMustBePositive: the parallelism input is refused,
// naming the input and its value, unless it is a whole number of at least
// 1, as the CLI's --parallelism is; 0 is not taken as the default.
func TestParallelismInputMustBePositive(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  int // 0: refused
	}{
		{"", 10}, {"1", 1}, {"32", 32},
		{"0", 0}, {"-1", 0}, {"-10", 0}, {"many", 0}, {"1.5", 0},
	} {
		t.Run(tt.value, func(t *testing.T) {
			env := map[string]string{}
			if tt.value != "" {
				env["INPUT_PARALLELISM"] = tt.value
			}
			a := githubactions.New(githubactions.WithGetenv(func(k string) string { return env[k] }))
			in, problems := readInputs(a)
			refused := slices.Contains(problems, `input parallelism: "`+tt.value+`" is not a positive number`)
			switch {
			case tt.want == 0 && !refused:
				t.Errorf("parallelism %q accepted (%d); problems %q", tt.value, in.Parallelism, problems)
			case tt.want != 0 && (refused || in.Parallelism != tt.want):
				t.Errorf("parallelism %q: %d, problems %q; want %d", tt.value, in.Parallelism, problems, tt.want)
			}
		})
	}
}
