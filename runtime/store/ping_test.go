package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPingSQLite(t *testing.T)   { testPing(t, sqliteBackend) }
func TestPingPostgres(t *testing.T) { testPing(t, pgBackend) }

// Ping answers while the database does, and fails once it cannot.
func testPing(t *testing.T, be backend) {
	ctx := context.Background()
	s, err := be(t)(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
	if err := s.PutResponse(ctx, "t", turn("resp_1", "", 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping with a row: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Ping(cancelled); err == nil {
		t.Error("ping with a cancelled context: nil")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err == nil {
		t.Error("ping of a closed store: nil")
	}
}

// A SQLite file overwritten under the open store (a disk gone bad, a
// careless restore) fails Ping: it reads a table, not just the connection.
func TestPingSQLiteUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(context.Background(), Config{Driver: "sqlite", DSN: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(i * 7)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.WriteFile(p, junk, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Ping(ctx); err == nil {
		t.Error("ping of an overwritten file: nil")
	} else {
		t.Logf("ping: %v", err)
	}
}
