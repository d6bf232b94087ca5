package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd/internal/mirror"
)

// mirrorCommand is statusd mirror: the commands of the signed static copy
// of the public surface (CONTRACT C10).
func (e Env) mirrorCommand() *cobra.Command {
	return group("mirror", "the signed static copy of the page (serve --mirror)", "", e.mirrorVerifyCommand())
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
