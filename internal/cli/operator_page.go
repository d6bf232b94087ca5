package cli

// The operator commands for the page and its components.

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
)

// ---- page ----

func (e Env) pageCommand() *cobra.Command {
	return group("page", "the page's name, URL and state texts", "", e.pageShow(), e.pageEdit())
}

// opPrintPage prints the page's settings and state.
func opPrintPage(w io.Writer, p *statusd.AdminPage) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "name\t%s\n", printable(p.Name))
	fmt.Fprintf(tw, "url\t%s\n", printable(p.URL))
	fmt.Fprintf(tw, "state\t%s (%s)\n", printable(p.State), printable(p.StateText))
	fmt.Fprintf(tw, "operational text\t%s\n", printable(p.StateTexts.Operational))
	fmt.Fprintf(tw, "degraded text\t%s\n", printable(p.StateTexts.Degraded))
	fmt.Fprintf(tw, "maintenance text\t%s\n", printable(p.StateTexts.UnderMaintenance))
	fmt.Fprintf(tw, "components\t%d\n", p.Links.Components.Count)
	fmt.Fprintf(tw, "notices\t%d\n", p.Links.Notices.Count)
	fmt.Fprintf(tw, "updated\t%s\n", opShortTime(&p.UpdatedAt))
	return tw.Flush()
}

func (e Env) pageShow() *cobra.Command {
	cmd := e.operator("show", "show the page's settings and state")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		p, err := cmd.adm.Page(ctx)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error { return opPrintPage(w, p) })
	})
}

func (e Env) pageEdit() *cobra.Command {
	cmd := e.operator("edit [--name N] [--page-url U] [--operational-text T] [--degraded-text T] [--maintenance-text T]", "change the page's name, URL or state texts")
	var body statusd.AdminPageRequest
	var texts statusd.AdminStateTextsRequest
	for _, f := range []struct {
		dst         **string
		name, usage string
	}{
		{&body.Name, "name", "the page's `name`"},
		{&body.URL, "page-url", "the page's public `URL`, https://status.example.com"},
		{&texts.Operational, "operational-text", "the `text` shown when all is operational (empty: the default)"},
		{&texts.Degraded, "degraded-text", "the `text` shown when something is degraded (empty: the default)"},
		{&texts.UnderMaintenance, "maintenance-text", "the `text` shown during maintenance (empty: the default)"},
	} {
		cmd.fs.Func(f.name, f.usage, func(v string) error { *f.dst = &v; return nil })
	}
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		if texts != (statusd.AdminStateTextsRequest{}) {
			body.StateTexts = &texts
		}
		if body == (statusd.AdminPageRequest{}) {
			return cmd.usageErr("say what to change with --name, --page-url or a --*-text flag")
		}
		p, err := cmd.adm.UpdatePage(ctx, body)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error { return opPrintPage(w, p) })
	})
}

// ---- component ----

func (e Env) componentCommand() *cobra.Command {
	return group("component", "manage the page's components", "C is a component's id, its key or its name (case-insensitive).",
		e.componentAdd(), e.componentList(), e.componentShow(), e.componentEdit(), e.componentMove(), e.componentRm())
}

// keyUsage is the help of a component's --key.
const keyUsage = "its `key`, the name alerts give it: lower-case letters (at least one), digits, '-' and '_'"

// opKey is a component's key, printable, or "-" when it has none.
func opKey(c statusd.AdminComponent) string {
	if c.Key == nil {
		return "-"
	}
	return printable(*c.Key)
}

// opPlacement describes where a component is: "at the top level, position 2".
func opPlacement(list []statusd.AdminComponent, c statusd.AdminComponent) string {
	where := "at the top level"
	if p := opParent(list, c); p != nil {
		where = fmt.Sprintf("under %q (%d)", p.Name, p.ID)
	} else if c.ParentID != nil {
		where = fmt.Sprintf("under %d", *c.ParentID)
	}
	return fmt.Sprintf("%s, position %d", where, c.Position)
}

// parseComponent parses args, which must name one component, runs check
// on the flags unless it is nil, and returns the component list and the
// component named.
func (cmd *opCommand) parseComponent(ctx context.Context, args []string, check func() error) ([]statusd.AdminComponent, statusd.AdminComponent, error) {
	var c statusd.AdminComponent
	rest, err := cmd.connect(args, "C")
	if err == nil && check != nil {
		err = check()
	}
	if err != nil {
		return nil, c, err
	}
	list, err := cmd.components(ctx)
	if err != nil {
		return nil, c, err
	}
	c, err = opResolve(list, rest[0])
	return list, c, err
}

// changeComponent sends PATCH /components/{id} and prints the answer
// after verb.
func (cmd *opCommand) changeComponent(ctx context.Context, list []statusd.AdminComponent, id int64, body statusd.AdminComponentRequest, verb string) error {
	c, err := cmd.adm.UpdateComponent(ctx, id, body)
	if err != nil {
		return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd component list shows the components")
	}
	return cmd.answer(func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s component %d %q %s\n", verb, c.ID, c.Name, opPlacement(list, *c))
		return err
	})
}

func (e Env) componentAdd() *cobra.Command {
	cmd := e.operator("add NAME [--key K] [--description D] [--parent C] [--position N] [--metrics]", "add a component")
	var key, description, parent string
	var position opOptInt
	var metrics bool
	cmd.fs.StringVar(&key, "key", "", keyUsage)
	cmd.fs.StringVar(&description, "description", "", "what it is, shown on the page, a `text`")
	cmd.fs.StringVar(&parent, "parent", "", "the component it belongs under, by `id, key or name` (default: top level)")
	cmd.fs.Var(&position, "position", "display position `N`, 1 first (default: last)")
	cmd.fs.BoolVar(&metrics, "metrics", false, "publish uptime metrics for it")
	return cmd.run(func(ctx context.Context, args []string) error {
		rest, err := cmd.connect(args, "NAME")
		if err != nil {
			return err
		}
		body := statusd.AdminComponentRequest{Name: &rest[0], MetricsEnabled: &metrics}
		if key != "" {
			body.Key = statusd.Some(key)
		}
		if description != "" {
			body.Description = &description
		}
		if position.set {
			body.Position = &position.v
		}
		var list []statusd.AdminComponent
		if parent != "" {
			ids, l, err := cmd.resolve(ctx, []string{parent})
			if err != nil {
				return err
			}
			body.ParentID, list = statusd.Some(ids[0]), l
		}
		c, err := cmd.adm.CreateComponent(ctx, body)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "added component %d %q %s\n", c.ID, c.Name, opPlacement(list, *c))
			return err
		})
	})
}

func (e Env) componentList() *cobra.Command {
	cmd := e.operator("list", "list the components")
	cmd.c.Aliases = []string{"ls"}
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		list, err := cmd.components(ctx)
		if err != nil {
			return err
		}
		return cmd.answer(func(w io.Writer) error {
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
			fmt.Fprintln(tw, "ID\tNAME\tKEY\tSTATE\tPARENT\tPOS\tMETRICS\tDESCRIPTION")
			for _, c := range list {
				parent, metrics := "-", "off"
				if c.ParentID != nil {
					parent = strconv.FormatInt(*c.ParentID, 10)
				}
				if c.MetricsEnabled {
					metrics = "on"
				}
				fmt.Fprintf(tw, "%d\t%s%s\t%s\t%s\t%s\t%d\t%s\t%s\n", c.ID, strings.Repeat("  ", depth[c.ID]), printable(c.Name), opKey(c),
					printable(c.State), parent, c.Position, metrics, printable(c.Description))
			}
			return tw.Flush()
		})
	})
}

func (e Env) componentShow() *cobra.Command {
	cmd := e.operator("show C", "show a component")
	return cmd.run(func(ctx context.Context, args []string) error {
		list, c, err := cmd.parseComponent(ctx, args, nil)
		if err != nil {
			return err
		}
		got, err := cmd.adm.Component(ctx, c.ID)
		if err != nil {
			return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd component list shows the components")
		}
		return cmd.answer(func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "component %d\t%s\n", got.ID, printable(got.Name))
			fmt.Fprintf(tw, "key\t%s\n", opKey(*got))
			fmt.Fprintf(tw, "description\t%s\n", opOrDash(printable(got.Description)))
			fmt.Fprintf(tw, "state\t%s\n", printable(got.State))
			fmt.Fprintf(tw, "place\t%s\n", printable(opPlacement(list, *got)))
			fmt.Fprintf(tw, "below it\t%d\n", got.Links.Children.Count)
			fmt.Fprintf(tw, "metrics\t%t\n", got.MetricsEnabled)
			fmt.Fprintf(tw, "updated\t%s\n", opShortTime(&got.UpdatedAt))
			return tw.Flush()
		})
	})
}

func (e Env) componentEdit() *cobra.Command {
	cmd := e.operator("edit C [--name N] [--key K] [--description D] [--metrics=true|false]", "change a component's name, key, description or metrics")
	var body statusd.AdminComponentRequest
	var metrics opOptBool
	cmd.fs.Func("name", "its new `name`", func(v string) error { body.Name = &v; return nil })
	cmd.fs.Func("key", keyUsage+" (\"\": none)", func(v string) error { body.Key = statusd.Some(v); return nil })
	cmd.fs.Func("description", "what it is, shown on the page, a `text` (\"\": none)", func(v string) error { body.Description = &v; return nil })
	cmd.optBool(&metrics, "metrics", "publish uptime metrics for it (--metrics=false: stop)")
	return cmd.run(func(ctx context.Context, args []string) error {
		list, c, err := cmd.parseComponent(ctx, args, func() error {
			if metrics.set {
				body.MetricsEnabled = &metrics.v
			}
			if body == (statusd.AdminComponentRequest{}) {
				return cmd.usageErr("say what to change with --name, --key, --description or --metrics")
			}
			return nil
		})
		if err != nil {
			return err
		}
		return cmd.changeComponent(ctx, list, c.ID, body, "changed")
	})
}

func (e Env) componentMove() *cobra.Command {
	cmd := e.operator("move C [--parent C | --top] [--position N]", "move a component under another, to the top or to a position")
	var parent string
	var top bool
	var position opOptInt
	cmd.fs.StringVar(&parent, "parent", "", "the component to move it under, by `id, key or name`")
	cmd.fs.BoolVar(&top, "top", false, "move it to the top level")
	cmd.fs.Var(&position, "position", "new display position `N`, 1 first, counted over the whole page")
	return cmd.run(func(ctx context.Context, args []string) error {
		list, c, err := cmd.parseComponent(ctx, args, func() error {
			switch {
			case parent != "" && top:
				return cmd.usageErr("give --parent C or --top, not both")
			case parent == "" && !top && !position.set:
				return cmd.usageErr("say where to with --parent C, --top or --position N")
			}
			return nil
		})
		if err != nil {
			return err
		}
		var body statusd.AdminComponentRequest
		switch {
		case top:
			body.ParentID = statusd.Null[int64]()
		case parent != "":
			p, err := opResolve(list, parent)
			if err != nil {
				return err
			}
			body.ParentID = statusd.Some(p.ID)
		}
		if position.set {
			body.Position = &position.v
		}
		return cmd.changeComponent(ctx, list, c.ID, body, "moved")
	})
}

func (e Env) componentRm() *cobra.Command {
	cmd := e.operator("rm C [--recursive] [--detach]", "delete a component")
	cmd.c.SuggestFor = []string{"remove", "delete"}
	var opts client.DeleteComponentOptions
	cmd.fs.BoolVar(&opts.Recursive, "recursive", false, "also remove every component below it")
	cmd.fs.BoolVar(&opts.Detach, "detach", false, "also remove it from the notices that list it (open incidents, maintenance, history); without it, such a component is not removed")
	return cmd.run(func(ctx context.Context, args []string) error {
		list, c, err := cmd.parseComponent(ctx, args, nil)
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
		if err := cmd.adm.DeleteComponent(ctx, c.ID, opts); err != nil {
			hint := fmt.Sprintf("pass --recursive to remove %q with everything below it", c.Name)
			if opts.Recursive || below == 0 {
				hint = fmt.Sprintf("pass --detach to remove %q from those notices as well", c.Name)
			}
			err = opWithHint(cmd.fail(ctx, err), ExitRefused, hint)
			return opWithHint(err, ExitNotFound, "statusd component list shows the components")
		}
		return cmd.answer(func(w io.Writer) error {
			extra := ""
			if opts.Recursive && below > 0 {
				extra = fmt.Sprintf(" and the %d component(s) below it", below)
			}
			_, err := fmt.Fprintf(w, "removed component %d %q%s\n", c.ID, c.Name, extra)
			return err
		})
	})
}
