package store

import (
	"container/list"
	"strconv"
	"sync"
)

// DefaultCacheBytes is the default size of the items cache.
const DefaultCacheBytes = 64 << 20

// itemCache keeps the items of recently stored or read responses, least
// recently used out first, bounded by their bytes. A response's items
// never change once stored, so an entry is valid for as long as the
// response it belongs to lives: Chain asks the database which responses
// of a chain are live (a small query of ids, links and creation times:
// a response deleted or expired, on this instance or another, is not
// among them) and reads only the items of those not cached. The key has
// the response's creation time, so a response stored again under a
// deleted one's id is not mistaken for it.
type itemCache struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	lru   *list.List // of *cacheEntry, most recent first
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key   string
	items []Item
	size  int64
}

func newItemCache(max int64) *itemCache {
	if max <= 0 {
		return nil
	}
	return &itemCache{max: max, lru: list.New(), byKey: map[string]*list.Element{}}
}

func cacheKey(tenant, id string, created int64) string {
	return strconv.FormatInt(created, 10) + "\x00" + tenant + "\x00" + id
}

// get returns the items of the response (nil, false when not cached).
func (c *itemCache) get(key string) ([]Item, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).items, true
}

// put caches a response's items (theirs: the caller does not change them
// after), evicting the least recently used beyond the bound.
func (c *itemCache) put(key string, items []Item) {
	if c == nil {
		return
	}
	size := int64(len(key)) + 64
	for _, it := range items {
		size += int64(len(it.ID)+len(it.Body)) + 48
	}
	if size > c.max/4 {
		return // one response must not empty the cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(e)
		return
	}
	c.byKey[key] = c.lru.PushFront(&cacheEntry{key: key, items: items, size: size})
	c.bytes += size
	for c.bytes > c.max {
		e := c.lru.Back()
		ce := e.Value.(*cacheEntry)
		c.lru.Remove(e)
		delete(c.byKey, ce.key)
		c.bytes -= ce.size
	}
}
