package statusd

// CheckTransition decides whether a notice of type t whose state is from may
// get an update in state to (CONTRACT C3: updates carry the state). An
// update that only adds words repeats the current state and is always
// allowed. Otherwise:
//
//   - unplanned: the open states (investigating, identified, recovering)
//     move freely among themselves and to resolved or false_alarm; a closed
//     incident (resolved, false_alarm) only comes back through an explicit
//     reopen;
//   - planned: scheduled goes underway or cancelled; underway goes complete,
//     cancelled, or back to scheduled (postponed); complete and cancelled are
//     final;
//   - general notices have no state.
//
// The error is an *Error with code EInvalidTransition that says why and what
// to do instead.
func CheckTransition(t NoticeType, from, to State) error {
	if t == General {
		if to != "" {
			return Errorf(EInvalidTransition, "general notices have no state; leave state out")
		}
		return nil
	}
	if !ValidState(t, to) {
		return Errorf(EInvalidTransition, "%q is not a state of a%s %s notice (%s)", to, article(t), t, stateList(t))
	}
	if to == from {
		return nil
	}
	allowed := map[NoticeType]map[State][]State{
		Unplanned: {
			Investigating: {Identified, Recovering, Resolved, FalseAlarm},
			Identified:    {Investigating, Recovering, Resolved, FalseAlarm},
			Recovering:    {Investigating, Identified, Resolved, FalseAlarm},
		},
		Planned: {
			Scheduled: {Underway, Cancelled},
			Underway:  {Complete, Cancelled, Scheduled},
		},
	}[t][from]
	if contains(allowed, to) {
		return nil
	}
	switch {
	case t == Unplanned && IsClosed(t, from):
		return Errorf(EInvalidTransition, "the incident is %s; going back to %s requires an explicit reopen", from, to)
	case t == Planned && IsClosed(t, from):
		return Errorf(EInvalidTransition, "the maintenance is %s, which is final; schedule a new one instead", from)
	}
	return Errorf(EInvalidTransition, "a %s notice cannot go from %s to %s", t, from, to)
}

// CheckRepeat refuses a state command that targets the final state n is
// already in (resolved on a resolved incident): posting it again would
// add a second closing update and tell every subscriber twice. Adding
// words without naming a state stays allowed. The error is an *Error with
// code EConflict that says nothing was posted.
func CheckRepeat(n *Notice, to State) error {
	if to == n.State() && IsClosed(n.Type, to) {
		return Errorf(EConflict, "notice %d is already %s; nothing was posted and no one was notified (leave the state out to add words to it)", n.ID, to)
	}
	return nil
}

// CheckReopen decides whether a notice may be reopened: only a closed
// incident (resolved or false_alarm) can.
func CheckReopen(n *Notice) error {
	if n.Type != Unplanned {
		return Errorf(EInvalidTransition, "only incidents (unplanned notices) can be reopened; this one is %s", n.Type)
	}
	if !IsClosed(n.Type, n.State()) {
		return Errorf(EInvalidTransition, "the incident is %s, not closed; post an update instead", n.State())
	}
	return nil
}
