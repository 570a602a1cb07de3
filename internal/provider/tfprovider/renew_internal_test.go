package tfprovider

import "testing"

// TestGrown: a process is replaced once it is past growth times the first
// process's size when configured (by default also grown by
// defaultMinGrowth), and not before renewMinCalls calls.
func TestGrown(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name           string
		size, baseline int64
		calls          int
		growth         float64
		due            bool
		next           int64
	}{
		{"first reading is the measure", 20 * mb, 0, 16, 0, false, 20 * mb},
		{"within the default factor: kept", 35 * mb, 20 * mb, 400, 0, false, 20 * mb},
		{"past the default factor, not by the default growth: kept", 148 * mb, 20 * mb, 4000, 0, false, 20 * mb},
		{"past the default factor and growth: replaced", 148*mb + 1, 20 * mb, 4000, 0, true, 20 * mb},
		{"a large provider past the growth, not the factor: kept", 349 * mb, 200 * mb, 4000, 0, false, 200 * mb},
		{"a large provider past the factor: replaced", 350*mb + 1, 200 * mb, 4000, 0, true, 200 * mb},
		{"past both before the minimum of calls: kept", 200 * mb, 20 * mb, renewMinCalls - 1, 0, false, 20 * mb},
		{"past both at the minimum of calls", 200 * mb, 20 * mb, renewMinCalls, 0, true, 20 * mb},
		{"a factor of its own, taken alone", 41 * mb, 20 * mb, 400, 2, true, 20 * mb},
		{"within a factor of its own", 39 * mb, 20 * mb, 400, 2, false, 20 * mb},
	} {
		due, next := grown(c.size, c.baseline, c.calls, c.growth)
		if due != c.due || next != c.next {
			t.Errorf("%s: grown(%d, %d, %d, %v) = %v, %d; want %v, %d", c.name, c.size, c.baseline, c.calls, c.growth, due, next, c.due, c.next)
		}
	}
}
