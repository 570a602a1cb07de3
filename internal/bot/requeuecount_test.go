package bot_test

import (
	"strings"
	"testing"
)

// TestRequeuedJobCountedOnce: two pull requests' plans on a state without
// leases are each requeued behind the state's jobs and then planned:
// /metrics counts two finished plan jobs (kyku_bot_jobs_total, "Finished
// jobs by kind and outcome", has no requeued outcome), times each once,
// and counts the two requeues apart.
func TestRequeuedJobCountedOnce(t *testing.T) {
	h, _, _ := s3Project(t, harnessOpts{}, "", false, configV1+vmA, configV1+vmB)
	openPRs(t, h)
	m := h.metrics()
	finished := 0.0
	for key, n := range m {
		if strings.HasPrefix(key, `kyku_bot_jobs_total{kind="plan",`) {
			finished += n
		}
	}
	for key, want := range map[string]float64{
		"finished plan jobs (kyku_bot_jobs_total)":           2,
		`kyku_bot_jobs_total{kind="plan",outcome="planned"}`: 2,
		`kyku_bot_job_duration_seconds_count{kind="plan"}`:   2,
		`kyku_bot_jobs_requeued_total{kind="plan"}`:          2,
	} {
		got := m[key]
		if strings.HasPrefix(key, "finished") {
			got = finished
		}
		if got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
}
