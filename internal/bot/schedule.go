package bot

import (
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/schedule"
)

// recordJob turns a record into its routing job: a webhook as intake does,
// or the drift schedule's offered check.
func (b *Bot) recordJob(rec jobs.Record) (queue.Job, string, error) {
	if rec.Event == schedule.EventOffered {
		r, err := schedule.DecodeOffer(rec.Body)
		if err != nil {
			return queue.Job{}, "", err
		}
		return b.driftCheck(r), "", nil
	}
	return b.intake(rec.Event, rec.Body)
}
