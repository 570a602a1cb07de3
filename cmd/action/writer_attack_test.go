package main

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// byLogin are the bodies of the comments on number written as login.
func byLogin(srv *githubtest.Server, number int, login string) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range srv.Comments(repoName, number) {
		if c.User == login {
			out = append(out, c)
		}
	}
	return out
}

// TestBinaryKnowsWhoItWritesAs (issue 20, attack 3): the Action with the
// workflow's GITHUB_TOKEN, a GitHub App's installation token (GET /user
// answers 403 to it) and a personal token. Each time it finds the account
// it writes as from the token itself, keeps ONE sticky plan comment across
// runs, and finds it again for /kyku apply. With a token other than
// GITHUB_TOKEN, a look-alike comment any pull request's workflow can post
// as github-actions[bot] — Kyku's marker, a plan of its own — is never
// edited nor read. An input github-login naming the wrong account fails on
// the first comment instead of taking another account's comments for
// Kyku's.
func TestBinaryKnowsWhoItWritesAs(t *testing.T) {
	for _, tc := range []struct {
		name, token, login string
	}{
		{"GITHUB_TOKEN", githubtest.Token, githubtest.TokenUser},
		{"app installation token", "ghs_deploy_app_installation", "deploy-app[bot]"},
		{"personal token", "ghp_release_manager", "release-manager"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, twoVms)
			srv.AddToken(tc.token, tc.login)
			srv.SetPermission(repoName, "octocat", "write")
			srv.SetPermission(repoName, author, "write")
			r := newRunner(t, srv)
			r.checkout(config)
			tok := "INPUT_GITHUB-TOKEN=" + tc.token
			var lookalike int64
			for i, action := range []string{"opened", "synchronize"} {
				got := r.run("pull_request", r.event(7, head, func(ev map[string]any) map[string]any { ev["action"] = action; return ev }), tok)
				if got.code != 0 {
					t.Fatalf("plan %d: exit %d\n%s", i+1, got.code, got.log)
				}
				if i == 0 && tc.login != githubtest.TokenUser {
					// What a pull request's workflow can post with GITHUB_TOKEN.
					lookalike = srv.AddComment(repoName, 7, githubtest.TokenUser, "<!-- kyku:plan env=dev -->\n### Kyku plan for `dev`\n\n**No changes.**\n"+
						"<!-- kyku:reviewed head="+head+" changes="+strings.Repeat("0", 64)+" -->\n")
				}
			}
			own := byLogin(srv, 7, tc.login)
			if tc.login == githubtest.TokenUser {
				if len(own) != 1 {
					t.Fatalf("%d comments as %s, want one sticky plan comment", len(own), tc.login)
				}
			} else if len(own) != 1 || !strings.Contains(own[0].Body, "kyku:plan") {
				t.Fatalf("comments as %s: %+v, want one sticky plan comment", tc.login, own)
			}
			if lookalike != 0 {
				for _, c := range srv.Comments(repoName, 7) {
					if c.ID == lookalike && c.Editor != "" {
						t.Errorf("the look-alike was edited by %s", c.Editor)
					}
				}
			}
			srv.AddReview(repoName, 7, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: head})
			got := r.run("issue_comment", r.comment(7, author, "/kyku apply", 91), tok, "GITHUB_ACTOR="+author)
			if got.code != 0 || len(r.cloud()) != 2 {
				t.Fatalf("/kyku apply: exit %d, cloud %v\n%s\nreplies: %+v", got.code, r.cloud(), got.log, byLogin(srv, 7, tc.login))
			}
		})
	}

	t.Run("github-login naming another account", func(t *testing.T) {
		srv := newServer(t, config)
		srv.AddToken("ghs_deploy_app_installation", "deploy-app[bot]")
		srv.AddComment(repoName, 7, githubtest.TokenUser, "<!-- kyku:plan env=dev -->\nNo changes, merge away.\n")
		r := newRunner(t, srv)
		r.checkout(config)
		for _, deny := range []bool{false, true} {
			if deny {
				// The token cannot tell: the first comment Kyku creates does.
				srv.DenyGraphQL("deploy-app[bot]")
				srv.AddComment(repoName, 7, "Codertocat", "unrelated")
			}
			got := r.run("pull_request", r.event(7, head, nil), "INPUT_GITHUB-TOKEN=ghs_deploy_app_installation", "INPUT_GITHUB-LOGIN=octocat")
			if got.code != 1 || (!strings.Contains(got.log, "github-token writes as deploy-app[bot]") && !strings.Contains(got.log, "GitHub says deploy-app[bot] wrote it, not octocat")) {
				t.Errorf("GraphQL denied %v: exit %d, want 1 saying who really writes; log:\n%s", deny, got.code, got.log)
			}
		}
		for _, c := range srv.Comments(repoName, 7) {
			if c.User == githubtest.TokenUser && c.Editor != "" {
				t.Errorf("github-actions[bot]'s comment was edited: %+v", c)
			}
		}
	})
}

// TestBinaryEditedPlanComment (issue 20, attack 1, the Action): the author
// edits Kyku's plan comment into a harmless one, keeping its hidden lines;
// /kyku apply is refused, saying who edited it, and nothing is applied.
func TestBinaryEditedPlanComment(t *testing.T) {
	srv := newServer(t, twoVms)
	srv.SetPermission(repoName, "octocat", "write")
	srv.SetPermission(repoName, author, "write")
	r := newRunner(t, srv)
	r.checkout(config)
	if got := r.run("pull_request", r.event(7, head, nil)); got.code != 0 {
		t.Fatalf("plan: exit %d\n%s", got.code, got.log)
	}
	plan := byLogin(srv, 7, githubtest.TokenUser)[0]
	var hidden []string
	for _, l := range strings.Split(plan.Body, "\n") {
		if strings.HasPrefix(l, "<!-- kyku:") {
			hidden = append(hidden, l)
		}
	}
	srv.EditComment(repoName, plan.ID, author, strings.Join(hidden, "\n")+"\n### Kyku plan for `dev`\n\n**No changes.**\n")
	srv.AddReview(repoName, 7, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: head})
	got := r.run("issue_comment", r.comment(7, author, "/kyku apply", 92), "GITHUB_ACTOR="+author)
	if got.code != 0 {
		t.Errorf("a refused /kyku apply: exit %d, want 0\n%s", got.code, got.log)
	}
	wantIn(t, "reply", r.lastReply(7), "refused", "was edited by `"+author+"` at ", "Comment `/kyku plan -e dev` to re-plan")
	if c := r.cloud(); len(c) != 0 {
		t.Errorf("applied behind an edited plan comment: %v", c)
	}
}
