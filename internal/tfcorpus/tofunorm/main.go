// Command tofunorm normalises OpenTofu's JSON for the corpus goldens
// (.ci/record-tofu-goldens): it reads `tofu show -json` output or a state
// file on stdin and writes tfcorpus.Normalize of it to stdout; with
// -diagnostics it reads the lines of `tofu plan -json` and writes the
// errors among them (tfcorpus.TofuDiagnostics).
//
//	tofunorm -workdir DIR < plan.json > tofu-plan.json
//	tofunorm -workdir DIR -diagnostics < plan-lines.json > tofu-diagnostics.json
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
	diagnostics := flag.Bool("diagnostics", false, "read tofu plan -json lines and write their errors")
	flag.Parse()
	norm := tfcorpus.Normalize
	if *diagnostics {
		norm = tfcorpus.TofuDiagnostics
	}
	if err := run(norm, *workdir, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tofunorm:", err)
		os.Exit(1)
	}
}

func run(norm func([]byte, string) ([]byte, error), workdir string, in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	doc, err := norm(data, workdir)
	if err != nil {
		return err
	}
	if _, err := out.Write(doc); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	return nil
}
