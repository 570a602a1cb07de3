package hetzner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/retry"
)

// retryCodes are the API's "try again" answers: another action holds the
// resource (locked), the resource changed during the request (conflict),
// the rate limit (rate_limit_exceeded), and the backend's own failures.
var retryCodes = sync.OnceValue(func() map[hcloud.ErrorCode]bool {
	return map[hcloud.ErrorCode]bool{
		hcloud.ErrorCodeLocked: true, hcloud.ErrorCodeConflict: true, hcloud.ErrorCodeRateLimitExceeded: true,
		hcloud.ErrorCodeServerError: true, hcloud.ErrorCodeServiceError: true, hcloud.ErrorCodeBadGateway: true,
		hcloud.ErrorCodeTimeout: true, hcloud.ErrorCodeMaintenance: true, "unavailable": true,
	}
})

// retryable reports whether err is worth another attempt of the same
// request. Creates are safe to repeat: a repeated create that finds its
// first attempt's object gets uniqueness_error, which means "find it".
func retryable(err error, resp *hcloud.Response) bool {
	var ae hcloud.Error
	if errors.As(err, &ae) {
		return retryCodes()[ae.Code]
	}
	if resp != nil && resp.Response != nil && resp.StatusCode >= 500 {
		return true
	}
	var ne net.Error
	return (errors.As(err, &ne) && ne.Timeout()) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

func isCode(err error, code hcloud.ErrorCode) bool { return hcloud.IsError(err, code) }

// call runs one API request with Kyku's retry policy: locked, conflict,
// rate_limit_exceeded, 5xx and network errors are retried with exponential
// backoff (rate limiting waits as the RateLimit-* headers say instead) up
// to MaxAttempts, then returned as a provider.TransientError so the engine
// may retry the whole step. not_found becomes provider.ErrNotFound.
func (p *Provider) call(ctx context.Context, op string, fn func(context.Context) (*hcloud.Response, error)) error {
	return p.callChecked(ctx, op, nil, fn)
}

// check decides, before the retry policy, about an error that only the
// request knows the meaning of: retry it (again: the cloud catches up
// in a moment), or fail at once with final (a clear reason).
type check func(ctx context.Context, err error) (again bool, final error)

// retrying is a check that retries the error codes given: answers the
// API gives for a moment after a change (no_subnet_available right after
// a subnet was added), which terraform-provider-hcloud retries too.
func retrying(codes ...hcloud.ErrorCode) check {
	return func(_ context.Context, err error) (bool, error) {
		return hcloud.IsError(err, codes...), nil
	}
}

// callChecked is call with chk consulted first about every error.
func (p *Provider) callChecked(ctx context.Context, op string, chk check, fn func(context.Context) (*hcloud.Response, error)) error {
	return p.retry.Do(ctx, op, func(ctx context.Context) (retry.Verdict, error) {
		if err := p.pace.wait(ctx, p.opts); err != nil {
			return retry.Verdict{}, err
		}
		resp, err := fn(ctx)
		limited := isCode(err, hcloud.ErrorCodeRateLimitExceeded) || (resp != nil && resp.Response != nil && resp.StatusCode == http.StatusTooManyRequests)
		hint := p.pace.observe(p.opts.Now(), resp, limited)
		if err == nil {
			return retry.Verdict{}, nil
		}
		// A limited retry needs no backoff: the pacer holds the next
		// attempt until the bucket has a request again.
		v := retry.Verdict{
			Retry: retryable(err, resp), NotFound: isCode(err, hcloud.ErrorCodeNotFound),
			Hint: hint, Paced: limited && hint > 0,
		}
		if chk != nil {
			again, final := chk(ctx, err)
			switch {
			case final != nil:
				return retry.Verdict{Final: final}, err
			case again:
				v.Retry = true
			}
		}
		return v, err
	})
}

// pacer spaces requests out while the rate limit is exhausted. Hetzner's
// bucket refills one request every hour/RateLimit-Limit; once an answer
// says none remain (or a 429 arrives), every request of this provider
// reserves the next slot at that spacing, so parallel workers queue
// instead of each hammering the API into more 429s. Pacing stops once an
// answer shows requests to spare again.
type pacer struct {
	mu   sync.Mutex
	next time.Time     // earliest time of the next request while pacing
	per  time.Duration // spacing while pacing; 0 means not pacing
}

// wait blocks until this request's slot.
func (g *pacer) wait(ctx context.Context, o Options) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g.mu.Lock()
	if g.per == 0 {
		g.mu.Unlock()
		return nil
	}
	now := o.Now()
	slot := g.next
	if slot.Before(now) {
		slot = now
	}
	g.next = slot.Add(g.per)
	g.mu.Unlock()
	if d := slot.Sub(now); d > 0 {
		return o.Sleep(ctx, d)
	}
	return nil
}

// observe reads the rate-limit headers of resp and returns how long until
// the bucket holds one request again (0 when it is not empty).
func (g *pacer) observe(now time.Time, resp *hcloud.Response, limited bool) time.Duration {
	if resp == nil || resp.Response == nil {
		return 0
	}
	rl := resp.Meta.Ratelimit
	var per time.Duration
	switch {
	case rl.Limit > 0:
		per = time.Hour / time.Duration(rl.Limit)
	case limited:
		per = retryAfter(resp)
	}
	if per <= 0 {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case limited || (rl.Limit > 0 && rl.Remaining == 0):
		g.per = per
		if first := now.Add(per); g.next.Before(first) {
			g.next = first
		}
		return per
	case rl.Remaining > 10:
		g.per, g.next = 0, time.Time{}
	}
	return 0
}

// retryAfter reads a Retry-After header in seconds (Hetzner sends the
// RateLimit-* headers; this covers a proxy in between).
func retryAfter(resp *hcloud.Response) time.Duration {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	return 0
}

// poll calls check until it reports done, PollInterval after the first
// check and doubling up to MaxPollInterval, at most MaxPolls times; what
// names the wait in the error.
func (p *Provider) poll(ctx context.Context, what string, check func(context.Context) (bool, error)) error {
	return retry.Poll{Interval: p.opts.PollInterval, MaxInterval: p.opts.MaxPollInterval, Max: p.opts.MaxPolls, Sleep: p.opts.Sleep}.Until(ctx, what, check)
}

// pollBackoff is the client's poll backoff (hcloud.PollOpts): the wait
// before poll retries+1 of a wait, PollInterval doubling up to
// MaxPollInterval. With an injected clock (tests) it waits on that clock
// itself and has the waiter go on at once.
func (p *Provider) pollBackoff(retries int) time.Duration {
	d := p.opts.PollInterval
	for range min(retries, 30) {
		if d >= p.opts.MaxPollInterval {
			break
		}
		d *= 2
	}
	d = min(d, p.opts.MaxPollInterval)
	if p.clocked {
		_ = p.opts.Sleep(context.Background(), d)
		return 0
	}
	return d
}

// wait waits until every action has finished, all of them in one request
// per poll (GET /actions?id=…, hcloud-go's action waiter) with the poll
// backoff of pollBackoff, at most MaxPolls polls; an action that ends in
// "error" fails with its code and message. A failed poll (rate limit,
// 5xx, network) is retried as any request is, for the actions still
// running.
func (p *Provider) wait(ctx context.Context, actions ...*hcloud.Action) error {
	running := map[int64]*hcloud.Action{}
	for _, a := range actions {
		if a != nil && a.ID != 0 {
			running[a.ID] = a
		}
	}
	if len(running) == 0 {
		return nil
	}
	what := waitName(running)
	polls := 0
	var sentinel int64 // a running action: each update of it is one poll
	return p.retry.Do(ctx, "wait for "+what, func(ctx context.Context) (retry.Verdict, error) {
		// While the rate limit is exhausted the waiter's requests queue
		// for their slot too (its own polls follow pollBackoff).
		if err := p.pace.wait(ctx, p.opts); err != nil {
			return retry.Verdict{}, err
		}
		pending := make([]*hcloud.Action, 0, len(running))
		for _, id := range slices.Sorted(maps.Keys(running)) {
			pending = append(pending, running[id])
		}
		err := p.c.Action.WaitForFunc(ctx, func(a *hcloud.Action) error {
			switch a.Status {
			case hcloud.ActionStatusRunning:
				if sentinel == 0 {
					sentinel = a.ID
				}
				if a.ID == sentinel {
					if polls++; polls >= p.opts.MaxPolls {
						return provider.Transient(fmt.Errorf("still not done after %d polls", polls))
					}
				}
				return nil
			case hcloud.ActionStatusError:
				return fmt.Errorf("action %s failed: %s (%s)", a.Command, a.ErrorMessage, a.ErrorCode)
			}
			delete(running, a.ID)
			if a.ID == sentinel {
				sentinel = 0
			}
			return nil
		}, pending...)
		if err == nil {
			return retry.Verdict{}, nil
		}
		if provider.IsTransient(err) {
			return retry.Verdict{Final: fmt.Errorf("wait for %s: %w", what, err)}, err
		}
		return retry.Verdict{Retry: retryable(err, nil)}, err
	})
}

// waitName names a wait for its errors: "action 12 (create_server)", or
// "3 actions (create_server, start_server, …)".
func waitName(actions map[int64]*hcloud.Action) string {
	ids := slices.Sorted(maps.Keys(actions))
	if len(ids) == 1 {
		return fmt.Sprintf("action %d (%s)", ids[0], actions[ids[0]].Command)
	}
	var cmds []string
	for _, id := range ids {
		if c := actions[id].Command; !slices.Contains(cmds, c) {
			cmds = append(cmds, c)
		}
	}
	return fmt.Sprintf("%d actions (%s)", len(ids), strings.Join(cmds, ", "))
}
