package main

// The operator commands for the console's users (CONTRACT C8).

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/statusd/statusd"
)

const userSynopsis = `  statusd user add --email E --role ROLE
  statusd user list
  statusd user remove ID
  statusd user reset ID
  ROLE is viewer (reads everything), publisher (also publishes notices and their
  updates) or owner (also manages components, the page, users and subscribers).
  add and reset print a setup link, valid 24 hours, where the person sets a password.
`

func userCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := opEnv{getenv, stdout, stderr}
	return e.subcommand(ctx, "user", args, userSynopsis, map[string]func(context.Context, []string) error{
		"add":    e.userAdd,
		"list":   e.userList,
		"ls":     e.userList,
		"remove": e.userRemove,
		"rm":     e.userRemove,
		"reset":  e.userReset,
	})
}

// user prints the user a request answered, with its setup link, or says
// what went wrong.
func (cmd *opCommand) user(ctx context.Context, verb string, u *statusd.AdminUser, err error) error {
	if err != nil {
		return opWithHint(cmd.fail(ctx, err), exitCodeNotFound, "statusd user list shows the users")
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

func (e opEnv) userAdd(ctx context.Context, args []string) error {
	cmd := e.command("user add", "user add --email E --role ROLE")
	var email, role string
	cmd.fs.StringVar(&email, "email", "", "the `address` the person signs in with")
	cmd.fs.StringVar(&role, "role", "", "what they may do: `viewer`, publisher or owner")
	if _, err := cmd.parse(args); err != nil {
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
}

func (e opEnv) userList(ctx context.Context, args []string) error {
	cmd := e.command("user list", "user list")
	if _, err := cmd.parse(args); err != nil {
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
}

func (e opEnv) userRemove(ctx context.Context, args []string) error {
	cmd := e.command("user remove", "user remove ID")
	id, err := cmd.parseIDOf("user", args)
	if err != nil {
		return err
	}
	if err := cmd.adm.DeleteUser(ctx, id); err != nil {
		return opWithHint(cmd.fail(ctx, err), exitCodeNotFound, "statusd user list shows the users")
	}
	return cmd.answer(func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "removed user %d, and ended its sessions\n", id)
		return err
	})
}

func (e opEnv) userReset(ctx context.Context, args []string) error {
	cmd := e.command("user reset", "user reset ID")
	id, err := cmd.parseIDOf("user", args)
	if err != nil {
		return err
	}
	u, err := cmd.adm.ResetUser(ctx, id)
	return cmd.user(ctx, "reset", u, err)
}
