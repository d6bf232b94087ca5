package sqlstore

import (
	"context"
	"testing"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/storetest"
	"github.com/statusd/statusd/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestConformancePostgres runs the same suite as SQLite against PostgreSQL.
func TestConformancePostgres(t *testing.T) {
	storetest.Run(t, func(t *testing.T) statusd.Store {
		s, err := Open(context.Background(), testenv.Postgres(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
