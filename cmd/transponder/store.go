package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/transponder-dev/transponder/runtime/store"
)

// The store transponder serve keeps responses and conversations in:
// where its data lives, how long, which driver.

// DefaultTTL is how long stored objects live by default, as OpenAI keeps
// stored responses.
const DefaultTTL = 30 * 24 * time.Hour

// ExpireEvery is how often expired objects are deleted.
const ExpireEvery = time.Minute

// defaultDataDir is $TRANSPONDER_DATA, else $XDG_DATA_HOME/transponder,
// else ~/.local/share/transponder.
func defaultDataDir() string {
	if d := os.Getenv("TRANSPONDER_DATA"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "transponder")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "transponder")
	}
	return "transponder-data"
}

// parseTTL reads a Go duration or a number of days ("30d").
func parseTTL(s string) (time.Duration, error) {
	if s == "" {
		return DefaultTTL, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("store.ttl %q: a positive number of days (30d) or a Go duration (720h)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("store.ttl %q: a positive number of days (30d) or a Go duration (720h)", s)
	}
	return d, nil
}

// openStore opens the configured store (nil for driver none).
func (c *serveConfig) openStore(ctx context.Context) (store.Store, time.Duration, error) {
	ttl, err := parseTTL(c.Store.TTL)
	if err != nil {
		return nil, 0, err
	}
	switch c.Store.Driver {
	case "none":
		return nil, ttl, nil
	case "", "sqlite":
		c.Store.Driver = "sqlite"
		if c.Store.DSN == "" {
			c.Store.DSN = filepath.Join(c.DataDir, "transponder.db")
		}
	case "postgres":
		if c.Store.DSN == "" {
			return nil, 0, errors.New("store: driver postgres needs a dsn (postgres://user:pass@host:5432/db)")
		}
	default:
		return nil, 0, fmt.Errorf("store.driver %q: sqlite, postgres or none", c.Store.Driver)
	}
	st, err := store.Open(ctx, store.Config{Driver: c.Store.Driver, DSN: c.Store.DSN, TTL: ttl, CacheBytes: c.Store.CacheBytes})
	if err != nil {
		return nil, 0, err
	}
	return st, ttl, nil
}

// redactDSN hides a URL's password for the log.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable dsn)"
	}
	return u.Redacted()
}
