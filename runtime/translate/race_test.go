//go:build race

package translate

// raceEnabled: the race detector's instrumentation allocates where a
// normal build does not, so allocation counts are not checked under it.
const raceEnabled = true
