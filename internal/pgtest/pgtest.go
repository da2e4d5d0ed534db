// Package pgtest gives tests a PostgreSQL of their own: a fresh schema of
// the server TRANSPONDER_TEST_PG names (.ci/run starts one and exports
// it), dropped after the test.
package pgtest

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver, to make and drop the schema
)

// Schema returns a DSN of the test PostgreSQL whose search_path is a
// fresh schema (named prefix_<nanoseconds>), dropped when the test ends.
// Without TRANSPONDER_TEST_PG the test is skipped, and failed when CI is
// set: there a missing database is a broken run, not a skip.
func Schema(t testing.TB, prefix string) string {
	t.Helper()
	dsn := os.Getenv("TRANSPONDER_TEST_PG")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but TRANSPONDER_TEST_PG is not: .ci/run starts PostgreSQL and exports it")
		}
		t.Skip("TRANSPONDER_TEST_PG is not set (a PostgreSQL URL; .ci/run sets it)")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano())
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("dropping the schema %s: %v", schema, err)
		}
		admin.Close()
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}
