package cli

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd/internal/mirror"
)

// mirrorCommand is statusd mirror: the commands of the signed static copy
// of the public surface (CONTRACT C10).
func (e Env) mirrorCommand() *cobra.Command {
	return group("mirror", "the signed static copy of the page (serve --mirror)", "", e.mirrorKeyCommand(), e.mirrorVerifyCommand())
}

// mirrorKeyCommand is statusd mirror key: it prints the public key that
// signs the copies' manifests, as PEM, for openssl and mirror verify; with
// --rotate it makes a new key first, which signs from the next push on.
func (e Env) mirrorKeyCommand() *cobra.Command {
	var db string
	var rotate bool
	c := Command("key [--db DATABASE] [--rotate]", "print the public key that signs the mirror's copies (PEM)")
	c.Long = "The key is kept in the database and made at its first use. Publish the PEM beside the copy:\n" +
		"openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in mirror.json -sigfile mirror.json.sig\n" +
		"checks a copy without statusd. --rotate replaces the key: the servers sign with the new one\n" +
		"from their next push on (at the latest the next heartbeat); publish it before, and keep the old\n" +
		"one for the copies signed before."
	WithEnv(c).String(&db, "db", "statusd.db", DBUsage)
	c.Flags().BoolVar(&rotate, "rotate", false, "make a new key, and print it")
	c.RunE = func(c *cobra.Command, rest []string) error {
		if len(rest) > 0 {
			return UsageError(c, "takes no arguments, got %q", rest)
		}
		store, _, err := openPage(c.Context(), db)
		if err != nil {
			return err
		}
		defer store.Close()
		key, err := store.Mirror().SigningKey(c.Context(), time.Now(), rotate)
		if err != nil {
			return userError(err)
		}
		_, err = e.Stdout.Write(mirror.PublicKeyPEM(key.Public().(ed25519.PublicKey)))
		return err
	}
	return c
}

// mirrorShown is how many of a copy's missing or differing files
// statusd mirror verify names.
const mirrorShown = 10

// mirrorVerifyCommand is statusd mirror verify: it checks a copy's
// signature and every file's SHA-256, and prints its age.
func (e Env) mirrorVerifyCommand() *cobra.Command {
	var keyFile, endpoint, region string
	c := Command("verify URL --key KEY.pem [--endpoint E] [--region R]",
		"check a copy's signature and every file, and print its age")
	c.Long = "URL is the copy's: file:///dir, s3://bucket/prefix (credentials from AWS_ACCESS_KEY_ID and\n" +
		"AWS_SECRET_ACCESS_KEY) or https://host/path. The key is the PEM that statusd mirror key prints."
	c.Flags().StringVar(&keyFile, "key", "", "the `file` of the public key the copy's mirror.json is signed with (PEM)")
	c.Flags().StringVar(&endpoint, "endpoint", "", "the S3 service's `URL`, for stores other than AWS")
	c.Flags().StringVar(&region, "region", "", "the bucket's `region` (default us-east-1)")
	c.RunE = func(c *cobra.Command, rest []string) error {
		if len(rest) != 1 || keyFile == "" {
			return UsageError(c, "takes the copy's URL and --key, the file of its public key")
		}
		key, err := mirror.ReadPublicKey(keyFile)
		if err != nil {
			return fmt.Errorf("--key: %w; print the key with statusd mirror key", err)
		}
		b, err := mirror.Open(rest[0], mirror.Options{Endpoint: endpoint, Region: region}.WithEnv(e.Getenv))
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		report, err := mirror.Check(c.Context(), b, key)
		if err != nil {
			return fmt.Errorf("mirror verify: %w", err)
		}
		m := report.Manifest
		fmt.Fprintf(e.Stdout, "signature: ok (key %s)\n", keyFile)
		if len(report.Problems) == 0 {
			fmt.Fprintf(e.Stdout, "files: %d, every hash matches\n", len(m.Files))
		} else {
			fmt.Fprintf(e.Stdout, "files: %d, %d missing or not as mirror.json says:\n", len(m.Files), len(report.Problems))
			for _, p := range report.Problems[:min(len(report.Problems), mirrorShown)] {
				fmt.Fprintf(e.Stdout, "  %s: %s\n", printable(p.Target), printable(p.Reason))
			}
			if n := len(report.Problems) - mirrorShown; n > 0 {
				fmt.Fprintf(e.Stdout, "  and %d more\n", n)
			}
		}
		now := time.Now()
		fresh := "fresh"
		if m.Stale(now) {
			fresh = "stale"
		}
		fmt.Fprintf(e.Stdout, "sequence %d, generated %s, %s ago; stale after %s: %s\n", m.Sequence,
			m.GeneratedAt.UTC().Format(time.RFC3339), m.Age(now), time.Duration(m.StaleAfter)*time.Second, fresh)
		if len(report.Problems) > 0 {
			return fmt.Errorf("mirror verify: the copy in %s is not whole: %d of its %d files are missing or differ "+
				"(a push under way: run it again in a minute; else push again)", b, len(report.Problems), len(m.Files))
		}
		return nil
	}
	return c
}
