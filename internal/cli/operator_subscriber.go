package cli

// The operator commands for subscribers and the delivery log (CONTRACT C7).

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
)

// ---- subscriber ----

func (e Env) subscriberCommand() *cobra.Command {
	return group("subscriber", "who is told of notices: email, webhooks, chat",
		"CHANNEL is email, webhook, slack, teams or discord; A the email address or the URL to send to.\n"+
			"C is a component's id or its name; a subscriber without components follows the whole page.",
		e.subscriberAdd(), e.subscriberList(), e.subscriberShow(), e.subscriberSet(), e.subscriberReactivate(), e.subscriberRemove(), e.subscriberTest())
}

// opSubscriber is a one-line summary of a subscriber after a verb.
func opSubscriber(verb string, s *statusd.AdminSubscriber) string {
	return fmt.Sprintf("%s %s subscriber %d (%s), following %s: %s", verb, printable(s.Channel), s.ID, printable(s.State),
		statusd.Follows(s.ComponentIDs), printable(s.Address))
}

// subscriber prints the subscriber a request answered, or says what went
// wrong.
func (cmd *opCommand) subscriber(ctx context.Context, s *statusd.AdminSubscriber, err error, summary func(w io.Writer, s *statusd.AdminSubscriber) error) error {
	if err != nil {
		return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd subscriber list shows the subscribers")
	}
	return cmd.answer(func(w io.Writer) error { return summary(w, s) })
}

func (e Env) subscriberAdd() *cobra.Command {
	cmd := e.operator("add --channel CHANNEL --address A [--component C ...] [--confirmed]", "add a subscriber")
	var comps opStrings
	var channel, address string
	var confirmed bool
	cmd.fs.StringVar(&channel, "channel", "", "how it is told, its `channel`: email, webhook, slack, teams or discord")
	cmd.fs.StringVar(&address, "address", "", "the email `address`, or the URL of the webhook or chat channel")
	cmd.fs.Var(&comps, "component", "a component it follows, by `id, key or name` (repeat for several; default: the whole page)")
	cmd.fs.BoolVar(&confirmed, "confirmed", false, "email: the address agreed already (a list moved from elsewhere): active at once, no confirmation email")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		switch {
		case channel == "":
			return cmd.usageErr("say how it is told with --channel email, webhook, slack, teams or discord")
		case address == "":
			return cmd.usageErr("say where to send with --address A (an email address or a URL)")
		}
		body := statusd.AdminSubscriberRequest{Channel: &channel, Address: &address}
		if confirmed {
			body.Confirmed = &confirmed
		}
		ids, _, err := cmd.resolve(ctx, comps)
		if err != nil {
			return err
		}
		if ids != nil {
			body.ComponentIDs = &ids
		}
		s, err := cmd.adm.CreateSubscriber(ctx, body)
		return cmd.subscriber(ctx, s, err, func(w io.Writer, s *statusd.AdminSubscriber) error {
			fmt.Fprintln(w, opSubscriber("added", s))
			if s.State == string(statusd.SubscriberPending) {
				fmt.Fprintln(w, "It is sent a confirmation email, and told of notices once the address confirms.")
			}
			if s.Secret == "" {
				return nil
			}
			_, err := fmt.Fprintf(w, "secret: %s\nStore this secret now: it signs every delivery (the webhook-signature header), and it is not shown again.\n",
				printable(s.Secret))
			return err
		})
	})
}

func (e Env) subscriberList() *cobra.Command {
	cmd := e.operator("list [--channel CHANNEL] [--state STATE] [--page N]", "list the subscribers")
	cmd.c.Aliases = []string{"ls"}
	var f statusd.SubscriberFilter
	var page int
	cmd.fs.Func("channel", "only the subscribers of this `channel`: email, webhook, slack, teams or discord", func(v string) error {
		f.Channel = statusd.Channel(v)
		return nil
	})
	cmd.fs.Func("state", "only the subscribers in this `state`: pending, active, quarantined or unsubscribed", func(v string) error {
		f.State = statusd.SubscriberState(v)
		return nil
	})
	cmd.fs.IntVar(&page, "page", 1, "page `N`, 25 subscribers a page, by id")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		if page < 1 {
			return cmd.usageErr("--page: %d is not an integer >= 1", page)
		}
		list, err := cmd.adm.Subscribers(ctx, f, page)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCHANNEL\tSTATE\tFOLLOWS\tCREATED\tADDRESS")
			for _, s := range list.Subscribers {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", s.ID, printable(s.Channel), printable(s.State), statusd.Follows(s.ComponentIDs),
					opShortTime(&s.CreatedAt), printable(s.Address))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			more := ""
			if list.Meta.NextPage != nil {
				more = fmt.Sprintf("; next: statusd subscriber list%s --page %d", opFilters("channel", string(f.Channel), "state", string(f.State)), page+1)
			}
			fmt.Fprintf(cmd.stderr, "%d of %d subscribers (page %d)%s\n", list.Meta.Count, list.Meta.TotalCount, page, more)
			return nil
		})
	})
}

// opFilters repeats a list's filters, given as flag, value pairs, as
// flags: " --channel email"; those without a value are left out.
func opFilters(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			fmt.Fprintf(&b, " --%s %s", pairs[i], printable(pairs[i+1]))
		}
	}
	return b.String()
}

func (e Env) subscriberShow() *cobra.Command {
	cmd := e.operator("show ID", "show a subscriber")
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDOf("subscriber", args)
		if err != nil {
			return err
		}
		s, err := cmd.adm.Subscriber(ctx, id)
		return cmd.subscriber(ctx, s, err, func(w io.Writer, s *statusd.AdminSubscriber) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "subscriber %d\t%s\n", s.ID, printable(s.Channel))
			fmt.Fprintf(tw, "address\t%s\n", printable(s.Address))
			fmt.Fprintf(tw, "state\t%s\n", printable(s.State))
			fmt.Fprintf(tw, "follows\t%s\n", statusd.Follows(s.ComponentIDs))
			fmt.Fprintf(tw, "created\t%s\n", opShortTime(&s.CreatedAt))
			fmt.Fprintf(tw, "updated\t%s\n", opShortTime(&s.UpdatedAt))
			return tw.Flush()
		})
	})
}

func (e Env) subscriberSet() *cobra.Command {
	cmd := e.operator("set ID [--component C ... | --all-components] [--active]", "change a subscriber's components or make it active again")
	var comps opStrings
	var all, active bool
	cmd.fs.Var(&comps, "component", "a component it follows, by `id, key or name` (repeat for several; replaces the list)")
	cmd.fs.BoolVar(&all, "all-components", false, "it follows the whole page")
	cmd.fs.BoolVar(&active, "active", false, "send to it again: a quarantined subscriber, or a webhook or chat one its receiver unsubscribed (410)")
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDOf("subscriber", args)
		if err != nil {
			return err
		}
		switch {
		case len(comps) > 0 && all:
			return cmd.usageErr("give --component C or --all-components, not both")
		case len(comps) == 0 && !all && !active:
			return cmd.usageErr("say what to change with --component C, --all-components or --active")
		}
		var body statusd.AdminSubscriberRequest
		if active {
			body.State = new(string(statusd.SubscriberActive))
		}
		if all {
			body.ComponentIDs = &[]int64{}
		}
		ids, _, err := cmd.resolve(ctx, comps)
		if err != nil {
			return err
		}
		if ids != nil {
			body.ComponentIDs = &ids
		}
		s, err := cmd.adm.PatchSubscriber(ctx, id, body)
		return cmd.subscriber(ctx, s, err, func(w io.Writer, s *statusd.AdminSubscriber) error {
			_, err := fmt.Fprintln(w, opSubscriber("changed", s))
			return err
		})
	})
}

// subscriberReactivate sets quarantined subscribers active again, through
// POST /subscribers/reactivate: those of --channel, or those --id names;
// neither, every quarantined subscriber.
func (e Env) subscriberReactivate() *cobra.Command {
	cmd := e.operator("reactivate [--channel CHANNEL] [--id ID ...]",
		"set quarantined subscribers active again, and send them the newest update of each notice they missed")
	var ids opStrings
	var channel string
	cmd.fs.StringVar(&channel, "channel", "", "only the quarantined subscribers of this `channel`: email, webhook, slack, teams or discord")
	cmd.fs.Var(&ids, "id", "the quarantined subscriber with this `ID` (repeat for several; default: every quarantined subscriber)")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		var body statusd.AdminReactivateRequest
		if channel != "" {
			body.Channel = &channel
		}
		if len(ids) > 0 {
			list := make([]int64, len(ids))
			for i, v := range ids {
				id, err := cmd.opID("subscriber", v)
				if err != nil {
					return err
				}
				list[i] = id
			}
			body.IDs = &list
		}
		done, err := cmd.adm.ReactivateSubscribers(ctx, body)
		if err != nil {
			return opWithHint(cmd.fail(ctx, err), ExitRefused, "statusd subscriber list --state quarantined shows the quarantined subscribers")
		}
		return cmd.answer(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "reactivated %d subscribers; %d messages will be sent again\n", done.Reactivated, done.Requeued)
			return err
		})
	})
}

func (e Env) subscriberRemove() *cobra.Command {
	cmd := e.operator("remove ID", "delete a subscriber and its deliveries")
	cmd.c.Aliases = []string{"rm"}
	cmd.c.SuggestFor = []string{"delete"}
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDOf("subscriber", args)
		if err != nil {
			return err
		}
		s, err := cmd.adm.Subscriber(ctx, id)
		if err == nil {
			err = cmd.adm.DeleteSubscriber(ctx, id)
		}
		return cmd.subscriber(ctx, s, err, func(w io.Writer, s *statusd.AdminSubscriber) error {
			_, err := fmt.Fprintf(w, "removed %s subscriber %d: %s, with its deliveries\n", printable(s.Channel), s.ID, printable(s.Address))
			return err
		})
	})
}

// subscriberTest sends a test message; it exits 1 when the message was not
// delivered at once, after saying what became of it.
func (e Env) subscriberTest() *cobra.Command {
	cmd := e.operator("test ID", "send a subscriber a test message")
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDOf("subscriber", args)
		if err != nil {
			return err
		}
		d, err := cmd.adm.TestSubscriber(ctx, id)
		if err != nil {
			return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd subscriber list shows the subscribers")
		}
		err = cmd.answer(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "test message to subscriber %d: delivery %d %s\n", d.SubscriberID, d.ID, opOutcome(d))
			return err
		})
		if err == nil && d.State != string(statusd.DeliveryDelivered) {
			err = Errorf(ExitFailure, "subscriber %d did not take the test message: %s; statusd deliveries --subscriber %d follows it",
				d.SubscriberID, opLastAttempt(d), d.SubscriberID)
		}
		return err
	})
}

// opOutcome says what became of a delivery: "delivered (200) at T",
// "pending after 2 attempt(s): timeout; next attempt at T".
func opOutcome(d *statusd.AdminDelivery) string {
	switch d.State {
	case string(statusd.DeliveryDelivered):
		return fmt.Sprintf("delivered (%s) at %s", opLastAttempt(d), opShortTime(d.DeliveredAt))
	case string(statusd.DeliveryPending):
		return fmt.Sprintf("pending after %d attempt(s): %s; next attempt at %s", d.Attempts, opLastAttempt(d), opShortTime(d.NextAttemptAt))
	}
	return fmt.Sprintf("%s after %d attempt(s): %s", printable(d.State), d.Attempts, opLastAttempt(d))
}

// opLastAttempt is the status and error of a delivery's last attempt:
// "status 503: Service Unavailable", "no attempt yet".
func opLastAttempt(d *statusd.AdminDelivery) string {
	var parts []string
	if d.LastStatus != nil {
		parts = append(parts, fmt.Sprintf("status %d", *d.LastStatus))
	}
	if d.LastError != nil {
		parts = append(parts, printable(statusd.CutWords(strings.Join(strings.Fields(*d.LastError), " "), 100)))
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, ": ")
	case d.Attempts == 0:
		return "no attempt yet"
	}
	return "no answer"
}

// ---- deliveries ----

func (e Env) deliveriesCommand() *cobra.Command {
	cmd := e.operator("deliveries [--subscriber ID] [--state pending|delivered|failed] [--page N]", "what was sent to subscribers, newest first")
	var subscriber string
	var page int
	var f statusd.DeliveryFilter
	cmd.fs.StringVar(&subscriber, "subscriber", "", "only the deliveries to the subscriber with this `ID`")
	cmd.fs.Func("state", "only the deliveries in this `state`: pending, delivered or failed", func(v string) error {
		f.State = statusd.DeliveryState(v)
		return nil
	})
	cmd.fs.IntVar(&page, "page", 1, "page `N`, 25 deliveries a page, newest first")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		if page < 1 {
			return cmd.usageErr("--page: %d is not an integer >= 1", page)
		}
		if subscriber != "" {
			id, err := cmd.opID("subscriber", subscriber)
			if err != nil {
				return err
			}
			f.SubscriberID = id
		}
		list, err := cmd.adm.Deliveries(ctx, f, page)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCREATED\tSUBSCRIBER\tEVENT\tSTATE\tATTEMPTS\tLAST ATTEMPT\tNEXT OR DELIVERED")
			for _, d := range list.Deliveries {
				event := printable(d.Event.Kind)
				if d.Event.NoticeID != nil {
					event += fmt.Sprintf(" (notice %d)", *d.Event.NoticeID)
				}
				when := opShortTime(d.NextAttemptAt)
				if d.DeliveredAt != nil {
					when = opShortTime(d.DeliveredAt)
				}
				fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%d\t%s\t%s\n", d.ID, opShortTime(&d.CreatedAt), d.SubscriberID, event, printable(d.State),
					d.Attempts, opLastAttempt(&d), when)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			more := ""
			if list.Meta.NextPage != nil {
				more = fmt.Sprintf("; next: statusd deliveries%s --page %d", opFilters("subscriber", subscriber, "state", string(f.State)), page+1)
			}
			fmt.Fprintf(cmd.stderr, "%d of %d deliveries (page %d)%s\n", list.Meta.Count, list.Meta.TotalCount, page, more)
			return nil
		})
	})
}
