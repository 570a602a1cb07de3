package bot

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/kyku/action/internal/bot/queue"
)

// webhook verifies, dedupes and queues a delivery. It never calls GitHub
// or the engine: the work runs on the queue with its own context.
func (b *Bot) webhook(w http.ResponseWriter, r *http.Request) {
	event := r.Header.Get("X-GitHub-Event")
	if b.draining.Load() {
		b.metrics.webhook(event, "draining")
		writeText(w, http.StatusServiceUnavailable, "shutting down")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxWebhookBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			b.metrics.webhook(event, "too_large")
			writeText(w, http.StatusRequestEntityTooLarge, "body too large")
			return
		}
		writeText(w, http.StatusBadRequest, "cannot read body")
		return
	}
	if !validSignature(b.cfg.WebhookSecret, body, r.Header.Get("X-Hub-Signature-256")) {
		b.metrics.webhook(event, "bad_signature")
		b.log.Warn("webhook signature invalid", "event", event, "remote", r.RemoteAddr)
		writeText(w, http.StatusUnauthorized, "invalid signature")
		return
	}
	id := r.Header.Get("X-GitHub-Delivery")
	if event == "" || id == "" {
		b.metrics.webhook(event, "bad_request")
		writeText(w, http.StatusBadRequest, "missing X-GitHub-Event or X-GitHub-Delivery")
		return
	}
	log := b.log.With("delivery", id, "event", event)
	job, ignored, err := b.intake(event, body)
	switch {
	case err != nil:
		b.metrics.webhook(event, "bad_payload")
		log.Warn("webhook payload invalid", "error", err.Error())
		writeText(w, http.StatusBadRequest, "invalid payload")
		return
	case ignored != "":
		b.metrics.webhook(event, "ignored")
		log.Info("webhook ignored", "reason", ignored)
		writeText(w, http.StatusOK, "ignored: "+ignored)
		return
	}
	if !b.seen.add(id) {
		b.metrics.webhook(event, "duplicate")
		log.Info("webhook duplicate")
		writeText(w, http.StatusOK, "duplicate delivery")
		return
	}
	job.Attrs = append(job.Attrs, slogString("delivery", id))
	switch err := b.queue.Submit(job); {
	case errors.Is(err, queue.ErrFull):
		b.seen.forget(id) // let GitHub's redelivery in
		b.metrics.webhook(event, "queue_full")
		log.Warn("webhook refused: queue full", "depth", b.queue.Depth())
		writeText(w, http.StatusServiceUnavailable, "queue full, redeliver later")
		return
	case err != nil:
		b.seen.forget(id)
		b.metrics.webhook(event, "draining")
		writeText(w, http.StatusServiceUnavailable, "shutting down")
		return
	}
	b.metrics.webhook(event, "queued")
	log.Info("webhook queued", "kind", job.Kind)
	writeText(w, http.StatusAccepted, "queued")
}

// validSignature checks "sha256=<hex HMAC-SHA256 of body>" in constant time.
func validSignature(secret, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(secret) == 0 {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}
