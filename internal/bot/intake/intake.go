package intake

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/lifecycle"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/claim"
)

// MaxBody caps a webhook body (GitHub's own cap is 25 MB).
const MaxBody = 25 << 20

// DefaultWindow is how long a delivery is remembered by default: the three
// days GitHub lets a delivery be redelivered.
const DefaultWindow = 72 * time.Hour

// dedupeTimeout bounds the store's answer to a delivery's dedupe (GitHub
// gives a webhook 10 seconds).
const dedupeTimeout = 5 * time.Second

// Jobs is what the intake needs of the job runner.
type Jobs interface {
	// Accept records (with a store) and queues a delivery's job:
	// jobs.ErrExists, queue.ErrFull, queue.ErrClosed, or the store's error.
	Accept(ctx context.Context, rec jobs.Record, job queue.Job) error
	// Depth is the number of jobs queued and not started.
	Depth() int
}

// Options configure an Intake.
type Options struct {
	Secret []byte // the webhook secret (required: nothing unsigned is taken)
	// Route decides, from the payload alone (no API call), whether a
	// delivery becomes a job; ignored says why not.
	Route func(event string, body []byte) (job queue.Job, ignored string, err error)
	Jobs  Jobs
	// Store, when set, is where every replica takes the deliveries' keys
	// (package claim); without it, in memory here.
	Store jobs.Objects
	// Window is how long a delivery's ID and body are remembered (default
	// DefaultWindow; in memory, at most 50,000 of each).
	Window  time.Duration
	Replica string // this replica, in the claims and records
	// Count counts each delivery by event label and result.
	Count  func(event, result string)
	Now    func() time.Time
	Logger *slog.Logger
}

// Intake is the webhook intake.
type Intake struct {
	opts     Options
	log      *slog.Logger
	count    func(event, result string)
	seen     *deduper
	draining atomic.Bool
	gate     lifecycle.Gate
}

// New returns an intake taking deliveries.
func New(o Options) *Intake {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.Count == nil {
		o.Count = func(string, string) {}
	}
	seen := &deduper{mem: newDeliveries(2*50_000, o.Window, o.Now), holder: o.Replica, window: o.Window}
	if o.Store != nil {
		seen.claims = claim.New(o.Store, claim.Options{Now: o.Now})
	}
	return &Intake{opts: o, log: o.Logger, count: o.Count, seen: seen}
}

// Run takes deliveries until Shutdown, or until ctx ends (then it stops
// taking them).
func (in *Intake) Run(ctx context.Context) error {
	if ok, err := in.gate.Enter(); !ok {
		return err
	}
	defer in.gate.Exit()
	select {
	case <-in.gate.Stopping():
		return nil
	case <-ctx.Done():
		in.draining.Store(true)
		return ctx.Err()
	}
}

// Shutdown stops taking deliveries: from now on they are answered 503, so
// that GitHub redelivers them.
func (in *Intake) Shutdown(ctx context.Context) error {
	in.draining.Store(true)
	in.gate.Stop()
	return in.gate.Wait(ctx)
}

// Draining reports whether the intake stopped taking deliveries.
func (in *Intake) Draining() bool { return in.draining.Load() }

// WriteText answers a plain-text status and message.
func WriteText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}

// ServeHTTP verifies, dedupes and queues a delivery (POST /webhook). It
// never calls GitHub or the engine: the work runs on the queue with its
// own context.
func (in *Intake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	event := r.Header.Get("X-GitHub-Event")
	label := Label(event)
	sig, ok := signatureHeader(r.Header.Get("X-Hub-Signature-256"))
	if !ok {
		in.count(label, "bad_signature")
		in.log.Warn("webhook signature missing or malformed", "remote", r.RemoteAddr)
		WriteText(w, http.StatusUnauthorized, "invalid signature")
		return
	}
	if in.draining.Load() {
		in.count(label, "draining")
		WriteText(w, http.StatusServiceUnavailable, "shutting down")
		return
	}
	if r.ContentLength > MaxBody {
		in.count(label, "too_large")
		WriteText(w, http.StatusRequestEntityTooLarge, "body too large")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			in.count(label, "too_large")
			WriteText(w, http.StatusRequestEntityTooLarge, "body too large")
			return
		}
		WriteText(w, http.StatusBadRequest, "cannot read body")
		return
	}
	if !jobs.ValidMAC(in.opts.Secret, body, sig) {
		in.count(label, "bad_signature")
		in.log.Warn("webhook signature invalid", "event", label, "remote", r.RemoteAddr)
		WriteText(w, http.StatusUnauthorized, "invalid signature")
		return
	}
	id := r.Header.Get("X-GitHub-Delivery")
	if event == "" || id == "" || len(id) > 128 {
		in.count(label, "bad_request")
		WriteText(w, http.StatusBadRequest, "missing X-GitHub-Event or X-GitHub-Delivery")
		return
	}
	log := in.log.With("delivery", id, "event", label)
	job, ignored, err := in.opts.Route(event, body)
	switch {
	case err != nil:
		in.count(label, "bad_payload")
		log.Warn("webhook payload invalid", "error", err.Error())
		WriteText(w, http.StatusBadRequest, "invalid payload")
		return
	case ignored != "":
		in.count(label, "ignored")
		log.Info("webhook ignored", "reason", ignored)
		WriteText(w, http.StatusOK, "ignored: "+ignored)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), dedupeTimeout)
	defer cancel()
	dup, took, err := in.seen.take(ctx, id, event, body)
	switch {
	case err != nil:
		in.count(label, "store_error")
		log.Error("webhook refused: the delivery could not be recorded", "error", err.Error())
		WriteText(w, http.StatusServiceUnavailable, "cannot record the delivery, redeliver later")
		return
	case dup == dupBody:
		in.count(label, "replay")
		log.Warn("webhook replay refused: its signed body was delivered before under another ID")
		WriteText(w, http.StatusOK, dup)
		return
	case dup != "":
		in.count(label, "duplicate")
		log.Info("webhook duplicate")
		WriteText(w, http.StatusOK, dup)
		return
	}
	job.Attrs = append(job.Attrs, slog.String("delivery", id))
	// With a store, the job is recorded before it is answered: a replica
	// that dies from here on leaves it for another to take over.
	err = in.opts.Jobs.Accept(ctx, jobs.Record{
		ID: id, Event: event, Body: body, MAC: hex.EncodeToString(sig),
		Accepted: in.opts.Now().UTC(), AcceptedBy: in.opts.Replica,
	}, job)
	switch {
	case err == nil:
	case errors.Is(err, jobs.ErrExists):
		in.count(label, "duplicate")
		log.Info("webhook duplicate: its job is recorded already")
		WriteText(w, http.StatusOK, dupDelivery)
		return
	case errors.Is(err, queue.ErrFull):
		in.seen.undo(ctx, took) // let GitHub's redelivery in
		in.count(label, "queue_full")
		log.Warn("webhook refused: queue full", "depth", in.opts.Jobs.Depth())
		WriteText(w, http.StatusServiceUnavailable, "queue full, redeliver later")
		return
	case errors.Is(err, queue.ErrClosed):
		in.seen.undo(ctx, took)
		in.count(label, "draining")
		WriteText(w, http.StatusServiceUnavailable, "shutting down")
		return
	default:
		in.seen.undo(ctx, took)
		in.count(label, "store_error")
		log.Error("webhook refused: the job could not be recorded", "error", err.Error())
		WriteText(w, http.StatusServiceUnavailable, "cannot record the job, redeliver later")
		return
	}
	in.count(label, "queued")
	log.Info("webhook queued", "kind", job.Kind)
	WriteText(w, http.StatusAccepted, "queued")
}
