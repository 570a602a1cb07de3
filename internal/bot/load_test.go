package bot_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestLoadBurstOf500Deliveries posts 500 signed `/kyku help` comments (on
// 500 pull requests, distinct delivery IDs) at once over loopback. Every
// one must be answered 202 within GitHub's 10 s, and every job must run
// exactly once: 500 comment jobs, and one help reply on each PR.
func TestLoadBurstOf500Deliveries(t *testing.T) {
	const n = 500
	h := newHarness(t, harnessOpts{workers: 8})
	bodies := make([][]byte, n)
	for i := range n {
		h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 1000 + i, User: "author", HeadSHA: headA})
		bodies[i] = commentOn(t, 1000+i, "someone", "User", "/kyku help", int64(50_000+i))
	}
	latencies := make([]time.Duration, n)
	codes := make([]int, n)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", h.http.URL+"/webhook", strings.NewReader(string(bodies[i])))
			req.Header.Set("X-GitHub-Event", "issue_comment")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("load-%d", i))
			req.Header.Set("X-Hub-Signature-256", sign(bodies[i]))
			t0 := time.Now()
			resp, err := client.Do(req)
			latencies[i] = time.Since(t0)
			if err != nil {
				t.Errorf("delivery %d: %v", i, err)
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	answered := time.Since(start)
	h.settle()
	total := time.Since(start)

	for i, c := range codes {
		if c != http.StatusAccepted {
			t.Errorf("delivery %d answered %d, want 202", i, c)
		}
	}
	slices.Sort(latencies)
	p99, worst := latencies[n*99/100-1], latencies[n-1]
	if worst > 10*time.Second {
		t.Errorf("slowest 202 took %s, over GitHub's 10 s", worst)
	}
	m := h.metrics()
	if got := m[`kyku_bot_jobs_total{kind="comment",outcome="answered"}`]; got != n {
		t.Errorf("%v comment jobs answered, want %d (each exactly once)", got, n)
	}
	for i := range n {
		if c := h.botComments(1000 + i); len(c) != 1 {
			t.Fatalf("PR #%d has %d bot replies, want 1", 1000+i, len(c))
		}
	}
	t.Logf("%d deliveries: all 202 after %s (p50 %s, p99 %s, max %s); all %d jobs done after %s",
		n, answered.Round(time.Millisecond), latencies[n/2].Round(time.Millisecond), p99.Round(time.Millisecond),
		worst.Round(time.Millisecond), n, total.Round(time.Millisecond))
}
