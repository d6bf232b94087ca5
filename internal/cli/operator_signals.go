package cli

// The operator commands of the signals (CONTRACT C9): the sources whose
// alerts come in on their hooks, and the drafts those alerts make, which
// a person publishes or discards.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
)

// ---- source ----

func (e Env) sourceCommand() *cobra.Command {
	return group("source", "the senders of alerts: Alertmanager, Grafana, Uptime Kuma, scripts",
		"Each source has its own hook, a URL on the admin API's listener, and its own token,\n"+
			"which its sender sends as Authorization: Bearer TOKEN. Its alerts make drafts\n"+
			"(statusd draft list), never public notices by themselves unless a rule says publish.\n"+
			"Example:\n"+
			"  statusd source add Prometheus --format alertmanager --heartbeat-match alertname=Watchdog",
		e.sourceAdd(), e.sourceList(), e.sourceRemove(), e.sourceRotate())
}

// sourceFailure says what went wrong with a request about a source.
func (cmd *opCommand) sourceFailure(ctx context.Context, err error) error {
	return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd source list shows the sources")
}

// opSourceName names a source: generic source 3 "Scripts".
func opSourceName(s *statusd.AdminSource) string {
	return fmt.Sprintf("%s source %d %q", printable(s.Format), s.ID, s.Name)
}

// sourceSecret prints, after the line that says what was done, a source's
// hook URL and its token, which the answer carries this once.
func (cmd *opCommand) sourceSecret(s *statusd.AdminSource, said string) error {
	return cmd.answer(func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s\nhook:  %s\ntoken: %s\n"+
			"Store this token now: the sender sends it as Authorization: Bearer TOKEN to the hook, and it is not shown again "+
			"(statusd source rotate %d prints a new one).\n", said, printable(cmd.base+s.HookPath), printable(s.Token), s.ID)
		return err
	})
}

func (e Env) sourceAdd() *cobra.Command {
	cmd := e.operator("add NAME --format alertmanager|grafana|uptime_kuma|generic [--rules FILE|-] "+
		"[--heartbeat-match LABEL=VALUE ...] [--heartbeat-timeout D] [--secret S]",
		"add a source and print its hook URL and token")
	cmd.c.Long = `Prints the source's hook URL, to give its sender, and its token, shown this once.

--rules reads a JSON array of rules, tried in order, the first whose match
holds for an alert's labels deciding: {"match": {"label": "value", "l2": "=~re",
"l3": "!=v"}, "components": ["key or id", ...] or "component_label": "label",
"action": "draft" (the default), "ignore" or "publish", "subject" and "content"
(Go templates over .Components, .Labels, .Annotations), "hold": "2m", and for
publish, "notify": true and "cooldown": "5m"}. An alert no rule maps names its
components by its label statusd_component or component: keys or ids, with
commas between. A heartbeat alert only shows that the sender is alive: without
one for --heartbeat-timeout the source is stale (statusd source list).

Examples:
  statusd source add Prometheus --format alertmanager --heartbeat-match alertname=Watchdog
  statusd source add Scripts --format generic --rules rules.json
  echo '[{"match": {"team": "db"}, "components": ["database"]}]' | statusd source add DB --format grafana --rules -`
	var format, rules, secret string
	var match opStrings
	var timeout time.Duration
	cmd.fs.StringVar(&format, "format", "", "what its sender posts, its `format`: alertmanager, grafana, uptime_kuma or generic")
	cmd.fs.StringVar(&rules, "rules", "", "a JSON `file` holding an array of mapping rules, or - for standard input")
	cmd.fs.Var(&match, "heartbeat-match", "a `label=value` of the sender's heartbeat alert, such as alertname=Watchdog;\n"+
		"label=~regex and label!=value too (repeat for several: all must hold)")
	cmd.fs.DurationVar(&timeout, "heartbeat-timeout", 0, "how long without a heartbeat makes the source stale, a `duration`\n(default 5m with --heartbeat-match)")
	cmd.fs.StringVar(&secret, "secret", "", "Grafana's HMAC `secret`, which signs its requests (--format grafana only)")
	return cmd.run(func(ctx context.Context, args []string) error {
		rest, err := cmd.connect(args, "NAME")
		if err != nil {
			return err
		}
		switch {
		case format == "":
			return cmd.usageErr("say what the sender posts with --format alertmanager, grafana, uptime_kuma or generic")
		case secret != "" && format != "grafana":
			return cmd.usageErr("--secret is Grafana's signing secret: only with --format grafana")
		case timeout != 0 && len(match) == 0:
			return cmd.usageErr("--heartbeat-timeout needs --heartbeat-match LABEL=VALUE: the alert that is the heartbeat")
		}
		body := statusd.AdminSourceRequest{Name: &rest[0], Format: &format}
		if secret != "" {
			body.Secret = &secret
		}
		if len(match) > 0 {
			hb, err := cmd.heartbeat(match, timeout)
			if err != nil {
				return err
			}
			body.Heartbeat = statusd.Some(hb)
		}
		if cmd.fs.Changed("rules") {
			list, err := readRules(e.Stdin, rules)
			if err != nil {
				return err
			}
			body.Rules = &list
		}
		s, err := cmd.adm.CreateSource(ctx, body)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.sourceSecret(s, "added "+opSourceName(s))
	})
}

// heartbeat is the heartbeat of --heartbeat-match and --heartbeat-timeout
// (5 minutes when 0). A condition is label=value, label=~regex or
// label!=value, as a rule's match holds them.
func (cmd *opCommand) heartbeat(match []string, timeout time.Duration) (statusd.Heartbeat, error) {
	hb := statusd.Heartbeat{Match: map[string]string{}, Timeout: statusd.Span(timeout)}
	if timeout == 0 {
		hb.Timeout = statusd.Span(5 * time.Minute)
	}
	for _, m := range match {
		i := strings.IndexAny(m, "=!")
		var label, op, value string
		if i > 0 {
			label, op = strings.TrimSpace(m[:i]), m[i:]
		}
		switch {
		case strings.HasPrefix(op, "=~"), strings.HasPrefix(op, "!="):
			value = op
		case strings.HasPrefix(op, "="):
			value = op[1:]
		}
		if label == "" || value == "" {
			return hb, cmd.usageErr("--heartbeat-match: %q is not label=value, label=~regex or label!=value", m)
		}
		if _, dup := hb.Match[label]; dup {
			return hb, cmd.usageErr("--heartbeat-match: label %q is given twice", label)
		}
		hb.Match[label] = value
	}
	return hb, nil
}

// readRules reads the mapping rules of --rules: a JSON array of rules from
// the file name, or from stdin when name is "-". A key that a rule does
// not have is refused, as the admin API refuses it, naming the rule.
func readRules(stdin io.Reader, name string) ([]statusd.SignalRule, error) {
	var data []byte
	var err error
	if name == "-" {
		name = "standard input"
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("--rules: %w", err)
	}
	tree, problems, err := statusd.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("--rules %s: not JSON: %v", name, err)
	}
	list, ok := tree.([]any)
	if !ok {
		return nil, fmt.Errorf(`--rules %s: not a JSON array of rules such as [{"match": {"team": "db"}, "components": ["database"]}]`, name)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("--rules %s: rules%s", name, problems[0])
	}
	rules := make([]statusd.SignalRule, len(list))
	for i, v := range list {
		if _, ok := v.(map[string]any); !ok {
			return nil, fmt.Errorf("--rules %s: rules[%d]: a rule is a JSON object", name, i)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rules[i]); err != nil {
			return nil, fmt.Errorf("--rules %s: rules[%d]: %v", name, i, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	return rules, nil
}

func (e Env) sourceList() *cobra.Command {
	cmd := e.operator("list", "list the sources, with their state: never (heard nothing yet), ok or stale (heartbeat late)")
	cmd.c.Aliases = []string{"ls"}
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		list, err := cmd.adm.Sources(ctx)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tFORMAT\tSTATE\tLAST EVENT")
			for _, s := range list {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", s.ID, printable(s.Name), printable(s.Format), printable(s.State), opShortTime(s.LastEventAt))
			}
			return tw.Flush()
		})
	})
}

func (e Env) sourceRemove() *cobra.Command {
	cmd := e.operator("rm ID", "remove a source and its signals; the drafts they made stay")
	cmd.c.Aliases = []string{"remove"}
	cmd.c.SuggestFor = []string{"delete"}
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDOf("source", args)
		if err != nil {
			return err
		}
		s, err := cmd.adm.Source(ctx, id)
		if err == nil {
			err = cmd.adm.DeleteSource(ctx, id)
		}
		if err != nil {
			return cmd.sourceFailure(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "removed %s and its signals; its hook and token no longer work\n", opSourceName(s))
			return err
		})
	})
}

func (e Env) sourceRotate() *cobra.Command {
	cmd := e.operator("rotate ID", "give a source a new token, printed once; the old one stops working at once")
	cmd.c.Long = `Give the new token to the source's sender: until then its alerts are refused (401).

Example:
  statusd source rotate 3`
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDOf("source", args)
		if err != nil {
			return err
		}
		s, err := cmd.adm.RotateSourceToken(ctx, id)
		if err != nil {
			return cmd.sourceFailure(ctx, err)
		}
		return cmd.sourceSecret(s, "new token for "+opSourceName(s)+"; the old one no longer works")
	})
}

// ---- draft ----

func (e Env) draftCommand() *cobra.Command {
	return group("draft", "the notices that alerts propose, which a person publishes or discards",
		"A draft is a new incident, an update of an open one, or its reopening, made by\n"+
			"the alerts of a source (statusd source). Nothing public changes until it is published.\n"+
			"Example:\n"+
			"  statusd draft list; statusd draft show 7; statusd draft publish 7 --subject \"API errors\"",
		e.draftList(), e.draftShow(), e.draftPublish(), e.draftDiscard())
}

// draftFailure says what went wrong with a request about draft id, read
// as read (nil when it was not): a 404 names the list of drafts; a 409
// says to read it again when it could still be published as read, or
// that it is no longer open.
func (cmd *opCommand) draftFailure(ctx context.Context, id int64, read *statusd.AdminDraft, err error) error {
	var ce *client.Error
	if errors.As(err, &ce) && ce.Status == http.StatusConflict && read != nil {
		hint := fmt.Sprintf("the draft changed since it was read: run statusd draft show %d and try again", id)
		if read.State != statusd.DraftOpen && read.State != statusd.DraftLapsed {
			hint = fmt.Sprintf("statusd draft show %d shows it; statusd draft list --state open lists the open drafts", id)
		}
		return opWithHint(cmd.fail(ctx, err), ExitRefused, hint)
	}
	return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd draft list shows the drafts")
}

// readDraft parses args, which must hold one draft id, and reads the
// draft, for its version.
func (cmd *opCommand) readDraft(ctx context.Context, args []string) (*statusd.AdminDraft, error) {
	id, err := cmd.parseIDOf("draft", args)
	if err != nil {
		return nil, err
	}
	d, err := cmd.adm.Draft(ctx, id)
	if err != nil {
		return nil, cmd.draftFailure(ctx, id, nil, err)
	}
	return d, nil
}

// draftComponents names components by their ids for drafts: "API (10),
// Replica (31)", "-" for none, a removed one by its id alone. It fetches
// the component list only when some id is given.
func (cmd *opCommand) draftComponents(ctx context.Context, drafts ...statusd.AdminDraft) (func(ids []int64) string, error) {
	names := map[int64]string{}
	if slices.ContainsFunc(drafts, func(d statusd.AdminDraft) bool { return len(d.ComponentIDs) > 0 }) {
		list, err := cmd.components(ctx)
		if err != nil {
			return nil, err
		}
		for _, c := range list {
			names[c.ID] = c.Name
		}
	}
	return func(ids []int64) string {
		parts := make([]string, len(ids))
		for i, id := range ids {
			parts[i] = strconv.FormatInt(id, 10)
			if n, ok := names[id]; ok {
				parts[i] = fmt.Sprintf("%s (%d)", n, id)
			}
		}
		return opOrDash(printable(strings.Join(parts, ", ")))
	}, nil
}

// opAge says how long ago t was, in its largest unit: 45s, 12m, 5h, 3d.
func opAge(t, now time.Time) string {
	d := max(now.Sub(t), 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// opIDs lists ids: "4, 5", or "-".
func opIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return opOrDash(strings.Join(parts, ", "))
}

func (e Env) draftList() *cobra.Command {
	cmd := e.operator("list [--state open|published|discarded|lapsed]", "list the drafts, by id")
	cmd.c.Aliases = []string{"ls"}
	var state string
	cmd.fs.StringVar(&state, "state", "", "only the drafts in this `state`: open, published, discarded or lapsed\n(lapsed: its alerts cleared before anyone published it)")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		list, err := cmd.adm.Drafts(ctx, state)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		names, err := cmd.draftComponents(ctx, list...)
		if err != nil {
			return err
		}
		return cmd.answer(func(w io.Writer) error {
			now := time.Now()
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tSTATE\tSUBJECT\tCOMPONENTS\tAGE")
			for _, d := range list {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", d.ID, printable(d.Kind), printable(d.State), printable(d.Subject),
					names(d.ComponentIDs), opAge(d.CreatedAt.Time, now))
			}
			return tw.Flush()
		})
	})
}

func (e Env) draftShow() *cobra.Command {
	cmd := e.operator("show ID", "show a draft: what publishing it writes, its signals and warnings")
	return cmd.run(func(ctx context.Context, args []string) error {
		d, err := cmd.readDraft(ctx, args)
		if err != nil {
			return err
		}
		names, err := cmd.draftComponents(ctx, *d)
		if err != nil {
			return err
		}
		return cmd.answer(func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "draft %d\t%s, %s\n", d.ID, printable(d.Kind), printable(d.State))
			fmt.Fprintf(tw, "subject\t%s\n", printable(d.Subject))
			fmt.Fprintf(tw, "content\t%s\n", printable(strings.Join(strings.Fields(d.Content), " ")))
			fmt.Fprintf(tw, "notice state\t%s\n", printable(string(d.NoticeState)))
			fmt.Fprintf(tw, "components\t%s\n", names(d.ComponentIDs))
			notice := "-"
			if d.NoticeID != nil {
				notice = strconv.FormatInt(*d.NoticeID, 10)
			}
			fmt.Fprintf(tw, "notice\t%s\n", notice)
			fmt.Fprintf(tw, "source\t%d\n", d.SourceID)
			fmt.Fprintf(tw, "signals\t%s\n", opIDs(d.SignalIDs))
			if d.PublishAt != nil {
				fmt.Fprintf(tw, "publishes itself at\t%s\n", opShortTime(d.PublishAt))
			}
			if d.Reason != "" {
				fmt.Fprintf(tw, "reason\t%s\n", printable(d.Reason))
			}
			fmt.Fprintf(tw, "version\t%d\n", d.Version)
			fmt.Fprintf(tw, "created\t%s\n", opShortTime(&d.CreatedAt))
			fmt.Fprintf(tw, "updated\t%s\n", opShortTime(&d.UpdatedAt))
			if len(d.Warnings) == 0 {
				fmt.Fprintf(tw, "warnings\t-\n")
			}
			for _, warning := range d.Warnings {
				fmt.Fprintf(tw, "warning\t%s\n", printable(warning))
			}
			return tw.Flush()
		})
	})
}

func (e Env) draftPublish() *cobra.Command {
	cmd := e.operator("publish ID [--subject S] [-m MESSAGE] [--state STATE] [--no-notify]", "publish a draft as the notice write it proposes")
	cmd.c.Long = `Reads the draft, then publishes it as read: if it changed meanwhile (new alerts,
another person), nothing is published and the command says to read it again.
An open draft publishes as it stands; a lapsed one (its alerts cleared) as a
closed incident. The flags change what is published.

Examples:
  statusd draft publish 7
  statusd draft publish 7 --subject "Slow API" -m "We are looking into slow answers." --state identified`
	var subject, msg, state string
	cmd.fs.StringVar(&subject, "subject", "", "the notice's `title` (default: the draft's)")
	cmd.message(&msg, "", "the update's `text`, shown on the page (default: the draft's)")
	cmd.fs.StringVar(&state, "state", "", "the notice's `state` (default: the draft's; statusd draft show shows it)")
	cmd.notifyFlag()
	return cmd.run(func(ctx context.Context, args []string) error {
		d, err := cmd.readDraft(ctx, args)
		if err != nil {
			return err
		}
		body := statusd.AdminDraftRequest{Version: &d.Version, Notify: cmd.notify()}
		for _, f := range []struct {
			flag string
			dst  **string
			v    *string
		}{{"subject", &body.Subject, &subject}, {"message", &body.Content, &msg}, {"state", &body.NoticeState, &state}} {
			if cmd.fs.Changed(f.flag) {
				*f.dst = f.v
			}
		}
		p, err := cmd.adm.PublishDraft(ctx, d.ID, body)
		if err != nil {
			return cmd.draftFailure(ctx, d.ID, d, err)
		}
		return cmd.answer(func(w io.Writer) error {
			n := &p.Notice
			_, err := fmt.Fprintf(w, "published draft %d: %s %d %q (%s)%s\nurl: %s\n", p.Draft.ID, opNoun(n), n.ID, n.Subject, opState(n), opOn(n),
				printable(n.URL))
			return err
		})
	})
}

func (e Env) draftDiscard() *cobra.Command {
	cmd := e.operator("discard ID [--reason R]", "discard a draft: nothing is published; its signals stay")
	var reason string
	cmd.fs.StringVar(&reason, "reason", "", "why, a `text` kept with the draft (statusd draft show)")
	return cmd.run(func(ctx context.Context, args []string) error {
		d, err := cmd.readDraft(ctx, args)
		if err != nil {
			return err
		}
		done, err := cmd.adm.DiscardDraft(ctx, d.ID, statusd.AdminDiscardRequest{Version: &d.Version, Reason: reason})
		if err != nil {
			return cmd.draftFailure(ctx, d.ID, d, err)
		}
		return cmd.answer(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "discarded draft %d %q\n", done.ID, done.Subject)
			return err
		})
	})
}
