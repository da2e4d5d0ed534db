package store

import (
	"context"
	"fmt"
)

// Ping reads the responses table (not just the connection: a SQLite file
// that cannot be read, a PostgreSQL that lost the schema, fail it too).
func (s *sqlStore) Ping(ctx context.Context) error {
	var exists bool
	if err := s.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM responses)").Scan(&exists); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}
