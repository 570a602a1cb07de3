// Command tofunorm normalises OpenTofu's JSON for the corpus goldens
// (.ci/record-tofu-goldens): it reads `tofu show -json` output or a state
// file on stdin and writes tfcorpus.Normalize of it to stdout.
//
//	tofunorm -workdir DIR < plan.json > tofu-plan.json
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kyku/action/internal/tfcorpus"
)

func main() {
	workdir := flag.String("workdir", "", "the directory OpenTofu ran in, replaced by "+tfcorpus.WorkdirPlaceholder)
	flag.Parse()
	if err := run(*workdir, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tofunorm:", err)
		os.Exit(1)
	}
}

func run(workdir string, in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	norm, err := tfcorpus.Normalize(data, workdir)
	if err != nil {
		return err
	}
	if _, err := out.Write(norm); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	return nil
}
