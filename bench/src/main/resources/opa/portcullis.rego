# config/policy-rules.xml in Rego, for OpaCompare: the same rules, first match wins (Rego's
# `else` chain), each decision with its rule and reason as the PDP's DEC carries them.
package portcullis

import rego.v1

default decision := {"decision": "remove", "rule": "default", "reason": "no rule allows this"}

decision := {
	"decision": "install", "rule": "ops-ssh",
	"reason": "operators may reach the management network", "validForSeconds": 3600,
} if {
	input.operation == "ACCESS"
	input.subject in {"alice", "bob"}
	input.service == "ssh"
	net.cidr_contains("10.0.0.0/8", input.destination)
	input.destinationPort == 22
	input.protocol == "tcp"
} else := {
	"decision": "install", "rule": "web-out",
	"reason": "anyone may browse", "validForSeconds": 300,
} if {
	input.operation == "ACCESS"
	input.destinationPort in {80, 443}
	input.protocol == "tcp"
} else := {
	"decision": "install", "rule": "proxied-demo",
	"reason": "alice may use the demo service",
} if {
	input.operation == "ACCESS"
	input.subject == "alice"
	input.service == "demo"
	input.destinationPort == 8081
	input.protocol == "tcp"
} else := {"decision": "remove", "rule": "no-telnet", "reason": "telnet is never allowed"} if {
	input.destinationPort == 23
}
