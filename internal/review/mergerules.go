package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/github"
)

// A merge is never judged by the rules it brings: the rules that judge it
// are the default branch's from before the merge. CheckMergeRules is the
// one check, for both front doors; each says what it knows of where its
// rules were read (MergeRules):
//
//   - the Action's rules are its inputs, from the workflow file the run
//     started from: read at the merge's own commit, so they hold the pull
//     request's changes, and are compared with the workflow at the push's
//     "before" commit (or the merge group's base);
//   - the bot's rules (settings, policies) are read at a merge commit's
//     first parent, which must not already hold the pull request's rule
//     files; for a squash or rebase merge, whose parent may be the pull
//     request's own commit, they are read at the merge commit itself, and
//     a pull request that changes one is refused (there is nothing from
//     before the merge to compare with).

// MaxListedFiles is how many changed files GitHub lists for a pull request
// at most: a longer list may hide a rule file.
const MaxListedFiles = 3000

// MergeRules is what a front door knows of where the rules judging a
// merge were read (Deps.MergeRules).
type MergeRules struct {
	// DefaultBranch is the repository's: only a merge into it is applied.
	DefaultBranch string
	// Unknown, when set, says what the front door lacks to tell where its
	// rules came from ("The event names no commit of the default branch
	// from before this merge"): the merge is refused, saying so.
	Unknown string
	// At is the commit the rules were read at.
	At string
	// Before is a commit of the default branch from before the merge that
	// the front door trusts ("" when it has none): the rule files must
	// hold at At what they held there.
	Before string
	// WithChanges says At holds the pull request's changes (a merge's own
	// commit). Without Before, a pull request that changes a rule file is
	// refused; without WithChanges, At must not already hold a rule file
	// as the pull request's head has it.
	WithChanges bool
	// Files are the rule files always read at At (the Action's workflow).
	Files []string
	// IsRule picks, from the pull request's changed files, those read at
	// At as rules too (nil: none).
	IsRule func(path string) bool
	// Role says what Files are to the rules, for what Kyku says when one
	// differs ("the workflow that runs Kyku: its inputs are the review
	// rules …").
	Role string
}

// Files reads a repository's files: at a commit, and those a pull request
// changes.
type Files interface {
	// FileContent wraps github.ErrNotFound when path is not at ref.
	FileContent(ctx context.Context, path, ref string) ([]byte, error)
	ChangedFiles(ctx context.Context, number int) ([]string, error)
}

// CheckMergeRules says why the merge of pr may not be applied by the
// rules m describes (nil when they are the default branch's from before
// it): pr, as the API gives it, was merged into m.DefaultBranch, and no
// rule file read at m.At is one pr brought.
func CheckMergeRules(ctx context.Context, f Files, m MergeRules, pr *github.PR) (*Refusal, error) {
	switch {
	case pr.BaseRef != m.DefaultBranch:
		return refusal(RequireMergeRules, mergedElsewhereText(pr.Number, pr.BaseRef, m.DefaultBranch)), nil
	case m.Unknown != "":
		return refusal(RequireMergeRules, unknownRulesText(m.Unknown)), nil
	case m.At == "":
		return refusal(RequireMergeRules, mergeCommitUnknownText), nil
	}
	files := m.Files
	if m.IsRule != nil {
		changed, err := f.ChangedFiles(ctx, pr.Number)
		if err != nil {
			return nil, fmt.Errorf("list the files of #%d: %w", pr.Number, err)
		}
		if m.WithChanges && m.Before == "" && len(changed) >= MaxListedFiles {
			return refusal(RequireMergeRules, tooManyFilesText(pr.Number)), nil
		}
		for _, c := range changed {
			if m.IsRule(c) {
				files = append(files, c)
			}
		}
	}
	for _, file := range files {
		switch {
		case m.Before != "":
			at, before, err := filesAt(ctx, f, file, m.At, m.Before)
			if err != nil {
				return nil, err
			}
			if at == nil {
				return refusal(RequireMergeRules, unreadableRulesText(file, m.At)), nil
			}
			if before == nil || !bytes.Equal(at, before) {
				return refusal(RequireMergeRules, changesRulesText(file, m.Role)), nil
			}
		case m.WithChanges:
			return refusal(RequireMergeRules, linearMergeText(pr.Number, file)), nil
		default:
			at, head, err := filesAt(ctx, f, file, m.At, pr.HeadSHA)
			if err != nil {
				return nil, err
			}
			if (at == nil) == (head == nil) && bytes.Equal(at, head) {
				return refusal(RequireMergeRules, ownRulesText(file, m.At, head == nil)), nil
			}
		}
	}
	return nil, nil
}

// filesAt is path at ref and at other; nil where it is not there.
func filesAt(ctx context.Context, f Files, path, ref, other string) (atRef, atOther []byte, err error) {
	if atRef, err = fileAt(ctx, f, path, ref); err == nil {
		atOther, err = fileAt(ctx, f, path, other)
	}
	return atRef, atOther, err
}

// fileAt is path at ref; nil when it is not there.
func fileAt(ctx context.Context, f Files, path, ref string) ([]byte, error) {
	data, err := f.FileContent(ctx, path, ref)
	if errors.Is(err, github.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, sha7(ref), err)
	}
	if data == nil {
		data = []byte{} // there, and empty: not the same as gone
	}
	return data, nil
}
