package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testenv"
)

// TestReadmeOwnPage runs the README's "Your own page" block as written, in
// an empty folder, with the binary its first line builds: each command
// must succeed, and print what the comment line after it shows. The test
// only moves serve to a free port (handed over as a socket, as systemd
// does) and points the CLI there, through STATUSD_URL.
func TestReadmeOwnPage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	steps := readmeSteps(t, string(readme), "## Your own page")
	dir, bin := t.TempDir(), filepath.Join(t.TempDir(), "statusd")
	ln := localListener(t)
	base := "http://" + ln.Addr().String()
	env := []string{"STATUSD_URL=" + base}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "STATUSD_") {
			env = append(env, kv)
		}
	}
	exportRE := regexp.MustCompile(`^export ([A-Z_]+)=(?:\$\((.*)\)|(\S+))$`)
	for _, s := range steps {
		line, export := s.line, ""
		if m := exportRE.FindStringSubmatch(line); m != nil {
			if m[2] == "" {
				env = append(env, m[1]+"="+m[3])
				continue
			}
			line, export = m[2], m[1]
		}
		words, background := shellWords(t, line)
		var cmd *exec.Cmd
		switch {
		case len(words) > 3 && words[0] == "go" && words[1] == "build" && words[2] == "-o" && words[3] == "statusd":
			cmd = exec.Command("go", append([]string{"build", "-o", bin}, words[4:]...)...)
			cmd.Dir = "../.." // the clone
		case words[0] == "./statusd":
			cmd = exec.Command(bin, words[1:]...)
			cmd.Dir = dir
		default:
			t.Fatalf("README line %q: the test runs go build -o statusd and ./statusd only", s.line)
		}
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if background {
			startServe(t, cmd, ln, base)
			continue
		}
		var stdout bytes.Buffer
		if export != "" {
			cmd.Stdout = &stdout
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("README line %q: %v\n%s", s.line, err, &out)
		}
		if !strings.Contains(out.String(), s.want) {
			t.Errorf("README line %q printed %q, want %q as the README shows", s.line, &out, s.want)
		}
		if export != "" {
			env = append(env, export+"="+strings.TrimSpace(stdout.String()))
		}
	}
	// What the block published is on the page.
	resp, err := http.Get(base + "/api/v1/notices")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Elevated error rates on the API") {
		t.Errorf("after the README's block, /api/v1/notices: %d %s", resp.StatusCode, body)
	}
}

// startServe starts cmd, a statusd serve, in the background on ln (as
// descriptor 3), and returns once it answers at base.
func startServe(t *testing.T, cmd *exec.Cmd, ln net.Listener, base string) {
	t.Helper()
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Env = append(cmd.Env, "LISTEN_FDS=1")
	cmd.ExtraFiles = []*os.File{f}
	logs := &testenv.LogBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := client.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not become ready:\n%s", logs)
		}
	}
}

// readmeStep is a command of a README block and what the comment line
// after it says it prints ("" when none).
type readmeStep struct{ line, want string }

// readmeSteps returns the commands of the first sh block after heading.
func readmeSteps(t *testing.T, readme, heading string) []readmeStep {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	_, block, opened := strings.Cut(after, "```sh\n")
	if block, _, ok = strings.Cut(block, "\n```"); !opened || !ok {
		t.Fatalf("README.md has no sh block under %q", heading)
	}
	var steps []readmeStep
	for line := range strings.Lines(block) {
		line = strings.TrimSpace(line)
		if want, ok := strings.CutPrefix(line, "# "); ok && len(steps) > 0 {
			steps[len(steps)-1].want = want
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 && strings.Count(line[:i], `"`)%2 == 0 {
			line = strings.TrimSpace(line[:i])
		}
		steps = append(steps, readmeStep{line: line})
	}
	return steps
}

// shellWords splits a command line as sh does for the words the README
// uses (plain and double-quoted), and reports whether it ends with a job
// put in the background ("&", with what follows it, such as a sleep,
// left to the test).
func shellWords(t *testing.T, line string) ([]string, bool) {
	t.Helper()
	var words []string
	var word strings.Builder
	quoted, inWord := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, word.String())
			}
			word.Reset()
			inWord = false
		case r == '&' && !quoted:
			return words, true
		case strings.ContainsRune(`$'\|;<>()`+"`", r) && !quoted:
			t.Fatalf("README line %q: %q is more shell than the test runs", line, r)
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("README line %q: a quote is not closed", line)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, false
}
