package main

// The operator commands: a thin client of the admin API (CONTRACT C6) for
// the people who publish incidents, maintenance and announcements. Each
// command is one or two requests; the server decides what is allowed.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/statusd/statusd"
)

// opEnv is what every operator command, and token, gets from run.
type opEnv struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

// opCommand is one operator command being run: its flags, the common
// --url, --token and --json among them, and, once parsed, its client.
type opCommand struct {
	fs             *flagSet
	url, token     string
	json           bool
	stdout, stderr io.Writer
	c              *opClient
}

const opCommonFlags = "[--url URL] [--token TOKEN] [--json]"

func (e opEnv) command(name, synopsis string) *opCommand {
	cmd := &opCommand{fs: newFlagSet(name, synopsis+" "+opCommonFlags, e.getenv, e.stderr), stdout: e.stdout, stderr: e.stderr}
	cmd.fs.str(&cmd.url, "url", "http://127.0.0.1:8080", "`URL` of the statusd server")
	cmd.fs.str(&cmd.token, "token", "", "admin API `token`, from statusd token create")
	cmd.fs.boolean(&cmd.json, "json", "print the server's JSON answer instead of a summary")
	return cmd
}

// message adds -m and --message, both setting p.
func (cmd *opCommand) message(p *string, def, usage string) {
	cmd.fs.StringVar(p, "m", def, usage)
	cmd.fs.StringVar(p, "message", def, "same as -m")
}

// parseID parses args, which must hold exactly one notice id.
func (cmd *opCommand) parseID(args []string) (int64, error) {
	rest, err := cmd.parse(args, "ID")
	if err != nil {
		return 0, err
	}
	return cmd.opID(rest[0])
}

// said prints a one-line summary of a notice after a verb ("updated").
func said(verb string) func(io.Writer, *opNotice) error {
	return func(w io.Writer, n *opNotice) error {
		_, err := fmt.Fprintf(w, "%s %s %d %q (%s)%s\n", verb, n.noun(), n.ID, n.Subject, n.state(), n.on())
		return err
	}
}

// usageErr prints the synopsis and returns a usage error.
func (cmd *opCommand) usageErr(format string, args ...any) error {
	return cmd.fs.usageErr(format, args...)
}

// parse parses args, which must hold exactly the positional arguments
// named, and connects the client.
func (cmd *opCommand) parse(args []string, positional ...string) ([]string, error) {
	rest, err := cmd.fs.parse(args)
	if err != nil {
		return nil, err
	}
	if len(rest) != len(positional) {
		if len(positional) == 0 {
			return nil, cmd.usageErr("takes no arguments, got %q", rest)
		}
		return nil, cmd.usageErr("takes %s, got %q", strings.Join(positional, " "), rest)
	}
	if cmd.c, err = newOpClient(cmd.url, cmd.token); err != nil {
		return nil, err
	}
	return rest, nil
}

// answer prints the server's JSON answer with --json, else the summary.
func (cmd *opCommand) answer(raw []byte, summary func(w io.Writer) error) error {
	if cmd.json {
		if len(raw) == 0 {
			return nil
		}
		_, err := fmt.Fprintf(cmd.stdout, "%s\n", raw)
		return err
	}
	return summary(cmd.stdout)
}

// opStrings is a flag that may be given more than once.
type opStrings []string

func (s *opStrings) String() string { return strings.Join(*s, ", ") }
func (s *opStrings) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("must not be empty")
	}
	*s = append(*s, v)
	return nil
}

// opOptInt is an integer flag that knows whether it was given.
type opOptInt struct {
	set bool
	v   int
}

func (o *opOptInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}
func (o *opOptInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not an integer")
	}
	o.set, o.v = true, v
	return nil
}

// opID parses a notice id argument.
func (cmd *opCommand) opID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id < 1 {
		return 0, cmd.usageErr("%q is not a notice id (a positive integer; statusd notice list shows them)", s)
	}
	return id, nil
}

// opSubject derives a subject from a message: the message up to its first
// '.', ';', '!', '?' or newline, trimmed, at most 80 characters cut at a
// word boundary.
func opSubject(msg string) string {
	s := msg
	if i := strings.IndexAny(s, ".;!?\n"); i >= 0 {
		s = s[:i]
	}
	if s = opCut(strings.TrimSpace(s), 80); s == "" {
		s = opCut(strings.TrimSpace(msg), 80) // the message began with punctuation
	}
	return s
}

// opCut shortens s to at most n characters, at the last word boundary that
// fits when there is one.
func opCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := n
	if !unicode.IsSpace(r[n]) {
		for i := n - 1; i > 0; i-- {
			if unicode.IsSpace(r[i]) {
				cut = i
				break
			}
		}
	}
	return strings.TrimSpace(string(r[:cut]))
}

// opParseTime reads a time flag: RFC 3339, or a duration from now such as
// +90s, +2h, +1h30m or +1d.
func (cmd *opCommand) opParseTime(flagName, v string, now time.Time) (string, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC().Format(statusd.TimeLayout), nil
	}
	d, err := opDuration(strings.TrimPrefix(v, "+"))
	if err != nil {
		return "", cmd.usageErr("--%s: %q is not a time; give RFC 3339 (2026-03-01T02:00:00Z) or a duration from now (+90s, +2h, +1d)", flagName, v)
	}
	return now.Add(d).UTC().Format(statusd.TimeLayout), nil
}

// opDuration is time.ParseDuration that also takes whole days first: 1d12h.
func opDuration(s string) (time.Duration, error) {
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 {
			return 0, errors.New("bad days")
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, errors.New("bad duration")
	}
	return days + d, nil
}

// Wire shapes of the admin API, with the fields the summaries need.

type opComponent struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	State          string `json:"state"`
	Description    string `json:"description"`
	ParentID       *int64 `json:"parent_id"`
	Position       int    `json:"position"`
	MetricsEnabled bool   `json:"metrics_enabled"`
}

type opUpdate struct {
	ID        int64   `json:"id"`
	State     *string `json:"state"`
	Content   string  `json:"content"`
	CreatedAt string  `json:"created_at"`
}

type opNotice struct {
	ID            int64    `json:"id"`
	Type          string   `json:"type"`
	TimelineState string   `json:"timeline_state"`
	State         *string  `json:"state"`
	Subject       string   `json:"subject"`
	URL           string   `json:"url"`
	BeganAt       *string  `json:"began_at"`
	EndedAt       *string  `json:"ended_at"`
	BeginsAt      *string  `json:"begins_at"`
	EndsAt        *string  `json:"ends_at"`
	CreatedAt     string   `json:"created_at"`
	UpdatedAt     string   `json:"updated_at"`
	TagList       []string `json:"tag_list"`
	ImpactTime    *struct {
		Words string `json:"words"`
	} `json:"impact_time"`
	Components []opComponent `json:"components"`
	Updates    []opUpdate    `json:"updates"`
	Automate   *bool         `json:"automate"`
	ExpiresAt  *string       `json:"expires_at"`
}

// noun names the notice's type as operators say it.
func (n *opNotice) noun() string {
	switch n.Type {
	case "unplanned":
		return "incident"
	case "planned":
		return "maintenance"
	}
	return "notice"
}

// state is the notice's state, printable.
func (n *opNotice) state() string {
	if n.State == nil {
		return printable(n.TimelineState)
	}
	return printable(*n.State)
}

// on lists the notice's components: " on API, Database", or "".
func (n *opNotice) on() string {
	if len(n.Components) == 0 {
		return ""
	}
	names := make([]string, len(n.Components))
	for i, c := range n.Components {
		names[i] = c.Name
	}
	return " on " + printable(strings.Join(names, ", "))
}

// opShortTime shows an API timestamp without milliseconds; "-" for none.
func opShortTime(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return printable(*s)
	}
	return t.UTC().Format(time.RFC3339)
}

// components fetches the component list.
func (cmd *opCommand) components(ctx context.Context) ([]opComponent, []byte, error) {
	var list struct {
		Components []opComponent `json:"components"`
	}
	raw, err := cmd.c.do(ctx, "GET", "/components", nil, &list)
	return list.Components, raw, err
}

// opDescribe names a component for messages: 12 "API EU" (under 10 "API").
func opDescribe(list []opComponent, c opComponent) string {
	where := "top level"
	if c.ParentID != nil {
		where = fmt.Sprintf("under %d", *c.ParentID)
		for _, p := range list {
			if p.ID == *c.ParentID {
				where = fmt.Sprintf("under %d %q", p.ID, p.Name)
			}
		}
	}
	return fmt.Sprintf("%d %q (%s)", c.ID, c.Name, where)
}

// opResolve finds the component ref names: an existing id, else a name
// compared case-insensitively. An ambiguous name is a usage error listing
// the candidates; an unknown one is not found (exit 4).
func opResolve(list []opComponent, ref string) (opComponent, error) {
	ref = strings.TrimSpace(ref)
	if id, err := strconv.ParseInt(strings.TrimPrefix(ref, "#"), 10, 64); err == nil {
		for _, c := range list {
			if c.ID == id {
				return c, nil
			}
		}
	}
	var matches, near []string
	var match opComponent
	for _, c := range list {
		switch {
		case strings.EqualFold(strings.TrimSpace(c.Name), ref):
			match = c
			matches = append(matches, opDescribe(list, c))
		case strings.Contains(strings.ToLower(c.Name), strings.ToLower(ref)):
			near = append(near, opDescribe(list, c))
		}
	}
	switch len(matches) {
	case 1:
		return match, nil
	case 0:
		hint := ""
		if len(near) > 0 && len(near) <= 5 {
			hint = "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return opComponent{}, exitErrorf(exitCodeNotFound, "no component has the id or name %q%s; statusd component list shows them all", ref, hint)
	}
	return opComponent{}, exitErrorf(exitCodeUsage, "%q names %d components: %s; name the one you mean by its id", ref, len(matches), strings.Join(matches, ", "))
}

// listing adds to a new notice's body the components it lists (named by
// id or name) and its tags, when there are any.
func (cmd *opCommand) listing(ctx context.Context, body map[string]any, comps, tags []string) error {
	ids, _, err := cmd.resolve(ctx, comps)
	if err != nil {
		return err
	}
	if ids != nil {
		body["component_ids"] = ids
	}
	if len(tags) > 0 {
		body["tag_list"] = tags
	}
	return nil
}

// resolve turns component refs into ids, fetching the list when needed.
func (cmd *opCommand) resolve(ctx context.Context, refs []string) ([]int64, []opComponent, error) {
	if len(refs) == 0 {
		return nil, nil, nil
	}
	list, _, err := cmd.components(ctx)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]int64, 0, len(refs))
	for _, ref := range refs {
		c, err := opResolve(list, ref)
		if err != nil {
			return nil, nil, err
		}
		ids = append(ids, c.ID)
	}
	return ids, list, nil
}

// notice sends a request that answers a notice and prints it.
func (cmd *opCommand) notice(ctx context.Context, method, path string, body any, summary func(w io.Writer, n *opNotice) error) error {
	var n opNotice
	raw, err := cmd.c.do(ctx, method, path, body, &n)
	if err != nil {
		return opWithHint(err, exitCodeNotFound, "statusd notice list shows the notices")
	}
	return cmd.answer(raw, func(w io.Writer) error { return summary(w, &n) })
}

// subcommand dispatches "statusd GROUP SUB ..." to one of subs.
func (e opEnv) subcommand(ctx context.Context, group string, args []string, synopsis string,
	subs map[string]func(context.Context, []string) error) error {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprintf(e.stderr, "Usage:\n%s\nRun \"statusd %s SUBCOMMAND -h\" for its flags.\n", synopsis, group)
		if len(args) == 0 {
			return exitErrorf(exitCodeUsage, "%s: say which subcommand", group)
		}
		return nil
	}
	if f, ok := subs[args[0]]; ok {
		return f(ctx, args[1:])
	}
	fmt.Fprintf(e.stderr, "Usage:\n%s", synopsis)
	return exitErrorf(exitCodeUsage, "%s: unknown subcommand %q", group, args[0])
}

// ---- incident ----

const incidentSynopsis = `  statusd incident open --component C [--component C ...] -m MESSAGE [--subject S] [--state investigating|identified] [--tag T ...]
  statusd incident update ID [--state STATE] -m MESSAGE
  statusd incident resolve ID -m MESSAGE
  statusd incident reopen ID -m MESSAGE
`

func incidentCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := opEnv{getenv, stdout, stderr}
	return e.subcommand(ctx, "incident", args, incidentSynopsis, map[string]func(context.Context, []string) error{
		"open":    e.incidentOpen,
		"update":  func(ctx context.Context, args []string) error { return e.incidentUpdate(ctx, "update", args) },
		"resolve": func(ctx context.Context, args []string) error { return e.incidentUpdate(ctx, "resolve", args) },
		"reopen":  e.incidentReopen,
	})
}

func (e opEnv) incidentOpen(ctx context.Context, args []string) error {
	cmd := e.command("incident open", "incident open --component C [--component C ...] -m MESSAGE [--subject S] [--state investigating|identified] [--tag T ...]")
	var comps, tags opStrings
	var msg, subject, state string
	cmd.fs.Var(&comps, "component", "affected component, by `id or name` (repeat for several)")
	cmd.message(&msg, "", "what is happening: the first update, shown on the page")
	cmd.fs.StringVar(&subject, "subject", "", "the incident's `title` (default: the message's first sentence)")
	cmd.fs.StringVar(&state, "state", "investigating", "first `state`: investigating or identified")
	cmd.fs.Var(&tags, "tag", "a `tag` (repeat for several)")
	if _, err := cmd.parse(args); err != nil {
		return err
	}
	switch {
	case len(comps) == 0:
		return cmd.usageErr("say which component is affected with --component C (statusd component list shows them)")
	case strings.TrimSpace(msg) == "":
		return cmd.usageErr("say what is happening with -m MESSAGE")
	case state != "investigating" && state != "identified":
		return cmd.usageErr("--state: %q is not investigating or identified", state)
	}
	if subject == "" {
		subject = opSubject(msg)
	}
	body := map[string]any{"type": "unplanned", "subject": subject, "state": state, "content": msg}
	if err := cmd.listing(ctx, body, comps, tags); err != nil {
		return err
	}
	return cmd.notice(ctx, "POST", "/notices", body, func(w io.Writer, n *opNotice) error {
		_, err := fmt.Fprintf(w, "opened %s %d %q (%s)%s\n", n.noun(), n.ID, n.Subject, n.state(), n.on())
		return err
	})
}

func (e opEnv) incidentUpdate(ctx context.Context, sub string, args []string) error {
	synopsis := "incident update ID [--state STATE] -m MESSAGE"
	if sub == "resolve" {
		synopsis = "incident resolve ID -m MESSAGE"
	}
	cmd := e.command("incident "+sub, synopsis)
	var msg, state string
	cmd.message(&msg, "", "what changed: the update's text, shown on the page")
	if sub == "update" {
		cmd.fs.StringVar(&state, "state", "", "new `state`: investigating, identified, recovering, resolved or false_alarm (default: unchanged)")
	}
	id, err := cmd.parseID(args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(msg) == "" {
		return cmd.usageErr("say what changed with -m MESSAGE")
	}
	if sub == "resolve" {
		state = "resolved"
	}
	body := map[string]any{"content": msg}
	if state != "" {
		body["state"] = state
	}
	verb := "updated"
	if sub == "resolve" {
		verb = "resolved"
	}
	return cmd.notice(ctx, "POST", fmt.Sprintf("/notices/%d/updates", id), body, said(verb))
}

func (e opEnv) incidentReopen(ctx context.Context, args []string) error {
	cmd := e.command("incident reopen", "incident reopen ID -m MESSAGE")
	var msg string
	cmd.message(&msg, "", "why it is back: the update's text, shown on the page")
	id, err := cmd.parseID(args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(msg) == "" {
		return cmd.usageErr("say why the incident is back with -m MESSAGE")
	}
	return cmd.notice(ctx, "POST", fmt.Sprintf("/notices/%d/reopen", id), map[string]any{"content": msg}, said("reopened"))
}

// ---- maintenance ----

const maintenanceSynopsis = `  statusd maintenance schedule --subject S --begins T --ends T [--automate] [--component C ...] [--tag T ...] [-m MESSAGE]
  statusd maintenance start ID [-m MESSAGE]
  statusd maintenance complete ID [-m MESSAGE]
  statusd maintenance cancel ID [-m MESSAGE]
  T is RFC 3339 (2026-03-01T02:00:00Z) or a duration from now (+90s, +2h, +1d).
`

func maintenanceCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := opEnv{getenv, stdout, stderr}
	move := func(sub, state, verb, def string) func(context.Context, []string) error {
		return func(ctx context.Context, args []string) error {
			return e.maintenanceMove(ctx, sub, state, verb, def, args)
		}
	}
	return e.subcommand(ctx, "maintenance", args, maintenanceSynopsis, map[string]func(context.Context, []string) error{
		"schedule": e.maintenanceSchedule,
		"start":    move("start", "underway", "started", "The scheduled maintenance has begun."),
		"complete": move("complete", "complete", "completed", "The scheduled maintenance is complete."),
		"cancel":   move("cancel", "cancelled", "cancelled", "The scheduled maintenance has been cancelled."),
	})
}

func (e opEnv) maintenanceSchedule(ctx context.Context, args []string) error {
	cmd := e.command("maintenance schedule", "maintenance schedule --subject S --begins T --ends T [--automate] [--component C ...] [--tag T ...] [-m MESSAGE]")
	var comps, tags opStrings
	var msg, subject, begins, ends string
	var automate bool
	cmd.fs.StringVar(&subject, "subject", "", "the maintenance's `title`")
	cmd.fs.StringVar(&begins, "begins", "", "start `time`: RFC 3339 or a duration from now (+90s, +2h, +1d)")
	cmd.fs.StringVar(&ends, "ends", "", "end `time`: RFC 3339 or a duration from now")
	cmd.fs.BoolVar(&automate, "automate", false, "let statusd move it underway at --begins and complete at --ends")
	cmd.fs.Var(&comps, "component", "affected component, by `id or name` (repeat for several)")
	cmd.fs.Var(&tags, "tag", "a `tag` (repeat for several)")
	cmd.message(&msg, "Scheduled maintenance.", "the first update's text")
	if _, err := cmd.parse(args); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(subject) == "":
		return cmd.usageErr("give the maintenance a title with --subject S")
	case begins == "" || ends == "":
		return cmd.usageErr("say when with --begins T and --ends T")
	}
	now := time.Now()
	b, err := cmd.opParseTime("begins", begins, now)
	if err != nil {
		return err
	}
	en, err := cmd.opParseTime("ends", ends, now)
	if err != nil {
		return err
	}
	body := map[string]any{"type": "planned", "subject": subject, "state": "scheduled", "content": msg,
		"begins_at": b, "ends_at": en, "automate": automate}
	if err := cmd.listing(ctx, body, comps, tags); err != nil {
		return err
	}
	return cmd.notice(ctx, "POST", "/notices", body, func(w io.Writer, n *opNotice) error {
		auto := ""
		if n.Automate != nil && *n.Automate {
			auto = ", automated"
		}
		_, err := fmt.Fprintf(w, "scheduled %s %d %q (%s%s) from %s to %s%s\n", n.noun(), n.ID, n.Subject, n.state(), auto,
			opShortTime(n.BeginsAt), opShortTime(n.EndsAt), n.on())
		return err
	})
}

func (e opEnv) maintenanceMove(ctx context.Context, sub, state, verb, def string, args []string) error {
	cmd := e.command("maintenance "+sub, "maintenance "+sub+" ID [-m MESSAGE]")
	var msg string
	cmd.message(&msg, def, "the update's text")
	id, err := cmd.parseID(args)
	if err != nil {
		return err
	}
	body := map[string]any{"content": msg, "state": state}
	return cmd.notice(ctx, "POST", fmt.Sprintf("/notices/%d/updates", id), body, said(verb))
}

// ---- announce ----

func announceCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := opEnv{getenv, stdout, stderr}
	cmd := e.command("announce", "announce -m MESSAGE [--subject S] [--expires T] [--component C ...] [--tag T ...]")
	var comps, tags opStrings
	var msg, subject, expires string
	cmd.message(&msg, "", "the announcement, shown on the page")
	cmd.fs.StringVar(&subject, "subject", "", "its `title` (default: the message's first sentence)")
	cmd.fs.StringVar(&expires, "expires", "", "when it stops being current: RFC 3339 or a duration from now (+2h, +7d); default never")
	cmd.fs.Var(&comps, "component", "a component it concerns, by `id or name` (repeat for several)")
	cmd.fs.Var(&tags, "tag", "a `tag` (repeat for several)")
	if _, err := cmd.parse(args); err != nil {
		return err
	}
	if strings.TrimSpace(msg) == "" {
		return cmd.usageErr("say what to announce with -m MESSAGE")
	}
	if subject == "" {
		subject = opSubject(msg)
	}
	body := map[string]any{"type": "general", "subject": subject, "content": msg}
	if expires != "" {
		t, err := cmd.opParseTime("expires", expires, time.Now())
		if err != nil {
			return err
		}
		body["expires_at"] = t
	}
	if err := cmd.listing(ctx, body, comps, tags); err != nil {
		return err
	}
	return cmd.notice(ctx, "POST", "/notices", body, func(w io.Writer, n *opNotice) error {
		until := "until removed"
		if n.ExpiresAt != nil {
			until = "until " + opShortTime(n.ExpiresAt)
		}
		_, err := fmt.Fprintf(w, "announced %s %d %q (%s, %s)%s\n", n.noun(), n.ID, n.Subject, printable(n.TimelineState), until, n.on())
		return err
	})
}

// ---- component ----

const componentSynopsis = `  statusd component add NAME [--description D] [--parent C] [--position N] [--metrics]
  statusd component list
  statusd component move C [--parent C | --top] [--position N]
  statusd component rm C [--recursive] [--detach]
  C is a component's id or its name (case-insensitive).
`

func componentCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := opEnv{getenv, stdout, stderr}
	return e.subcommand(ctx, "component", args, componentSynopsis, map[string]func(context.Context, []string) error{
		"add":  e.componentAdd,
		"list": e.componentList,
		"ls":   e.componentList,
		"move": e.componentMove,
		"rm":   e.componentRm,
	})
}

// placement describes where a component is: "at the top level, position 2".
func opPlacement(list []opComponent, c opComponent) string {
	where := "at the top level"
	if c.ParentID != nil {
		where = fmt.Sprintf("under %d", *c.ParentID)
		for _, p := range list {
			if p.ID == *c.ParentID {
				where = fmt.Sprintf("under %q (%d)", p.Name, p.ID)
			}
		}
	}
	return fmt.Sprintf("%s, position %d", where, c.Position)
}

func (e opEnv) componentAdd(ctx context.Context, args []string) error {
	cmd := e.command("component add", "component add NAME [--description D] [--parent C] [--position N] [--metrics]")
	var description, parent string
	var position opOptInt
	var metrics bool
	cmd.fs.StringVar(&description, "description", "", "what it is, shown on the page")
	cmd.fs.StringVar(&parent, "parent", "", "the component it belongs under, by `id or name` (default: top level)")
	cmd.fs.Var(&position, "position", "display position `N`, 1 first (default: last)")
	cmd.fs.BoolVar(&metrics, "metrics", false, "publish uptime metrics for it")
	rest, err := cmd.parse(args, "NAME")
	if err != nil {
		return err
	}
	body := map[string]any{"name": rest[0], "metrics_enabled": metrics}
	if description != "" {
		body["description"] = description
	}
	if position.set {
		body["position"] = position.v
	}
	var list []opComponent
	if parent != "" {
		ids, l, err := cmd.resolve(ctx, []string{parent})
		if err != nil {
			return err
		}
		body["parent_id"], list = ids[0], l
	}
	var c opComponent
	raw, err := cmd.c.do(ctx, "POST", "/components", body, &c)
	if err != nil {
		return err
	}
	return cmd.answer(raw, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "added component %d %q %s\n", c.ID, c.Name, opPlacement(list, c))
		return err
	})
}

func (e opEnv) componentList(ctx context.Context, args []string) error {
	cmd := e.command("component list", "component list")
	if _, err := cmd.parse(args); err != nil {
		return err
	}
	list, raw, err := cmd.components(ctx)
	if err != nil {
		return err
	}
	return cmd.answer(raw, func(w io.Writer) error {
		depth := map[int64]int{}
		parents := map[int64]*int64{}
		for _, c := range list {
			parents[c.ID] = c.ParentID
		}
		for _, c := range list {
			for p, n := c.ParentID, 0; p != nil && n < len(list); p, n = parents[*p], n+1 {
				depth[c.ID]++
			}
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSTATE\tPARENT\tPOS\tMETRICS\tDESCRIPTION")
		for _, c := range list {
			parent, metrics := "-", "off"
			if c.ParentID != nil {
				parent = strconv.FormatInt(*c.ParentID, 10)
			}
			if c.MetricsEnabled {
				metrics = "on"
			}
			fmt.Fprintf(tw, "%d\t%s%s\t%s\t%s\t%d\t%s\t%s\n", c.ID, strings.Repeat("  ", depth[c.ID]), printable(c.Name), printable(c.State),
				parent, c.Position, metrics, printable(c.Description))
		}
		return tw.Flush()
	})
}

func (e opEnv) componentMove(ctx context.Context, args []string) error {
	cmd := e.command("component move", "component move C [--parent C | --top] [--position N]")
	var parent string
	var top bool
	var position opOptInt
	cmd.fs.StringVar(&parent, "parent", "", "the component to move it under, by `id or name`")
	cmd.fs.BoolVar(&top, "top", false, "move it to the top level")
	cmd.fs.Var(&position, "position", "new display position `N`, 1 first, counted over the whole page")
	rest, err := cmd.parse(args, "C")
	if err != nil {
		return err
	}
	switch {
	case parent != "" && top:
		return cmd.usageErr("give --parent C or --top, not both")
	case parent == "" && !top && !position.set:
		return cmd.usageErr("say where to with --parent C, --top or --position N")
	}
	list, _, err := cmd.components(ctx)
	if err != nil {
		return err
	}
	c, err := opResolve(list, rest[0])
	if err != nil {
		return err
	}
	body := map[string]any{}
	switch {
	case top:
		body["parent_id"] = nil
	case parent != "":
		p, err := opResolve(list, parent)
		if err != nil {
			return err
		}
		body["parent_id"] = p.ID
	}
	if position.set {
		body["position"] = position.v
	}
	var moved opComponent
	raw, err := cmd.c.do(ctx, "PATCH", fmt.Sprintf("/components/%d", c.ID), body, &moved)
	if err != nil {
		return opWithHint(err, exitCodeNotFound, "statusd component list shows the components")
	}
	return cmd.answer(raw, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "moved component %d %q %s\n", moved.ID, moved.Name, opPlacement(list, moved))
		return err
	})
}

func (e opEnv) componentRm(ctx context.Context, args []string) error {
	cmd := e.command("component rm", "component rm C [--recursive] [--detach]")
	var recursive, detach bool
	cmd.fs.BoolVar(&recursive, "recursive", false, "also remove every component below it")
	cmd.fs.BoolVar(&detach, "detach", false, "also remove it from the notices that list it (open incidents, maintenance, history); without it, such a component is not removed")
	rest, err := cmd.parse(args, "C")
	if err != nil {
		return err
	}
	list, _, err := cmd.components(ctx)
	if err != nil {
		return err
	}
	c, err := opResolve(list, rest[0])
	if err != nil {
		return err
	}
	below := 0
	for ids := []int64{c.ID}; len(ids) > 0; ids = ids[1:] {
		for _, o := range list {
			if o.ParentID != nil && *o.ParentID == ids[0] {
				ids, below = append(ids, o.ID), below+1
			}
		}
	}
	query := url.Values{}
	if recursive {
		query.Set("recursive", "true")
	}
	if detach {
		query.Set("detach", "true")
	}
	path := fmt.Sprintf("/components/%d", c.ID)
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	raw, err := cmd.c.do(ctx, "DELETE", path, nil, nil)
	if err != nil {
		hint := fmt.Sprintf("pass --recursive to remove %q with everything below it", c.Name)
		if recursive || below == 0 {
			hint = fmt.Sprintf("pass --detach to remove %q from those notices as well", c.Name)
		}
		err = opWithHint(err, exitCodeRefused, hint)
		return opWithHint(err, exitCodeNotFound, "statusd component list shows the components")
	}
	return cmd.answer(raw, func(w io.Writer) error {
		extra := ""
		if recursive && below > 0 {
			extra = fmt.Sprintf(" and the %d component(s) below it", below)
		}
		_, err := fmt.Fprintf(w, "removed component %d %q%s\n", c.ID, c.Name, extra)
		return err
	})
}

// ---- notice ----

const noticeSynopsis = `  statusd notice list [--page N]
  statusd notice show ID
`

func noticeCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := opEnv{getenv, stdout, stderr}
	return e.subcommand(ctx, "notice", args, noticeSynopsis, map[string]func(context.Context, []string) error{
		"list": e.noticeList,
		"ls":   e.noticeList,
		"show": e.noticeShow,
	})
}

func (e opEnv) noticeList(ctx context.Context, args []string) error {
	cmd := e.command("notice list", "notice list [--page N]")
	var page int
	cmd.fs.IntVar(&page, "page", 1, "page `N`, 25 notices a page, newest first")
	if _, err := cmd.parse(args); err != nil {
		return err
	}
	if page < 1 {
		return cmd.usageErr("--page: %d is not an integer >= 1", page)
	}
	var answer struct {
		Notices []opNotice `json:"notices"`
		Meta    struct {
			Count      int     `json:"count"`
			TotalCount int     `json:"total_count"`
			NextPage   *string `json:"next_page"`
		} `json:"meta"`
	}
	raw, err := cmd.c.do(ctx, "GET", "/notices?page="+strconv.Itoa(page), nil, &answer)
	if err != nil {
		return err
	}
	return cmd.answer(raw, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTYPE\tSTATE\tTIMELINE\tUPDATED\tSUBJECT")
		for _, n := range answer.Notices {
			state := "-"
			if n.State != nil {
				state = *n.State
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", n.ID, printable(n.Type), printable(state), printable(n.TimelineState),
				opShortTime(&n.UpdatedAt), printable(n.Subject))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		more := ""
		if answer.Meta.NextPage != nil {
			more = fmt.Sprintf("; next: statusd notice list --page %d", page+1)
		}
		fmt.Fprintf(cmd.stderr, "%d of %d notices (page %d)%s\n", answer.Meta.Count, answer.Meta.TotalCount, page, more)
		return nil
	})
}

func (e opEnv) noticeShow(ctx context.Context, args []string) error {
	cmd := e.command("notice show", "notice show ID")
	id, err := cmd.parseID(args)
	if err != nil {
		return err
	}
	return cmd.notice(ctx, "GET", fmt.Sprintf("/notices/%d", id), nil, func(w io.Writer, n *opNotice) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "%s %d\t%s\n", n.noun(), n.ID, printable(n.Subject))
		state := "-"
		if n.State != nil {
			state = *n.State
		}
		fmt.Fprintf(tw, "type\t%s\n", printable(n.Type))
		fmt.Fprintf(tw, "state\t%s (%s)\n", printable(state), printable(n.TimelineState))
		names := make([]string, len(n.Components))
		for i, c := range n.Components {
			names[i] = fmt.Sprintf("%s (%d, %s)", c.Name, c.ID, c.State)
		}
		fmt.Fprintf(tw, "components\t%s\n", opOrDash(printable(strings.Join(names, ", "))))
		fmt.Fprintf(tw, "tags\t%s\n", opOrDash(printable(strings.Join(n.TagList, ", "))))
		switch n.Type {
		case "planned":
			auto := "no"
			if n.Automate != nil && *n.Automate {
				auto = "yes"
			}
			fmt.Fprintf(tw, "window\t%s to %s (automated: %s)\n", opShortTime(n.BeginsAt), opShortTime(n.EndsAt), auto)
		case "general":
			fmt.Fprintf(tw, "expires\t%s\n", opShortTime(n.ExpiresAt))
		}
		if n.Type != "general" {
			fmt.Fprintf(tw, "began\t%s\n", opShortTime(n.BeganAt))
			fmt.Fprintf(tw, "ended\t%s\n", opShortTime(n.EndedAt))
		}
		if n.ImpactTime != nil {
			fmt.Fprintf(tw, "impact\t%s\n", printable(n.ImpactTime.Words))
		}
		fmt.Fprintf(tw, "url\t%s\n", printable(n.URL))
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w, "\nupdates, oldest first:")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, u := range n.Updates {
			state := "-"
			if u.State != nil {
				state = *u.State
			}
			content := strings.Join(strings.Fields(u.Content), " ")
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", opShortTime(&u.CreatedAt), printable(state), printable(content))
		}
		return tw.Flush()
	})
}

func opOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
