package schedule

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/claim"
	"github.com/kyku/action/internal/statemgr"
)

const (
	scheduleKey      = "schedule/drift.json"
	scheduleLeaseKey = "schedule/drift.lease.json"
	roundFormat      = "20060102T150405Z"
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

// lead leads the drift schedule whenever this replica holds its
// lease, until ctx ends; the lease is given back on the way out.
func (s *Scheduler) lead(ctx context.Context) {
	var lease *claim.Claim
	defer func() {
		if lease != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
			_ = s.claims.Release(rctx, lease)
			cancel()
			s.opts.Leading(false)
		}
	}()
	// keep renews the lease when a third of it has passed; false when it
	// is lost (the round stops offering).
	keep := func() bool {
		if lease == nil {
			return false
		}
		if lease.Until.Sub(s.opts.Now()) > s.opts.Lease*2/3 {
			return true
		}
		err := s.claims.Renew(ctx, lease, s.opts.Lease)
		switch {
		case err == nil:
			return true
		case errors.Is(err, claim.ErrLost) || !s.opts.Now().Before(lease.Until):
			s.log.Warn("no longer leading the drift schedule", "error", err.Error())
			lease = nil
			s.opts.Leading(false)
			return false
		}
		if ctx.Err() == nil {
			s.log.Warn("drift schedule lease not renewed, retrying", "error", err.Error())
		}
		return true
	}
	for {
		wait := s.opts.Lease / 3
		if lease == nil {
			c, err := s.claims.Take(ctx, scheduleLeaseKey, s.opts.Replica, "drift schedule leader", s.opts.Lease)
			var held *claim.HeldError
			switch {
			case err == nil:
				lease = c
				s.opts.Leading(true)
				s.log.Info("leading the drift schedule", "interval", s.opts.Interval.String())
			case errors.As(err, &held):
				// Try again when the leader's lease runs out.
				if d := held.Record.Until.Sub(s.opts.Now()); d < wait {
					wait = max(d, time.Millisecond)
				}
			case ctx.Err() != nil:
				return
			default:
				s.log.Warn("drift schedule lease", "error", err.Error())
			}
		} else {
			keep()
		}
		if lease != nil {
			next, err := s.leadRound(ctx, keep)
			if err != nil && ctx.Err() == nil {
				s.log.Error("drift round failed", "error", err.Error())
			}
			if d := next.Sub(s.opts.Now()); !next.IsZero() && d < wait {
				wait = max(d, 0)
			}
		}
		if !s.sleep(ctx, wait) {
			return
		}
	}
}

// leadRound reads the schedule and offers the round that is due, if any;
// it returns when the next round is due.
func (s *Scheduler) leadRound(ctx context.Context, keep func() bool) (time.Time, error) {
	now := s.opts.Now()
	data, v, err := s.opts.Store.ReadObject(ctx, scheduleKey)
	var rec scheduleRecord
	switch {
	case errors.Is(err, statemgr.ErrNotFound):
		// The first round comes at a random time within one interval, so
		// that bots started together do not all run at once.
		rec = scheduleRecord{Next: now.Add(s.opts.Jitter(s.opts.Interval)).UTC(), Interval: s.opts.Interval.String()}
		if _, err := s.opts.Store.CreateObject(ctx, scheduleKey, mustJSON(rec)); err != nil && !errors.Is(err, statemgr.ErrExists) {
			return time.Time{}, fmt.Errorf("create the drift schedule: %w", err)
		}
		s.log.Info("drift schedule started", "first_round", rec.Next)
		return rec.Next, nil
	case err != nil:
		return time.Time{}, fmt.Errorf("read the drift schedule: %w", err)
	}
	if err := json.Unmarshal(data, &rec); err != nil || rec.Next.IsZero() {
		s.log.Warn("drift schedule record unreadable: starting it again", "error", errText(err))
		rec = scheduleRecord{Next: now}
	}
	if rec.Round != "" && rec.Offered != rec.Round {
		s.log.Warn("drift round left unfinished by the previous leader: offering it again", "round", rec.Round, "by", rec.By)
		return s.offerRound(ctx, rec, v, keep)
	}
	if now.Before(rec.Next) {
		return rec.Next, nil
	}
	started := scheduleRecord{
		Next:  now.Add(s.opts.Interval + s.opts.Jitter(s.opts.Interval/10)).UTC(),
		Round: rec.Next.UTC().Format(roundFormat), Offered: rec.Offered,
		By: s.opts.Replica, Started: now.UTC(), Interval: s.opts.Interval.String(),
	}
	v, err = s.opts.Store.ReplaceObject(ctx, scheduleKey, mustJSON(started), v)
	if errors.Is(err, statemgr.ErrConflict) {
		return now, nil // written meanwhile: read it again
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("start drift round %s: %w", started.Round, err)
	}
	return s.offerRound(ctx, started, v, keep)
}

// offerRound offers rec.Round's checks, then records the round as offered.
func (s *Scheduler) offerRound(ctx context.Context, rec scheduleRecord, v statemgr.Version, keep func() bool) (time.Time, error) {
	err := s.offerDrift(ctx, rec.Round, keep)
	if ctx.Err() != nil || !keep() {
		return rec.Next, err
	}
	rec.Offered = rec.Round
	if _, werr := s.opts.Store.ReplaceObject(ctx, scheduleKey, mustJSON(rec), v); werr != nil {
		err = errors.Join(err, fmt.Errorf("record drift round %s as offered: %w", rec.Round, werr))
	}
	s.opts.Kick()
	return rec.Next, err
}

// offerDrift lists the App's installations and their repositories and
// offers a drift check of each repository that is not archived, as
// DriftRound queues them.
func (s *Scheduler) offerDrift(ctx context.Context, round string, keep func() bool) error {
	insts, err := s.opts.Lister.Installations(ctx)
	if err != nil {
		s.opts.Rounds("error")
		return fmt.Errorf("drift round %s: %w", round, err)
	}
	var errs []error
	repos, offered := 0, 0
	for _, in := range insts {
		if !keep() {
			s.opts.Rounds("cancelled")
			return fmt.Errorf("drift round %s: the schedule's lease was lost", round)
		}
		refs, err := s.opts.Lister.Repos(ctx, in.ID)
		if err != nil {
			if ctx.Err() != nil {
				s.opts.Rounds("cancelled")
				return fmt.Errorf("drift round %s: %w", round, ctx.Err())
			}
			errs = append(errs, err)
			continue
		}
		for _, r := range refs {
			if ctx.Err() != nil {
				s.opts.Rounds("cancelled")
				return fmt.Errorf("drift round %s: %w", round, ctx.Err())
			}
			if r.Archived || r.DefaultBranch == "" {
				continue
			}
			repos++
			body := mustJSON(Repo{Round: round, Installation: in.ID, ID: r.ID, Owner: r.Owner, Name: r.Name, DefaultBranch: r.DefaultBranch, Created: r.Created})
			ok, err := s.opts.Jobs.Offer(ctx, jobs.Record{
				ID: "drift/" + round + "/" + strconv.FormatInt(r.ID, 10), Event: EventOffered,
				Body: body, MAC: hex.EncodeToString(jobs.MAC(s.opts.Secret, body)), Accepted: s.opts.Now().UTC(),
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
	s.log.Info("drift round offered", "round", round, "installations", len(insts), "repositories", repos, "offered", offered)
	if err := errors.Join(errs...); err != nil {
		s.opts.Rounds("partial")
		return fmt.Errorf("drift round %s: %w", round, err)
	}
	s.opts.Rounds("ok")
	return nil
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the scheduler's own plain structs are encoded
	}
	return data
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
