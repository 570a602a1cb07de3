package engine

import (
	"context"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/state"
)

// countingBox is an answer box that holds no answer and counts how often
// its answers are read.
type countingBox struct{ reads int }

func (b *countingBox) AnswerPath(address string) string                   { return "/nowhere/" + address }
func (b *countingBox) Note(context.Context, state.Answer) error           { return nil }
func (b *countingBox) RemoveAnswer(context.Context, string) error         { return nil }
func (b *countingBox) ClearNotes(context.Context) error                   { return nil }
func (b *countingBox) ReleaseNotes(context.Context) error                 { return nil }
func (b *countingBox) Answers(context.Context) (map[string][]byte, error) { b.reads++; return nil, nil }
func (b *countingBox) LockNotes(context.Context, []string, time.Duration) (map[string][]byte, func(), error) {
	return nil, func() {}, nil
}

// TestPlanReadsNoAnswersWithoutIntents: a plan of a state with no open
// intent does not read the answer box (its keepers' logs can be megabytes
// an apply's renewed processes left); one with an open intent does.
func TestPlanReadsNoAnswersWithoutIntents(t *testing.T) {
	for _, c := range []struct {
		interrupted map[string]string
		reads       int
	}{
		{nil, 0},
		{map[string]string{"a": "t"}, 1},
	} {
		box := &countingBox{}
		e := New(nil, nil, Options{Answers: box})
		st := &state.File{Resources: map[string]*state.Resource{"b": {}}, Interrupted: c.interrupted}
		if _, err := e.foldAnswers(t.Context(), &config.Config{}, st, false); err != nil {
			t.Fatal(err)
		}
		if box.reads != c.reads {
			t.Errorf("open intents %v: the box was read %d times, want %d", c.interrupted, box.reads, c.reads)
		}
	}
}
