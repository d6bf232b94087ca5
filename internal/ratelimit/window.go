package ratelimit

import (
	"container/list"
	"slices"
	"sync"
	"time"
)

// Window counts events per key over a sliding window of time, such as
// "at most 5 subscription requests per address an hour" (CONTRACT C7). It
// keeps the time of each counted event, at most a key's limit of them, in
// memory: the count is this process's own, so several replicas each count
// their own. Keys unused for a whole window are forgotten, and past
// maxKeys the least recently used key is forgotten too, so that memory
// stays bounded whatever arrives; a forgotten key starts again from 0. It
// is safe for concurrent use.
type Window struct {
	span    time.Duration
	maxKeys int
	mu      sync.Mutex
	keys    map[string]*list.Element // of *windowKey
	lru     *list.List               // most recently used first
}

// windowKey is a key's counted events, oldest first, in Unix
// nanoseconds (a third of a time.Time's size).
type windowKey struct {
	key   string
	times []int64
}

// Quota is one key of a Take and how many events it may have per window
// (at least 1).
type Quota struct {
	Key   string
	Limit int
}

// NewWindow returns a Window of span that remembers at most maxKeys keys.
func NewWindow(span time.Duration, maxKeys int) *Window {
	return &Window{span: span, maxKeys: max(1, maxKeys), keys: map[string]*list.Element{}, lru: list.New()}
}

// Take counts one event at now for every quota's key when each of them has
// had fewer than its Limit in the window before now; otherwise it counts
// nothing (a refused event does not count) and returns how long until
// every key that is full has room again.
func (w *Window) Take(now time.Time, quotas ...Quota) (ok bool, retry time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.forget(now)
	for _, q := range quotas {
		retry = max(retry, w.wait(now, q))
	}
	if retry > 0 {
		return false, retry
	}
	for _, q := range quotas {
		e, found := w.keys[q.Key]
		if !found {
			e = w.lru.PushFront(&windowKey{key: q.Key})
			w.keys[q.Key] = e
		}
		// Fewer than its limit are in the window (the check above): a
		// key keeps at most limit times.
		k := e.Value.(*windowKey)
		k.times = append(k.times, now.UnixNano())
		w.lru.MoveToFront(e)
	}
	for w.lru.Len() > w.maxKeys {
		w.drop(w.lru.Back())
	}
	return true, 0
}

// Wait returns how long until q's key has room for one more event at now,
// 0 when it has: it counts nothing.
func (w *Window) Wait(now time.Time, q Quota) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wait(now, q)
}

// wait is Wait with the lock held.
func (w *Window) wait(now time.Time, q Quota) time.Duration {
	e, found := w.keys[q.Key]
	if !found {
		return 0
	}
	k := e.Value.(*windowKey)
	k.times = w.recent(k.times, now)
	if limit := max(1, q.Limit); len(k.times) >= limit {
		// Room again when the event limit places back leaves the window.
		return time.Unix(0, k.times[len(k.times)-limit]).Add(w.span).Sub(now)
	}
	return 0
}

// recent is times without those that have left the window at now.
func (w *Window) recent(times []int64, now time.Time) []int64 {
	start := now.Add(-w.span).UnixNano()
	i := 0
	for i < len(times) && times[i] <= start {
		i++
	}
	return times[:copy(times, times[i:])]
}

// forget drops the least recently used keys whose last event has left the
// window at now.
func (w *Window) forget(now time.Time) {
	for e := w.lru.Back(); e != nil; e = w.lru.Back() {
		k := e.Value.(*windowKey)
		if len(k.times) > 0 && k.times[len(k.times)-1] > now.Add(-w.span).UnixNano() {
			return
		}
		w.drop(e)
	}
}

func (w *Window) drop(e *list.Element) {
	delete(w.keys, e.Value.(*windowKey).key)
	w.lru.Remove(e)
}

// Return takes back one event that Take counted at at for each key, as
// if it had not been counted: a sign-in that succeeded is no attempt
// against its client's limit. A key with no event at at is left alone.
func (w *Window) Return(at time.Time, keys ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, key := range keys {
		e, found := w.keys[key]
		if !found {
			continue
		}
		k := e.Value.(*windowKey)
		if i := slices.Index(k.times, at.UnixNano()); i >= 0 {
			k.times = slices.Delete(k.times, i, i+1)
		}
	}
}

// Forget drops every event of the keys: they start again from 0.
func (w *Window) Forget(keys ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, key := range keys {
		if e, found := w.keys[key]; found {
			w.drop(e)
		}
	}
}

// Count is how many events key has in the window at now.
func (w *Window) Count(now time.Time, key string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, found := w.keys[key]
	if !found {
		return 0
	}
	k := e.Value.(*windowKey)
	k.times = w.recent(k.times, now)
	return len(k.times)
}
