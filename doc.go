// Package statusd is the domain of statusd, a self-hosted status publication
// service: the page, its component tree, notices and their updates, the rules
// that derive states from updates, the impact and metrics arithmetic (both in
// docs/API.md), the import document and its validation (docs/IMPORT.md), the
// wire types of the public v1 API and of the admin API (docs/ADMIN-API.md),
// the Store interface and the one Error type.
//
// The package imports the standard library only and does no I/O.
package statusd
