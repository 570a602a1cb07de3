package bot

import (
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/schedule"
)

// resume turns a job record taken over into its routing job: a webhook's
// as when it was delivered, or the drift schedule's offered check.
func (rt *router) resume(rec jobs.Record) (queue.Job, string, error) {
	if rec.Event == schedule.EventOffered {
		r, err := schedule.DecodeOffer(rec.Body)
		if err != nil {
			return queue.Job{}, "", err
		}
		return rt.driftCheck(r), "", nil
	}
	return rt.route(rec.Event, rec.Body)
}
