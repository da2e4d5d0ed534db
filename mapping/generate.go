package mapping

//go:generate go run ../internal/cmd/mapgen
