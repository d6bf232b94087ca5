package ratelimit

import (
	"testing"
	"time"
)

// TestWindow plays a sliding window of an hour with two quotas taken
// together, step by step; every expected value is worked out from the
// rule: a take succeeds when each key had fewer than its limit events in
// the hour before it, and then counts for every key, else for none.
func TestWindow(t *testing.T) {
	t0 := time.Date(2028, 6, 15, 12, 0, 0, 0, time.UTC)
	w := NewWindow(time.Hour, 100)
	addr := func(k string) Quota { return Quota{Key: "a:" + k, Limit: 2} }
	client := func(k string) Quota { return Quota{Key: "c:" + k, Limit: 3} }
	for _, step := range []struct {
		name   string
		at     time.Duration // after t0
		quotas []Quota
		ok     bool
		retry  time.Duration
	}{
		{"first of x from 1", 0, []Quota{addr("x"), client("1")}, true, 0},
		{"second of x from 1", 10 * time.Minute, []Quota{addr("x"), client("1")}, true, 0},
		// x has 2 (at 0 and 10 min): full until the first leaves at 60 min.
		{"third of x from 2: x is full", 20 * time.Minute, []Quota{addr("x"), client("2")}, false, 40 * time.Minute},
		// The refusal counted nothing for client 2: it has 0, and y 0.
		{"y from 1: client 1 has its third", 30 * time.Minute, []Quota{addr("y"), client("1")}, true, 0},
		// Client 1 has 3 (0, 10, 30 min) and z none: full until 60 min.
		{"z from 1: client 1 is full", 40 * time.Minute, []Quota{addr("z"), client("1")}, false, 20 * time.Minute},
		// Both full: the later of the two, x at 60 min and client 1 at 60 min.
		{"x from 1: both full", 50 * time.Minute, []Quota{addr("x"), client("1")}, false, 10 * time.Minute},
		// At 60 min the event of 0 has left both windows (it is exactly an
		// hour old): x has 1 (10 min), client 1 has 2 (10, 30 min).
		{"x from 1 an hour later", 60 * time.Minute, []Quota{addr("x"), client("1")}, true, 0},
		// Client 2 was never counted: 3 takes in a row from it pass.
		{"w1 from 2", 61 * time.Minute, []Quota{addr("w1"), client("2")}, true, 0},
		{"w2 from 2", 61 * time.Minute, []Quota{addr("w2"), client("2")}, true, 0},
		{"w3 from 2", 61 * time.Minute, []Quota{addr("w3"), client("2")}, true, 0},
		{"w4 from 2: full", 62 * time.Minute, []Quota{addr("w4"), client("2")}, false, 59 * time.Minute},
	} {
		ok, retry := w.Take(t0.Add(step.at), step.quotas...)
		if ok != step.ok || retry != step.retry {
			t.Errorf("%s: Take = %v, %v; want %v, %v", step.name, ok, retry, step.ok, step.retry)
		}
	}
}

// TestWindowBounded: past maxKeys the least recently used key is
// forgotten (and starts from 0 again), and keys idle for a whole window
// are forgotten too.
func TestWindowBounded(t *testing.T) {
	t0 := time.Date(2028, 6, 15, 12, 0, 0, 0, time.UTC)
	w := NewWindow(time.Hour, 3)
	one := func(k string) Quota { return Quota{Key: k, Limit: 1} }
	for i, k := range []string{"a", "b", "c"} {
		if ok, _ := w.Take(t0.Add(time.Duration(i)*time.Second), one(k)); !ok {
			t.Fatalf("first take of %s refused", k)
		}
	}
	if ok, _ := w.Take(t0.Add(3*time.Second), one("a")); ok {
		t.Fatal("a took twice in an hour with a limit of 1")
	}
	// A fourth key pushes out the least recently used, a.
	if ok, _ := w.Take(t0.Add(4*time.Second), one("d")); !ok {
		t.Fatal("d refused")
	}
	if len(w.keys) != 3 || w.lru.Len() != 3 {
		t.Fatalf("%d keys (%d in the list), want at most 3", len(w.keys), w.lru.Len())
	}
	if ok, _ := w.Take(t0.Add(5*time.Second), one("a")); !ok {
		t.Error("a is still remembered after three later keys filled the window")
	}
	// a pushed out b, the least recently used then: c (2 s), d (4 s) and a
	// (5 s) are left. An hour after d, every key but a has been idle for
	// a whole window.
	if ok, _ := w.Take(t0.Add(time.Hour+4*time.Second), one("e")); !ok {
		t.Error("e refused")
	}
	if len(w.keys) != 2 {
		t.Errorf("%d keys an hour later, want 2 (a and e)", len(w.keys))
	}
	if ok, _ := w.Take(t0.Add(time.Hour+4*time.Second), one("a")); ok {
		t.Error("a, taken 59 min 59 s before, took again with a limit of 1")
	}
}

// TestWindowReturnForget: an event given back with Return no longer
// counts, for its key only; Count says how many are in the window;
// Forget starts keys from 0.
func TestWindowReturnForget(t *testing.T) {
	t0 := time.Date(2028, 6, 15, 12, 0, 0, 0, time.UTC)
	w := NewWindow(time.Hour, 100)
	a, b := Quota{Key: "a", Limit: 2}, Quota{Key: "b", Limit: 2}
	for i := range 2 {
		if ok, _ := w.Take(t0.Add(time.Duration(i)*time.Minute), a, b); !ok {
			t.Fatalf("take %d refused", i)
		}
	}
	// a and b have 2 each (0 and 1 min); a gives back the one of 1 min,
	// and one of 5 min it never had (nothing).
	w.Return(t0.Add(time.Minute), "a")
	w.Return(t0.Add(5*time.Minute), "a", "c")
	if ok, _ := w.Take(t0.Add(2*time.Minute), a); !ok {
		t.Error("a is full after giving one back")
	}
	// b still has 2: full until its first leaves, at 60 min.
	if ok, retry := w.Take(t0.Add(2*time.Minute), b); ok || retry != 58*time.Minute {
		t.Errorf("b: Take = %v, %v; want false, 58m", ok, retry)
	}
	if n := w.Count(t0.Add(2*time.Minute), "a"); n != 2 {
		t.Errorf("a counts %d at 2 min, want 2 (0 and 2 min)", n)
	}
	if n := w.Count(t0.Add(60*time.Minute), "a"); n != 1 {
		t.Errorf("a counts %d at 60 min, want 1 (2 min)", n)
	}
	w.Forget("b", "c")
	for i := range 2 {
		if ok, _ := w.Take(t0.Add(3*time.Minute), b); !ok {
			t.Errorf("b refused (%d) after Forget", i)
		}
	}
}
