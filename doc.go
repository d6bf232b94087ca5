// Package statusd is the domain of statusd, a self-hosted status publication
// service: the page, its component tree, notices and their updates, the rules
// that derive states from updates (CONTRACT C3), the impact and metrics
// arithmetic (C4), the import document and its validation (C5), the wire types
// of the public v1 API, the Store interface and the one Error type.
//
// The package imports the standard library only and does no I/O.
package statusd
