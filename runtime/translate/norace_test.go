//go:build !race

package translate

// raceEnabled: see race_test.go.
const raceEnabled = false
