// Command gen writes a synthetic import document (CONTRACT C5) for the
// benchmark harness: a page with a two-level component tree, a year of
// notices with realistic update histories, and one current incident.
//
//	go run ./bench/gen -notices 100000 -components 1000 -o page.json -meta page.env
//
// The output depends only on -seed and -now, so a run can be repeated
// exactly. Times are placed in the year before -now (default: the current
// hour), so that the document looks like a live page when it is imported.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/statusd/statusd"
)

func main() {
	var (
		cfg    config
		out    = flag.String("o", "-", "output `file`, - for standard output")
		meta   = flag.String("meta", "", "also write KEY=VALUE lines describing the page (ids worth requesting) to `file`")
		nowArg = flag.String("now", "", "RFC 3339 time the history ends at (default: the current hour)")
		indent = flag.Bool("indent", false, "indent the JSON (as statusd export does); compact by default")
	)
	flag.IntVar(&cfg.Notices, "notices", 10000, "number of notices")
	flag.IntVar(&cfg.Components, "components", 100, "number of components (a tree two levels deep)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	flag.Parse()
	cfg.Now = time.Now().UTC().Truncate(time.Hour)
	if *nowArg != "" {
		t, err := time.Parse(time.RFC3339, *nowArg)
		if err != nil {
			fail("-now: %v", err)
		}
		cfg.Now = t.UTC()
	}
	if cfg.Notices < 100 || cfg.Components < 2 {
		fail("need at least 100 notices and 2 components")
	}
	doc, info := generate(cfg)

	w := io.Writer(os.Stdout)
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fail("%v", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := encode(bw, doc, *indent); err != nil {
		fail("writing the document: %v", err)
	}
	if err := bw.Flush(); err != nil {
		fail("writing the document: %v", err)
	}
	if *meta != "" {
		if err := os.WriteFile(*meta, []byte(info.env()), 0o644); err != nil {
			fail("%v", err)
		}
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "gen: "+format+"\n", args...)
	os.Exit(1)
}

// encode writes doc with statusd's own export encoding, compacted unless
// indent is set.
func encode(w io.Writer, doc *statusd.Document, indent bool) error {
	if indent {
		return statusd.EncodeDocument(w, doc)
	}
	var buf bytes.Buffer
	if err := statusd.EncodeDocument(&buf, doc); err != nil {
		return err
	}
	var compact bytes.Buffer
	compact.Grow(buf.Len() / 2)
	if err := json.Compact(&compact, buf.Bytes()); err != nil {
		return err
	}
	compact.WriteByte('\n')
	_, err := w.Write(compact.Bytes())
	return err
}
