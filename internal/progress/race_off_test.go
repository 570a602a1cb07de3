//go:build !race

package progress

const raceEnabled = false
