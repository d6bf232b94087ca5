package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/statusd/statusd"
)

// SetPage changes the page's name, url and state texts as body says.
//
// The actions on the page and the components (AddComponent,
// ChangeComponent, RemoveComponent), like those on notices (Publish),
// each check the actor's role and their input and run in one transaction
// with their audit entry; they send nothing.
func (a *App) SetPage(ctx context.Context, actor statusd.Actor, body statusd.AdminPageRequest) error {
	if err := May(actor, ActSetPage); err != nil {
		return err
	}
	var bad problems
	bad.requireText("name", body.Name, false)
	if body.URL != nil {
		if err := statusd.CheckPageURL(*body.URL); err != nil {
			bad.add("url", "%v", err)
		}
	}
	if err := bad.err(); err != nil {
		return err
	}
	return a.write(ctx, func(tx statusd.Tx) error {
		p, err := tx.Page()
		if err != nil {
			return err
		}
		var changed []string
		set := func(name string, dst *string, v *string) {
			if v != nil && *v != *dst {
				*dst = *v
				changed = append(changed, name)
			}
		}
		set("name", &p.Name, body.Name)
		set("url", &p.URL, body.URL)
		if st := body.StateTexts; st != nil {
			set("state_texts.operational", &p.StateTexts.Operational, st.Operational)
			set("state_texts.degraded", &p.StateTexts.Degraded, st.Degraded)
			set("state_texts.under_maintenance", &p.StateTexts.UnderMaintenance, st.UnderMaintenance)
		}
		p.UpdatedAt = a.stamp()
		if err := tx.PutPage(p); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "page.update", "page", "changed "+strings.Join(changed, ", ")))
	})
}

// AddComponent adds the component of body, placed under its parent at its
// position, and returns its id.
func (a *App) AddComponent(ctx context.Context, actor statusd.Actor, body statusd.AdminComponentRequest) (int64, error) {
	if err := May(actor, ActAddComponent); err != nil {
		return 0, err
	}
	var bad problems
	bad.requireText("name", body.Name, true)
	bad.checkKey(body.Key)
	if err := bad.err(); err != nil {
		return 0, err
	}
	var id int64
	err := a.write(ctx, func(tx statusd.Tx) error {
		comps, err := pageComponents(tx)
		if err != nil {
			return err
		}
		if id, err = tx.NextID("components"); err != nil {
			return err
		}
		now := a.stamp()
		c := statusd.Component{ID: id, Name: *body.Name, CreatedAt: now, UpdatedAt: now}
		setKey(&c, body)
		if body.Description != nil {
			c.Description = *body.Description
		}
		if body.MetricsEnabled != nil {
			c.MetricsEnabled = *body.MetricsEnabled
		}
		order, err := placeComponent(comps, c, body, len(comps)+1)
		if err != nil {
			return err
		}
		if err := savePositions(tx, comps, order, id); err != nil {
			return err
		}
		return tx.Audit(a.entry(actor, "component.create", fmt.Sprintf("component %d", id), c.Name))
	})
	return id, err
}

// checkKey notes a key that a body sets and that is not one; whether
// another component has it is placeComponent's to say, with the page.
func (p *problems) checkKey(key statusd.Field[string]) {
	if key.Value != nil {
		if msg := statusd.CheckComponentKey(*key.Value); msg != "" {
			p.add("key", "%s", msg)
		}
	}
}

// setKey gives c the key of body, when body sets one: null and "" clear
// it.
func setKey(c *statusd.Component, body statusd.AdminComponentRequest) {
	if body.Key.Set {
		c.Key = ""
		if body.Key.Value != nil {
			c.Key = *body.Key.Value
		}
	}
}

// placeComponent returns the components in their new position order with c
// (new or changed) placed as body asks: under its parent, at its position.
// It refuses, naming every problem, a key that body sets and that is
// another component's, a position out of range and a parent that does not
// exist or makes a cycle.
func placeComponent(comps []statusd.Component, c statusd.Component, body statusd.AdminComponentRequest, maxPos int) ([]statusd.Component, error) {
	var bad problems
	if msg := statusd.ComponentKeyProblem(comps, c.ID, c.Key); body.Key.Set && msg != "" {
		bad.add("key", "%s", msg)
	}
	rest := slices.DeleteFunc(slices.Clone(comps), func(o statusd.Component) bool { return o.ID == c.ID })
	pos := len(rest) + 1
	if i := slices.IndexFunc(comps, func(o statusd.Component) bool { return o.ID == c.ID }); i >= 0 {
		pos = i + 1
	}
	if body.Position != nil {
		if *body.Position < 1 || *body.Position > maxPos {
			bad.add("position", "must be from 1 to %d", maxPos)
		}
		pos = *body.Position
	}
	if body.ParentID.Set {
		c.ParentID = body.ParentID.Value
		if body.Position == nil && c.ParentID != nil {
			// Without a position, a component joins its parent's group:
			// right after the parent's last descendant.
			pos = afterSubtree(rest, *c.ParentID)
		}
	}
	if c.ParentID != nil {
		parents := map[int64]*int64{}
		for _, o := range rest {
			parents[o.ID] = o.ParentID
		}
		switch _, ok := parents[*c.ParentID]; {
		case *c.ParentID == c.ID:
			bad.add("parent_id", "a component cannot be its own parent")
		case !ok:
			bad.add("parent_id", "no component has id %d", *c.ParentID)
		default:
			for p := c.ParentID; p != nil; p = parents[*p] {
				if *p == c.ID {
					bad.add("parent_id", "a component cannot be moved under its own descendant %d", *c.ParentID)
					break
				}
			}
		}
	}
	if err := bad.err(); err != nil {
		return nil, err
	}
	pos = min(max(pos, 1), len(rest)+1)
	return slices.Insert(rest, pos-1, c), nil
}

// afterSubtree returns the position just after the last component of the
// subtree of id in comps (position order), or after the end when id is not
// there.
func afterSubtree(comps []statusd.Component, id int64) int {
	inside := map[int64]bool{id: true}
	last := len(comps)
	for i, c := range comps {
		if inside[c.ID] || (c.ParentID != nil && inside[*c.ParentID]) {
			inside[c.ID] = true
			last = i
		}
	}
	return last + 2
}

// savePositions renumbers order 1..n and writes every component whose row
// changed, and the one with id changed.
func savePositions(tx statusd.Tx, before, order []statusd.Component, changed int64) error {
	old := map[int64]statusd.Component{}
	for _, c := range before {
		old[c.ID] = c
	}
	for i := range order {
		c := &order[i]
		c.Position = i + 1
		if o, ok := old[c.ID]; ok && o.Position == c.Position && c.ID != changed {
			continue
		}
		if err := tx.PutComponent(c); err != nil {
			return err
		}
	}
	return nil
}

// ChangeComponent changes component id's name, key, description,
// metrics, parent or position as body says.
func (a *App) ChangeComponent(ctx context.Context, actor statusd.Actor, id int64, body statusd.AdminComponentRequest) error {
	if err := May(actor, ActChangeComponent); err != nil {
		return err
	}
	var bad problems
	bad.requireText("name", body.Name, false)
	bad.checkKey(body.Key)
	if err := bad.err(); err != nil {
		return err
	}
	err := a.write(ctx, func(tx statusd.Tx) error {
		comps, err := tx.Components()
		if err != nil {
			return err
		}
		i := slices.IndexFunc(comps, func(c statusd.Component) bool { return c.ID == id })
		if i < 0 {
			return statusd.Errorf(statusd.ENotFound, "component %d not found", id)
		}
		c := comps[i]
		if body.Name != nil {
			c.Name = *body.Name
		}
		setKey(&c, body)
		if body.Description != nil {
			c.Description = *body.Description
		}
		if body.MetricsEnabled != nil {
			c.MetricsEnabled = *body.MetricsEnabled
		}
		c.UpdatedAt = a.stamp()
		order, err := placeComponent(comps, c, body, len(comps))
		if err != nil {
			return err
		}
		placed := order[slices.IndexFunc(order, func(o statusd.Component) bool { return o.ID == id })]
		return a.reshape(tx, comps, !equalParent(placed.ParentID, comps[i].ParentID), func() error {
			if err := savePositions(tx, comps, order, id); err != nil {
				return err
			}
			return tx.Audit(a.entry(actor, "component.update", fmt.Sprintf("component %d", id), c.Name))
		})
	})
	if err == nil {
		a.wake(nil)
	}
	return err
}

// equalParent reports whether two parents are the same (nil: none).
func equalParent(p, q *int64) bool { return p == nil && q == nil || p != nil && q != nil && *p == *q }

// reshape runs change, a write of the component tree comps in tx, and,
// when states may move (a component moved to another parent, or removed
// from notices that list it), stores the updates of the components whose
// states it changed (CONTRACT C7).
func (a *App) reshape(tx statusd.Tx, comps []statusd.Component, states bool, change func() error) error {
	if !states {
		return change()
	}
	before, err := treeStates(tx, comps)
	if err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	after, err := tx.Components()
	if err != nil {
		return err
	}
	now, err := treeStates(tx, after)
	if err != nil {
		return err
	}
	return emitChanges(tx, nil, diff(after, before, now), a.stamp())
}

// RemoveComponent deletes component id: with recursive, its subtree too
// (without, a component with others below it is a conflict); with detach,
// it is taken out of the notices that list it (without, that is a
// conflict).
func (a *App) RemoveComponent(ctx context.Context, actor statusd.Actor, id int64, recursive, detach bool) error {
	if err := May(actor, ActRemoveComponent); err != nil {
		return err
	}
	err := a.write(ctx, func(tx statusd.Tx) error {
		comps, err := tx.Components()
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(comps, func(c statusd.Component) bool { return c.ID == id }) {
			return statusd.Errorf(statusd.ENotFound, "component %d not found", id)
		}
		doomed := subtree(comps, id)
		if len(doomed) > 1 && !recursive {
			return statusd.Errorf(statusd.EConflict,
				"component %d has %d components below it; delete them first, or delete the subtree with ?recursive=true", id, len(doomed)-1)
		}
		listing, err := tx.NoticesListing(doomed)
		if err != nil {
			return err
		}
		if len(listing) > 0 && !detach {
			return listedConflict(tx, id, len(doomed) > 1, listing)
		}
		return a.reshape(tx, comps, len(listing) > 0, func() error {
			if err := tx.DeleteComponents(doomed); err != nil {
				return err
			}
			rest := slices.DeleteFunc(slices.Clone(comps), func(c statusd.Component) bool { return slices.Contains(doomed, c.ID) })
			if err := savePositions(tx, comps, rest, 0); err != nil {
				return err
			}
			detail := fmt.Sprintf("deleted %d component(s)", len(doomed))
			if len(listing) > 0 {
				detail += fmt.Sprintf(", detached from %d notice(s)", len(listing))
			}
			return tx.Audit(a.entry(actor, "component.delete", fmt.Sprintf("component %d", id), detail))
		})
	})
	if err == nil {
		a.wake(nil)
	}
	return err
}

// listedConflict refuses to delete component id (and, in a subtree, the
// components below it) while the notices listing lists it: deleting it
// would silently take it out of their history. It names the first ten
// notices with their subjects.
func listedConflict(tx statusd.Tx, id int64, subtree bool, listing []int64) error {
	const named = 10
	var b strings.Builder
	for i, nid := range listing[:min(len(listing), named)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", nid)
		n, err := tx.Notice(nid)
		if err != nil {
			return err
		}
		if n != nil {
			fmt.Fprintf(&b, " (%q)", n.Subject)
		}
	}
	if len(listing) > named {
		fmt.Fprintf(&b, " and %d more", len(listing)-named)
	}
	what, it := fmt.Sprintf("component %d is", id), "it"
	if subtree {
		what, it = fmt.Sprintf("component %d or a component below it is", id), "them"
	}
	notices, those := "notices", "those notices"
	if len(listing) == 1 {
		notices, those = "notice", "that notice"
	}
	return statusd.Errorf(statusd.EConflict, "%s listed by %s %s; pass detach=true to remove %s from %s", what, notices, b.String(), it, those)
}

// subtree returns id and the ids of every component below it, children
// after their parents.
func subtree(comps []statusd.Component, id int64) []int64 {
	out := []int64{id}
	for i := 0; i < len(out); i++ {
		for _, c := range comps {
			if c.ParentID != nil && *c.ParentID == out[i] {
				out = append(out, c.ID)
			}
		}
	}
	return out
}
