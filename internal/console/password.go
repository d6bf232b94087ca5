package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// The argon2id parameters of hashPassword (RFC 9106's second
// recommendation, OWASP's minimum): 19 MiB, 2 passes, one lane.
const (
	argonMemory  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
)

// hashPassword returns the argon2id hash of p with a random salt, as a
// PHC string: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>.
func hashPassword(p string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(p), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding.EncodeToString
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, b64(salt), b64(key))
}

// verifyPassword reports whether p is the password of the PHC string
// encoded (hashPassword's, with its own parameters), comparing in
// constant time. An encoded string that is not one, "" too, matches no
// password, after as much work as one that is: the time of an answer
// does not tell whether the account exists.
func verifyPassword(encoded, p string) bool {
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
		argon2.IDKey([]byte(p), make([]byte, 16), argonTime, argonMemory, argonThreads, argonKeyLen)
		return false
	}
	got := argon2.IDKey([]byte(p), salt, passes, memory, threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}
