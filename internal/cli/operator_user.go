package cli

// The operator commands for the console's users (CONTRACT C8).

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/statusd/statusd"
)

func (e Env) userCommand() *cobra.Command {
	return group("user", "who may sign in to the console (/manage)",
		"ROLE is viewer (reads everything), publisher (also publishes notices and their\n"+
			"updates) or owner (also manages components, the page, users and subscribers).\n"+
			"add and reset print a setup link, valid 24 hours, where the person sets a password.",
		e.userAdd(), e.userList(), e.userRemove(), e.userReset())
}

// user prints the user a request answered, with its setup link, or says
// what went wrong.
func (cmd *opCommand) user(ctx context.Context, verb string, u *statusd.AdminUser, err error) error {
	if err != nil {
		return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd user list shows the users")
	}
	return cmd.answer(func(w io.Writer) error {
		fmt.Fprintf(w, "%s user %d %s (%s)\n", verb, u.ID, printable(u.Email), printable(u.Role))
		fmt.Fprintf(w, "setup link: %s\nSend it to them: it works once, for 24 hours, and is not shown again.\n", printable(u.SetupURL))
		if strings.HasPrefix(u.SetupURL, "/") {
			// The server does not know the console's URL (--admin-addr
			// without --console-url).
			_, err := fmt.Fprintln(w, "It is a path: open it on the admin listener (serve --admin-addr); serve --console-url URL makes it a full link.")
			return err
		}
		return nil
	})
}

func (e Env) userAdd() *cobra.Command {
	cmd := e.operator("add --email E --role ROLE", "add a user and print their setup link")
	var email, role string
	cmd.fs.StringVar(&email, "email", "", "the `address` the person signs in with")
	cmd.fs.StringVar(&role, "role", "", "what they may do, their `role`: viewer, publisher or owner")
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		switch {
		case email == "":
			return cmd.usageErr("say who with --email E")
		case role == "":
			return cmd.usageErr("say what they may do with --role viewer, publisher or owner")
		}
		u, err := cmd.adm.CreateUser(ctx, statusd.AdminUserRequest{Email: &email, Role: &role})
		return cmd.user(ctx, "added", u, err)
	})
}

func (e Env) userList() *cobra.Command {
	cmd := e.operator("list", "list the users")
	cmd.c.Aliases = []string{"ls"}
	return cmd.run(func(ctx context.Context, args []string) error {
		if _, err := cmd.connect(args); err != nil {
			return err
		}
		users, err := cmd.adm.Users(ctx)
		if err != nil {
			return cmd.fail(ctx, err)
		}
		return cmd.answer(func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tROLE\tSTATE\tCREATED\tEMAIL")
			for _, u := range users {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", u.ID, printable(u.Role), printable(u.State), opShortTime(&u.CreatedAt), printable(u.Email))
			}
			return tw.Flush()
		})
	})
}

func (e Env) userRemove() *cobra.Command {
	cmd := e.operator("remove ID", "delete a user and end their sessions")
	cmd.c.Aliases = []string{"rm"}
	cmd.c.SuggestFor = []string{"delete"}
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDOf("user", args)
		if err != nil {
			return err
		}
		if err := cmd.adm.DeleteUser(ctx, id); err != nil {
			return opWithHint(cmd.fail(ctx, err), ExitNotFound, "statusd user list shows the users")
		}
		return cmd.answer(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "removed user %d, and ended its sessions\n", id)
			return err
		})
	})
}

func (e Env) userReset() *cobra.Command {
	cmd := e.operator("reset ID", "end their sessions and print a new setup link")
	return cmd.run(func(ctx context.Context, args []string) error {
		id, err := cmd.parseIDOf("user", args)
		if err != nil {
			return err
		}
		u, err := cmd.adm.ResetUser(ctx, id)
		return cmd.user(ctx, "reset", u, err)
	})
}
