package cli

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

func TestZZProf(t *testing.T) {
	dir := os.Getenv("PROF_DIR")
	if dir == "" {
		t.Skip()
	}
	args := strings.Fields(os.Getenv("PROF_ARGS"))
	n := 10
	for i := 0; i < n; i++ {
		env := Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: os.Stderr, Getenv: os.Getenv, Providers: provider.Registry{"sim": sim.Factory}}
		for _, d := range strings.Fields(os.Getenv("PROF_CLEAN")) {
			os.RemoveAll(d)
		}
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		if code := Run(context.Background(), args, env); code != 0 {
			t.Fatalf("exit %d", code)
		}
	}
}
