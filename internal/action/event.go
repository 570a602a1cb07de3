package action

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// event is the part of a webhook payload the Action reads.
type event struct {
	Action     string `json:"action"`
	Ref        string `json:"ref"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Deleted    bool   `json:"deleted"`
	Sender     user   `json:"sender"`
	Repository struct {
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
	PullRequest *pullRequest `json:"pull_request"`
	Issue       *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	MergeGroup *struct {
		HeadSHA string `json:"head_sha"`
		HeadRef string `json:"head_ref"`
		BaseSHA string `json:"base_sha"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
	Comment *struct {
		ID   int64  `json:"id"`
		Body string `json:"body"`
		User user   `json:"user"`
		// CreatedAt is when GitHub says the comment was posted
		// (review.CommentEvent.CommentedAt).
		CreatedAt time.Time `json:"created_at"`
	} `json:"comment"`
}

type user struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type pullRequest struct {
	Number int  `json:"number"`
	User   user `json:"user"`
	Head   struct {
		SHA  string `json:"sha"`
		Repo *struct {
			FullName string `json:"full_name"`
		} `json:"repo"`
	} `json:"head"`
	Base struct {
		Repo struct {
			FullName string `json:"full_name"`
		} `json:"repo"`
	} `json:"base"`
}

// fromFork reports whether the pull request comes from another repository
// (a fork, or a deleted one): its runs get a read-only token and no
// secrets.
func (pr *pullRequest) fromFork() bool {
	return pr.Head.Repo == nil || !strings.EqualFold(pr.Head.Repo.FullName, pr.Base.Repo.FullName)
}

// readEvent reads the payload at path (GITHUB_EVENT_PATH).
func readEvent(path string) (*event, error) {
	if path == "" {
		return nil, fmt.Errorf("read event: GITHUB_EVENT_PATH is not set (is this running in GitHub Actions?)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read event: %w", err)
	}
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("read event %s: %w", path, err)
	}
	return &ev, nil
}
