package cli

// The operator commands: a thin client of the admin API (CONTRACT C6) for
// the people who publish incidents, maintenance and announcements. Each
// command is one or two requests; the server decides what is allowed.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/app"
)

// opCommand is one operator command: its flags, the common --url, --token
// and --json among them, and, once run, its admin client and the body of
// the client's last answer.
type opCommand struct {
	c              *cobra.Command
	fs             *pflag.FlagSet
	url, token     string
	json           bool
	stdout, stderr io.Writer
	base           string // the checked --url
	adm            *client.Admin
	last           opBody
	quiet          bool // --no-notify
}

const opCommonFlags = "[--url URL] [--token TOKEN] [--json]"

// operator returns an operator command whose synopsis, after its
// parent's, is use and the common flags.
func (e Env) operator(use, short string) *opCommand {
	c := Command(use+" "+opCommonFlags, short)
	cmd := &opCommand{c: c, fs: c.Flags(), stdout: e.Stdout, stderr: e.Stderr}
	env := WithEnv(c)
	env.String(&cmd.url, "url", "http://127.0.0.1:8080", "`URL` of the statusd server")
	env.String(&cmd.token, "token", "", "admin API `token`, from statusd token create")
	env.Bool(&cmd.json, "json", "print the server's JSON answer instead of a summary")
	return cmd
}

// run makes f what the command does, and returns the command.
func (cmd *opCommand) run(f func(ctx context.Context, args []string) error) *cobra.Command {
	cmd.c.RunE = func(c *cobra.Command, args []string) error { return f(c.Context(), args) }
	return cmd.c
}

// message adds -m, --message.
func (cmd *opCommand) message(p *string, def, usage string) {
	cmd.fs.StringVarP(p, "message", "m", def, usage)
}

// notifyFlag adds --no-notify, for the commands that publish a notice or
// an update.
func (cmd *opCommand) notifyFlag() {
	cmd.fs.BoolVar(&cmd.quiet, "no-notify", false, "tell no subscriber of it (default: the subscribers who follow it are notified)")
}

// impactFlag adds --impact, an incident's severity, into p.
func (cmd *opCommand) impactFlag(p *string, usage string) {
	cmd.fs.StringVar(p, "impact", "", usage)
}

// impact is the impact field of the request body for --impact v: left out
// when v is "", a usage error when v is no impact.
func (cmd *opCommand) impact(v string) (*string, error) {
	if v == "" {
		return nil, nil
	}
	if _, err := statusd.ParseSeverity(v); err != nil {
		return nil, cmd.usageErr("--impact: %v", err)
	}
	return &v, nil
}

// notify is the notify field of the request body: false with --no-notify,
// else left out (the server notifies).
func (cmd *opCommand) notify() *bool {
	if cmd.quiet {
		return new(false)
	}
	return nil
}

// parseID checks args, which must hold exactly one notice id.
func (cmd *opCommand) parseID(args []string) (int64, error) {
	return cmd.parseIDOf("notice", args)
}

// parseIDMessage checks args, which must hold exactly one notice id, and
// that the message msg is not blank; say is the usage error when it is.
func (cmd *opCommand) parseIDMessage(args []string, msg, say string) (int64, error) {
	id, err := cmd.parseID(args)
	if err == nil && strings.TrimSpace(msg) == "" {
		err = cmd.usageErr("%s", say)
	}
	return id, err
}

// parseIDOf checks args, which must hold exactly one id of a kind of
// object: "notice", "subscriber".
func (cmd *opCommand) parseIDOf(kind string, args []string) (int64, error) {
	rest, err := cmd.connect(args, "ID")
	if err != nil {
		return 0, err
	}
	return cmd.opID(kind, rest[0])
}

// said prints a one-line summary of a notice after a verb ("updated").
func said(verb string) func(io.Writer, *statusd.AdminNotice) error {
	return func(w io.Writer, n *statusd.AdminNotice) error {
		_, err := fmt.Fprintf(w, "%s %s %d %q (%s)%s\n", verb, opNoun(n), n.ID, n.Subject, opState(n), opOn(n))
		return err
	}
}

// usageErr prints the synopsis and returns a usage error.
func (cmd *opCommand) usageErr(format string, args ...any) error {
	return UsageError(cmd.c, format, args...)
}

// connect checks args, which must hold exactly the positional arguments
// named, and connects the client.
func (cmd *opCommand) connect(args []string, positional ...string) ([]string, error) {
	if len(args) != len(positional) {
		if len(positional) == 0 {
			return nil, cmd.usageErr("takes no arguments, got %q", args)
		}
		return nil, cmd.usageErr("takes %s, got %q", strings.Join(positional, " "), args)
	}
	var err error
	if cmd.base, err = opServer(cmd.url); err != nil {
		return nil, err
	}
	cmd.adm = newOpAdmin(cmd.base, cmd.token, cmd.last.set)
	return args, nil
}

// fail turns an error of the admin client into one that says what to do.
func (cmd *opCommand) fail(ctx context.Context, err error) error {
	return opFailure(ctx, cmd.base, strings.TrimSpace(cmd.token) != "", err)
}

// answer prints the server's last JSON answer with --json, else the
// summary.
func (cmd *opCommand) answer(summary func(w io.Writer) error) error {
	if cmd.json {
		return cmd.last.print(cmd.stdout)
	}
	return summary(cmd.stdout)
}

// opStrings is a flag that may be given more than once.
type opStrings []string

func (s *opStrings) String() string { return strings.Join(*s, ", ") }
func (s *opStrings) Type() string   { return "strings" }
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
func (o *opOptInt) Type() string { return "int" }
func (o *opOptInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not an integer")
	}
	o.set, o.v = true, v
	return nil
}

// opID parses the id of a kind of object ("notice"), an argument or a
// flag.
func (cmd *opCommand) opID(kind, s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id < 1 {
		return 0, cmd.usageErr("%q is not a %s id (a positive integer; statusd %s list shows them)", s, kind, kind)
	}
	return id, nil
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

// opNoun names the notice's type as operators say it.
func opNoun(n *statusd.AdminNotice) string {
	switch n.Type {
	case "unplanned":
		return "incident"
	case "planned":
		return "maintenance"
	}
	return "notice"
}

// opState is the notice's state, printable.
func opState(n *statusd.AdminNotice) string {
	if n.State.Value == nil {
		return printable(n.TimelineState)
	}
	return printable(*n.State.Value)
}

// opOn lists the notice's components: " on API, Database", or "".
func opOn(n *statusd.AdminNotice) string {
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
func opShortTime(t *statusd.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// components fetches the component list.
func (cmd *opCommand) components(ctx context.Context) ([]statusd.AdminComponent, error) {
	list, err := cmd.adm.Components(ctx)
	if err != nil {
		return nil, cmd.fail(ctx, err)
	}
	return list, nil
}

// opDescribe names a component for messages: 12 "API EU" (under 10 "API").
func opDescribe(list []statusd.AdminComponent, c statusd.AdminComponent) string {
	where := "top level"
	if p := opParent(list, c); p != nil {
		where = fmt.Sprintf("under %d %q", p.ID, p.Name)
	} else if c.ParentID != nil {
		where = fmt.Sprintf("under %d", *c.ParentID)
	}
	return fmt.Sprintf("%d %q (%s)", c.ID, c.Name, where)
}

// opParent returns c's parent in list, or nil.
func opParent(list []statusd.AdminComponent, c statusd.AdminComponent) *statusd.AdminComponent {
	for i := range list {
		if c.ParentID != nil && list[i].ID == *c.ParentID {
			return &list[i]
		}
	}
	return nil
}

// opResolve finds the component ref names: an existing id, else a key,
// else a name compared case-insensitively. An ambiguous name is a usage
// error listing the candidates; an unknown one is not found (exit 4).
func opResolve(list []statusd.AdminComponent, ref string) (statusd.AdminComponent, error) {
	ref = strings.TrimSpace(ref)
	if id, err := strconv.ParseInt(strings.TrimPrefix(ref, "#"), 10, 64); err == nil {
		for _, c := range list {
			if c.ID == id {
				return c, nil
			}
		}
	}
	for _, c := range list {
		if c.Key != nil && *c.Key == ref {
			return c, nil
		}
	}
	var matches, near []string
	var match statusd.AdminComponent
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
		return statusd.AdminComponent{}, Errorf(ExitNotFound, "no component has the id, key or name %q%s; statusd component list shows them all", ref, hint)
	}
	return statusd.AdminComponent{}, Errorf(ExitUsage, "%q names %d components: %s; name the one you mean by its id", ref, len(matches), strings.Join(matches, ", "))
}

// listing adds to a notice's body the components it lists (named by id or
// name) and its tags, when there are any.
func (cmd *opCommand) listing(ctx context.Context, body *statusd.AdminNoticeRequest, comps, tags []string) error {
	ids, _, err := cmd.resolve(ctx, comps)
	if err != nil {
		return err
	}
	if ids != nil {
		body.ComponentIDs = &ids
	}
	if len(tags) > 0 {
		body.TagList = &tags
	}
	return nil
}

// resolve turns component refs into ids, fetching the list when needed.
func (cmd *opCommand) resolve(ctx context.Context, refs []string) ([]int64, []statusd.AdminComponent, error) {
	if len(refs) == 0 {
		return nil, nil, nil
	}
	list, err := cmd.components(ctx)
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

// notice prints the notice a request answered, or says what went wrong.
func (cmd *opCommand) notice(ctx context.Context, n *statusd.AdminNotice, err error, summary func(w io.Writer, n *statusd.AdminNotice) error) error {
	if err != nil {
		return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd notice list shows the notices")
	}
	return cmd.answer(func(w io.Writer) error { return summary(w, n) })
}

// opOptBool is a boolean flag that knows whether it was given: --automate
// sets it, --automate=false clears it.
type opOptBool struct {
	set, v bool
}

func (o *opOptBool) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatBool(o.v)
}
func (o *opOptBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("not true or false")
	}
	o.set, o.v = true, v
	return nil
}
func (o *opOptBool) Type() string { return "bool" }

// optBool adds a flag that knows whether it was given: --name sets it,
// --name=false clears it.
func (cmd *opCommand) optBool(p *opOptBool, name, usage string) {
	cmd.fs.VarPF(p, name, "", usage).NoOptDefVal = "true"
}

// ---- incident ----

func (e Env) incidentCommand() *cobra.Command {
	return group("incident", "publish an incident and its progress", "",
		e.incidentOpen(), e.noticeUpdate("incident", "update"), e.noticeUpdate("incident", "resolve"),
		e.noticeReopen(), e.noticeEdit("incident edit", statusd.Unplanned))
}

func (e Env) incidentOpen() *cobra.Command {
	cmd := e.operator("open --component C [--component C ...] -m MESSAGE [--subject S] [--state investigating|identified] [--impact minor|major|critical] [--tag T ...] [--no-notify]", "open an incident")
	var comps, tags opStrings
	var msg, subject, state, impact string
	cmd.fs.Var(&comps, "component", "affected component, by `id, key or name` (repeat for several)")
	cmd.message(&msg, "", "what is happening: the first update's `text`, shown on the page")
	cmd.fs.StringVar(&subject, "subject", "", "the incident's `title` (default: the message's first sentence)")
	cmd.fs.StringVar(&state, "state", "investigating", "first `state`: "+app.OpeningWords())
	cmd.impactFlag(&impact, "how bad it is, as Statuspage clients read it: `minor` (the default), major or critical")
	cmd.fs.Var(&tags, "tag", "a `tag` (repeat for several)")
	cmd.notifyFlag()
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		switch {
		case len(comps) == 0:
			return cmd.usageErr("say which component is affected with --component C (statusd component list shows them)")
		case strings.TrimSpace(msg) == "":
			return cmd.usageErr("say what is happening with -m MESSAGE")
		case !slices.Contains(app.OpeningStates, statusd.State(state)):
			return cmd.usageErr("--state: %q is not %s", state, app.OpeningWords())
		}
		if subject == "" {
			subject = statusd.SubjectOf(msg)
		}
		level, err := cmd.impact(impact)
		if err != nil {
			return err
		}
		body := statusd.AdminNoticeRequest{Type: new("unplanned"), Subject: &subject, State: &state, Impact: level, Content: &msg, Notify: cmd.notify()}
		if err := cmd.listing(ctx, &body, comps, tags); err != nil {
			return err
		}
		n, err := cmd.adm.CreateNotice(ctx, body)
		return cmd.notice(ctx, n, err, func(w io.Writer, n *statusd.AdminNotice) error {
			_, err := fmt.Fprintf(w, "opened %s %d %q (%s)%s\n", opNoun(n), n.ID, n.Subject, opState(n), opOn(n))
			return err
		})
	})
}

// opStates says which states a group's notices take.
var opStates = map[string]string{
	"incident":    "investigating, identified, recovering, resolved or false_alarm",
	"maintenance": "scheduled, underway, complete or cancelled",
	"notice":      "one of the notice type's states",
}

// noticeUpdate posts a progress update: GROUP update, or incident resolve.
func (e Env) noticeUpdate(group, sub string) *cobra.Command {
	use, short := "update ID [--state STATE] -m MESSAGE [--no-notify]", "post an update"
	if sub == "resolve" {
		use, short = "resolve ID -m MESSAGE [--no-notify]", "resolve it with an update"
	}
	cmd := e.operator(use, short)
	var msg, state string
	cmd.message(&msg, "", "what changed: the update's `text`, shown on the page")
	if sub == "update" {
		cmd.fs.StringVar(&state, "state", "", "new `state`: "+opStates[group]+" (default: unchanged)")
	}
	cmd.notifyFlag()
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDMessage(args, msg, "say what changed with -m MESSAGE")
		if err != nil {
			return err
		}
		verb := "updated"
		if sub == "resolve" {
			state, verb = "resolved", "resolved"
		}
		body := statusd.AdminUpdateRequest{Content: &msg, Notify: cmd.notify()}
		if state != "" {
			body.State = &state
		}
		n, err := cmd.adm.PostUpdate(ctx, id, body)
		return cmd.notice(ctx, n, err, said(verb))
	})
}

// noticeReopen reopens a closed incident.
func (e Env) noticeReopen() *cobra.Command {
	cmd := e.operator("reopen ID -m MESSAGE [--no-notify]", "reopen a closed incident")
	var msg string
	cmd.message(&msg, "", "why it is back: the update's `text`, shown on the page")
	cmd.notifyFlag()
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDMessage(args, msg, "say why the incident is back with -m MESSAGE")
		if err != nil {
			return err
		}
		n, err := cmd.adm.Reopen(ctx, id, statusd.AdminUpdateRequest{Content: &msg, Notify: cmd.notify()})
		return cmd.notice(ctx, n, err, said("reopened"))
	})
}

// noticeEdit changes a notice's settings, those of notices of type typ
// (every type when typ is ""); its state changes only with an update.
func (e Env) noticeEdit(name string, typ statusd.NoticeType) *cobra.Command {
	has := func(t statusd.NoticeType) bool { return typ == "" || typ == t }
	synopsis := name[strings.LastIndexByte(name, ' ')+1:] + " ID [--subject S] [--component C ... | --no-components] [--tag T ... | --no-tags]"
	if has(statusd.Planned) {
		synopsis += " [--begins T] [--ends T] [--automate=true|false]"
	}
	if has(statusd.General) {
		synopsis += " [--expires T | --no-expiry]"
	}
	if has(statusd.Unplanned) {
		synopsis += " [--impact minor|major|critical] [--impact-seconds N | --no-impact-override]"
	}
	cmd := e.operator(synopsis, "change its settings")
	var comps, tags opStrings
	var subject, begins, ends, expires, level string
	var noComps, noTags, noExpiry, noImpact bool
	var automate opOptBool
	var impact opOptInt
	cmd.fs.StringVar(&subject, "subject", "", "new `title`")
	cmd.fs.Var(&comps, "component", "the components it concerns, by `id, key or name` (repeat for several; replaces the list)")
	cmd.fs.BoolVar(&noComps, "no-components", false, "it concerns no component")
	cmd.fs.Var(&tags, "tag", "its `tag`s (repeat for several; replaces the list)")
	cmd.fs.BoolVar(&noTags, "no-tags", false, "remove every tag")
	if has(statusd.Planned) {
		cmd.fs.StringVar(&begins, "begins", "", "maintenance: new start `time`, RFC 3339 or a duration from now (+90s, +2h, +1d)")
		cmd.fs.StringVar(&ends, "ends", "", "maintenance: new end `time`")
		cmd.optBool(&automate, "automate", "maintenance: let statusd move it underway and complete on time (--automate=false: by hand)")
	}
	if has(statusd.General) {
		cmd.fs.StringVar(&expires, "expires", "", "announcement: when it stops being current, a `time`")
		cmd.fs.BoolVar(&noExpiry, "no-expiry", false, "announcement: current until removed")
	}
	if has(statusd.Unplanned) {
		cmd.impactFlag(&level, "incident: how bad it is: `minor`, major or critical")
		cmd.fs.Var(&impact, "impact-seconds", "incident: its impact for the metrics, `N` seconds from began_at (0: none)")
		cmd.fs.BoolVar(&noImpact, "no-impact-override", false, "incident: its impact is from began_at to ended_at again")
	}
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseID(args)
		if err != nil {
			return err
		}
		switch {
		case len(comps) > 0 && noComps:
			return cmd.usageErr("give --component C or --no-components, not both")
		case len(tags) > 0 && noTags:
			return cmd.usageErr("give --tag T or --no-tags, not both")
		case expires != "" && noExpiry:
			return cmd.usageErr("give --expires T or --no-expiry, not both")
		case impact.set && noImpact:
			return cmd.usageErr("give --impact-seconds N or --no-impact-override, not both")
		}
		var body statusd.AdminNoticeRequest
		if body.Impact, err = cmd.impact(level); err != nil {
			return err
		}
		now := time.Now()
		for _, t := range []struct {
			flag, v string
			dst     *statusd.Field[string]
		}{{"begins", begins, &body.BeginsAt}, {"ends", ends, &body.EndsAt}, {"expires", expires, &body.ExpiresAt}} {
			if t.v != "" {
				v, err := cmd.opParseTime(t.flag, t.v, now)
				if err != nil {
					return err
				}
				*t.dst = statusd.Some(v)
			}
		}
		if subject != "" {
			body.Subject = &subject
		}
		if automate.set {
			body.Automate = &automate.v
		}
		switch {
		case impact.set:
			body.ImpactSeconds = statusd.Some(int64(impact.v))
		case noImpact:
			body.ImpactSeconds = statusd.Null[int64]()
		}
		if noExpiry {
			body.ExpiresAt = statusd.Null[string]()
		}
		if noComps {
			body.ComponentIDs = &[]int64{}
		}
		if noTags {
			body.TagList = &[]string{}
		}
		if body == (statusd.AdminNoticeRequest{}) && len(comps) == 0 && len(tags) == 0 {
			return cmd.usageErr("say what to change (statusd %s -h lists the flags)", name)
		}
		if err := cmd.listing(ctx, &body, comps, tags); err != nil {
			return err
		}
		n, err := cmd.adm.UpdateNotice(ctx, id, body)
		return cmd.notice(ctx, n, err, opChanged)
	})
}

// opChanged prints a notice after a change of its settings, with its
// schedule or expiry.
func opChanged(w io.Writer, n *statusd.AdminNotice) error {
	if err := said("changed")(w, n); err != nil {
		return err
	}
	var err error
	switch n.Type {
	case string(statusd.Planned):
		_, err = fmt.Fprintf(w, "  from %s to %s (automated: %t)\n", opShortTime(n.BeginsAt), opShortTime(n.EndsAt), n.Automate != nil && *n.Automate)
	case string(statusd.General):
		_, err = fmt.Fprintf(w, "  expires %s\n", opShortTime(n.ExpiresAt.Value))
	}
	return err
}

// ---- maintenance ----

func (e Env) maintenanceCommand() *cobra.Command {
	return group("maintenance", "publish planned maintenance",
		"T is RFC 3339 (2026-03-01T02:00:00Z) or a duration from now (+90s, +2h, +1d).",
		e.maintenanceSchedule(),
		e.maintenanceMove("start", "underway", "started", "The scheduled maintenance has begun."),
		e.maintenanceMove("complete", "complete", "completed", "The scheduled maintenance is complete."),
		e.maintenanceMove("cancel", "cancelled", "cancelled", "The scheduled maintenance has been cancelled."),
		e.noticeUpdate("maintenance", "update"),
		e.noticeEdit("maintenance reschedule", statusd.Planned), e.noticeEdit("maintenance edit", statusd.Planned))
}

func (e Env) maintenanceSchedule() *cobra.Command {
	cmd := e.operator("schedule --subject S --begins T --ends T [--automate] [--component C ...] [--tag T ...] [-m MESSAGE] [--no-notify]", "schedule a maintenance")
	var comps, tags opStrings
	var msg, subject, begins, ends string
	var automate bool
	cmd.fs.StringVar(&subject, "subject", "", "the maintenance's `title`")
	cmd.fs.StringVar(&begins, "begins", "", "start `time`: RFC 3339 or a duration from now (+90s, +2h, +1d)")
	cmd.fs.StringVar(&ends, "ends", "", "end `time`: RFC 3339 or a duration from now")
	cmd.fs.BoolVar(&automate, "automate", false, "let statusd move it underway at --begins and complete at --ends")
	cmd.fs.Var(&comps, "component", "affected component, by `id, key or name` (repeat for several)")
	cmd.fs.Var(&tags, "tag", "a `tag` (repeat for several)")
	cmd.message(&msg, "Scheduled maintenance.", "the first update's `text`")
	cmd.notifyFlag()
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
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
		body := statusd.AdminNoticeRequest{Type: new("planned"), Subject: &subject, State: new("scheduled"), Content: &msg,
			BeginsAt: statusd.Some(b), EndsAt: statusd.Some(en), Automate: &automate, Notify: cmd.notify()}
		if err := cmd.listing(ctx, &body, comps, tags); err != nil {
			return err
		}
		n, err := cmd.adm.CreateNotice(ctx, body)
		return cmd.notice(ctx, n, err, func(w io.Writer, n *statusd.AdminNotice) error {
			auto := ""
			if n.Automate != nil && *n.Automate {
				auto = ", automated"
			}
			_, err := fmt.Fprintf(w, "scheduled %s %d %q (%s%s) from %s to %s%s\n", opNoun(n), n.ID, n.Subject, opState(n), auto,
				opShortTime(n.BeginsAt), opShortTime(n.EndsAt), opOn(n))
			return err
		})
	})
}

// maintenanceMove moves a maintenance to state with an update.
func (e Env) maintenanceMove(sub, state, verb, def string) *cobra.Command {
	cmd := e.operator(sub+" ID [-m MESSAGE] [--no-notify]", "move it "+state)
	var msg string
	cmd.message(&msg, def, "the update's `text`")
	cmd.notifyFlag()
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseID(args)
		if err != nil {
			return err
		}
		n, err := cmd.adm.PostUpdate(ctx, id, statusd.AdminUpdateRequest{Content: &msg, State: &state, Notify: cmd.notify()})
		return cmd.notice(ctx, n, err, said(verb))
	})
}

// ---- announce, announcement ----

func (e Env) announceCommand() *cobra.Command {
	cmd := e.operator("announce -m MESSAGE [--subject S] [--expires T] [--component C ...] [--tag T ...] [--no-notify]", "publish a general notice")
	var comps, tags opStrings
	var msg, subject, expires string
	cmd.message(&msg, "", "the announcement's `text`, shown on the page")
	cmd.fs.StringVar(&subject, "subject", "", "its `title` (default: the message's first sentence)")
	cmd.fs.StringVar(&expires, "expires", "", "when it stops being current, a `time`: RFC 3339 or a duration from now (+2h, +7d); default never")
	cmd.fs.Var(&comps, "component", "a component it concerns, by `id, key or name` (repeat for several)")
	cmd.fs.Var(&tags, "tag", "a `tag` (repeat for several)")
	cmd.notifyFlag()
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		if strings.TrimSpace(msg) == "" {
			return cmd.usageErr("say what to announce with -m MESSAGE")
		}
		if subject == "" {
			subject = statusd.SubjectOf(msg)
		}
		body := statusd.AdminNoticeRequest{Type: new("general"), Subject: &subject, Content: &msg, Notify: cmd.notify()}
		if expires != "" {
			t, err := cmd.opParseTime("expires", expires, time.Now())
			if err != nil {
				return err
			}
			body.ExpiresAt = statusd.Some(t)
		}
		if err := cmd.listing(ctx, &body, comps, tags); err != nil {
			return err
		}
		n, err := cmd.adm.CreateNotice(ctx, body)
		return cmd.notice(ctx, n, err, func(w io.Writer, n *statusd.AdminNotice) error {
			until := "until removed"
			if n.ExpiresAt.Value != nil {
				until = "until " + opShortTime(n.ExpiresAt.Value)
			}
			_, err := fmt.Fprintf(w, "announced %s %d %q (%s, %s)%s\n", opNoun(n), n.ID, n.Subject, printable(n.TimelineState), until, opOn(n))
			return err
		})
	})
}

func (e Env) announcementCommand() *cobra.Command {
	return group("announcement", "take an announcement off the page, change it", "Publish one with statusd announce -m MESSAGE.",
		e.announcementWithdraw(), e.noticeEdit("announcement edit", statusd.General))
}

// announcementWithdraw makes an announcement expire: it leaves the page
// but stays in the history.
func (e Env) announcementWithdraw() *cobra.Command {
	cmd := e.operator("withdraw ID [--at T]", "take it off the page, keeping it in the history")
	var at string
	cmd.fs.StringVar(&at, "at", "", "when it stops being current, a `time` (default: now)")
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseID(args)
		if err != nil {
			return err
		}
		when := time.Now().UTC().Format(statusd.TimeLayout)
		if at != "" {
			if when, err = cmd.opParseTime("at", at, time.Now()); err != nil {
				return err
			}
		}
		n, err := cmd.adm.UpdateNotice(ctx, id, statusd.AdminNoticeRequest{ExpiresAt: statusd.Some(when)})
		return cmd.notice(ctx, n, err, func(w io.Writer, n *statusd.AdminNotice) error {
			_, err := fmt.Fprintf(w, "withdrew %s %d %q (%s, expires %s)\n", opNoun(n), n.ID, n.Subject, printable(n.TimelineState),
				opShortTime(n.ExpiresAt.Value))
			return err
		})
	})
}

// ---- notice ----

func (e Env) noticeCommand() *cobra.Command {
	return group("notice", "read and change any notice", "Notices are incidents, maintenance and announcements alike.",
		e.noticeList(), e.noticeShow(), e.noticeEdit("notice edit", ""), e.noticeUpdate("notice", "update"), e.noticeReopen(), e.noticeRm())
}

func (e Env) noticeList() *cobra.Command {
	cmd := e.operator("list [--page N]", "list the notices, newest first")
	cmd.c.Aliases = []string{"ls"}
	var page int
	cmd.fs.IntVar(&page, "page", 1, "page `N`, 25 notices a page, newest first")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		if page < 1 {
			return cmd.usageErr("--page: %d is not an integer >= 1", page)
		}
		list, err := cmd.adm.Notices(ctx, page)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTYPE\tSTATE\tTIMELINE\tUPDATED\tSUBJECT")
			for _, n := range list.Notices {
				state := "-"
				if n.State.Value != nil {
					state = *n.State.Value
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", n.ID, printable(n.Type), printable(state), printable(n.TimelineState),
					opShortTime(&n.UpdatedAt), printable(n.Subject))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			more := ""
			if list.Meta.NextPage != nil {
				more = fmt.Sprintf("; next: statusd notice list --page %d", page+1)
			}
			fmt.Fprintf(cmd.stderr, "%d of %d notices (page %d)%s\n", list.Meta.Count, list.Meta.TotalCount, page, more)
			return nil
		})
	})
}

func (e Env) noticeShow() *cobra.Command {
	cmd := e.operator("show ID", "show a notice and its updates")
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseID(args)
		if err != nil {
			return err
		}
		n, err := cmd.adm.Notice(ctx, id)
		return cmd.notice(ctx, n, err, func(w io.Writer, n *statusd.AdminNotice) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "%s %d\t%s\n", opNoun(n), n.ID, printable(n.Subject))
			fmt.Fprintf(tw, "type\t%s\n", printable(n.Type))
			state := "-"
			if n.State.Value != nil {
				state = *n.State.Value
			}
			fmt.Fprintf(tw, "state\t%s (%s)\n", printable(state), printable(n.TimelineState))
			names := make([]string, len(n.Components))
			for i, c := range n.Components {
				names[i] = fmt.Sprintf("%s (%d, %s)", c.Name, c.ID, c.State)
			}
			fmt.Fprintf(tw, "components\t%s\n", opOrDash(printable(strings.Join(names, ", "))))
			fmt.Fprintf(tw, "tags\t%s\n", opOrDash(printable(strings.Join(n.TagList, ", "))))
			switch n.Type {
			case string(statusd.Planned):
				auto := "no"
				if n.Automate != nil && *n.Automate {
					auto = "yes"
				}
				fmt.Fprintf(tw, "window\t%s to %s (automated: %s)\n", opShortTime(n.BeginsAt), opShortTime(n.EndsAt), auto)
			case string(statusd.General):
				fmt.Fprintf(tw, "expires\t%s\n", opShortTime(n.ExpiresAt.Value))
			}
			if n.Type != string(statusd.General) {
				fmt.Fprintf(tw, "began\t%s\n", opShortTime(n.BeganAt.Value))
				fmt.Fprintf(tw, "ended\t%s\n", opShortTime(n.EndedAt.Value))
			}
			if n.ImpactTime != nil {
				fmt.Fprintf(tw, "impact\t%s\n", printable(n.ImpactTime.Words))
			}
			if n.ImpactSeconds.Value != nil {
				fmt.Fprintf(tw, "impact override\t%d seconds\n", *n.ImpactSeconds.Value)
			}
			if n.Impact != "" {
				fmt.Fprintf(tw, "impact level\t%s\n", n.Impact)
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
	})
}

func (e Env) noticeRm() *cobra.Command {
	cmd := e.operator("rm ID", "delete a notice")
	cmd.c.SuggestFor = []string{"remove", "delete"}
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseID(args)
		if err != nil {
			return err
		}
		n, err := cmd.adm.Notice(ctx, id)
		if err == nil {
			err = cmd.adm.DeleteNotice(ctx, id)
		}
		if err != nil {
			return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd notice list shows the notices")
		}
		return cmd.answer(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "removed %s %d %q\n", opNoun(n), n.ID, n.Subject)
			return err
		})
	})
}

func opOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
