package console

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/statusd/statusd"
)

// hash is hashPassword's hash of p, failing the test on an error.
func hash(t *testing.T, p string) string {
	t.Helper()
	h, err := hashPassword(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// verifies is verifyPassword's answer, failing the test on an error.
func verifies(t *testing.T, encoded, p string) bool {
	t.Helper()
	ok, err := verifyPassword(context.Background(), encoded, p)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestPassword: a hash is argon2id in PHC form, salted, and verifies its
// own password only; a malformed one verifies none.
func TestPassword(t *testing.T) {
	h1, h2 := hash(t, "correct horse battery"), hash(t, "correct horse battery")
	if !strings.HasPrefix(h1, "$argon2id$v=19$m=19456,t=2,p=1$") || h1 == h2 {
		t.Errorf("hashes %q and %q: want argon2id PHC strings with different salts", h1, h2)
	}
	if !verifies(t, h1, "correct horse battery") || !verifies(t, h2, "correct horse battery") {
		t.Error("a hash does not verify its password")
	}
	for _, wrong := range []string{"correct horse batterY", "", "correct horse battery "} {
		if verifies(t, h1, wrong) {
			t.Errorf("%q verifies", wrong)
		}
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdA$a2V5", strings.Replace(h1, "t=2", "t=99", 1), "$argon2id$v=19$m=19456,t=2,p=1$!!$!!"} {
		if verifies(t, bad, "correct horse battery") {
			t.Errorf("the malformed hash %q verifies", bad)
		}
	}
}

// TestHashingBound: 24 sign-ins at once, against a real hash, an unknown
// account's and a malformed hash, never run more than maxHashing (4)
// argon2id computations at once, and all of them run: the right password
// verifies, every other is refused. A sign-in whose request ends while
// every slot is taken gets errBusy, having hashed nothing.
func TestHashingBound(t *testing.T) {
	good := hash(t, "correct horse battery")
	var running, peak, calls atomic.Int32
	idKey = func(p, salt []byte, passes, memory uint32, threads uint8, keyLen uint32) []byte {
		n := running.Add(1)
		defer running.Add(-1)
		calls.Add(1)
		for {
			m := peak.Load()
			if n <= m || peak.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond) // so that the sign-ins overlap
		return argon2.IDKey(p, salt, passes, memory, threads, keyLen)
	}
	t.Cleanup(func() { idKey = argon2.IDKey })

	const n = 24
	var wg sync.WaitGroup
	results := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			encoded, password := good, "wrong password!"
			switch i % 3 {
			case 0:
				password = "correct horse battery"
			case 1:
				encoded = "" // an unknown account
			}
			ok, err := verifyPassword(context.Background(), encoded, password)
			if err != nil {
				t.Errorf("sign-in %d: %v", i, err)
			}
			results[i] = ok
		})
	}
	wg.Wait()
	if peak.Load() != maxHashing || calls.Load() != n {
		t.Errorf("%d hashes, at most %d at once; want %d, at most %d at once", calls.Load(), peak.Load(), n, maxHashing)
	}
	for i, ok := range results {
		if ok != (i%3 == 0) {
			t.Errorf("sign-in %d verified: %v, want %v", i, ok, i%3 == 0)
		}
	}

	// Every slot taken: a sign-in whose request ends waits no longer.
	for range maxHashing {
		hashing <- struct{}{}
	}
	defer func() {
		for range maxHashing {
			<-hashing
		}
	}()
	calls.Store(0)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	ok, err := verifyPassword(ctx, good, "correct horse battery")
	if e, isErr := errors.AsType[*statusd.Error](err); ok || !isErr || e.Code != statusd.EUnavailable || calls.Load() != 0 {
		t.Errorf("a sign-in with every slot taken: %v, %v (%d hashes); want false, unavailable, none", ok, err, calls.Load())
	}
}
