package htmlkit

import (
	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// Node is a component in a tree, as the screens and forms show it: its
// name and state, and in a tree of checkboxes whether it is checked.
type Node struct {
	ID       int64
	Name     string
	State    statusd.PageState
	Checked  bool
	Children []*Node
}

// Tree is the page's component tree, in the public order; checked (nil:
// none) says which components' boxes are checked.
func Tree(snap *snapshot.Snapshot, checked func(id int64) bool) []*Node {
	var node func(c *snapshot.Component) *Node
	node = func(c *snapshot.Component) *Node {
		n := &Node{ID: c.ID, Name: c.Name, State: c.State, Checked: checked != nil && checked(c.ID)}
		for _, child := range c.Children {
			n.Children = append(n.Children, node(child))
		}
		return n
	}
	var out []*Node
	for _, c := range Roots(snap) {
		out = append(out, node(c))
	}
	return out
}

// Roots are the components at the top of snap's tree, in the public
// order: those without a parent, or whose parent is not on the page.
func Roots(snap *snapshot.Snapshot) []*snapshot.Component {
	var out []*snapshot.Component
	for _, c := range snap.AllComponents {
		if c.ParentID == nil || snap.Component(*c.ParentID) == nil {
			out = append(out, c)
		}
	}
	return out
}
