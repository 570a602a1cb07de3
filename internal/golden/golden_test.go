package golden

import "testing"

func TestSectionsAndCheckRun(t *testing.T) {
	var s Sections
	s.Add(t, "one", "a\n")
	s.Add(t, "two", "b")
	s.Add(t, "empty", "")
	want := "## one\n\na\n\n## two\n\nb\n\n## empty\n\n\n\n"
	if got := s.String(); got != want {
		t.Errorf("Sections = %q, want %q", got, want)
	}
	if got, want := CheckRun("kyku plan (prod)", "completed", "failure", "Plan failed", "why\n", ""), "name: kyku plan (prod)\nstatus: completed\nconclusion: failure\ntitle: Plan failed\n\nwhy\n"; got != want {
		t.Errorf("CheckRun = %q, want %q", got, want)
	}
}
