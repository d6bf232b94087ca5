package main

import (
	"os"
	"testing"

	"github.com/statusd/statusd/internal/testenv"
)

// TestMain lets the test binary stand in for the statusd binary: with
// STATUSD_TEST_MAIN=1 it runs main, so that tests can start real statusd
// processes and kill them. Otherwise it runs the tests and stops the servers
// testenv started.
func TestMain(m *testing.M) {
	if os.Getenv("STATUSD_TEST_MAIN") == "1" {
		main()
		return
	}
	testenv.Main(m)
}
