// Package egress is the dependency step's one way out: an HTTP proxy core
// serves on the host that connects only to the configured registries'
// hosts (Hosts, and a target allowed exactly by name and port), the
// forwarder inside the step that passes the step's loopback to it
// (`core sandbox egress`), and the record of the allowed hosts it could
// not reach.
package egress
