package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
)

// The argon2id parameters of hashPassword (RFC 9106's second
// recommendation, OWASP's minimum): 19 MiB, 2 passes, one lane.
const (
	argonMemory  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
)

// At most maxHashing passwords are hashed at once (each takes 19 MiB for
// about 60 ms), so that a flood of sign-ins from many clients cannot
// exhaust the memory; the others wait for a slot, for hashWait at most
// and while their request lasts.
const (
	maxHashing = 4
	hashWait   = 10 * time.Second
)

// hashing holds a token for each hash under way.
var hashing = make(chan struct{}, maxHashing)

// idKey is argon2.IDKey; a test counts the calls under way through it.
var idKey = argon2.IDKey

// errBusy answers a sign-in that waited too long for a slot.
var errBusy = route.Retry(statusd.Errorf(statusd.EUnavailable,
	"The server is busy signing other people in. Please try again in a few seconds."), 5)

// argonKey is idKey's argon2id key, computed in one of the maxHashing
// slots: errBusy when none frees up in time.
func argonKey(ctx context.Context, p string, salt []byte, passes, memory uint32, threads uint8, keyLen uint32) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, hashWait)
	defer cancel()
	select {
	case hashing <- struct{}{}:
	case <-ctx.Done():
		return nil, errBusy
	}
	defer func() { <-hashing }()
	return idKey([]byte(p), salt, passes, memory, threads, keyLen), nil
}

// hashPassword returns the argon2id hash of p with a random salt, as a
// PHC string: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>.
func hashPassword(ctx context.Context, p string) (string, error) {
	salt := make([]byte, 16)
	rand.Read(salt)
	key, err := argonKey(ctx, p, salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	if err != nil {
		return "", err
	}
	b64 := base64.RawStdEncoding.EncodeToString
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, b64(salt), b64(key)), nil
}

// verifyPassword reports whether p is the password of the PHC string
// encoded (hashPassword's, with its own parameters), comparing in
// constant time. An encoded string that is not one, "" too, matches no
// password, after as much work as one that is: the time of an answer
// does not tell whether the account exists. The error is errBusy's.
func verifyPassword(ctx context.Context, encoded, p string) (bool, error) {
	var version int
	var memory, passes uint32
	var threads uint8
	var salt64, key64 string
	fields := strings.Split(encoded, "$")
	ok := len(fields) == 6 && fields[1] == "argon2id"
	if ok {
		_, err1 := fmt.Sscanf(fields[2], "v=%d", &version)
		_, err2 := fmt.Sscanf(fields[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads)
		salt64, key64 = fields[4], fields[5]
		ok = err1 == nil && err2 == nil && version == argon2.Version && memory > 0 && passes > 0 && threads > 0 &&
			memory <= 1<<20 && passes <= 16
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(salt64)
	key, err2 := base64.RawStdEncoding.DecodeString(key64)
	if !ok || err1 != nil || err2 != nil || len(key) == 0 {
		// The work of a real check, for a result thrown away.
		_, err := argonKey(ctx, p, make([]byte, 16), argonTime, argonMemory, argonThreads, argonKeyLen)
		return false, err
	}
	got, err := argonKey(ctx, p, salt, passes, memory, threads, uint32(len(key)))
	return err == nil && subtle.ConstantTimeCompare(got, key) == 1, err
}
