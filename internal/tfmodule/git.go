package tfmodule

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
)

// Git runs the git program for git:: sources, as go-getter's git getter
// does: a clone, a checkout of the ref argument (a branch, a tag or a
// commit), the submodules. Only https and ssh are spoken, by git itself
// too (its protocol.allow settings: redirects and submodules included).
type Git struct {
	// Program is git's path ("": "git", found on PATH).
	Program string
	// Env is the whole environment of git (HOME, PATH, SSH_AUTH_SOCK,
	// credential helpers' settings…); nothing else is passed on.
	// GIT_TERMINAL_PROMPT=0 is added: nothing waits for a person.
	Env []string
}

// gitSafety is set on every git command, before anything the
// environment sets: only https and ssh, at every step.
var gitSafety = [...]string{
	"-c", "protocol.allow=never",
	"-c", "protocol.https.allow=always",
	"-c", "protocol.ssh.allow=always",
}

// run runs git with args in dir.
func (g Git) run(ctx context.Context, dir string, args ...string) (string, error) {
	prog := g.Program
	if prog == "" {
		prog = "git"
	}
	cmd := exec.CommandContext(ctx, prog, append(gitSafety[:], args...)...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), g.Env...), "GIT_TERMINAL_PROMPT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("git must be available and on the PATH to install git:: modules: %w", err)
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "…"
		}
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, msg)
	}
	return stdout.String(), nil
}

// get clones the repository u names into dst.
func (g Git) get(ctx context.Context, u *url.URL, dst string) error {
	switch u.Scheme {
	case "https", "ssh":
	case "http", "git", "file":
		return fmt.Errorf("%w: git over %s (%s): Kyku fetches git modules over https and ssh only", ErrInsecure, u.Scheme, u.Redacted())
	default:
		return fmt.Errorf("%w: git over %q", ErrUnsupported, u.Scheme)
	}
	if strings.HasPrefix(u.Hostname(), "-") || u.Hostname() == "" {
		return fmt.Errorf("invalid git host in %s", u.Redacted())
	}
	if port := u.Port(); port != "" {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return fmt.Errorf("invalid port number %q; if using the \"scp-like\" git address scheme where a colon introduces the path instead, remove the ssh:// portion and use just the git:: prefix", port)
		}
	}
	q := u.Query()
	ref := q.Get("ref")
	if q.Has("sshkey") {
		return errors.New("the sshkey argument puts a private key in the configuration, in clear text: give git the key another way (an ssh agent, GIT_SSH_COMMAND)")
	}
	depth := 0
	if n, err := strconv.Atoi(q.Get("depth")); err == nil {
		depth = n
	}
	if ref != "" && (strings.HasPrefix(ref, "-") || strings.ContainsFunc(ref, func(r rune) bool { return r < ' ' || r == 0x7f })) {
		return fmt.Errorf("invalid ref %q", ref)
	}
	q.Del("ref")
	q.Del("depth")
	repo := *u
	repo.RawQuery = q.Encode()

	args := []string{"clone"}
	if depth > 0 {
		branch := ref
		if branch == "" {
			branch = g.defaultBranch(ctx, repo.String())
		}
		args = append(args, "--depth", strconv.Itoa(depth), "--branch", branch)
	}
	args = append(args, "--", repo.String(), dst)
	if _, err := g.run(ctx, "", args...); err != nil {
		if depth > 0 && looksLikeCommit(ref) {
			return fmt.Errorf("%w (note that setting 'depth' requires 'ref' to be a branch or tag name)", err)
		}
		return err
	}
	if depth <= 0 && ref != "" {
		if err := g.checkout(ctx, dst, ref); err != nil {
			return err
		}
	}
	sub := []string{"submodule", "update", "--init", "--recursive"}
	if depth > 0 {
		sub = append(sub, "--depth", strconv.Itoa(depth))
	}
	if _, err := g.run(ctx, dst, sub...); err != nil {
		return err
	}
	return checkLinks(dst)
}

// checkout checks out ref: a commit, a branch of origin or a tag.
func (g Git) checkout(ctx context.Context, dir, ref string) error {
	for _, c := range []string{ref, "refs/remotes/origin/" + ref, "refs/tags/" + ref} {
		out, err := g.run(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", c+"^{commit}")
		if err == nil {
			_, err := g.run(ctx, dir, "checkout", "--quiet", strings.TrimSpace(out))
			return err
		}
	}
	return fmt.Errorf("invalid ref: %q", ref)
}

// defaultBranch is the remote's HEAD branch ("master" when it says none).
func (g Git) defaultBranch(ctx context.Context, repo string) string {
	out, err := g.run(ctx, "", "ls-remote", "--symref", "--", repo, "HEAD")
	if err != nil {
		return "master"
	}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "ref: refs/heads/"); ok {
			if b, _, ok := strings.Cut(rest, "\t"); ok {
				return b
			}
		}
	}
	return "master"
}

// looksLikeCommit: 7 to 40 hexadecimal digits.
func looksLikeCommit(s string) bool {
	if len(s) < 7 || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
