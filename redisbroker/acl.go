package redisbroker

import "strings"

// ACLCommands are the commands a broker runs, and all that its Redis user
// needs: the connection's handshake (HELLO, which authenticates; PING;
// CLIENT SETNAME when the client is given a name), what a cluster client
// asks to route commands (CLUSTER SLOTS, for the masters; COMMAND, for the
// commands' key positions: without it, go-redis asks again before every
// command, up to three nodes each time), the scripts (EVALSHA, EVAL when a
// master does not have a script yet, SCRIPT LOAD) and the commands they run
// on the server, which Redis checks against the user too, and the reads and
// pub/sub outside the scripts (HMGET, ZRANGEBYSCORE, PUBLISH, SUBSCRIBE).
//
// go-redis also sends CLIENT SETINFO (Redis 7.2 and later) and, on Redis
// 8, CLIENT MAINT_NOTIFICATIONS; it ignores their refusal, so they are not
// listed (Redis 7.0 does not know the first, and refuses an ACL rule that
// names it).
var ACLCommands = []string{
	"hello", "ping", "client|setname", "cluster|slots", "command",
	"evalsha", "eval", "script|load",
	"hmget", "zrangebyscore", "publish", "subscribe",
	// run by the scripts
	"time", "exists", "hset", "pexpire", "zadd", "zrem", "zremrangebyscore", "del",
}

// ACLRule returns the rule of a Redis user that may run the brokers of
// prefix (empty means DefaultPrefix) and nothing else: [ACLCommands], on
// the keys and pub/sub channels that start with prefix only. Use it with
// ACL SETUSER name on >password RULE, or in an ACL file:
//
//	user ocp-broker on >PASSWORD resetkeys ~{ocp-confirm}:* resetchannels &{ocp-confirm}:* -@all +hello ...
func ACLRule(prefix string) string {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	glob := globEscape(prefix) + "*"
	var b strings.Builder
	b.WriteString("resetkeys ~" + glob + " resetchannels &" + glob + " -@all")
	for _, c := range ACLCommands {
		b.WriteString(" +" + c)
	}
	return b.String()
}

// globEscape escapes the characters of Redis's glob patterns in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
