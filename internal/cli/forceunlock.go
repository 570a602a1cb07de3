package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// forceUnlockQuestion is what force-unlock asks before it removes a lock
// (%s: the backend).
const forceUnlockQuestion = `Do you really want to force-unlock?
  Kyku will remove the lock on the state in %s.
  Another run may still be using it: remove only the lock of a run that is dead.
  Only 'yes' will be accepted to confirm.

  Enter a value: `

// errNoAnswer is force-unlock's refusal when nobody answers its question.
var errNoAnswer = errors.New("force-unlock: nobody answered the confirmation (no input); the lock is kept. Run it with --force to remove the lock without asking")

// cmdForceUnlock removes a lock whose token the user names, after asking
// (as Terraform does): only "yes" goes on, --force skips the question, and
// no input at all (CI) refuses. A token that is not the lock's is refused
// without revealing the lock's.
func cmdForceUnlock(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("force-unlock", env)
	var c common
	c.register(fs, env)
	force := fs.Bool("force", false, "remove the lock without asking for confirmation")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("force-unlock needs the lock's token (shown in the lock message)")
	}
	b, err := c.openBackend(ctx, env, "force-unlock")
	if err != nil {
		return err
	}
	if err := refuseLeaseToken(ctx, b, c.env, pos[0]); err != nil {
		return err
	}
	if !*force {
		fmt.Fprintf(env.Stdout, forceUnlockQuestion, b.Describe())
		answer, err := bufio.NewReader(env.Stdin).ReadString('\n')
		fmt.Fprintln(env.Stdout)
		if errors.Is(err, io.EOF) && answer == "" {
			return errNoAnswer
		}
		if strings.TrimSpace(answer) != "yes" {
			fmt.Fprintln(env.Stdout, "Force-unlock cancelled.")
			return exitCode(exitError)
		}
	}
	if err := b.ForceUnlock(ctx, pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Lock %s removed from %s.\n", pos[0], b.Describe())
	return nil
}
