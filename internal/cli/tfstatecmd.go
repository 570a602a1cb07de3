package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kyku/action/internal/statemgr/tflayout"
)

// tfStatePull is kyku state pull on a Terraform root's state: what
// `tofu state pull` prints, byte for byte (nothing when a local state is
// not there).
func tfStatePull(ctx context.Context, env *Env, b *tflayout.Backend) error {
	data, err := b.Pull(ctx)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(data)
	return err
}

// tfStatePush is kyku state push FILE on a Terraform root's state: a
// state in OpenTofu's format ("-": read from stdin, as tofu's) pushed
// under the lock with tofu state push's rules (tflayout.Backend.Push).
func tfStatePush(ctx context.Context, env *Env, b *tflayout.Backend, src string, force bool, lock func() (func(), error)) error {
	var data []byte
	var err error
	if src == "-" {
		data, err = io.ReadAll(env.Stdin)
	} else {
		data, err = os.ReadFile(src)
	}
	if err != nil {
		return fmt.Errorf("read state to push: %w", err)
	}
	unlock, err := lock()
	if err != nil {
		return err
	}
	defer unlock()
	res, err := b.Push(ctx, src, data, force)
	if err != nil {
		return err
	}
	if !res.Written {
		fmt.Fprintf(env.Stdout, "%s is the state in %s (serial %d): nothing to push.\n", src, b.Describe(), res.Serial)
		return nil
	}
	backup := "no state to back up"
	if res.BackupKey != "" {
		backup = "backup " + res.BackupKey
	}
	fmt.Fprintf(env.Stdout, "Pushed %s to %s (serial %d, %s).\n", src, b.Describe(), res.Serial, backup)
	return nil
}

// tfStateRestore is kyku state restore KEY on a Terraform root's state:
// the Terraform state kept with the backup, written back as it was (its
// serial raised). done is false when the backup keeps none (made before
// Kyku kept one): the caller restores it through Kyku's model.
func tfStateRestore(ctx context.Context, env *Env, b *tflayout.Backend, key string, lock func() (func(), error)) (done bool, err error) {
	unlock, err := lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	res, err := b.Restore(ctx, key)
	if errors.Is(err, tflayout.ErrNoRawBackup) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	fmt.Fprintf(env.Stdout, "Restored %s (now serial %d, backup %s).\n", key, res.Serial, res.BackupKey)
	return true, nil
}
