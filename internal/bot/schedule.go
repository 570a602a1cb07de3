package bot

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/claim"
	"github.com/kyku/action/internal/statemgr"
)

// One drift schedule across replicas (with a store): the replica holding
// the lease schedule/drift.lease.json leads. It keeps the schedule's
// record, schedule/drift.json — when the next round is due, which round
// was started and which was offered completely — and, when a round is
// due, offers one job per repository (jobs.Store.Offer, keyed by round
// and repository, so a round offered twice records each repository once).
// Every replica takes offered jobs as it has idle workers, so the checks
// of a round are spread over the replicas and survive the leader. A
// leader that dies stops renewing: another replica takes the lease once it
// has expired — it tries again at the holder's deadline — and goes on from
// the record, so a round is neither skipped nor run twice for a leader
// change; one that died while offering a round leaves it unfinished in the
// record, and the next leader offers it again (repositories whose check
// already ended may be checked twice, none is skipped). A replica whose
// KYKU_BOT_DRIFT_INTERVAL is 0 never leads, and still takes the checks.

const (
	scheduleKey      = "schedule/drift.json"
	scheduleLeaseKey = "schedule/drift.lease.json"
	// eventScheduledDrift is the event of an offered drift check in a job
	// record: a name GitHub never sends.
	eventScheduledDrift = "kyku/drift-schedule"
	roundFormat         = "20060102T150405Z"
	// storeTimeout bounds giving the schedule's lease back.
	storeTimeout = 10 * time.Second
)

// scheduleRecord is the schedule's record in the store.
type scheduleRecord struct {
	Next     time.Time `json:"next"`              // when the next round is due
	Round    string    `json:"round,omitempty"`   // the round last started
	Offered  string    `json:"offered,omitempty"` // the last round offered completely
	By       string    `json:"by,omitempty"`      // who started it
	Started  time.Time `json:"started,omitzero"`
	Interval string    `json:"interval,omitempty"`
}

// scheduledRepo is the body of an offered drift check: one repository.
type scheduledRepo struct {
	Round         string    `json:"round"`
	Installation  int64     `json:"installation"`
	ID            int64     `json:"id"`
	Owner         string    `json:"owner"`
	Name          string    `json:"name"`
	DefaultBranch string    `json:"defaultBranch"`
	Created       time.Time `json:"created,omitzero"`
}

// scheduleLoop leads the drift schedule whenever this replica holds its
// lease, until ctx ends; the lease is given back on the way out.
func (b *Bot) scheduleLoop(ctx context.Context) {
	defer close(b.driftDone)
	var lease *claim.Claim
	defer func() {
		if lease != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
			_ = b.claims.Release(rctx, lease)
			cancel()
			b.metrics.leading(false)
		}
	}()
	// keep renews the lease when a third of it has passed; false when it
	// is lost (the round stops offering).
	keep := func() bool {
		if lease == nil {
			return false
		}
		if lease.Until.Sub(b.now()) > b.lease*2/3 {
			return true
		}
		err := b.claims.Renew(ctx, lease, b.lease)
		switch {
		case err == nil:
			return true
		case errors.Is(err, claim.ErrLost) || !b.now().Before(lease.Until):
			b.log.Warn("no longer leading the drift schedule", "error", err.Error())
			lease = nil
			b.metrics.leading(false)
			return false
		}
		if ctx.Err() == nil {
			b.log.Warn("drift schedule lease not renewed, retrying", "error", err.Error())
		}
		return true
	}
	for {
		wait := b.lease / 3
		if lease == nil {
			c, err := b.claims.Take(ctx, scheduleLeaseKey, b.replica, "drift schedule leader", b.lease)
			var held *claim.HeldError
			switch {
			case err == nil:
				lease = c
				b.metrics.leading(true)
				b.log.Info("leading the drift schedule", "interval", b.driftInterval.String())
			case errors.As(err, &held):
				// Try again when the leader's lease runs out.
				if d := held.Record.Until.Sub(b.now()); d < wait {
					wait = max(d, time.Millisecond)
				}
			case ctx.Err() != nil:
				return
			default:
				b.log.Warn("drift schedule lease", "error", err.Error())
			}
		} else {
			keep()
		}
		if lease != nil {
			next, err := b.leadRound(ctx, keep)
			if err != nil && ctx.Err() == nil {
				b.log.Error("drift round failed", "error", err.Error())
			}
			if d := next.Sub(b.now()); !next.IsZero() && d < wait {
				wait = max(d, 0)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-b.after(wait):
		}
		if b.draining.Load() {
			return
		}
	}
}

// leadRound reads the schedule and offers the round that is due, if any;
// it returns when the next round is due.
func (b *Bot) leadRound(ctx context.Context, keep func() bool) (time.Time, error) {
	now := b.now()
	data, v, err := b.store.ReadObject(ctx, scheduleKey)
	var rec scheduleRecord
	switch {
	case errors.Is(err, statemgr.ErrNotFound):
		// The first round comes at a random time within one interval, so
		// that bots started together do not all run at once.
		rec = scheduleRecord{Next: now.Add(b.jitter(b.driftInterval)).UTC(), Interval: b.driftInterval.String()}
		if _, err := b.store.CreateObject(ctx, scheduleKey, mustJSON(rec)); err != nil && !errors.Is(err, statemgr.ErrExists) {
			return time.Time{}, fmt.Errorf("create the drift schedule: %w", err)
		}
		b.log.Info("drift schedule started", "first_round", rec.Next)
		return rec.Next, nil
	case err != nil:
		return time.Time{}, fmt.Errorf("read the drift schedule: %w", err)
	}
	if err := json.Unmarshal(data, &rec); err != nil || rec.Next.IsZero() {
		b.log.Warn("drift schedule record unreadable: starting it again", "error", errText(err))
		rec = scheduleRecord{Next: now}
	}
	if rec.Round != "" && rec.Offered != rec.Round {
		b.log.Warn("drift round left unfinished by the previous leader: offering it again", "round", rec.Round, "by", rec.By)
		return b.offerRound(ctx, rec, v, keep)
	}
	if now.Before(rec.Next) {
		return rec.Next, nil
	}
	started := scheduleRecord{
		Next:  now.Add(b.driftInterval + b.jitter(b.driftInterval/10)).UTC(),
		Round: rec.Next.UTC().Format(roundFormat), Offered: rec.Offered,
		By: b.replica, Started: now.UTC(), Interval: b.driftInterval.String(),
	}
	v, err = b.store.ReplaceObject(ctx, scheduleKey, mustJSON(started), v)
	if errors.Is(err, statemgr.ErrConflict) {
		return now, nil // written meanwhile: read it again
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("start drift round %s: %w", started.Round, err)
	}
	return b.offerRound(ctx, started, v, keep)
}

// offerRound offers rec.Round's checks, then records the round as offered.
func (b *Bot) offerRound(ctx context.Context, rec scheduleRecord, v statemgr.Version, keep func() bool) (time.Time, error) {
	err := b.offerDrift(ctx, rec.Round, keep)
	if ctx.Err() != nil || !keep() {
		return rec.Next, err
	}
	rec.Offered = rec.Round
	if _, werr := b.store.ReplaceObject(ctx, scheduleKey, mustJSON(rec), v); werr != nil {
		err = errors.Join(err, fmt.Errorf("record drift round %s as offered: %w", rec.Round, werr))
	}
	b.runner.Kick()
	return rec.Next, err
}

// offerDrift lists the App's installations and their repositories and
// offers a drift check of each repository that is not archived, as
// DriftRound queues them.
func (b *Bot) offerDrift(ctx context.Context, round string, keep func() bool) error {
	insts, err := b.inst.list(ctx)
	if err != nil {
		b.metrics.round("error")
		return fmt.Errorf("drift round %s: %w", round, err)
	}
	var errs []error
	repos, offered := 0, 0
	for _, in := range insts {
		if !keep() {
			b.metrics.round("cancelled")
			return fmt.Errorf("drift round %s: the schedule's lease was lost", round)
		}
		refs, err := b.inst.repos(ctx, in.ID)
		if err != nil {
			if ctx.Err() != nil {
				b.metrics.round("cancelled")
				return fmt.Errorf("drift round %s: %w", round, ctx.Err())
			}
			errs = append(errs, err)
			continue
		}
		for _, r := range refs {
			if ctx.Err() != nil {
				b.metrics.round("cancelled")
				return fmt.Errorf("drift round %s: %w", round, ctx.Err())
			}
			if r.Archived || r.DefaultBranch == "" {
				continue
			}
			repos++
			body := mustJSON(scheduledRepo{Round: round, Installation: in.ID, ID: r.ID, Owner: r.Owner, Name: r.Name, DefaultBranch: r.DefaultBranch, Created: r.Created})
			ok, err := b.jobs.Offer(ctx, jobs.Record{
				ID: "drift/" + round + "/" + strconv.FormatInt(r.ID, 10), Event: eventScheduledDrift,
				Body: body, MAC: b.mac(body), Accepted: b.now().UTC(),
			})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if ok {
				offered++
			}
		}
	}
	b.log.Info("drift round offered", "round", round, "installations", len(insts), "repositories", repos, "offered", offered)
	if err := errors.Join(errs...); err != nil {
		b.metrics.round("partial")
		return fmt.Errorf("drift round %s: %w", round, err)
	}
	b.metrics.round("ok")
	return nil
}

// scheduledDriftJob is the routing job of an offered drift check.
func (b *Bot) scheduledDriftJob(body []byte) (queue.Job, error) {
	var r scheduledRepo
	if err := json.Unmarshal(body, &r); err != nil {
		return queue.Job{}, fmt.Errorf("decode scheduled drift check: %w", err)
	}
	if r.Installation == 0 || r.ID <= 0 || r.Owner == "" || r.Name == "" || r.DefaultBranch == "" {
		return queue.Job{}, errors.New("decode scheduled drift check: no repository")
	}
	ev := event{installation: r.Installation, owner: r.Owner, repo: r.Name, defaultBranch: r.DefaultBranch, repoID: r.ID, created: r.Created}
	return b.driftRouteJob("drift-schedule", ev, driftFilter{}), nil
}

// mac is the hex HMAC-SHA256 of body under the webhook secret: what the
// bot's own job records carry, as GitHub's deliveries do.
func (b *Bot) mac(body []byte) string {
	m := hmac.New(sha256.New, b.cfg.WebhookSecret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the bot's own plain structs are encoded
	}
	return data
}

// recordJob turns a record into its routing job: a webhook as intake does,
// or the bot's own scheduled work.
func (b *Bot) recordJob(rec jobs.Record) (queue.Job, string, error) {
	if rec.Event == eventScheduledDrift {
		q, err := b.scheduledDriftJob(rec.Body)
		return q, "", err
	}
	return b.intake(rec.Event, rec.Body)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
