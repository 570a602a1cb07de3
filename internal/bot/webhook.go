package bot

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
)

// dedupeTimeout bounds the store's answer to a delivery's dedupe (GitHub
// gives a webhook 10 seconds).
const dedupeTimeout = 5 * time.Second

// webhook verifies, dedupes and queues a delivery. It never calls GitHub
// or the engine: the work runs on the queue with its own context.
//
// Nothing an unsigned request sends is kept or processed: a request
// without a well-formed X-Hub-Signature-256 is refused before its body is
// read, a declared body over MaxWebhookBytes before reading too, and the
// body is read through http.MaxBytesReader; the signature is verified
// before the payload is decoded; a delivery runs once (see deduper: by
// its ID and by its signed body, across replicas with a store), and one
// the store cannot record is refused with 503. With a store the job is
// recorded (durable.go) before the 202. Metrics label events from a closed set
// (eventLabel), so header values cannot grow them.
func (b *Bot) webhook(w http.ResponseWriter, r *http.Request) {
	event := r.Header.Get("X-GitHub-Event")
	label := eventLabel(event)
	sig, ok := signatureHeader(r.Header.Get("X-Hub-Signature-256"))
	if !ok {
		b.metrics.webhook(label, "bad_signature")
		b.log.Warn("webhook signature missing or malformed", "remote", r.RemoteAddr)
		writeText(w, http.StatusUnauthorized, "invalid signature")
		return
	}
	if b.draining.Load() {
		b.metrics.webhook(label, "draining")
		writeText(w, http.StatusServiceUnavailable, "shutting down")
		return
	}
	if r.ContentLength > MaxWebhookBytes {
		b.metrics.webhook(label, "too_large")
		writeText(w, http.StatusRequestEntityTooLarge, "body too large")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxWebhookBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			b.metrics.webhook(label, "too_large")
			writeText(w, http.StatusRequestEntityTooLarge, "body too large")
			return
		}
		writeText(w, http.StatusBadRequest, "cannot read body")
		return
	}
	if !validSignature(b.cfg.WebhookSecret, body, sig) {
		b.metrics.webhook(label, "bad_signature")
		b.log.Warn("webhook signature invalid", "event", label, "remote", r.RemoteAddr)
		writeText(w, http.StatusUnauthorized, "invalid signature")
		return
	}
	id := r.Header.Get("X-GitHub-Delivery")
	if event == "" || id == "" || len(id) > 128 {
		b.metrics.webhook(label, "bad_request")
		writeText(w, http.StatusBadRequest, "missing X-GitHub-Event or X-GitHub-Delivery")
		return
	}
	log := b.log.With("delivery", id, "event", label)
	job, ignored, err := b.intake(event, body)
	switch {
	case err != nil:
		b.metrics.webhook(label, "bad_payload")
		log.Warn("webhook payload invalid", "error", err.Error())
		writeText(w, http.StatusBadRequest, "invalid payload")
		return
	case ignored != "":
		b.metrics.webhook(label, "ignored")
		log.Info("webhook ignored", "reason", ignored)
		writeText(w, http.StatusOK, "ignored: "+ignored)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), dedupeTimeout)
	defer cancel()
	dup, took, err := b.seen.take(ctx, id, event, body)
	switch {
	case err != nil:
		b.metrics.webhook(label, "store_error")
		log.Error("webhook refused: the delivery could not be recorded", "error", err.Error())
		writeText(w, http.StatusServiceUnavailable, "cannot record the delivery, redeliver later")
		return
	case dup == dupBody:
		b.metrics.webhook(label, "replay")
		log.Warn("webhook replay refused: its signed body was delivered before under another ID")
		writeText(w, http.StatusOK, dup)
		return
	case dup != "":
		b.metrics.webhook(label, "duplicate")
		log.Info("webhook duplicate")
		writeText(w, http.StatusOK, dup)
		return
	}
	job.Attrs = append(job.Attrs, slogString("delivery", id))
	// With a store, the job is recorded before it is answered: a replica
	// that dies from here on leaves it for another to take over.
	err = b.runner.Accept(ctx, jobs.Record{
		ID: id, Event: event, Body: body, MAC: hex.EncodeToString(sig),
		Accepted: b.now().UTC(), AcceptedBy: b.replica,
	}, job)
	switch {
	case err == nil:
	case errors.Is(err, jobs.ErrExists):
		b.metrics.webhook(label, "duplicate")
		log.Info("webhook duplicate: its job is recorded already")
		writeText(w, http.StatusOK, dupDelivery)
		return
	case errors.Is(err, queue.ErrFull):
		b.seen.undo(ctx, took) // let GitHub's redelivery in
		b.metrics.webhook(label, "queue_full")
		log.Warn("webhook refused: queue full", "depth", b.runner.Depth())
		writeText(w, http.StatusServiceUnavailable, "queue full, redeliver later")
		return
	case errors.Is(err, queue.ErrClosed):
		b.seen.undo(ctx, took)
		b.metrics.webhook(label, "draining")
		writeText(w, http.StatusServiceUnavailable, "shutting down")
		return
	default:
		b.seen.undo(ctx, took)
		b.metrics.webhook(label, "store_error")
		log.Error("webhook refused: the job could not be recorded", "error", err.Error())
		writeText(w, http.StatusServiceUnavailable, "cannot record the job, redeliver later")
		return
	}
	b.metrics.webhook(label, "queued")
	log.Info("webhook queued", "kind", job.Kind)
	writeText(w, http.StatusAccepted, "queued")
}

// knownEvents are the event names metrics label as themselves.
var knownEvents = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"pull_request": true, "issue_comment": true, "repository_dispatch": true, "ping": true,
		"push": true, "pull_request_review": true, "installation": true, "installation_repositories": true,
		"check_run": true, "check_suite": true, "workflow_run": true,
	}
})

// eventLabel is the metrics label of an X-GitHub-Event header: the event
// name for the events above, "other" for anything else. The header is
// read before the signature is checked, so it must not be able to add
// labels.
func eventLabel(event string) string {
	if knownEvents()[event] {
		return event
	}
	return "other"
}

// signatureHeader returns the hex digest of a well-formed
// "sha256=<64 hex digits>" header.
func signatureHeader(header string) ([]byte, bool) {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(hexSig) != 2*sha256.Size {
		return nil, false
	}
	sig, err := hex.DecodeString(hexSig)
	return sig, err == nil
}

// validSignature checks sig, the HMAC-SHA256 of body, in constant time.
func validSignature(secret, body, sig []byte) bool {
	if len(secret) == 0 {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(sig, mac.Sum(nil))
}
